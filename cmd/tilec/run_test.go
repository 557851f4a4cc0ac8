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
	// The file's fault, found in its header before its 12 GB are read.
	want := "--in X: " + filepath.Join(dir, "big.npy") + ": npy: axis 0 has 3000000000 elements, more than the 2147483647 kernels index (array dims are i32)\n"
	if rc != 1 || stderr.String() != want || strings.Contains(stderr.String(), "--shape") {
		t.Errorf("exit %d, stderr %q; want 1 and %q", rc, stderr.String(), want)
	}
}

// An --in file's integers are range-checked into the kernel's dtype,
// sign included: uint64 2^64-1 does not become int64 -1.
func TestRunInputIntegersRangeChecked(t *testing.T) {
	dir := t.TempDir()
	u, err := runtime.AllocTensor(ir.U64, 2)
	if err != nil {
		t.Fatal(err)
	}
	u.SetInt(-1, 0) // the bits of 2^64-1
	if err := npy.WriteFile(filepath.Join(dir, "u.npy"), u); err != nil {
		t.Fatal(err)
	}
	src := "import cuda.tile as ct\n\n@ct.kernel(grid=(1,))\n" +
		"def cp(X: ct.Array[ct.int64, (2,)], Y: ct.Array[ct.int64, (2,)]):\n" +
		"    ct.store(Y, index=(0,), tile=ct.load(X, index=(0,), shape=(2,)))\n"
	if err := os.WriteFile(filepath.Join(dir, "k.tile"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	rc := runCommand([]string{"run", filepath.Join(dir, "k.tile"), "--in", "X=" + filepath.Join(dir, "u.npy")}, &stdout, &stderr)
	if want := "18446744073709551615, which does not fit the kernel's i64"; rc == 0 || !strings.Contains(stderr.String(), want) {
		t.Errorf("exit %d, stderr %q; want a failure naming %q", rc, stderr.String(), want)
	}
}

// A host function's generated arrays are checked together against the
// host's memory before the first is made, as a kernel's are: two that fit
// one by one but not together were refused only after the first one's
// random fill.
func TestEntryArraysCheckedTogether(t *testing.T) {
	old := runtime.HostMemoryLimit
	runtime.HostMemoryLimit = 100 << 20
	defer func() { runtime.HostMemoryLimit = old }()
	dir := t.TempDir()
	src := "import cuda.tile as ct\nimport torch\n\n@ct.kernel\ndef cp(X, Y):\n" +
		"    ct.store(Y, index=(0,), tile=ct.load(X, index=(0,), shape=(4,)))\n\n" +
		"def pair(X, Y):\n    ct.launch(torch.cuda.current_stream(), (1,), cp, (X, Y))\n"
	if err := os.WriteFile(filepath.Join(dir, "k.py"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	rc := runCommand([]string{"run", filepath.Join(dir, "k.py"), "--entry", "pair", "--arg", "X=f32[N]", "--arg", "Y=f32[N]",
		"--shape", "N=15000000"}, &stdout, &stderr)
	want := "tilec: the arrays need 120000000 bytes (114.4 MiB) of host memory (X f32 [15000000] 60000000, Y f32 [15000000] 60000000), more than the 104857600 bytes (100.0 MiB) available\n"
	if rc != 1 || stderr.String() != want || stdout.Len() != 0 {
		t.Errorf("exit %d, stdout %q, stderr %q; want 1 and %q", rc, stdout.String(), stderr.String(), want)
	}
}
