package interp

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/runtime"
	"github.com/tilec/tilec/runtime/compile"
)

// runSrc compiles the kernel source (with `import cuda.tile as ct` added)
// and launches it on args with grid (1, 1, 1) unless the kernel says
// otherwise.
func runSrc(t *testing.T, src string, args ...runtime.Arg) {
	t.Helper()
	k, err := compile.Source("k.py", []byte("import cuda.tile as ct\n"+strings.TrimLeft(src, "\n")), compile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Launch(k, args, runtime.LaunchOptions{Grid: [3]int{1, 1, 1}}); err != nil {
		t.Fatal(err)
	}
}

// compileErr compiles the source and returns its error text ("" if none).
func compileErr(src string) string {
	_, err := compile.Source("k.py", []byte("import cuda.tile as ct\n"+strings.TrimLeft(src, "\n")), compile.Options{})
	if err == nil {
		return ""
	}
	return err.Error()
}

func wantInts(t *testing.T, what string, got *runtime.Tensor, want ...int64) {
	t.Helper()
	g := got.Int64s()
	if len(g) != len(want) {
		t.Fatalf("%s: %d elements, want %d", what, len(g), len(want))
	}
	for i := range g {
		if g[i] != want[i] {
			t.Fatalf("%s = %v, want %v", what, g, want)
		}
	}
}

func TestIntPadding(t *testing.T) {
	const src = `
@ct.kernel
def k(A: ct.Array[ct.int32, (N,)], Lo: ct.Array[ct.int32, (4,)], Hi: ct.Array[ct.int32, (4,)], Z: ct.Array[ct.int32, (4,)]):
    ct.store(Lo, index=(0,), tile=ct.load(A, index=(0,), shape=(4,), padding_mode=ct.PaddingMode.NEG_INF))
    ct.store(Hi, index=(0,), tile=ct.load(A, index=(0,), shape=(4,), padding_mode=ct.PaddingMode.POS_INF))
    ct.store(Z, index=(0,), tile=ct.load(A, index=(0,), shape=(4,), padding_mode=ct.PaddingMode.NEG_ZERO))
`
	A := runtime.FromFloat64(ir.I32, []int{3}, []float64{5, -6, 7})
	lo, hi, z := runtime.NewTensor(ir.I32, 4), runtime.NewTensor(ir.I32, 4), runtime.NewTensor(ir.I32, 4)
	runSrc(t, src, A, lo, hi, z)
	wantInts(t, "NEG_INF", lo, 5, -6, 7, math.MinInt32)
	wantInts(t, "POS_INF", hi, 5, -6, 7, math.MaxInt32)
	wantInts(t, "NEG_ZERO", z, 5, -6, 7, 0)
	// A max over a NEG_INF-padded partial tile is the max of the elements.
	const maxSrc = `
@ct.kernel
def k(A: ct.Array[ct.int64, (N,)], M: ct.Array[ct.int64, (1,)]):
    x = ct.load(A, index=(0,), shape=(8,), padding_mode=ct.PaddingMode.NEG_INF)
    ct.store(M, index=(0,), tile=ct.reshape(ct.max(x), (1,)))
`
	A64 := runtime.FromFloat64(ir.I64, []int{5}, []float64{-9, -3, -8, -4, -5})
	m := runtime.NewTensor(ir.I64, 1)
	runSrc(t, maxSrc, A64, m)
	wantInts(t, "max", m, -3)
	if msg := compileErr(`
@ct.kernel
def k(A: ct.Array[ct.int32, (N,)]):
    x = ct.load(A, index=(0,), shape=(4,), padding_mode=ct.PaddingMode.NAN)
`); !strings.Contains(msg, "k.py:4:57: load: padding_mode NAN has no value in i32") {
		t.Errorf("NAN on int32: %q", msg)
	}
}

// ct.cdiv of run-time i32 values does not overflow near 2**31 (cuTile
// gives cdiv(2**31 - 1, 2) = 2**30; x + y - 1 wrapped to -2**30), and
// keeps the ceiling of negative quotients.
func TestCdivNoOverflow(t *testing.T) {
	src := `
@ct.kernel(grid=(1,))
def cd(X: ct.Array[ct.int32, (4,)], n: ct.int32):
    ct.store(X, index=(0,), tile=ct.full((4,), ct.cdiv(n, 2), dtype=ct.int32))
`
	for n, want := range map[int64]int64{2147483647: 1073741824, 2147483646: 1073741823, -7: -3, 7: 4, 0: 0} {
		X := runtime.NewTensor(ir.I32, 4)
		runSrc(t, src, X, n)
		wantInts(t, fmt.Sprintf("cdiv(%d, 2)", n), X, want, want, want, want)
	}
	// Divisors above 2**30: x % y + y - 1 would overflow too.
	big := `
@ct.kernel(grid=(1,))
def cd(X: ct.Array[ct.int32, (3,)], n: ct.int32):
    ct.store(X, index=(0,), tile=ct.full((1,), ct.cdiv(n, 2**30 + 1), dtype=ct.int32))
    ct.store(X, index=(1,), tile=ct.full((1,), ct.cdiv(n, 2147483647), dtype=ct.int32))
    ct.store(X, index=(2,), tile=ct.full((1,), ct.cdiv(n, 3), dtype=ct.int32))
`
	X := runtime.NewTensor(ir.I32, 3)
	runSrc(t, big, X, int64(1<<30))
	wantInts(t, "cdiv(2**30, 2**30 + 1), cdiv(2**30, 2**31 - 1), cdiv(2**30, 3)", X, 1, 1, 357913942)
}

// A for loop with a break runs over range(lo, hi, step) as Python does
// near 2**31: the induction variable is carried in i64, so iv + step does
// not wrap (it did in i32, and range(2**30, 2**31 - 1, 2**30) ran 101
// times instead of once); the body still sees an i32.
func TestRangeWithBreakNearI32Max(t *testing.T) {
	src := `
@ct.kernel(grid=(1,))
def wrap(X: ct.Array[ct.int32, (2,)], n: ct.int32):
    count = 0
    last = 0
    for i in range(2**30, n, 2**30):
        count += 1
        last = i
        if i < 0:
            break
    ct.store(X, index=(0,), tile=ct.full((1,), count, dtype=ct.int32))
    ct.store(X, index=(1,), tile=ct.full((1,), last, dtype=ct.int32))
`
	X := runtime.NewTensor(ir.I32, 2)
	runSrc(t, src, X, int64(2147483647))
	wantInts(t, "count, last", X, 1, 1<<30)
}

// The same with a rank-0 tile as the start and as the step (the loop then
// carries a rank-0 tile, widened to i64 as a scalar is).
func TestRangeWithTileBoundsNearI32Max(t *testing.T) {
	for _, header := range []string{
		"for i in range(ct.full((), 2**30, dtype=ct.int32), n, 2**30):",
		"for i in range(2**30, n, ct.full((), 2**30, dtype=ct.int32)):",
	} {
		src := `
@ct.kernel(grid=(1,))
def wrap(X: ct.Array[ct.int32, (1,)], n: ct.int32):
    count = 0
    ` + header + `
        count += 1
        if count > 100:
            break
    ct.store(X, index=(0,), tile=ct.full((1,), count, dtype=ct.int32))
`
		X := runtime.NewTensor(ir.I32, 1)
		runSrc(t, src, X, int64(2147483647))
		wantInts(t, header, X, 1)
	}
}
