package interp

import (
	"math"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/runtime"
)

// refMatmul is C = A@B in float64 over logical elements.
func refMatmul(A, B *runtime.Tensor) []float64 {
	M, K, N := A.Shape[0], A.Shape[1], B.Shape[1]
	a, b := A.Float64s(), B.Float64s()
	c := make([]float64, M*N)
	for i := 0; i < M; i++ {
		for j := 0; j < N; j++ {
			s := 0.0
			for k := 0; k < K; k++ {
				s += a[i*K+k] * b[k*N+j]
			}
			c[i*N+j] = s
		}
	}
	return c
}

// checkClose fails unless got is within tol of want, relative to max|want|.
func checkClose(t *testing.T, what string, got, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	scale := 0.0
	for _, w := range want {
		scale = math.Max(scale, math.Abs(w))
	}
	if scale == 0 {
		scale = 1
	}
	bad := 0
	for i := range got {
		if !(math.Abs(got[i]-want[i]) <= tol*scale) {
			if bad < 5 {
				t.Errorf("%s[%d] = %g, want %g (tol %g x %g)", what, i, got[i], want[i], tol, scale)
			}
			bad++
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d of %d values differ", what, bad, len(got))
	}
}

func tolFor(d ir.DType) float64 {
	switch d {
	case ir.F16, ir.BF16:
		return 1e-2
	case ir.TF32:
		return 1e-3
	case ir.F32:
		return 1e-5
	}
	return 1e-12
}
