// Package irtest builds kernels' IR by hand for the runtime's tests (the
// interpreter's, the check's and the CUDA backend's), standing in for the
// front end so that a test of a backend does not depend on lang and
// ir/build, and so that the packages' tests share one builder.
package irtest

import "github.com/tilec/tilec/ir"

// Builder builds IR by hand for tests, standing in for the front end.
type Builder struct {
	F *ir.Func
	B *ir.Block
}

func NewBuilder(name string) *Builder {
	f := ir.NewFunc(name)
	return &Builder{F: f, B: f.Body}
}

func (k *Builder) Array(name string, d ir.DType, dims ...any) *ir.Value {
	ds := make([]ir.Dim, len(dims))
	for i, x := range dims {
		switch x := x.(type) {
		case string:
			ds[i] = ir.Dim{Sym: x}
		case int:
			ds[i] = ir.Dim{Size: int64(x)}
		}
	}
	return k.F.AddParam(name, ir.ArrayOf(d, len(dims)), ds).Value
}

func (k *Builder) ScalarParam(name string, d ir.DType) *ir.Value {
	return k.F.AddParam(name, ir.ScalarOf(d), nil).Value
}

// op appends an instruction with one result of type t (nil: none).
func (k *Builder) Op(op ir.Op, t ir.Type, attrs map[string]any, args ...*ir.Value) *ir.Value {
	var in *ir.Instr
	if t == nil {
		in = k.F.NewInstr(op, args)
	} else {
		in = k.F.NewInstr(op, args, t)
	}
	for key, v := range attrs {
		in.Attrs.Set(key, v)
	}
	k.B.Append(in)
	if t == nil {
		return nil
	}
	return in.Result()
}

func (k *Builder) CInt(v int64) *ir.Value {
	return k.Op(ir.OpConst, ir.ScalarOf(ir.I32), map[string]any{"value": v})
}

func (k *Builder) CFloat(d ir.DType, v float64) *ir.Value {
	return k.Op(ir.OpConst, ir.ScalarOf(d), map[string]any{"value": v})
}

func (k *Builder) Bin(op ir.Op, x, y *ir.Value) *ir.Value { return k.Op(op, x.Type, nil, x, y) }

func (k *Builder) Load(a *ir.Value, shape []int, pad string, idx ...*ir.Value) *ir.Value {
	return k.Op(ir.OpLoad, ir.TileOf(a.Type.Elem(), shape...), map[string]any{"pad": pad},
		append([]*ir.Value{a}, idx...)...)
}

func (k *Builder) Store(a *ir.Value, t *ir.Value, idx ...*ir.Value) {
	args := append([]*ir.Value{a}, idx...)
	k.Op(ir.OpStore, nil, nil, append(args, t)...)
}

func (k *Builder) Ret() *ir.Func {
	k.Op(ir.OpReturn, nil, nil)
	return k.F
}

// forLoop appends a for over [lo, hi) by step carrying inits; body gets the
// induction variable and the carried values and returns the next ones.
func (k *Builder) ForLoop(lo, hi, step *ir.Value, inits []*ir.Value, body func(iv *ir.Value, c []*ir.Value) []*ir.Value) []*ir.Value {
	types := make([]ir.Type, len(inits))
	for i, v := range inits {
		types[i] = v.Type
	}
	in := k.F.NewInstr(ir.OpFor, append([]*ir.Value{lo, hi, step}, inits...), types...)
	r := in.NewRegion()
	iv := k.F.AddBlockParam(r, lo.Type)
	var carried []*ir.Value
	for _, t := range types {
		carried = append(carried, k.F.AddBlockParam(r, t))
	}
	outer := k.B
	k.B = r
	next := body(iv, carried)
	k.Op(ir.OpYield, nil, nil, next...)
	k.B = outer
	k.B.Append(in)
	return in.Results
}

func Sym(s string) *ir.HostExpr   { return &ir.HostExpr{Op: ir.HostSym, Sym: s} }
func HConst(v int64) *ir.HostExpr { return &ir.HostExpr{Op: ir.HostConst, Val: v} }
func HOp(op ir.HostOp, a, b *ir.HostExpr) *ir.HostExpr {
	return &ir.HostExpr{Op: op, Args: []*ir.HostExpr{a, b}}
}

// cdivIR is ceil(x / c) as the builder expresses it: (x + c-1) // c.
func (k *Builder) CdivIR(x *ir.Value, c int64) *ir.Value {
	return k.Bin(ir.OpFloorDiv, k.Bin(ir.OpAdd, x, k.CInt(c-1)), k.CInt(c))
}

// Matmul mirrors testdata/kernels/matmul.tile: swizzled 2-D tiles of C, a K
// loop of load/load/mma in f32, convert, store.
func Matmul(dt ir.DType, tm, tn, tk, group int) *ir.Func {
	k := NewBuilder("matmul")
	A := k.Array("A", dt, "M", "K")
	B := k.Array("B", dt, "K", "N")
	C := k.Array("C", dt, "M", "N")
	k.F.Grid[0] = HOp(ir.HostMul, &ir.HostExpr{Op: ir.HostCdiv, Args: []*ir.HostExpr{Sym("M"), HConst(int64(tm))}},
		&ir.HostExpr{Op: ir.HostCdiv, Args: []*ir.HostExpr{Sym("N"), HConst(int64(tn))}})
	i32 := ir.ScalarOf(ir.I32)
	bid := k.Op(ir.OpBlockID, i32, map[string]any{"axis": 0})
	M := k.Op(ir.OpDim, i32, map[string]any{"axis": 0}, A)
	K := k.Op(ir.OpDim, i32, map[string]any{"axis": 1}, A)
	N := k.Op(ir.OpDim, i32, map[string]any{"axis": 1}, B)
	numM := k.CdivIR(M, int64(tm))
	numN := k.CdivIR(N, int64(tn))
	G := k.CInt(int64(group))
	inGroup := k.Bin(ir.OpMul, G, numN)
	groupID := k.Bin(ir.OpFloorDiv, bid, inGroup)
	firstM := k.Bin(ir.OpMul, groupID, G)
	groupSize := k.Bin(ir.OpMin, k.Bin(ir.OpSub, numM, firstM), G)
	bidM := k.Bin(ir.OpAdd, firstM, k.Bin(ir.OpMod, bid, groupSize))
	bidN := k.Bin(ir.OpFloorDiv, k.Bin(ir.OpMod, bid, inGroup), groupSize)
	numK := k.CdivIR(K, int64(tk))
	acc := k.Op(ir.OpSplat, ir.TileOf(ir.F32, tm, tn), nil, k.CFloat(ir.F32, 0))
	res := k.ForLoop(k.CInt(0), numK, k.CInt(1), []*ir.Value{acc}, func(kk *ir.Value, c []*ir.Value) []*ir.Value {
		a := k.Load(A, []int{tm, tk}, ir.PadZero, bidM, kk)
		b := k.Load(B, []int{tk, tn}, ir.PadZero, kk, bidN)
		return []*ir.Value{k.Op(ir.OpMMA, c[0].Type, nil, a, b, c[0])}
	})
	out := k.Op(ir.OpConvert, ir.TileOf(dt, tm, tn), nil, res[0])
	k.Store(C, out, bidM, bidN)
	return k.Ret()
}

// CopyTile loads a (tm x tn) tile of A at tile index (bid0, bid1) with pad
// and stores it into C at the same tile index.
func CopyTile(d ir.DType, tm, tn int, pad string) *ir.Func {
	k := NewBuilder("copy")
	A := k.Array("A", d, "M", "N")
	C := k.Array("C", d, "M2", "N2")
	k.F.Grid[0] = &ir.HostExpr{Op: ir.HostCdiv, Args: []*ir.HostExpr{Sym("M2"), HConst(int64(tm))}}
	k.F.Grid[1] = &ir.HostExpr{Op: ir.HostCdiv, Args: []*ir.HostExpr{Sym("N2"), HConst(int64(tn))}}
	i32 := ir.ScalarOf(ir.I32)
	b0 := k.Op(ir.OpBlockID, i32, map[string]any{"axis": 0})
	b1 := k.Op(ir.OpBlockID, i32, map[string]any{"axis": 1})
	t := k.Load(A, []int{tm, tn}, pad, b0, b1)
	k.Store(C, t, b0, b1)
	return k.Ret()
}
