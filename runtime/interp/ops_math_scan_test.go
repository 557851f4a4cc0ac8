package interp

import (
	"math"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/runtime"
)

func ints(d ir.DType, xs ...int64) *runtime.Tensor {
	t := runtime.NewTensor(d, len(xs))
	for i, x := range xs {
		t.SetInt(x, i)
	}
	return t
}

func TestBitwiseAndShifts(t *testing.T) {
	const src = `
@ct.kernel
def k(X: ct.Array[ct.int32, (8,)], N: ct.Array[ct.int32, (8,)], U: ct.Array[ct.uint32, (8,)],
      And: ct.Array[ct.int32, (8,)], Or: ct.Array[ct.int32, (8,)], Xor: ct.Array[ct.int32, (8,)], Not: ct.Array[ct.int32, (8,)],
      Shl: ct.Array[ct.int32, (8,)], Shr: ct.Array[ct.int32, (8,)], UShr: ct.Array[ct.uint32, (8,)], Op: ct.Array[ct.int32, (8,)]):
    x = ct.load(X, index=(0,), shape=(8,))
    n = ct.load(N, index=(0,), shape=(8,))
    u = ct.load(U, index=(0,), shape=(8,))
    ct.store(And, index=(0,), tile=ct.bitwise_and(x, 0x0ff0))
    ct.store(Or, index=(0,), tile=ct.bitwise_or(x, n))
    ct.store(Xor, index=(0,), tile=ct.bitwise_xor(x, n))
    ct.store(Not, index=(0,), tile=ct.bitwise_not(x))
    ct.store(Shl, index=(0,), tile=ct.bitwise_lshift(x, n))
    ct.store(Shr, index=(0,), tile=ct.bitwise_rshift(x, n))
    ct.store(UShr, index=(0,), tile=ct.bitwise_rshift(u, ct.astype(n, ct.uint32)))
    ct.store(Op, index=(0,), tile=(x << 3) ^ (x >> 1))
`
	xs := []int64{1, -1, 0x12345678, -0x7ffffff0, 5, -5, 0x40000000, 77}
	ns := []int64{0, 1, 4, 31, 32, 40, -1, 2}
	us := []int64{0xffffffff, 0x80000000, 0x12345678, 0xf0000000, 0xffffffff, 1, 0x80000000, 9}
	X, N, U := ints(ir.I32, xs...), ints(ir.I32, ns...), ints(ir.U32, us...)
	outs := make([]*runtime.Tensor, 8)
	args := []runtime.Arg{X, N, U}
	for i := range outs {
		d := ir.I32
		if i == 6 {
			d = ir.U32
		}
		outs[i] = runtime.NewTensor(d, 8)
		args = append(args, outs[i])
	}
	runSrc(t, src, args...)
	// Reference: exact 32-bit arithmetic with PTX's shift-count clamping
	// (counts are unsigned; at least 32 shifts everything out).
	w := make([][]int64, 8)
	for i := range xs {
		x, n := int32(xs[i]), uint32(ns[i])
		u := uint32(us[i])
		shl, shr, ushr := int32(0), x>>31, uint32(0)
		if n < 32 {
			shl, shr, ushr = x<<n, x>>n, u>>n
		}
		w[0] = append(w[0], int64(x&0x0ff0))
		w[1] = append(w[1], int64(x|int32(ns[i])))
		w[2] = append(w[2], int64(x^int32(ns[i])))
		w[3] = append(w[3], int64(^x))
		w[4] = append(w[4], int64(shl))
		w[5] = append(w[5], int64(shr))
		w[6] = append(w[6], int64(ushr))
		w[7] = append(w[7], int64((x<<3)^(x>>1)))
	}
	for i, name := range []string{"and", "or", "xor", "not", "shl", "shr", "u32 shr", "operators"} {
		wantInts(t, name, outs[i], w[i]...)
	}
}

func TestFunctionForms(t *testing.T) {
	const src = `
@ct.kernel
def k(X: ct.Array[ct.float32, (8,)], Y: ct.Array[ct.float32, (8,)], O: ct.Array[ct.float32, (8, 8)], C: ct.Array[ct.bool_, (6, 8)]):
    x = ct.load(X, index=(0,), shape=(8,))
    y = ct.load(Y, index=(0,), shape=(8,))
    q, r = ct.divmod(x, y)
    o = ct.cat((ct.cat((ct.cat((ct.reshape(ct.add(x, y), (1, 8)), ct.reshape(ct.sub(x, y), (1, 8))), 0),
                        ct.cat((ct.reshape(ct.mul(x, y), (1, 8)), ct.reshape(ct.truediv(x, y), (1, 8))), 0)), 0),
                ct.cat((ct.cat((ct.reshape(q, (1, 8)), ct.reshape(r, (1, 8))), 0),
                        ct.cat((ct.reshape(ct.pow(ct.abs(x), y), (1, 8)), ct.reshape(ct.negative(x), (1, 8))), 0)), 0)), 0)
    ct.store(O, index=(0, 0), tile=o)
    c = ct.cat((ct.cat((ct.reshape(ct.greater(x, y), (1, 8)), ct.reshape(ct.greater_equal(x, y), (1, 8))), 0),
                ct.cat((ct.reshape(ct.less(x, y), (1, 8)), ct.reshape(ct.less_equal(x, y), (1, 8))), 0)), 0)
    ct.store(C, index=(0, 0), tile=c)
    ct.store(C, index=(2, 0), tile=ct.cat((ct.reshape(ct.equal(x, y), (1, 8)), ct.reshape(ct.not_equal(x, y), (1, 8))), 0))
`
	xs := []float64{1.5, -2.25, 7, 0, 3, -3, 1e-3, 2}
	ys := []float64{0.5, 4, 7, -1.5, -2, 2, 3, 2}
	X, Y := runtime.FromFloat64(ir.F32, []int{8}, xs), runtime.FromFloat64(ir.F32, []int{8}, ys)
	O, C := runtime.NewTensor(ir.F32, 8, 8), runtime.NewTensor(ir.Bool, 6, 8)
	runSrc(t, src, X, Y, O, C)
	f32 := func(v float64) float64 { return float64(float32(v)) }
	var want []float64
	var wantC [6][]float64
	b := func(c bool) float64 {
		if c {
			return 1
		}
		return 0
	}
	rows := make([][]float64, 8)
	for i := range xs {
		x, y := f32(xs[i]), f32(ys[i])
		q := math.Floor(x / y)
		r := x - q*y // Python's remainder, exact for these operands
		for j, v := range []float64{x + y, x - y, x * y, x / y, q, r, math.Pow(math.Abs(x), y), -x} {
			rows[j] = append(rows[j], f32(v))
		}
		for j, c := range []bool{x > y, x >= y, x < y, x <= y, x == y, x != y} {
			wantC[j] = append(wantC[j], b(c))
		}
	}
	for _, r := range rows {
		want = append(want, r...)
	}
	expect(t, "function forms", O, want...)
	var wc []float64
	for _, r := range wantC {
		wc = append(wc, r...)
	}
	expect(t, "comparisons", C, wc...)
}

func TestMathSet(t *testing.T) {
	const src = `
@ct.kernel
def k(X: ct.Array[ct.float32, (16,)], Y: ct.Array[ct.float64, (16,)], O: ct.Array[ct.float32, (9, 16)], D: ct.Array[ct.float64, (2, 16)], N: ct.Array[ct.bool_, (16,)]):
    x = ct.load(X, index=(0,), shape=(16,))
    y = ct.load(Y, index=(0,), shape=(16,))
    ct.store(O, index=(0, 0), tile=ct.reshape(ct.sin(x), (1, 16)))
    ct.store(O, index=(1, 0), tile=ct.reshape(ct.cos(x), (1, 16)))
    ct.store(O, index=(2, 0), tile=ct.reshape(ct.tan(x), (1, 16)))
    ct.store(O, index=(3, 0), tile=ct.reshape(ct.sinh(x), (1, 16)))
    ct.store(O, index=(4, 0), tile=ct.reshape(ct.cosh(x), (1, 16)))
    ct.store(O, index=(5, 0), tile=ct.reshape(ct.floor(x), (1, 16)))
    ct.store(O, index=(6, 0), tile=ct.reshape(ct.ceil(x), (1, 16)))
    ct.store(O, index=(7, 0), tile=ct.reshape(ct.log2(ct.abs(x)), (1, 16)))
    ct.store(O, index=(8, 0), tile=ct.reshape(ct.atan2(x, 2.0), (1, 16)))
    ct.store(D, index=(0, 0), tile=ct.reshape(ct.atan2(y, -y - 1), (1, 16)))
    ct.store(D, index=(1, 0), tile=ct.reshape(ct.log2(ct.abs(y)) + ct.floor(y), (1, 16)))
    ct.store(N, index=(0,), tile=ct.isnan(x))
`
	xs := []float64{0, 0.5, -0.5, 1, -1, 2.5, -2.5, 3, 10, -10, 0.1, 1e-3, math.NaN(), math.Inf(1), 7.75, -0}
	X := runtime.FromFloat64(ir.F32, []int{16}, xs)
	Y := runtime.FromFloat64(ir.F64, []int{16}, xs)
	O, D, N := runtime.NewTensor(ir.F32, 9, 16), runtime.NewTensor(ir.F64, 2, 16), runtime.NewTensor(ir.Bool, 16)
	runSrc(t, src, X, Y, O, D, N)
	var want, wantD0, wantD1, wantN []float64
	for _, fn := range []func(float64) float64{math.Sin, math.Cos, math.Tan, math.Sinh, math.Cosh, math.Floor, math.Ceil,
		func(x float64) float64 { return math.Log2(math.Abs(x)) }, func(x float64) float64 { return math.Atan2(x, 2) }} {
		for _, x := range xs {
			want = append(want, float64(float32(fn(float64(float32(x))))))
		}
	}
	for _, x := range xs {
		wantD0 = append(wantD0, math.Atan2(x, -x-1))
		wantD1 = append(wantD1, math.Log2(math.Abs(x))+math.Floor(x))
		n := 0.0
		if math.IsNaN(x) {
			n = 1
		}
		wantN = append(wantN, n)
	}
	expect(t, "f32 math", O, want...)
	expect(t, "f64 math", D, append(wantD0, wantD1...)...)
	expect(t, "isnan", N, wantN...)
}

func TestProdAndScans(t *testing.T) {
	const src = `
@ct.kernel
def k(X: ct.Array[ct.float32, (4, 8)], I: ct.Array[ct.int32, (8,)], P: ct.Array[ct.float32, (4,)], PI: ct.Array[ct.int32, (1,)],
      CS: ct.Array[ct.float32, (4, 8)], CP: ct.Array[ct.int32, (8,)], RS: ct.Array[ct.float32, (4, 8)], H: ct.Array[ct.float16, (8,)]):
    x = ct.load(X, index=(0, 0), shape=(4, 8))
    i = ct.load(I, index=(0,), shape=(8,))
    ct.store(P, index=(0,), tile=ct.prod(x, axis=1))
    ct.store(PI, index=(0,), tile=ct.prod(i, axis=0, keepdims=True))
    ct.store(CS, index=(0, 0), tile=ct.cumsum(x, axis=1))
    ct.store(CP, index=(0,), tile=ct.cumprod(i))
    ct.store(RS, index=(0, 0), tile=ct.cumsum(x, axis=0, reverse=True))
    ct.store(H, index=(0,), tile=ct.cumsum(ct.full((8,), 1024, dtype=ct.float16)))
`
	xs := make([]float64, 32)
	for i := range xs {
		xs[i] = float64(i%7) - 2.5
	}
	X := runtime.FromFloat64(ir.F32, []int{4, 8}, xs)
	is := []int64{3, -2, 5, 7, 100, -1, 1000, 9}
	I := ints(ir.I32, is...)
	P, PI, CS, CP, RS, H := runtime.NewTensor(ir.F32, 4), runtime.NewTensor(ir.I32, 1), runtime.NewTensor(ir.F32, 4, 8), runtime.NewTensor(ir.I32, 8), runtime.NewTensor(ir.F32, 4, 8), runtime.NewTensor(ir.F16, 8)
	runSrc(t, src, X, I, P, PI, CS, CP, RS, H)
	var wp, wcs, wrs []float64
	for r := 0; r < 4; r++ {
		p, s := float32(1), float32(0)
		for c := 0; c < 8; c++ {
			p *= float32(xs[r*8+c])
			s += float32(xs[r*8+c])
			wcs = append(wcs, float64(s))
		}
		wp = append(wp, float64(p))
	}
	wrs = make([]float64, 32)
	for c := 0; c < 8; c++ {
		s := float32(0)
		for r := 3; r >= 0; r-- {
			s += float32(xs[r*8+c])
			wrs[r*8+c] = float64(s)
		}
	}
	expect(t, "prod", P, wp...)
	expect(t, "cumsum", CS, wcs...)
	expect(t, "cumsum reverse", RS, wrs...)
	var pi int32 = 1
	var wcp []int64
	for _, v := range is {
		pi *= int32(v) // wraps at 32 bits
		wcp = append(wcp, int64(pi))
	}
	wantInts(t, "prod i32", PI, int64(pi))
	wantInts(t, "cumprod i32", CP, wcp...)
	// f16 prefix sums accumulate in f32 and round each output: 1024*k is
	// exact in f16 up to 8192.
	expect(t, "f16 cumsum", H, 1024, 2048, 3072, 4096, 5120, 6144, 7168, 8192)
}

func TestCatExtractInsertBitcast(t *testing.T) {
	const src = `
@ct.kernel
def k(A: ct.Array[ct.int32, (4, 4)], E: ct.Array[ct.int32, (2, 2)], S: ct.Array[ct.int32, (4, 4)], C: ct.Array[ct.int32, (4, 8)],
      F: ct.Array[ct.float32, (4,)], B: ct.Array[ct.int32, (4,)], BU: ct.Array[ct.uint32, (4,)], R: ct.Array[ct.int32, (8,)], j: int):
    a = ct.load(A, index=(0, 0), shape=(4, 4))
    ct.store(E, index=(0, 0), tile=ct.extract(a, (1, j), shape=(2, 2)))
    ct.store(S, index=(0, 0), tile=ct.insert(a, (j, 0), ct.full((2, 2), 99, dtype=ct.int32)))
    ct.store(C, index=(0, 0), tile=ct.cat((a, a * 10), axis=1))
    f = ct.load(F, index=(0,), shape=(4,))
    ct.store(B, index=(0,), tile=ct.bitcast(f, ct.int32))
    ct.store(BU, index=(0,), tile=ct.bitcast(ct.bitcast(f, ct.int32), ct.uint32))
    ct.store(R, index=(0,), tile=ct.arange(8, start=7, step=-2, dtype=ct.int32))
`
	A := runtime.NewTensor(ir.I32, 4, 4)
	for i := 0; i < 16; i++ {
		A.SetInt(int64(i), i/4, i%4)
	}
	E, S, C := runtime.NewTensor(ir.I32, 2, 2), runtime.NewTensor(ir.I32, 4, 4), runtime.NewTensor(ir.I32, 4, 8)
	fs := []float64{1, -2, 0.1, math.Inf(1)}
	F := runtime.FromFloat64(ir.F32, []int{4}, fs)
	B, BU, R := runtime.NewTensor(ir.I32, 4), runtime.NewTensor(ir.U32, 4), runtime.NewTensor(ir.I32, 8)
	runSrc(t, src, A, E, S, C, F, B, BU, R, int64(1))
	wantInts(t, "extract (1, 1)", E, 10, 11, 14, 15)
	wantInts(t, "insert (1, 0)", S, 0, 1, 2, 3, 4, 5, 6, 7, 99, 99, 10, 11, 99, 99, 14, 15)
	var wc []int64
	for r := 0; r < 4; r++ {
		for c := 0; c < 8; c++ {
			v := int64(r*4 + c%4)
			if c >= 4 {
				v *= 10
			}
			wc = append(wc, v)
		}
	}
	wantInts(t, "cat", C, wc...)
	var wb, wbu []int64
	for _, f := range fs {
		bits := math.Float32bits(float32(f))
		wb = append(wb, int64(int32(bits)))
		wbu = append(wbu, int64(bits))
	}
	wantInts(t, "bitcast f32->i32", B, wb...)
	wantInts(t, "bitcast i32->u32", BU, wbu...)
	wantInts(t, "arange start step", R, 7, 5, 3, 1, -1, -3, -5, -7)
}
