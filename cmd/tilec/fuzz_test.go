package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tilec/tilec/runtime"
)

// FuzzRunFlags drives `tilec run` with mutated flags and a mutated .npy
// input: any input must give output or an error, never a panic or a hang.
// Arguments that name files (a '/' or --out) are dropped so that the fuzzer
// writes nothing outside its temporary directory; --timeout 1s is always
// last, and the host memory is capped, so a huge --shape is an error
// rather than a long fill.
func FuzzRunFlags(f *testing.F) {
	kernel := `import cuda.tile as ct

@ct.kernel(grid=(ct.cdiv(N, tile),))
def k(X: ct.Array[ct.float32, (N,)], Y: ct.Array[ct.int32, (N,)], Z: ct.Array[ct.float32, (N,)],
      s: float, tile: ct.Constant[int] = 16):
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(tile,))
    y = ct.load(Y, index=(i,), shape=(tile,))
    ct.store(Z, index=(i,), tile=x * s + ct.astype(y // 3, ct.float32))
`
	npyF32 := "\x93NUMPY\x01\x00v\x00{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }" +
		strings.Repeat(" ", 51) + "\n" + strings.Repeat("\x00\x00\x80?", 4)
	f.Add("--shape N=100 --scalar s=2", npyF32)
	f.Add("--in X=a.npy --scalar s=0.5", npyF32)
	f.Add("--in Y=a.npy --scalar s=1 -D tile=32", npyF32)
	f.Add("--shape N=1e11 --scalar s=1", "")
	f.Add("--grid 1,65536 --scalar s=1", "")
	f.Add("--scalar X=1 --scalar s=1", "")
	f.Add("--in X=a.npy --in X=a.npy", npyF32)
	f.Add("--progress 1ms --shape N=4096 --scalar s=1", "")
	old := runtime.HostMemoryLimit
	runtime.HostMemoryLimit = 64 << 20
	defer func() { runtime.HostMemoryLimit = old }()
	dir := f.TempDir()
	src := filepath.Join(dir, "k.tile")
	if err := os.WriteFile(src, []byte(kernel), 0o644); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, flags, npy string) {
		tmp := t.TempDir()
		if err := os.WriteFile(filepath.Join(tmp, "a.npy"), []byte(npy), 0o644); err != nil {
			t.Fatal(err)
		}
		args := []string{"run", src}
		for _, a := range strings.Fields(flags) {
			if strings.Contains(a, "/") || strings.Contains(a, "out") || strings.Contains(a, "backend") {
				continue
			}
			args = append(args, strings.ReplaceAll(a, "a.npy", filepath.Join(tmp, "a.npy")))
		}
		args = append(args, "--timeout", "1s")
		runCommand(args, io.Discard, io.Discard)
	})
}
