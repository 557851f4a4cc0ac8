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
		if lay.Kind == "smem" {
			e.fail("shared-memory tiles cannot be loop-carried or if results")
		}
		regs := make([]Reg, lay.NumRegs())
		for r := range regs {
			if c := lay.CanonicalReg(r); c != r {
				regs[r] = regs[c]
			} else {
				regs[r] = e.newReg(classOf(t.DType))
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
	c := e.vals[in.Args[0]].reg
	if c.Class != Pred {
		p := e.newReg(Pred)
		e.emit("setp.ne"+"."+ptype(in.Args[0].Type.Elem()), p, c, Imm(0))
		c = p
	}
	res := make([]*value, len(in.Results))
	for i, r := range in.Results {
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

// scalarAt computes scalar v with the loop's values substituted (for
// issuing a later iteration's loads).
func (e *emitter) scalarAt(v *ir.Value, body *ir.Block, subst map[*ir.Value]Reg) Reg {
	if r, ok := subst[v]; ok {
		return r
	}
	if !definedIn(v, body) {
		return e.vals[v].reg
	}
	if v.Def == nil {
		e.fail("internal: loop value %s cannot be recomputed", v)
	}
	for _, a := range v.Def.Args {
		if _, ok := subst[a]; !ok && definedIn(a, body) {
			subst[a] = e.scalarAt(a, body, subst)
		}
	}
	r := e.scalarOp(v.Def, subst)
	subst[v] = r
	return r
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
	x, ok := v.Def.Attrs.Get("value").(int64)
	return x, ok
}

// emitFor emits a counted loop. With stages S > 1 its smem loads are
// software-pipelined: the prologue issues iterations 0..S-2, and iteration
// k waits for its own tiles, then issues iteration k+S-1 into the ring slot
// that iteration k-1 has finished reading.
func (e *emitter) emitFor(in *ir.Instr) {
	if e.hoist == nil {
		// Outermost loop: collect its invariants in a preheader.
		e.withPreheader(func() { e.emitLoop(in) })
		return
	}
	e.emitLoop(in)
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
	stages := in.Attrs.Int("stages")
	var piped []*ir.Instr
	if stages > 1 {
		for _, x := range body.Instrs {
			if x.Op == ir.OpLoad && x.Attrs.Get("pipelined") == true {
				piped = append(piped, x)
			}
		}
	}
	switch {
	case len(piped) == 0:
		e.loopCore(in, body, carried, nil, stages)
	case e.variant != "":
		// A kernel variant (EmitVariants) has only one of the two loops:
		// the launcher checked the fast one's alignment (FastPathOK).
		e.copyMode = "slow"
		if e.variant == VariantFast {
			e.copyMode = "fast"
		}
		e.unswitchedCore(in, body, carried, piped, stages)
		e.copyMode = ""
	default:
		// Unswitch on the copy path: one loop with only cp.async copies
		// (one basic block, so ptxas can schedule copies among the mmas),
		// one with element-wise copies for unaligned arrays.
		fast := e.fastFlag(piped[0])
		for _, ld := range piped[1:] {
			q := e.newReg(Pred)
			e.emit("and.pred", q, fast, e.fastFlag(ld))
			fast = q
		}
		slowL, doneL := e.newLabel("slowloop"), e.newLabel("loopdone")
		e.emitIf(fast, true, "bra.uni", Label(slowL))
		e.copyMode = "fast"
		e.unswitchedCore(in, body, carried, piped, stages)
		e.emit("bra.uni", Label(doneL))
		e.label(slowL)
		e.copyMode = "slow"
		e.unswitchedCore(in, body, carried, piped, stages)
		e.copyMode = ""
		e.label(doneL)
	}
	for i, r := range in.Results {
		e.vals[r] = carried[i]
	}
}

// unswitchedCore emits one of the two copies of an unswitched loop. When
// the loop is the outermost one, its invariants go into a preheader of its
// own, after the branch, instead of the shared one before it: ptxas then
// sees no value live across both loops, so the slow loop's register
// pressure cannot push spills into the fast one (docs/perf.md, v6).
func (e *emitter) unswitchedCore(in *ir.Instr, body *ir.Block, carried []*value, piped []*ir.Instr, stages int) {
	if !e.outermostLoop(in) {
		e.loopCore(in, body, carried, piped, stages)
		return
	}
	savedInv := e.inv
	e.inv = maps.Clone(savedInv)
	e.withPreheader(func() { e.loopCore(in, body, carried, piped, stages) })
	e.inv = savedInv
}

// outermostLoop reports whether loop in is not nested in another loop.
func (e *emitter) outermostLoop(in *ir.Instr) bool {
	for b := in.Block; b != nil && b.Parent != nil; b = b.Parent.Block {
		if b.Parent.Op == ir.OpFor {
			return false
		}
	}
	return true
}

// slotBase is the shared address of ring slot `slot` of a load's tile.
func (e *emitter) slotBase(ld *ir.Instr, slot Operand) Reg {
	off := ld.Attrs.Int("smem")
	sb := ld.Attrs.Int("stage_bytes")
	r := e.newReg(B32)
	if imm, ok := slot.(Imm); ok {
		e.emit("add.u32", r, e.smemBase, Imm(int64(off)+int64(imm)*int64(sb)))
		return r
	}
	b := e.newReg(B32)
	e.emit("add.u32", b, e.smemBase, Imm(off))
	e.emit("mad.lo.u32", r, slot, Imm(sb), b)
	return r
}

// emitSmemLoadSync copies a tile to shared memory outside a pipelined loop.
func (e *emitter) emitSmemLoadSync(ld *ir.Instr) {
	base := e.slotBase(ld, Imm(0))
	e.emit("bar.sync", Imm(0)) // earlier readers of this buffer are done
	e.issueSmemLoad(ld, nil, map[*ir.Value]Reg{}, base)
	e.emit("cp.async.commit_group")
	e.emit("cp.async.wait_group", Imm(0))
	e.emit("bar.sync", Imm(0))
	e.vals[ld.Result()] = &value{smem: &smemVal{load: ld, base: base}}
}

// loopCore emits the prologue (for pipelined loads) and the loop itself.
func (e *emitter) loopCore(in *ir.Instr, body *ir.Block, carried []*value, piped []*ir.Instr, stages int) {
	lo, hi, step := e.vals[in.Args[0]].reg, e.vals[in.Args[1]].reg, e.vals[in.Args[2]].reg
	ivT := body.Params[0].Type.Elem()
	t := ptype(ivT)
	ivC := classOf(ivT)
	var rslot, wslot Reg
	if len(piped) > 0 {
		// Prologue: iterations 0..S-2 into slots 0..S-2.
		for s := 0; s < stages-1; s++ {
			ivs := e.newReg(ivC)
			e.emit("mad.lo."+t, ivs, step, Imm(s), lo)
			for _, ld := range piped {
				e.issueSmemLoad(ld, body, map[*ir.Value]Reg{body.Params[0]: ivs}, e.slotBase(ld, Imm(s)))
			}
			e.emit("cp.async.commit_group")
		}
		rslot = e.newReg(B32)
		e.emit("mov.u32", rslot, Imm(0))
		wslot = e.newReg(B32)
		e.emit("mov.u32", wslot, Imm(stages-1))
	}
	iv := e.newReg(ivC)
	e.emit(movOp(ivC), iv, lo)
	e.vals[body.Params[0]] = &value{reg: iv}
	loopL, endL := e.newLabel("loop"), e.newLabel("endloop")
	p := e.loopCond(iv, hi, step, in.Args[2], t)
	e.emitIf(p, true, "bra.uni", Label(endL))
	var pipe *mmaPipe
	// The slow (element-wise copy) loop does without the overlap: its
	// copies need the registers more (docs/perf.md, v6).
	if len(piped) > 0 && e.t.Tuning.OverlapStageWait && e.copyMode != "slow" && simpleMMABody(body) {
		// The wait for a stage moves into the previous iteration's last
		// mma k-step; the first wait happens here.
		e.emit("cp.async.wait_group", Imm(stages-2))
		e.emit("bar.sync", Imm(0))
		bases := map[*ir.Instr]Reg{}
		for _, ld := range piped {
			bases[ld] = e.slotBase(ld, rslot)
			e.vals[ld.Result()] = &value{smem: &smemVal{load: ld, base: bases[ld]}}
		}
		advance := func() {
			e.advanceSlots(stages, rslot, wslot)
			for _, ld := range piped {
				b := e.newReg(B32)
				e.emit("add.u32", b, e.smemBase, Imm(ld.Attrs.Int("smem")))
				e.emit("mad.lo.u32", bases[ld], rslot, Imm(ld.Attrs.Int("stage_bytes")), b)
			}
		}
		pipe = &mmaPipe{onLastK: func() {
			e.emit("cp.async.wait_group", Imm(stages-2))
			e.emit("bar.sync", Imm(0))
			advance()
		}}
		if late := mmaALoad(body); e.t.Tuning.EarlyStageWait && e.t.Tuning.FragmentDoubleBuffer && stages >= 3 && late != nil {
			// The stage wait moves before the last k-step's A fragments
			// (docs/perf.md, v8). Those reads of this iteration's slot
			// come after the barrier, so the next iteration must not
			// overwrite A's slot before its own barrier: A's copies are
			// issued last, after that barrier, and the group is
			// committed after the wait (hence stages-3).
			late := late
			pipe.late = late
			pipe.onWait = func() {
				e.emit("cp.async.wait_group", Imm(stages-3))
				e.emit("bar.sync", Imm(0))
			}
			pipe.onAdvance = advance
			pipe.onLastK = nil
		}
		e.mmaPipe = pipe
	}
	labelAt := len(*e.cur)
	e.label(loopL)
	if len(piped) > 0 && pipe == nil {
		e.emit("cp.async.wait_group", Imm(stages-2))
		e.emit("bar.sync", Imm(0))
		for _, ld := range piped {
			e.vals[ld.Result()] = &value{smem: &smemVal{load: ld, base: e.slotBase(ld, rslot)}}
		}
	}
	if len(piped) > 0 {
		// The next stage's copies, in parts that the mma spreads over its
		// k-steps (SpreadCopies); the last part commits the group.
		var ivn Reg
		haveIvn := false
		next := func() map[*ir.Value]Reg {
			if !haveIvn {
				ivn = e.newReg(ivC)
				e.emit("mad.lo."+t, ivn, step, Imm(stages-1), iv)
				haveIvn = true
			}
			return map[*ir.Value]Reg{body.Params[0]: ivn}
		}
		var parts []func()
		order := piped
		if pipe != nil && pipe.late != nil {
			// A's copies last: only they may follow the barrier.
			order = nil
			for _, ld := range piped {
				if ld != pipe.late {
					order = append(order, ld)
				}
			}
			order = append(order, pipe.late)
		}
		for _, ld := range order {
			ld := ld
			n := e.copyParts(ld)
			for q := 0; q < n; q++ {
				q := q
				parts = append(parts, func() { e.issueSmemLoadPart(ld, body, next(), e.slotBase(ld, wslot), q, n) })
			}
		}
		last := parts[len(parts)-1]
		parts[len(parts)-1] = func() { last(); e.emit("cp.async.commit_group") }
		e.pendingIssue = parts
		e.pendingEarly = len(parts)
		if pipe != nil && pipe.late != nil {
			e.pendingEarly = 0
			for _, ld := range piped {
				if ld != pipe.late {
					e.pendingEarly += e.copyParts(ld)
				}
			}
		}
	}
	e.block(body)
	e.mmaPipe = nil
	for _, f := range e.pendingIssue {
		f()
	}
	e.pendingIssue = nil
	if pipe != nil {
		if !pipe.used {
			e.fail("internal: pipelined mma loop without its mma")
		}
		rest := append([]Instr(nil), (*e.cur)[labelAt:]...)
		*e.cur = append(append((*e.cur)[:labelAt], pipe.pre...), rest...)
	}
	y := body.Instrs[len(body.Instrs)-1]
	e.parallelCopy(carried, e.valuesOf(y.Args))
	if len(piped) > 0 && pipe == nil {
		e.advanceSlots(stages, rslot, wslot)
	}
	e.emit("add."+t, iv, iv, step)
	p2 := e.loopCond(iv, hi, step, in.Args[2], t)
	e.emitIf(p2, false, "bra.uni", Label(loopL))
	e.label(endL)
	if len(piped) > 0 {
		// Drain the ring so that shared memory can be reused.
		e.emit("cp.async.wait_group", Imm(0))
		e.emit("bar.sync", Imm(0))
	}
}

// mmaALoad is the pipelined load whose tile is the A operand of the one
// mma of a simple mma loop body (through smem permutes), or nil.
func mmaALoad(body *ir.Block) *ir.Instr {
	for _, in := range body.Instrs {
		if in.Op != ir.OpMMA {
			continue
		}
		d := in.Args[0].Def
		for d != nil && d.Op == ir.OpPermute {
			d = d.Args[0].Def
		}
		if d != nil && d.Op == ir.OpLoad && d.Attrs.Get("pipelined") == true && d.Block == body {
			return d
		}
		return nil
	}
	return nil
}

// advanceSlots moves the ring's read and write slots on by one.
func (e *emitter) advanceSlots(stages int, slots ...Reg) {
	for _, s := range slots {
		n := e.newReg(B32)
		e.emit("add.u32", n, s, Imm(1))
		q := e.newReg(Pred)
		e.emit("setp.eq.u32", q, n, Imm(stages))
		e.emit("selp.b32", s, Imm(0), n, q)
	}
}

// simpleMMABody reports whether a pipelined loop body is only its smem
// loads (and transposes of them), one mma on them, and the yield: the
// shape whose stage wait can overlap the mma's last k-step.
func simpleMMABody(body *ir.Block) bool {
	mmas := 0
	for _, in := range body.Instrs {
		switch {
		case in.Op == ir.OpLoad && in.Attrs.Get("pipelined") == true:
		case in.Op == ir.OpPermute && lower.InSmem(in):
		case in.Op == ir.OpMMA:
			a := in.Args[0].Type.(*ir.Tile)
			if (a.DType != ir.F16 && a.DType != ir.BF16) || a.Shape[1] < 32 {
				return false // emitMMA pipelines only 16-bit inputs with >= 2 k-steps
			}
			mmas++
		case in.Op == ir.OpYield:
		default:
			return false
		}
	}
	return mmas == 1
}
