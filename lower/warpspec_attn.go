package lower

// The warpspec pass on attention (sm_90a): FlashAttention-3's structure
// on the same ops as the GEMM form (warpspec.go). A producer warpgroup
// copies each block's query tile once (its own buffer and barriers) and
// the key and value tiles of every step into a ring; the consumer
// warpgroups run S = Q K^T on wgmma with both operands in shared memory,
// the kernel's own softmax code on S's registers (rows split over warps,
// so row reductions stay inside a warp), and O += P V on wgmma with P in
// registers (the register-A form: P's fragments are the pairs of S's
// accumulator registers), then the kernel's epilogue and the store of O
// through TMA.
//
//	for t over the blocks {
//	  producer: mbar_wait q_empty; mbar_expect q_full; tma_load Q
//	            for j { mbar_wait empty; mbar_expect full; tma_load K; tma_load V }
//	  consumers: mbar_wait q_full
//	             for j { mbar_wait full; S = wgmma Q, K {zero_init}; wgmma_wait;
//	                     <softmax, rescale>; O = wgmma P, V; wgmma_wait; mbar_arrive empty }
//	             mbar_arrive q_empty; <epilogue>; TMA store of O
//	}

import (
	"slices"

	"github.com/tilec/tilec/ir"
)

// attnLoop is an attention loop that the sm_90a path runs on wgmma.
type attnLoop struct {
	loop       *ir.Instr
	qk, pv     *ir.Instr // S = Q K^T and O = P V (+ O)
	loadQ      *ir.Instr // before the loop
	loadK      *ir.Instr // (tkv, D), transposed by permK for Q K^T
	permK      *ir.Instr
	loadV      *ir.Instr // (tkv, D)
	tq, tkv, d int
	store      *ir.Instr // the store of O, through TMA when it qualifies
	// views are the reshapes of (1, R, C) loads of 3-D arrays (one head of
	// (H, S, D) arrays) or (1, 1, R, C) loads of 4-D ones (one batch and
	// head of (B, H, S, D) arrays) to the (R, C) tiles the mmas take.
	views []*ir.Instr
}

// findAttnLoop returns the kernel's attention loop when target t runs it
// on wgmma, or nil and the reason it does not: exactly two mmas in one
// loop at the kernel's top level; the first multiplies a zero-padded
// (tq, D) load made before the loop by the transpose of a (tkv, D) load in
// the loop into a zero tile; the second multiplies a register tile
// computed in the loop by a (tkv, D) load in the loop into a value of the
// loop; loads of 2-D f16/bf16 arrays, or of one matrix of 3-D or 4-D
// ones (tmaOperand); tq 64 or 128, D a multiple of 64 up
// to 256, tkv a multiple of 16 up to 256; nothing else in the loop that
// reads memory, writes it or synchronizes the block; before and after the
// loop, element-wise and scalar code, loads and stores.
func findAttnLoop(f *ir.Func, t *Target) (*attnLoop, *Reason) {
	if t.Emitted != WGMMA {
		return nil, refuse(nil, "the target's mma is not wgmma")
	}
	if r := listOperandReason(f); r != nil {
		return nil, r
	}
	mmas := mmaOps(f)
	if len(mmas) != 2 {
		return nil, refuse(nil, "the kernel has %d mma ops (the attention path takes two)", len(mmas))
	}
	if mmas[0].Block != mmas[1].Block {
		return nil, refuse(mmas[1], "the two mmas are not in one loop (the wgmma path takes a GEMM's one mma, or an attention loop's two)")
	}
	al := &attnLoop{qk: mmas[0], pv: mmas[1]}
	al.loop = al.qk.Block.Parent
	if al.loop == nil || al.loop.Op != ir.OpFor {
		return nil, refuse(al.qk, "the mmas are not in a for loop")
	}
	if al.loop.Block != f.Body {
		return nil, refuse(topLevel(f, al.loop), "the mmas' loop is inside this %s; the attention path takes a loop at the kernel's top level", topLevel(f, al.loop).Op)
	}
	// The query tile's rows first: a decode kernel's few query rows (padded
	// by the pad pass, so its operands are no longer loads) miss the path
	// for that reason, not for the operands' form.
	if tq := al.qk.Result().Type.(*ir.Tile).Shape[0]; tq != 64 && tq != 128 {
		return nil, refuse(al.qk, "the query tile has %d rows (the attention path takes 64 or 128)", tq)
	}
	body := al.loop.Regions[0]
	uses := Uses(f)
	single := func(v *ir.Value) bool { return len(uses[v]) == 1 }
	load2D := func(v *ir.Value, where *ir.Block) *ir.Instr {
		ld, view := tmaOperand(v, where, uses)
		if view != nil {
			al.views = append(al.views, view)
		}
		return ld
	}
	if al.loadQ = load2D(al.qk.Args[0], f.Body); al.loadQ == nil {
		return nil, refuse(defOr(al.qk.Args[0], al.qk), "Q is not a zero-padded load of a 2-D f16/bf16 array before the loop")
	}
	if p := al.qk.Args[1].Def; p != nil && p.Op == ir.OpPermute && p.Block == body && single(al.qk.Args[1]) {
		al.permK = p
		al.loadK = load2D(p.Args[0], body)
	}
	if al.loadK == nil {
		return nil, refuse(defOr(al.qk.Args[1], al.qk), "K^T is not the transpose of a zero-padded f16/bf16 load in the loop")
	}
	if z := al.qk.Args[2].Def; z == nil || z.Op != ir.OpSplat || !isZeroConst(z.Args[0]) {
		return nil, refuse(al.qk, "S = Q K^T does not start from zeros")
	}
	if al.loadV = load2D(al.pv.Args[1], body); al.loadV == nil {
		return nil, refuse(defOr(al.pv.Args[1], al.pv), "V is not a zero-padded f16/bf16 load in the loop")
	}
	if a := al.pv.Args[0].Def; a == nil || a.Block != body || a.Op == ir.OpLoad {
		return nil, refuse(al.pv, "P is not a tile computed in the loop")
	}
	if a := al.pv.Args[2]; !single(a) || (a.Def == nil && a.Block != body) {
		return nil, refuse(al.pv, "O's input has other uses")
	}
	qt, kt := tile2D(al.loadQ), tile2D(al.loadK)
	vt, st := tile2D(al.loadV), al.qk.Result().Type.(*ir.Tile)
	al.tq, al.d, al.tkv = qt.Shape[0], qt.Shape[1], kt.Shape[0]
	switch {
	case qt.DType != kt.DType || qt.DType != vt.DType || al.pv.Args[0].Type.Elem() != qt.DType:
		return nil, refuse(al.pv, "Q, K, V and P differ in dtype")
	case qt.DType != ir.F16 && qt.DType != ir.BF16:
		// P V takes P from registers, which wgmma reads for 16-bit types
		// only (tmaOperand also admits float8 and int8 for the GEMM path).
		return nil, refuse(al.pv, "Q, K and V are %s (the attention path takes f16 or bf16)", qt.DType)
	case st.DType != ir.F32 || al.pv.Result().Type.Elem() != ir.F32:
		return nil, refuse(al.pv, "the accumulators are not f32")
	case al.tq != 64 && al.tq != 128:
		return nil, refuse(al.qk, "the query tile has %d rows (the attention path takes 64 or 128)", al.tq)
	case al.d%tmaSlabCols != 0 || al.d > 256 || kt.Shape[1] != al.d || vt.Shape[1] != al.d || vt.Shape[0] != al.tkv:
		return nil, refuse(al.pv, "D is not a multiple of 64 up to 256, or K and V tiles differ")
	case al.tkv%16 != 0 || al.tkv > 256:
		return nil, refuse(al.qk, "the key tile has %d rows (the attention path takes a multiple of 16 up to 256)", al.tkv)
	}
	for _, in := range body.Instrs {
		switch in {
		case al.loadK, al.loadV, al.permK, al.qk, al.pv, body.Instrs[len(body.Instrs)-1]:
			continue
		}
		if slices.Contains(al.views, in) {
			continue
		}
		if in.Op == ir.OpIf && registerOnlyRegions(in) {
			continue // a mask applied to some key tiles only
		}
		if len(in.Regions) > 0 || in.Op.Info().SideEffect || in.Op == ir.OpLoad || in.Op == ir.OpMMA || !attnRegisterOp(in) {
			return nil, refuse(in, "the mmas' loop has %s (only register code runs between them)", in.Op)
		}
	}
	var stores []*ir.Instr
	for _, in := range f.Body.Instrs {
		if in == al.loop || in.Op == ir.OpReturn {
			continue
		}
		if !wsStraightOp(in) && in.Op != ir.OpReduce {
			return nil, refuse(in, "%s before or after the mmas' loop (only element-wise and scalar code, loads, stores and reductions run in a role's branch)", in.Op)
		}
		if in.Op == ir.OpStore {
			stores = append(stores, in)
		}
	}
	al.store = tmaStoreOf(stores, al.tq, al.d) // O's (tq, D) tile
	return al, nil
}

// registerOnlyRegions reports whether every op in the regions of an if
// (at any depth) is one attnRegisterOp accepts, or a yield or a nested
// if of the same kind: code that the consumer warpgroups run on their own
// registers, such as a mask applied only to the key tiles that need it.
// Its condition is a scalar, the same for every thread of the block.
func registerOnlyRegions(in *ir.Instr) bool {
	for _, r := range in.Regions {
		for _, x := range r.Instrs {
			switch {
			case x.Op == ir.OpYield:
			case x.Op == ir.OpIf && registerOnlyRegions(x):
			case len(x.Regions) > 0 || x.Op.Info().SideEffect || !attnRegisterOp(x):
				return false
			}
		}
	}
	return true
}

func isZeroConst(v *ir.Value) bool {
	c, ok := constOf(v)
	if !ok {
		return false
	}
	switch x := c.(type) {
	case float64:
		return x == 0
	case int64:
		return x == 0
	}
	return false
}

// attnSpec rewrites an attention kernel; it reuses warpspec's ring,
// tile-loop and store helpers through a wgmmaLoop describing O.
type attnSpec struct {
	*warpspec
	al                  *attnLoop
	qBytes, kvBytes     int
	qOff                int
	ringQ, ringK, ringV *ir.Value
	qFull, qEmpty       *ir.Value
}

// attnLayoutsOK checks what the layout, convert and smem passes decided:
// both accumulators in the warpgroup layout, no scratch region (a
// reduction or conversion across warps: the consumers' named barrier,
// which the GEMM path gives its epilogue's reductions, is not offered
// here, where the softmax runs inside the loop between the two mmas).
func attnLayoutsOK(f *ir.Func, al *attnLoop) bool {
	if f.Facts.HasScratch {
		return false
	}
	for _, mma := range []*ir.Instr{al.qk, al.pv} {
		s := mma.Result().Type.(*ir.Tile).Shape
		l, err := LayoutOf(mma.Result())
		if err != nil || !SameLayout(l, MMALayout(s[0], s[1], s[0]/16, 1)) {
			return false
		}
	}
	bad := false
	f.Body.Walk(func(in *ir.Instr) {
		if in.Op == ir.OpConvertLayout {
			bad = true
		}
	})
	return !bad
}

// warpSpecializeAttention is the warpspec pass on an attention kernel:
// the plan it applied, or why it does not apply.
func warpSpecializeAttention(f *ir.Func, t *Target) (*warpspec, *Reason) {
	al, whyNot := findAttnLoop(f, t)
	if al == nil {
		return nil, whyNot
	}
	if !attnLayoutsOK(f, al) {
		return nil, refuse(al.loop, "laid out for warpgroups, the attention loop needs a reduction or conversion across warps (shared memory and the block's barrier)")
	}
	// O is the "GEMM" whose store the helpers stage: m = tq, n = D.
	w := &warpspec{f: f, t: t, lp: &wgmmaLoop{loop: al.loop, mma: al.pv, m: al.tq, n: al.d, store: al.store}}
	a := &attnSpec{warpspec: w, al: al}
	if !a.plan() {
		return nil, refuse(al.loop, "the query tile and two stages of this loop's key and value ring do not fit %s's shared memory (%d bytes): use smaller tiles", t, t.KernelSharedBytes())
	}
	a.rewrite(f.Body.Terminator())
	DeadCode(f)
	return w, nil
}

func (a *attnSpec) plan() bool {
	al, w := a.al, a.warpspec
	a.qBytes = al.tq * al.d * 2
	a.kvBytes = al.tkv * al.d * 2
	per := 2*a.kvBytes + 2*mbarBytes
	budget := w.t.KernelSharedBytes() - a.qBytes - 2*mbarBytes
	w.staging = -1
	w.noteStore(al.store, al.tq, al.d)
	if al.store != nil {
		if stagedStore(al.store, al.tq, al.d) {
			w.stageCols = al.d
			w.stagingBytes = al.tq * al.d * 2
		}
	}
	w.stages = min((budget-w.stagingBytes)/per, w.t.Tuning.MaxStages)
	if w.stages < 2 {
		return false
	}
	a.qOff = w.stages * 2 * a.kvBytes
	w.barOff = a.qOff + a.qBytes
	if w.stagingBytes > 0 {
		w.staging = w.barOff
		w.barOff += w.stagingBytes
	}
	return true
}

func (a *attnSpec) rewrite(ret *ir.Instr) {
	al, w := a.al, a.warpspec
	pre, post := splitLoop(al.loop)
	s := &seq{f: a.f}
	s.pos.Pos = al.qk.Pos
	a.ringK = w.ring(s, al.loadK, 0, w.stages, a.kvBytes)
	a.ringV = w.ring(s, al.loadV, w.stages*a.kvBytes, w.stages, a.kvBytes)
	a.ringQ = w.ring(s, al.loadQ, a.qOff, 1, a.qBytes)
	w.allocRing(s)
	qBars := w.barOff + 2*mbarBytes*w.stages
	a.qFull = mbars(s, 1, qBars, 1)
	a.qEmpty = mbars(s, w.lp.consumers(), qBars+mbarBytes, 1)
	w.splitRoles(s, ret, qBars+2*mbarBytes,
		func(s *seq) { a.tileLoop(s, pre, nil, false) },
		func(s *seq) { a.tileLoop(s, pre, post, true) })
}

// tileLoop appends one role's loop over the kernel's blocks, carrying the
// ring's stage and phase and the query buffer's phase.
func (a *attnSpec) tileLoop(s *seq, pre, post []*ir.Instr, consumer bool) {
	al, w := a.al, a.warpspec
	w.persistentLoop(s, 3, func(b *seq, m map[*ir.Value]*ir.Value, it *tileIter, c []*ir.Value) []*ir.Value {
		bid, grid := it.bid, it.grid
		stage, phase, qPhase := c[0], c[1], c[2]
		// The code before the loop, with the query load replaced: the
		// producer copies Q once the consumers freed the buffer; the
		// consumers wait for it.
		var qSlot *ir.Value
		for _, in := range pre {
			if slices.Contains(al.views, in) {
				m[in.Result()] = qSlot // the 2-D view of Q's (1, tq, D) load
				continue
			}
			if in != al.loadQ {
				w.cloneInto(b, []*ir.Instr{in}, m, bid, grid)
				continue
			}
			qSlot = b.op(ir.OpSmemSlot, []*ir.Value{a.ringQ, b.i32(0)}, tile2D(in), ir.AttrKeyLayout, &ir.Layout{Kind: ir.LayoutSmem})
			if consumer {
				b.op(ir.OpMbarWait, []*ir.Value{a.qFull, b.i32(0), qPhase}, nil)
			} else {
				parity := b.op(ir.OpXor, []*ir.Value{qPhase, b.i32(1)}, i32T)
				b.op(ir.OpMbarWait, []*ir.Value{a.qEmpty, b.i32(0), parity}, nil)
				b.op(ir.OpMbarExpect, []*ir.Value{a.qFull, b.i32(0)}, nil, ir.AttrKeyBytes, int64(a.qBytes))
				tmaLoad(b, m, in, qSlot, a.qFull, b.i32(0))
			}
			m[in.Result()] = qSlot
		}
		var st, ph *ir.Value
		if consumer {
			st, ph = a.consumerLoop(b, m, stage, phase, qSlot)
			b.op(ir.OpMbarArrive, []*ir.Value{a.qEmpty, b.i32(0), b.op(ir.OpConst, nil, boolT, ir.AttrKeyValue, true)}, nil)
			w.cloneInto(b, post, m, bid, grid)
		} else {
			st, ph = a.producerLoop(b, m, stage, phase)
		}
		return []*ir.Value{st, ph, b.op(ir.OpXor, []*ir.Value{qPhase, b.i32(1)}, i32T)}
	})
}

// kvLoop starts a copy of the attention loop (ringLoop), carrying after
// the ring's stage and phase the loop's own values when the consumers run
// it (the loop's parameters then stand for the copy's in m).
func (a *attnSpec) kvLoop(s *seq, m map[*ir.Value]*ir.Value, stage, phase *ir.Value, carried bool) (*ir.Instr, *seq, []*ir.Value) {
	al := a.al
	var extra []*ir.Value
	if carried {
		for _, x := range al.loop.Args[3:] {
			extra = append(extra, copyOf(m, x))
		}
	}
	kl, b, params := a.ringLoop(s, m, al.loop, stage, phase, extra)
	if carried {
		for i, p := range al.loop.Regions[0].Params[1:] {
			m[p] = params[2+i]
		}
	}
	return kl, b, params
}

// producerLoop: per step, wait until the consumers freed the stage, then
// copy K's and V's tiles into it.
func (a *attnSpec) producerLoop(s *seq, m map[*ir.Value]*ir.Value, stage, phase *ir.Value) (*ir.Value, *ir.Value) {
	al, w := a.al, a.warpspec
	kl, b, p := a.kvLoop(s, m, stage, phase, false)
	st, ph := p[0], p[1]
	// The loop's scalar code (the loads' indices may use it).
	old := al.loop.Regions[0]
	var scalars []*ir.Instr
	for _, in := range old.Instrs[:len(old.Instrs)-1] {
		if scalarResults(in) && len(in.Regions) == 0 && !in.Op.Info().SideEffect {
			scalars = append(scalars, in)
		}
	}
	// (No block id is among them: attnLaunchReads keeps those out of the
	// attention loop.)
	w.cloneInto(b, scalars, m, [3]*ir.Value{}, [3]*ir.Value{})
	w.fillStage(b, m, nil, st, ph, 2*a.kvBytes, []ringLoad{{al.loadK, a.ringK}, {al.loadV, a.ringV}})
	ns, np := w.advance(b, st, ph)
	finishLoop(s, kl, b, []*ir.Value{ns, np}, a.f)
	return kl.Results[0], kl.Results[1]
}

// consumerLoop: per step, wait for the stage; the loop's code in order,
// with Q K^T and P V on wgmma (each waited for before its result is
// read or its accumulator touched); then free the stage.
func (a *attnSpec) consumerLoop(s *seq, m map[*ir.Value]*ir.Value, stage, phase, qSlot *ir.Value) (*ir.Value, *ir.Value) {
	al, w := a.al, a.warpspec
	kl, b, p := a.kvLoop(s, m, stage, phase, true)
	st, ph := p[0], p[1]
	b.op(ir.OpMbarWait, []*ir.Value{w.full, st, ph}, nil)
	smemLayout := &ir.Layout{Kind: ir.LayoutSmem}
	kSlot := b.op(ir.OpSmemSlot, []*ir.Value{a.ringK, st}, tile2D(al.loadK), ir.AttrKeyLayout, smemLayout)
	vSlot := b.op(ir.OpSmemSlot, []*ir.Value{a.ringV, st}, tile2D(al.loadV), ir.AttrKeyLayout, smemLayout)
	old := al.loop.Regions[0]
	for _, in := range old.Instrs[:len(old.Instrs)-1] {
		if slices.Contains(al.views, in) {
			continue
		}
		switch in {
		case al.loadK, al.loadV, al.permK:
			continue
		case al.qk:
			sv := b.op(ir.OpWGMMA, []*ir.Value{qSlot, kSlot, copyOf(m, in.Args[2])}, in.Result().Type,
				ir.AttrKeyLayout, in.Attrs.Get(ir.AttrKeyLayout), ir.AttrKeyTransB, false, ir.AttrKeyZeroInit, true)
			b.op(ir.OpWGMMAWait, nil, nil, ir.AttrKeyPending, int64(0))
			m[in.Result()] = sv
			continue
		case al.pv:
			ov := b.op(ir.OpWGMMA, []*ir.Value{copyOf(m, in.Args[0]), vSlot, copyOf(m, in.Args[2])}, in.Result().Type,
				ir.AttrKeyLayout, in.Attrs.Get(ir.AttrKeyLayout), ir.AttrKeyTransB, true)
			b.op(ir.OpWGMMAWait, nil, nil, ir.AttrKeyPending, int64(0))
			m[in.Result()] = ov
			continue
		}
		tmp := &ir.Block{}
		cloneBlock(a.f, &ir.Block{Instrs: []*ir.Instr{in}}, tmp, m)
		for _, x := range tmp.Instrs {
			// P stays in registers: the register-A wgmma reads it there.
			for _, k := range []string{ir.AttrKeyStaged, ir.AttrKeySmem, ir.AttrKeyRowBytes, ir.AttrKeyStageBytes, ir.AttrKeyStages} {
				x.Attrs = dropAttr(x.Attrs, k)
			}
			b.add(x)
		}
	}
	has := b.op(ir.OpConst, nil, boolT, ir.AttrKeyValue, true)
	b.op(ir.OpMbarArrive, []*ir.Value{w.empty, st, has}, nil)
	ns, np := w.advance(b, st, ph)
	yield := []*ir.Value{ns, np}
	for _, x := range old.Instrs[len(old.Instrs)-1].Args {
		yield = append(yield, copyOf(m, x))
	}
	finishLoop(s, kl, b, yield, a.f)
	for i, r := range al.loop.Results {
		m[r] = kl.Results[2+i]
	}
	return kl.Results[0], kl.Results[1]
}
