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

// emitIfOp emits an if with a uniform scalar condition (or one uniform
// within each warp: vote_all's). Each arm ends with the copies of its
// yielded values into the result registers; an arm that comes to no
// instructions at all (it passes through values whose registers the
// results took over) costs no branch of its own: the other arm is skipped
// with one branch on the condition.
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
			// (a mask applied to some loop iterations only, a rescale
			// that most steps skip).
			shared[v] = true
			res[i] = e.vals[v]
			continue
		}
		res[i] = e.allocLike(r)
	}
	elseL, endL := e.newLabel("else"), e.newLabel("endif")
	var arms [2][]Instr
	for ri, b := range in.Regions {
		saved, savedCur := e.inv, e.cur
		if e.hoist == nil {
			// Values computed inside a branch do not dominate later code.
			e.inv = maps.Clone(saved)
		}
		e.cur = &arms[ri]
		start := e.nreg
		e.block(b)
		e.inv = saved
		y := b.Instrs[len(b.Instrs)-1]
		e.armCopy(&arms[ri], start, res, e.valuesOf(y.Args), shared)
		e.cur = savedCur
	}
	switch {
	case len(arms[0]) == 0 && len(arms[1]) == 0:
	case len(arms[0]) == 0:
		e.emitIf(c, false, "bra.uni", Label(endL))
		*e.cur = append(*e.cur, arms[1]...)
		e.label(endL)
	case len(arms[1]) == 0:
		e.emitIf(c, true, "bra.uni", Label(endL))
		*e.cur = append(*e.cur, arms[0]...)
		e.label(endL)
	default:
		e.emitIf(c, true, "bra.uni", Label(elseL))
		*e.cur = append(*e.cur, arms[0]...)
		e.emit("bra.uni", Label(endL))
		e.label(elseL)
		*e.cur = append(*e.cur, arms[1]...)
		e.label(endL)
	}
	for i, r := range in.Results {
		e.vals[r] = res[i]
	}
}

// armCopy ends an if arm, whose instructions are *arm, with the copy of
// its yielded values srcs into the result registers dsts. Where a result
// took over the registers of a loop-carried value the if consumes
// (shared; see passedThrough), a register that the arm computed
// (allocated after start) and that goes to one such result register d is
// renamed d in the arm instead of copied, when d is read nowhere in the
// arm but by the instruction that computes it (and nowhere by the copy):
// the arm then updates the value in place, as x = x * s does.
func (e *emitter) armCopy(arm *[]Instr, start [numClasses]int, dsts, srcs []*value, shared map[*ir.Value]bool) {
	inPlace := map[Reg]bool{} // result registers taken over from a consumed carried value
	for v := range shared {
		if v.Def != nil {
			// A value computed before the if keeps its copies (its PTX
			// as it was; ptxas removes them).
			continue
		}
		for _, r := range e.vals[v].regs {
			inPlace[r] = true
		}
	}
	type mv struct{ d, s Reg }
	var moves []mv
	srcCount := map[Reg]int{}
	for i := range dsts {
		if dsts[i].regs == nil {
			moves = append(moves, mv{dsts[i].reg, srcs[i].reg})
			srcCount[srcs[i].reg]++
			continue
		}
		for r := range dsts[i].regs {
			if dsts[i].lay.CanonicalReg(r) == r {
				moves = append(moves, mv{dsts[i].regs[r], srcs[i].regs[r]})
				srcCount[srcs[i].regs[r]]++
			}
		}
	}
	var restD, restS []*value
	for _, m := range moves {
		// Moves of a register to itself stay in the list: parallelCopy
		// emits nothing for them but counts their destinations, as it did
		// before renaming existed.
		if m.d != m.s && inPlace[m.d] && m.s.Class == m.d.Class && m.s.N > start[m.s.Class] && srcCount[m.s] == 1 &&
			srcCount[m.d] == 0 && e.renameInArm(*arm, m.s, m.d) {
			continue
		}
		restD = append(restD, &value{reg: m.d})
		restS = append(restS, &value{reg: m.s})
	}
	saved := e.cur
	e.cur = arm
	e.parallelCopy(restD, restS)
	e.cur = saved
}

// renameInArm renames register s to d in arm, when that is the same
// program: s is first named as the destination (first operand) of an
// instruction of arm that runs once, is named nowhere outside arm (not
// hoisted), and d is named in arm by that instruction alone, if at all
// (its old value is read there, before the write). It reports whether it
// renamed.
func (e *emitter) renameInArm(arm []Instr, s, d Reg) bool {
	first := -1
	for i := range arm {
		if names(&arm[i], s) {
			first = i
			break
		}
	}
	if first < 0 || len(arm[first].Args) == 0 || arm[first].Args[0] != Operand(s) {
		return false
	}
	for i := range arm {
		if i != first && names(&arm[i], d) {
			return false
		}
	}
	// The write must run once: no branch after it goes back to a label
	// before it (a loop around it would read d's new value the next time).
	before := map[Label]bool{}
	for _, in := range arm[:first] {
		if in.Label != "" && in.Op == "" {
			before[Label(in.Label)] = true
		}
	}
	for _, in := range arm[first+1:] {
		for _, a := range in.Args {
			if l, ok := a.(Label); ok && before[l] {
				return false
			}
		}
	}
	var outside []Instr
	if e.hoist != nil {
		outside = *e.hoist
	}
	for _, code := range [][]Instr{outside, e.entry} {
		for i := range code {
			if names(&code[i], s) {
				return false
			}
		}
	}
	for i := range arm[first:] {
		in := &arm[first+i]
		if !names(in, s) {
			continue
		}
		if in.Guard != nil && *in.Guard == s {
			g := d
			in.Guard = &g
		}
		args := make([]Operand, len(in.Args)) // Args may share an array with another instruction's
		for k, a := range in.Args {
			args[k] = renameOperand(a, s, d)
		}
		in.Args = args
	}
	return true
}

// names reports whether in names register r (as an operand, inside a
// vector or an address, or as its guard).
func names(in *Instr, r Reg) bool {
	if in.Guard != nil && *in.Guard == r {
		return true
	}
	for _, a := range in.Args {
		if operandNames(a, r) {
			return true
		}
	}
	return false
}

func operandNames(a Operand, r Reg) bool {
	switch x := a.(type) {
	case Reg:
		return x == r
	case Vec:
		for _, y := range x {
			if operandNames(y, r) {
				return true
			}
		}
	case Addr:
		return operandNames(x.Base, r)
	}
	return false
}

func renameOperand(a Operand, s, d Reg) Operand {
	switch x := a.(type) {
	case Reg:
		if x == s {
			return d
		}
	case Vec:
		y := make(Vec, len(x))
		for i, o := range x {
			y[i] = renameOperand(o, s, d)
		}
		return y
	case Addr:
		return Addr{Base: renameOperand(x.Base, s, d), Off: x.Off}
	}
	return a
}

// passedThrough returns the tile value that a branch of if yields as its
// result i, when the result may live in that value's registers: the value
// is computed just before the if, in its block, or is a tile that the for
// loop around the if carries (the loop's own registers), owns its
// registers (no other value shares them), has the result's layout, and is
// used nowhere but inside the if (inside counts those uses), so nothing
// reads those registers once the other branch has written its own result
// into them (at its end, after any read of the value inside it). nil
// otherwise.
func (e *emitter) passedThrough(in *ir.Instr, i int, inside map[*ir.Value]int) *ir.Value {
	for _, b := range in.Regions {
		y := b.Instrs[len(b.Instrs)-1]
		if i >= len(y.Args) {
			continue
		}
		v := y.Args[i]
		x := e.vals[v]
		before := v.Def != nil && v.Def.Block == in.Block
		carried := v.Def == nil && v.Block == in.Block && v.Block.Parent != nil && v.Block.Parent.Op == ir.OpFor
		if !before && !carried || x == nil || x.regs == nil || !e.ownsRegs(v) {
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
