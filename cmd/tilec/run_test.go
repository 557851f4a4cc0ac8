package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/runtime"
	"github.com/tilec/tilec/runtime/npy"
)

// An --in file with an axis beyond i32 (here an empty array of 3e9 rows,
// a few bytes on disk) is the file's error, named by --in, not a --shape
// the user never gave.
func TestRunInputAxisBeyondI32(t *testing.T) {
	dir := t.TempDir()
	big, err := runtime.AllocTensor(ir.F32, 3000000000, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := npy.WriteFile(filepath.Join(dir, "big.npy"), big); err != nil {
		t.Fatal(err)
	}
	src := "import cuda.tile as ct\n\n@ct.kernel(grid=(1,))\n" +
		"def k(X: ct.Array[ct.float32, (N, M)], Y: ct.Array[ct.float32, (N,)]):\n" +
		"    ct.store(Y, index=(0,), tile=ct.full((4,), 1.0, dtype=ct.float32))\n"
	if err := os.WriteFile(filepath.Join(dir, "k.tile"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	rc := runCommand([]string{"run", filepath.Join(dir, "k.tile"), "--in", "X=" + filepath.Join(dir, "big.npy")}, &stdout, &stderr)
	want := "tilec: --in X: axis 0 of the file has 3000000000 elements, more than the 2147483647 kernels index (dims are i32)\n"
	if rc != 2 || stderr.String() != want || strings.Contains(stderr.String(), "--shape") {
		t.Errorf("exit %d, stderr %q; want 2 and %q", rc, stderr.String(), want)
	}
}
