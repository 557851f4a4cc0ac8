package npy

import (
	"bytes"
	"io"
	"math"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/runtime"
)

// zeroReader reads as n zero bytes: array data without a buffer of its own.
type zeroReader struct{ n int64 }

func (z *zeroReader) Read(p []byte) (int, error) {
	if z.n == 0 {
		return 0, io.EOF
	}
	k := min(int64(len(p)), z.n)
	clear(p[:k])
	z.n -= k
	return int(k), nil
}

// TestReadAllocatesTheDataOnce: the data is read into one buffer of its
// size, not a buffer grown by doubling, whose copies need up to twice the
// array's memory: under an address-space cap a file that fits was a Go
// "fatal error: out of memory" in the middle of the copy.
func TestReadAllocatesTheDataOnce(t *testing.T) {
	const size = 64 << 20
	src := io.MultiReader(bytes.NewReader(numpyHeader("{'descr': '|i1', 'fortran_order': False, 'shape': (67108864,), }")), &zeroReader{size})
	var before, after goruntime.MemStats
	goruntime.GC()
	goruntime.ReadMemStats(&before)
	x, err := Read(src)
	goruntime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if len(x.Data) != size {
		t.Fatalf("read %d bytes, want %d", len(x.Data), size)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > size+size/8 {
		t.Errorf("reading %d bytes of data allocated %d", size, got)
	}
}

// TestReadShortFileBeforeAllocating: a regular file shorter than its
// header says is an error naming both sizes before its data is read.
func TestReadShortFileBeforeAllocating(t *testing.T) {
	path := filepath.Join(t.TempDir(), "short.npy")
	data := append(numpyHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (1000, 1000), }"), make([]byte, 16)...)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadFile(path)
	want := "npy: the file has 16 bytes of data; shape [1000 1000] of <f4 needs 4000000"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("ReadFile = %v, want %q", err, want)
	}
}

// TestReadRefusesAxesKernelsCannotIndex: kernels index arrays with i32,
// so an axis of 2^31 or more is refused from the header, before the data
// (gigabytes of it) is read.
func TestReadRefusesAxesKernelsCannotIndex(t *testing.T) {
	old := runtime.HostMemoryLimit
	runtime.HostMemoryLimit = 1 << 50
	defer func() { runtime.HostMemoryLimit = old }()
	src := numpyHeader("{'descr': '|i1', 'fortran_order': False, 'shape': (2, 3000000000), }")
	_, err := Read(bytes.NewReader(src))
	want := "npy: axis 1 has 3000000000 elements, more than the 2147483647 kernels index (array dims are i32)"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Read = %v, want %q", err, want)
	}
}

// TestConvertRefusesFloatOverflow: a finite value that the kernel's float
// dtype cannot hold is an error naming the element, as an integer out of
// range is, not an infinity (or, for float8 e4m3, a NaN) in the input;
// rounding to the narrower dtype is not an error.
func TestConvertRefusesFloatOverflow(t *testing.T) {
	for _, c := range []struct {
		v    float64
		to   ir.DType
		want string
	}{
		{1e300, ir.F32, "element A[1] of the file is 1e+300, beyond the range of the kernel's f32"},
		{-70000, ir.F16, "element A[1] of the file is -70000, beyond the range of the kernel's f16"},
		{1000, ir.F8E4M3, "beyond the range of the kernel's f8e4m3"},
		{1.0000001, ir.F16, ""},
		{65504, ir.F16, ""},
		{3e38, ir.BF16, ""},
		{463, ir.F8E4M3, ""},
		{-464, ir.F8E4M3, ""}, // a tie, to even: -448
		{-464.0001, ir.F8E4M3, "is -464.0001, beyond the range"},
		{61439, ir.F8E5M2, ""},
		{61440, ir.F8E5M2, "beyond the range of the kernel's f8e5m2"},
	} {
		x := runtime.FromFloat64(ir.F64, []int{2}, []float64{0, c.v})
		out, err := Convert(x, c.to, "A")
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%g -> %s: %v", c.v, c.to, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%g -> %s: got %v (out %v), want an error containing %q", c.v, c.to, err, out, c.want)
		}
	}
	// Infinities and NaNs of the file stay what they are.
	x := runtime.FromFloat64(ir.F64, []int{2}, []float64{math.Inf(1), math.NaN()})
	if _, err := Convert(x, ir.F16, "A"); err != nil {
		t.Errorf("inf and nan to f16: %v", err)
	}
}
