package interp

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/lower"
	"github.com/tilec/tilec/runtime"
	"github.com/tilec/tilec/runtime/compile"
)

// lower's pad pass runs an mma tile smaller than the tensor-core
// instruction as the smallest one, on zero-padded operands, and extracts
// the result. The rewrite is tile IR the interpreter runs: the padded
// kernel must give the original's results bit for bit (zero rows and
// columns add exact zeros to every sum), and the padded kernel must have
// no mma below the instruction's tile.
func TestPadMMAKeepsResults(t *testing.T) {
	for _, tc := range []struct {
		T          string
		dt         ir.DType
		tm, tn, tk string
	}{
		{"f16", ir.F16, "1", "64", "8"},
		{"bf16", ir.BF16, "8", "16", "32"},
		{"f16", ir.F16, "128", "8", "64"},
		{"tf32", ir.TF32, "4", "8", "4"},
		{"f32", ir.F32, "2", "16", "8"},
	} {
		k := compileExample(t, "matmul", "matmul", map[string]string{"T": tc.T, "tm": tc.tm, "tn": tc.tn, "tk": tc.tk})
		g := lower.Clone(k.Func)
		if err := lower.PadMMA(g, lower.MustTarget("sm_80")); err != nil {
			t.Fatal(err)
		}
		if err := ir.Verify(g); err != nil {
			t.Fatalf("%s %sx%sx%s: padded kernel: %v", tc.T, tc.tm, tc.tn, tc.tk, err)
		}
		g.Body.Walk(func(in *ir.Instr) {
			if in.Op == ir.OpMMA {
				s := in.Result().Type.(*ir.Tile).Shape
				if k := in.Args[0].Type.(*ir.Tile).Shape[1]; s[0]%16 != 0 || s[1]%16 != 0 || k%8 != 0 {
					t.Errorf("%s: mma %dx%dx%d left unpadded", tc.T, s[0], s[1], k)
				}
			}
		})
		rng := rand.New(rand.NewPCG(21, 0))
		const M, N, K = 37, 30, 50
		A := runtime.RandNormal(rng, tc.dt, M, K)
		B := runtime.RandNormal(rng, tc.dt, K, N)
		want, got := poisoned(tc.dt, M, N), poisoned(tc.dt, M, N)
		runExample(t, k, A, B, want)
		runExample(t, runtime.NewKernel(g), A, B, got)
		for i, w := range want.Float64s() {
			if x := got.Float64s()[i]; math.Float64bits(x) != math.Float64bits(w) {
				t.Fatalf("%s %sx%sx%s: C[%d] = %v padded, %v unpadded", tc.T, tc.tm, tc.tn, tc.tk, i, x, w)
			}
		}
	}
}

// Operands that are splats (ct.full) are padded with zeros along K like
// any other: only the accumulator's padding may keep its splat value (its
// rows and columns are dropped). full(1) @ full(1) over K = 8 is 8, not
// the 16 of a splat padded with ones.
func TestPadMMASplatOperands(t *testing.T) {
	k, err := compile.Source("k.py", []byte(`import cuda.tile as ct


@ct.kernel(grid=(1,))
def ones(C: ct.Array[ct.float32, (16, 16)]):
    a = ct.full((16, 8), 1.0, dtype=ct.float16)
    b = ct.full((8, 16), 1.0, dtype=ct.float16)
    ct.store(C, index=(0, 0), tile=ct.mma(a, b, ct.zeros((16, 16), dtype=ct.float32)))
`), compile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	g := lower.Clone(k.Func)
	if err := lower.PadMMA(g, lower.MustTarget("sm_80")); err != nil {
		t.Fatal(err)
	}
	C := runtime.NewTensor(ir.F32, 16, 16)
	runExample(t, runtime.NewKernel(g), C)
	for i, x := range C.Float64s() {
		if x != 8 {
			t.Fatalf("C[%d] = %v, want 8", i, x)
		}
	}
}
