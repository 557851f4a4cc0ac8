// Package handir builds, by hand, the IR that ir.Build produces for the
// example kernels, so that lower and ptxgen can be tested before (and
// independently of) the front end.
package handir

import "github.com/tilec/tilec/ir"

type fb struct {
	f *ir.Func
	b *ir.Block
}

func (x *fb) op(op ir.Op, t ir.Type, args ...*ir.Value) *ir.Value {
	in := x.f.NewInstr(op, args, t)
	x.b.Append(in)
	return in.Result()
}

func (x *fb) attr(v *ir.Value, k string, val any) *ir.Value { v.Def.Attrs.Set(k, val); return v }

var i32 = ir.ScalarOf(ir.I32)

func (x *fb) ci(v int64) *ir.Value {
	return x.attr(x.op(ir.OpConst, i32), "value", v)
}

func (x *fb) bin(op ir.Op, a, b *ir.Value) *ir.Value { return x.op(op, a.Type, a, b) }

func (x *fb) cdiv(a *ir.Value, b int64) *ir.Value {
	return x.bin(ir.OpFloorDiv, x.bin(ir.OpAdd, a, x.ci(b-1)), x.ci(b))
}

func sym(s string) *ir.HostExpr { return &ir.HostExpr{Op: ir.HostSym, Sym: s} }
func hc(v int64) *ir.HostExpr   { return &ir.HostExpr{Op: ir.HostConst, Val: v} }
func hop(op ir.HostOp, a, b *ir.HostExpr) *ir.HostExpr {
	return &ir.HostExpr{Op: op, Args: []*ir.HostExpr{a, b}}
}

// MatmulOpts select a variant of the matmul example.
type MatmulOpts struct {
	T          ir.DType // input dtype (F16, BF16, F32)
	TM, TN, TK int
	Group      int
	TransB     bool // B is (N, K), loaded as (tn, tk) and transposed
	BiasReLU   bool // C = relu(A@B + bias[None, :])
}

// Matmul is examples/matmul.tile (and its variants) as IR.
func Matmul(o MatmulOpts) *ir.Func {
	if o.TM == 0 {
		o.TM, o.TN, o.TK, o.Group = 128, 256, 64, 8
	}
	name := "matmul"
	if o.TransB {
		name = "matmul_bt"
	}
	if o.BiasReLU {
		name = "matmul_bias_relu"
	}
	f := ir.NewFunc(name)
	x := &fb{f: f, b: f.Body}
	A := f.AddParam("A", ir.ArrayOf(o.T, 2), []ir.Dim{{Sym: "M"}, {Sym: "K"}}).Value
	var B *ir.Value
	if o.TransB {
		B = f.AddParam("B", ir.ArrayOf(o.T, 2), []ir.Dim{{Sym: "N"}, {Sym: "K"}}).Value
	} else {
		B = f.AddParam("B", ir.ArrayOf(o.T, 2), []ir.Dim{{Sym: "K"}, {Sym: "N"}}).Value
	}
	C := f.AddParam("C", ir.ArrayOf(o.T, 2), []ir.Dim{{Sym: "M"}, {Sym: "N"}}).Value
	var bias *ir.Value
	if o.BiasReLU {
		bias = f.AddParam("bias", ir.ArrayOf(o.T, 1), []ir.Dim{{Sym: "N"}}).Value
	}
	f.Consts = []ir.Const{{Name: "T", Value: o.T}, {Name: "tm", Value: int64(o.TM)}, {Name: "tn", Value: int64(o.TN)}, {Name: "tk", Value: int64(o.TK)}, {Name: "GROUP_SIZE_M", Value: int64(o.Group)}}
	f.Grid = [3]*ir.HostExpr{
		hop(ir.HostMul, hop(ir.HostCdiv, sym("M"), hc(int64(o.TM))), hop(ir.HostCdiv, sym("N"), hc(int64(o.TN)))),
		hc(1), hc(1),
	}
	bid := x.attr(x.op(ir.OpBlockID, i32), "axis", int64(0))
	M := x.attr(x.op(ir.OpDim, i32, A), "axis", int64(0))
	var N *ir.Value
	if o.TransB {
		N = x.attr(x.op(ir.OpDim, i32, B), "axis", int64(0))
	} else {
		N = x.attr(x.op(ir.OpDim, i32, B), "axis", int64(1))
	}
	numM := x.cdiv(M, int64(o.TM))
	numN := x.cdiv(N, int64(o.TN))
	inGroup := x.bin(ir.OpMul, x.ci(int64(o.Group)), numN)
	gid := x.bin(ir.OpFloorDiv, bid, inGroup)
	firstM := x.bin(ir.OpMul, gid, x.ci(int64(o.Group)))
	gsz := x.bin(ir.OpMin, x.bin(ir.OpSub, numM, firstM), x.ci(int64(o.Group)))
	bm := x.bin(ir.OpAdd, firstM, x.bin(ir.OpMod, bid, gsz))
	bn := x.bin(ir.OpFloorDiv, x.bin(ir.OpMod, bid, inGroup), gsz)
	K := x.attr(x.op(ir.OpDim, i32, A), "axis", int64(1))
	nk := x.cdiv(K, int64(o.TK))
	zero := x.attr(x.op(ir.OpConst, ir.ScalarOf(ir.F32)), "value", 0.0)
	acc0 := x.op(ir.OpSplat, ir.TileOf(ir.F32, o.TM, o.TN), zero)

	loop := f.NewInstr(ir.OpFor, []*ir.Value{x.ci(0), nk, x.ci(1), acc0}, acc0.Type)
	body := loop.NewRegion()
	k := f.AddBlockParam(body, i32)
	acc := f.AddBlockParam(body, acc0.Type)
	y := &fb{f: f, b: body}
	a := y.attr(y.op(ir.OpLoad, ir.TileOf(o.T, o.TM, o.TK), A, bm, k), "pad", "zero")
	var b *ir.Value
	if o.TransB {
		bt := y.attr(y.op(ir.OpLoad, ir.TileOf(o.T, o.TN, o.TK), B, bn, k), "pad", "zero")
		b = y.attr(y.op(ir.OpPermute, ir.TileOf(o.T, o.TK, o.TN), bt), "perm", []int{1, 0})
	} else {
		b = y.attr(y.op(ir.OpLoad, ir.TileOf(o.T, o.TK, o.TN), B, k, bn), "pad", "zero")
	}
	nacc := y.op(ir.OpMMA, acc0.Type, a, b, acc)
	yi := f.NewInstr(ir.OpYield, []*ir.Value{nacc})
	body.Append(yi)
	f.Body.Append(loop)
	res := loop.Result()
	if o.BiasReLU {
		bl := x.attr(x.op(ir.OpLoad, ir.TileOf(o.T, o.TN), bias, bn), "pad", "zero")
		bf := x.op(ir.OpConvert, ir.TileOf(ir.F32, o.TN), bl)
		br := x.op(ir.OpReshape, ir.TileOf(ir.F32, 1, o.TN), bf)
		bb := x.op(ir.OpBroadcast, ir.TileOf(ir.F32, o.TM, o.TN), br)
		s := x.op(ir.OpAdd, res.Type, res, bb)
		z := x.op(ir.OpSplat, res.Type, x.attr(x.op(ir.OpConst, ir.ScalarOf(ir.F32)), "value", 0.0))
		res = x.op(ir.OpMax, res.Type, s, z)
	}
	out := x.op(ir.OpConvert, ir.TileOf(o.T, o.TM, o.TN), res)
	f.Body.Append(f.NewInstr(ir.OpStore, []*ir.Value{C, bm, bn, out}))
	f.Body.Append(f.NewInstr(ir.OpReturn, nil))
	f.Renumber()
	return f
}

// VectorAdd is examples/vector_add.tile: c = a + b over tiles of n.
func VectorAdd(n int, t ir.DType) *ir.Func {
	f := ir.NewFunc("vector_add")
	x := &fb{f: f, b: f.Body}
	a := f.AddParam("a", ir.ArrayOf(t, 1), []ir.Dim{{Sym: "N"}}).Value
	b := f.AddParam("b", ir.ArrayOf(t, 1), []ir.Dim{{Sym: "N"}}).Value
	c := f.AddParam("c", ir.ArrayOf(t, 1), []ir.Dim{{Sym: "N"}}).Value
	f.Consts = []ir.Const{{Name: "tile", Value: int64(n)}}
	f.Grid = [3]*ir.HostExpr{hop(ir.HostCdiv, sym("N"), hc(int64(n))), hc(1), hc(1)}
	bid := x.attr(x.op(ir.OpBlockID, i32), "axis", int64(0))
	la := x.attr(x.op(ir.OpLoad, ir.TileOf(t, n), a, bid), "pad", "zero")
	lb := x.attr(x.op(ir.OpLoad, ir.TileOf(t, n), b, bid), "pad", "zero")
	s := x.op(ir.OpAdd, la.Type, la, lb)
	f.Body.Append(f.NewInstr(ir.OpStore, []*ir.Value{c, bid, s}))
	f.Body.Append(f.NewInstr(ir.OpReturn, nil))
	f.Renumber()
	return f
}

// RowBias is a broadcast kernel: out[i, j] = exp(x[i, j]) * scale + bias[j]
// over (tm, tn) tiles on a 2-D grid; it exercises 2-D blocked layouts,
// broadcast, a scalar parameter and unary math.
func RowBias(tm, tn int) *ir.Func {
	f := ir.NewFunc("row_bias")
	x := &fb{f: f, b: f.Body}
	X := f.AddParam("X", ir.ArrayOf(ir.F32, 2), []ir.Dim{{Sym: "M"}, {Sym: "N"}}).Value
	bias := f.AddParam("bias", ir.ArrayOf(ir.F32, 1), []ir.Dim{{Sym: "N"}}).Value
	O := f.AddParam("O", ir.ArrayOf(ir.F32, 2), []ir.Dim{{Sym: "M"}, {Sym: "N"}}).Value
	scale := f.AddParam("scale", ir.ScalarOf(ir.F32), nil).Value
	f.Grid = [3]*ir.HostExpr{hop(ir.HostCdiv, sym("M"), hc(int64(tm))), hop(ir.HostCdiv, sym("N"), hc(int64(tn))), hc(1)}
	bi := x.attr(x.op(ir.OpBlockID, i32), "axis", int64(0))
	bj := x.attr(x.op(ir.OpBlockID, i32), "axis", int64(1))
	tt := ir.TileOf(ir.F32, tm, tn)
	lx := x.attr(x.op(ir.OpLoad, tt, X, bi, bj), "pad", "zero")
	ex := x.op(ir.OpExp, tt, lx)
	sc := x.op(ir.OpSplat, tt, scale)
	m := x.op(ir.OpMul, tt, ex, sc)
	lb := x.attr(x.op(ir.OpLoad, ir.TileOf(ir.F32, tn), bias, bj), "pad", "zero")
	rb := x.op(ir.OpReshape, ir.TileOf(ir.F32, 1, tn), lb)
	bb := x.op(ir.OpBroadcast, tt, rb)
	s := x.op(ir.OpAdd, tt, m, bb)
	f.Body.Append(f.NewInstr(ir.OpStore, []*ir.Value{O, bi, bj, s}))
	f.Body.Append(f.NewInstr(ir.OpReturn, nil))
	f.Renumber()
	return f
}

// Copy is the runtime tests' copy kernel: C[tile] = A[tile] over (tm, tn)
// tiles on a 2-D grid, with the given padding mode. Its arrays may be any
// strided views (transposed, offset, padded rows).
func Copy(t ir.DType, tm, tn int, pad string) *ir.Func {
	f := ir.NewFunc("copy")
	x := &fb{f: f, b: f.Body}
	A := f.AddParam("A", ir.ArrayOf(t, 2), []ir.Dim{{Sym: "M"}, {Sym: "N"}}).Value
	C := f.AddParam("C", ir.ArrayOf(t, 2), []ir.Dim{{Sym: "M2"}, {Sym: "N2"}}).Value
	f.Grid = [3]*ir.HostExpr{hop(ir.HostCdiv, sym("M2"), hc(int64(tm))), hop(ir.HostCdiv, sym("N2"), hc(int64(tn))), hc(1)}
	b0 := x.attr(x.op(ir.OpBlockID, i32), "axis", int64(0))
	b1 := x.attr(x.op(ir.OpBlockID, i32), "axis", int64(1))
	l := x.attr(x.op(ir.OpLoad, ir.TileOf(t, tm, tn), A, b0, b1), "pad", pad)
	f.Body.Append(f.NewInstr(ir.OpStore, []*ir.Value{C, b0, b1, l}))
	f.Body.Append(f.NewInstr(ir.OpReturn, nil))
	f.Renumber()
	return f
}
