package bench

import (
	"fmt"
	goruntime "runtime"
	"strings"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/runtime/compile"
	"github.com/tilec/tilec/runtime/internal/irtest"
)

func sweepString(s *Sweep) string {
	var pts []string
	for _, p := range s.Points {
		pts = append(pts, DimsString(p))
	}
	return fmt.Sprintf("swept %v: %s", s.Swept, strings.Join(pts, " | "))
}

func TestParseSweep(t *testing.T) {
	for _, c := range []struct {
		specs   []string
		sizes   string
		dims    []string
		product bool
		want    string
	}{
		{[]string{"M=1024:8192:x2,N=4096"}, "", nil, false,
			"swept [M]: M=1024 N=4096 | M=2048 N=4096 | M=4096 N=4096 | M=8192 N=4096"},
		{[]string{"M=1000,3000,5000"}, "", nil, false, "swept [M]: M=1000 | M=3000 | M=5000"},
		{[]string{"M=1024:4096,N=M,K=M"}, "", nil, false,
			"swept [M N K]: K=1024 M=1024 N=1024 | K=2048 M=2048 N=2048 | K=4096 M=4096 N=4096"},
		{[]string{"M=0:200:+100"}, "", nil, false, "swept [M]: M=0 | M=100 | M=200"},
		// Two swept dims go together...
		{[]string{"M=1,2", "N=3,4"}, "", nil, false, "swept [M N]: M=1 N=3 | M=2 N=4"},
		// ... or as a product, the first varying slowest.
		{[]string{"M=1,2,N=3,4,5"}, "", nil, true,
			"swept [M N]: M=1 N=3 | M=1 N=4 | M=1 N=5 | M=2 N=3 | M=2 N=4 | M=2 N=5"},
		// --sizes: every dim the specs leave out.
		{[]string{"Bt=16"}, "1024,2048", []string{"Bt", "M", "N", "K"}, false,
			"swept [M N K]: Bt=16 K=1024 M=1024 N=1024 | Bt=16 K=2048 M=2048 N=2048"},
		{nil, "", []string{"M"}, false, "swept []: "},
	} {
		s, err := ParseSweep(c.specs, c.sizes, c.dims, c.product)
		if err != nil {
			t.Errorf("%v %q: %v", c.specs, c.sizes, err)
			continue
		}
		if got := sweepString(s); got != c.want {
			t.Errorf("%v %q:\n got %s\nwant %s", c.specs, c.sizes, got, c.want)
		}
	}
}

func TestParseSweepErrors(t *testing.T) {
	for _, c := range []struct {
		spec, want string
	}{
		{"M=1,2,N=1,2,3", "need as many values"},
		{"M=8:4", "ends below"},
		{"M=1:8:x1", "factor"},
		{"M=1:8:-1", "step is"},
		{"N=M", "no dim M"},
		{"M=1,M=2", "given twice"},
		{"M=-1", "not a size"},
		{"M=4294967296", "not a size"},
		{"1024", "not NAME=VALUES"},
		{"M=N,K=M,N=4", "follows"},
	} {
		_, err := ParseSweep([]string{c.spec}, "", nil, false)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want an error containing %q", c.spec, err, c.want)
		}
	}
}

func TestPointLabel(t *testing.T) {
	pt := map[string]int64{"M": 4096, "N": 4096, "K": 1024}
	for _, c := range []struct {
		names []string
		want  string
	}{
		{[]string{"M"}, "M=4096"},
		{[]string{"M", "N"}, "M=N=4096"},
		{[]string{"M", "N", "K"}, "4096x4096x1024"},
	} {
		if got := PointLabel(c.names, pt); got != c.want {
			t.Errorf("%v: %q, want %q", c.names, got, c.want)
		}
	}
}

// TestParseSweepBoundsBeforeBuilding: a sweep's values are counted before
// they are built, per range and per dim over all its items, so that
// N=0:2147483647:+1 is the error at once, not 2^31 values in memory
// (Go's fatal out-of-memory) before the count is checked.
func TestParseSweepBoundsBeforeBuilding(t *testing.T) {
	for _, c := range []struct {
		spec, want string
	}{
		{"N=1:20000000:+1", `--shape N=1:20000000:+1: "1:20000000:+1": 20000000 values, more than the 10000 a sweep may have`},
		{"N=0:9999:+1,10000:19999:+1", "--shape N: 20000 values, more than the 10000 a sweep may have"},
		{"N=0:2147483647:+1", "2147483648 values, more than the 10000"},
	} {
		var before, after goruntime.MemStats
		goruntime.ReadMemStats(&before)
		_, err := ParseSweep([]string{c.spec}, "", nil, false)
		goruntime.ReadMemStats(&after)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want an error containing %q", c.spec, err, c.want)
		}
		if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20 {
			t.Errorf("%q: allocated %d bytes before the error", c.spec, got)
		}
	}
	// The bound itself is a sweep.
	s, err := ParseSweep([]string{"N=1:10000:+1"}, "", nil, false)
	if err != nil || len(s.Points) != 10000 {
		t.Errorf("10000 values: %v", err)
	}
}

// TestMakeArgsRefusesFixedDimsPastI32: a fixed dim past i32 is refused
// before the array is allocated and filled: in source, by the compiler at
// the annotation; in IR built otherwise, by MakeArgs as a swept dim is.
func TestMakeArgsRefusesFixedDimsPastI32(t *testing.T) {
	src := `
import cuda.tile as ct

@ct.kernel(grid=(1,))
def big(X: ct.Array[ct.int8, (3000000000,)], Y: ct.Array[ct.float32, (4,)]):
    ct.store(Y, index=(0,), tile=ct.load(X, index=(0,), shape=(4,)).astype(Y.dtype))
`
	_, err := compile.Source("big.py", []byte(src), compile.Options{})
	if err == nil || !strings.HasPrefix(err.Error(), "big.py:5:31: array dimension 3000000000 is more than 2147483647") {
		t.Errorf("compile = %v, want the annotation's positioned error", err)
	}
	k := irtest.NewBuilder("big")
	k.Array("X", ir.I8, 3000000000)
	k.Array("Y", ir.F32, 4)
	k.F.Grid[0] = irtest.HConst(1)
	_, err = MakeArgs(k.Ret(), map[string]int64{}, nil, 1, 1)
	want := "X: axis 0 of its signature is 3000000000, more than 2147483647: array dims are i32 in kernels"
	if err == nil || err.Error() != want {
		t.Errorf("MakeArgs = %v, want %q", err, want)
	}
}
