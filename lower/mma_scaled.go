package lower

// mma_scaled.go: pass scaled. GPUs before sm_100 have no block-scaled
// mma, so a 2-D mma_scaled %a, %sa, %b, %sb, %acc runs as K/32 float8 mmas,
// one per scale block, each into a zero float32 tile, added to the
// accumulator scaled by the block's two factors:
//
//	acc += mma(a[:, 32kb:32kb+32], b[32kb:32kb+32, :], 0) * (sa[:, kb] * sb[kb, :])
//
// The block's 32 products are exact and summed in float32; scaling that
// partial sum by a power of two is exact unless it leaves float32's normal
// range. So the result differs from the interpreter's (every scaled
// product added to the accumulator in turn) by float32 rounding order
// within the tolerance of a float8 GEMM, and at extreme scales: a factor
// product past 2^127 (or below 2^-149) is inf (zero) here even where the
// partial sum would have brought it back into range, and a zero partial
// sum times an infinite factor is NaN. A batched (3-D) mma_scaled stays
// and check refuses it.
//
// Requires: fold (shapes are constants).
// Guarantees: no 2-D mma_scaled is left; float8_e8m0fnu values are only
// loaded, stored, moved and converted to float32 (check holds the rest).

import "github.com/tilec/tilec/ir"

// ExpandScaled is the scaled pass.
func ExpandScaled(f *ir.Func, _ *Target) error {
	var scaled []*ir.Instr
	f.Body.Walk(func(in *ir.Instr) {
		if in.Op == ir.OpMMAScaled && in.Args[0].Type.(*ir.Tile).Rank() == 2 {
			scaled = append(scaled, in)
		}
	})
	for _, in := range scaled {
		expandScaled(f, in)
	}
	return nil
}

func expandScaled(f *ir.Func, in *ir.Instr) {
	a, sa, b, sb, acc := in.Args[0], in.Args[1], in.Args[2], in.Args[3], in.Args[4]
	at, bt := a.Type.(*ir.Tile), b.Type.(*ir.Tile)
	M, K, N := at.Shape[0], at.Shape[1], bt.Shape[1]
	blocks := K / ir.MMAScaledBlock
	s := &seq{f: f}
	s.pos.Pos = in.Pos
	zero := s.i32(0)
	zf := s.op(ir.OpConst, nil, ir.ScalarOf(ir.F32), ir.AttrKeyValue, 0.0)
	mn := ir.TileOf(ir.F32, M, N)
	part := func(x *ir.Value, i, j *ir.Value, rows, cols int) *ir.Value {
		if x.Type.(*ir.Tile).Shape[0] == rows && x.Type.(*ir.Tile).Shape[1] == cols {
			return x
		}
		return s.op(ir.OpExtract, []*ir.Value{x, i, j}, ir.TileOf(x.Type.Elem(), rows, cols))
	}
	for kb := 0; kb < blocks; kb++ {
		k := s.i32(int64(kb))
		ab := part(a, zero, k, M, ir.MMAScaledBlock)
		bb := part(b, k, zero, ir.MMAScaledBlock, N)
		p := s.op(ir.OpMMA, []*ir.Value{ab, bb, s.op(ir.OpSplat, []*ir.Value{zf}, mn)}, mn)
		sab := s.op(ir.OpConvert, []*ir.Value{part(sa, zero, k, M, 1)}, ir.TileOf(ir.F32, M, 1))
		sbb := s.op(ir.OpConvert, []*ir.Value{part(sb, k, zero, 1, N)}, ir.TileOf(ir.F32, 1, N))
		if M > 1 {
			sab = s.op(ir.OpBroadcast, []*ir.Value{sab}, mn)
		}
		if N > 1 {
			sbb = s.op(ir.OpBroadcast, []*ir.Value{sbb}, mn)
		}
		scale := s.op(ir.OpMul, []*ir.Value{sab, sbb}, mn)
		acc = s.op(ir.OpAdd, []*ir.Value{acc, s.op(ir.OpMul, []*ir.Value{p, scale}, mn)}, mn)
	}
	replaceUses(f, in.Result(), acc)
	replaceInstr(in, s.out)
}

// e8m0Ops are the ops the GPU runs on float8_e8m0fnu values: moving them
// and widening them to float32 (ptxgen/e8m0.go).
var e8m0Ops = map[ir.Op]bool{
	ir.OpLoad: true, ir.OpStore: true, ir.OpConvert: true, ir.OpConst: true, ir.OpSplat: true,
	ir.OpBroadcast: true, ir.OpReshape: true, ir.OpPermute: true, ir.OpExtract: true,
	ir.OpDim: true, ir.OpStride: true,
}

// checkScaled refuses what is left of block-scaled mma for the GPU: a
// batched mma_scaled (the scaled pass expands 2-D ones) and float8_e8m0fnu
// values in ops other than e8m0Ops.
func checkScaled(t *Target, in *ir.Instr) error {
	if in.Op == ir.OpMMAScaled {
		return unsupportedAt(t, in, "batched (3-D) mma_scaled is not supported on the GPU yet (2-D is)")
	}
	if e8m0Ops[in.Op] {
		return nil
	}
	for _, v := range append(append([]*ir.Value(nil), in.Args...), in.Results...) {
		if v.Type.Elem() == ir.F8E8M0 {
			return unsupportedAt(t, in, "%s: float8_e8m0fnu (mma_scaled's scale factors) is not supported on the GPU yet", in.Op)
		}
	}
	return nil
}
