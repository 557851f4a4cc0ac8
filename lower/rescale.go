package lower

// Rescale pass.
// Requires: layouts on every tile op (pass layout) and the schedule of the
// passes before it in Passes; it runs last, so that the loop matchers
// (warpspec, pipeline's one-mma loops, the k-steps) see the kernel's own
// ops and never an if it made.
// Guarantees: every x * s that rowRescale accepts is, in its place,
//
//	%one = const {value=1} : f32
//	%ones = splat %one {layout=L} : tile<...xf32>       (L: the scale's operand's layout)
//	%ok = cmp %t, %ones {layout=L, pred=eq} : tile<...xbool>
//	%all = vote_all %ok : bool
//	%r = if %all : tile<...xf32> { yield %x } else { %m = mul %x, %s ; yield %m }
//
// where %s = broadcast %t: a warp whose scales are all exactly 1 keeps x
// and skips the multiplications. Both arms give the same tile, whatever
// each warp votes: x * 1.0 is x for every float32 x when subnormals are
// kept (no ftz), so the rewrite does not change any result. (A NaN stays
// a NaN, though the GPU's multiplication returns its canonical NaN where
// the skip keeps x's bits.) That is what makes the warp-uniform vote
// legal here (ir.OpVoteAll) and why the interpreter may evaluate it over
// the whole tile.
//
// It pays where online softmax rescales its accumulator (attention's acc *
// alpha): the row maxima stop changing after a few key blocks, so most
// steps' alpha is 1 in every row, and a test, a vote and a branch stand
// against the many multiplications they skip. Only a float32 accumulator
// in the mma layout that a for loop carries and that dies at the
// multiplication qualifies (ptxgen then updates its registers in place),
// and only a scale broadcast from at most maxRescaleRegs registers a
// thread (a 32-row warp tile holds 4 rows' scales), so that the test is a
// few instructions a step.

import "github.com/tilec/tilec/ir"

// maxRescaleRegs bounds the distinct scale registers a thread tests.
const maxRescaleRegs = 8

// RowRescale is the rescale pass.
func RowRescale(f *ir.Func, _ *Target) error {
	uses := Uses(f)
	var muls []*ir.Instr
	f.Body.Walk(func(in *ir.Instr) {
		if in.Op == ir.OpMul {
			muls = append(muls, in)
		}
	})
	for _, in := range muls {
		if xi, t, ok := rowRescale(in, uses); ok {
			rewriteRescale(f, in, xi, t)
		}
	}
	return nil
}

// rowRescale reports whether mul in is an accumulator rescale (see the
// file comment): operand xi is the carried accumulator, the other a
// broadcast of t, the tile whose elements the thread tests.
func rowRescale(in *ir.Instr, uses map[*ir.Value][]*ir.Instr) (xi int, t *ir.Value, ok bool) {
	res := in.Result()
	if res.Type.Elem() != ir.F32 || in.Attrs.Get(ir.AttrKeyFTZ) == true {
		return 0, nil, false
	}
	lay, err := LayoutOf(res)
	if err != nil || lay == nil || lay.Kind != ir.LayoutMMA {
		return 0, nil, false
	}
	for xi := range 2 {
		x, sc := in.Args[xi], in.Args[1-xi]
		carried := x.Def == nil && x.Block != nil && x.Block.Parent != nil && x.Block.Parent.Op == ir.OpFor
		if !carried || x.Type.Elem() != ir.F32 || sc.Type.Elem() != ir.F32 || len(uses[x]) != 1 ||
			sc.Def == nil || sc.Def.Op != ir.OpBroadcast {
			continue
		}
		xl, err := LayoutOf(x)
		if err != nil || !SameLayout(xl, lay) || !ownRegisters(xl) {
			continue
		}
		n, ok := scaleRegisters(sc.Def)
		if ok && n <= maxRescaleRegs {
			return xi, sc.Def.Args[0], true
		}
	}
	return 0, nil, false
}

// ownRegisters reports whether a value in layout l has a register of its
// own for every register index (no index copies another): a carried tile
// then owns its registers, and ptxgen may update them in place.
func ownRegisters(l *Layout) bool {
	for r := range l.NumRegs() {
		if l.CanonicalReg(r) != r {
			return false
		}
	}
	return true
}

// scaleRegisters is the number of distinct registers of broadcast bc's
// operand that a thread's registers of the broadcast read (ptxgen's
// emitDerived gives the broadcast those registers), when both are
// register tiles with the same register count as the accumulator's.
func scaleRegisters(bc *ir.Instr) (int, bool) {
	sl, err := LayoutOf(bc.Result())
	if err != nil || sl == nil || sl.Kind == ir.LayoutSmem {
		return 0, false
	}
	tl, err := LayoutOf(bc.Args[0])
	if err != nil || tl == nil || tl.Kind == ir.LayoutSmem {
		return 0, false
	}
	want, err := OperandLayout(bc, sl)
	if err != nil {
		return 0, false
	}
	m, ok := RegisterMap(tl, want)
	if !ok {
		return 0, false
	}
	distinct := map[int]bool{}
	for _, s := range m {
		distinct[tl.CanonicalReg(s)] = true
	}
	return len(distinct), len(distinct) > 0
}

// rewriteRescale puts the test, the vote and the if in place of mul in.
func rewriteRescale(f *ir.Func, in *ir.Instr, xi int, t *ir.Value) {
	x := in.Args[xi]
	tl, _ := LayoutOf(t)
	tt := t.Type.(*ir.Tile)
	s := &seq{f: f}
	s.pos.Pos = in.Pos
	one := s.op(ir.OpConst, nil, ir.ScalarOf(ir.F32), ir.AttrKeyValue, 1.0)
	ones := s.op(ir.OpSplat, []*ir.Value{one}, tt)
	setLayoutAttrs(ones.Def, tl)
	ok := s.op(ir.OpCmp, []*ir.Value{t, ones}, ir.TileOf(ir.Bool, tt.Shape...), ir.AttrKeyPred, ir.PredEQ)
	setLayoutAttrs(ok.Def, tl)
	all := s.op(ir.OpVoteAll, []*ir.Value{ok}, ir.ScalarOf(ir.Bool))
	iff := s.add(f.NewInstr(ir.OpIf, []*ir.Value{all}, in.Result().Type))
	keep := iff.NewRegion()
	keep.Append(f.NewInstr(ir.OpYield, []*ir.Value{x})).Pos = in.Pos
	scale := iff.NewRegion()
	replaceInstr(in, s.out)
	replaceUses(f, in.Result(), iff.Result())
	scale.Append(in)
	scale.Append(f.NewInstr(ir.OpYield, []*ir.Value{in.Result()})).Pos = in.Pos
}
