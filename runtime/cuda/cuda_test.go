//go:build cuda

package cuda

// Tests of the CUDA backend against the interpreter. They need a GPU: a
// cuda-tagged binary exits at start-up without one (gorgonia.org/cu's init).
// Build them here and run them on the GPU machine:
//
//	go test -c -tags cuda -o .dev/runtime.test ./runtime/cuda
//	(cd runtime/cuda && ../../.dev/runtime.test -test.run CUDA -test.v)        (there)

import (
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/lower"
	"github.com/tilec/tilec/runtime"
	"github.com/tilec/tilec/runtime/check"
	"github.com/tilec/tilec/runtime/compile"
	"github.com/tilec/tilec/runtime/internal/irtest"
)

var (
	gpuOnce sync.Once
	gpu     *GPU
	gpuErr  error
)

func testGPU(t *testing.T) *GPU {
	t.Helper()
	gpuOnce.Do(func() { gpu, gpuErr = New(0) })
	if gpuErr != nil {
		t.Fatalf("New: %v", gpuErr)
	}
	return gpu
}

func logInfo(t *testing.T, c *GPU, k *runtime.Kernel) {
	t.Helper()
	info, err := c.CompileInfo(k)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s", info.Summary())
}

// checkGPU launches k on args on the GPU (outputs poisoned first) and
// checks the result against the interpreter.
func checkGPU(t *testing.T, c *GPU, k *runtime.Kernel, args []runtime.Arg, opts check.CheckOptions) {
	t.Helper()
	check.PoisonOutputs(k.Func, args)
	inputs := check.CloneArgs(args)
	res, err := c.Launch(k, args, runtime.LaunchOptions{Grid: opts.Grid})
	if err != nil {
		t.Fatal(err)
	}
	if res.Elapsed <= 0 {
		t.Errorf("elapsed %v", res.Elapsed)
	}
	chk, err := check.CheckAgainstInterpreter(k, inputs, args, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s kernel %v grid %v: %s", k.Name(), res.Elapsed, res.Grid, chk)
	if !chk.Pass {
		t.Error("GPU result differs from the interpreter's")
	}
}

func TestCUDACopyStrided(t *testing.T) {
	c := testGPU(t)
	t.Logf("device: %s", c.DeviceName())
	rng := rand.New(rand.NewPCG(1, 2))
	for _, d := range []ir.DType{ir.F32, ir.F16} {
		k := runtime.NewKernel(irtest.CopyTile(d, 16, 32, ir.PadZero))
		// A transposed view (strides (1, 45)) and a C with an offset and row
		// padding: the device gets storage spans and the same strides.
		base := runtime.RandNormal(rng, d, 77, 45)
		A := base.Transpose()
		Cstore := runtime.NewTensor(d, 50, 80)
		C, err := Cstore.View([]int{45, 77}, []int{80, 1})
		if err != nil {
			t.Fatal(err)
		}
		C.Offset = 3
		checkGPU(t, c, k, []runtime.Arg{A, C}, check.CheckOptions{})
		// The storage outside C's view came back unchanged (zero).
		if x := Cstore.Data[0]; x != 0 {
			t.Errorf("%s: storage before the view changed", d)
		}
		logInfo(t, c, k)
	}
}

func TestCUDAMatmul(t *testing.T) {
	c := testGPU(t)
	rng := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct {
		dt                ir.DType
		tm, tn, tk, group int
		M, N, K           int
	}{
		{ir.F16, 128, 256, 64, 8, 127, 129, 65},
		{ir.F16, 128, 256, 64, 8, 1000, 1030, 999},
		{ir.BF16, 128, 256, 64, 8, 512, 512, 512},
		{ir.TF32, 64, 64, 32, 8, 127, 129, 65}, // f32 inputs are exact float32: interpreter only
		{ir.F16, 64, 64, 32, 4, 300, 200, 100},
	} {
		k := runtime.NewKernel(irtest.Matmul(tc.dt, tc.tm, tc.tn, tc.tk, tc.group))
		A := runtime.RandNormal(rng, tc.dt, tc.M, tc.K)
		B := runtime.RandNormal(rng, tc.dt, tc.K, tc.N)
		C := runtime.NewTensor(tc.dt, tc.M, tc.N)
		checkGPU(t, c, k, []runtime.Arg{A, B, C}, check.CheckOptions{})
		logInfo(t, c, k)
	}
	// A transposed A operand: C = (A^T)^T-style strided load.
	k := runtime.NewKernel(irtest.Matmul(ir.F16, 128, 256, 64, 8))
	At := runtime.RandNormal(rng, ir.F16, 200, 300) // A is its transpose: 300 x 200
	B := runtime.RandNormal(rng, ir.F16, 200, 150)
	checkGPU(t, c, k, []runtime.Arg{At.Transpose(), B, runtime.NewTensor(ir.F16, 300, 150)}, check.CheckOptions{})

	// Same IR, same target: one cache entry.
	n := len(c.cache)
	k2 := runtime.NewKernel(irtest.Matmul(ir.F16, 128, 256, 64, 8))
	if _, err := c.CompileInfo(k2); err != nil {
		t.Fatal(err)
	}
	if len(c.cache) != n {
		t.Errorf("cache grew from %d to %d for an identical kernel", n, len(c.cache))
	}
}

func TestCUDAPrepared(t *testing.T) {
	c := testGPU(t)
	rng := rand.New(rand.NewPCG(5, 6))
	const M, N, K = 1024, 512, 768
	for _, dt := range []ir.DType{ir.F16, ir.BF16} {
		k := runtime.NewKernel(irtest.Matmul(dt, 128, 256, 64, 8))
		A, B, C := runtime.RandNormal(rng, dt, M, K), runtime.RandNormal(rng, dt, K, N), runtime.NewTensor(dt, M, N)
		args := []runtime.Arg{A, B, C}
		check.PoisonOutputs(k.Func, args)
		inputs := check.CloneArgs(args)
		p, err := c.Prepare(k, args, runtime.LaunchOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ms, err := p.Time(3, 20)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Download(); err != nil {
			t.Fatal(err)
		}
		chk, err := check.CheckAgainstInterpreter(k, inputs, args, check.CheckOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !chk.Pass {
			t.Errorf("tilec: %s", chk)
		}
		blas, err := p.TimeCublas("A", "B", "C", 3, 20)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s %dx%dx%d: tilec %.3f ms (%.1f TFLOP/s), cuBLAS %.3f ms (%.1f TFLOP/s)", dt, M, N, K,
			ms, TFLOPS(M, N, K, ms), blas, TFLOPS(M, N, K, blas))
		// One call with a cold L2 (bench --entry's baseline), as TimeCold
		// times a launch; C poisoned first, so the check below sees what
		// the cold call wrote.
		tilecCold, err := p.TimeCold()
		if err != nil {
			t.Fatal(err)
		}
		check.PoisonOutputs(k.Func, args)
		if err := p.Upload(); err != nil {
			t.Fatal(err)
		}
		blasCold, err := p.TimeCublasCold("A", "B", "C")
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s %dx%dx%d cold: tilec %.3f ms, cuBLAS %.3f ms", dt, M, N, K, tilecCold, blasCold)
		// cuBLAS wrote C on the device: it must agree with the interpreter too.
		if err := p.Download(); err != nil {
			t.Fatal(err)
		}
		chk, err = check.CheckAgainstInterpreter(k, inputs, args, check.CheckOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !chk.Pass {
			t.Errorf("cuBLAS: %s", chk)
		}
		if _, err := p.Ptr("nope"); err == nil {
			t.Error("Ptr of an unknown name: no error")
		}
		if err := p.Free(); err != nil {
			t.Fatal(err)
		}
		if err := p.Run(); err == nil {
			t.Error("Run after Free: no error")
		}
	}
}

// cuBLAS's strided-batched GEMM on the buffers of examples/batched_matmul:
// what it writes into C agrees with the interpreter (so tilec bench's
// batched baseline computes the same product), and 2-D names are refused.
func TestCUDAPreparedBatched(t *testing.T) {
	c := testGPU(t)
	k, err := compile.File("../../testdata/kernels/batched_matmul.tile", compile.Options{Consts: map[string]string{"tm": "64", "tn": "64", "tk": "32"}})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	const Bt, M, N, K = 3, 320, 192, 256
	A, B, C := runtime.RandNormal(rng, ir.F16, Bt, M, K), runtime.RandNormal(rng, ir.F16, Bt, K, N), runtime.NewTensor(ir.F16, Bt, M, N)
	args := []runtime.Arg{A, B, C}
	check.PoisonOutputs(k.Func, args)
	inputs := check.CloneArgs(args)
	p, err := c.Prepare(k, args, runtime.LaunchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Free()
	blas, err := p.TimeCublasBatched("A", "B", "C", 3, 20)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("cuBLAS batched f16 %d x %dx%dx%d: %.3f ms (%.1f TFLOP/s)", Bt, M, N, K, blas, Bt*TFLOPS(M, N, K, blas))
	// The cold call alone (bench --entry) writes C too: C poisoned again
	// first, so the check below sees what it wrote.
	check.PoisonOutputs(k.Func, args)
	if err := p.Upload(); err != nil {
		t.Fatal(err)
	}
	cold, err := p.TimeCublasBatchedCold("A", "B", "C")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("cuBLAS batched cold: %.3f ms", cold)
	if err := p.Download(); err != nil {
		t.Fatal(err)
	}
	chk, err := check.CheckAgainstInterpreter(k, inputs, args, check.CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !chk.Pass {
		t.Errorf("cuBLAS batched: %s", chk)
	}
	if _, err := p.TimeCublas("A", "B", "C", 1, 1); err == nil || !strings.Contains(err.Error(), "2-D") {
		t.Errorf("TimeCublas on 3-D arrays: err = %v", err)
	}
	if _, err := p.TimeCublasCold("A", "B", "C"); err == nil || !strings.Contains(err.Error(), "2-D") {
		t.Errorf("TimeCublasCold on 3-D arrays: err = %v", err)
	}
}

func TestCUDAErrors(t *testing.T) {
	c := testGPU(t)
	k := runtime.NewKernel(irtest.CopyTile(ir.F32, 16, 32, ir.PadZero))
	A, C := runtime.NewTensor(ir.F32, 4, 4), runtime.NewTensor(ir.F32, 4, 4)
	if _, err := c.Launch(k, []runtime.Arg{A, C}, runtime.LaunchOptions{Blocks: [][3]int{{0, 0, 0}}}); err == nil {
		t.Error("Blocks on the GPU: no error")
	}
	if _, err := c.Launch(k, []runtime.Arg{A}, runtime.LaunchOptions{}); err == nil {
		t.Error("missing argument: no error")
	}
	old := c.Target
	c.Target = lower.MustTarget("sm_120a")
	if c.Dev.Props.SM() != 120 {
		_, err := c.CompileInfo(k)
		if err == nil || !strings.Contains(err.Error(), "does not run on compute capability") {
			t.Errorf("sm_120a on sm_%d: error %v, want one saying the code does not run here", c.Dev.Props.SM(), err)
		}
	}
	c.Target = old
}

// TestCUDAVariants launches one matmul kernel on aligned and unaligned
// arrays, alternately: the fast variant (cp.async only) must run exactly
// when A and B are 16-byte aligned with unit last stride, the general one
// otherwise, both correct, and CompileInfo says which ran.
func TestCUDAVariants(t *testing.T) {
	c := testGPU(t)
	rng := rand.New(rand.NewPCG(7, 8))
	k := runtime.NewKernel(irtest.Matmul(ir.F16, 128, 256, 64, 8))
	for _, tc := range []struct {
		name    string
		M, N, K int
		gap     int // elements between A and B in their shared storage
		want    string
	}{
		{"aligned", 512, 512, 256, 0, "fast"},
		{"K=999", 1000, 1030, 999, 0, "general"},
		{"aligned again", 256, 512, 128, 0, "fast"},
		{"B 2 bytes off", 256, 256, 128, 1, "general"},
		{"B 16 bytes off", 256, 256, 128, 8, "fast"},
	} {
		// A and B share one storage (one device buffer), so B's device
		// address is A's plus (M*K + gap) elements.
		store := runtime.RandNormal(rng, ir.F16, tc.M*tc.K+tc.gap+tc.K*tc.N)
		A, err := store.View([]int{tc.M, tc.K}, []int{tc.K, 1})
		if err != nil {
			t.Fatal(err)
		}
		B, err := store.View([]int{tc.K, tc.N}, []int{tc.N, 1})
		if err != nil {
			t.Fatal(err)
		}
		B.Offset = tc.M*tc.K + tc.gap
		checkGPU(t, c, k, []runtime.Arg{A, B, runtime.NewTensor(ir.F16, tc.M, tc.N)}, check.CheckOptions{})
		info, err := c.CompileInfo(k)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %s", tc.name, info.Summary())
		if info.Variant != tc.want {
			t.Errorf("%s: ran the %q variant, want %q", tc.name, info.Variant, tc.want)
		}
		if info.LocalBytes != 0 {
			t.Errorf("%s: %s variant has %d bytes of local memory (spills)", tc.name, info.Variant, info.LocalBytes)
		}
	}
}

// TestCUDAHostMatmul: GPU.Matmul (host code's float16/bfloat16 `A @ B`
// under --backend cuda) agrees with float64 products of the same inputs
// within float32 sums rounded to the dtype, plain and batched.
func TestCUDAHostMatmul(t *testing.T) {
	c := testGPU(t)
	rng := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct {
		dt   ir.DType
		a, b []int
		rel  float64
	}{
		{ir.F16, []int{33, 70}, []int{70, 45}, 2e-3},
		{ir.BF16, []int{3, 17, 64}, []int{3, 64, 9}, 1e-2},
	} {
		a, b := runtime.RandNormal(rng, tc.dt, tc.a...), runtime.RandNormal(rng, tc.dt, tc.b...)
		got, err := c.Matmul(a, b)
		if err != nil {
			t.Fatal(err)
		}
		r := len(tc.a)
		batch, m, k, n := 1, tc.a[r-2], tc.a[r-1], tc.b[r-1]
		if r == 3 {
			batch = tc.a[0]
		}
		av, bv, gv := a.Float64s(), b.Float64s(), got.Float64s()
		for z := range batch {
			for i := range m {
				for j := range n {
					want, scale := 0.0, 0.0
					for p := range k {
						x := av[(z*m+i)*k+p] * bv[(z*k+p)*n+j]
						want += x
						scale += math.Abs(x)
					}
					if g := gv[(z*m+i)*n+j]; math.Abs(g-want) > tc.rel*(math.Abs(want)+1e-3*scale) {
						t.Fatalf("%s %v @ %v [%d,%d,%d]: %g, want %g", tc.dt, tc.a, tc.b, z, i, j, g, want)
					}
				}
			}
		}
	}
}
