package ptxgen

// Indexed accesses: gather, scatter, atomic_rmw and atomic_cas, and the
// element-offset forms of raw memory (load_offset, store_offset,
// atomic_rmw_offset, atomic_cas_offset: one offset tile, the address
// A + offset*bytes, no bounds). Every
// index, value and mask tile shares the layout of the access (lower's
// layout pass unites them), so each register index r of that layout is one
// element e: its address is A + sum_d index_d[e]*stride_d*bytes, and it is
// in bounds when 0 <= index_d[e] < dim_d for every d (compared as unsigned
// 64-bit values, so that a negative index is out of bounds). Bounds are
// checked whatever check_bounds says (it only promises in-bounds indices).
//
// Threads that hold copies of another thread's elements (a tile smaller
// than the block) do not store or update: only the owner does, so that a
// scatter writes once and an atomic applies once. The old values of an
// atomic reach the copies in other lanes by shfl.sync; a rank-0 tile's
// (thread 0 owns it) reach every thread through the scratch region; lower's
// check rejects atomics whose old values are used in other layouts
// replicated across warps.

import (
	"fmt"
	"slices"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/lower"
)

// ownerPred is a predicate true in the threads that own their elements of
// layout l (not copies held by other lanes or warps), or nil when every
// thread owns its elements.
func (e *emitter) ownerPred(l *lower.Layout) *Reg {
	if len(l.Shape) == 0 {
		// A rank-0 tile: every thread of the block holds the one element
		// (its layout has no bases to say so); thread 0 owns it.
		p := e.newReg(Pred)
		e.emit("setp.eq.u32", p, e.tid, Imm(0))
		return &p
	}
	var owner *Reg
	if m := l.ReplicatedLaneMask(); m != 0 {
		x := e.newReg(B32)
		e.emit("and.b32", x, e.lane, Imm(m))
		p := e.newReg(Pred)
		e.emit("setp.eq.s32", p, x, Imm(0))
		owner = &p
	}
	if m := l.ReplicatedWarpMask(); m != 0 {
		x := e.newReg(B32)
		e.emit("and.b32", x, e.warp, Imm(m))
		p := e.newReg(Pred)
		e.emit("setp.eq.s32", p, x, Imm(0))
		if owner != nil {
			q := e.newReg(Pred)
			e.emit("and.pred", q, *owner, p)
			p = q
		}
		owner = &p
	}
	return owner
}

// index64 widens an index register of integer dtype d to 64 bits
// (sign-extending signed dtypes).
func (e *emitter) index64(x Reg, d ir.DType) Reg {
	if d == ir.I64 || d == ir.U64 {
		return x
	}
	r := e.newReg(B64)
	if d.IsUnsigned() {
		e.emit("cvt.u64.u32", r, x)
	} else {
		e.emit("cvt.s64.s32", r, x)
	}
	return r
}

// emitIndexed emits gather, scatter, atomic_rmw and atomic_cas, and their
// element-offset forms (ir.OffsetAccess: one offset tile in place of the
// index tiles, the address A + offset*bytes, nothing bounds checked).
func (e *emitter) emitIndexed(in *ir.Instr) {
	arrV := in.Args[0]
	a := e.arrs[arrV]
	if a == nil {
		e.fail("%s of a non-parameter array", in.Op)
	}
	offset := ir.OffsetAccess(in.Op)
	rank := len(a.dims)
	if offset {
		rank = 1
	}
	idx := in.Args[1 : 1+rank]
	nvals := 1
	if in.Op == ir.OpAtomicCAS || in.Op == ir.OpAtomicCASOffset {
		nvals = 2
	}
	vals := in.Args[1+rank : 1+rank+nvals]
	var mask *ir.Value
	if len(in.Args) > 1+rank+nvals {
		mask = in.Args[len(in.Args)-1]
	}
	lay := e.vals[idx[0]].lay
	if lay == nil {
		e.fail("internal: %s index %s is not a register tile", in.Op, idx[0])
	}
	for _, v := range append(append([]*ir.Value(nil), in.Args[1:]...), in.Results...) {
		if l := e.layoutOfTile(v); l != nil && !sameLayout(l, lay) {
			e.fail("internal: %s operands in different layouts", in.Op)
		}
	}
	dt := a.dt
	bytes := dt.Bytes()
	// 64-bit dims, hoisted.
	dims := make([]Reg, rank)
	for d := range dims {
		if offset {
			break
		}
		dims[d] = e.invariant(fmt.Sprintf("dim64/%d/%d", arrV.ID, d), func() Reg {
			r := e.newReg(B64)
			e.emit("cvt.s64.s32", r, a.dims[d])
			return r
		})
	}
	store := in.Op == ir.OpScatter || in.Op == ir.OpStoreOffset
	atomic := in.Op.Info().Global == ir.GlobalAtomic
	var owner *Reg
	if store || atomic {
		owner = e.ownerPred(lay)
	}
	used := len(in.Results) == 1 && e.useCount(in.Result()) > 0
	// A rank-0 atomic is one thread's access on behalf of the block (a
	// lock, a counter); lower's barriers pass puts the block barriers that
	// its memory order asks for around it.
	rank0 := atomic && len(lay.Shape) == 0
	regs := make([]Reg, lay.NumRegs())
	for r := range regs {
		if c := lay.CanonicalReg(r); c != r {
			regs[r] = regs[c]
			continue
		}
		addr := a.ptr
		// p: the element is accessed (in bounds, where the mask holds);
		// nil: always.
		var p *Reg
		and := func(q Reg) {
			if p == nil {
				p = &q
				return
			}
			pq := e.newReg(Pred)
			e.emit("and.pred", pq, *p, q)
			p = &pq
		}
		if offset {
			o := e.index64(e.operandReg(idx[0], r), idx[0].Type.Elem())
			n := e.newReg(B64)
			e.emit("mad.lo.s64", n, o, Imm(int64(bytes)), addr)
			addr = n
		}
		for d := 0; d < rank && !offset; d++ {
			i64 := e.index64(e.operandReg(idx[d], r), idx[d].Type.Elem())
			q := e.newReg(Pred)
			e.emit("setp.lt.u64", q, i64, dims[d])
			and(q)
			s := e.newReg(B64)
			e.emit("mul.lo.s64", s, i64, a.strides[d])
			n := e.newReg(B64)
			e.emit("mad.lo.s64", n, s, Imm(int64(bytes)), addr)
			addr = n
		}
		if mask != nil {
			and(e.operandReg(mask, r))
		}
		// pAccess: this thread performs the access (in bounds, and the
		// owner for stores and updates).
		pAccess := p
		switch {
		case owner != nil && p == nil:
			pAccess = owner
		case owner != nil:
			q := e.newReg(Pred)
			e.emit("and.pred", q, *p, *owner)
			pAccess = &q
		}
		switch in.Op {
		case ir.OpGather, ir.OpLoadOffset:
			regs[r] = e.gatherElem(dt, addr, p, e.operandReg(vals[0], r))
		case ir.OpScatter, ir.OpStoreOffset:
			x := e.operandReg(vals[0], r)
			if dt == ir.Bool {
				h := e.newReg(B16)
				e.emit("selp.b16", h, Imm(1), Imm(0), x)
				x = h
			}
			e.emitMaybe(pAccess, "st.global."+memType(dt), Addr{Base: addr}, x)
		case ir.OpAtomicRMW, ir.OpAtomicRMWOffset:
			regs[r] = e.atomicElem(in, dt, addr, pAccess, used, []Reg{e.operandReg(vals[0], r)})
		case ir.OpAtomicCAS, ir.OpAtomicCASOffset:
			regs[r] = e.atomicElem(in, dt, addr, pAccess, used, []Reg{e.operandReg(vals[0], r), e.operandReg(vals[1], r)})
		}
	}
	if rank0 && used {
		e.broadcastOwned(in, regs, dt, *owner)
	}
	if len(in.Results) == 1 {
		if atomic && used && !rank0 {
			e.shareOwned(regs, lay)
		}
		e.vals[in.Result()] = &value{regs: regs, lay: lay}
	}
}

// layoutOfTile is the register layout of an already emitted tile value, or
// nil for scalars.
func (e *emitter) layoutOfTile(v *ir.Value) *lower.Layout {
	if _, ok := v.Type.(*ir.Tile); !ok {
		return nil
	}
	if x := e.vals[v]; x != nil && x.lay != nil {
		return x.lay
	}
	if v.Def != nil && len(v.Def.Results) == 1 && v.Def.Result() == v {
		l, err := lower.LayoutOf(v)
		if err == nil {
			return l
		}
	}
	return nil
}

// sameLayout reports whether two tiles are laid out alike: the same shape,
// the same attribute value and the same shared-memory home (none, for
// register tiles).
func sameLayout(a, b *lower.Layout) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Smem == b.Smem && slices.Equal(a.Shape, b.Shape) && a.Layout.Equal(b.Layout)
}

// memType is the ld/st type of one element of dtype d in global memory.
func memType(d ir.DType) string {
	if d == ir.Bool {
		return "u8"
	}
	return btype(d)
}

// gatherElem loads one element at addr where p holds (always when p is
// nil), else pad.
func (e *emitter) gatherElem(dt ir.DType, addr Reg, p *Reg, pad Reg) Reg {
	if dt == ir.Bool {
		h := e.newReg(B16)
		if p != nil {
			e.emit("selp.b16", h, Imm(1), Imm(0), pad)
		}
		e.emitMaybe(p, "ld.global.u8", h, Addr{Base: addr})
		b := e.newReg(Pred)
		e.emit("setp.ne.b16", b, h, Imm(0))
		return b
	}
	x := e.newReg(classOf(dt))
	if p != nil {
		e.emit("mov."+btypeReg(x.Class), x, pad)
	}
	e.emitMaybe(p, "ld.global."+memType(dt), x, Addr{Base: addr})
	return x
}

// emitMaybe emits an instruction guarded by g, or unguarded when g is nil.
func (e *emitter) emitMaybe(g *Reg, op string, args ...Operand) {
	if g == nil {
		e.emit(op, args...)
		return
	}
	e.emitIf(*g, false, op, args...)
}

// atomicSem is the .sem.scope qualifier of an atomic's memory order and
// scope (scope none and device are the GPU scope).
func atomicSem(in *ir.Instr) (sem, scope string) {
	sem = "." + map[string]string{ir.OrderRelaxed: "relaxed", ir.OrderAcquire: "acquire", ir.OrderRelease: "release", ir.OrderAcqRel: "acq_rel"}[in.StrAttr(ir.AttrKeyMemoryOrder)]
	if sem == "." {
		sem = ".relaxed"
	}
	scope = "." + map[string]string{ir.ScopeBlock: "cta", ir.ScopeDevice: "gpu", ir.ScopeNone: "gpu", ir.ScopeSys: "sys"}[in.StrAttr(ir.AttrKeyMemoryScope)]
	if scope == "." {
		scope = ".gpu"
	}
	return sem, scope
}

// atomicElem emits one element's atomic at addr, performed where p holds
// (always when p is nil). The result is the old value (0 where not
// performed; expected for cas).
func (e *emitter) atomicElem(in *ir.Instr, dt ir.DType, addr Reg, p *Reg, used bool, args []Reg) Reg {
	sem, scope := atomicSem(in)
	var op, typ string
	bits := fmt.Sprint(8 * dt.Bytes())
	cas := in.Op == ir.OpAtomicCAS || in.Op == ir.OpAtomicCASOffset
	if cas {
		op, typ = "cas", ".b"+bits
	} else {
		switch k := in.Kind(); k {
		case ir.AtomicXchg:
			op, typ = "exch", ".b"+bits
		case ir.AtomicAnd, ir.AtomicOr, ir.AtomicXor:
			op, typ = k, ".b"+bits
		case ir.AtomicAdd:
			switch {
			case dt == ir.F16 || dt == ir.BF16:
				op, typ = "add.noftz", "."+ptype(dt)
			case dt.IsFloat():
				op, typ = "add", "."+ptype(dt)
			default:
				// Two's complement: one add for signed and unsigned.
				op, typ = "add", ".u"+bits
			}
		case ir.AtomicMax, ir.AtomicMin:
			op = k
			if dt.IsUnsigned() {
				typ = ".u" + bits
			} else {
				typ = ".s" + bits
			}
		default:
			e.fail("atomic_rmw %s is not supported", k)
		}
	}
	if !used && !cas && op != "exch" && (sem == ".relaxed" || sem == ".release") {
		e.emitMaybe(p, "red"+sem+scope+".global."+op+typ, Addr{Base: addr}, args[0])
		return Reg{}
	}
	old := e.newReg(classOf(dt))
	if p != nil {
		if cas {
			e.emit("mov."+btypeReg(old.Class), old, args[0])
		} else {
			e.emit("mov."+btypeReg(old.Class), old, e.zeroImm(dt))
		}
	}
	ops := []Operand{old, Addr{Base: addr}}
	for _, x := range args {
		ops = append(ops, x)
	}
	e.emitMaybe(p, "atom"+sem+scope+".global."+op+typ, ops...)
	return old
}

// broadcastOwned gives every thread of the block the owner's value of a
// rank-0 tile (regs, one register and its copies) through the scratch
// region: the owner stores it between two barriers and all threads load
// it. The owner's old value of an atomic is how the block learns whether
// it took a lock, so every warp must see the same value. in is the atomic.
func (e *emitter) broadcastOwned(in *ir.Instr, regs []Reg, dt ir.DType, owner Reg) {
	sc := e.scratch()
	if dt == ir.Bool {
		v := e.newReg(B32)
		e.emit("selp.b32", v, Imm(1), Imm(0), regs[0])
		e.emitIf(owner, false, "st.shared.b32", Addr{Base: sc}, v)
	} else {
		e.emitIf(owner, false, "st.shared."+btypeReg(regs[0].Class), Addr{Base: sc}, regs[0])
	}
	e.exchangeBarrier(in)
	x := e.ldShared(Addr{Base: sc}, dt)
	for i := range regs {
		regs[i] = x
	}
}

// shareOwned gives the lanes that hold copies of other lanes' elements
// (layout l replicated across lanes) the owners' values.
func (e *emitter) shareOwned(regs []Reg, l *lower.Layout) {
	m := l.ReplicatedLaneMask()
	if m == 0 {
		return
	}
	src := e.invariant(fmt.Sprint("ownerlane/", m), func() Reg {
		r := e.newReg(B32)
		e.emit("and.b32", r, e.lane, Imm(^int64(m)&31))
		return r
	})
	done := map[int]Reg{}
	for i, x := range regs {
		if y, ok := done[x.N*int(numClasses)+int(x.Class)]; ok {
			regs[i] = y
			continue
		}
		y := e.shflIdx(x, src)
		done[x.N*int(numClasses)+int(x.Class)] = y
		regs[i] = y
	}
}

// shflIdx is lane src's copy of x (all 32 lanes take part).
func (e *emitter) shflIdx(x, src Reg) Reg {
	switch x.Class {
	case B64, F64:
		lo, hi := e.newReg(B32), e.newReg(B32)
		e.emit("mov.b64", Vec{lo, hi}, x)
		lo2, hi2 := e.shflIdx(lo, src), e.shflIdx(hi, src)
		r := e.newReg(x.Class)
		e.emit("mov.b64", r, Vec{lo2, hi2})
		return r
	case B16:
		w := e.newReg(B32)
		e.emit("cvt.u32.u16", w, x)
		w2 := e.shflIdx(w, src)
		r := e.newReg(B16)
		e.emit("cvt.u16.u32", r, w2)
		return r
	case B32, F32:
		r := e.newReg(x.Class)
		e.emit("shfl.sync.idx.b32", r, x, src, Imm(31), Imm(-1))
		return r
	}
	e.fail("internal: shuffle of a %s register", classInfo[x.Class].decl)
	return Reg{}
}

// useCount is the number of operands that name v.
func (e *emitter) useCount(v *ir.Value) int {
	e.singleUse(v) // fills e.uses
	return e.uses[v]
}
