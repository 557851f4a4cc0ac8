package ptxgen

import (
	"fmt"
	"math"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/lower"
)

// padValue is the register filled into out-of-bounds elements of a load.
func (e *emitter) padValue(pad string, d ir.DType) Reg {
	var v float64
	switch pad {
	case "", ir.PadZero:
		v = 0
	case ir.PadNegZero:
		v = math.Copysign(0, -1)
	case ir.PadNaN:
		v = math.NaN()
	case ir.PadPosInf:
		v = math.Inf(1)
	case ir.PadNegInf:
		v = math.Inf(-1)
	default:
		e.fail("load padding %q is not supported", pad)
	}
	if d == ir.Bool {
		// NEG_INF pads with false, POS_INF with true (the interpreter's rule).
		return e.constReg(pad == ir.PadPosInf, d)
	}
	if d.IsInt() {
		// NEG_INF and POS_INF are the dtype's minimum and maximum.
		switch {
		case math.IsNaN(v):
			e.fail("padding %s on an integer load", pad)
		case math.IsInf(v, 1):
			_, hi := ir.IntRange(d)
			return e.constReg(hi, d)
		case math.IsInf(v, -1):
			lo, _ := ir.IntRange(d)
			return e.constReg(lo, d)
		}
		return e.constReg(int64(0), d)
	}
	if d.IsFloat8() {
		// The float32 value rounded as a conversion rounds it (+-inf
		// saturate); ptxas folds the constant arithmetic.
		return e.f32ToFloat8(e.constReg(v, ir.F32), d)
	}
	return e.constReg(v, d)
}

// tileOrigin returns, per dim, the element offset index*shape of a tile access.
func (e *emitter) tileOrigin(idx []*ir.Value, shape []int, subst map[*ir.Value]Reg) []Reg {
	out := make([]Reg, len(shape))
	for d, v := range idx {
		var r Reg
		if s, ok := subst[v]; ok {
			r = s
		} else {
			r = e.vals[v].reg
		}
		if v.Type.Elem() == ir.I64 {
			t := e.newReg(B32)
			e.emit("cvt.u32.u64", t, r)
			r = t
		}
		o := e.newReg(B32)
		e.emit("mul.lo.s32", o, r, Imm(shape[d]))
		out[d] = o
	}
	return out
}

// byteOffset is c*stride[d]*bytes as a 64-bit register (thread-invariant).
func (e *emitter) byteOffset(a *array, arr *ir.Value, d, c int) Reg {
	bytes := a.dt.Bytes()
	// Keyed by the stride register too: a window of a higher-rank array
	// (window.go) has its own axis numbering.
	return e.invariant(fmt.Sprintf("off/%d/%d/%d/%d", arr.ID, d, a.strides[d].N, c), func() Reg {
		r := e.newReg(B64)
		e.emit("mul.lo.s64", r, a.strides[d], Imm(int64(c*bytes)))
		return r
	})
}

// alignedFlag is a uniform predicate: the array's last stride is 1 and
// every row starts on a vec*bytes boundary, so vector accesses are legal.
func (e *emitter) alignedFlag(a *array, arr *ir.Value, vecBytes int) Reg {
	return e.invariant(fmt.Sprintf("aligned/%d/%d", arr.ID, vecBytes), func() Reg {
		rank := len(a.strides)
		p := e.newReg(Pred)
		e.emit("setp.eq.s64", p, a.strides[rank-1], Imm(1))
		check := func(x Reg) {
			m := e.newReg(B64)
			e.emit("and.b64", m, x, Imm(int64(vecBytes-1)))
			q := e.newReg(Pred)
			e.emit("setp.eq.s64", q, m, Imm(0))
			n := e.newReg(Pred)
			e.emit("and.pred", n, p, q)
			p = n
		}
		check(a.ptr)
		for d := 0; d < rank-1; d++ {
			b := e.newReg(B64)
			e.emit("mul.lo.s64", b, a.strides[d], Imm(int64(a.dt.Bytes())))
			check(b)
		}
		return p
	})
}

// emitGlobalAccess loads a register tile from global memory or stores one:
// each thread accesses the elements its layout gives it, vectorized over
// consecutive registers when the array's alignment allows (checked at run
// time, uniformly), and predicated on the array bounds.
func (e *emitter) emitGlobalAccess(in *ir.Instr, store bool) {
	arrV := in.Args[0]
	a := e.arrs[arrV]
	if a == nil {
		e.fail("%s of a non-parameter array", in.Op)
	}
	rank := len(a.dims)
	idx := in.Args[1 : 1+rank]
	var tv *ir.Value
	if store {
		tv = in.Args[1+rank]
	} else {
		tv = in.Result()
	}
	tt := tv.Type.(*ir.Tile)
	if tt.Rank() != rank {
		e.fail("%s: tile rank %d on an array of rank %d", in.Op, tt.Rank(), rank)
	}
	var lay *lower.Layout
	var src *value
	if store {
		src = e.vals[tv]
		if sm := src.smem; sm != nil && sm.pitch > 0 {
			e.emitStagedStore(a, arrV, idx, tt, sm)
			return
		}
		lay = src.lay
		if src.regs == nil {
			e.fail("store of a shared-memory tile is not supported yet")
		}
	} else {
		lay = e.layout(tv)
	}
	dt := a.dt
	bytes := dt.Bytes()
	vec := lay.ContigRegs()
	for vec*bytes > 16 {
		vec /= 2
	}
	if dt == ir.Bool {
		vec = 1
	}
	tc := e.threadCoord(lay)
	origin := e.tileOrigin(idx, tt.Shape, nil)
	// rem[d]: elements left in dim d from this thread's base coordinate.
	base := make([]Reg, rank)
	rem := make([]Reg, rank)
	for d := 0; d < rank; d++ {
		base[d] = e.newReg(B32)
		e.emit("add.s32", base[d], origin[d], tc[d])
		rem[d] = e.newReg(B32)
		e.emit("sub.s32", rem[d], a.dims[d], base[d])
	}
	addr0 := a.ptr
	for d := 0; d < rank; d++ {
		w := e.newReg(B64)
		e.emit("cvt.s64.s32", w, base[d])
		s := e.newReg(B64)
		e.emit("mul.lo.s64", s, w, a.strides[d])
		b := e.newReg(B64)
		e.emit("mad.lo.s64", b, s, Imm(int64(bytes)), addr0)
		addr0 = b
	}
	preds := map[[2]int]Reg{}
	inb := func(d, c int) Reg {
		if p, ok := preds[[2]int{d, c}]; ok {
			return p
		}
		p := e.newReg(Pred)
		e.emit("setp.gt.s32", p, rem[d], Imm(c))
		preds[[2]int{d, c}] = p
		return p
	}
	and := func(x, y Reg) Reg {
		r := e.newReg(Pred)
		e.emit("and.pred", r, x, y)
		return r
	}
	// Threads holding copies of another thread's elements do not store.
	var owner *Reg
	if store {
		owner = e.ownerPred(lay)
	}
	var aligned Reg
	if vec > 1 {
		aligned = e.alignedFlag(a, arrV, vec*bytes)
	}
	regs := make([]Reg, lay.NumRegs())
	var pad Reg
	if !store {
		pad = e.padValue(in.Pad(), dt)
	}
	bt := btype(dt)
	loadOp, storeOp := "ld.global."+bt, "st.global."+bt
	for r := 0; r < lay.NumRegs(); r += vec {
		if c := lay.CanonicalReg(r); c != r {
			for i := 0; i < vec; i++ {
				regs[r+i] = regs[c+i]
			}
			continue
		}
		c := lay.RegCoord(r)
		// Address of the first element.
		addr := addr0
		for d := 0; d < rank; d++ {
			if c[d] == 0 {
				continue
			}
			x := e.newReg(B64)
			e.emit("add.s64", x, addr, e.byteOffset(a, arrV, d, c[d]))
			addr = x
		}
		var pRow Reg // in bounds in every dim but the last
		hasRow := false
		for d := 0; d < rank-1; d++ {
			p := inb(d, c[d])
			if hasRow {
				p = and(pRow, p)
			}
			pRow, hasRow = p, true
		}
		if owner != nil {
			if hasRow {
				pRow = and(pRow, *owner)
			} else {
				pRow, hasRow = *owner, true
			}
		}
		last := rank - 1
		elemPred := func(i int) Reg {
			p := inb(last, c[last]+i)
			if hasRow {
				p = and(pRow, p)
			}
			return p
		}
		// Element registers.
		el := make([]Reg, vec)
		for i := range el {
			if store {
				el[i] = src.regs[r+i]
				if dt == ir.Bool {
					h := e.newReg(B16)
					e.emit("selp.b16", h, Imm(1), Imm(0), el[i])
					el[i] = h
				}
			} else {
				if dt == ir.Bool {
					el[i] = e.newReg(B16)
					e.emit("mov.b16", el[i], Imm(0))
				} else {
					el[i] = e.newReg(classOf(dt))
					e.emit("mov."+btypeReg(classOf(dt)), el[i], pad)
				}
			}
		}
		ops := make(Vec, vec)
		for i := range el {
			ops[i] = el[i]
		}
		if vec > 1 {
			pv := and(elemPred(vec-1), aligned)
			if vec > 4 {
				// PTX vectors have at most 4 elements: 8 16-bit elements
				// go as 4 b32 registers of pairs, 8 or 16 1-byte ones as
				// 2 or 4 of quads.
				if bytes == 1 {
					e.packedByteAccess(store, pv, addr, el, dt)
				} else {
					e.packedAccess(store, pv, addr, el)
				}
			} else if vs := fmt.Sprintf(".v%d", vec); store {
				e.emitIf(pv, false, "st.global"+vs+"."+bt, Addr{Base: addr}, ops)
			} else {
				e.emitIf(pv, false, "ld.global"+vs+"."+bt, ops, Addr{Base: addr})
			}
			// Element-wise fallback (misaligned rows, or a last stride
			// other than 1): element i is i*stride[last] elements on. The
			// step is computed here, not hoisted, so that it costs no
			// register across loops (ptxas reads the stride from the
			// parameter bank).
			npv := e.newReg(Pred)
			e.emit("not.pred", npv, pv)
			ai := addr
			for i := 0; i < vec; i++ {
				if i > 0 {
					s := e.newReg(B64)
					e.emit("mul.lo.s64", s, a.strides[last], Imm(int64(bytes)))
					x := e.newReg(B64)
					e.emit("add.s64", x, ai, s)
					ai = x
				}
				p := and(elemPred(i), npv)
				if store {
					e.emitIf(p, false, storeOp, Addr{Base: ai}, el[i])
				} else {
					e.emitIf(p, false, loadOp, el[i], Addr{Base: ai})
				}
			}
		} else {
			p := elemPred(0)
			if store {
				e.emitIf(p, false, storeOp, Addr{Base: addr}, el[0])
			} else {
				e.emitIf(p, false, loadOp, el[0], Addr{Base: addr})
			}
		}
		if !store {
			for i := 0; i < vec; i++ {
				if dt == ir.Bool {
					b := e.newReg(Pred)
					e.emit("setp.ne.b16", b, el[i], Imm(0))
					regs[r+i] = b
				} else {
					regs[r+i] = el[i]
				}
			}
		}
	}
	if !store {
		e.vals[tv] = &value{regs: regs, lay: lay}
	}
}

// packedAccess loads or stores the 16-bit registers el (8 of them: 16
// bytes) at addr where p holds, as ld/st.global.v4.b32 of pairs. A load
// leaves el as they were where p does not hold (the pad values the caller
// put there), so that the element-wise fallback can fill them.
func (e *emitter) packedAccess(store bool, p Reg, addr Reg, el []Reg) {
	if len(el) != 8 || el[0].Class != B16 {
		e.fail("internal: packed access of %d registers of class %v", len(el), el[0].Class)
	}
	// Packed from el for a load too: where p does not hold, the unpacking
	// below gives el back unchanged.
	words := make(Vec, 4)
	for i := range words {
		w := e.newReg(B32)
		e.emit("mov.b32", w, Vec{el[2*i], el[2*i+1]})
		words[i] = w
	}
	if store {
		e.emitIf(p, false, "st.global.v4.b32", Addr{Base: addr}, words)
		return
	}
	e.emitIf(p, false, "ld.global.v4.b32", words, Addr{Base: addr})
	for i, w := range words {
		e.emit("mov.b32", Vec{el[2*i], el[2*i+1]}, w)
	}
}

// packedByteAccess is packedAccess for 1-byte elements (int8, uint8,
// float8) held one per 32-bit register: 8 or 16 of them (8 or 16 bytes)
// as ld/st.global.v2/v4.b32 of four bytes each, lowest address in the
// low byte. Unpacking extends as the element registers hold them (int8 by
// its sign, the others with zeros), so that where p does not hold the
// registers come back unchanged.
func (e *emitter) packedByteAccess(store bool, p Reg, addr Reg, el []Reg, dt ir.DType) {
	if (len(el) != 8 && len(el) != 16) || el[0].Class != B32 {
		e.fail("internal: packed byte access of %d registers of class %v", len(el), el[0].Class)
	}
	words := make(Vec, len(el)/4)
	for i := range words {
		w := e.newReg(B32)
		e.emit("and.b32", w, el[4*i], Imm(0xff))
		for j := 1; j < 4; j++ {
			x := e.newReg(B32)
			e.emit("bfi.b32", x, el[4*i+j], w, Imm(int64(8*j)), Imm(8))
			w = x
		}
		words[i] = w
	}
	vs := fmt.Sprintf(".v%d", len(words))
	if store {
		e.emitIf(p, false, "st.global"+vs+".b32", Addr{Base: addr}, words)
		return
	}
	e.emitIf(p, false, "ld.global"+vs+".b32", words, Addr{Base: addr})
	ext := "bfe.u32"
	if dt == ir.I8 {
		ext = "bfe.s32"
	}
	for i, w := range words {
		for j := 0; j < 4; j++ {
			e.emit(ext, el[4*i+j], w, Imm(int64(8*j)), Imm(8))
		}
	}
}
