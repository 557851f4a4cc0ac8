package interp

import (
	"math/rand/v2"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/runtime"
	"github.com/tilec/tilec/runtime/internal/irtest"
)

func TestMatmulHandBuilt(t *testing.T) {
	for _, tc := range []struct {
		dt                ir.DType
		M, N, K           int
		tm, tn, tk, group int
	}{
		{ir.F16, 127, 129, 65, 32, 64, 16, 8},
		{ir.BF16, 64, 64, 64, 16, 16, 16, 2},
		{ir.F32, 33, 17, 40, 16, 16, 8, 4},
		{ir.F16, 200, 300, 100, 128, 256, 64, 8},
	} {
		rng := rand.New(rand.NewPCG(1, 2))
		A := runtime.RandNormal(rng, tc.dt, tc.M, tc.K)
		B := runtime.RandNormal(rng, tc.dt, tc.K, tc.N)
		C := runtime.NewTensor(tc.dt, tc.M, tc.N)
		C.Fill(nan)
		f := irtest.Matmul(tc.dt, tc.tm, tc.tn, tc.tk, tc.group)
		if err := ir.Verify(f); err != nil {
			t.Fatalf("hand-built IR: %v", err)
		}
		k := runtime.NewKernel(f)
		if _, err := (CPU{}).Launch(k, []runtime.Arg{A, B, C}, runtime.LaunchOptions{}); err != nil {
			t.Fatal(err)
		}
		tol := tolFor(tc.dt)
		if tc.dt == ir.F32 {
			tol = 1e-3 // mma rounds f32 inputs to tf32
		}
		checkClose(t, tc.dt.String(), C.Float64s(), refMatmul(A, B), tol)
	}
}

// BenchmarkInterpMatmul runs testdata/kernels/matmul.tile (f16, default tiles
// 128x256x64) at 512x512x512: 8 blocks of 8 mma steps each.
func BenchmarkInterpMatmul(b *testing.B) {
	benchMatmul(b, compileExample(b, "matmul", "matmul", nil))
}

// BenchmarkInterpMatmulHandBuilt is the same on the hand-built IR.
func BenchmarkInterpMatmulHandBuilt(b *testing.B) {
	benchMatmul(b, runtime.NewKernel(irtest.Matmul(ir.F16, 128, 256, 64, 8)))
}

func benchMatmul(b *testing.B, k *runtime.Kernel) {
	rng := rand.New(rand.NewPCG(1, 2))
	A := runtime.RandNormal(rng, ir.F16, 512, 512)
	B := runtime.RandNormal(rng, ir.F16, 512, 512)
	C := runtime.NewTensor(ir.F16, 512, 512)
	for b.Loop() {
		if _, err := Launch(k, []runtime.Arg{A, B, C}, runtime.LaunchOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(2*512*512*512/(float64(b.Elapsed().Nanoseconds())/float64(b.N)), "GFLOP/s")
}
