package ptxgen

// Emitters of the sm_90a ops (lower's warpspec pass): mbarrier rings, TMA
// copies, wgmma, setmaxnreg and the persistent kernel's ids. The facts
// used (descriptor fields, accumulator layout, barrier parity, tensor map
// parameters) are ../shared/PTX.md section 3, checked on an H100.

import (
	"fmt"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/lower"
)

// Shared-memory matrix descriptor constants (PTX.md 3.2): 128-byte
// swizzle (bits 62-63 = 1), stride byte offset 1024 (8 rows of 128 bytes)
// in bits 32-45, and for K-major operands a leading byte offset of 16
// (ignored by the hardware for swizzled K-major tiles, 1 by convention).
const (
	descSwizzle128 = uint64(1) << 62
	descSBO1024    = uint64(1024>>4) << 32
)

// swizzleFields are a K-major operand's descriptor fields for its slabs'
// row bytes: the 128-byte swizzle with 8-row atoms of 1024 bytes, or for
// 64-byte rows (a K tile of 32) the 64-byte swizzle (bits 62-63 = 2) with
// atoms of 512 (PTX.md 2.4 and 3.2).
func swizzleFields(rowBytes int) uint64 {
	if rowBytes == 64 {
		return uint64(2)<<62 | uint64(512>>4)<<32
	}
	return descSwizzle128 | descSBO1024
}

// kStepOffset is the byte offset of k-step kk (16 columns) in a K-major
// slab ring: slab kk/(per slab) of slab bytes, then 32 bytes per step
// inside the slab's rows (the swizzle applies to the address the
// descriptor starts at, PTX.md 3.2).
func kStepOffset(kk, rowBytes, slab int) int {
	per := rowBytes / 32
	return (kk/per)*slab + 32*(kk%per)
}

func init() {
	set := func(f func(e *emitter, in *ir.Instr), ops ...ir.Op) {
		for _, op := range ops {
			opEmitters[op] = f
		}
	}
	set((*emitter).emitMbarAlloc, ir.OpMbarAlloc)
	set((*emitter).emitMbarWait, ir.OpMbarWait)
	set((*emitter).emitMbarArrive, ir.OpMbarArrive)
	set((*emitter).emitMbarExpect, ir.OpMbarExpect)
	set((*emitter).emitTMALoad, ir.OpTMALoad)
	set((*emitter).emitTMALoadPair, ir.OpTMALoadPair)
	set(func(e *emitter, in *ir.Instr) { e.special(in, "%cluster_ctarank") }, ir.OpClusterRank)
	set(func(e *emitter, in *ir.Instr) {
		// Release before, acquire after (the defaults): the barrier
		// initialisation and the last copies are seen across the cluster.
		e.emit("barrier.cluster.arrive")
		e.emit("barrier.cluster.wait")
	}, ir.OpClusterSync)
	set((*emitter).emitWGMMA, ir.OpWGMMA)
	set(func(e *emitter, in *ir.Instr) {
		e.emit("wgmma.wait_group.sync.aligned", Imm(in.IntAttr(ir.AttrKeyPending)))
	}, ir.OpWGMMAWait)
	set((*emitter).emitSetMaxRegs, ir.OpSetMaxRegs)
	set(func(e *emitter, in *ir.Instr) {
		r := e.newReg(B32)
		e.emit("mov.u32", r, e.warp)
		e.vals[in.Result()] = &value{reg: r}
	}, ir.OpWarpID)
	set(func(e *emitter, in *ir.Instr) { e.special(in, "%ctaid.x") }, ir.OpCTAID)
	set(func(e *emitter, in *ir.Instr) { e.special(in, "%nctaid.x") }, ir.OpCTACount)
	set((*emitter).emitGridSize, ir.OpGridSize)
	set((*emitter).emitTMAStore, ir.OpTMAStore)
	set(func(e *emitter, in *ir.Instr) {
		op := "cp.async.bulk.wait_group"
		if in.BoolAttr(ir.AttrKeyRead) {
			op += ".read"
		}
		e.emitIf(e.thread0(), false, op, Imm(0))
	}, ir.OpTMAStoreWait)
	set(func(e *emitter, in *ir.Instr) { e.emit("fence.proxy.async.shared::cta") }, ir.OpFenceProxyAsync)
}

// special reads a special register into an i32 result.
func (e *emitter) special(in *ir.Instr, name string) {
	r := e.newReg(B32)
	e.emit("mov.u32", r, Sym(name))
	e.vals[in.Result()] = &value{reg: r}
}

// entryOnce computes a thread-invariant value once for the whole kernel,
// in its entry code: values the branches of both warpgroup roles use
// (parameters, predicates), which invariant would compute per branch. gen
// may only read registers the entry code defines (parameters, %tid and
// its lane and warp), never values computed in the body.
func (e *emitter) entryOnce(key string, gen func() Reg) Reg {
	if r, ok := e.atEntry[key]; ok {
		return r
	}
	if e.atEntry == nil {
		e.atEntry = map[string]Reg{}
	}
	saved := e.cur
	e.cur = &e.entry
	r := gen()
	e.cur = saved
	e.atEntry[key] = r
	return r
}

// predOnce computes a thread-invariant predicate once (see entryOnce).
func (e *emitter) predOnce(key string, gen func(p Reg)) Reg {
	return e.entryOnce("pred:"+key, func() Reg {
		p := e.newReg(Pred)
		gen(p)
		return p
	})
}

// thread0 is true in the block's thread 0.
func (e *emitter) thread0() Reg {
	return e.predOnce("thread0", func(p Reg) { e.emit("setp.eq.u32", p, e.tid, Imm(0)) })
}

// lane0 is true in each warp's lane 0 (the producer's issuing thread).
func (e *emitter) lane0() Reg {
	return e.predOnce("lane0", func(p Reg) { e.emit("setp.eq.u32", p, e.lane, Imm(0)) })
}

// groupLeader is true in each warpgroup's first thread.
func (e *emitter) groupLeader() Reg {
	return e.predOnce("wg0", func(p Reg) {
		r := e.newReg(B32)
		e.emit("and.b32", r, e.tid, Imm(127))
		e.emit("setp.eq.u32", p, r, Imm(0))
	})
}

// emitMbarAlloc places a ring of mbarriers and initialises them (thread 0;
// the pass puts a barrier after the rings, so every thread sees them).
func (e *emitter) emitMbarAlloc(in *ir.Instr) {
	if !e.usesSmem {
		e.fail("internal: mbar_alloc in a kernel without shared memory")
	}
	base := e.newReg(B32)
	e.emit("add.u32", base, e.smemBase, Imm(in.Attrs.Int(ir.AttrKeySmem)))
	p := e.thread0()
	for s := 0; s < in.IntAttr(ir.AttrKeyStages); s++ {
		e.emitIf(p, false, "mbarrier.init.shared::cta.b64", Addr{Base: base, Off: int64(8 * s)}, Imm(in.IntAttr(ir.AttrKeyCount)))
	}
	e.emitIf(p, false, "fence.mbarrier_init.release.cluster")
	e.vals[in.Result()] = &value{reg: base}
}

// mbarAddr is the address of barrier slot of ring bar.
func (e *emitter) mbarAddr(bar, slot *ir.Value) Reg {
	a := e.newReg(B32)
	if c, ok := constInt(slot); ok {
		e.emit("add.u32", a, e.vals[bar].reg, Imm(8*c))
	} else {
		e.emit("mad.lo.u32", a, e.vals[slot].reg, Imm(8), e.vals[bar].reg)
	}
	return a
}

// emitMbarWait spins on try_wait.parity (PTX.md 3.4: the raw parity wait
// was fast.cu's biggest single step).
func (e *emitter) emitMbarWait(in *ir.Instr) {
	a := e.mbarAddr(in.Args[0], in.Args[1])
	p := e.newReg(Pred)
	l := e.newLabel("mbar_wait")
	e.label(l)
	// In pair mode the empty barriers' arrivals come from both blocks'
	// consumers; acquiring at CTA scope is enough, as in CUTLASS's cluster
	// barrier: the copies the producer then issues only overwrite shared
	// memory whose reads the arrivals report complete (acquire.cluster
	// measured no different).
	e.emit("mbarrier.try_wait.parity.shared::cta.b64", p, Addr{Base: a}, e.vals[in.Args[2]].reg)
	e.emitIf(p, true, "bra", Label(l))
}

// emitMbarArrive: the first thread of each warpgroup arrives, where the
// condition holds.
func (e *emitter) emitMbarArrive(in *ir.Instr) {
	a := e.mbarAddr(in.Args[0], in.Args[1])
	p := e.newReg(Pred)
	e.emit("and.pred", p, e.groupLeader(), e.vals[in.Args[2]].reg)
	n := in.IntAttr(ir.AttrKeyArriveCluster)
	if n <= 1 {
		e.emitIf(p, false, "mbarrier.arrive.shared::cta.b64", Sym("_"), Addr{Base: a})
		return
	}
	// The same barrier in every block of the cluster, this block's
	// included (PTX.md 3.4's remote arrive, mapa to the block's address).
	// The default semantics (release at CTA scope) as CUTLASS's cluster
	// barrier has them: what the arrival orders is the wgmma's reads of the
	// stage, already complete; a release at cluster scope would wait for
	// this thread's memory operations to reach the cluster, on the path
	// between two stages' wgmmas (measured: half the speed; docs/perf.md).
	for r := 0; r < n; r++ {
		ra := e.newReg(B32)
		e.emit("mapa.shared::cluster.u32", ra, a, Imm(r))
		e.emitIf(p, false, "mbarrier.arrive.shared::cluster.b64", Sym("_"), Addr{Base: ra})
	}
}

func (e *emitter) emitMbarExpect(in *ir.Instr) {
	a := e.mbarAddr(in.Args[0], in.Args[1])
	e.emitIf(e.lane0(), false, "mbarrier.arrive.expect_tx.shared::cta.b64", Sym("_"), Addr{Base: a}, Imm(in.IntAttr(ir.AttrKeyBytes)))
}

// tensorMap returns the generic address of the tensor map of array param
// arr with the given box, declaring the parameter the first time.
func (e *emitter) tensorMap(arr *ir.Value, box [2]int) Reg {
	idx := e.f.ParamIndex(arr)
	if idx < 0 {
		e.fail("internal: tma_load of %s, which is not a kernel parameter", arr)
	}
	name := fmt.Sprintf("p_%s_tmap_%dx%d", sanitize(e.f.Params[idx].Name), box[1], box[0])
	return e.entryOnce("tmap:"+name, func() Reg {
		e.params = append(e.params, ParamSlot{Kind: SlotTensorMap, Param: idx, Box: box})
		e.paramDecl = append(e.paramDecl, ".param .align 64 .b8 "+name+"[128]")
		r := e.newReg(B64)
		e.emit("mov.u64", r, Sym(name))
		e.emit("cvta.param.u64", r, r)
		return r
	})
}

// emitGridSize reads the grid's extent along an axis from its parameter.
func (e *emitter) emitGridSize(in *ir.Instr) {
	ax := in.Axis()
	name := fmt.Sprintf("p_grid%d", ax)
	r := e.entryOnce("grid:"+name, func() Reg {
		e.params = append(e.params, ParamSlot{Kind: SlotGrid, Axis: ax})
		e.paramDecl = append(e.paramDecl, ".param .u32 "+name)
		r := e.newReg(B32)
		e.emit("ld.param.u32", r, Addr{Base: Sym(name)})
		return r
	})
	e.vals[in.Result()] = &value{reg: r}
}

// tmaCopy is what the TMA copies of a tma_load or tma_load_pair share:
// the array, the tile's indices (row, column; the indices that pick the
// matrix of a 3-D or 4-D array go in batch, the map's outer coordinates,
// innermost first), the destination, its shape and slab size, and the
// barrier the copies complete on.
type tmaCopy struct {
	arr        *ir.Value
	idx        []*ir.Value
	dst        *smemVal
	rows, cols int
	slab       int
	slabCols   int // columns per slab: the box's width
	rowBytes   int // bytes of one slab row
	bar        Reg
	batch      string
	op         string // the copy instruction, without multicast
}

// tmaCopyOf reads a TMA load whose operands end with extra values after
// the destination, the barrier ring and its slot.
func (e *emitter) tmaCopyOf(in *ir.Instr, extra int) *tmaCopy {
	n := len(in.Args) - extra
	c := &tmaCopy{arr: in.Args[0], idx: in.Args[1 : n-3], dst: e.vals[in.Args[n-3]].smem}
	tt := in.Args[n-3].Type.(*ir.Tile)
	c.rows, c.cols = tt.Shape[0], tt.Shape[1]
	c.slab = c.dst.tile.Attrs.Int(ir.AttrKeySlabBytes)
	c.rowBytes = c.dst.tile.Attrs.Int(ir.AttrKeyRowBytes)
	c.slabCols = c.rowBytes / tt.DType.Bytes()
	if len(c.idx) < 2 || len(c.idx) > 4 || c.slab == 0 || c.slabCols == 0 {
		e.fail("internal: %s with %d indices into a ring without slabs", in.Op, len(c.idx))
	}
	c.bar = e.mbarAddr(in.Args[n-2], in.Args[n-1])
	rank := len(c.idx)
	c.batch = e.outerCoords(c.idx)
	c.idx = c.idx[rank-2:]
	c.op = fmt.Sprintf("cp.async.bulk.tensor.%dd.shared::cluster.global.tile.mbarrier::complete_tx::bytes", rank)
	return c
}

// outerCoords are the TMA coordinates after a tile's (col, row) of the
// indices before its last two (the matrix of a 3-D or 4-D array), each
// prefixed by ", ": the map's boxes are one element deep along the outer
// axes, so their tile indices are element coordinates, and (b, h, row,
// col) of a 4-D array is {col, row, h, b}.
func (e *emitter) outerCoords(idx []*ir.Value) string {
	s := ""
	for i := len(idx) - 3; i >= 0; i-- {
		s += ", " + e.vals[idx[i]].reg.ptx()
	}
	return s
}

// source is the copy's [map, {coords}] operand.
func (c *tmaCopy) source(tm Reg, coords string) Operand {
	return Sym(fmt.Sprintf("[%s, {%s%s}]", tm.ptx(), coords, c.batch))
}

// emitTMALoad issues one TMA copy per slab (128 or 64 bytes of each row)
// of the tile, from the lane-0 thread, completing on the barrier.
func (e *emitter) emitTMALoad(in *ir.Instr) {
	c := e.tmaCopyOf(in, 0)
	tm := e.tensorMap(c.arr, [2]int{c.slabCols, c.rows})
	p := e.lane0()
	e.eachSlab(c.idx, c.rows, c.cols, c.slabCols, c.dst.base, c.slab, func(coords string, s Reg) {
		e.emitIf(p, false, c.op, Addr{Base: s}, c.source(tm, coords), Addr{Base: c.bar})
	})
}

// emitTMALoadPair issues a tile both blocks of a cluster of two may need
// (lower's pair mode): where the share flag holds, this block copies its
// half into both blocks with .multicast::cluster (mask 0b11; the bytes
// complete on the barrier at the same offset in each block), the halves
// being alternate slabs ("slabs") or the top and bottom rows of every
// slab ("rows", a tensor map with half the box's rows); elsewhere it
// copies the whole tile into its own shared memory as tma_load does.
func (e *emitter) emitTMALoadPair(in *ir.Instr) {
	c := e.tmaCopyOf(in, 2)
	n := len(in.Args)
	share, rank := e.vals[in.Args[n-2]].reg, e.vals[in.Args[n-1]].reg

	// Alone: the whole tile, as tma_load.
	alone := e.newReg(Pred)
	e.emit("not.pred", alone, share)
	e.emit("and.pred", alone, alone, e.lane0())
	whole := e.tensorMap(c.arr, [2]int{c.slabCols, c.rows})
	e.eachSlab(c.idx, c.rows, c.cols, c.slabCols, c.dst.base, c.slab, func(coords string, s Reg) {
		e.emitIf(alone, false, c.op, Addr{Base: s}, c.source(whole, coords), Addr{Base: c.bar})
	})

	// Shared: this block's half, to both.
	mask := e.newReg(B16)
	e.emit("mov.b16", mask, Imm(3))
	issue := e.newReg(Pred)
	e.emit("and.pred", issue, share, e.lane0())
	mc := c.op + ".multicast::cluster"
	switch in.StrAttr(ir.AttrKeySplit) {
	case "slabs":
		// Slab q goes from the block of rank q%2.
		even := e.newReg(Pred)
		e.emit("setp.eq.u32", even, rank, Imm(0))
		mine := [2]Reg{e.newReg(Pred), e.newReg(Pred)}
		e.emit("and.pred", mine[0], issue, even)
		e.emit("not.pred", mine[1], even)
		e.emit("and.pred", mine[1], issue, mine[1])
		q := 0
		e.eachSlab(c.idx, c.rows, c.cols, c.slabCols, c.dst.base, c.slab, func(coords string, s Reg) {
			e.emitIf(mine[q%2], false, mc, Addr{Base: s}, c.source(whole, coords), Addr{Base: c.bar}, mask)
			q++
		})
	case "rows":
		// Rows rank*rows/2 .. of every slab, from a map of half-height boxes.
		half := e.tensorMap(c.arr, [2]int{c.slabCols, c.rows / 2})
		rowOff := e.newReg(B32)
		e.emit("mul.lo.u32", rowOff, rank, Imm(c.rows/2))
		base := e.newReg(B32)
		e.emit("mad.lo.u32", base, rowOff, Imm(c.rowBytes), c.dst.base)
		e.eachSlabAt(c.idx, c.rows, c.cols, c.slabCols, rowOff, base, c.slab, func(coords string, s Reg) {
			e.emitIf(issue, false, mc, Addr{Base: s}, c.source(half, coords), Addr{Base: c.bar}, mask)
		})
	default:
		e.fail("internal: tma_load_pair split %q", in.StrAttr(ir.AttrKeySplit))
	}
}

// eachSlab calls copy for each slab (slabCols columns) of a rows x cols
// tile at tile index idx (row, column): with the slab's TMA coordinates
// ("col, row", elements, innermost first) and its shared address (base
// plus slab bytes per slab).
func (e *emitter) eachSlab(idx []*ir.Value, rows, cols, slabCols int, base Reg, slab int, copy func(coords string, s Reg)) {
	e.eachSlabAt(idx, rows, cols, slabCols, nil, base, slab, copy)
}

// eachSlabAt is eachSlab with rowOff (a register, or nil) added to the
// tile's first row.
func (e *emitter) eachSlabAt(idx []*ir.Value, rows, cols, slabCols int, rowOff Operand, base Reg, slab int, copy func(coords string, s Reg)) {
	row := e.newReg(B32)
	e.emit("mul.lo.s32", row, e.vals[idx[0]].reg, Imm(rows))
	if rowOff != nil {
		e.emit("add.s32", row, row, rowOff)
	}
	col := e.newReg(B32)
	e.emit("mul.lo.s32", col, e.vals[idx[1]].reg, Imm(cols))
	for q := 0; q < cols/slabCols; q++ {
		c := col
		if q > 0 {
			c = e.newReg(B32)
			e.emit("add.s32", c, col, Imm(slabCols*q))
		}
		s := e.newReg(B32)
		e.emit("add.u32", s, base, Imm(q*slab))
		copy(c.ptx()+", "+row.ptx(), s)
	}
}

// descriptor computes the 64-bit wgmma descriptor of the shared address
// addr with the constant fields hi.
func (e *emitter) descriptor(addr Reg, hi uint64) Reg {
	t := e.newReg(B32)
	e.emit("shr.u32", t, addr, Imm(4))
	e.emit("and.b32", t, t, Imm(0x3FFF))
	d := e.newReg(B64)
	e.emit("cvt.u64.u32", d, t)
	e.emit("or.b64", d, d, Imm(int64(hi)))
	return d
}

// emitWGMMA issues one stage's wgmmas: each consumer warpgroup g (warps
// 4g..4g+3, rows 64g..64g+63 of the accumulator in its layout) multiplies
// its 64 rows of A by all of B, one m64nNk16 per 16 columns of K (k32 per
// 32 for float8: the same 32 bytes), in place on the accumulator's
// registers, then commits the group. Descriptors (PTX.md 3.2): A is
// K-major in slabs of 128-byte rows (the 128-byte swizzle) or, for a K
// tile of 64 bytes, one slab of rows x 64 bytes (the 64-byte swizzle), +32
// bytes per k-step inside a slab (kStepOffset); B (K, N) is MN-major
// (trans-b 1, 16-bit only): 64-column slabs of N (LBO = slab bytes), or
// for an N tile of 32 one slab of 64-byte rows, a k-step 16 rows further;
// B (N, K) is K-major like A.
// Float8 wgmma has no transpose operands (both are K-major).
func (e *emitter) emitWGMMA(in *ir.Instr) {
	av, b := e.vals[in.Args[0]], e.vals[in.Args[1]].smem
	acc := e.vals[in.Args[2]]
	at := in.Args[0].Type.(*ir.Tile)
	bt := in.Args[1].Type.(*ir.Tile)
	transB := in.BoolAttr(ir.AttrKeyTransB)
	zeroInit := in.BoolAttr(ir.AttrKeyZeroInit)
	m, k := at.Shape[0], at.Shape[1]
	n := bt.Shape[1]
	if !transB {
		n = bt.Shape[0]
	}
	lay := e.layout(in.Result())
	if lay.NumRegs() != n/2 || (!zeroInit && len(acc.regs) != lay.NumRegs()) {
		e.fail("internal: wgmma accumulator of %d registers for %dx%d over %d warps", len(acc.regs), m, n, e.nw)
	}
	slabB := b.tile.Attrs.Int(ir.AttrKeySlabBytes)
	rowsB := b.tile.Attrs.Int(ir.AttrKeyRowBytes)
	var descA Reg
	rowsA := 0
	var aRegs [][4]Reg // register-A form: the four b32 fragment registers per k-step
	if a := av.smem; a != nil {
		rowsA = a.tile.Attrs.Int(ir.AttrKeyRowBytes)
		// Warpgroup g's rows of A start g*64 rows into each slab.
		sh := 13 // 64 rows x 128 bytes
		if rowsA == 64 {
			sh = 12
		}
		g := e.entryOnce(fmt.Sprint("wgrows", sh), func() Reg {
			r := e.newReg(B32)
			e.emit("shr.u32", r, e.warp, Imm(2))
			e.emit("shl.b32", r, r, Imm(sh))
			return r
		})
		aAddr := e.newReg(B32)
		e.emit("add.u32", aAddr, a.base, g)
		descA = e.descriptor(aAddr, swizzleFields(rowsA)|1<<16)
	} else {
		// A in registers, in the accumulator's layout (16-bit): the pairs
		// of each 8-column chunk are wgmma's A fragments, chunk 2kk giving
		// a0 (row g) and a1 (row g+8), chunk 2kk+1 a2 and a3 (PTX.md 3.3:
		// each chunk repeats the m16n8 C layout, which is the A layout).
		if av.regs == nil || at.DType.Bytes() != 2 || !lower.SameLayout(av.lay, lower.MMALayout(m, k, m/16, 1)) {
			e.fail("internal: wgmma register operand of %s not in the warpgroup accumulator layout", at)
		}
		for kk := 0; kk < k/16; kk++ {
			var f [4]Reg
			for q := range f {
				f[q] = e.newReg(B32)
				e.emit("mov.b32", f[q], Vec{av.regs[8*kk+2*q], av.regs[8*kk+2*q+1]})
			}
			aRegs = append(aRegs, f)
		}
	}
	var descB Reg
	if transB {
		// MN-major: the swizzle atom is 8 rows of K by one slab row of N
		// (64 columns, or 32 for an N tile of 32: the 64-byte swizzle),
		// so the stride byte offset is 8 slab rows, as for K-major
		// operands (swizzleFields), and the leading byte offset the
		// distance between slabs of N.
		descB = e.descriptor(b.base, swizzleFields(rowsB)|uint64(slabB>>4)<<16)
	} else {
		descB = e.descriptor(b.base, swizzleFields(rowsB)|1<<16)
	}
	scale := e.predOnce("true", func(p Reg) { e.emit("setp.eq.u32", p, e.tid, e.tid) })
	noScale := scale
	regs := acc.regs
	if zeroInit {
		// D = A*B on the first k-step: the accumulator is not read.
		noScale = e.predOnce("false", func(p Reg) { e.emit("setp.ne.u32", p, e.tid, e.tid) })
		regs = make([]Reg, lay.NumRegs())
		for i := range regs {
			regs[i] = e.newReg(classOf(in.Result().Type.Elem()))
		}
	}
	kstep := 32 / at.DType.Bytes()
	integer := at.DType.IsByteInt()
	dt := "f32"
	if integer {
		dt = "s32"
		if at.DType != bt.DType && versionLess(e.t.PTXVersion, "8.4") {
			// s8 x u8 wgmma is PTX 8.4 (ptxas: "mixed integer types").
			t := *e.t
			t.PTXVersion = "8.4"
			e.t = &t
		}
	}
	shape := fmt.Sprintf("wgmma.mma_async.sync.aligned.m64n%dk%d.%s.%s.%s", n, kstep, dt, wgmmaType(at.DType), wgmmaType(bt.DType))
	oneByte := at.DType.Bytes() == 1
	if oneByte && (transB || aRegs != nil) {
		e.fail("internal: one-byte wgmma with a transposed or register operand")
	}
	d := make(Vec, len(regs))
	for i, r := range regs {
		d[i] = r
	}
	e.emit("wgmma.fence.sync.aligned")
	tb := 0
	if transB {
		tb = 1
	}
	slabA := 0
	if av.smem != nil {
		slabA = av.smem.tile.Attrs.Int(ir.AttrKeySlabBytes)
	}
	for kk := 0; kk < k/kstep; kk++ {
		var offB int
		if transB {
			offB = kk * 16 * rowsB // 16 rows of K
		} else {
			offB = kStepOffset(kk, rowsB, slabB)
		}
		db := descB
		if offB != 0 {
			db = e.newReg(B64)
			e.emit("add.s64", db, descB, Imm(offB>>4))
		}
		sc := scale
		if kk == 0 {
			sc = noScale
		}
		if aRegs != nil {
			f := aRegs[kk]
			e.emit(shape, d, Vec{f[0], f[1], f[2], f[3]}, db, sc, Imm(1), Imm(1), Imm(tb))
			continue
		}
		da := descA
		if offA := kStepOffset(kk, rowsA, slabA); offA != 0 {
			da = e.newReg(B64)
			e.emit("add.s64", da, descA, Imm(offA>>4))
		}
		switch {
		case integer: // no scale operands
			e.emit(shape, d, da, db, sc)
			continue
		case oneByte:
			e.emit(shape, d, da, db, sc, Imm(1), Imm(1))
			continue
		}
		e.emit(shape, d, da, db, sc, Imm(1), Imm(1), Imm(0), Imm(tb))
	}
	e.emit("wgmma.commit_group.sync.aligned")
	// In place (the pass gives the input accumulator no other use), or
	// fresh registers for zero_init.
	e.vals[in.Result()] = &value{regs: regs, lay: lay}
}

// wgmmaType is wgmma's name of an operand dtype.
func wgmmaType(d ir.DType) string {
	switch d {
	case ir.F8E4M3:
		return "e4m3"
	case ir.F8E5M2:
		return "e5m2"
	case ir.I8:
		return "s8"
	case ir.U8:
		return "u8"
	}
	return ptype(d)
}

// emitSetMaxRegs moves the warpgroup's register budget from the kernel's
// entry count (.maxnreg) up or down.
func (e *emitter) emitSetMaxRegs(in *ir.Instr) {
	r := in.IntAttr(ir.AttrKeyRegs)
	entry := e.f.Facts.MaxRegs
	dir := "dec"
	if r > entry {
		dir = "inc"
	}
	e.emit("setmaxnreg."+dir+".sync.aligned.u32", Imm(r))
}

// blockThreads is the block's thread count: 32 per layout warp, or the
// kernel's block_threads (a producer warpgroup besides them).
func blockThreads(f *ir.Func) int {
	if n := f.Facts.BlockThreads; n > 0 {
		return n
	}
	return 32 * lower.NumWarps(f)
}

// clusterSize is the blocks per cluster of the lowered kernel (0: none).
func clusterSize(f *ir.Func) int {
	return f.Facts.Cluster
}

// isPersistent reports whether the lowered kernel loops over its grid.
func isPersistent(f *ir.Func) bool {
	return f.Facts.Persistent
}

// stageSlabs writes an mma-layout 16-bit register tile into TMA's slab
// layout (smem_stage with slab_bytes): 64-column slabs, each rows x 128
// bytes with the 128-byte swizzle (16-byte chunk c of row r at chunk
// c ^ (r & 7)), which is what a SWIZZLE_128B tensor map reads. Each
// thread stores its register pairs as 32-bit words; the eight rows of one
// store land in eight different chunks, so a warp's store has no bank
// conflict.
func (e *emitter) stageSlabs(in *ir.Instr, src *value) {
	lay := src.lay
	tt := in.Result().Type.(*ir.Tile)
	if tt.Rank() != 2 || tt.DType.Bytes() != 2 || len(lay.Reg) == 0 || lay.Reg[0][0] != 0 || lay.Reg[0][1] != 1 || in.IntAttr(ir.AttrKeyCol)%64 != 0 {
		e.fail("internal: smem_stage into TMA slabs of %s in layout %v", tt, lay.Kind)
	}
	for _, b := range lay.Reg[1:] {
		if b[0]%8 != 0 || b[1]%8 != 0 {
			e.fail("internal: smem_stage into TMA slabs: register basis %v", b)
		}
	}
	slab := in.Attrs.Int(ir.AttrKeySlabBytes)
	off := in.Attrs.Int(ir.AttrKeySmem)
	col0, cols := in.IntAttr(ir.AttrKeyCol), tt.Shape[1]
	tc := e.threadCoord(lay)
	// invariant, not entryOnce: the thread coordinates are computed in
	// this branch's loop preheader, after the entry code.
	base := e.invariant(fmt.Sprint("slabs/", off, lay.Lane, lay.Warp), func() Reg {
		r := e.newReg(B32)
		e.emit("add.u32", r, e.smemBase, Imm(off))
		e.emit("mad.lo.u32", r, tc[0], Imm(128), r)
		e.emit("mad.lo.u32", r, tc[1], Imm(2), r)
		return r
	})
	// chunk j of a row goes to chunk j ^ (row & 7): one address per j.
	rowSw := e.invariant(fmt.Sprint("slabs/sw/", lay.Lane, lay.Warp), func() Reg {
		r := e.newReg(B32)
		e.emit("and.b32", r, tc[0], Imm(7))
		return r
	})
	chunk := map[int]Reg{}
	for r := 0; r < len(src.regs); r += 2 {
		c := lay.RegCoord(r)
		if c[1] < col0 || c[1] >= col0+cols {
			continue
		}
		c[1] -= col0
		j := (c[1] % 64) / 8
		a, ok := chunk[j]
		if !ok {
			x := e.newReg(B32)
			e.emit("xor.b32", x, rowSw, Imm(j))
			a = e.newReg(B32)
			e.emit("shl.b32", x, x, Imm(4))
			e.emit("add.u32", a, base, x)
			chunk[j] = a
		}
		w := e.newReg(B32)
		e.emit("mov.b32", w, Vec{src.regs[r], src.regs[r+1]})
		e.emit("st.shared.b32", Addr{Base: a, Off: int64((c[1]/64)*slab + c[0]*128)}, w)
	}
	sb := e.newReg(B32)
	e.emit("add.u32", sb, e.smemBase, Imm(off))
	e.vals[in.Result()] = &value{smem: &smemVal{tile: in, base: sb}}
}

// emitTMAStore issues one TMA store per 64-column slab of the staged tile
// from thread 0, and commits them as one bulk group.
func (e *emitter) emitTMAStore(in *ir.Instr) {
	n := len(in.Args)
	arr, idx := in.Args[0], in.Args[1:n-1]
	src := e.vals[in.Args[n-1]].smem
	tt := in.Args[n-1].Type.(*ir.Tile)
	rows, cols := tt.Shape[0], tt.Shape[1]
	slab := src.tile.Attrs.Int(ir.AttrKeySlabBytes)
	rank := len(idx)
	if rank < 2 || rank > 4 || slab == 0 {
		e.fail("internal: tma_store with %d indices of a tile not staged in slabs", rank)
	}
	outer := e.outerCoords(idx)
	tm := e.tensorMap(arr, [2]int{64, rows})
	p := e.thread0()
	op := fmt.Sprintf("cp.async.bulk.tensor.%dd.global.shared::cta.tile.bulk_group", rank)
	e.eachSlab(idx[rank-2:], rows, cols, 64, src.base, slab, func(coords string, s Reg) {
		e.emitIf(p, false, op, Sym(fmt.Sprintf("[%s, {%s%s}]", tm.ptx(), coords, outer)), Addr{Base: s})
	})
	e.emitIf(p, false, "cp.async.bulk.commit_group")
}
