package ptxgen

import (
	"fmt"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/lower"
)

// lanePart is a thread-invariant piece of the lane index used by
// ldmatrix addressing: i = lane>>3 (which 8x8 matrix this lane addresses),
// j = lane&7 (which row), and the mma fragment indices g = lane>>2, t = lane&3.
func (e *emitter) lanePart(name string) Reg {
	return e.inv32("lane/"+name, func(r Reg) {
		switch name {
		case "i0": // (lane>>3)&1
			e.emit("bfe.u32", r, e.lane, Imm(3), Imm(1))
		case "i1": // lane>>4
			e.emit("shr.u32", r, e.lane, Imm(4))
		case "j":
			e.emit("and.b32", r, e.lane, Imm(7))
		case "g":
			e.emit("shr.u32", r, e.lane, Imm(2))
		case "t":
			e.emit("and.b32", r, e.lane, Imm(3))
		}
	})
}

// warpOrigin is the first row (axis 0) or column (axis 1) of this warp's
// block of an mma accumulator with the given warp grid.
func (e *emitter) warpOrigin(axis, wm, wn, tm, tn int) Reg {
	size := tm
	if axis == 1 {
		size = tn
	}
	return e.inv32(fmt.Sprintf("warporg/%d/%d/%d/%d", axis, wm, wn, size), func(r Reg) {
		x := e.newReg(B32)
		if axis == 0 {
			e.emit("shr.u32", x, e.warp, Imm(log2(wn)))
			e.emit("mul.lo.u32", r, x, Imm(tm))
		} else {
			e.emit("and.b32", x, e.warp, Imm(wn-1))
			e.emit("mul.lo.u32", r, x, Imm(tn))
		}
	})
}

// lin is a thread-invariant sum of products k*x over 32-bit registers;
// terms alternate an int k and a Reg x. key names the sum for reuse.
func (e *emitter) lin(key string, terms ...any) Reg {
	return e.inv32("lin/"+key, func(r Reg) {
		e.emit("mov.u32", r, Imm(0))
		for i := 0; i+1 < len(terms); i += 2 {
			k := terms[i].(int)
			x := terms[i+1].(Reg)
			e.emit("mad.lo.u32", r, x, Imm(k), r)
		}
	})
}

// smemAddr is the address base+off+imm in shared tile s; the sum base+off
// is computed once per offset register and kept with s (the offsets are
// thread-invariant, the base is s's).
func (e *emitter) smemAddr(s *smemVal, off Reg, imm int64) Addr {
	if s.addrs == nil {
		s.addrs = map[int]Reg{}
	}
	r, ok := s.addrs[off.N]
	if !ok {
		r = e.newReg(B32)
		e.emit("add.u32", r, s.base, off)
		s.addrs[off.N] = r
	}
	return Addr{Base: r, Off: imm}
}

// fragGeometry is what the fragment loads and mma.sync of one k-step
// need to know about an mma: its dtype, the warp grid and warp tile, and
// the k-step's width.
type fragGeometry struct {
	dt       ir.DType
	tf32     bool
	wm, wn   int
	tm, tn   int // warp tile
	kstep, E int // K of one mma.sync; elements in 16 bytes
}

// oneByte reports whether the fragments hold one-byte elements (float8,
// int8, uint8), four k per register.
func (g fragGeometry) oneByte() bool { return g.kstep == 32 }

func (e *emitter) fragGeometry(v *ir.Value, m, n int) fragGeometry {
	lay := e.layout(v)
	dt := v.Type.Elem()
	g := fragGeometry{dt: dt, wm: lay.WarpsM(), wn: lay.WarpsN(), kstep: 16, E: 8}
	switch {
	case dt == ir.F32 || dt == ir.TF32:
		g.tf32, g.kstep, g.E = true, 8, 4
	case dt.IsFloat8() || dt.IsByteInt():
		g.kstep, g.E = 32, 16
	}
	if g.wm == 0 || g.wn == 0 {
		e.fail("internal: %s has no warp grid", v)
	}
	g.tm, g.tn = m/g.wm, n/g.wn
	return g
}

// emitFragLoad emits a frag_load: the A (operand=a) or B fragments of one
// k-step of a shared tile, read with ldmatrix where the element size and
// majorness allow and with 32-bit ld.shared otherwise (tf32, K-major).
//
// One-byte (float8, int8, uint8: m16n8k32) fragments hold four
// consecutive k of one row (A) or column (B) per register: a0 =
// A[g][4t..4t+3], a1 = rows g+8, a2 and a3 the same at k+16; b0 =
// B[4t..4t+3][g], b1 at k+16. Byte for byte that is the 16-bit layout
// (two k per register) with twice the k per 16-byte row, so K-contiguous
// storage ((M, K) A, (N, K) B) takes the same ldmatrix with 16 elements
// per row chunk. MN-contiguous storage needs a byte transpose that
// ldmatrix.trans (16-bit) does not do: the four bytes come from four
// shared rows, one ld.shared.u8 each (see byteFragment).
func (e *emitter) emitFragLoad(in *ir.Instr) {
	src := e.vals[in.Args[0]]
	if src != nil && src.smem == nil && src.regs != nil && in.StrAttr(ir.AttrKeyOperand) == "a" {
		e.fragAFromRegs(in, src)
		return
	}
	if src == nil || src.smem == nil {
		e.fail("internal: frag_load of a tile that is not in shared memory")
	}
	sm := src.smem
	ft := in.Result().Type.(*ir.Tile)
	ks := in.IntAttr(ir.AttrKeyKStep)
	addr := func(off Reg, imm int64) Addr { return e.smemAddr(sm, off, imm) }
	i0, i1, j := e.lanePart("i0"), e.lanePart("i1"), e.lanePart("j")
	g, t := e.lanePart("g"), e.lanePart("t")
	var regs []Reg
	if in.StrAttr(ir.AttrKeyOperand) == "a" {
		fg := e.fragGeometry(in.Result(), ft.Shape[0], 0)
		m0 := e.warpOrigin(0, fg.wm, fg.wn, fg.tm, 0)
		MI, E, kstep := fg.tm/16, fg.E, fg.kstep
		for mi := 0; mi < MI; mi++ {
			r := []Reg{e.newReg(B32), e.newReg(B32), e.newReg(B32), e.newReg(B32)}
			switch {
			case !sm.trans:
				// storage (M, K): row m0+8*i0+j, col E*i1.
				row := e.lin(fmt.Sprint("arow", m0.N), 1, m0, 8, i0, 1, j)
				col := e.lin("acol", E, i1)
				off, imm := e.tileOffset(sm.tile, row, 16*mi, col, kstep*ks)
				e.emit("ldmatrix.sync.aligned.m8n8.x4.shared.b16", Vec{r[0], r[1], r[2], r[3]}, addr(off, imm))
			case fg.oneByte():
				// one byte, storage (K, M): a_q = A[g+8(q&1)][4t+16(q>>1)+0..3].
				krow := e.lin("a8k", 4, t)
				col := e.lin(fmt.Sprint("a8g", m0.N), 1, m0, 1, g)
				for q := 0; q < 4; q++ {
					r[q] = e.byteFragment(sm, krow, kstep*ks+16*(q>>1), col, 16*mi+8*(q&1))
				}
			case !fg.tf32:
				// storage (K, M): row 8*i1+j, col m0+8*i0; transposed matrices.
				row := e.lin("atrow", 8, i1, 1, j)
				col := e.lin(fmt.Sprint("atcol", m0.N), 1, m0, 8, i0)
				off, imm := e.tileOffset(sm.tile, row, kstep*ks, col, 16*mi)
				e.emit("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16", Vec{r[0], r[1], r[2], r[3]}, addr(off, imm))
			default:
				// tf32, storage (K, M): a0=A[g][t] a1=A[g+8][t] a2=A[g][t+4] a3=A[g+8][t+4].
				col := e.lin(fmt.Sprint("atg", m0.N), 1, m0, 1, g)
				for q := 0; q < 4; q++ {
					off, imm := e.tileOffset(sm.tile, t, kstep*ks+4*(q>>1), col, 16*mi+8*(q&1))
					e.emit("ld.shared.b32", r[q], addr(off, imm))
				}
			}
			if fg.tf32 {
				e.roundTF32(r)
			}
			regs = append(regs, r...)
		}
	} else {
		fg := e.fragGeometry(in.Result(), 0, ft.Shape[1])
		n0 := e.warpOrigin(1, fg.wm, fg.wn, 0, fg.tn)
		NI, E, kstep := fg.tn/8, fg.E, fg.kstep
		regs = make([]Reg, 2*NI)
		for np := 0; np < (NI+1)/2; np++ {
			two := 2*np+1 < NI
			r := []Reg{e.newReg(B32), e.newReg(B32)}
			if two {
				r = append(r, e.newReg(B32), e.newReg(B32))
			}
			vec := Vec{}
			for _, x := range r {
				vec = append(vec, x)
			}
			x := ".x4"
			if !two {
				x = ".x2"
			}
			switch {
			case sm.trans:
				// storage (N, K): row n0+8*i1+j, col E*i0.
				row := e.lin(fmt.Sprint("bkrow", n0.N), 1, n0, 8, i1, 1, j)
				col := e.lin("bkcol", E, i0)
				off, imm := e.tileOffset(sm.tile, row, 16*np, col, kstep*ks)
				e.emit("ldmatrix.sync.aligned.m8n8"+x+".shared.b16", vec, addr(off, imm))
			case fg.oneByte():
				// one byte, storage (K, N): b_q = B[4t+16(q&1)+0..3][g] of n-block q>>1.
				krow := e.lin("b8k", 4, t)
				col := e.lin(fmt.Sprint("b8g", n0.N), 1, n0, 1, g)
				for q := range r {
					r[q] = e.byteFragment(sm, krow, kstep*ks+16*(q&1), col, 16*np+8*(q>>1))
				}
			case !fg.tf32:
				// storage (K, N): row 8*i0+j, col n0+8*i1; transposed matrices.
				row := e.lin("bnrow", 8, i0, 1, j)
				col := e.lin(fmt.Sprint("bncol", n0.N), 1, n0, 8, i1)
				off, imm := e.tileOffset(sm.tile, row, kstep*ks, col, 16*np)
				e.emit("ldmatrix.sync.aligned.m8n8"+x+".trans.shared.b16", vec, addr(off, imm))
			default:
				// tf32, storage (K, N): b0=B[t][g], b1=B[t+4][g].
				col := e.lin(fmt.Sprint("bng", n0.N), 1, n0, 1, g)
				for q := range r {
					off, imm := e.tileOffset(sm.tile, t, kstep*ks+4*(q&1), col, 16*np+8*(q>>1))
					e.emit("ld.shared.b32", r[q], addr(off, imm))
				}
			}
			if fg.tf32 {
				e.roundTF32(r)
			}
			copy(regs[4*np:], r)
		}
	}
	if d := ft.DType; d.IsFloat8() && !e.float8MMANative() {
		regs = e.float8FragmentsToF16(regs, d, in.StrAttr(ir.AttrKeyOperand) == "a")
	}
	e.vals[in.Result()] = &value{regs: regs, lay: e.layout(in.Result())}
}

// byteFragment is one one-byte fragment register read from MN-contiguous
// shared storage: the bytes at rows krow+k0+0..3 of column col+c0,
// lowest row in the low byte.
func (e *emitter) byteFragment(sm *smemVal, krow Reg, k0 int, col Reg, c0 int) Reg {
	var w Reg
	for j := 0; j < 4; j++ {
		off, imm := e.tileOffset(sm.tile, krow, k0+j, col, c0)
		x := e.def(B32, "ld.shared.u8", e.smemAddr(sm, off, imm))
		if j == 0 {
			w = x
		} else {
			w = e.def(B32, "bfi.b32", x, w, Imm(int64(8*j)), Imm(8))
		}
	}
	return w
}

// float8MMA is the mma.sync of float8 inputs a and b: m16n8k32 with f32
// accumulators, which PTX has from ISA 8.4 on sm_89 and later (lower's
// check refuses it on older targets). The module's .version is raised to
// 8.4 for this kernel only where the target's is older (sm_89, sm_90,
// sm_90a), so that kernels without it keep the target's.
func (e *emitter) float8MMA(a, b ir.DType) string {
	if !e.float8MMANative() {
		return ""
	}
	if versionLess(e.t.PTXVersion, "8.4") {
		t := *e.t
		t.PTXVersion = "8.4"
		e.t = &t
	}
	name := map[ir.DType]string{ir.F8E4M3: "e4m3", ir.F8E5M2: "e5m2"}
	return "mma.sync.aligned.m16n8k32.row.col.f32." + name[a] + "." + name[b] + ".f32"
}

// intMMA is the mma.sync of int8/uint8 inputs a and b (either may be
// either) into an int32 accumulator: m16n8k32, sm_80 and later, the same
// fragment layout as float8's. Without .satfinite the sums wrap modulo
// 2**32, which is the interpreter's (and cuTile's integer mma, whose
// overflow it leaves unspecified); .satfinite would clamp at the int32
// limits instead.
func intMMA(a, b ir.DType) string {
	name := map[ir.DType]string{ir.I8: "s8", ir.U8: "u8"}
	return "mma.sync.aligned.m16n8k32.row.col.s32." + name[a] + "." + name[b] + ".s32"
}

// float8MMANative reports whether the target has mma.sync with float8
// operands (sm_89 and later). Older targets (sm_80, sm_86) run a float8
// mma as f16 mmas: every float8 value is a float16 value, so the products
// are the same exact products, summed in the same f32 accumulator.
func (e *emitter) float8MMANative() bool { return e.t.CC >= 89 }

// float8FragmentsToF16 turns the float8 fragments of one m16n8k32 k-step
// (A: four registers per 16 rows, B: two per 8 columns, four float8 each)
// into those of two m16n8k16 f16 steps over the same 32 k (A: eight, B:
// four), for targets without float8 mma. The two steps take the k in
// another order than k16 fragments would (a sum does not depend on it),
// the same for A and B: thread t's f16 columns 2t, 2t+1, 2t+8, 2t+9 of the
// first step are k = 4t .. 4t+3 (the bytes of a0/a1 and of b0), of the
// second k = 16+4t .. 16+4t+3 (a2/a3, b1). So each f16 register is two
// bytes of one float8 register, each converted exactly (convert).
func (e *emitter) float8FragmentsToF16(regs []Reg, d ir.DType, operandA bool) []Reg {
	pair := func(x Reg, first int) Reg {
		var h [2]Reg
		for j := range h {
			b := e.def(B32, "bfe.u32", x, Imm(int64(8*(first+j))), Imm(8))
			h[j] = e.convert(b, d, ir.F16)
		}
		return e.def(B32, "mov.b32", Vec{h[0], h[1]})
	}
	var out []Reg
	if operandA {
		for i := 0; i < len(regs); i += 4 {
			a := regs[i : i+4]
			out = append(out, pair(a[0], 0), pair(a[1], 0), pair(a[0], 2), pair(a[1], 2),
				pair(a[2], 0), pair(a[3], 0), pair(a[2], 2), pair(a[3], 2))
		}
		return out
	}
	for i := 0; i < len(regs); i += 2 {
		out = append(out, pair(regs[i], 0), pair(regs[i], 2), pair(regs[i+1], 0), pair(regs[i+1], 2))
	}
	return out
}

// versionLess compares PTX ISA versions "major.minor".
func versionLess(x, y string) bool {
	var xa, xb, ya, yb int
	fmt.Sscanf(x, "%d.%d", &xa, &xb)
	fmt.Sscanf(y, "%d.%d", &ya, &yb)
	return xa < ya || xa == ya && xb < yb
}

// emitMMAStep emits one k-step of acc + a@b: each warp's mma.sync over
// its part of the accumulator, in serpentine order over N so that
// consecutive mmas share a B fragment.
func (e *emitter) emitMMAStep(in *ir.Instr) {
	fa, fb, acc := e.vals[in.Args[0]], e.vals[in.Args[1]], e.vals[in.Args[2]]
	if fa == nil || fb == nil || acc == nil || acc.lay == nil || acc.lay.Kind != "mma" {
		e.fail("internal: mma_step operands are not fragments and an mma accumulator")
	}
	ct := in.Result().Type.(*ir.Tile)
	fg := e.fragGeometry(in.Args[2], ct.Shape[0], ct.Shape[1])
	MI, NI := fg.tm/16, fg.tn/8
	op := "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"
	switch in.Args[0].Type.Elem() {
	case ir.BF16:
		op = "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"
	case ir.F32, ir.TF32:
		op = "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32"
	case ir.F8E4M3, ir.F8E5M2:
		op = e.float8MMA(in.Args[0].Type.Elem(), in.Args[1].Type.Elem())
	case ir.I8, ir.U8:
		op = intMMA(in.Args[0].Type.Elem(), in.Args[1].Type.Elem())
	}
	// halves is the number of mma.sync per m16n8 tile and k-step: two
	// m16n8k16 f16 ones for float8 on targets without m16n8k32 float8,
	// over the fragments float8FragmentsToF16 made.
	halves := 1
	if op == "" {
		op, halves = "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", 2
	}
	// Result registers: in place when the accumulator has no other use
	// and its registers are its own (not a splat's or a broadcast's).
	res := acc.regs
	if !e.singleUse(in.Args[2]) || !e.ownsRegs(in.Args[2]) {
		res = make([]Reg, len(acc.regs))
		mov := "mov.f32"
		if ct.DType == ir.I32 {
			mov = "mov.b32"
		}
		for r := range res {
			res[r] = e.newReg(classOf(ct.DType))
			e.emit(mov, res[r], acc.regs[r])
		}
	}
	for mi := 0; mi < MI; mi++ {
		for q := 0; q < NI; q++ {
			ni := q
			if mi%2 == 1 {
				ni = NI - 1 - q // serpentine order reuses B fragments
			}
			base := 4 * (ni + NI*mi)
			d := Vec{res[base], res[base+1], res[base+2], res[base+3]}
			for h := 0; h < halves; h++ {
				ai, bi := 4*(halves*mi+h), 2*(halves*ni+h)
				a := Vec{fa.regs[ai], fa.regs[ai+1], fa.regs[ai+2], fa.regs[ai+3]}
				b := Vec{fb.regs[bi], fb.regs[bi+1]}
				e.emit(op, d, a, b, d)
			}
		}
	}
	e.vals[in.Result()] = &value{regs: res, lay: acc.lay}
}

// roundTF32 rounds f32 bit patterns to tf32 in place (cvt.rna).
func (e *emitter) roundTF32(regs []Reg) {
	for i, r := range regs {
		f := e.newReg(F32)
		e.emit("mov.b32", f, r)
		o := e.newReg(B32)
		e.emit("cvt.rna.tf32.f32", o, f)
		regs[i] = o
	}
}

// singleUse reports whether v is used by exactly one instruction (once).
func (e *emitter) singleUse(v *ir.Value) bool {
	if e.uses == nil {
		e.uses = map[*ir.Value]int{}
		e.f.Body.Walk(func(in *ir.Instr) {
			for _, a := range in.Args {
				e.uses[a]++
			}
		})
	}
	return e.uses[v] == 1
}

// emitMMAFMA emits an mma_fma: acc + a@b in exact float32 on the CUDA
// cores. For each k in ascending order, every thread reads the elements of
// a's column k in the rows it owns and of b's row k in the columns it owns
// (once each), then updates each accumulator element with one fma.rn.f32,
// so that every element sees the same chain of single-rounded fmas as the
// interpreter's (runtime: exact float32 mma).
func (e *emitter) emitMMAFMA(in *ir.Instr) {
	a, b, acc := e.vals[in.Args[0]], e.vals[in.Args[1]], e.vals[in.Args[2]]
	if a == nil || b == nil || a.smem == nil || b.smem == nil || acc == nil || acc.regs == nil {
		e.fail("internal: mma_fma operands must be shared tiles and a register accumulator")
	}
	lay := acc.lay
	K := in.Args[0].Type.(*ir.Tile).Shape[1]
	res := acc.regs
	if !e.singleUse(in.Args[2]) || !e.ownsRegs(in.Args[2]) {
		res = make([]Reg, len(acc.regs))
		for r := range res {
			if c := lay.CanonicalReg(r); c != r {
				res[r] = res[c]
				continue
			}
			res[r] = e.newReg(F32)
			e.emit("mov.f32", res[r], acc.regs[r])
		}
	}
	tc := e.threadCoord(lay)
	zero := e.inv32("zero", func(r Reg) { e.emit("mov.u32", r, Imm(0)) })
	// addr is the shared address of element (row, col) of shared tile s,
	// each part a register (thread-dependent) plus a constant.
	addr := func(s *smemVal, rowReg Reg, rowConst int, colReg Reg, colConst int) Addr {
		if s.trans {
			rowReg, rowConst, colReg, colConst = colReg, colConst, rowReg, rowConst
		}
		off, imm := e.tileOffset(s.tile, rowReg, rowConst, colReg, colConst)
		return e.smemAddr(s, off, imm)
	}
	for k := 0; k < K; k++ {
		rows, cols := map[int]Reg{}, map[int]Reg{}
		for r := range res {
			if lay.CanonicalReg(r) != r {
				continue
			}
			c := lay.RegCoord(r)
			x, ok := rows[c[0]]
			if !ok {
				x = e.newReg(F32)
				e.emit("ld.shared.f32", x, addr(a.smem, tc[0], c[0], zero, k))
				rows[c[0]] = x
			}
			y, ok := cols[c[1]]
			if !ok {
				y = e.newReg(F32)
				e.emit("ld.shared.f32", y, addr(b.smem, zero, k, tc[1], c[1]))
				cols[c[1]] = y
			}
			e.emit("fma.rn.f32", res[r], x, y, res[r])
		}
	}
	e.vals[in.Result()] = &value{regs: res, lay: lay}
}

// fragAFromRegs builds the A fragments of one k-step from a register tile
// laid out as an mma accumulator over warps along M (lower's aInRegisters:
// P in attention). For m16n8k16 a thread's A fragment of rows g, g+8 and
// columns 2t, 2t+1 (+8) is, pair by pair, what it holds of the
// accumulator's n-tiles 2k and 2k+1 at the same rows: four packed moves,
// no shared memory.
func (e *emitter) fragAFromRegs(in *ir.Instr, src *value) {
	lay := src.lay
	ft := in.Result().Type.(*ir.Tile)
	fg := e.fragGeometry(in.Result(), ft.Shape[0], 0)
	std := [][]int{{0, 2}, {0, 4}, {1, 0}, {2, 0}, {4, 0}}
	if lay == nil || lay.Kind != ir.LayoutMMA || lay.WarpsN() != 1 || lay.WarpsM() != fg.wm || fg.wn != 1 || fg.tf32 || len(lay.Lane) != 5 {
		e.fail("internal: frag_load of A from registers laid out as %v", lay)
	}
	for i, b := range std {
		if lay.Lane[i][0] != b[0] || lay.Lane[i][1] != b[1] {
			e.fail("internal: frag_load of A from registers with lane bases %v", lay.Lane)
		}
	}
	index := func(row, col int) int {
		r, ok := accRegIndex(lay, row, col)
		if !ok || r >= len(src.regs) {
			e.fail("internal: frag_load of A from registers: no register holds (%d, %d) in %v", row, col, lay.Reg)
		}
		return r
	}
	ks := in.IntAttr(ir.AttrKeyKStep)
	var regs []Reg
	for mi := 0; mi < fg.tm/16; mi++ {
		for _, rc := range [][2]int{{0, 0}, {8, 0}, {0, 8}, {8, 8}} {
			r := index(16*mi+rc[0], 16*ks+rc[1])
			x := e.newReg(B32)
			e.emit("mov.b32", x, Vec{src.regs[r], src.regs[index(16*mi+rc[0], 16*ks+rc[1]+1)]})
			regs = append(regs, x)
		}
	}
	e.vals[in.Result()] = &value{regs: regs, lay: e.layout(in.Result())}
}

// accRegIndex is the register index at which a thread of lane 0 holds the
// element at warp-local (row, col) of a register layout whose register
// bases each step one coordinate by a power of two (mma accumulators): the
// sum of the bits whose bases make up row and col. Another lane holds,
// in the same register, the element shifted by its lane coordinate.
func accRegIndex(lay *lower.Layout, row, col int) (int, bool) {
	r := 0
	for bit, b := range lay.Reg {
		if b[0] != 0 && b[1] == 0 && row&b[0] != 0 {
			r |= 1 << bit
			row &^= b[0]
		}
		if b[1] != 0 && b[0] == 0 && col&b[1] != 0 {
			r |= 1 << bit
			col &^= b[1]
		}
	}
	return r, row == 0 && col == 0
}
