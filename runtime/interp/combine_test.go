package interp

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/runtime"
)

func TestReduceScanWithHelper(t *testing.T) {
	const src = `
def add(a, b):
    return a + b

def maxabs(a, b):
    return ct.maximum(ct.abs(a), ct.abs(b))

def argmax2(v0, i0, v1, i1):
    take = v1 > v0
    return ct.where(take, v1, v0), ct.where(take, i1, i0)

def affine(a0, b0, a1, b1):
    return a0 * a1, b0 * a1 + b1

@ct.kernel
def k(X: ct.Array[ct.int32, (4, 8)], R: ct.Array[ct.int32, (4,)], S: ct.Array[ct.int32, (4, 8)], Rev: ct.Array[ct.int32, (4, 8)],
      F: ct.Array[ct.float32, (8,)], M: ct.Array[ct.float32, (1,)], V: ct.Array[ct.float32, (4,)], I: ct.Array[ct.int32, (4,)],
      A: ct.Array[ct.float32, (8,)], B: ct.Array[ct.float32, (8,)], K: ct.Array[ct.int32, (4, 1)]):
    x = ct.load(X, index=(0, 0), shape=(4, 8))
    ct.store(R, index=(0,), tile=ct.reduce(x, 1, add, 0))
    ct.store(K, index=(0, 0), tile=ct.reduce(x, axis=-1, func=add, identity=0, keepdims=True))
    ct.store(S, index=(0, 0), tile=ct.scan(x, 1, add, 0))
    ct.store(Rev, index=(0, 0), tile=ct.scan(x, 1, add, 0, reverse=True))
    f = ct.load(F, index=(0,), shape=(8,))
    ct.store(M, index=(0,), tile=ct.reshape(ct.reduce(f, 0, maxabs, 0.0), (1,)))
    xf = ct.astype(x, ct.float32)
    col = ct.broadcast_to(ct.arange(8, dtype=ct.int32)[None, :], (4, 8))
    v, i = ct.reduce((xf, col), 1, argmax2, (-math.inf, -1))
    ct.store(V, index=(0,), tile=v)
    ct.store(I, index=(0,), tile=i)
    a, b = ct.scan((ct.full((8,), 2.0, dtype=ct.float32), f), 0, affine, (1.0, 0.0))
    ct.store(A, index=(0,), tile=a)
    ct.store(B, index=(0,), tile=b)
`
	xs := []int64{3, -1, 4, 1, -5, 9, 2, -6, 5, 3, 5, 8, 9, -7, 9, 3, 2, 3, 8, 4, 6, 2, 6, 4, 3, 3, 8, 3, 2, 7, 9, 5}
	fs := []float64{0.5, -3.25, 2, 7.5, -8, 1, 0, -0.125}
	X := runtime.NewTensor(ir.I32, 4, 8)
	for i, v := range xs {
		X.SetInt(v, i/8, i%8)
	}
	F := runtime.FromFloat64(ir.F32, []int{8}, fs)
	R, S, Rev := runtime.NewTensor(ir.I32, 4), runtime.NewTensor(ir.I32, 4, 8), runtime.NewTensor(ir.I32, 4, 8)
	M, V, I := runtime.NewTensor(ir.F32, 1), runtime.NewTensor(ir.F32, 4), runtime.NewTensor(ir.I32, 4)
	A, B, K := runtime.NewTensor(ir.F32, 8), runtime.NewTensor(ir.F32, 8), runtime.NewTensor(ir.I32, 4, 1)
	runSrc(t, "import math\n"+src, X, R, S, Rev, F, M, V, I, A, B, K)
	var wR, wS, wRev []int64
	var wV []float64
	var wI []int64
	for r := 0; r < 4; r++ {
		row := xs[8*r : 8*r+8]
		sum, best, bi := int64(0), math.Inf(-1), int64(-1)
		for c, v := range row {
			sum += v
			wS = append(wS, sum)
			if float64(v) > best {
				best, bi = float64(v), int64(c)
			}
		}
		wR = append(wR, sum)
		wV, wI = append(wV, best), append(wI, bi)
		rev := make([]int64, 8)
		acc := int64(0)
		for c := 7; c >= 0; c-- {
			acc += row[c]
			rev[c] = acc
		}
		wRev = append(wRev, rev...)
	}
	wantInts(t, "reduce add", R, wR...)
	wantInts(t, "reduce keepdims", K, wR...)
	wantInts(t, "scan add", S, wS...)
	wantInts(t, "scan add reverse", Rev, wRev...)
	wantFloats(t, "reduce maxabs", M, []float64{8})
	wantFloats(t, "reduce argmax (tuple)", V, wV)
	wantInts(t, "reduce argmax index (tuple)", I, wI...)
	// The composition of x -> 2x + f[l], from x = 0: a = 2^(l+1), b the
	// running value; exact in f32 for these inputs.
	var wA, wB []float64
	a, b := 1.0, 0.0
	for _, f := range fs {
		a, b = a*2, b*2+f
		wA, wB = append(wA, a), append(wB, b)
	}
	wantFloats(t, "scan affine a", A, wA)
	wantFloats(t, "scan affine b", B, wB)
}

func TestReduceErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{`
def two(a, b):
    return a, b

@ct.kernel
def k(X: ct.Array[ct.int32, (8,)]):
    x = ct.reduce(ct.load(X, index=(0,), shape=(8,)), 0, two, 0)
`, "k.py:7:58: reduce: two returns 2 values, want 1"},
		{`
@ct.kernel
def k(X: ct.Array[ct.int32, (8,)]):
    x = ct.reduce(ct.load(X, index=(0,), shape=(8,)), 0, ct.add, 0)
`, "reduce: func must be a helper function (def) taking 2 rank-0 tiles, got builtin add"},
		{`
def tofloat(a, b):
    return ct.astype(a + b, ct.float32)

@ct.kernel
def k(X: ct.Array[ct.int32, (8,)]):
    x = ct.scan(ct.load(X, index=(0,), shape=(8,)), 0, tofloat, 0)
`, "scan: tofloat returns tile<f32>, want a rank-0 i32 tile (the combiner may not change the dtype)"},
	} {
		if msg := compileErr(tc.src); !strings.Contains(msg, tc.want) {
			t.Errorf("got %q, want %q", msg, tc.want)
		}
	}
}

func TestPrintAndAssert(t *testing.T) {
	const src = `
@ct.kernel
def k(X: ct.Array[ct.int32, (4,)]):
    x = ct.load(X, index=(0,), shape=(4,))
    b = ct.bid(0)
    ct.printf("value: %d of %5.2f\n", ct.full((), 42, dtype=ct.int32), ct.astype(b, ct.float32))
    ct.print("x =", x, "sum", ct.sum(x), sep=" ")
    print(ct.reshape(ct.astype(x, ct.float32), (2, 2)), end="|")
    ct.printf("%x %u %%\n", ct.full((1,), -1, dtype=ct.int32), ct.full((1,), 7, dtype=ct.uint8))
    ct.assert_(x < 10, "x must be small")
`
	X := ints(ir.I32, 1, 2, 3, 9)
	var out bytes.Buffer
	if err := launchSrc(t, src, runtime.LaunchOptions{Grid: [3]int{2, 1, 1}, Workers: 1, Stderr: &out}, X); err != nil {
		t.Fatal(err)
	}
	want := ""
	for b := 0; b < 2; b++ {
		p := "[block (" + string(rune('0'+b)) + ",0,0)] "
		want += p + "value: 42 of  " + []string{"0.00", "1.00"}[b] + "\n" +
			p + "x = [1, 2, 3, 9] sum 15\n" +
			p + "[[1.000000, 2.000000], [3.000000, 9.000000]]|[ffffffff] [7] %\n"
	}
	if out.String() != want {
		t.Errorf("output:\n%s\nwant:\n%s", out.String(), want)
	}
	X.SetInt(10, 2)
	out.Reset()
	err := launchSrc(t, src, runtime.LaunchOptions{Grid: [3]int{2, 1, 1}, Workers: 1, Stderr: &out}, X)
	if err == nil || !strings.Contains(err.Error(), "k.py:10:5: block (0,0,0): assertion failed: x must be small (element (2) of the condition is false)") {
		t.Fatalf("assert: got %v", err)
	}
	if !strings.HasSuffix(out.String(), "[block (0,0,0)] [[1.000000, 2.000000], [10.000000, 9.000000]]|[ffffffff] [7] %\n") {
		t.Errorf("output before the assertion:\n%s", out.String())
	}
	for _, tc := range []struct{ src, want string }{
		{`
@ct.kernel
def k(X: ct.Array[ct.int32, (4,)]):
    ct.printf("%d %d\n", ct.load(X, index=(0,), shape=(4,)))
`, "k.py:4:5: printf: the format has 2 conversions but 1 values are given"},
		{`
@ct.kernel
def k(X: ct.Array[ct.int32, (4,)]):
    ct.printf("%s\n", ct.load(X, index=(0,), shape=(4,)))
`, "printf: format \"%s\\n\": conversion at byte 0 is not"},
		{`
@ct.kernel
def k(X: ct.Array[ct.int32, (4,)]):
    ct.assert_(1 > 2, "never")
`, "k.py:4:5: assertion failed: never"},
	} {
		if msg := compileErr(tc.src); !strings.Contains(msg, tc.want) {
			t.Errorf("got %q, want %q", msg, tc.want)
		}
	}
}

func TestPackUnpackBytes(t *testing.T) {
	const src2 = `
@ct.kernel
def k(X: ct.Array[ct.int32, (2,)], H: ct.Array[ct.float16, (4,)], B: ct.Array[ct.uint8, (16,)], Y: ct.Array[ct.uint16, (8,)], F: ct.Array[ct.float32, (2,)]):
    x = ct.load(X, index=(0,), shape=(2,))
    h = ct.load(H, index=(0,), shape=(4,))
    b = ct.cat((ct.pack_to_bytes(x), ct.pack_to_bytes(h)), 0)
    ct.store(B, index=(0,), tile=b)
    ct.store(Y, index=(0,), tile=ct.unpack_from_bytes(b, ct.uint16))
    ct.store(F, index=(0,), tile=ct.unpack_from_bytes(ct.pack_to_bytes(x), ct.float32))
`
	X := ints(ir.I32, 0x04030201, -2)
	H := runtime.FromFloat64(ir.F16, []int{4}, []float64{1, -2, 0.5, 65504})
	B, Y, F := runtime.NewTensor(ir.U8, 16), runtime.NewTensor(ir.U16, 8), runtime.NewTensor(ir.F32, 2)
	runSrc(t, src2, X, H, B, Y, F)
	wb := []int64{1, 2, 3, 4, 0xfe, 0xff, 0xff, 0xff, 0x00, 0x3c, 0x00, 0xc0, 0x00, 0x38, 0xff, 0x7b}
	wantInts(t, "pack_to_bytes", B, wb...)
	var wy []int64
	for i := 0; i < 16; i += 2 {
		wy = append(wy, wb[i]|wb[i+1]<<8)
	}
	wantInts(t, "unpack_from_bytes u16", Y, wy...)
	wantFloats(t, "unpack_from_bytes f32", F, []float64{float64(math.Float32frombits(0x04030201)), math.NaN()})
}
