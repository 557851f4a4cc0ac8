package interp

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/runtime"
	"github.com/tilec/tilec/runtime/compile"
)

// chainSrc is a kernel with n live tiles of shape (r, c), each from the one
// before, the last stored.
func chainSrc(n, r, c int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "import cuda.tile as ct\n\n@ct.kernel\ndef k(Y: ct.Array[ct.float32, (%d, %d)]):\n", r, c)
	fmt.Fprintf(&b, "    x0 = ct.full((%d, %d), 1.0, dtype=ct.float32)\n", r, c)
	for i := 1; i < n; i++ {
		fmt.Fprintf(&b, "    x%d = x%d * 2.0\n", i, i-1)
	}
	fmt.Fprintf(&b, "    ct.store(Y, index=(0, 0), tile=x%d)\n", n-1)
	return b.String()
}

// The interpreter checks its tiles' memory before a launch: frames that
// do not fit in the host's memory (runtime.HostMemoryLimit here) are an
// error before any block runs when the workers were asked for or one
// worker does not fit, and fewer workers otherwise; the results are the
// same.
func TestTileMemory(t *testing.T) {
	old := runtime.HostMemoryLimit
	t.Cleanup(func() { runtime.HostMemoryLimit = old })
	k, err := compile.Source("k.py", []byte(chainSrc(4, 256, 256)), compile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// 4 tiles of 256x256 (and the stored one's conversion) at 8 bytes an
	// element: about 2.5 MiB a worker.
	m := countTileMemory(k.Func)
	if m.tiles < 4 || m.bytes < 4*256*256*8 || m.bytes > 8*256*256*8 || m.largest.NumElements() != 256*256 {
		t.Fatalf("estimate %+v, want 4 to 8 tiles of 256x256", m)
	}
	runtime.HostMemoryLimit = 2*m.bytes + m.bytes/2 // two workers fit
	Y := runtime.NewTensor(ir.F32, 256, 256)
	grid := runtime.LaunchOptions{Grid: [3]int{8, 1, 1}, Workers: 4}
	_, err = CPU{}.Launch(k, []runtime.Arg{Y}, grid)
	if err == nil || !strings.Contains(err.Error(), "the interpreter holds") || !strings.Contains(err.Error(), "4 workers need more than the host memory available") ||
		!strings.Contains(err.Error(), "use at most 2 workers") {
		t.Fatalf("4 workers asked for: %v, want an error before running", err)
	}
	if Y.Float64s()[0] != 0 {
		t.Errorf("a block ran before the error")
	}
	grid.Workers = 0 // the default: as many as fit
	if _, err := (CPU{}).Launch(k, []runtime.Arg{Y}, grid); err != nil {
		t.Fatalf("default workers: %v", err)
	}
	if got := Y.Float64s()[256*256-1]; got != 8 {
		t.Errorf("Y = %g, want 8", got)
	}
	runtime.HostMemoryLimit = m.bytes / 2
	_, err = CPU{}.Launch(k, []runtime.Arg{Y}, grid)
	if err == nil || !strings.Contains(err.Error(), "more than the host memory available (") || !strings.Contains(err.Error(), "use smaller tiles") {
		t.Fatalf("one worker too many: %v", err)
	}

	// 200 live 4096x4096 f32 tiles: 25 GiB a worker, refused at once
	// (the check above passed, so this does not allocate them).
	big, err := compile.Source("k.py", []byte(chainSrc(200, 4096, 4096)), compile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	runtime.HostMemoryLimit = 8 << 30
	_, err = CPU{}.Launch(big, []runtime.Arg{runtime.NewTensor(ir.F32, 4096, 4096)}, runtime.LaunchOptions{Grid: [3]int{1, 1, 1}})
	if err == nil || !strings.Contains(err.Error(), "tile values, the largest tile<4096x4096xf32>") {
		t.Fatalf("200 tiles of 4096x4096: %v", err)
	}
}
