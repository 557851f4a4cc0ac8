package ptxgen

import (
	"fmt"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/lower"
)

// swizzled emits, in the entry block, the physical byte offset in a shared
// tile of the element at (row, colBytes): (row*rowBytes + colBytes) with
// lower.SwizzleXor(row)<<4 XORed in.
func (e *emitter) swizzled(row, colBytes Reg, rowBytes int) Reg {
	lin := e.newReg(B32)
	e.emit("mad.lo.u32", lin, row, Imm(rowBytes), colBytes)
	sw := e.newReg(B32)
	if rowBytes >= 128 {
		e.emit("and.b32", sw, row, Imm(7))
	} else {
		x := e.newReg(B32)
		e.emit("mul.lo.u32", x, row, Imm(rowBytes))
		y := e.newReg(B32)
		e.emit("shr.u32", y, x, Imm(7))
		e.emit("and.b32", sw, y, Imm(7))
	}
	s4 := e.newReg(B32)
	e.emit("shl.b32", s4, sw, Imm(4))
	r := e.newReg(B32)
	e.emit("xor.b32", r, lin, s4)
	return r
}

// tileOffset returns a register and an immediate whose sum is the swizzled
// byte offset of element (rowReg+rowConst, colReg+colConst) of a shared
// tile. The register is thread-invariant (computed once in the entry);
// constant parts that do not change the swizzle go to the immediate.
func (e *emitter) tileOffset(ld *ir.Instr, rowReg Reg, rowConst int, colReg Reg, colConst int) (Reg, int64) {
	rb := ld.Attrs.Int(ir.AttrKeyRowBytes)
	bytes := ld.Result().Type.Elem().Bytes()
	rowsPerPattern := 8
	if rb < 128 {
		rowsPerPattern = 1024 / rb
	}
	rc := ((rowConst % rowsPerPattern) + rowsPerPattern) % rowsPerPattern
	imm := int64(rowConst-rc) * int64(rb)
	cb := colConst * bytes
	cl := cb
	if rb >= 128 {
		cl = cb % 128
		imm += int64(cb - cl)
	}
	key := fmt.Sprintf("toff/%d/%d/%d/%d/%d", ld.Result().ID, rowReg.N, rc, colReg.N, cl)
	r := e.invariant(key, func() Reg {
		row := e.newReg(B32)
		e.emit("add.u32", row, rowReg, Imm(rc))
		col := e.newReg(B32)
		e.emit("mad.lo.u32", col, colReg, Imm(bytes), Imm(cl))
		return e.swizzled(row, col, rb)
	})
	return r, imm
}

// inv32 is a thread-invariant 32-bit value computed by gen.
func (e *emitter) inv32(key string, gen func(r Reg)) Reg {
	return e.invariant(key, func() Reg {
		r := e.newReg(B32)
		gen(r)
		return r
	})
}

// tileCopy is one async_copy: a tile of an array (the array, its tile
// indices and the tile's type) into shared memory, with its padding mode
// and copy path (ir.CopyVector, CopyElement or CopyAuto).
type tileCopy struct {
	arr  *ir.Value
	idx  []*ir.Value
	tile *ir.Tile
	pad  string
	path string
}

// emitSmemAlloc emits a ring: the address of its first copy.
func (e *emitter) emitSmemAlloc(in *ir.Instr) {
	if !e.usesSmem {
		e.fail("internal: smem_alloc in a kernel without shared memory")
	}
	base := e.newReg(B32)
	e.emit("add.u32", base, e.smemBase, Imm(in.Attrs.Int(ir.AttrKeySmem)))
	e.vals[in.Result()] = &value{smem: &smemVal{tile: in, base: base}}
}

// emitSmemSlot emits the address of one copy of a ring.
func (e *emitter) emitSmemSlot(in *ir.Instr) {
	ring := e.vals[in.Args[0]].smem
	sb := ring.tile.Attrs.Int(ir.AttrKeyStageBytes)
	r := e.newReg(B32)
	if c, ok := constInt(in.Args[1]); ok {
		e.emit("add.u32", r, ring.base, Imm(c*int64(sb)))
	} else {
		e.emit("mad.lo.u32", r, e.vals[in.Args[1]].reg, Imm(sb), ring.base)
	}
	e.vals[in.Result()] = &value{smem: &smemVal{tile: ring.tile, base: r}}
}

// emitAsyncCopy emits one part of a tile's copy into a shared tile.
func (e *emitter) emitAsyncCopy(in *ir.Instr) {
	n := len(in.Args)
	dst := in.Args[n-1]
	c := &tileCopy{
		arr:  in.Args[0],
		idx:  in.Args[1 : n-1],
		tile: dst.Type.(*ir.Tile),
		pad:  in.Pad(),
		path: in.StrAttr(ir.AttrKeyPath),
	}
	e.issueCopy(c, e.vals[dst].smem.base, in.IntAttr(ir.AttrKeyPart), in.IntAttr(ir.AttrKeyParts))
}

// issueCopy issues part q of n of a tile's copy into shared memory at
// base: 16-byte cp.async.cg (zero-filling out-of-bounds chunks through
// src-size) on the vector path, element by element with ordinary loads
// and st.shared on the element path, either under a uniform branch on the
// array's alignment on the auto path. Parts split the chunks of the
// regular form (lower.CopyGeometry) evenly.
func (e *emitter) issueCopy(c *tileCopy, base Reg, q, n int) {
	arrV := c.arr
	a, ws, idxV := e.smemWindow(c) // a 2-D view for windows of higher-rank arrays
	R, C := ws[0], ws[1]
	dt := a.dt
	bytes := dt.Bytes()
	E := 16 / bytes
	if C%E != 0 {
		e.fail("shared tile rows of %d elements are not a multiple of 16 bytes", C)
	}
	cpr := C / E
	total := R * cpr
	nj, rowStep, regular := lower.CopyGeometry(R, C, bytes, e.nt)
	rb := C * bytes

	idx := make([]Reg, 2)
	for d := 0; d < 2; d++ {
		idx[d] = e.vals[idxV[d]].reg
	}
	// origin in elements.
	org := make([]Reg, 2)
	for d := 0; d < 2; d++ {
		org[d] = e.newReg(B32)
		e.emit("mul.lo.s32", org[d], idx[d], Imm(ws[d]))
	}
	if regular {
		e.issueRegular(c, a, arrV, org, base, R, C, nj, rowStep, q*nj/n, (q+1)*nj/n)
		return
	}
	if n != 1 {
		e.fail("internal: copies in parts of an irregular tile")
	}
	// Per chunk j of this thread: row, chunk column, shared offset (invariant).
	type chunk struct {
		row, col Reg // element coordinates within the tile
		dst      Reg // swizzled byte offset
		valid    *Reg
	}
	chunks := make([]chunk, nj)
	for j := 0; j < nj; j++ {
		j := j
		key := fmt.Sprintf("chunk/%d/%d/%d", R, C, j)
		q := e.inv32(key+"/q", func(r Reg) { e.emit("add.u32", r, e.tid, Imm(j*e.nt)) })
		row := e.inv32(key+"/row", func(r Reg) { e.emit("shr.u32", r, q, Imm(log2(cpr))) })
		col := e.inv32(key+"/col", func(r Reg) {
			c := e.newReg(B32)
			e.emit("and.b32", c, q, Imm(cpr-1))
			e.emit("mul.lo.u32", r, c, Imm(E))
		})
		dst := e.invariant(key+"/dst", func() Reg {
			cb := e.newReg(B32)
			e.emit("mul.lo.u32", cb, col, Imm(bytes))
			return e.swizzled(row, cb, rb)
		})
		ch := chunk{row: row, col: col, dst: dst}
		if total%e.nt != 0 {
			v := e.invariant(key+"/valid", func() Reg {
				p := e.newReg(Pred)
				e.emit("setp.lt.u32", p, q, Imm(total))
				return p
			})
			ch.valid = &v
		}
		chunks[j] = ch
	}
	// Remaining extents from the tile origin.
	remR := e.newReg(B32)
	e.emit("sub.s32", remR, a.dims[0], org[0])
	remC := e.newReg(B32)
	e.emit("sub.s32", remC, a.dims[1], org[1])
	// Row base address of the tile origin (64-bit).
	o0 := e.newReg(B64)
	e.emit("cvt.s64.s32", o0, org[0])
	t0 := e.newReg(B64)
	e.emit("mul.lo.s64", t0, o0, a.strides[0])
	rowBase := e.newReg(B64)
	e.emit("mad.lo.s64", rowBase, t0, Imm(int64(bytes)), a.ptr)

	doFast, doSlow, slowL, doneL := e.copyBranch(c)
	if doFast {
		// Fast path: unit last stride, so the tile base is rowBase + org1*bytes.
		o1 := e.newReg(B64)
		e.emit("cvt.s64.s32", o1, org[1])
		tileBase := e.newReg(B64)
		e.emit("mad.lo.s64", tileBase, o1, Imm(int64(bytes)), rowBase)
		for _, ch := range chunks {
			ch := ch
			// Thread's offset within the tile in global memory (invariant).
			goff := e.invariant(fmt.Sprintf("goff/%d/%d/%d", arrV.ID, ch.row.N, ch.col.N), func() Reg {
				r64 := e.newReg(B64)
				e.emit("cvt.u64.u32", r64, ch.row)
				c64 := e.newReg(B64)
				e.emit("cvt.u64.u32", c64, ch.col)
				x := e.newReg(B64)
				e.emit("mul.lo.s64", x, r64, a.strides[0])
				y := e.newReg(B64)
				e.emit("add.s64", y, x, c64)
				z := e.newReg(B64)
				e.emit("mul.lo.s64", z, y, Imm(int64(bytes)))
				return z
			})
			pr := e.newReg(Pred)
			e.emit("setp.lt.s32", pr, ch.row, remR)
			cl := e.newReg(B32)
			e.emit("sub.s32", cl, remC, ch.col)
			e.emit("min.s32", cl, cl, Imm(E))
			e.emit("max.s32", cl, cl, Imm(0))
			sz := e.newReg(B32)
			e.emit("mul.lo.u32", sz, cl, Imm(bytes))
			e.emit("selp.b32", sz, sz, Imm(0), pr)
			pin := e.newReg(Pred)
			e.emit("setp.ne.s32", pin, sz, Imm(0))
			ga := e.newReg(B64)
			e.emit("add.s64", ga, tileBase, goff)
			src := e.newReg(B64)
			e.emit("selp.b64", src, ga, a.ptr, pin)
			sa := e.newReg(B32)
			e.emit("add.u32", sa, base, ch.dst)
			ops := []Operand{Addr{Base: sa}, Addr{Base: src}, Imm(16), sz}
			if ch.valid != nil {
				e.emitIf(*ch.valid, false, "cp.async.cg.shared.global", ops...)
			} else {
				e.emit("cp.async.cg.shared.global", ops...)
			}
		}
	}
	if doFast && doSlow {
		e.emit("bra.uni", Label(doneL))
		e.label(slowL)
	}
	if doSlow {
		// Slow path: element by element with any strides.
		var sc []slowChunk
		for _, ch := range chunks {
			pr := e.newReg(Pred)
			e.emit("setp.lt.s32", pr, ch.row, remR)
			if ch.valid != nil {
				e.emit("and.pred", pr, pr, *ch.valid)
			}
			r64 := e.newReg(B64)
			e.emit("cvt.u64.u32", r64, ch.row)
			x := e.newReg(B64)
			e.emit("mul.lo.s64", x, r64, a.strides[0])
			ra := e.newReg(B64)
			e.emit("mad.lo.s64", ra, x, Imm(int64(bytes)), rowBase)
			col := e.newReg(B32)
			e.emit("add.s32", col, org[1], ch.col)
			c64 := e.newReg(B64)
			e.emit("cvt.s64.s32", c64, col)
			y := e.newReg(B64)
			e.emit("mul.lo.s64", y, c64, a.strides[1])
			ea := e.newReg(B64)
			e.emit("mad.lo.s64", ea, y, Imm(int64(bytes)), ra)
			cl := e.newReg(B32)
			e.emit("sub.s32", cl, remC, ch.col)
			sa := e.newReg(B32)
			e.emit("add.u32", sa, base, ch.dst)
			sc = append(sc, slowChunk{ea: ea, sa: sa, cl: cl, pr: pr, valid: ch.valid})
		}
		e.slowCopy(c, a, arrV, sc)
	}
	if doFast && doSlow {
		e.label(doneL)
	}
}

// slowChunk is one 16-byte chunk of an element-wise shared-tile copy:
// its first element's global address, its shared address (sa+saOff),
// the elements left in its row (cl), whether its row is in bounds (pr),
// and, for irregular tiles, whether the chunk exists at all.
type slowChunk struct {
	ea, sa Reg
	saOff  int64
	cl, pr Reg
	valid  *Reg
}

// slowCopy copies chunks element by element (ld.global, st.shared). With
// a unit last stride (the usual slow case: rows that are not 16-byte
// aligned) element i is at an immediate offset from the chunk's address;
// otherwise the addresses are chained through the stride, computed here
// from the parameter. The two forms are separate basic blocks under a
// uniform branch, so ptxas keeps few addresses and loads in flight
// (docs/perf.md, v6: hoisted per-element stride offsets were 64-bit
// registers live across the whole loop and made it spill).
func (e *emitter) slowCopy(c *tileCopy, a *array, arrV *ir.Value, chunks []slowChunk) {
	dt := a.dt
	bytes := dt.Bytes()
	E := 16 / bytes
	bt := btype(dt)
	last := len(a.strides) - 1
	unit := e.invariant(fmt.Sprintf("unitstride/%d", arrV.ID), func() Reg {
		p := e.newReg(Pred)
		e.emit("setp.eq.s64", p, a.strides[last], Imm(1))
		return p
	})
	genL, endL := e.newLabel("cpgen"), e.newLabel("cpgend")
	e.emitIf(unit, true, "bra.uni", Label(genL))
	for form := 0; form < 2; form++ {
		var es Reg
		if form == 1 {
			e.label(genL)
			es = e.newReg(B64)
			e.emit("mul.lo.s64", es, a.strides[last], Imm(int64(bytes)))
		}
		for _, ch := range chunks {
			addr := ch.ea
			for i := 0; i < E; i++ {
				p := e.newReg(Pred)
				e.emit("setp.gt.s32", p, ch.cl, Imm(i))
				e.emit("and.pred", p, p, ch.pr)
				src := Addr{Base: ch.ea, Off: int64(i * bytes)}
				if form == 1 {
					if i > 0 {
						x := e.newReg(B64)
						e.emit("add.s64", x, addr, es)
						addr = x
					}
					src = Addr{Base: addr}
				}
				v := e.slowPadReg(c.pad, dt)
				e.emitIf(p, false, "ld.global."+bt, v, src)
				st := Instr{Op: "st.shared." + bt, Args: []Operand{Addr{Base: ch.sa, Off: ch.saOff + int64(i*bytes)}, v}}
				if ch.valid != nil {
					g := *ch.valid
					st.Guard = &g
				}
				*e.cur = append(*e.cur, st)
			}
		}
		if form == 0 {
			e.emit("bra.uni", Label(endL))
		}
	}
	e.label(endL)
}

// slowPadReg is a fresh register holding the padding value of an
// element-wise shared-tile copy: zero, or the load's padding mode (the
// fast cp.async path zero-fills, so other modes always take this path).
func (e *emitter) slowPadReg(pad string, dt ir.DType) Reg {
	v := e.newReg(classOf(dt))
	if pad != "" && pad != ir.PadZero {
		e.emit("mov."+btypeReg(classOf(dt)), v, e.padValue(pad, dt))
		return v
	}
	if dt.Bytes() == 2 {
		e.emit("mov.b16", v, Imm(0))
	} else {
		e.emit(movOp(classOf(dt)), v, e.zeroImm(dt))
	}
	return v
}

func (e *emitter) zeroImm(d ir.DType) Operand {
	switch d {
	case ir.F32, ir.TF32:
		return F32Imm(0)
	case ir.F64:
		return F64Imm(0)
	}
	return Imm(0)
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func log2(n int) int {
	k := 0
	for 1<<k < n {
		k++
	}
	return k
}

// issueRegular is issueSmemLoad when every thread copies nj chunks of one
// column, rowStep rows apart, and rowStep keeps the swizzle pattern: the
// shared offsets then differ by immediates and the global addresses by one
// 64-bit stride, so the loop carries few registers.
func (e *emitter) issueRegular(c *tileCopy, a *array, arrV *ir.Value, org []Reg, base Reg, R, C, nj, rowStep, jFrom, jTo int) {
	dt := a.dt
	bytes := dt.Bytes()
	E := 16 / bytes
	cpr := C / E
	rb := C * bytes
	key := fmt.Sprintf("reg/%d/%d", R, C)
	row0 := e.inv32(key+"/row", func(r Reg) { e.emit("shr.u32", r, e.tid, Imm(log2(cpr))) })
	col0 := e.inv32(key+"/col", func(r Reg) {
		x := e.newReg(B32)
		e.emit("and.b32", x, e.tid, Imm(cpr-1))
		e.emit("mul.lo.u32", r, x, Imm(E))
	})
	// Chunk j's row is row0 + j*rowStep, so its swizzle depends on j
	// modulo nb (nb = 1 when rowStep is a multiple of the swizzle
	// pattern's rows): chunk j is at shared offset dst(j%nb) plus the
	// immediate (j - j%nb)*rowStep*rb.
	rowsPerPattern := 8
	if rb < 128 {
		rowsPerPattern = 1024 / rb
	}
	nb := rowsPerPattern / gcd(rowStep, rowsPerPattern)
	dst := func(b int) Reg {
		return e.invariant(fmt.Sprintf("%s/dst/%d", key, b), func() Reg {
			cb := e.newReg(B32)
			e.emit("mul.lo.u32", cb, col0, Imm(bytes))
			row := row0
			if b > 0 {
				row = e.newReg(B32)
				e.emit("add.u32", row, row0, Imm(b*rowStep))
			}
			return e.swizzled(row, cb, rb)
		})
	}
	// Remaining rows below this thread's first row, and bytes left in its chunk's row.
	rr := e.newReg(B32)
	e.emit("sub.s32", rr, a.dims[0], org[0])
	e.emit("sub.s32", rr, rr, row0)
	cl := e.newReg(B32)
	e.emit("sub.s32", cl, a.dims[1], org[1])
	e.emit("sub.s32", cl, cl, col0)
	sas := map[int]Reg{}
	// shared returns the register and immediate addressing chunk j.
	shared := func(j int) (Reg, int64) {
		b := j % nb
		r, ok := sas[b]
		if !ok {
			r = e.newReg(B32)
			e.emit("add.u32", r, base, dst(b))
			sas[b] = r
		}
		return r, int64((j - b) * rowStep * rb)
	}
	// Every base register is made here, before the branch between the
	// vector and the element-wise path: one first made inside the vector
	// path would be undefined on the element-wise path (a 64x256 f32 tile
	// copied by 256 threads has nb = 2, and its unaligned copies read a
	// garbage base where ptxas allocated the register otherwise).
	for j := jFrom; j < jTo && j < jFrom+nb; j++ {
		shared(j)
	}

	doFast, doSlow, slowL, doneL := e.copyBranch(c)
	if doFast {
		goff := e.invariant(fmt.Sprintf("goff/%d/%d/%d", arrV.ID, R, C), func() Reg {
			r64 := e.newReg(B64)
			e.emit("cvt.u64.u32", r64, row0)
			c64 := e.newReg(B64)
			e.emit("cvt.u64.u32", c64, col0)
			x := e.newReg(B64)
			e.emit("mad.lo.s64", x, r64, a.strides[0], c64)
			z := e.newReg(B64)
			e.emit("mul.lo.s64", z, x, Imm(int64(bytes)))
			return z
		})
		step := e.byteOffset(a, arrV, 0, rowStep)
		// g = ptr + (org0*stride0 + org1)*bytes + goff
		o0 := e.newReg(B64)
		e.emit("cvt.s64.s32", o0, org[0])
		o1 := e.newReg(B64)
		e.emit("cvt.s64.s32", o1, org[1])
		t := e.newReg(B64)
		e.emit("mad.lo.s64", t, o0, a.strides[0], o1)
		g := e.newReg(B64)
		e.emit("mad.lo.s64", g, t, Imm(int64(bytes)), a.ptr)
		e.emit("add.s64", g, g, goff)
		if jFrom > 0 {
			// Computed here rather than hoisted: the stride is a parameter.
			x := e.newReg(B64)
			e.emit("mul.lo.s64", x, a.strides[0], Imm(int64(jFrom*rowStep*bytes)))
			e.emit("add.s64", g, g, x)
		}
		sz := e.newReg(B32)
		e.emit("min.s32", sz, cl, Imm(E))
		e.emit("max.s32", sz, sz, Imm(0))
		e.emit("mul.lo.u32", sz, sz, Imm(bytes))
		for j := jFrom; j < jTo; j++ {
			p := e.newReg(Pred)
			e.emit("setp.gt.s32", p, rr, Imm(j*rowStep))
			szj := e.newReg(B32)
			e.emit("selp.b32", szj, sz, Imm(0), p)
			pin := e.newReg(Pred)
			e.emit("setp.ne.s32", pin, szj, Imm(0))
			src := e.newReg(B64)
			e.emit("selp.b64", src, g, a.ptr, pin)
			sa, off := shared(j)
			e.emit("cp.async.cg.shared.global", Addr{Base: sa, Off: off}, Addr{Base: src}, Imm(16), szj)
			if j+1 < jTo {
				g2 := e.newReg(B64)
				e.emit("add.s64", g2, g, step)
				g = g2
			}
		}
	}
	if doFast && doSlow {
		e.emit("bra.uni", Label(doneL))
		e.label(slowL)
	}
	if doSlow {
		// Element by element with any strides.
		r64 := e.newReg(B64)
		e.emit("cvt.u64.u32", r64, row0)
		o0 := e.newReg(B64)
		e.emit("cvt.s64.s32", o0, org[0])
		e.emit("add.s64", r64, r64, o0)
		col := e.newReg(B32)
		e.emit("add.s32", col, org[1], col0)
		c64 := e.newReg(B64)
		e.emit("cvt.s64.s32", c64, col)
		x := e.newReg(B64)
		e.emit("mul.lo.s64", x, r64, a.strides[0])
		e.emit("mad.lo.s64", x, c64, a.strides[1], x)
		ea := e.newReg(B64)
		e.emit("mad.lo.s64", ea, x, Imm(int64(bytes)), a.ptr)
		if jFrom > 0 {
			y := e.newReg(B64)
			e.emit("mul.lo.s64", y, a.strides[0], Imm(int64(jFrom*rowStep*bytes)))
			e.emit("add.s64", ea, ea, y)
		}
		// The row step is computed here from the parameter, not hoisted:
		// hoisted, it was a 64-bit register live across the whole loop.
		step := e.newReg(B64)
		e.emit("mul.lo.s64", step, a.strides[0], Imm(int64(rowStep*bytes)))
		var chunks []slowChunk
		for j := jFrom; j < jTo; j++ {
			pr := e.newReg(Pred)
			e.emit("setp.gt.s32", pr, rr, Imm(j*rowStep))
			sa, off := shared(j)
			chunks = append(chunks, slowChunk{ea: ea, sa: sa, saOff: off, cl: cl, pr: pr})
			if j+1 < jTo {
				ea2 := e.newReg(B64)
				e.emit("add.s64", ea2, ea, step)
				ea = ea2
			}
		}
		e.slowCopy(c, a, arrV, chunks)
	}
	if doFast && doSlow {
		e.label(doneL)
	}
}

// fastFlag is the uniform predicate under which a tile can be copied with
// 16-byte cp.async: unit last stride, 16-byte aligned rows, zero padding.
func (e *emitter) fastFlag(c *tileCopy) Reg {
	a := e.arrs[c.arr]
	return e.invariant(fmt.Sprintf("cpfast/%d/%s", c.arr.ID, c.pad), func() Reg {
		if c.pad != "" && c.pad != ir.PadZero {
			q := e.newReg(Pred)
			e.emit("setp.ne.s32", q, Imm(0), Imm(0))
			return q
		}
		return e.alignedFlag(a, c.arr, 16)
	})
}

// copyBranch starts the copy code of c by its path: it returns whether to
// emit the vector and the element-wise path, and on the auto path emits
// the uniform branch on c's fastFlag between them.
func (e *emitter) copyBranch(c *tileCopy) (doFast, doSlow bool, slowL, doneL string) {
	switch c.path {
	case ir.CopyVector:
		return true, false, "", ""
	case ir.CopyElement:
		return false, true, "", ""
	}
	fast := e.fastFlag(c)
	slowL, doneL = e.newLabel("cpslow"), e.newLabel("cpdone")
	e.emitIf(fast, true, "bra.uni", Label(slowL))
	return true, true, slowL, doneL
}
