package interp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/runtime"
	"github.com/tilec/tilec/runtime/compile"
)

// Tile ops whose work grows faster than their tiles (an mma is M*K*N
// multiply-adds; reduce_fn and scan_fn run a region per element) read the
// launch's stop flag while they work, not only between blocks and loop
// iterations: a block whose flag is already set stops inside the op,
// before its first result, for every mma dtype path.
func TestLongTileOpsReadStop(t *testing.T) {
	mma := func(ab, acc string) string {
		return fmt.Sprintf(`
@ct.kernel
def k(A: ct.Array[ct.%[1]s, (32, 16)], B: ct.Array[ct.%[1]s, (16, 8)], C: ct.Array[ct.%[2]s, (32, 8)]):
    a = ct.load(A, index=(0, 0), shape=(32, 16))
    b = ct.load(B, index=(0, 0), shape=(16, 8))
    ct.store(C, index=(0, 0), tile=ct.mma(a, b, ct.full((32, 8), 0, dtype=ct.%[2]s)))
`, ab, acc)
	}
	cases := []struct {
		name, src string
		dts       [3]ir.DType
	}{
		{"mma f16->f32", mma("float16", "float32"), [3]ir.DType{ir.F16, ir.F16, ir.F32}},
		{"mma f32->f32", mma("float32", "float32"), [3]ir.DType{ir.F32, ir.F32, ir.F32}},
		{"mma f64->f64", mma("float64", "float64"), [3]ir.DType{ir.F64, ir.F64, ir.F64}},
		{"mma f16->f16", mma("float16", "float16"), [3]ir.DType{ir.F16, ir.F16, ir.F16}},
		{"mma i8->i32", mma("int8", "int32"), [3]ir.DType{ir.I8, ir.I8, ir.I32}},
		{"reduce_fn", `
def add(a, b):
    return a + b

@ct.kernel
def k(A: ct.Array[ct.int32, (32, 16)], B: ct.Array[ct.int32, (16, 8)], C: ct.Array[ct.int32, (32, 8)]):
    ct.store(C, index=(0, 0), tile=ct.reshape(ct.reduce(ct.load(A, index=(0, 0), shape=(32, 16)), 1, add, 0), (32, 1)) + ct.full((32, 8), 0, dtype=ct.int32))
`, [3]ir.DType{ir.I32, ir.I32, ir.I32}},
		{"scan_fn", `
def add(a, b):
    return a + b

@ct.kernel
def k(A: ct.Array[ct.int32, (32, 16)], B: ct.Array[ct.int32, (16, 8)], C: ct.Array[ct.int32, (32, 16)]):
    ct.store(C, index=(0, 0), tile=ct.scan(ct.load(A, index=(0, 0), shape=(32, 16)), 1, add, 0))
`, [3]ir.DType{ir.I32, ir.I32, ir.I32}},
	}
	for _, tc := range cases {
		k, err := compile.Source("k.py", []byte("import cuda.tile as ct\n"+strings.TrimLeft(tc.src, "\n")), compile.Options{})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		cshape := []int{32, 8}
		if tc.name == "scan_fn" {
			cshape = []int{32, 16}
		}
		args := []runtime.Arg{runtime.NewTensor(tc.dts[0], 32, 16), runtime.NewTensor(tc.dts[1], 16, 8), runtime.NewTensor(tc.dts[2], cshape...)}
		b, err := k.Bind(args, [3]int{1, 1, 1})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		prog, err := programOf(b.Kernel)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		fr := newFrame(prog, b)
		fr.out = &printer{w: &strings.Builder{}}
		// The block runs to its end when nothing stops it.
		if err := fr.runBlock([3]int{}); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var stop atomic.Bool
		stop.Store(true)
		fr.stop = &stop
		err = fr.runBlock([3]int{})
		var ee *ExecError
		if !errors.As(err, &ee) || ee.Msg != errStopped.Error() {
			t.Errorf("%s with the stop flag set: %v, want the op to stop", tc.name, err)
			continue
		}
		if want := ir.OpMMA; strings.HasPrefix(tc.name, "mma") && ee.Op != want {
			t.Errorf("%s stopped in %s, want %s", tc.name, ee.Op, want)
		}
	}
}

// --timeout ends one 1024x1024x1024 float32 mma (2^30 scalar fmas, seconds
// on the interpreter) soon after the deadline, with a *StoppedError.
func TestTimeoutInsideOneMMA(t *testing.T) {
	const src = `
@ct.kernel
def k(A: ct.Array[ct.float32, (1024, 1024)], B: ct.Array[ct.float32, (1024, 1024)], C: ct.Array[ct.float32, (1024, 1024)]):
    a = ct.load(A, index=(0, 0), shape=(1024, 1024))
    b = ct.load(B, index=(0, 0), shape=(1024, 1024))
    ct.store(C, index=(0, 0), tile=ct.mma(a, b, ct.full((1024, 1024), 0, dtype=ct.float32)))
`
	k, err := compile.Source("k.py", []byte("import cuda.tile as ct\n"+strings.TrimLeft(src, "\n")), compile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	args := []runtime.Arg{runtime.NewTensor(ir.F32, 1024, 1024), runtime.NewTensor(ir.F32, 1024, 1024), runtime.NewTensor(ir.F32, 1024, 1024)}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = CPU{}.Launch(k, args, runtime.LaunchOptions{Grid: [3]int{1, 1, 1}, Context: ctx})
	var se *StoppedError
	if !errors.As(err, &se) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want a *StoppedError wrapping the deadline", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("the mma stopped %s after its 50ms deadline", d)
	}
}
