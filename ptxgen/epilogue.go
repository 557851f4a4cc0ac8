package ptxgen

import (
	"fmt"

	"github.com/tilec/tilec/ir"
)

// emitSmemStage writes a register tile (an mma-layout accumulator) into a
// row-major copy in shared memory at offset 0, rows `pitch` bytes apart
// (lower's epilogue pass pads them by 16 bytes, so that the eight rows of
// a fragment store hit different banks): every thread its fragment pairs.
func (e *emitter) emitSmemStage(in *ir.Instr) {
	src := e.vals[in.Args[0]]
	if src == nil || src.regs == nil {
		e.fail("internal: smem_stage of a tile that is not in registers")
	}
	if in.Attrs.Get(ir.AttrKeySlabBytes) != nil {
		e.stageSlabs(in, src) // TMA's slabs, for a tma_store
		return
	}
	if in.AttrOf(ir.AttrKeyPitch) == nil {
		e.stageToSmem(in, src) // swizzled, for an mma
		return
	}
	lay := src.lay
	dt := in.Result().Type.Elem()
	bytes := dt.Bytes()
	bt := btype(dt)
	pitch := in.IntAttr(ir.AttrKeyPitch)
	tc := e.threadCoord(lay)
	wbase := e.newReg(B32)
	e.emit("mad.lo.u32", wbase, tc[0], Imm(pitch), e.smemBase)
	e.emit("mad.lo.u32", wbase, tc[1], Imm(bytes), wbase)
	vec := lay.ContigRegs()
	for vec*bytes > 16 {
		vec /= 2
	}
	for r := 0; r < lay.NumRegs(); r += vec {
		c := lay.RegCoord(r)
		ops := make(Vec, vec)
		for i := range ops {
			ops[i] = src.regs[r+i]
		}
		op := "st.shared.v" + fmt.Sprint(vec) + "." + bt
		if vec == 1 {
			e.emit("st.shared."+bt, Addr{Base: wbase, Off: int64(c[0]*pitch + c[1]*bytes)}, src.regs[r])
			continue
		}
		e.emit(op, Addr{Base: wbase, Off: int64(c[0]*pitch + c[1]*bytes)}, ops)
	}
	e.vals[in.Result()] = &value{smem: &smemVal{tile: in, base: e.smemBase, pitch: pitch}}
}

// emitStagedStore stores a tile staged by smem_stage: it reads back whole
// 16-byte chunks, a warp per row segment, and stores them with 16-byte
// global stores (element-wise where the array's alignment or the bounds do
// not allow it).
func (e *emitter) emitStagedStore(a *array, arrV *ir.Value, idx []*ir.Value, tt *ir.Tile, sm *smemVal) {
	dt := a.dt
	bytes := dt.Bytes()
	R, C := tt.Shape[0], tt.Shape[1]
	pitch := sm.pitch
	E := 16 / bytes
	cpr := C / E
	rowStep := e.nt / cpr
	nj := R * cpr / e.nt
	bt := btype(dt)

	// Read back: thread t takes chunk column t%cpr of rows t/cpr + j*rowStep.
	row := e.newReg(B32)
	e.emit("shr.u32", row, e.tid, Imm(log2(cpr)))
	col := e.newReg(B32)
	e.emit("and.b32", col, e.tid, Imm(cpr-1))
	e.emit("mul.lo.u32", col, col, Imm(E))
	rbase := e.newReg(B32)
	e.emit("mad.lo.u32", rbase, row, Imm(pitch), sm.base)
	e.emit("mad.lo.u32", rbase, col, Imm(bytes), rbase)

	origin := e.tileOrigin(idx, tt.Shape, nil)
	r0 := e.newReg(B32)
	e.emit("add.s32", r0, origin[0], row)
	c0 := e.newReg(B32)
	e.emit("add.s32", c0, origin[1], col)
	remR := e.newReg(B32)
	e.emit("sub.s32", remR, a.dims[0], r0)
	remC := e.newReg(B32)
	e.emit("sub.s32", remC, a.dims[1], c0)
	w0 := e.newReg(B64)
	e.emit("cvt.s64.s32", w0, r0)
	w1 := e.newReg(B64)
	e.emit("cvt.s64.s32", w1, c0)
	t := e.newReg(B64)
	e.emit("mul.lo.s64", t, w0, a.strides[0])
	e.emit("mad.lo.s64", t, w1, a.strides[1], t)
	g := e.newReg(B64)
	e.emit("mad.lo.s64", g, t, Imm(int64(bytes)), a.ptr)
	step := e.newReg(B64)
	e.emit("mul.lo.s64", step, a.strides[0], Imm(int64(rowStep*bytes)))
	es := e.newReg(B64)
	e.emit("mul.lo.s64", es, a.strides[1], Imm(int64(bytes)))

	aligned := e.alignedFlag(a, arrV, 16)
	pFull := e.newReg(Pred)
	e.emit("setp.ge.s32", pFull, remC, Imm(E))
	e.emit("and.pred", pFull, pFull, aligned)
	colIn := make([]Reg, E)
	for i := 0; i < E; i++ {
		colIn[i] = e.newReg(Pred)
		e.emit("setp.gt.s32", colIn[i], remC, Imm(i))
	}
	nw := 16 / 4
	for j := 0; j < nj; j++ {
		v := make(Vec, nw)
		for i := range v {
			v[i] = e.newReg(B32)
		}
		e.emit("ld.shared.v4.b32", v, Addr{Base: rbase, Off: int64(j * rowStep * pitch)})
		pr := e.newReg(Pred)
		e.emit("setp.gt.s32", pr, remR, Imm(j*rowStep))
		pv := e.newReg(Pred)
		e.emit("and.pred", pv, pr, pFull)
		e.emitIf(pv, false, "st.global.v4.b32", Addr{Base: g}, v)
		// Element-wise where the chunk is partial or the rows unaligned.
		ps := e.newReg(Pred)
		e.emit("not.pred", ps, pFull)
		e.emit("and.pred", ps, ps, pr)
		ea := g
		for i := 0; i < E; i++ {
			if i > 0 {
				x := e.newReg(B64)
				e.emit("add.s64", x, ea, es)
				ea = x
			}
			var el Reg
			w := v[i*bytes/4].(Reg)
			if bytes == 2 {
				lo, hi := e.newReg(B16), e.newReg(B16)
				e.emit("mov.b32", Vec{lo, hi}, w)
				if i%2 == 0 {
					el = lo
				} else {
					el = hi
				}
			} else {
				el = e.newReg(classOf(dt))
				e.emit("mov.b32", el, w)
			}
			p := e.newReg(Pred)
			e.emit("and.pred", p, ps, colIn[i])
			e.emitIf(p, false, "st.global."+bt, Addr{Base: ea}, el)
		}
		if j+1 < nj {
			g2 := e.newReg(B64)
			e.emit("add.s64", g2, g, step)
			g = g2
		}
	}
}
