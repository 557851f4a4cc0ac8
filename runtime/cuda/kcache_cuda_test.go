//go:build cuda

package cuda

import (
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/runtime"
	"github.com/tilec/tilec/runtime/check"
	"github.com/tilec/tilec/runtime/internal/irtest"
	"github.com/tilec/tilec/runtime/kcache"
)

// TestCUDAKernelCache: a second CUDA backend (as a second process would
// open) loads the PTX the first one stored in the disk cache, says so in
// CompileInfo, and both variants of the cached kernel run correctly.
func TestCUDAKernelCache(t *testing.T) {
	testGPU(t)
	dir := filepath.Join(t.TempDir(), "kernels")
	rng := rand.New(rand.NewPCG(5, 6))
	k := runtime.NewKernel(irtest.Matmul(ir.F16, 128, 256, 64, 8))
	for round, wantCached := range []bool{false, true} {
		c, err := New(0)
		if err != nil {
			t.Fatal(err)
		}
		c.Cache = &kcache.Cache{Dir: dir}
		A := runtime.RandNormal(rng, ir.F16, 300, 200)
		B := runtime.RandNormal(rng, ir.F16, 200, 150)
		checkGPU(t, c, k, []runtime.Arg{A, B, runtime.NewTensor(ir.F16, 300, 150)}, check.CheckOptions{})
		At := runtime.RandNormal(rng, ir.F16, 200, 300) // a transposed A: the general variant
		checkGPU(t, c, k, []runtime.Arg{At.Transpose(), B, runtime.NewTensor(ir.F16, 300, 150)}, check.CheckOptions{})
		info, err := c.CompileInfo(k)
		if err != nil {
			t.Fatal(err)
		}
		if info.Cached != wantCached || info.Variant != "general" {
			t.Errorf("round %d: Cached %v, variant %q; want %v, general", round, info.Cached, info.Variant, wantCached)
		}
		t.Logf("round %d: %s", round, info.Summary())
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if es, err := (&kcache.Cache{Dir: dir}).List(); err != nil || len(es) != 1 {
		t.Errorf("cache: %d entries, %v; want 1", len(es), err)
	}
}
