package interp

import (
	"math"
	"strings"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/runtime"
	"github.com/tilec/tilec/runtime/compile"
)

// launchSrc compiles src (after `import cuda.tile as ct`) and launches it
// on the interpreter with opts.
func launchSrc(t *testing.T, src string, opts runtime.LaunchOptions, args ...runtime.Arg) error {
	t.Helper()
	k, err := compile.Source("k.py", []byte("import cuda.tile as ct\n"+strings.TrimLeft(src, "\n")), compile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if opts.Grid == [3]int{} {
		opts.Grid = [3]int{1, 1, 1}
	}
	_, err = Launch(k, args, opts)
	return err
}

func wantFloats(t *testing.T, what string, got *runtime.Tensor, want []float64) {
	t.Helper()
	g := got.Float64s()
	if len(g) != len(want) {
		t.Fatalf("%s: %d elements, want %d", what, len(g), len(want))
	}
	for i := range g {
		if g[i] != want[i] && !(math.IsNaN(g[i]) && math.IsNaN(want[i])) {
			t.Fatalf("%s = %v, want %v (first difference at %d)", what, g, want, i)
		}
	}
}

func TestGatherScatter(t *testing.T) {
	const src = `
@ct.kernel
def k(A: ct.Array[ct.float32, (5, 6)], I: ct.Array[ct.int32, (8,)], J: ct.Array[ct.int64, (4,)],
      G: ct.Array[ct.float32, (8, 4)], Gm: ct.Array[ct.float32, (8, 4)], Row: ct.Array[ct.float32, (4,)],
      S: ct.Array[ct.float32, (5, 6)], One: ct.Array[ct.float32, (1,)]):
    i = ct.load(I, index=(0,), shape=(8,))
    j = ct.load(J, index=(0,), shape=(4,))
    g = ct.gather(A, (i[:, None], j[None, :]), padding_value=-1.0)
    ct.store(G, index=(0, 0), tile=g)
    m = (i[:, None] + j[None, :]) % 2 == 0
    ct.store(Gm, index=(0, 0), tile=ct.gather(A, (i[:, None], j[None, :]), mask=m, padding_value=ct.full((4,), 7.0, dtype=ct.float32)))
    ct.store(Row, index=(0,), tile=ct.gather(A, (2, j)))
    ct.scatter(S, (i[:, None], j[None, :]), g * 2.0, mask=m)
    ct.store(One, index=(0,), tile=ct.reshape(ct.gather(A, (4, 5)), (1,)))
`
	A := runtime.NewTensor(ir.F32, 5, 6)
	for r := 0; r < 5; r++ {
		for c := 0; c < 6; c++ {
			A.Set(float64(10*r+c), r, c)
		}
	}
	is := []int64{0, 4, -1, 5, 2, 3, 1, 4}
	js := []int64{5, 0, 6, -3}
	I, J := ints(ir.I32, is...), ints(ir.I64, js...)
	G, Gm, Row, S, One := runtime.NewTensor(ir.F32, 8, 4), runtime.NewTensor(ir.F32, 8, 4), runtime.NewTensor(ir.F32, 4), runtime.NewTensor(ir.F32, 5, 6), runtime.NewTensor(ir.F32, 1)
	runSrc(t, src, A, I, J, G, Gm, Row, S, One)
	in := func(r, c int64) bool { return r >= 0 && r < 5 && c >= 0 && c < 6 }
	var g, gm []float64
	s := make([]float64, 30)
	for _, r := range is {
		for _, c := range js {
			v := -1.0
			if in(r, c) {
				v = float64(10*r + c)
			}
			g = append(g, v)
			masked := ((r+c)%2+2)%2 != 0
			switch {
			case masked || !in(r, c):
				gm = append(gm, 7)
			default:
				gm = append(gm, v)
				s[6*r+c] = 2 * v
			}
		}
	}
	wantFloats(t, "gather", G, g)
	wantFloats(t, "gather with mask", Gm, gm)
	wantFloats(t, "gather row 2", Row, []float64{25, 20, 0, 0})
	wantFloats(t, "scatter", S, s)
	wantFloats(t, "gather of scalars", One, []float64{45})
}

func TestGatherCheckBoundsFalse(t *testing.T) {
	const src = `
@ct.kernel
def k(A: ct.Array[ct.int32, (4,)], B: ct.Array[ct.int32, (4,)]):
    i = ct.arange(4, dtype=ct.int32) + 1
    ct.store(B, index=(0,), tile=ct.gather(A, i, check_bounds=False))
`
	A, B := ints(ir.I32, 1, 2, 3, 4), runtime.NewTensor(ir.I32, 4)
	err := launchSrc(t, src, runtime.LaunchOptions{}, A, B)
	if err == nil || !strings.Contains(err.Error(), "k.py:5:34: block (0,0,0): gather with check_bounds=False: index (4) is outside A's shape [4]") {
		t.Fatalf("got %v", err)
	}
}

func TestAdvancedIndexing(t *testing.T) {
	const src = `
@ct.kernel
def k(X: ct.Array[ct.int32, (8, 8)], Y: ct.Array[ct.int32, (4, 4)], Z: ct.Array[ct.int32, (6, 4)], c: int):
    rows = ct.arange(4, dtype=ct.int32) * 2 + 1
    t = ct.load_advanced_indexing(X, (rows, ct.Slice(c, 4)), padding_mode=ct.PaddingMode.NEG_INF)
    ct.store(Y, index=(0, 0), tile=t)
    ct.store_advanced_indexing(Z, (ct.arange(4, dtype=ct.int32) + 3, ct.Slice(0, 4)), ct.full((4, 4), 1, dtype=ct.int32))
`
	X := runtime.NewTensor(ir.I32, 8, 8)
	for i := 0; i < 64; i++ {
		X.SetInt(int64(i), i/8, i%8)
	}
	Y, Z := runtime.NewTensor(ir.I32, 4, 4), runtime.NewTensor(ir.I32, 6, 4)
	runSrc(t, src, X, Y, Z, int32(6))
	var wy, wz []int64
	for r := 0; r < 4; r++ {
		for c := 6; c < 10; c++ {
			v := int64(math.MinInt32)
			if c < 8 {
				v = int64(8*(2*r+1) + c)
			}
			wy = append(wy, v)
		}
	}
	for r := 0; r < 6; r++ {
		for c := 0; c < 4; c++ {
			wz = append(wz, map[bool]int64{true: 1}[r >= 3])
		}
	}
	wantInts(t, "load_advanced_indexing", Y, wy...)
	wantInts(t, "store_advanced_indexing", Z, wz...)
}

func TestGatherErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{`
@ct.kernel
def k(A: ct.Array[ct.float32, (4, 4)]):
    x = ct.gather(A, ct.arange(4, dtype=ct.int32))
`, "k.py:4:22: gather: A has rank 2, so indices must be a tuple of 2 integer tiles or scalars"},
		{`
@ct.kernel
def k(A: ct.Array[ct.float32, (4,)]):
    x = ct.gather(A, ct.arange(4, dtype=ct.float32))
`, "gather: indices must be integer tiles or scalars, got tile<4xf32>"},
		{`
@ct.kernel
def k(A: ct.Array[ct.float32, (4,)]):
    ct.scatter(A, ct.arange(4, dtype=ct.int32), ct.zeros((8,), dtype=ct.float32))
`, "k.py:4:49: scatter: value of shape 8 does not broadcast to the index shape 4"},
		{`
@ct.kernel
def k(A: ct.Array[ct.int32, (4,)]):
    ct.scatter(A, ct.arange(4, dtype=ct.int32), ct.zeros((4,), dtype=ct.float32))
`, "scatter: value is f32 but A holds i32; use ct.astype"},
		{`
@ct.kernel
def k(A: ct.Array[ct.int32, (4,)]):
    x = ct.gather(A, ct.arange(4, dtype=ct.int32), latency=11)
`, "gather: latency must be between 1 and 10, got 11"},
	} {
		if msg := compileErr(tc.src); !strings.Contains(msg, tc.want) {
			t.Errorf("got %q, want %q", msg, tc.want)
		}
	}
}
