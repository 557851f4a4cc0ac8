package ptxgen

import (
	"fmt"

	"github.com/tilec/tilec/ir"
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
	return e.inv32(fmt.Sprintf("warporg/%d/%d/%d/%d/%d", axis, wm, wn, tm, tn), func(r Reg) {
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

// emitMMA emits acc + a@b with mma.sync, reading both operands from
// shared memory (ldmatrix where the element size and majorness allow,
// 32-bit ld.shared otherwise).
func (e *emitter) emitMMA(in *ir.Instr) {
	av, bv := e.vals[in.Args[0]], e.vals[in.Args[1]]
	acc := e.vals[in.Args[2]]
	if av == nil || bv == nil || av.smem == nil || bv.smem == nil {
		e.fail("mma operands must be tiles in shared memory")
	}
	lay := acc.lay
	if lay == nil || lay.Kind != "mma" {
		e.fail("mma accumulator is not in the mma layout")
	}
	at := in.Args[0].Type.(*ir.Tile)
	ct := in.Result().Type.(*ir.Tile)
	M, N, K := ct.Shape[0], ct.Shape[1], at.Shape[1]
	wm, wn := lay.WarpsM, lay.WarpsN
	tm, tn := M/wm, N/wn
	MI, NI := tm/16, tn/8
	dt := at.DType
	tf32 := dt == ir.F32 || dt == ir.TF32
	kstep, E := 16, 8
	op := "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"
	switch dt {
	case ir.BF16:
		op = "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"
	case ir.F32, ir.TF32:
		kstep, E = 8, 4
		op = "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32"
	}
	KS := K / kstep
	m0 := e.warpOrigin(0, wm, wn, tm, tn)
	n0 := e.warpOrigin(1, wm, wn, tm, tn)
	i0, i1, j := e.lanePart("i0"), e.lanePart("i1"), e.lanePart("j")
	g, t := e.lanePart("g"), e.lanePart("t")

	// Result registers: in place when the accumulator has no other use
	// and its registers are its own (not a splat's or a broadcast's).
	res := acc.regs
	if !e.singleUse(in.Args[2]) || !e.ownsRegs(in.Args[2]) {
		res = make([]Reg, len(acc.regs))
		for r := range res {
			res[r] = e.newReg(F32)
			e.emit("mov.f32", res[r], acc.regs[r])
		}
	}
	addrCache := map[string]Reg{}
	addr := func(base Reg, off Reg, imm int64) Addr {
		k := fmt.Sprint(base.N, "/", off.N)
		r, ok := addrCache[k]
		if !ok {
			r = e.newReg(B32)
			e.emit("add.u32", r, base, off)
			addrCache[k] = r
		}
		return Addr{Base: r, Off: imm}
	}
	sa, sb := av.smem, bv.smem
	// fragA[mi] = 4 regs, fragB[ni] = 2 regs, for one k step.
	loadA := func(ks int, into [][]Reg) [][]Reg {
		out := make([][]Reg, MI)
		for mi := 0; mi < MI; mi++ {
			var regs []Reg
			if into != nil {
				regs = into[mi]
			} else {
				regs = []Reg{e.newReg(B32), e.newReg(B32), e.newReg(B32), e.newReg(B32)}
			}
			out[mi] = regs
			switch {
			case !sa.trans:
				// storage (M, K): row m0+8*i0+j, col E*i1.
				row := e.lin(fmt.Sprint("arow", m0.N), 1, m0, 8, i0, 1, j)
				col := e.lin("acol", E, i1)
				off, imm := e.tileOffset(sa.load, row, 16*mi, col, kstep*ks)
				e.emit("ldmatrix.sync.aligned.m8n8.x4.shared.b16", Vec{regs[0], regs[1], regs[2], regs[3]}, addr(sa.base, off, imm))
			case !tf32:
				// storage (K, M): row 8*i1+j, col m0+8*i0; transposed matrices.
				row := e.lin("atrow", 8, i1, 1, j)
				col := e.lin(fmt.Sprint("atcol", m0.N), 1, m0, 8, i0)
				off, imm := e.tileOffset(sa.load, row, kstep*ks, col, 16*mi)
				e.emit("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16", Vec{regs[0], regs[1], regs[2], regs[3]}, addr(sa.base, off, imm))
			default:
				// tf32, storage (K, M): a0=A[g][t] a1=A[g+8][t] a2=A[g][t+4] a3=A[g+8][t+4].
				col := e.lin(fmt.Sprint("atg", m0.N), 1, m0, 1, g)
				for q := 0; q < 4; q++ {
					off, imm := e.tileOffset(sa.load, t, kstep*ks+4*(q>>1), col, 16*mi+8*(q&1))
					e.emit("ld.shared.b32", regs[q], addr(sa.base, off, imm))
				}
			}
			if tf32 {
				e.roundTF32(regs)
			}
		}
		return out
	}
	loadB := func(ks int, into [][]Reg) [][]Reg {
		out := make([][]Reg, NI)
		for np := 0; np < (NI+1)/2; np++ {
			two := 2*np+1 < NI
			var regs []Reg
			if into != nil {
				regs = append([]Reg(nil), into[2*np]...)
				if two {
					regs = append(regs, into[2*np+1]...)
				}
			} else if two {
				regs = []Reg{e.newReg(B32), e.newReg(B32), e.newReg(B32), e.newReg(B32)}
			} else {
				regs = []Reg{e.newReg(B32), e.newReg(B32)}
			}
			vec := Vec{}
			for _, r := range regs {
				vec = append(vec, r)
			}
			x := ".x4"
			if !two {
				x = ".x2"
			}
			switch {
			case sb.trans:
				// storage (N, K): row n0+8*i1+j, col E*i0.
				row := e.lin(fmt.Sprint("bkrow", n0.N), 1, n0, 8, i1, 1, j)
				col := e.lin("bkcol", E, i0)
				off, imm := e.tileOffset(sb.load, row, 16*np, col, kstep*ks)
				e.emit("ldmatrix.sync.aligned.m8n8"+x+".shared.b16", vec, addr(sb.base, off, imm))
			case !tf32:
				// storage (K, N): row 8*i0+j, col n0+8*i1; transposed matrices.
				row := e.lin("bnrow", 8, i0, 1, j)
				col := e.lin(fmt.Sprint("bncol", n0.N), 1, n0, 8, i1)
				off, imm := e.tileOffset(sb.load, row, kstep*ks, col, 16*np)
				e.emit("ldmatrix.sync.aligned.m8n8"+x+".trans.shared.b16", vec, addr(sb.base, off, imm))
			default:
				// tf32, storage (K, N): b0=B[t][g], b1=B[t+4][g].
				col := e.lin(fmt.Sprint("bng", n0.N), 1, n0, 1, g)
				for q := range regs {
					off, imm := e.tileOffset(sb.load, t, kstep*ks+4*(q&1), col, 16*np+8*(q>>1))
					e.emit("ld.shared.b32", regs[q], addr(sb.base, off, imm))
				}
			}
			if tf32 {
				e.roundTF32(regs)
			}
			out[2*np] = regs[0:2]
			if two {
				out[2*np+1] = regs[2:4]
			}
		}
		return out
	}
	pipe := e.mmaPipe
	if pipe != nil && (tf32 || KS < 2) {
		pipe = nil
	}
	// The slow (element-wise copy) loop loads each k-step's fragments
	// after the previous step's mmas: its copies need the registers more
	// than its mmas need the overlap (docs/perf.md, v6).
	dbl := e.t.Tuning.FragmentDoubleBuffer && e.copyMode != "slow"
	var fa, fb [][]Reg
	if pipe != nil {
		// Fragments of k-step 0 come from the previous iteration (or the
		// preload before the loop, emitted into pipe.pre).
		saved := e.cur
		e.cur = &pipe.pre
		pipe.fa0, pipe.fb0 = loadA(0, nil), loadB(0, nil)
		e.cur = saved
		addrCache = map[string]Reg{}
		fa, fb = pipe.fa0, pipe.fb0
	} else {
		fa, fb = loadA(0, nil), loadB(0, nil)
	}
	// EarlyStageWait (set up by loopCore in pipe.late): the stage wait
	// comes before the last k-step's A fragments, read from this stage
	// after the barrier, and the slots advance only when A's copies of
	// the next stage are issued, before the next stage's first fragments.
	early := pipe != nil && pipe.late != nil && dbl
	if early && sa.load != pipe.late {
		e.fail("internal: pipelined mma's A operand is not its late load")
	}
	for ks := 0; ks < KS; ks++ {
		var na, nb [][]Reg
		switch {
		case early && ks+2 == KS:
			if sb.load != pipe.late {
				nb = loadB(ks+1, nil)
			}
			pipe.onWait()
			na = loadA(ks+1, nil)
			if sb.load == pipe.late {
				nb = loadB(ks+1, nil)
			}
		case early && ks+1 == KS:
			pipe.onAdvance()
			addrCache = map[string]Reg{}
			loadA(0, pipe.fa0)
			loadB(0, pipe.fb0)
		case ks+1 < KS && dbl:
			na, nb = loadA(ks+1, nil), loadB(ks+1, nil)
		case ks+1 == KS && pipe != nil:
			// Wait for the next stage and load its first fragments while
			// the last k-step's mmas run.
			pipe.onLastK()
			addrCache = map[string]Reg{}
			loadA(0, pipe.fa0)
			loadB(0, pipe.fb0)
		}
		for mi := 0; mi < MI; mi++ {
			for q := 0; q < NI; q++ {
				ni := q
				if mi%2 == 1 {
					ni = NI - 1 - q // serpentine order reuses B fragments
				}
				base := 4 * (ni + NI*mi)
				d := Vec{res[base], res[base+1], res[base+2], res[base+3]}
				a := Vec{fa[mi][0], fa[mi][1], fa[mi][2], fa[mi][3]}
				b := Vec{fb[ni][0], fb[ni][1]}
				e.emit(op, d, a, b, d)
			}
		}
		if len(e.pendingIssue) > 0 && (ks == 0 || e.t.Tuning.SpreadCopies || (early && ks+2 == KS)) && (pipe == nil || ks+1 < KS) {
			// The next stage's copies go after the mmas of the first
			// k-steps, so the tensor cores start right after the barrier;
			// spread over the k-steps before the last (whose stage wait
			// needs them committed), or all after the first.
			n := len(e.pendingIssue)
			if e.t.Tuning.SpreadCopies {
				left := KS - 1 - ks
				if pipe == nil {
					left = KS - ks
				}
				if left < 1 {
					left = 1
				}
				n = (n + left - 1) / left
			}
			if early && ks+2 < KS {
				// Before the stage wait: only the parts of tiles that are
				// not read after it (all but A's).
				n = min(n, e.pendingEarly)
				e.pendingEarly -= n
			}
			for _, f := range e.pendingIssue[:n] {
				f()
			}
			e.pendingIssue = e.pendingIssue[n:]
		}
		if ks+1 < KS && !dbl {
			na, nb = loadA(ks+1, nil), loadB(ks+1, nil)
		}
		fa, fb = na, nb
	}
	if pipe != nil {
		pipe.used = true
	}
	e.vals[in.Result()] = &value{regs: res, lay: lay}
}

// mmaPipe connects an mma to the pipelined loop around it: the loop waits
// for the next stage during the mma's last k-step (onLastK) and the first
// k-step's fragments are carried across iterations in fixed registers.
type mmaPipe struct {
	onLastK func()
	// With EarlyStageWait: late is the A operand's load; onWait waits for
	// the next stage (before the last k-step's A fragments) and onAdvance
	// moves the ring slots on (after the last copies are issued).
	late              *ir.Instr
	onWait, onAdvance func()
	pre               []Instr // fragment preload, spliced in before the loop
	fa0, fb0          [][]Reg
	used              bool
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
