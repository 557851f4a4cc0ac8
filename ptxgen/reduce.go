package ptxgen

// Reductions of register tiles and layout conversions through shared memory.
//
// A reduce combines, in order: the registers of a thread that hold
// elements along the reduced axis; the lanes whose layout bases lie along
// the axis (shfl.sync.bfly, so that every lane ends with the result); the
// warps whose bases lie along the axis (each warp writes its partial to the
// scratch region, the block synchronizes, every warp reads all partials;
// lower's barriers pass puts the barrier before the writes). The result is
// in the operand's layout without the axis (lower.Layout.Reduce); if the
// layout pass gave it another one, it is converted through scratch.
//
// Sums of halves and f32 accumulate in f32; max and min use max / min
// (a NaN operand is ignored), or max.NaN / min.NaN under propagate_nan, as
// the interpreter does; argmax/argmin combine (value, index) pairs: a
// larger (smaller) value wins, ties go to the smaller index, and a NaN is
// skipped, or under propagate_nan beats any number.

import (
	"fmt"
	"sort"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/lower"
)

// scratch is the shared address of the scratch region.
func (e *emitter) scratch() Reg {
	off := lower.ScratchOffset(e.f)
	if off < 0 || !e.usesSmem {
		e.fail("internal: the kernel has no scratch region")
	}
	return e.invariant("scratch", func() Reg {
		r := e.newReg(B32)
		e.emit("add.u32", r, e.smemBase, Imm(off))
		return r
	})
}

// linThread is the row-major linear index, over l's shape, of the part of
// a thread's coordinate that comes from its lane and warp.
func (e *emitter) linThread(l *lower.Layout) Reg {
	tc := e.threadCoord(l)
	return e.invariant(fmt.Sprint("lin", l.Shape, l.Lane, l.Warp), func() Reg {
		acc := e.newReg(B32)
		e.emit("mov.u32", acc, Imm(0))
		stride := 1
		for d := len(l.Shape) - 1; d >= 0; d-- {
			x := e.newReg(B32)
			e.emit("mad.lo.u32", x, tc[d], Imm(stride), acc)
			acc = x
			stride *= l.Shape[d]
		}
		return acc
	})
}

// linConst is the row-major linear index of coordinate c in shape.
func linConst(c, shape []int) int {
	n, stride := 0, 1
	for d := len(shape) - 1; d >= 0; d-- {
		n += c[d] * stride
		stride *= shape[d]
	}
	return n
}

// scratchAddr is scratch + linThread(l)*slot (+ extra*slot when extra is set).
func (e *emitter) scratchAddr(l *lower.Layout, slot int, extra *Reg) Reg {
	sc := e.scratch()
	lin := e.linThread(l)
	key := fmt.Sprint("saddr", l.Shape, l.Lane, l.Warp, slot)
	if extra != nil {
		key += fmt.Sprint("+", *extra)
	}
	return e.invariant(key, func() Reg {
		idx := lin
		if extra != nil {
			x := e.newReg(B32)
			e.emit("add.u32", x, lin, *extra)
			idx = x
		}
		a := e.newReg(B32)
		e.emit("mad.lo.u32", a, idx, Imm(slot), sc)
		return a
	})
}

// stShared / ldShared move one element of dtype d between a register and
// shared memory (bools as 32-bit 0/1).
func (e *emitter) stShared(addr Addr, x Reg, d ir.DType) {
	switch {
	case d == ir.Bool:
		v := e.newReg(B32)
		e.emit("selp.b32", v, Imm(1), Imm(0), x)
		e.emit("st.shared.b32", addr, v)
	default:
		e.emit("st.shared."+btypeReg(x.Class), addr, x)
	}
}

func (e *emitter) ldShared(addr Addr, d ir.DType) Reg {
	if d == ir.Bool {
		v := e.newReg(B32)
		e.emit("ld.shared.b32", v, addr)
		p := e.newReg(Pred)
		e.emit("setp.ne.b32", p, v, Imm(0))
		return p
	}
	r := e.newReg(classOf(d))
	e.emit("ld.shared."+btypeReg(r.Class), r, addr)
	return r
}

// convertLayout moves a register tile of dtype d from layout from to layout
// to through the scratch region (for exchange in).
func (e *emitter) convertLayout(in *ir.Instr, regs []Reg, from, to *lower.Layout, d ir.DType) []Reg {
	if len(from.Shape) != len(to.Shape) {
		e.fail("internal: layout conversion between ranks %d and %d", len(from.Shape), len(to.Shape))
	}
	slot := lower.ScratchSlot(d, false)
	wa := e.scratchAddr(from, slot, nil)
	ra := e.scratchAddr(to, slot, nil)
	for r := range regs {
		if from.CanonicalReg(r) != r {
			continue
		}
		off := linConst(from.RegCoord(r), from.Shape) * slot
		e.stShared(Addr{Base: wa, Off: int64(off)}, regs[r], d)
	}
	e.exchangeBarrier(in)
	out := make([]Reg, to.NumRegs())
	for r := range out {
		if c := to.CanonicalReg(r); c != r {
			out[r] = out[c]
			continue
		}
		off := linConst(to.RegCoord(r), to.Shape) * slot
		out[r] = e.ldShared(Addr{Base: ra, Off: int64(off)}, d)
	}
	return out
}

// relayout gives a register tile held in layout from in layout to, which
// lower's convert pass guarantees every thread already holds its elements
// in (lower.RegisterMap): the same registers, renumbered.
func (e *emitter) relayout(regs []Reg, from, to *lower.Layout) []Reg {
	m, ok := lower.RegisterMap(from, to)
	if !ok {
		e.fail("internal: layouts differ beyond register numbering (lower's convert pass)")
	}
	out := make([]Reg, len(m))
	for r, s := range m {
		out[r] = regs[s]
	}
	return out
}

// emitConvertLayout emits a convert_layout: the tile through the scratch
// region.
func (e *emitter) emitConvertLayout(in *ir.Instr) {
	src := e.vals[in.Args[0]]
	if src == nil || src.regs == nil {
		e.fail("internal: convert_layout of a tile that is not in registers")
	}
	to := e.layout(in.Result())
	e.vals[in.Result()] = &value{regs: e.convertLayout(in, src.regs, src.lay, to, in.Result().Type.Elem()), lay: to}
}

// emitDerived emits a broadcast, reshape or register permute: the result's
// registers are the operand's when the operand is in the layout the result
// derives for it (up to the numbering of each thread's registers), else the
// operand is converted first.
func (e *emitter) emitDerived(in *ir.Instr) {
	src := e.vals[in.Args[0]]
	lay := e.layout(in.Result())
	if src.regs == nil {
		e.fail("%s of a shared-memory tile is not supported yet", in.Op)
	}
	want, err := lower.OperandLayout(in, lay)
	if err != nil {
		e.fail("%v", err)
	}
	e.vals[in.Result()] = &value{regs: e.relayout(src.regs, src.lay, want), lay: lay}
}

// part is a partial reduction: a value and, for argmax/argmin, its index.
type part struct{ v, i Reg }

func (e *emitter) emitReduce(in *ir.Instr) {
	x := e.vals[in.Args[0]]
	if x == nil || x.regs == nil {
		e.fail("reduce of a shared-memory tile is not supported yet")
	}
	L := x.lay
	axis := in.Axis()
	kind := in.Kind()
	xt := in.Args[0].Type.Elem()
	rt := in.Result().Type.Elem()
	arg := kind == ir.ReduceArgmax || kind == ir.ReduceArgmin
	propNaN := in.Attrs.Get(ir.AttrKeyPropagateNaN) == true
	acc := lower.ReduceAccType(xt)
	if xt == ir.F64 || xt == ir.Bool || (acc == ir.I64 && arg) {
		e.fail("reduce %s of %s is not supported yet", kind, xt)
	}
	for _, bs := range [][][]int{L.Reg, L.Lane, L.Warp} {
		for _, b := range bs {
			if b[axis] == 0 {
				continue
			}
			for d, c := range b {
				if d != axis && c != 0 {
					e.fail("reduce over a layout whose bases mix the reduced axis with others is not supported yet")
				}
			}
		}
	}
	S := L.Reduce(axis)

	// Registers.
	var idxBase Reg
	if arg {
		idxBase = e.threadCoord(L)[axis]
	}
	parts := map[int]part{}
	for r := 0; r < L.NumRegs(); r++ {
		if L.CanonicalReg(r) != r {
			continue
		}
		p := part{v: e.convert(x.regs[r], xt, acc)}
		if arg {
			p.i = e.newReg(B32)
			e.emit("add.s32", p.i, idxBase, Imm(L.RegCoord(r)[axis]))
		}
		o := S.CanonicalReg(r)
		if q, ok := parts[o]; ok {
			parts[o] = e.combine(kind, propNaN, acc, q, p)
		} else {
			parts[o] = p
		}
	}
	outs := make([]int, 0, len(parts))
	for o := range parts {
		outs = append(outs, o)
	}
	sort.Ints(outs)

	// Lanes.
	for b, v := range L.Lane {
		if v[axis] == 0 {
			continue
		}
		for _, o := range outs {
			p := parts[o]
			q := part{v: e.shflBfly(p.v, 1<<b)}
			if arg {
				q.i = e.shflBfly(p.i, 1<<b)
			}
			parts[o] = e.combine(kind, propNaN, acc, p, q)
		}
	}

	// Warps.
	if wb := lower.ReduceWarpBits(L, axis); len(wb) > 0 {
		nOut := 1
		for _, d := range S.Shape {
			nOut *= d
		}
		slot := lower.ScratchSlot(acc, arg)
		vb := lower.ScratchValBytes(acc)
		k := e.invariant(fmt.Sprint("warpk", wb, nOut), func() Reg { // nOut is part of k: not shared by reductions of other widths
			k := e.newReg(B32)
			e.emit("mov.u32", k, Imm(0))
			for j, b := range wb {
				t := e.newReg(B32)
				e.emit("bfe.u32", t, e.warp, Imm(b), Imm(1))
				n := e.newReg(B32)
				e.emit("mad.lo.u32", n, t, Imm(nOut<<j), k)
				k = n
			}
			return k
		})
		wa := e.scratchAddr(S, slot, &k)
		ra := e.scratchAddr(S, slot, nil)
		for _, o := range outs {
			off := int64(linConst(S.RegCoord(o), S.Shape) * slot)
			p := parts[o]
			e.emit("st.shared."+btypeReg(p.v.Class), Addr{Base: wa, Off: off}, p.v)
			if arg {
				e.emit("st.shared.b32", Addr{Base: wa, Off: off + int64(vb)}, p.i)
			}
		}
		e.exchangeBarrier(in)
		for _, o := range outs {
			off := int64(linConst(S.RegCoord(o), S.Shape) * slot)
			var cur part
			for kk := 0; kk < 1<<len(wb); kk++ {
				a := off + int64(kk*nOut*slot)
				q := part{v: e.newReg(classOf(acc))}
				e.emit("ld.shared."+btypeReg(q.v.Class), q.v, Addr{Base: ra, Off: a})
				if arg {
					q.i = e.newReg(B32)
					e.emit("ld.shared.b32", q.i, Addr{Base: ra, Off: a + int64(vb)})
				}
				if kk == 0 {
					cur = q
				} else {
					cur = e.combine(kind, propNaN, acc, cur, q)
				}
			}
			parts[o] = cur
		}
	}

	regs := make([]Reg, S.NumRegs())
	for r := range regs {
		c := S.CanonicalReg(r)
		if c != r {
			regs[r] = regs[c]
			continue
		}
		p, ok := parts[c]
		if !ok {
			e.fail("internal: reduce lost output register %d", r)
		}
		if arg {
			regs[r] = p.i
		} else {
			regs[r] = e.normalize(e.convert(p.v, acc, rt), rt)
		}
	}
	res := e.layout(in.Result())
	e.vals[in.Result()] = &value{regs: e.relayout(regs, S, res), lay: res}
}

// shflBfly is lane ^ mask's copy of x (all 32 lanes take part).
func (e *emitter) shflBfly(x Reg, mask int) Reg {
	if x.Class == B64 {
		lo, hi := e.newReg(B32), e.newReg(B32)
		e.emit("mov.b64", Vec{lo, hi}, x)
		lo2, hi2 := e.shflBfly(lo, mask), e.shflBfly(hi, mask)
		r := e.newReg(B64)
		e.emit("mov.b64", r, Vec{lo2, hi2})
		return r
	}
	if x.Class != B32 && x.Class != F32 {
		e.fail("internal: shuffle of a %s register", classInfo[x.Class].decl)
	}
	r := e.newReg(x.Class)
	e.emit("shfl.sync.bfly.b32", r, x, Imm(mask), Imm(31), Imm(-1))
	return r
}

// combine merges two partials of a reduction of kind in dtype d. It is
// symmetric (combine(a, b) == combine(b, a)), so that both lanes of a
// butterfly end with the same value.
// combine is one step of a reduction: a and b combined by kind. Float max
// and min ignore NaN (max.f32) unless propNaN (max.NaN.f32); argmax and
// argmin then skip NaN elements, or take the first NaN with propNaN.
func (e *emitter) combine(kind string, propNaN bool, d ir.DType, a, b part) part {
	t := ptype(d)
	isF := d.IsFloat()
	r := part{v: e.newReg(classOf(d))}
	switch kind {
	case ir.ReduceSum:
		if isF {
			e.emit("add.rn."+t, r.v, a.v, b.v)
		} else {
			e.emit("add."+t, r.v, a.v, b.v)
		}
	case ir.ReduceProd:
		if isF {
			e.emit("mul.rn."+t, r.v, a.v, b.v)
		} else {
			e.emit("mul.lo."+t, r.v, a.v, b.v)
		}
	case ir.ReduceMax, ir.ReduceMin:
		op := "max."
		if kind == ir.ReduceMin {
			op = "min."
		}
		if isF && propNaN {
			op += "NaN."
		}
		e.emit(op+t, r.v, a.v, b.v)
	case ir.ReduceArgmax, ir.ReduceArgmin:
		better := "gt"
		if kind == ir.ReduceArgmin {
			better = "lt"
		}
		or := func(x, y Reg) Reg {
			z := e.newReg(Pred)
			e.emit("or.pred", z, x, y)
			return z
		}
		and := func(x, y Reg) Reg {
			z := e.newReg(Pred)
			e.emit("and.pred", z, x, y)
			return z
		}
		gt := e.newReg(Pred)
		e.emit("setp."+better+"."+t, gt, b.v, a.v)
		eq := e.newReg(Pred)
		e.emit("setp.eq."+t, eq, b.v, a.v)
		li := e.newReg(Pred)
		e.emit("setp.lt.s32", li, b.i, a.i)
		take := gt
		if isF {
			// With propNaN a NaN beats a number, else a number beats a NaN;
			// between NaNs the smaller index wins.
			bn := e.newReg(Pred)
			e.emit("setp.nan."+t, bn, b.v, b.v)
			an := e.newReg(Pred)
			e.emit("setp.nan."+t, an, a.v, a.v)
			if propNaN {
				notA := e.newReg(Pred)
				e.emit("not.pred", notA, an)
				take = or(take, and(bn, notA))
			} else {
				notB := e.newReg(Pred)
				e.emit("not.pred", notB, bn)
				take = or(take, and(an, notB))
			}
			eq = or(eq, and(an, bn))
		}
		take = or(take, and(eq, li))
		e.emit("selp."+btypeReg(r.v.Class), r.v, b.v, a.v, take)
		r.i = e.newReg(B32)
		e.emit("selp.b32", r.i, b.i, a.i, take)
	default:
		e.fail("reduce kind %s is not supported", kind)
	}
	return r
}
