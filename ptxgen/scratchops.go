package ptxgen

// Ops that move elements between threads through the scratch region (the
// smem pass reserves it: lower.ScratchBytes): cat, extract, insert and
// scan. Each writes its operand tiles row-major into scratch (every thread
// its elements; copies write the same values), synchronizes the threads
// that run it (exchangeBarrier: the block, or a role's named barrier), and
// reads the elements of its result layout back. The barrier before the
// writes, where earlier users of the scratch may still be reading, is a
// barrier op that lower's barriers pass placed.
//
// scan reads, for each of its elements, the operand's elements along the
// axis up to it (from the end when reverse) in a loop over the axis,
// combining from the identity in the interpreter's order: each result is
// the interpreter's value, bit for bit.

import (
	"fmt"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/lower"
)

// strides are the row-major element strides of shape.
func strides(shape []int) []int {
	s := make([]int, len(shape))
	n := 1
	for d := len(shape) - 1; d >= 0; d-- {
		s[d] = n
		n *= shape[d]
	}
	return s
}

// linIn is the row-major linear index over shape of the part of a thread's
// coordinate in layout l that comes from its lane and warp.
func (e *emitter) linIn(l *lower.Layout, shape []int) Reg {
	tc := e.threadCoord(l)
	st := strides(shape)
	return e.invariant(fmt.Sprint("linIn", l.Shape, l.Lane, l.Warp, shape), func() Reg {
		acc := e.newReg(B32)
		e.emit("mov.u32", acc, Imm(0))
		for d := range tc {
			x := e.newReg(B32)
			e.emit("mad.lo.u32", x, tc[d], Imm(st[d]), acc)
			acc = x
		}
		return acc
	})
}

// scratchBase is scratch + linIn(l, shape)*slot (+ dyn bytes when set).
func (e *emitter) scratchBase(l *lower.Layout, shape []int, slot int, dyn *Reg) Reg {
	a := e.newReg(B32)
	e.emit("mad.lo.u32", a, e.linIn(l, shape), Imm(slot), e.scratch())
	if dyn != nil {
		b := e.newReg(B32)
		e.emit("add.u32", b, a, *dyn)
		a = b
	}
	return a
}

// tileToScratch writes register tile v into the scratch tile of the given
// shape, its element c at c + off (off a constant coordinate, dyn an extra
// run-time byte offset).
func (e *emitter) tileToScratch(v *ir.Value, shape []int, off []int, dyn *Reg) {
	x := e.vals[v]
	if x == nil || x.regs == nil {
		e.fail("internal: %s is not a register tile", v)
	}
	d := v.Type.Elem()
	slot := lower.ScratchSlot(d, false)
	base := e.scratchBase(x.lay, shape, slot, dyn)
	st := strides(shape)
	for r := range x.regs {
		if x.lay.CanonicalReg(r) != r {
			continue
		}
		rc := x.lay.RegCoord(r)
		n := 0
		for k := range rc {
			n += (rc[k] + off[k]) * st[k]
		}
		e.stShared(Addr{Base: base, Off: int64(n * slot)}, x.regs[r], d)
	}
}

// tileFromScratch reads the result of in (its layout) from the scratch tile
// of the given shape, its element c from c + off (+ dyn bytes).
func (e *emitter) tileFromScratch(res *ir.Value, shape []int, off []int, dyn *Reg) {
	lay := e.layout(res)
	d := res.Type.Elem()
	slot := lower.ScratchSlot(d, false)
	base := e.scratchBase(lay, shape, slot, dyn)
	st := strides(shape)
	regs := make([]Reg, lay.NumRegs())
	for r := range regs {
		if c := lay.CanonicalReg(r); c != r {
			regs[r] = regs[c]
			continue
		}
		rc := lay.RegCoord(r)
		n := 0
		for k := range rc {
			n += (rc[k] + off[k]) * st[k]
		}
		regs[r] = e.ldShared(Addr{Base: base, Off: int64(n * slot)}, d)
	}
	e.vals[res] = &value{regs: regs, lay: lay}
}

// gridOffset is the run-time byte offset in a scratch tile of shape of the
// subtile of shape sub at grid index idx: sum_d idx_d*sub_d*stride_d*slot.
func (e *emitter) gridOffset(idx []*ir.Value, sub, shape []int, slot int) *Reg {
	st := strides(shape)
	acc := e.newReg(B32)
	e.emit("mov.u32", acc, Imm(0))
	for d, v := range idx {
		r := e.vals[v].reg
		if v.Type.Elem().Bytes() == 8 {
			t := e.newReg(B32)
			e.emit("cvt.u32.u64", t, r)
			r = t
		}
		x := e.newReg(B32)
		e.emit("mad.lo.u32", x, r, Imm(sub[d]*st[d]*slot), acc)
		acc = x
	}
	return &acc
}

func tileShape(v *ir.Value) []int { return v.Type.(*ir.Tile).Shape }

// emitCat emits cat: a at 0 and b at a's extent along the axis.
func (e *emitter) emitCat(in *ir.Instr) {
	shape := tileShape(in.Result())
	axis := in.Axis()
	zero := make([]int, len(shape))
	off := make([]int, len(shape))
	off[axis] = tileShape(in.Args[0])[axis]
	e.tileToScratch(in.Args[0], shape, zero, nil)
	e.tileToScratch(in.Args[1], shape, off, nil)
	e.exchangeBarrier(in)
	e.tileFromScratch(in.Result(), shape, zero, nil)
}

// emitExtract emits extract: the subtile at a (run-time) grid index.
func (e *emitter) emitExtract(in *ir.Instr) {
	shape := tileShape(in.Args[0])
	sub := tileShape(in.Result())
	zero := make([]int, len(shape))
	dyn := e.gridOffset(in.Args[1:], sub, shape, lower.ScratchSlot(in.Result().Type.Elem(), false))
	e.tileToScratch(in.Args[0], shape, zero, nil)
	e.exchangeBarrier(in)
	e.tileFromScratch(in.Result(), shape, zero, dyn)
}

// emitInsert emits insert: the tile, then the subtile over it at its grid
// index (a barrier between, so that the subtile's writes come last).
func (e *emitter) emitInsert(in *ir.Instr) {
	shape := tileShape(in.Args[0])
	sub := tileShape(in.Args[1])
	zero := make([]int, len(shape))
	dyn := e.gridOffset(in.Args[2:], sub, shape, lower.ScratchSlot(in.Result().Type.Elem(), false))
	e.tileToScratch(in.Args[0], shape, zero, nil)
	e.exchangeBarrier(in)
	e.tileToScratch(in.Args[1], shape, zero, dyn)
	e.exchangeBarrier(in)
	e.tileFromScratch(in.Result(), shape, zero, nil)
}

// emitScan emits scan (cumsum, cumprod): the operand through scratch, then
// per result element a fold along the axis from the identity.
func (e *emitter) emitScan(in *ir.Instr) {
	x := in.Args[0]
	shape := tileShape(x)
	axis := in.Axis()
	reverse := in.Reverse()
	prod := in.Kind() == ir.ReduceProd
	xt := x.Type.Elem()
	acc := lower.ReduceAccType(xt)
	zero := make([]int, len(shape))
	e.tileToScratch(x, shape, zero, nil)
	e.exchangeBarrier(in)
	res := in.Result()
	lay := e.layout(res)
	slot := lower.ScratchSlot(xt, false)
	st := strides(shape)
	tc := e.threadCoord(lay)
	base := e.scratchBase(lay, shape, slot, nil)
	// Per canonical register: the element's coordinate along the axis, the
	// address of its line's first element, and the accumulator.
	type line struct {
		r         int
		pos, addr Reg
		acc       Reg
	}
	var lines []line
	for r := 0; r < lay.NumRegs(); r++ {
		if lay.CanonicalReg(r) != r {
			continue
		}
		rc := lay.RegCoord(r)
		pos := e.newReg(B32)
		e.emit("add.s32", pos, tc[axis], Imm(rc[axis]))
		n := 0
		for k := range rc {
			if k != axis {
				n += rc[k] * st[k]
			}
		}
		// base points at the thread's own coordinate: step back along the
		// axis to the line's start.
		back := e.newReg(B32)
		e.emit("mul.lo.u32", back, tc[axis], Imm(st[axis]*slot))
		addr := e.newReg(B32)
		e.emit("sub.u32", addr, base, back)
		a2 := e.newReg(B32)
		e.emit("add.u32", a2, addr, Imm(n*slot))
		ac := e.constReg(boolInt(prod), acc)
		lines = append(lines, line{r: r, pos: pos, addr: a2, acc: ac})
	}
	e.axisLoop("scan", shape[axis], st[axis]*slot, reverse, func(k, kb Reg) {
		for _, l := range lines {
			a := e.newReg(B32)
			e.emit("add.u32", a, l.addr, kb)
			v := e.convert(e.ldShared(Addr{Base: a}, xt), xt, acc)
			in := e.newReg(Pred)
			if reverse {
				e.emit("setp.ge.s32", in, k, l.pos)
			} else {
				e.emit("setp.le.s32", in, k, l.pos)
			}
			op := "add"
			if prod {
				op = "mul"
			}
			switch {
			case acc.IsFloat():
				op += ".rn." + ptype(acc)
			case prod:
				op += ".lo." + ptype(acc)
			default:
				op += "." + ptype(acc)
			}
			e.emitIf(in, false, op, l.acc, l.acc, v)
		}
	})
	regs := make([]Reg, lay.NumRegs())
	for _, l := range lines {
		regs[l.r] = e.normalize(e.convert(l.acc, acc, res.Type.Elem()), res.Type.Elem())
	}
	for r := range regs {
		if c := lay.CanonicalReg(r); c != r {
			regs[r] = regs[c]
		}
	}
	e.vals[res] = &value{regs: regs, lay: lay}
}

// emitGeneralReshape emits a reshape that moves elements between threads:
// the operand row-major into scratch, the result read row-major in its
// shape (the same linear order).
func (e *emitter) emitGeneralReshape(in *ir.Instr) {
	src, dst := tileShape(in.Args[0]), tileShape(in.Result())
	e.tileToScratch(in.Args[0], src, make([]int, len(src)), nil)
	e.exchangeBarrier(in)
	e.tileFromScratch(in.Result(), dst, make([]int, len(dst)), nil)
}

// emitFoldFn emits reduce_fn and scan_fn of one tile: the operand through
// scratch, then per result element a loop along the axis that applies the
// combiner region to (accumulator, element) from the identity, in the
// interpreter's order (ascending; from the end for a reverse scan). A scan
// keeps the new accumulator only up to its own position along the axis.
func (e *emitter) emitFoldFn(in *ir.Instr) {
	if len(in.Results) != 1 {
		e.fail("internal: %s of %d tiles reached ptxgen", in.Op, len(in.Results))
	}
	x := in.Args[0]
	shape := tileShape(x)
	axis := in.Axis()
	scan := in.Op == ir.OpScanFn
	reverse := scan && in.Reverse()
	xt := x.Type.Elem()
	zero := make([]int, len(shape))
	e.tileToScratch(x, shape, zero, nil)
	e.exchangeBarrier(in)
	res := in.Result()
	lay := e.layout(res)
	slot := lower.ScratchSlot(xt, false)
	st := strides(shape)
	// xCoord maps a result coordinate (thread or register part) to the
	// operand's: a reduction drops the axis.
	xCoord := func(c []int) []int {
		if scan {
			return c
		}
		out := make([]int, 0, len(shape))
		out = append(out, c[:axis]...)
		out = append(out, 0)
		return append(out, c[axis:]...)
	}
	tc := e.threadCoord(lay)
	// The thread's line start: sum over the non-axis dims of tc*stride.
	lineBase := e.newReg(B32)
	e.emit("mov.u32", lineBase, Imm(0))
	txc := make([]Reg, len(shape))
	{
		j := 0
		for d := range shape {
			if !scan && d == axis {
				continue
			}
			txc[d] = tc[j]
			j++
		}
	}
	for d := range shape {
		if d == axis || txc[d] == (Reg{}) {
			continue
		}
		n := e.newReg(B32)
		e.emit("mad.lo.u32", n, txc[d], Imm(st[d]*slot), lineBase)
		lineBase = n
	}
	lb := e.newReg(B32)
	e.emit("add.u32", lb, lineBase, e.scratch())
	type line struct {
		r         int
		pos, addr Reg
		acc       Reg
	}
	body := in.Regions[0]
	y := body.Instrs[len(body.Instrs)-1]
	var lines []line
	for r := 0; r < lay.NumRegs(); r++ {
		if lay.CanonicalReg(r) != r {
			continue
		}
		rc := xCoord(lay.RegCoord(r))
		n := 0
		for k := range rc {
			if k != axis {
				n += rc[k] * st[k]
			}
		}
		a := e.newReg(B32)
		e.emit("add.u32", a, lb, Imm(n*slot))
		var pos Reg
		if scan {
			pos = e.newReg(B32)
			e.emit("add.s32", pos, tc[axis], Imm(rc[axis]))
		}
		acc := e.newReg(classOf(xt))
		e.emit(movOp(acc.Class), acc, e.vals[in.Args[1]].reg)
		lines = append(lines, line{r: r, pos: pos, addr: a, acc: acc})
	}
	e.axisLoop("fold", shape[axis], st[axis]*slot, reverse, func(k, kb Reg) {
		for _, l := range lines {
			a := e.newReg(B32)
			e.emit("add.u32", a, l.addr, kb)
			v := e.ldShared(Addr{Base: a}, xt)
			// The combiner on (acc, v): its rank-0 tiles are scalar registers.
			e.vals[body.Params[0]] = &value{reg: l.acc}
			e.vals[body.Params[1]] = &value{reg: v}
			e.block(body)
			nv := e.operandReg(y.Args[0], 0)
			if scan {
				p := e.newReg(Pred)
				if reverse {
					e.emit("setp.ge.s32", p, k, l.pos)
				} else {
					e.emit("setp.le.s32", p, k, l.pos)
				}
				if xt == ir.Bool {
					e.fail("scan_fn of bool is not supported yet")
				}
				e.emitIf(p, false, movOp(l.acc.Class), l.acc, nv)
			} else {
				e.emit(movOp(l.acc.Class), l.acc, nv)
			}
		}
	})
	regs := make([]Reg, lay.NumRegs())
	for _, l := range lines {
		regs[l.r] = l.acc
	}
	for r := range regs {
		if c := lay.CanonicalReg(r); c != r {
			regs[r] = regs[c]
		}
	}
	e.vals[res] = &value{regs: regs, lay: lay}
}

// emitAssert emits assert: a trap in every thread that holds a false
// element (the launch then fails; the message is not printed on the GPU).
func (e *emitter) emitAssert(in *ir.Instr) {
	c := e.vals[in.Args[0]]
	if c.regs == nil {
		e.emitIf(c.reg, true, "trap")
		return
	}
	for r, p := range c.regs {
		if c.lay.CanonicalReg(r) == r {
			e.emitIf(p, true, "trap")
		}
	}
}

// axisLoop emits a run-time loop of k over 0..n-1 (n-1..0 when reverse),
// uniform across the block, with kb = k*stride (a byte offset along the
// axis) computed at the top of each iteration for body.
func (e *emitter) axisLoop(what string, n, stride int, reverse bool, body func(k, kb Reg)) {
	k := e.newReg(B32)
	if reverse {
		e.emit("mov.u32", k, Imm(n-1))
	} else {
		e.emit("mov.u32", k, Imm(0))
	}
	kb := e.newReg(B32)
	loop := e.newLabel(what)
	e.label(loop)
	e.emit("mul.lo.u32", kb, k, Imm(stride))
	body(k, kb)
	more := e.newReg(Pred)
	if reverse {
		e.emit("sub.s32", k, k, Imm(1))
		e.emit("setp.ge.s32", more, k, Imm(0))
	} else {
		e.emit("add.s32", k, k, Imm(1))
		e.emit("setp.lt.s32", more, k, Imm(n))
	}
	e.emitIf(more, false, "bra.uni", Label(loop))
}
