package lower

// Pass pipeline.
// Requires: smem (every load with layout smem has its ring: stages, smem,
// row_bytes, stage_bytes; a for whose body holds loads with stages > 1
// pipelines them), variants (the return says which copy path a variant
// takes).
// Guarantees: no load has layout smem. Each becomes a ring (smem_alloc at
// the top of the kernel) and explicit copies:
//   - a load outside a pipelined loop: barrier, async_copy into slot 0,
//     async_commit, async_wait {pending=0}, barrier, where the load was;
//   - the loads of a pipelined loop: a prologue before the loop that
//     copies iterations lo .. lo+(S-2)*step into slots 0 .. S-2, one
//     commit each; the read and write slots as i32 values carried by the
//     loop; in the body the next stage's copies (iteration iv+(S-1)*step,
//     into the write slot) in parts placed between the k-steps of the
//     body's first mma (Tuning.SpreadCopies), the stage wait and barrier,
//     and the slot advance; after the loop a wait for every group and a
//     barrier, so that the shared memory can be reused.
// The mmas of a pipelined loop body become frag_load / mma_step k-steps
// here, in the order the schedule needs: with Tuning.OverlapStageWait, in
// a loop whose body is only its loads and one 16-bit mma (the matmul
// family) and whose copies are all vector copies, the wait for the next
// stage moves into the last k-step (before its A fragments with
// Tuning.EarlyStageWait) and the next stage's first fragments are loaded
// there, carried into the next iteration. An mma of float32 inputs becomes
// one mma_fma instead (exact fma chains; see kstep.go). Register tiles that
// an mma reads (staged=true) are written to their shared buffer right
// after they are computed (barrier, smem_stage, barrier).

import (
	"fmt"

	"github.com/tilec/tilec/ir"
)

// CopyGeometry is how a shared-tile copy of a rows x cols window of
// elemBytes-byte elements is split over threads threads in 16-byte
// chunks: chunks per thread, rows between a thread's chunks, and whether
// the regular form (every thread copies chunks of one column) applies.
func CopyGeometry(rows, cols, elemBytes, threads int) (nj, rowStep int, regular bool) {
	cpr := cols * elemBytes / 16
	total := rows * cpr
	nj = (total + threads - 1) / threads
	if cpr > 0 {
		rowStep = threads / cpr
	}
	regular = cpr > 0 && threads%cpr == 0 && total%threads == 0
	return nj, rowStep, regular
}

// copyParts is the number of parts a tile's copy is issued in: one, or
// with SpreadCopies about four 16-byte chunks per thread each.
func copyParts(t *Target, tt *ir.Tile, threads int) int {
	ax, _ := WindowAxes(tt.Shape)
	nj, _, regular := CopyGeometry(tt.Shape[ax[0]], tt.Shape[ax[1]], tt.DType.Bytes(), threads)
	if !t.Tuning.SpreadCopies || !regular || nj < 8 || nj%4 != 0 {
		return 1
	}
	return nj / 4
}

// Pipeline is the pipeline pass.
func Pipeline(f *ir.Func, t *Target) error {
	stageOperands(f)
	p := &pipeliner{f: f, t: t, variant: f.Facts.Variant}
	p.threads = 32 * NumWarps(f)
	var loads []*ir.Instr
	f.Body.Walk(func(in *ir.Instr) {
		if in.Op == ir.OpLoad && InSmem(in) {
			loads = append(loads, in)
		}
	})
	if len(loads) == 0 {
		return nil
	}
	p.rings = map[*ir.Instr]*ir.Value{}
	var allocs []*ir.Instr
	loops := map[*ir.Instr][]*ir.Instr{}
	var loopOrder []*ir.Instr
	for _, ld := range loads {
		a := f.NewInstr(ir.OpSmemAlloc, nil, ld.Result().Type)
		a.Pos = ld.Pos
		for _, k := range []string{ir.AttrKeySmem, ir.AttrKeyStages, ir.AttrKeyStageBytes, ir.AttrKeyRowBytes} {
			a.Attrs.Set(k, ld.Attrs.Int(k))
		}
		a.Attrs.Set(ir.AttrKeyLayout, &ir.Layout{Kind: ir.LayoutSmem})
		allocs = append(allocs, a)
		p.rings[ld] = a.Result()
		if l := ld.Block.Parent; ld.Attrs.Int(ir.AttrKeyStages) > 1 && l != nil && l.Op == ir.OpFor {
			if loops[l] == nil {
				loopOrder = append(loopOrder, l)
			}
			loops[l] = append(loops[l], ld)
		}
	}
	for _, ld := range loads {
		if ld.Attrs.Int(ir.AttrKeyStages) <= 1 {
			p.syncCopy(ld)
		}
	}
	for _, l := range loopOrder {
		if err := p.loop(l, loops[l]); err != nil {
			return err
		}
	}
	for _, a := range allocs {
		a.Block = f.Body
	}
	f.Body.Instrs = append(allocs, f.Body.Instrs...)
	DeadCode(f) // the loads' smem permutes that the k-steps rebuilt on slots
	return nil
}

// stageOperands writes every register tile that an mma reads (staged=true,
// with its shared buffer from the smem pass) to shared memory right after
// it is computed, in the swizzled layout of the loaded tiles, between two
// barriers (the previous reads of the buffer are done; the writes are
// visible), and makes its mma users read the shared copy.
func stageOperands(f *ir.Func) {
	var staged []*ir.Instr
	f.Body.Walk(func(in *ir.Instr) {
		if in.Attrs.Get(ir.AttrKeyStaged) == true {
			staged = append(staged, in)
		}
	})
	for _, in := range staged {
		v := in.Result()
		s := &seq{f: f}
		s.pos.Pos = in.Pos
		s.barrier()
		sv := s.op(ir.OpSmemStage, []*ir.Value{v}, v.Type, ir.AttrKeyLayout, &ir.Layout{Kind: ir.LayoutSmem},
			ir.AttrKeySmem, int64(in.Attrs.Int(ir.AttrKeySmem)), ir.AttrKeyRowBytes, int64(in.Attrs.Int(ir.AttrKeyRowBytes)))
		s.barrier()
		f.Body.Walk(func(u *ir.Instr) {
			if u.Op == ir.OpMMA {
				for i, a := range u.Args[:2] {
					if a == v {
						u.Args[i] = sv
					}
				}
			}
		})
		for _, k := range []string{ir.AttrKeyStaged, ir.AttrKeySmem, ir.AttrKeyRowBytes, ir.AttrKeyStageBytes, ir.AttrKeyStages} {
			in.Attrs = dropAttr(in.Attrs, k)
		}
		b := in.Block
		for i, x := range b.Instrs {
			if x == in {
				insertAt(b, i+1, s.out)
				break
			}
		}
	}
}

// pipeliner rewrites the shared-memory loads of one kernel.
type pipeliner struct {
	f       *ir.Func
	t       *Target
	variant string // "", VariantFast or VariantGeneral
	threads int
	rings   map[*ir.Instr]*ir.Value // smem load -> its ring
}

func (p *pipeliner) newSeq(at *ir.Instr) *seq {
	s := &seq{f: p.f}
	s.pos.Pos = at.Pos
	return s
}

// slot is copy i of ld's ring.
func (p *pipeliner) slot(s *seq, ld *ir.Instr, i *ir.Value) *ir.Value {
	return s.op(ir.OpSmemSlot, []*ir.Value{p.rings[ld], i}, ld.Result().Type, ir.AttrKeyLayout, &ir.Layout{Kind: ir.LayoutSmem})
}

// path is how a copy of ld is made in this variant: see ir.CopyVector.
func (p *pipeliner) path(ld *ir.Instr, inLoop bool) string {
	zero := zeroPad(ld)
	switch {
	case p.variant == VariantFast && zero:
		return ir.CopyVector
	case p.variant == VariantFast, p.variant == VariantGeneral && inLoop:
		return ir.CopyElement
	case !zero:
		return ir.CopyElement
	}
	return ir.CopyAuto
}

// copyTo issues part q of n of ld's copy into dst with tile indices idx.
func (p *pipeliner) copyTo(s *seq, ld *ir.Instr, idx []*ir.Value, dst *ir.Value, q, n int, path string) {
	args := append(append([]*ir.Value{ld.Args[0]}, idx...), dst)
	s.op(ir.OpAsyncCopy, args, nil, ir.AttrKeyPad, padOf(ld), ir.AttrKeyPart, int64(q), ir.AttrKeyParts, int64(n), ir.AttrKeyPath, path)
}

func padOf(ld *ir.Instr) string {
	if pad := ld.Pad(); pad != "" {
		return pad
	}
	return ir.PadZero
}

func zeroPad(ld *ir.Instr) bool { return padOf(ld) == ir.PadZero }

// syncCopy replaces a load outside a pipelined loop with a copy that
// completes where the load was.
func (p *pipeliner) syncCopy(ld *ir.Instr) {
	s := p.newSeq(ld)
	dst := p.slot(s, ld, s.i32(0))
	s.barrier() // earlier readers of the buffer are done
	p.copyTo(s, ld, ld.Args[1:], dst, 0, 1, p.path(ld, false))
	s.commit()
	s.wait(0)
	s.barrier()
	replaceUses(p.f, ld.Result(), dst)
	replaceInstr(ld, s.out)
}

// indexAt returns ld's tile indices for iteration iv of its loop: the
// pure scalar ops between the induction variable and the indices are
// cloned into s with the loop's iv replaced (smem's pipelinable
// guarantees there is nothing else).
func indexAt(s *seq, ld *ir.Instr, iv *ir.Value) []*ir.Value {
	body := ld.Block
	memo := map[*ir.Value]*ir.Value{body.Params[0]: iv}
	var at func(v *ir.Value) *ir.Value
	at = func(v *ir.Value) *ir.Value {
		if x, ok := memo[v]; ok {
			return x
		}
		if v.Def == nil || v.Def.Block != body {
			return v // defined before the loop
		}
		args := make([]*ir.Value, len(v.Def.Args))
		for i, a := range v.Def.Args {
			args[i] = at(a)
		}
		c := s.f.NewInstr(v.Def.Op, args, v.Type)
		c.Attrs = cloneAttrs(v.Def.Attrs)
		s.add(c)
		memo[v] = c.Result()
		return c.Result()
	}
	idx := make([]*ir.Value, len(ld.Args)-1)
	for i, a := range ld.Args[1:] {
		idx[i] = at(a)
	}
	return idx
}

// ivPlus is iv + k*step, as new instructions in s.
func ivPlus(s *seq, iv, step *ir.Value, k int64) *ir.Value {
	if k == 0 {
		return iv
	}
	t := iv.Type
	var off *ir.Value
	if c, ok := constOf(step); ok {
		off = s.op(ir.OpConst, nil, t, ir.AttrKeyValue, c.(int64)*k)
	} else {
		off = s.op(ir.OpMul, []*ir.Value{step, s.op(ir.OpConst, nil, t, ir.AttrKeyValue, k)}, t)
	}
	return s.op(ir.OpAdd, []*ir.Value{iv, off}, t)
}

// nextSlot is (x+1) mod stages.
func nextSlot(s *seq, x *ir.Value, stages int) *ir.Value {
	i32 := ir.ScalarOf(ir.I32)
	n := s.op(ir.OpAdd, []*ir.Value{x, s.i32(1)}, i32)
	wrap := s.op(ir.OpCmp, []*ir.Value{n, s.i32(int64(stages))}, ir.ScalarOf(ir.Bool), ir.AttrKeyPred, ir.PredEQ)
	return s.op(ir.OpSelect, []*ir.Value{wrap, s.i32(0), n}, i32)
}

// copyPart is one part of the next stage's copy of a load.
type copyPart struct {
	ld   *ir.Instr
	q, n int
}

// loopSchedule is the state of one pipelined loop's rewrite: what the
// schedule chose (overlap, early, dbl) and what the body built so far
// (slots, the next stage's copies still to issue, the advanced slots and
// the next iteration's first fragments).
type loopSchedule struct {
	p        *pipeliner
	l        *ir.Instr
	loads    []*ir.Instr
	stages   int
	path     map[*ir.Instr]string
	mma      *ir.Instr // the body's one mma when it has the matmul family's shape
	overlap  bool      // the stage wait moves into the mma's last k-step
	early    bool      // ... before its A fragments (Tuning.EarlyStageWait)
	late     *ir.Instr // with early: the A operand's load, whose copies go last
	dbl      bool      // fragments of k-step s+1 before the mma_step of s
	b        *seq      // the new body
	rs, ws   *ir.Value // the read and write slots the loop carries
	readSlot *slotSet

	pending   []copyPart // the next stage's copies not issued yet
	nEarly    int        // how many of them may precede the early stage wait
	ivn       *ir.Value  // the next stage's iteration, iv+(S-1)*step
	writeSlot map[*ir.Instr]*ir.Value
	idxNext   map[*ir.Instr][]*ir.Value

	rsNext, wsNext   *ir.Value // the slots after the advance
	fa0Next, fb0Next *ir.Value // the next iteration's first fragments (overlap)
}

// loop pipelines the smem loads of for loop l.
func (p *pipeliner) loop(l *ir.Instr, loads []*ir.Instr) error {
	f := p.f
	body := l.Regions[0]
	ls := &loopSchedule{p: p, l: l, loads: loads, stages: loads[0].Attrs.Int(ir.AttrKeyStages), path: map[*ir.Instr]string{}}
	for _, ld := range loads[1:] {
		if ld.Attrs.Int(ir.AttrKeyStages) != ls.stages {
			return fmt.Errorf("lower: loads of one loop with %d and %d stages", ls.stages, ld.Attrs.Int(ir.AttrKeyStages))
		}
	}
	vector := true
	for _, ld := range loads {
		ls.path[ld] = p.path(ld, true)
		vector = vector && ls.path[ld] == ir.CopyVector
	}
	ls.mma = simpleMMABody(body)
	ls.overlap = vector && p.t.Tuning.OverlapStageWait && ls.mma != nil
	ls.dbl = p.t.Tuning.FragmentDoubleBuffer && p.variant != VariantGeneral
	if ls.overlap && p.t.Tuning.EarlyStageWait && ls.dbl && ls.stages >= 3 {
		ls.late = smemLoadOf(ls.mma.Args[0])
		ls.early = ls.late != nil
	}
	ls.planCopies()

	pre := ls.prologue()
	rs0, ws0 := pre.i32(0), pre.i32(int64(ls.stages-1))
	carried := []*ir.Value{rs0, ws0}
	i32 := ir.ScalarOf(ir.I32)
	ls.rs, ls.ws = f.AddBlockParam(body, i32), f.AddBlockParam(body, i32)
	ls.b = p.newSeq(l)
	var fa0, fb0 *ir.Value
	if ls.overlap {
		// Wait for stage 0 and load its first fragments before the loop.
		pre.wait(ls.stages - 2)
		pre.barrier()
		fa, fb := fragOps(pre, ls.mma, 0, ls.slotsAt(pre, rs0))
		carried = append(carried, fa, fb)
		fa0, fb0 = f.AddBlockParam(body, fa.Type), f.AddBlockParam(body, fb.Type)
	} else {
		ls.b.wait(ls.stages - 2)
		ls.b.barrier()
	}
	ls.readSlot = ls.slotsAt(ls.b, ls.rs)

	yield := body.Instrs[len(body.Instrs)-1]
	firstMMA := true
	for _, in := range body.Instrs {
		switch {
		case in == yield:
		case in.Op == ir.OpLoad && ls.readSlot.of[in] != nil:
			// Dropped: its uses read the slot (below).
		case in.Op == ir.OpMMA && ls.overlap:
			replaceUses(f, in.Result(), ls.overlappedMMA(in, fa0, fb0))
		case in.Op == ir.OpMMA && firstMMA && len(ls.pending) > 0:
			firstMMA = false
			replaceUses(f, in.Result(), ls.plainMMA(in))
		case in.Op == ir.OpMMA:
			replaceUses(f, in.Result(), decomposeMMA(ls.b, in, ls.dbl, ls.readSlot, nil))
		default:
			ls.b.add(in)
		}
	}
	ls.issueN(len(ls.pending))
	if ls.rsNext == nil {
		ls.advance()
	}
	yield.Args = append(yield.Args, ls.rsNext, ls.wsNext)
	if ls.overlap {
		yield.Args = append(yield.Args, ls.fa0Next, ls.fb0Next)
	}
	ls.b.add(yield)
	for _, in := range ls.b.out {
		in.Block = body
	}
	body.Instrs = ls.b.out
	for _, ld := range loads {
		replaceUses(f, ld.Result(), ls.readSlot.of[ld])
	}

	// The loop carries the slots (and fragments); results grow to match.
	l.Args = append(l.Args, carried...)
	for _, c := range carried {
		r := f.NewValue(c.Type)
		r.Def = l
		r.Index = len(l.Results)
		l.Results = append(l.Results, r)
	}
	l.Attrs = dropAttr(l.Attrs, ir.AttrKeyStages)
	// Prologue before the loop; drain after it.
	post := p.newSeq(l)
	post.wait(0)
	post.barrier()
	for i, x := range l.Block.Instrs {
		if x == l {
			insertAt(l.Block, i+1, post.out)
			insertAt(l.Block, i, pre.out)
			break
		}
	}
	return nil
}

// planCopies lists the next stage's copies in the order they are issued:
// with the early stage wait, the A operand's copies last, since only they
// may follow that wait's barrier (the others are read after it).
func (ls *loopSchedule) planCopies() {
	for pass := 0; pass < 2; pass++ {
		for _, ld := range ls.loads {
			if (ld == ls.late) != (pass == 1) {
				continue
			}
			n := copyParts(ls.p.t, ld.Result().Type.(*ir.Tile), ls.p.threads)
			for q := 0; q < n; q++ {
				ls.pending = append(ls.pending, copyPart{ld, q, n})
			}
			if ld != ls.late {
				ls.nEarly += n
			}
		}
	}
}

// prologue copies stages 0 .. S-2 into slots 0 .. S-2, one commit group
// each, in a sequence placed before the loop.
func (ls *loopSchedule) prologue() *seq {
	p, l := ls.p, ls.l
	pre := p.newSeq(l)
	lo, step := l.Args[0], l.Args[2]
	for st := 0; st < ls.stages-1; st++ {
		ivs := ivPlus(pre, lo, step, int64(st))
		slotIdx := pre.i32(int64(st))
		for _, ld := range ls.loads {
			p.copyTo(pre, ld, indexAt(pre, ld, ivs), p.slot(pre, ld, slotIdx), 0, 1, ls.path[ld])
		}
		pre.commit()
	}
	return pre
}

// slotsAt is every load's ring slot i, built in s.
func (ls *loopSchedule) slotsAt(s *seq, i *ir.Value) *slotSet {
	slots := newSlotSet()
	for _, ld := range ls.loads {
		slots.of[ld] = ls.p.slot(s, ld, i)
	}
	return slots
}

// issueN issues the next n of the next stage's copies into the body, and
// commits the group after the last.
func (ls *loopSchedule) issueN(n int) {
	l, b := ls.l, ls.b
	for _, cp := range ls.pending[:n] {
		if ls.ivn == nil {
			ls.ivn = ivPlus(b, l.Regions[0].Params[0], l.Args[2], int64(ls.stages-1))
			ls.writeSlot, ls.idxNext = map[*ir.Instr]*ir.Value{}, map[*ir.Instr][]*ir.Value{}
		}
		if ls.writeSlot[cp.ld] == nil {
			ls.writeSlot[cp.ld] = ls.p.slot(b, cp.ld, ls.ws)
			ls.idxNext[cp.ld] = indexAt(b, cp.ld, ls.ivn)
		}
		ls.p.copyTo(b, cp.ld, ls.idxNext[cp.ld], ls.writeSlot[cp.ld], cp.q, cp.n, ls.path[cp.ld])
	}
	ls.pending = ls.pending[n:]
	if len(ls.pending) == 0 && n > 0 {
		b.commit()
	}
}

// advance moves the read and write slots on by one.
func (ls *loopSchedule) advance() {
	ls.rsNext, ls.wsNext = nextSlot(ls.b, ls.rs, ls.stages), nextSlot(ls.b, ls.ws, ls.stages)
}

// loadNextFirstFragments advances the slots and loads the next iteration's
// first fragments from them (carried by the loop).
func (ls *loopSchedule) loadNextFirstFragments(in *ir.Instr) {
	ls.advance()
	ls.fa0Next, ls.fb0Next = fragOps(ls.b, in, 0, ls.slotsAt(ls.b, ls.rsNext))
}

// overlappedMMA emits the matmul family's schedule (docs/perf.md v3, v8):
// k-step 0's fragments come from the previous iteration (fa0, fb0), the
// next stage's copies go between the k-steps, and the wait for the next
// stage and its first fragments come in the last k-step (with early, the
// wait before the last k-step's A fragments, A's copies after it).
func (ls *loopSchedule) overlappedMMA(in *ir.Instr, fa0, fb0 *ir.Value) *ir.Value {
	b, t := ls.b, ls.p.t
	acc := in.Args[2]
	ks := kSteps(in)
	fa, fb := fa0, fb0
	for k := 0; k < ks; k++ {
		var na, nb *ir.Value
		switch {
		case ls.early && k+2 == ks:
			if smemLoadOf(in.Args[1]) != ls.late {
				nb = fragOp(b, in, 1, k+1, ls.readSlot)
			}
			b.wait(ls.stages - 3)
			b.barrier()
			na = fragOp(b, in, 0, k+1, ls.readSlot)
			if nb == nil {
				nb = fragOp(b, in, 1, k+1, ls.readSlot)
			}
		case ls.early && k+1 == ks:
			ls.loadNextFirstFragments(in)
		case k+1 < ks && ls.dbl:
			na, nb = fragOps(b, in, k+1, ls.readSlot)
		case k+1 == ks:
			b.wait(ls.stages - 2)
			b.barrier()
			ls.loadNextFirstFragments(in)
		}
		acc = b.op(ir.OpMMAStep, []*ir.Value{fa, fb, acc}, in.Result().Type, ir.AttrKeyLayout, in.Attrs.Get(ir.AttrKeyLayout))
		if len(ls.pending) > 0 && k+1 < ks && (k == 0 || t.Tuning.SpreadCopies || (ls.early && k+2 == ks)) {
			n := len(ls.pending)
			if t.Tuning.SpreadCopies {
				n = ceilDiv(n, max(ks-1-k, 1))
			}
			if ls.early && k+2 < ks {
				n = min(n, ls.nEarly)
				ls.nEarly -= n
			}
			ls.issueN(n)
		}
		if k+1 < ks && !ls.dbl {
			na, nb = fragOps(b, in, k+1, ls.readSlot)
		}
		fa, fb = na, nb
	}
	return acc
}

// plainMMA emits the first mma of a body without the overlap as k-steps,
// the next stage's copies spread after them (Tuning.SpreadCopies).
func (ls *loopSchedule) plainMMA(in *ir.Instr) *ir.Value {
	ks := kSteps(in)
	return decomposeMMA(ls.b, in, ls.dbl, ls.readSlot, func(k int) {
		if len(ls.pending) > 0 && (k == 0 || ls.p.t.Tuning.SpreadCopies) {
			n := len(ls.pending)
			if ls.p.t.Tuning.SpreadCopies {
				n = ceilDiv(n, max(ks-k, 1))
			}
			ls.issueN(n)
		}
	})
}

// smemLoadOf is the smem load whose tile v is (through smem permutes and
// reshapes), or nil.
func smemLoadOf(v *ir.Value) *ir.Instr {
	for d := v.Def; d != nil; d = d.Args[0].Def {
		switch {
		case d.Op == ir.OpLoad && InSmem(d):
			return d
		case (d.Op == ir.OpPermute || d.Op == ir.OpReshape) && InSmem(d):
		default:
			return nil
		}
	}
	return nil
}

// simpleMMABody returns the one mma of a pipelined loop body that is only
// its smem loads (and smem transposes of them), one mma of 16-bit inputs
// with 2 or more k-steps on them, and the yield: the shape whose stage
// wait can overlap the mma's last k-step. Otherwise nil. (Windows of
// batched arrays, reshaped to 2-D, keep the plain schedule: the overlap
// was measured on the matmul family only.)
func simpleMMABody(body *ir.Block) *ir.Instr {
	var mma *ir.Instr
	for _, in := range body.Instrs {
		switch {
		case in.Op == ir.OpLoad && InSmem(in):
		case in.Op == ir.OpPermute && InSmem(in):
		case in.Op == ir.OpMMA && mma == nil:
			a := in.Args[0].Type.(*ir.Tile)
			if (a.DType != ir.F16 && a.DType != ir.BF16) || a.Shape[1] < 32 ||
				smemLoadOf(in.Args[0]) == nil || smemLoadOf(in.Args[1]) == nil {
				return nil
			}
			mma = in
		case in.Op == ir.OpYield:
		default:
			return nil
		}
	}
	return mma
}
