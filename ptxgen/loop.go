package ptxgen

import (
	"maps"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/lower"
)

// movOp is the move instruction for registers of class c.
func movOp(c RegClass) string { return "mov" + classInfo[c].decl }

// allocLike allocates registers to hold a value of v's type (a loop-carried
// value or an if result).
func (e *emitter) allocLike(v *ir.Value) *value {
	switch t := v.Type.(type) {
	case *ir.Scalar:
		return &value{reg: e.newReg(classOf(t.DType))}
	case *ir.Tile:
		lay := e.layout(v)
		if lay.Kind == ir.LayoutSmem {
			e.fail("shared-memory tiles cannot be loop-carried or if results")
		}
		class := classOf(t.DType)
		if lay.IsOperand() {
			class = B32 // mma fragments: packed pairs or tf32 in b32 registers
		}
		regs := make([]Reg, lay.NumRegs())
		for r := range regs {
			if c := lay.CanonicalReg(r); c != r {
				regs[r] = regs[c]
			} else {
				regs[r] = e.newReg(class)
			}
		}
		return &value{regs: regs, lay: lay}
	}
	e.fail("%s cannot be loop-carried", v.Type)
	return nil
}

// parallelCopy moves srcs into dsts (same shapes) as if all at once.
func (e *emitter) parallelCopy(dsts, srcs []*value) {
	type mv struct{ d, s Reg }
	var moves []mv
	for i := range dsts {
		if dsts[i].regs == nil {
			moves = append(moves, mv{dsts[i].reg, srcs[i].reg})
			continue
		}
		for r := range dsts[i].regs {
			if dsts[i].lay.CanonicalReg(r) != r {
				continue
			}
			moves = append(moves, mv{dsts[i].regs[r], srcs[i].regs[r]})
		}
	}
	dset := map[Reg]bool{}
	for _, m := range moves {
		dset[m.d] = true
	}
	conflict := false
	for _, m := range moves {
		if m.s != m.d && dset[m.s] {
			conflict = true
		}
	}
	if conflict {
		tmp := make([]Reg, len(moves))
		for i, m := range moves {
			tmp[i] = e.newReg(m.s.Class)
			e.emit(movOp(m.s.Class), tmp[i], m.s)
		}
		for i, m := range moves {
			e.emit(movOp(m.d.Class), m.d, tmp[i])
		}
		return
	}
	for _, m := range moves {
		if m.s != m.d {
			e.emit(movOp(m.d.Class), m.d, m.s)
		}
	}
}

func (e *emitter) valuesOf(vs []*ir.Value) []*value {
	out := make([]*value, len(vs))
	for i, v := range vs {
		out[i] = e.vals[v]
		if out[i] == nil {
			e.fail("internal: %s has no value", v)
		}
	}
	return out
}

// emitIfOp emits an if with a uniform scalar condition.
func (e *emitter) emitIfOp(in *ir.Instr) {
	c := e.condReg(in.Args[0])
	if c.Class != Pred {
		p := e.newReg(Pred)
		e.emit("setp.ne"+"."+ptype(in.Args[0].Type.Elem()), p, c, Imm(0))
		c = p
	}
	res := make([]*value, len(in.Results))
	shared := map[*ir.Value]bool{}
	inside := usesInside(in)
	for i, r := range in.Results {
		if v := e.passedThrough(in, i, inside); v != nil && !shared[v] {
			// The result takes over the registers of a value a branch
			// passes through unchanged, so that branch copies nothing
			// (a mask applied to some loop iterations only).
			shared[v] = true
			res[i] = e.vals[v]
			continue
		}
		res[i] = e.allocLike(r)
	}
	elseL, endL := e.newLabel("else"), e.newLabel("endif")
	e.emitIf(c, true, "bra.uni", Label(elseL))
	for ri, b := range in.Regions {
		saved := e.inv
		if e.hoist == nil {
			// Values computed inside a branch do not dominate later code.
			e.inv = maps.Clone(saved)
		}
		e.block(b)
		e.inv = saved
		y := b.Instrs[len(b.Instrs)-1]
		e.parallelCopy(res, e.valuesOf(y.Args))
		if ri == 0 {
			e.emit("bra.uni", Label(endL))
			e.label(elseL)
		}
	}
	e.label(endL)
	for i, r := range in.Results {
		e.vals[r] = res[i]
	}
}

// passedThrough returns the tile value that a branch of if yields as its
// result i, when the result may live in that value's registers: the value
// is computed just before the if, in its block, owns its registers (no
// other value shares them), has the result's layout, and is used nowhere
// but inside the if (inside counts those uses), so nothing reads those
// registers once the other branch has written its own result into them
// (at its end, after any read of the value inside it). nil otherwise.
func (e *emitter) passedThrough(in *ir.Instr, i int, inside map[*ir.Value]int) *ir.Value {
	for _, b := range in.Regions {
		y := b.Instrs[len(b.Instrs)-1]
		if i >= len(y.Args) {
			continue
		}
		v := y.Args[i]
		x := e.vals[v]
		if v.Def == nil || v.Def.Block != in.Block || x == nil || x.regs == nil || !e.ownsRegs(v) {
			continue
		}
		if lay := e.layout(in.Results[i]); lay.Kind == ir.LayoutSmem || !lower.SameLayout(x.lay, lay) {
			continue
		}
		if inside[v] == e.useCount(v) {
			return v
		}
	}
	return nil
}

// usesInside counts the operands naming each value in the regions of in.
func usesInside(in *ir.Instr) map[*ir.Value]int {
	n := map[*ir.Value]int{}
	for _, r := range in.Regions {
		r.Walk(func(u *ir.Instr) {
			for _, a := range u.Args {
				n[a]++
			}
		})
	}
	return n
}

// condReg is the register of an if or while condition: a scalar's, or a
// rank-0 tile's one element, which every thread holds (lower's rank-0
// layout), so a branch on it stays uniform.
func (e *emitter) condReg(c *ir.Value) Reg {
	cv := e.vals[c]
	if len(cv.regs) > 0 {
		return cv.regs[0]
	}
	return cv.reg
}

// definedIn reports whether v is defined in block b or a block nested in it.
func definedIn(v *ir.Value, b *ir.Block) bool {
	var blk *ir.Block
	if v.Def != nil {
		blk = v.Def.Block
	} else {
		blk = v.Block
	}
	for blk != nil {
		if blk == b {
			return true
		}
		if blk.Parent == nil {
			return false
		}
		blk = blk.Parent.Block
	}
	return false
}

// loopCond sets p to whether iv is still inside the range.
func (e *emitter) loopCond(iv, hi, step Reg, stepV *ir.Value, t string) Reg {
	p := e.newReg(Pred)
	if c, ok := constInt(stepV); ok {
		if c > 0 {
			e.emit("setp.lt."+t, p, iv, hi)
		} else {
			e.emit("setp.gt."+t, p, iv, hi)
		}
		return p
	}
	pos := e.newReg(Pred)
	e.emit("setp.gt."+t, pos, step, Imm(0))
	a := e.newReg(Pred)
	e.emit("setp.lt."+t, a, iv, hi)
	b := e.newReg(Pred)
	e.emit("setp.gt."+t, b, iv, hi)
	e.emit("and.pred", a, a, pos)
	npos := e.newReg(Pred)
	e.emit("not.pred", npos, pos)
	e.emit("and.pred", b, b, npos)
	e.emit("or.pred", p, a, b)
	return p
}

func constInt(v *ir.Value) (int64, bool) {
	if v.Def == nil || v.Def.Op != ir.OpConst {
		return 0, false
	}
	x, ok := v.Def.Attrs.Get(ir.AttrKeyValue).(int64)
	return x, ok
}

// emitFor emits a counted loop. Pipelining is in the IR already (lower's
// pipeline pass): the ring slots and fragments it carries are ordinary
// carried values.
func (e *emitter) emitFor(in *ir.Instr) {
	if e.hoist != nil {
		e.emitLoop(in)
		return
	}
	// Outermost loop: collect its invariants in a preheader. A loop that
	// pipelines copies keeps them to itself: code after it computes its
	// own, so that no invariant is live across the loop into the epilogue
	// (docs/perf.md, v6: such values pushed the copy loops into spills).
	if pipelinesCopies(in) {
		saved := e.inv
		e.inv = maps.Clone(saved)
		defer func() { e.inv = saved }()
	}
	e.withPreheader(func() { e.emitLoop(in) })
}

// pipelinesCopies reports whether loop in issues async copies in its body.
func pipelinesCopies(in *ir.Instr) bool {
	for _, x := range in.Regions[0].Instrs {
		if x.Op == ir.OpAsyncCopy {
			return true
		}
	}
	return false
}

// withPreheader runs emit with invariants going to a preheader of its own
// (see invariant), and appends the preheader and then what emit wrote.
func (e *emitter) withPreheader(emit func()) {
	savedHoist, savedCur := e.hoist, e.cur
	var pre, loop []Instr
	e.hoist, e.cur = &pre, &loop
	emit()
	e.hoist, e.cur = savedHoist, savedCur
	*e.cur = append(append(*e.cur, pre...), loop...)
}

func (e *emitter) emitLoop(in *ir.Instr) {
	body := in.Regions[0]
	carried := make([]*value, len(in.Results))
	for i := range in.Results {
		carried[i] = e.allocLike(body.Params[1+i])
	}
	e.parallelCopy(carried, e.valuesOf(in.Args[3:]))
	for i, p := range body.Params[1:] {
		e.vals[p] = carried[i]
	}
	lo, hi, step := e.vals[in.Args[0]].reg, e.vals[in.Args[1]].reg, e.vals[in.Args[2]].reg
	ivT := body.Params[0].Type.Elem()
	t := ptype(ivT)
	ivC := classOf(ivT)
	iv := e.newReg(ivC)
	e.emit(movOp(ivC), iv, lo)
	e.vals[body.Params[0]] = &value{reg: iv}
	loopL, endL := e.newLabel("loop"), e.newLabel("endloop")
	p := e.loopCond(iv, hi, step, in.Args[2], t)
	e.emitIf(p, true, "bra.uni", Label(endL))
	e.label(loopL)
	e.block(body)
	y := body.Instrs[len(body.Instrs)-1]
	e.parallelCopy(carried, e.valuesOf(y.Args))
	e.emit("add."+t, iv, iv, step)
	p2 := e.loopCond(iv, hi, step, in.Args[2], t)
	e.emitIf(p2, false, "bra.uni", Label(loopL))
	e.label(endL)
	for i, r := range in.Results {
		e.vals[r] = carried[i]
	}
}

// emitWhile emits a while loop: the condition region at the top (a
// uniform scalar: every thread takes the same branch), the body, and a
// branch back. Both regions' parameters are the carried registers.
func (e *emitter) emitWhile(in *ir.Instr) {
	if e.hoist != nil {
		e.emitWhileLoop(in)
		return
	}
	e.withPreheader(func() { e.emitWhileLoop(in) })
}

func (e *emitter) emitWhileLoop(in *ir.Instr) {
	cond, body := in.Regions[0], in.Regions[1]
	carried := make([]*value, len(in.Results))
	for i := range in.Results {
		carried[i] = e.allocLike(body.Params[i])
	}
	e.parallelCopy(carried, e.valuesOf(in.Args))
	for i := range carried {
		e.vals[cond.Params[i]] = carried[i]
		e.vals[body.Params[i]] = carried[i]
	}
	loopL, endL := e.newLabel("while"), e.newLabel("endwhile")
	e.label(loopL)
	e.block(cond)
	y := cond.Instrs[len(cond.Instrs)-1]
	p := e.condReg(y.Args[0])
	if p.Class != Pred {
		q := e.newReg(Pred)
		e.emit("setp.ne."+ptype(y.Args[0].Type.Elem()), q, p, Imm(0))
		p = q
	}
	e.emitIf(p, true, "bra.uni", Label(endL))
	e.block(body)
	y = body.Instrs[len(body.Instrs)-1]
	e.parallelCopy(carried, e.valuesOf(y.Args))
	e.emit("bra.uni", Label(loopL))
	e.label(endL)
	for i, r := range in.Results {
		e.vals[r] = carried[i]
	}
}
