package interp

import (
	"math"
	"slices"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/runtime"
	"github.com/tilec/tilec/runtime/internal/irtest"
)

// runTiles runs a one-block kernel that loads each input whole (its shape
// rounded up to powers of two is the tile shape; the padding is zero),
// applies body, and stores the result (a scalar result as a one-element
// tile) into a new tensor, which it returns. The result tensor has the
// first input's shape when the result tile has that input's tile shape, and
// the result tile's shape otherwise.
func runTiles(t *testing.T, body func(k *irtest.Builder, in []*ir.Value) *ir.Value, inputs ...*runtime.Tensor) *runtime.Tensor {
	t.Helper()
	k := irtest.NewBuilder("op")
	var tiles []*ir.Value
	var arrays []*ir.Value
	for i, in := range inputs {
		dims := make([]any, len(in.Shape))
		for j, d := range in.Shape {
			dims[j] = d
		}
		arrays = append(arrays, k.Array(string(rune('a'+i)), in.DType, dims...))
	}
	zero := k.CInt(0)
	for i, in := range inputs {
		idx := make([]*ir.Value, len(in.Shape))
		for j := range idx {
			idx[j] = zero
		}
		tiles = append(tiles, k.Load(arrays[i], pow2Shape(in.Shape), ir.PadZero, idx...))
	}
	r := body(k, tiles)
	if s, ok := r.Type.(*ir.Scalar); ok {
		r = k.Op(ir.OpSplat, ir.TileOf(s.DType, 1), nil, r)
	}
	rt := r.Type.(*ir.Tile)
	shape := rt.Shape
	if len(inputs) > 0 && slices.Equal(shape, pow2Shape(inputs[0].Shape)) {
		shape = inputs[0].Shape
	}
	dims := make([]any, len(shape))
	idx := make([]*ir.Value, len(shape))
	for j, d := range shape {
		dims[j] = d
		idx[j] = zero
	}
	out := k.Array("out", rt.DType, dims...)
	k.Store(out, r, idx...)
	k.F.Grid[0] = irtest.HConst(1)
	res := runtime.NewTensor(rt.DType, shape...)
	res.Fill(math.NaN())
	args := make([]runtime.Arg, 0, len(inputs)+1)
	for _, in := range inputs {
		args = append(args, in)
	}
	args = append(args, res)
	if _, err := Launch(runtime.NewKernel(k.Ret()), args, runtime.LaunchOptions{}); err != nil {
		t.Fatal(err)
	}
	return res
}

// pow2Shape rounds every dim up to a power of two, as tile dims must be.
func pow2Shape(shape []int) []int {
	out := make([]int, len(shape))
	for i, d := range shape {
		out[i] = 1
		for out[i] < d {
			out[i] *= 2
		}
	}
	return out
}

func vec(d ir.DType, xs ...float64) *runtime.Tensor {
	return runtime.FromFloat64(d, []int{len(xs)}, xs)
}

func mat(d ir.DType, r, c int, xs ...float64) *runtime.Tensor {
	return runtime.FromFloat64(d, []int{r, c}, xs)
}

func sameFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] && !(math.IsNaN(a[i]) && math.IsNaN(b[i])) {
			return false
		}
		if a[i] == 0 && math.Signbit(a[i]) != math.Signbit(b[i]) {
			return false
		}
	}
	return true
}

func expect(t *testing.T, what string, got *runtime.Tensor, want ...float64) {
	t.Helper()
	if g := got.Float64s(); !sameFloats(g, want) {
		t.Errorf("%s = %v, want %v", what, g, want)
	}
}

func binOp(op ir.Op) func(k *irtest.Builder, in []*ir.Value) *ir.Value {
	return func(k *irtest.Builder, in []*ir.Value) *ir.Value { return k.Bin(op, in[0], in[1]) }
}

func unOp(op ir.Op) func(k *irtest.Builder, in []*ir.Value) *ir.Value {
	return func(k *irtest.Builder, in []*ir.Value) *ir.Value { return k.Op(op, in[0].Type, nil, in[0]) }
}

func TestBinaryFloat(t *testing.T) {
	x := vec(ir.F32, 7.5, -7.5, 7.5, 3, 0.1, 2, math.Copysign(0, -1), 1)
	y := vec(ir.F32, 2, 2, -2, 0, 0.2, 10, 0, nan)
	f := func(v float64) float64 { return float64(float32(v)) }
	expect(t, "add", runTiles(t, binOp(ir.OpAdd), x, y), 9.5, -5.5, 5.5, 3, f(f(0.1)+f(0.2)), 12, 0, nan)
	expect(t, "sub", runTiles(t, binOp(ir.OpSub), x, y), 5.5, -9.5, 9.5, 3, f(f(0.1)-f(0.2)), -8, math.Copysign(0, -1), nan)
	expect(t, "mul", runTiles(t, binOp(ir.OpMul), x, y), 15, -15, -15, 0, f(f(0.1)*f(0.2)), 20, math.Copysign(0, -1), nan)
	expect(t, "div", runTiles(t, binOp(ir.OpDiv), x, y), 3.75, -3.75, -3.75, math.Inf(1), f(f(0.1)/f(0.2)), f(0.2), nan, nan)
	expect(t, "floordiv", runTiles(t, binOp(ir.OpFloorDiv), x, y), 3, -4, -4, math.Inf(1), 0, 0, nan, nan)
	expect(t, "mod", runTiles(t, binOp(ir.OpMod), x, y), 1.5, 0.5, -0.5, nan, f(0.1), 2, nan, nan)
	// max and min ignore NaN (cuTile's default), or propagate it with propagate_nan.
	expect(t, "max", runTiles(t, binOp(ir.OpMax), x, y), 7.5, 2, 7.5, 3, f(0.2), 10, 0, 1)
	expect(t, "min", runTiles(t, binOp(ir.OpMin), x, y), 2, -7.5, -2, 0, f(0.1), 2, math.Copysign(0, -1), 1)
	propagate := func(op ir.Op) func(k *irtest.Builder, in []*ir.Value) *ir.Value {
		return func(k *irtest.Builder, in []*ir.Value) *ir.Value {
			return k.Op(op, in[0].Type, map[string]any{ir.AttrKeyPropagateNaN: true}, in[0], in[1])
		}
	}
	expect(t, "max propagate_nan", runTiles(t, propagate(ir.OpMax), x, y), 7.5, 2, 7.5, 3, f(0.2), 10, 0, nan)
	expect(t, "min propagate_nan", runTiles(t, propagate(ir.OpMin), x, y), 2, -7.5, -2, 0, f(0.1), 2, math.Copysign(0, -1), nan)
	expect(t, "max of NaNs", runTiles(t, binOp(ir.OpMax), vec(ir.F32, nan), vec(ir.F32, nan)), nan)
	expect(t, "pow", runTiles(t, binOp(ir.OpPow), vec(ir.F32, 2, 4, -2), vec(ir.F32, 10, 0.5, 3)), 1024, 2, -8)
	// f16 results round after every op: 2048+1 ties to 2048, 2048+3 to 2052.
	expect(t, "f16 add", runTiles(t, binOp(ir.OpAdd), vec(ir.F16, 2048, 2048, 65504), vec(ir.F16, 1, 3, 16)),
		2048, 2052, math.Inf(1))
	expect(t, "bf16 mul", runTiles(t, binOp(ir.OpMul), vec(ir.BF16, 1.0078125), vec(ir.BF16, 1.0078125)), 1.015625)
	p1, p2 := 0.1, 0.2
	expect(t, "f64 add", runTiles(t, binOp(ir.OpAdd), vec(ir.F64, p1), vec(ir.F64, p2)), p1+p2)
}

func TestBinaryInt(t *testing.T) {
	x := vec(ir.I32, math.MaxInt32, -7, 7, -7, 5, 65536, 12, 3)
	y := vec(ir.I32, 1, 2, -2, -2, 0, 65536, 10, 4)
	expect(t, "add", runTiles(t, binOp(ir.OpAdd), x, y), math.MinInt32, -5, 5, -9, 5, 131072, 22, 7)
	expect(t, "sub", runTiles(t, binOp(ir.OpSub), x, y), math.MaxInt32-1, -9, 9, -5, 5, 0, 2, -1)
	expect(t, "mul", runTiles(t, binOp(ir.OpMul), x, y), math.MaxInt32, -14, -14, 14, 0, 0, 120, 12)
	expect(t, "floordiv", runTiles(t, binOp(ir.OpFloorDiv), x, y), math.MaxInt32, -4, -4, 3, 0, 1, 1, 0)
	expect(t, "mod", runTiles(t, binOp(ir.OpMod), x, y), 0, 1, -1, -1, 0, 0, 2, 3) // 5 % 0 is 0, as numpy
	expect(t, "min", runTiles(t, binOp(ir.OpMin), x, y), 1, -7, -2, -7, 0, 65536, 10, 3)
	expect(t, "max", runTiles(t, binOp(ir.OpMax), x, y), math.MaxInt32, 2, 7, -2, 5, 65536, 12, 4)
	expect(t, "and", runTiles(t, binOp(ir.OpAnd), x, y), 1, 0, 6, -8, 0, 65536, 8, 0)
	expect(t, "or", runTiles(t, binOp(ir.OpOr), x, y), math.MaxInt32, -5, -1, -1, 5, 65536, 14, 7)
	expect(t, "xor", runTiles(t, binOp(ir.OpXor), x, y), math.MaxInt32-1, -5, -7, 7, 5, 0, 6, 7)
	expect(t, "pow", runTiles(t, binOp(ir.OpPow), vec(ir.I32, 3, 2, 2), vec(ir.I32, 4, 31, -1)), 81, math.MinInt32, 0)
	i64 := runTiles(t, binOp(ir.OpMul), vec(ir.I64, 1<<31), vec(ir.I64, 4))
	if got := i64.Int64s(); got[0] != 1<<33 {
		t.Errorf("i64 mul = %d", got[0])
	}
	b := func(xs ...float64) *runtime.Tensor { return vec(ir.Bool, xs...) }
	expect(t, "bool and", runTiles(t, binOp(ir.OpAnd), b(0, 0, 1, 1), b(0, 1, 0, 1)), 0, 0, 0, 1)
	expect(t, "bool or", runTiles(t, binOp(ir.OpOr), b(0, 0, 1, 1), b(0, 1, 0, 1)), 0, 1, 1, 1)
	expect(t, "bool xor", runTiles(t, binOp(ir.OpXor), b(0, 0, 1, 1), b(0, 1, 0, 1)), 0, 1, 1, 0)
}

func cmp(pred string) func(k *irtest.Builder, in []*ir.Value) *ir.Value {
	return func(k *irtest.Builder, in []*ir.Value) *ir.Value {
		return k.Op(ir.OpCmp, ir.WithElem(in[0].Type, ir.Bool), map[string]any{"pred": pred}, in[0], in[1])
	}
}

func TestCmp(t *testing.T) {
	x, y := vec(ir.F32, 1, 2, 3, nan), vec(ir.F32, 2, 2, 2, nan)
	for _, tc := range []struct {
		pred string
		want []float64
	}{
		{ir.PredEQ, []float64{0, 1, 0, 0}},
		{ir.PredNE, []float64{1, 0, 1, 1}},
		{ir.PredLT, []float64{1, 0, 0, 0}},
		{ir.PredLE, []float64{1, 1, 0, 0}},
		{ir.PredGT, []float64{0, 0, 1, 0}},
		{ir.PredGE, []float64{0, 1, 1, 0}},
	} {
		expect(t, "f32 "+tc.pred, runTiles(t, cmp(tc.pred), x, y), tc.want...)
		xi, yi := vec(ir.I32, 1, 2, 3, -5), vec(ir.I32, 2, 2, 2, -5)
		want := slices.Clone(tc.want)
		want[3] = map[string]float64{"eq": 1, "ne": 0, "lt": 0, "le": 1, "gt": 0, "ge": 1}[tc.pred]
		expect(t, "i32 "+tc.pred, runTiles(t, cmp(tc.pred), xi, yi), want...)
	}
}

func TestUnary(t *testing.T) {
	f := func(v float64) float64 { return float64(float32(v)) }
	x := vec(ir.F32, -2, 0.5, 4)
	expect(t, "neg", runTiles(t, unOp(ir.OpNeg), x), 2, -0.5, -4)
	expect(t, "abs", runTiles(t, unOp(ir.OpAbs), x), 2, 0.5, 4)
	expect(t, "exp", runTiles(t, unOp(ir.OpExp), x), f(math.Exp(-2)), f(math.Exp(0.5)), f(math.Exp(4)))
	expect(t, "exp2", runTiles(t, unOp(ir.OpExp2), x), 0.25, f(math.Sqrt2), 16)
	expect(t, "log", runTiles(t, unOp(ir.OpLog), x), nan, f(math.Log(0.5)), f(math.Log(4)))
	expect(t, "sqrt", runTiles(t, unOp(ir.OpSqrt), x), nan, f(math.Sqrt(0.5)), 2)
	expect(t, "rsqrt", runTiles(t, unOp(ir.OpRsqrt), x), nan, f(1/math.Sqrt(0.5)), 0.5)
	expect(t, "tanh", runTiles(t, unOp(ir.OpTanh), x), f(math.Tanh(-2)), f(math.Tanh(0.5)), f(math.Tanh(4)))
	expect(t, "f16 exp", runTiles(t, unOp(ir.OpExp), vec(ir.F16, 1)), runtime.F16Float(runtime.F16Bits(math.E)))
	expect(t, "i32 neg", runTiles(t, unOp(ir.OpNeg), vec(ir.I32, math.MinInt32, 5)), math.MinInt32, -5)
	expect(t, "i32 abs", runTiles(t, unOp(ir.OpAbs), vec(ir.I32, math.MinInt32, -5)), math.MinInt32, 5)
	expect(t, "i32 not", runTiles(t, unOp(ir.OpNot), vec(ir.I32, 0, 5)), -1, -6)
	expect(t, "bool not", runTiles(t, unOp(ir.OpNot), vec(ir.Bool, 0, 1)), 1, 0)
}

func TestSelect(t *testing.T) {
	sel := func(k *irtest.Builder, in []*ir.Value) *ir.Value { return k.Op(ir.OpSelect, in[1].Type, nil, in...) }
	c := vec(ir.Bool, 1, 0, 1, 0)
	expect(t, "f32", runTiles(t, sel, c, vec(ir.F32, 1, 2, 3, 4), vec(ir.F32, -1, -2, -3, -4)), 1, -2, 3, -4)
	expect(t, "i32", runTiles(t, sel, c, vec(ir.I32, 1, 2, 3, 4), vec(ir.I32, -1, -2, -3, -4)), 1, -2, 3, -4)
	scalarCond := func(k *irtest.Builder, in []*ir.Value) *ir.Value {
		cv := k.Op(ir.OpConst, ir.ScalarOf(ir.Bool), map[string]any{"value": false})
		return k.Op(ir.OpSelect, in[0].Type, nil, cv, in[0], in[1])
	}
	expect(t, "scalar cond", runTiles(t, scalarCond, vec(ir.F32, 1, 2), vec(ir.F32, 3, 4)), 3, 4)
}

func conv(d ir.DType) func(k *irtest.Builder, in []*ir.Value) *ir.Value {
	return func(k *irtest.Builder, in []*ir.Value) *ir.Value {
		return k.Op(ir.OpConvert, ir.WithElem(in[0].Type, d), nil, in[0])
	}
}

func TestConvert(t *testing.T) {
	x := vec(ir.F32, 2.9, -2.9, 3e9, -3e9, nan, 0.1, 65520, 0)
	expect(t, "f32->i32", runTiles(t, conv(ir.I32), x), 2, -2, math.MaxInt32, math.MinInt32, 0, 0, 65520, 0)
	expect(t, "f32->f16", runTiles(t, conv(ir.F16), x), 2.900390625, -2.900390625, math.Inf(1), math.Inf(-1), nan,
		runtime.F16Float(runtime.F16Bits(float64(float32(0.1)))), math.Inf(1), 0)
	expect(t, "f32->bool", runTiles(t, conv(ir.Bool), x), 1, 1, 1, 1, 1, 1, 1, 0)
	expect(t, "f32->tf32", runTiles(t, conv(ir.TF32), vec(ir.F32, 1+0x1p-11, 1+0x1p-12)), 1+0x1p-10, 1)
	expect(t, "i32->f16", runTiles(t, conv(ir.F16), vec(ir.I32, 2049, 2051, 100000)), 2048, 2052, math.Inf(1))
	expect(t, "i64->i32", runTiles(t, conv(ir.I32), vec(ir.I64, 1<<32+5, -1)), 5, -1)
	expect(t, "bool->i32", runTiles(t, conv(ir.I32), vec(ir.Bool, 1, 0)), 1, 0)
	expect(t, "i32->bool", runTiles(t, conv(ir.Bool), vec(ir.I32, 7, 0)), 1, 0)
	expect(t, "f16->f32", runTiles(t, conv(ir.F32), vec(ir.F16, 0x1p-24)), 0x1p-24)
	expect(t, "f64->bf16", runTiles(t, conv(ir.BF16), vec(ir.F64, 1.00390625)), 1)
}

func TestSplatIotaConst(t *testing.T) {
	splat := func(d ir.DType, v float64, shape ...int) func(k *irtest.Builder, in []*ir.Value) *ir.Value {
		return func(k *irtest.Builder, in []*ir.Value) *ir.Value {
			s := k.Op(ir.OpConvert, ir.ScalarOf(d), nil, k.CFloat(ir.F32, v))
			return k.Op(ir.OpSplat, ir.TileOf(d, shape...), nil, s)
		}
	}
	expect(t, "splat f32->f16", runTiles(t, splat(ir.F16, 0.1, 2, 2)), fill(4, runtime.F16Float(runtime.F16Bits(float64(float32(0.1)))))...)
	expect(t, "splat f32->i32", runTiles(t, splat(ir.I32, -2.5, 2)), -2, -2)
	iota := func(d ir.DType, n int) func(k *irtest.Builder, in []*ir.Value) *ir.Value {
		return func(k *irtest.Builder, in []*ir.Value) *ir.Value { return k.Op(ir.OpIota, ir.TileOf(d, n), nil) }
	}
	expect(t, "iota i32", runTiles(t, iota(ir.I32, 4)), 0, 1, 2, 3)
	expect(t, "iota i64", runTiles(t, iota(ir.I64, 2)), 0, 1)
	constF16 := func(k *irtest.Builder, in []*ir.Value) *ir.Value {
		return k.Op(ir.OpConst, ir.ScalarOf(ir.F16), map[string]any{"value": 1.0 / 3})
	}
	expect(t, "const f16", runTiles(t, constF16), runtime.F16Float(0x3555))
	constIntF32 := func(k *irtest.Builder, in []*ir.Value) *ir.Value {
		return k.Op(ir.OpConst, ir.ScalarOf(ir.F32), map[string]any{"value": int64(1<<24 + 1)})
	}
	expect(t, "const int as f32", runTiles(t, constIntF32), 1<<24) // rounded to f32
	constBool := func(k *irtest.Builder, in []*ir.Value) *ir.Value {
		return k.Op(ir.OpConst, ir.ScalarOf(ir.Bool), map[string]any{"value": true})
	}
	expect(t, "const bool", runTiles(t, constBool), 1)
}

func fill(n int, v float64) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = v
	}
	return s
}

func TestShapeOps(t *testing.T) {
	bc := func(shape ...int) func(k *irtest.Builder, in []*ir.Value) *ir.Value {
		return func(k *irtest.Builder, in []*ir.Value) *ir.Value {
			return k.Op(ir.OpBroadcast, ir.TileOf(in[0].Type.Elem(), shape...), nil, in[0])
		}
	}
	expect(t, "broadcast 1x4->2x4", runTiles(t, bc(2, 4), mat(ir.F32, 1, 4, 1, 2, 3, 4)), 1, 2, 3, 4, 1, 2, 3, 4)
	expect(t, "broadcast 2x1->2x4", runTiles(t, bc(2, 4), mat(ir.I32, 2, 1, 1, 2)), 1, 1, 1, 1, 2, 2, 2, 2)
	bcRow := func(k *irtest.Builder, in []*ir.Value) *ir.Value {
		row := k.Op(ir.OpReshape, ir.TileOf(ir.F32, 1, 2), nil, in[0])
		return k.Op(ir.OpBroadcast, ir.TileOf(ir.F32, 2, 2), nil, row)
	}
	expect(t, "broadcast 2->1x2->2x2", runTiles(t, bcRow, vec(ir.F32, 5, 6)), 5, 6, 5, 6)
	rs := func(shape ...int) func(k *irtest.Builder, in []*ir.Value) *ir.Value {
		return func(k *irtest.Builder, in []*ir.Value) *ir.Value {
			return k.Op(ir.OpReshape, ir.TileOf(in[0].Type.Elem(), shape...), nil, in[0])
		}
	}
	r := runTiles(t, rs(4, 2), mat(ir.F32, 2, 4, 1, 2, 3, 4, 5, 6, 7, 8))
	expect(t, "reshape", r, 1, 2, 3, 4, 5, 6, 7, 8)
	if !slices.Equal(r.Shape, []int{4, 2}) {
		t.Errorf("reshape shape %v", r.Shape)
	}
	perm := func(p []int, shape ...int) func(k *irtest.Builder, in []*ir.Value) *ir.Value {
		return func(k *irtest.Builder, in []*ir.Value) *ir.Value {
			return k.Op(ir.OpPermute, ir.TileOf(in[0].Type.Elem(), shape...), map[string]any{"perm": p}, in[0])
		}
	}
	expect(t, "permute 2x4", runTiles(t, perm([]int{1, 0}, 4, 2), mat(ir.F32, 2, 4, 1, 2, 3, 4, 5, 6, 7, 8)),
		1, 5, 2, 6, 3, 7, 4, 8)
	// (2,2,4) -> perm (2,0,1) -> (4,2,2): out[i][j][k] = in[j][k][i]
	in3 := runtime.FromFloat64(ir.I32, []int{2, 2, 4}, seq(16))
	var want []float64
	for i := 0; i < 4; i++ {
		for j := 0; j < 2; j++ {
			for k := 0; k < 2; k++ {
				want = append(want, float64(j*8+k*4+i))
			}
		}
	}
	expect(t, "permute 3d", runTiles(t, perm([]int{2, 0, 1}, 4, 2, 2), in3), want...)
}

func seq(n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = float64(i)
	}
	return s
}

func red(kind string, axis int, d ir.DType, shape ...int) func(k *irtest.Builder, in []*ir.Value) *ir.Value {
	return func(k *irtest.Builder, in []*ir.Value) *ir.Value {
		return k.Op(ir.OpReduce, ir.TileOf(d, shape...), map[string]any{"axis": axis, "kind": kind}, in[0])
	}
}

func TestReduce(t *testing.T) {
	x := mat(ir.F32, 2, 4, 1, 5, -3, 5, 2, -8, 0, 7)
	expect(t, "sum axis 1", runTiles(t, red(ir.ReduceSum, 1, ir.F32, 2), x), 8, 1)
	expect(t, "sum axis 0", runTiles(t, red(ir.ReduceSum, 0, ir.F32, 4), x), 3, -3, -3, 12)
	expect(t, "max axis 1", runTiles(t, red(ir.ReduceMax, 1, ir.F32, 2), x), 5, 7)
	expect(t, "min axis 0", runTiles(t, red(ir.ReduceMin, 0, ir.F32, 4), x), 1, -8, -3, 5)
	expect(t, "argmax axis 1 (first)", runTiles(t, red(ir.ReduceArgmax, 1, ir.I32, 2), x), 1, 3)
	expect(t, "argmin axis 0", runTiles(t, red(ir.ReduceArgmin, 0, ir.I32, 4), x), 0, 1, 0, 0)
	sumAll := func(k *irtest.Builder, in []*ir.Value) *ir.Value {
		flat := k.Op(ir.OpReshape, ir.TileOf(ir.F32, 8), nil, in[0])
		return red(ir.ReduceSum, 0, ir.F32)(k, []*ir.Value{flat})
	}
	expect(t, "sum all", runTiles(t, sumAll, x), 9)
	keepdims := func(k *irtest.Builder, in []*ir.Value) *ir.Value {
		return k.Op(ir.OpReshape, ir.TileOf(ir.F32, 2, 1), nil, red(ir.ReduceSum, 1, ir.F32, 2)(k, in))
	}
	expect(t, "keepdims", runTiles(t, keepdims, x), 8, 1)
	// f16 sums accumulate in f32: 2048+1+1 is 2050 (f16 accumulation would stay at 2048).
	expect(t, "f16 sum", runTiles(t, red(ir.ReduceSum, 0, ir.F16), vec(ir.F16, 2048, 1, 1, 0)), 2050)
	// NaN is ignored unless propagate_nan: then the max is NaN and argmax the first NaN's index.
	withNaN := vec(ir.F32, 1, nan, 3, 2) // four: runTiles pads to a power of two with zeros
	expect(t, "max nan", runTiles(t, red(ir.ReduceMax, 0, ir.F32), withNaN), 3)
	expect(t, "min nan", runTiles(t, red(ir.ReduceMin, 0, ir.F32), withNaN), 1)
	expect(t, "argmax nan", runTiles(t, red(ir.ReduceArgmax, 0, ir.I32), withNaN), 2)
	expect(t, "argmin nan first", runTiles(t, red(ir.ReduceArgmin, 0, ir.I32), vec(ir.F32, nan, 4, 1, 1)), 2)
	expect(t, "max all nan", runTiles(t, red(ir.ReduceMax, 0, ir.F32), vec(ir.F32, nan, nan)), nan)
	expect(t, "argmax all nan", runTiles(t, red(ir.ReduceArgmax, 0, ir.I32), vec(ir.F32, nan, nan)), 0)
	redNaN := func(kind string, d ir.DType) func(k *irtest.Builder, in []*ir.Value) *ir.Value {
		return func(k *irtest.Builder, in []*ir.Value) *ir.Value {
			return k.Op(ir.OpReduce, ir.TileOf(d), map[string]any{"axis": 0, "kind": kind, ir.AttrKeyPropagateNaN: true}, in[0])
		}
	}
	expect(t, "max propagate_nan", runTiles(t, redNaN(ir.ReduceMax, ir.F32), withNaN), nan)
	expect(t, "argmax propagate_nan", runTiles(t, redNaN(ir.ReduceArgmax, ir.I32), withNaN), 1)
	expect(t, "i32 sum wraps", runTiles(t, red(ir.ReduceSum, 0, ir.I32), vec(ir.I32, math.MaxInt32, 1)), math.MinInt32)
	expect(t, "i32 argmax", runTiles(t, red(ir.ReduceArgmax, 0, ir.I32), vec(ir.I32, 3, 9, 9, 1)), 1)
}

func mmaOp(k *irtest.Builder, in []*ir.Value) *ir.Value {
	return k.Op(ir.OpMMA, in[2].Type, nil, in...)
}

func TestMMA(t *testing.T) {
	a := mat(ir.F16, 2, 2, 1, 2, 3, 4)
	b := mat(ir.F16, 2, 2, 5, 6, 7, 8)
	acc := mat(ir.F32, 2, 2, 0.5, 0, 0, -1)
	expect(t, "f16->f32", runTiles(t, mmaOp, a, b, acc), 19.5, 22, 43, 49)
	// tf32 inputs are rounded to tf32 (ties away from zero): (1+2^-11)*1 = 1+2^-10.
	expect(t, "tf32", runTiles(t, mmaOp, mat(ir.TF32, 1, 1, 1+0x1p-11), mat(ir.TF32, 1, 1, 1), mat(ir.F32, 1, 1, 0)),
		1+0x1p-10)
	// f32 inputs are exact f32: (1+2^-11)*1 = 1+2^-11.
	expect(t, "f32 exact", runTiles(t, mmaOp, mat(ir.F32, 1, 1, 1+0x1p-11), mat(ir.F32, 1, 1, 1), mat(ir.F32, 1, 1, 0)),
		1+0x1p-11)
	// f32 steps are fused multiply-adds: (1+2^-12)^2 - 1 = 2^-11 + 2^-24 exactly
	// (a rounded product would lose the 2^-24).
	expect(t, "f32 fma", runTiles(t, mmaOp, mat(ir.F32, 1, 1, 1+0x1p-12), mat(ir.F32, 1, 1, 1+0x1p-12), mat(ir.F32, 1, 1, -1)),
		0x1p-11+0x1p-24)
	// ... and each step is rounded, in ascending k: fma(u, u, 0) is 1+2^-11
	// (a tie, to even), then fma(1, -1, that) is 2^-11 (the exact dot
	// product is 2^-11 + 2^-24).
	expect(t, "f32 fma chain", runTiles(t, mmaOp, mat(ir.F32, 1, 2, 1+0x1p-12, 1), mat(ir.F32, 2, 1, 1+0x1p-12, -1), mat(ir.F32, 1, 1, 0)),
		0x1p-11)
	// f32 accumulation in ascending k: 2^24 + 1 + 1 stays 2^24 (the sum is rounded after each step).
	expect(t, "f32 acc order", runTiles(t, mmaOp, mat(ir.BF16, 1, 2, 1, 1), mat(ir.BF16, 2, 1, 1, 1), mat(ir.F32, 1, 1, 0x1p24)),
		0x1p24)
	// f16 accumulator: rounded after every add: 2048 + 1 + 1 = 2048.
	expect(t, "f16 acc", runTiles(t, mmaOp, mat(ir.F16, 1, 2, 1, 1), mat(ir.F16, 2, 1, 1, 1), mat(ir.F16, 1, 1, 2048)), 2048)
	expect(t, "f64", runTiles(t, mmaOp, mat(ir.F64, 1, 2, 0.1, 0.2), mat(ir.F64, 2, 1, 0.3, 0.4), mat(ir.F64, 1, 1, 0)),
		f64dot(0.1, 0.3, 0.2, 0.4))
	// batched: (2,1,2) x (2,2,1) + (2,1,1)
	ba := runtime.FromFloat64(ir.BF16, []int{2, 1, 2}, []float64{1, 2, 3, 4})
	bb := runtime.FromFloat64(ir.BF16, []int{2, 2, 1}, []float64{1, 1, 2, 0})
	bacc := runtime.FromFloat64(ir.F32, []int{2, 1, 1}, []float64{0, 1})
	expect(t, "batched", runTiles(t, mmaOp, ba, bb, bacc), 3, 7)
	// larger odd case against a float64 reference (f16 inputs: exact products, f32 sums)
	A := runtime.FromFloat64(ir.F16, []int{4, 8}, seq(32))
	B := runtime.FromFloat64(ir.F16, []int{8, 4}, seq(32))
	got := runTiles(t, mmaOp, A, B, runtime.NewTensor(ir.F32, 4, 4))
	expect(t, "4x8x4", got, refMatmul(A, B)...)
}

func TestScalarOps(t *testing.T) {
	// Scalar arithmetic (as the swizzle uses): (-7 // 2) * 10 + (-7 % 2) = -39.
	f := func(k *irtest.Builder, in []*ir.Value) *ir.Value {
		a, b := k.CInt(-7), k.CInt(2)
		q := k.Bin(ir.OpFloorDiv, a, b)
		m := k.Bin(ir.OpMod, a, b)
		return k.Bin(ir.OpAdd, k.Bin(ir.OpMul, q, k.CInt(10)), m)
	}
	expect(t, "int", runTiles(t, f), -39)
	g := func(k *irtest.Builder, in []*ir.Value) *ir.Value {
		x := k.CFloat(ir.F16, 2048)
		return k.Bin(ir.OpAdd, x, k.CFloat(ir.F16, 1))
	}
	expect(t, "f16", runTiles(t, g), 2048)
	h := func(k *irtest.Builder, in []*ir.Value) *ir.Value {
		c := k.Op(ir.OpCmp, ir.ScalarOf(ir.Bool), map[string]any{"pred": ir.PredLT}, k.CInt(1), k.CInt(2))
		return k.Op(ir.OpSelect, ir.ScalarOf(ir.F32), nil, c, k.CFloat(ir.F32, 1.5), k.CFloat(ir.F32, 2.5))
	}
	expect(t, "select", runTiles(t, h), 1.5)
	u := func(k *irtest.Builder, in []*ir.Value) *ir.Value {
		return k.Op(ir.OpSqrt, ir.ScalarOf(ir.F32), nil, k.CFloat(ir.F32, 2))
	}
	expect(t, "sqrt", runTiles(t, u), float64(float32(math.Sqrt2)))
	cv := func(k *irtest.Builder, in []*ir.Value) *ir.Value {
		return k.Op(ir.OpConvert, ir.ScalarOf(ir.I32), nil, k.CFloat(ir.F32, -3.7))
	}
	expect(t, "convert", runTiles(t, cv), -3)
}

func TestForLoop(t *testing.T) {
	// sum of i over range(10, 0, -3) = 10+7+4+1; and a carried swap.
	f := func(k *irtest.Builder, in []*ir.Value) *ir.Value {
		r := k.ForLoop(k.CInt(10), k.CInt(0), k.CInt(-3), []*ir.Value{k.CInt(0)}, func(iv *ir.Value, c []*ir.Value) []*ir.Value {
			return []*ir.Value{k.Bin(ir.OpAdd, c[0], iv)}
		})
		return r[0]
	}
	expect(t, "negative step", runTiles(t, f), 22)
	g := func(k *irtest.Builder, in []*ir.Value) *ir.Value {
		r := k.ForLoop(k.CInt(0), k.CInt(3), k.CInt(1), []*ir.Value{in[0], in[1]}, func(iv *ir.Value, c []*ir.Value) []*ir.Value {
			return []*ir.Value{c[1], c[0]} // swap: reads both before writing
		})
		return k.Bin(ir.OpSub, r[0], r[1])
	}
	expect(t, "swap", runTiles(t, g, vec(ir.F32, 1, 2), vec(ir.F32, 10, 20)), 9, 18)
	z := func(k *irtest.Builder, in []*ir.Value) *ir.Value {
		r := k.ForLoop(k.CInt(5), k.CInt(5), k.CInt(1), []*ir.Value{k.CInt(42)}, func(iv *ir.Value, c []*ir.Value) []*ir.Value {
			return []*ir.Value{iv}
		})
		return r[0]
	}
	expect(t, "zero trips", runTiles(t, z), 42)
	// nested loops: sum over i<3, j<i of (i*10+j)
	n := func(k *irtest.Builder, in []*ir.Value) *ir.Value {
		r := k.ForLoop(k.CInt(0), k.CInt(3), k.CInt(1), []*ir.Value{k.CInt(0)}, func(i *ir.Value, c []*ir.Value) []*ir.Value {
			r2 := k.ForLoop(k.CInt(0), i, k.CInt(1), []*ir.Value{c[0]}, func(j *ir.Value, c2 []*ir.Value) []*ir.Value {
				return []*ir.Value{k.Bin(ir.OpAdd, c2[0], k.Bin(ir.OpAdd, k.Bin(ir.OpMul, i, k.CInt(10)), j))}
			})
			return r2
		})
		return r[0]
	}
	expect(t, "nested", runTiles(t, n), 10+20+21)
}

func TestIf(t *testing.T) {
	mk := func(cond bool) func(k *irtest.Builder, in []*ir.Value) *ir.Value {
		return func(k *irtest.Builder, in []*ir.Value) *ir.Value {
			c := k.Op(ir.OpConst, ir.ScalarOf(ir.Bool), map[string]any{"value": cond})
			ifi := k.F.NewInstr(ir.OpIf, []*ir.Value{c}, in[0].Type)
			outer := k.B
			k.B = ifi.NewRegion()
			k.Op(ir.OpYield, nil, nil, k.Bin(ir.OpAdd, in[0], in[0]))
			k.B = ifi.NewRegion()
			k.Op(ir.OpYield, nil, nil, k.Op(ir.OpNeg, in[0].Type, nil, in[0]))
			k.B = outer
			k.B.Append(ifi)
			return ifi.Result()
		}
	}
	expect(t, "then", runTiles(t, mk(true), vec(ir.F32, 1, 2)), 2, 4)
	expect(t, "else", runTiles(t, mk(false), vec(ir.F32, 1, 2)), -1, -2)
}

func f64dot(a, b, c, d float64) float64 {
	s := a * b
	return s + c*d
}
