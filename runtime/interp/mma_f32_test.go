package interp

import (
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/runtime"
)

// TestMatmulF32Exact is issue 10's acceptance case: testdata/kernels/matmul.tile on
// float32 inputs A (all 1+2^-12) and B (all 2^-5), K = 32, whose exact
// product is 1+2^-12 everywhere (every partial sum k*(1+2^-12)/32 is a
// float32, so float32 arithmetic gives it exactly). tfloat32 inputs round
// 1+2^-12 to 1, so the same kernel with T=tf32 gives 1.
func TestMatmulF32Exact(t *testing.T) {
	const u = 1 + 0x1p-12
	for _, tc := range []struct {
		T    string
		dt   ir.DType
		want float64
	}{
		{"f32", ir.F32, u},
		{"tf32", ir.TF32, 1},
	} {
		k := compileExample(t, "matmul", "matmul", map[string]string{"T": tc.T, "tm": "16", "tn": "16", "tk": "16"})
		A := runtime.NewTensor(tc.dt, 48, 32)
		A.Fill(u)
		B := runtime.NewTensor(tc.dt, 32, 48)
		B.Fill(0x1p-5)
		C := poisoned(tc.dt, 48, 48)
		runExample(t, k, A, B, C)
		for i, x := range C.Float64s() {
			if x != tc.want {
				t.Fatalf("T=%s: C[%d] = %v (%#x), want %v", tc.T, i, x, x, tc.want)
			}
		}
	}
}
