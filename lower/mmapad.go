package lower

// mmapad.go: pass pad. An mma whose tile is smaller than the tensor-core
// instruction's (M or N below 16, K below the k-step: a decode GEMM of one
// query row, a flash-decode score tile of 8 keys) runs as the smallest
// mma the instruction allows: its operands and accumulator are inserted
// into zero tiles of that shape, and its result is the extract of the
// original shape from the padded product. Padded rows and columns of the
// product are dropped by the extract, and padding along K adds exact
// zeros to every sum, so each result is the unpadded mma's (up to the sign
// of a zero sum: -0 + +0 is +0; integer sums are exact).
//
// Requires: fold (shapes are constants).
// Guarantees: every 2-D mma with float, int8 or uint8 inputs has M and N
// multiples of 16 and K a multiple of the k-step, or dimensions that are
// not powers of two below them (check reports those); the padding costs
// one exchange through the scratch region per padded operand and one for
// the result (insert and extract), which for the small tiles this is for
// is little against the loads.

import "github.com/tilec/tilec/ir"

// PadMMA is the pad pass.
func PadMMA(f *ir.Func, t *Target) error {
	var mmas []*ir.Instr
	f.Body.Walk(func(in *ir.Instr) {
		if in.Op == ir.OpMMA {
			mmas = append(mmas, in)
		}
	})
	for _, in := range mmas {
		padMMA(f, in)
	}
	return nil
}

// padTo is n rounded up to m when n is a power of two below m (which then
// divides m), else n (already a multiple, or a shape check rejects).
func padTo(n, m int) int {
	if n < m && n > 0 && n&(n-1) == 0 {
		return m
	}
	return n
}

func padMMA(f *ir.Func, in *ir.Instr) {
	at, aok := in.Args[0].Type.(*ir.Tile)
	bt, bok := in.Args[1].Type.(*ir.Tile)
	ct, cok := in.Args[2].Type.(*ir.Tile)
	if !aok || !bok || !cok || at.Rank() != 2 || bt.Rank() != 2 || ct.Rank() != 2 || !(at.DType.IsFloat() || at.DType.IsByteInt()) {
		return
	}
	m, k, n := at.Shape[0], at.Shape[1], bt.Shape[1]
	pm, pk, pn := padTo(m, 16), padTo(k, ir.MMAKStep(at.DType)), padTo(n, 16)
	if pm == m && pk == k && pn == n {
		return
	}
	s := &seq{f: f}
	s.pos.Pos = in.Pos
	zero := s.i32(0)
	pad := func(v *ir.Value, rows, cols int, acc bool) *ir.Value {
		t := v.Type.(*ir.Tile)
		if t.Shape[0] == rows && t.Shape[1] == cols {
			return v
		}
		if d := v.Def; acc && d != nil && d.Op == ir.OpSplat {
			// A splat accumulator (the zero one) is the same splat,
			// larger: its padding rows and columns are dropped with the
			// result's. (An operand's padding along K must be zero.)
			return s.op(ir.OpSplat, []*ir.Value{d.Args[0]}, ir.TileOf(t.DType, rows, cols))
		}
		z := s.op(ir.OpConst, nil, ir.ScalarOf(t.DType), ir.AttrKeyValue, zeroValue(t.DType))
		big := s.op(ir.OpSplat, []*ir.Value{z}, ir.TileOf(t.DType, rows, cols))
		return s.op(ir.OpInsert, []*ir.Value{big, v, zero, zero}, big.Type)
	}
	a := pad(in.Args[0], pm, pk, false)
	b := pad(in.Args[1], pk, pn, false)
	c := pad(in.Args[2], pm, pn, true)
	res := in.Result()
	prod := s.op(ir.OpMMA, []*ir.Value{a, b, c}, ir.TileOf(res.Type.Elem(), pm, pn))
	out := res
	if pm != m || pn != n {
		out = s.op(ir.OpExtract, []*ir.Value{prod, zero, zero}, res.Type)
	} else {
		out = prod
	}
	replaceUses(f, res, out)
	replaceInstr(in, s.out)
}

// zeroValue is the attribute value of a constant zero of dtype d.
func zeroValue(d ir.DType) any {
	if d.IsFloat() {
		return 0.0
	}
	return int64(0)
}
