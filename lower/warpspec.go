package lower

// Pass warpspec (sm_90a).
// Requires: variants (the fast variant is marked), layout (the
// accumulator of a wgmma loop has the warpgroup layout, see
// findWGMMALoop's use in AssignLayouts).
// Guarantees: on a target whose mma family is wgmma, the fast variant of a
// kernel in the GEMM family (one loop that loads A and B tiles and
// accumulates their product; findWGMMALoop says exactly which) is
// rewritten into a warp-specialized persistent kernel:
//
//	smem_alloc rings of TMA slabs for A and B, S stages
//	mbar_alloc full (1 arrival + the bytes), mbar_alloc empty (1 per consumer warpgroup)
//	barrier
//	if warp_id >= 4*C {                       the producer warpgroup
//	  set_max_regs {regs=40}
//	  if warp_id == 4*C {                     one warp, one elected thread issues
//	    for t = cta_id, tiles, cta_count {    the kernel's blocks, in its own order
//	      <the kernel's code before its loop, with bid taken from t>
//	      for k { mbar_wait empty; mbar_expect full; tma_load A; tma_load B }
//	    }
//	  }
//	} else {                                   C consumer warpgroups
//	  set_max_regs {regs=232}
//	  for t = cta_id, tiles, cta_count {
//	    <the code before the loop>
//	    for k { mbar_wait full; wgmma; wgmma_wait {pending=1}; mbar_arrive empty (the previous stage) }
//	    wgmma_wait {pending=0}; mbar_arrive empty (the last stage)
//	    <the code after the loop: the fused epilogue and the stores>
//	  }
//	}
//
// The ring's stage and phase are carried across the k-loops and the tile
// loop, so the producer runs ahead into the next block while the
// consumers finish the last one's epilogue. The kernel's bid arithmetic
// (the seed's grouped swizzle, say) is kept as written: only bid and
// num_blocks are replaced, by the tile index t decomposed over the
// kernel's own grid (grid_size, passed at launch). A kernel that is not in
// the family, or a launch whose arrays cannot take a TMA map (the general
// variant), keeps the mma.sync path under .target sm_90a.

import (
	"slices"

	"github.com/tilec/tilec/ir"
)

// Register budgets of the warpgroups (setmaxnreg; PTX.md 3.6): all threads
// start at wsEntryRegs (.maxnreg, so that ptxas knows the count at entry);
// the producer, which only issues copies, drops to wsProducerRegs so that
// the consumers, which hold the accumulators, can rise to
// wsConsumerRegs. 128*40 + 256*232 = 64512 of the SM's 65536.
const (
	wsEntryRegs    = 168
	wsProducerRegs = 40
	wsConsumerRegs = 232
	// tmaSlabCols is the width in 16-bit elements of one 128-byte
	// swizzled slab: the widest box TMA writes with SWIZZLE_128B, and the
	// K extent of one wgmma descriptor's swizzle atom (slabElems gives it
	// for other element sizes).
	tmaSlabCols = 64
	// tmaSlabBytes is the row bytes of that slab.
	tmaSlabBytes = 128
	// mbarBytes is one mbarrier.
	mbarBytes = 8
)

// The named barriers of a warp-specialized kernel (bar.sync id, threads;
// id 0 is the whole block's, which only the code before the split into
// roles may use): each has one job, so that no two sequences of barriers
// can interleave on one id.
const (
	// barrierStaging orders the consumers around the TMA store's staging
	// buffer (tmaStore).
	barrierStaging = 1
	// barrierConsumers is the consumer role's own barrier: the barriers
	// pass places it around exchanges through the scratch region (a
	// reduction across the warps of the epilogue).
	barrierConsumers = 2
)

// wgmmaLoop is a loop that the sm_90a path runs on TMA and wgmma.
type wgmmaLoop struct {
	loop, mma    *ir.Instr
	loadA, loadB *ir.Instr
	// permB is the transpose between loadB and the mma when B is given as
	// (N, K), K contiguous (matmul_bt); nil when B is loaded (K, N).
	permB *ir.Instr
	// permA is the transpose between loadA and the mma when A is loaded
	// as (K, M), M contiguous (wgmma's MN-major A, trans-a 1): a kernel
	// that computes C^T = B^T A^T so that few rows of A are the mma's N;
	// nil when A is loaded (M, K).
	permA *ir.Instr
	// views are the reshapes of batched loads (a (1, R, C) tile of a 3-D
	// array, or (1, 1, R, C) of a 4-D one, seen as (R, C)) between the
	// loads and the mma.
	views   []*ir.Instr
	m, n, k int
	// store is the store after the loop that goes out through shared
	// memory and a TMA store (the kernel's one store of an (m, n) 16-bit
	// tile with whole 64-column slabs), or nil: then every store is from
	// registers.
	store *ir.Instr
	// tiles is the kernel's own tile loop around the k-loop (cuTile's
	// persistent pattern, `for t in range(ct.bid(0), tiles,
	// ct.num_blocks(0))`), or nil when the k-loop is at the top level and
	// the pass makes the tile loop itself.
	tiles *ir.Instr
}

// home is the block that holds the k-loop: the kernel's body, or the body
// of its own tile loop.
func (lp *wgmmaLoop) home() *ir.Block { return lp.loop.Block }

// consumers is the number of consumer warpgroups: one per 64 rows.
func (lp *wgmmaLoop) consumers() int { return lp.m / 64 }

// transB says whether wgmma reads B as MN-major (trans-b 1): B loaded as
// (K, N) with N contiguous.
func (lp *wgmmaLoop) transB() bool { return lp.permB == nil }

// transA says whether wgmma reads A as MN-major (trans-a 1).
func (lp *wgmmaLoop) transA() bool { return lp.permA != nil }

// findWGMMALoop returns the kernel's GEMM loop when target t runs it on
// wgmma, or nil and the reason it does not. The shape of the kernel it
// accepts: exactly one mma, in a loop at the kernel's top level that
// carries only the accumulator (f32; int32 for int8) and whose body is the
// two zero-padded loads of 2-D f16/bf16, float8 or int8/uint8 tiles
// feeding it, scalar arithmetic and the yield; A's tile is 64 or 128 rows
// (one or two consumer warpgroups) by 64 bytes or a multiple of 128 bytes
// of K (the 64- and 128-byte swizzled slabs); B's tile is (K, N) with N a
// multiple of 64, or (N, K) transposed, N a multiple of 8 up to 256 (one
// wgmma's N); a one-byte B must be (N, K): wgmma reads one-byte operands
// K-major only (and float8 needs use_fast_acc). The code before
// and after the loop is element-wise tile and scalar code, loads and
// stores, and ops whose effects a role can run (wsStraightOp).
func findWGMMALoop(f *ir.Func, t *Target) (*wgmmaLoop, *Reason) {
	if t.Emitted != WGMMA {
		return nil, refuse(nil, "the target's mma is not wgmma")
	}
	if r := listOperandReason(f); r != nil {
		return nil, r
	}
	mmas := mmaOps(f)
	if len(mmas) != 1 {
		// The second mma is where the kernel leaves the path's shape.
		return nil, refuse(mmas[min(1, len(mmas)-1)], "the kernel has %d mma ops (the wgmma path takes one, or two in an attention loop)", len(mmas))
	}
	lp := &wgmmaLoop{mma: mmas[0]}
	lp.loop = lp.mma.Block.Parent
	if lp.loop == nil || lp.loop.Op != ir.OpFor {
		return nil, refuse(lp.mma, "the mma is not in a for loop (the wgmma path pipelines a k-loop)")
	}
	if lp.loop.Block != f.Body {
		// The kernel's own tile loop (cuTile's persistent pattern) is
		// the one other place: both roles run it as written, carrying
		// the ring's stage and phase across its iterations.
		outer := lp.loop.Block.Parent
		if outer == nil || outer.Op != ir.OpFor || outer.Block != f.Body {
			// Name the top-level statement that holds the loop.
			return nil, refuse(topLevel(f, lp.loop), "the mma's loop is inside this %s; the wgmma path takes a k-loop at the kernel's top level or directly inside one for loop there (a tile loop)", topLevel(f, lp.loop).Op)
		}
		if len(outer.Results) != 0 {
			return nil, refuse(outer, "the tile loop around the mma's loop carries values (the wgmma path runs it in two roles that share only the ring)")
		}
		lp.tiles = outer
	}
	body := lp.loop.Regions[0]
	yield := body.Instrs[len(body.Instrs)-1]
	if len(lp.loop.Results) != 1 || body.Params[1] != lp.mma.Args[2] || yield.Args[0] != lp.mma.Result() {
		return nil, refuse(lp.loop, "the mma's loop carries more than the accumulator")
	}
	acc := lp.mma.Result().Type.(*ir.Tile)
	if (acc.DType != ir.F32 && acc.DType != ir.I32) || acc.Rank() != 2 {
		return nil, refuse(lp.mma, "the accumulator is not a 2-D f32 (or int32, of int8 inputs) tile")
	}
	lp.m, lp.n = acc.Shape[0], acc.Shape[1]
	if lp.m != 64 && lp.m != 128 {
		// Before the operands: a small tile padded by the pad pass has
		// register operands, but its rows are what keeps it off the path.
		return nil, refuse(lp.mma, "the tile has %d rows (the wgmma path takes 64 or 128)", lp.m)
	}
	uses := Uses(f)
	// operand reads the mma's operand v: a TMA-able load in the loop, or
	// the transpose of one (perm); name is "A" or "B" for the reasons.
	operand := func(v *ir.Value, name string) (ld, perm *ir.Instr, why *Reason) {
		if d := v.Def; d != nil && d.Op == ir.OpPermute && d.Block == body && len(uses[v]) == 1 {
			perm, v = d, d.Args[0]
		}
		ld, view := tmaOperand(v, body, uses)
		if view != nil {
			lp.views = append(lp.views, view)
		}
		if ld == nil {
			return nil, nil, refuse(defOr(v, lp.mma), "%s is not a zero-padded load of a 2-D f16/bf16/float8/int8 array in the loop (or its transpose)", name)
		}
		return ld, perm, nil
	}
	var why *Reason
	if lp.loadA, lp.permA, why = operand(lp.mma.Args[0], "A"); why != nil {
		return nil, why
	}
	lp.k = lp.mma.Args[0].Type.(*ir.Tile).Shape[1]
	if lp.loadB, lp.permB, why = operand(lp.mma.Args[1], "B"); why != nil {
		return nil, why
	}
	for _, p := range []*ir.Instr{lp.permA, lp.permB} {
		if p != nil && len(lp.views) > 0 {
			return nil, refuse(p, "a transposed operand beside a batched (3-D or 4-D) tile")
		}
	}
	da, db := lp.loadA.Result().Type.Elem(), lp.loadB.Result().Type.Elem()
	oneByte := da.IsFloat8() || da.IsByteInt()
	// wgmma mixes float8 kinds (e4m3 x e5m2) and int8 signedness (s8 x
	// u8), not more.
	if da != db && !(da.IsFloat8() && db.IsFloat8()) && !(da.IsByteInt() && db.IsByteInt()) {
		return nil, refuse(lp.mma, "A and B differ in dtype")
	}
	kb := lp.k * da.Bytes()
	switch {
	case oneByte && lp.transA():
		return nil, refuse(lp.mma, "A is (K, M): wgmma reads one-byte (float8, int8) operands K-major only")
	case oneByte && lp.transB():
		return nil, refuse(lp.mma, "B is (K, N): wgmma reads one-byte (float8, int8) operands K-major only (give B as (N, K) and multiply by its transpose, as fp8 and int8 GEMMs keep weights)")
	case lp.transA() && lp.transB():
		return nil, refuse(lp.permA, "A is transposed and B is (K, N): both operands MN-major, a combination not yet checked on the GPU")
	case da.IsFloat8() && !lp.mma.Attrs.Bool(ir.AttrKeyFastAcc):
		// Two-level accumulation (wgmma into a fresh accumulator per few
		// k-steps, added into a float32 one) would keep float32 sums on
		// wgmma; until then float32 sums mean mma.sync.
		return nil, refuse(lp.mma, "float8 wgmma sums in a reduced-precision accumulator (about 14 bits): ct.mma(..., use_fast_acc=True) allows it; without it the sums are float32, on mma.sync")
	case (kb%tmaSlabBytes != 0 && kb != tmaSlabBytes/2) || lp.k > 256:
		return nil, refuse(lp.mma, "the K tile is %d (the wgmma path takes %d, or multiples of %d up to 256)", lp.k, slabElems(da)/2, slabElems(da))
	case lp.n%8 != 0 || lp.n > 256 || (lp.transB() && lp.n%tmaSlabCols != 0 && lp.n != tmaSlabCols/2):
		return nil, refuse(lp.mma, "the N tile is %d (the wgmma path takes 32 or multiples of 64 up to 256, or multiples of 8 for B given as (N, K))", lp.n)
	}
	for _, in := range body.Instrs {
		switch in {
		case lp.loadA, lp.loadB, lp.permA, lp.permB, lp.mma, yield:
			continue
		}
		if slices.Contains(lp.views, in) {
			continue
		}
		if len(in.Regions) > 0 || in.Op.Info().SideEffect || !scalarResults(in) {
			return nil, refuse(in, "the mma's loop has %s besides the loads and the mma", in.Op)
		}
	}
	// The code before the k-loop runs in both roles (and twice in the
	// producer in pair mode): a side effect that is not idempotent there
	// (an atomic, a scatter) would happen more than once.
	before := map[*ir.Instr]bool{}
	for _, b := range []*ir.Block{f.Body, lp.home()} {
		for _, in := range b.Instrs {
			if in == lp.loop || in == lp.tiles {
				break
			}
			before[in] = true
		}
	}
	repeated := func(in *ir.Instr) *Reason {
		if before[in] && (in.Op.Info().Global == ir.GlobalAtomic || in.Op == ir.OpScatter) {
			return refuse(in, "%s before the mma's loop: both roles run that code, so it would happen more than once", in.Op)
		}
		return nil
	}
	for _, in := range f.Body.Instrs {
		if in == lp.loop || in == lp.tiles || in.Op == ir.OpReturn {
			continue
		}
		if why := repeated(in); why != nil {
			return nil, why
		}
		if lp.tiles != nil && in.Block == f.Body && slices.Index(f.Body.Instrs, in) > slices.Index(f.Body.Instrs, lp.tiles) {
			return nil, refuse(in, "%s after the tile loop (the wgmma path runs the tile loop last)", in.Op)
		}
		if !wsStraightOp(in) {
			return nil, refuse(in, "%s before or after the mma's loop (only element-wise and scalar code, loads and stores run in a role's branch)", in.Op)
		}
		if in.Op == ir.OpStore && lp.tiles != nil {
			return nil, refuse(in, "a store outside the tile loop")
		}
	}
	var stores []*ir.Instr
	if lp.tiles != nil {
		for _, in := range lp.home().Instrs {
			if in == lp.loop || in.Op == ir.OpYield {
				continue
			}
			if !wsStraightOp(in) {
				return nil, refuse(in, "%s in the tile loop beside the mma's loop (only element-wise and scalar code, loads and stores run in a role's branch)", in.Op)
			}
			if why := repeated(in); why != nil {
				return nil, why
			}
		}
	}
	for _, in := range lp.home().Instrs {
		if in.Op == ir.OpStore {
			stores = append(stores, in)
		}
	}
	lp.store = tmaStoreOf(stores, lp.m, lp.n)
	return lp, nil
}

// topLevel is the instruction of f's body that holds in.
func topLevel(f *ir.Func, in *ir.Instr) *ir.Instr {
	for in.Block != f.Body && in.Block.Parent != nil {
		in = in.Block.Parent
	}
	return in
}

// defOr is the instruction that defines v, or in where v has none (a
// parameter or a block argument).
func defOr(v *ir.Value, in *ir.Instr) *ir.Instr {
	if v.Def != nil {
		return v.Def
	}
	return in
}

// tmaStoreOf returns the one store of the kernel's (m, n) result that can
// go out through TMA (nil otherwise): into a 16-bit 2-D array or one
// matrix of a 3-D or 4-D one, whole 64-column slabs wide. Whether it does
// is the plan's choice (stagedStore).
func tmaStoreOf(stores []*ir.Instr, m, n int) *ir.Instr {
	if len(stores) != 1 {
		return nil
	}
	st := stores[0]
	at, _ := st.Args[0].Type.(*ir.Array)
	tt, _ := storedMatrix(st).Type.(*ir.Tile)
	if at == nil || tt == nil || at.Rank < 2 || at.Rank > 4 || (at.DType != ir.F16 && at.DType != ir.BF16) ||
		tt.Rank() != 2 || tt.Shape[0] != m || tt.Shape[1] != n || n%tmaSlabCols != 0 {
		return nil
	}
	return st
}

// stagedStore reports whether a TMA-able store's (m, n) result is in the
// warpgroup accumulator layout, which smem_stage writes into slabs.
func stagedStore(st *ir.Instr, m, n int) bool {
	l, err := LayoutOf(storedMatrix(st))
	return err == nil && SameLayout(l, MMALayout(m, n, m/16, 1))
}

// storedMatrix is the (m, n) tile a store writes: its tile, or for a 3-D
// or 4-D array (a batched matmul's C) the 2-D tile that the stored
// (1, m, n) or (1, 1, m, n) tile reshapes, which the TMA store stages.
func storedMatrix(st *ir.Instr) *ir.Value {
	v := st.Args[len(st.Args)-1]
	at, _ := st.Args[0].Type.(*ir.Array)
	if at == nil || at.Rank == 2 {
		return v
	}
	if d := v.Def; d != nil && d.Op == ir.OpReshape {
		src := d.Args[0]
		if t, ok := src.Type.(*ir.Tile); ok && t.Rank() == 2 && t.NumElements() == v.Type.(*ir.Tile).NumElements() {
			vs := v.Type.(*ir.Tile).Shape
			for _, e := range vs[:len(vs)-2] {
				if e != 1 {
					return v
				}
			}
			return src
		}
	}
	return v
}

// tmaOperand returns the load in block where that an mma operand v comes
// from when TMA can copy it: a zero-padded load (allow_tma not False) of a
// 2-D f16/bf16, float8 or int8/uint8 array with no other use, or one matrix of a 3-D or 4-D
// array (a (1, R, C) or (1, 1, R, C) tile reshaped to (R, C): view is that
// reshape). The leading indices of such a load pick the matrix (a batch,
// or a batch and a head of (B, H, S, D) attention arrays): they are
// coordinates of boxes one element deep in the array's tensor map.
func tmaOperand(v *ir.Value, where *ir.Block, uses map[*ir.Value][]*ir.Instr) (ld, view *ir.Instr) {
	single := func(v *ir.Value) bool { return len(uses[v]) == 1 }
	d := v.Def
	if d != nil && d.Op == ir.OpReshape && d.Block == where && single(v) {
		view, v, d = d, d.Args[0], d.Args[0].Def
	}
	if d == nil || d.Op != ir.OpLoad || d.Block != where || !single(v) || !zeroPad(d) || !tmaAllowed(d) {
		return nil, nil
	}
	at, ok := d.Args[0].Type.(*ir.Array)
	if !ok || (at.DType != ir.F16 && at.DType != ir.BF16 && !at.DType.IsFloat8() && !at.DType.IsByteInt()) {
		return nil, nil
	}
	switch s := d.Result().Type.(*ir.Tile).Shape; {
	case at.Rank == 2 && view == nil:
	case at.Rank == 3 && view != nil && s[0] == 1:
	case at.Rank == 4 && view != nil && s[0] == 1 && s[1] == 1:
	default:
		return nil, nil
	}
	return d, view
}

// mmaOps are the kernel's mma instructions, in program order.
func mmaOps(f *ir.Func) []*ir.Instr {
	var mmas []*ir.Instr
	f.Body.Walk(func(in *ir.Instr) {
		if in.Op == ir.OpMMA {
			mmas = append(mmas, in)
		}
	})
	return mmas
}

func scalarResults(in *ir.Instr) bool {
	for _, r := range in.Results {
		if _, ok := r.Type.(*ir.Scalar); !ok {
			return false
		}
	}
	return true
}

// wsStraightOp reports whether in can run in one role's branch as it
// stands: an op without regions whose effects (the op table's) a role
// can meet. Register arithmetic, each thread's own global accesses
// (loads, stores, gathers, scatters, atomics), a reshape that keeps every
// element in its thread, and a reduce qualify: where the reduce's axis
// crosses warps (which only the warpgroup layouts tell) it exchanges
// partials through the scratch region, and the barriers pass gives it the
// consumer role's named barrier (producerExchange refuses one that the
// producer would run). Not a rank-0 atomic (one thread acts for the block
// between block barriers), nor the other exchanges (cat, extract, insert,
// scan, a general reshape): they would take the same barrier, but none has
// been checked in a role yet.
func wsStraightOp(in *ir.Instr) bool {
	if len(in.Regions) > 0 {
		return false
	}
	if _, rank0 := rank0Atomic(in); rank0 {
		return false
	}
	switch in.Op.Info().Shared {
	case ir.SharedNone:
		return true
	case ir.SharedExchange:
		// An atomic exchanges through scratch only at rank 0 (refused
		// above).
		return in.Op == ir.OpReshape && !GeneralReshape(in) || in.Op.Info().Global == ir.GlobalAtomic || in.Op == ir.OpReduce
	}
	return false
}

// WarpSpecialize is the warpspec pass. The layout, convert and smem
// passes laid the kernel out for mma.sync (the general variant keeps
// that); a kernel this pass takes is laid out again, on a copy, with the
// accumulators in the warpgroup grid, and replaces f only when the
// rewrite applies.
func WarpSpecialize(f *ir.Func, t *Target) error {
	warpSpecialize(f, t)
	return nil
}

// warpSpecialize is WarpSpecialize that also says why: when f keeps the
// mma.sync path on a wgmma target, the reason; when it takes the
// warp-specialized path, the options of it that it goes without (2-CTA
// clusters, the TMA store) and why. Nothing when the target has no wgmma,
// or when f has one form only (the variants pass said why it has no fast
// variant).
func warpSpecialize(f *ir.Func, t *Target) []*Reason {
	switch {
	case t.Emitted != WGMMA || f.Facts.Variant == "":
		return nil
	case f.Facts.Variant != VariantFast:
		return []*Reason{refuse(nil, "this variant serves launches whose arrays are not all 16-byte aligned with 16-byte rows, which TMA cannot copy")}
	}
	lp, whyNot := findWGMMALoop(f, t)
	al, whyNotAttn := findAttnLoop(f, t)
	if lp == nil && al == nil {
		if len(mmaOps(f)) == 2 {
			return []*Reason{whyNotAttn}
		}
		return []*Reason{whyNot}
	}
	g, err := relayForWarpgroups(f, t)
	if err != nil || g == nil {
		// the mma.sync fast variant stands
		return []*Reason{relayRefusal(f, err)}
	}
	var w *warpspec
	if lp != nil {
		lp, whyNot = findWGMMALoop(g, t)
		if lp == nil {
			return []*Reason{whyNot}
		}
		if why := wsLayoutsOK(g, lp); why != nil {
			return []*Reason{why}
		}
		w = &warpspec{f: g, t: t, lp: lp}
		if !w.plan() {
			return []*Reason{refuse(lp.loop, "two stages of this loop's TMA ring do not fit %s's shared memory (%d bytes): use smaller tiles", t, t.KernelSharedBytes())}
		}
		w.rewrite(g.Body.Terminator())
		DeadCode(g)
		if x := producerExchange(g); x != nil {
			return []*Reason{refuse(x, "this %s moves elements between warps through shared memory before the mma's loop, and the producer needs its result for its copies: the producer's warps have no barrier of their own", x.Op)}
		}
	} else if w, whyNot = warpSpecializeAttention(g, t); whyNot != nil {
		return []*Reason{whyNot}
	}
	*f = *g
	return w.missed
}

// relayRefusal says why relayForWarpgroups gave no kernel: the error of
// the layout passes, or a layout conversion the kernel needs, which goes
// through shared memory with the block's barrier.
func relayRefusal(f *ir.Func, err error) *Reason {
	if err != nil {
		return refuse(nil, "laid out for warpgroups, the kernel does not lower: %v", err)
	}
	var conv *ir.Instr
	f.Body.Walk(func(in *ir.Instr) {
		if conv == nil && in.Op == ir.OpConvertLayout {
			conv = in
		}
	})
	return refuse(conv, "the kernel needs a layout conversion (through shared memory, with the block's barrier), which a warp-specialized kernel cannot place")
}

// relayForWarpgroups returns a copy of f laid out anew (layout, convert
// and smem passes) with the warpgroup grids, or nil when it does not lower.
func relayForWarpgroups(f *ir.Func, t *Target) (*ir.Func, error) {
	g := Clone(f)
	strip := []string{ir.AttrKeyLayout, ir.AttrKeyStaged, ir.AttrKeySmem, ir.AttrKeyStages,
		ir.AttrKeyRowBytes, ir.AttrKeyStageBytes}
	g.Facts.NumWarps = 0
	g.Facts.Scratch, g.Facts.HasScratch = 0, false
	g.Facts.SmemBytes, g.Facts.SmemSized = 0, false
	hasConvert := false
	g.Body.Walk(func(in *ir.Instr) {
		if in.Op == ir.OpConvertLayout {
			hasConvert = true
		}
		for _, k := range strip {
			in.Attrs = dropAttr(in.Attrs, k)
		}
	})
	if hasConvert {
		return nil, nil
	}
	if err := assignLayouts(g, t, true); err != nil {
		return nil, err
	}
	if err := checkRegisterBudget(g, t); err != nil {
		return nil, err
	}
	if err := ConvertLayouts(g, t); err != nil {
		return nil, err
	}
	if err := AllocShared(g, t); err != nil {
		return nil, err
	}
	g.Renumber()
	return g, nil
}

// wsLayoutsOK checks what the layout and convert passes decided: the
// accumulator in the warpgroup layout, and nothing before or after the
// loop in shared memory or converted between layouts; nil, or the reason.
// An exchange through the scratch region (a reduce whose axis crosses
// warps) may run in the consumers' code, where the barriers pass gives it
// the consumer role's named barrier; one that the producer would run too
// is refused after the rewrite (producerExchange).
func wsLayoutsOK(f *ir.Func, lp *wgmmaLoop) *Reason {
	l, err := LayoutOf(lp.mma.Result())
	if err != nil || !SameLayout(l, MMALayout(lp.m, lp.n, lp.m/16, 1)) {
		return refuse(lp.mma, "laid out for warpgroups, the accumulator is not in the warpgroup layout")
	}
	blocks := []*ir.Block{f.Body}
	if lp.tiles != nil {
		blocks = append(blocks, lp.home())
	}
	for _, b := range blocks {
		for _, in := range b.Instrs {
			if in.Op == ir.OpConvertLayout || (in != lp.loop && InSmem(in)) {
				return refuse(lp.mma, "laid out for warpgroups, the kernel keeps a layout conversion or shared-memory tile outside the mma's loop, which needs the block's barrier")
			}
		}
	}
	return nil
}

// producerExchange returns an exchange through the scratch region that the
// rewritten kernel f runs in its producer role (code before the k-loop
// whose values the copies need), or nil: the producer's warps have no
// barrier of their own (one thread issues), so it cannot run one.
func producerExchange(f *ir.Func) *ir.Instr {
	uses := Uses(f)
	var found *ir.Instr
	f.Body.Walk(func(in *ir.Instr) {
		rs := roles(in)
		if found != nil || rs == nil {
			return
		}
		for k, r := range in.Regions {
			if rs[k].id != 0 {
				continue
			}
			r.Walk(func(x *ir.Instr) {
				if found == nil && Exchanges(x, uses) {
					found = x
				}
			})
		}
	})
	return found
}

type warpspec struct {
	f  *ir.Func
	t  *Target
	lp *wgmmaLoop

	stages                 int
	stageA, stageB, barOff int
	// staging is the offset of the TMA store's buffer (-1: stores from
	// registers); stagingBytes its size, stageCols the columns of the
	// result it holds (the store goes out in n/stageCols pieces).
	staging, stagingBytes, stageCols int
	// scratch is the bytes of the consumers' scratch region (their
	// exchanges), after the ring's barriers; 0 for none.
	scratch      int
	ringA, ringB *ir.Value
	full, empty  *ir.Value
	// cluster is 2 in pair mode (planCluster): the kernel runs in
	// clusters of two blocks that multicast the copies both need; split
	// says how each shared load's tile is halved (pairSplit). 0 otherwise.
	cluster int
	split   map[*ir.Instr]string
	// missed says which of the path's options (2-CTA clusters, the TMA
	// store) plan did not apply, and why.
	missed []*Reason
}

var (
	i32T  = ir.ScalarOf(ir.I32)
	boolT = ir.ScalarOf(ir.Bool)
)

// plan sizes the ring: as many stages of (A, B) as fit the target's shared
// memory with the barriers, at most Tuning.MaxStages (ringStages for a
// small accumulator tile) and at least two.
func (w *warpspec) plan() bool {
	lp := w.lp
	w.stageA = lp.m * lp.k * lp.loadA.Result().Type.Elem().Bytes()
	w.stageB = lp.k * lp.n * lp.loadB.Result().Type.Elem().Bytes()
	per := w.stageA + w.stageB + 2*mbarBytes
	w.staging = -1
	var err error
	if w.scratch, err = kernelScratchBytes(w.f, w.t); err != nil {
		// Not this path: AllocShared reports the error on the one taken.
		return false
	}
	// (A K tile of 32 with twice the stages, the same bytes in flight, was
	// slower on the H100: 0.671 of cuBLAS at 8192 against 0.740 with 4.)
	most := w.ringStages(per)
	fit := func(staging int) int {
		return min((w.t.KernelSharedBytes()-staging-roundUp(w.scratch, 16))/per, most)
	}
	w.noteStore(lp.store, lp.m, lp.n)
	if lp.store != nil {
		if stagedStore(lp.store, lp.m, lp.n) {
			// The widest piece of the result (whole 64-column slabs) that
			// leaves the ring as deep as it can be: 128x256x64 tiles keep
			// 4 stages with half the result staged at a time (docs/perf.md).
			best := fit(0)
			for cols := lp.n; cols >= tmaSlabCols; cols /= 2 {
				if lp.n%cols == 0 && fit(lp.m*cols*2) == best {
					w.stageCols = cols
					break
				}
			}
			if w.stageCols == 0 {
				w.stageCols = tmaSlabCols
			}
			w.stagingBytes = lp.m * w.stageCols * 2
		}
	}
	w.stages = fit(w.stagingBytes)
	if w.stages < 2 {
		return false
	}
	w.barOff = w.stages * (w.stageA + w.stageB)
	if w.stagingBytes > 0 {
		w.staging = w.barOff
		w.barOff += w.stagingBytes
	}
	w.planCluster()
	return true
}

// smallTileRing is the largest accumulator tile (rows x columns) whose
// ring ringStages deepens, and smallTileStages the deepest it goes. Such
// tiles are what decode-shaped GEMMs (a few rows of A through a large B)
// are cut into so that there are blocks for every SM; their k-steps are
// short and the kernel streams B from memory, so its speed is the bytes
// in flight: on the H100 a 64x64x64 GEMM over (128, 4096, 4096) took
// 0.0270 ms with 8 stages, 0.0239 with 12 and 16 (docs/perf.md; the rule
// gives that tile 11, 192 KB over stages of 16 KB and their barriers). The
// kernel is persistent, one block per SM: shared memory the ring does not
// use is idle. Larger tiles keep Tuning.MaxStages (their k-steps hide the
// copies; 128x256x32 with 8 stages was slower than with 4).
const (
	smallTileRing   = 64 * 128
	smallTileStages = 16
)

// ringStages is the most stages the ring may have: the kernel's stages
// hint, when it has one (lower sets Tuning.MaxStages from it, and every
// ring must then hold exactly that many), else Tuning.MaxStages, or for a
// small accumulator tile as many as make 192 KB in flight (the seed
// GEMM's 4 stages of 48 KB), up to smallTileStages.
func (w *warpspec) ringStages(per int) int {
	most := w.t.Tuning.MaxStages
	if Stages(w.f, w.t) > 0 || w.lp.m*w.lp.n > smallTileRing {
		return most
	}
	return max(most, min(smallTileStages, 192<<10/per))
}

// planCluster chooses pair mode (Tuning.ClusterPairs) when a load's tile
// can be halved between two blocks and every block runs the same number
// of k-steps: the two blocks of a cluster wait on each other's empty
// barriers, so they must fill their rings in step.
func (w *warpspec) planCluster() {
	if !w.t.Tuning.ClusterPairs {
		w.missed = append(w.missed, refuse(nil, "no 2-CTA clusters: the target's tuning turns them off (ClusterPairs)"))
		return
	}
	if w.lp.tiles != nil {
		// A cluster's two blocks must take neighbouring tiles in step;
		// the kernel's own loop decides which tiles a block takes.
		w.missed = append(w.missed, refuse(w.lp.tiles, "no 2-CTA clusters: the kernel's own tile loop picks each block's tiles"))
		return
	}
	if dependsOnBid(w.lp.loop.Args[:3]) {
		w.missed = append(w.missed, refuse(w.lp.loop, "no 2-CTA clusters: this loop's bounds depend on the block id, and the two blocks of a cluster must run the same k-steps"))
		return
	}
	if w.lp.m*w.lp.n <= smallTileRing {
		// Neighbouring small tiles share A, which is what a cluster would
		// multicast; but their blocks stream B, which they do not share
		// (or the other way round when A is B transposed, C^T = B^T A^T),
		// and on the H100 a decode-shaped GEMM (64x32 tiles, 16 rows of A)
		// ran 0.0305 ms with clusters and 0.0272 without (docs/perf.md).
		w.missed = append(w.missed, refuse(w.lp.mma, "no 2-CTA clusters: the %dx%d tile is small, its blocks stream an operand they do not share (clusters multicast the one they share, and were slower for small tiles)", w.lp.m, w.lp.n))
		return
	}
	if w.lp.transA() {
		w.missed = append(w.missed, refuse(w.lp.permA, "no 2-CTA clusters: A is transposed (MN-major), which clusters have not been checked with"))
		return
	}
	w.split = map[*ir.Instr]string{}
	for _, ld := range []*ir.Instr{w.lp.loadA, w.lp.loadB} {
		if sp := pairSplit(ld); sp != "" {
			w.split[ld] = sp
		}
	}
	if len(w.split) > 0 {
		w.cluster = 2
	} else {
		w.missed = append(w.missed, refuse(w.lp.loop, "no 2-CTA clusters: neither operand tile of this loop halves on a 1024-byte swizzle atom (an even number of 128-byte slabs, or rows a multiple of 16)"))
	}
}

// noteStore records why the result does not leave through a TMA store:
// store is tmaStoreOf's choice (nil: none qualified) of the kernel's
// stores after the loop, m x n the tile a TMA store would take.
func (w *warpspec) noteStore(store *ir.Instr, m, n int) {
	if store != nil {
		if !stagedStore(store, m, n) {
			w.missed = append(w.missed, refuse(store, "no TMA store: the stored tile is not in the accumulator's layout"))
		}
		return
	}
	var stores []*ir.Instr
	for _, in := range w.lp.home().Instrs {
		if in.Op == ir.OpStore {
			stores = append(stores, in)
		}
	}
	switch len(stores) {
	case 0:
		w.missed = append(w.missed, refuse(w.lp.loop, "no TMA store: the kernel stores no tile after this loop"))
	case 1:
		w.missed = append(w.missed, refuse(stores[0], "no TMA store: this store is not of the %dx%d result to a 2-D to 4-D f16/bf16 array, whole 64-column slabs wide", m, n))
	default:
		w.missed = append(w.missed, refuse(stores[1], "no TMA store: the kernel has %d stores (a TMA store takes the one store of the result)", len(stores)))
	}
}

// pairSplit says how the two blocks of a cluster halve the TMA copy of
// load ld's tile: each copies half of its 128-byte slabs (an even number
// of them), or half of the rows of every slab (rows/2 a multiple of 8, so
// that each half starts on a 1024-byte swizzle atom); "" when neither.
func pairSplit(ld *ir.Instr) string {
	t := tile2D(ld)
	sc := slabElems(t.DType)
	switch {
	case t.Shape[1] < sc:
		return "" // one narrow slab (64-byte rows): neither half is whole
	case (t.Shape[1]/sc)%2 == 0:
		return "slabs"
	case t.Shape[0]%16 == 0:
		return "rows"
	}
	return ""
}

// dependsOnBid reports whether any of vals is computed from a block id.
func dependsOnBid(vals []*ir.Value) bool {
	seen := map[*ir.Value]bool{}
	var dep func(v *ir.Value) bool
	dep = func(v *ir.Value) bool {
		if seen[v] || v.Def == nil {
			return false
		}
		seen[v] = true
		if v.Def.Op == ir.OpBlockID || len(v.Def.Regions) > 0 {
			return true
		}
		return slices.ContainsFunc(v.Def.Args, dep)
	}
	return slices.ContainsFunc(vals, dep)
}

// slabElems is the columns of dtype d in one 128-byte slab row: 64 of a
// 16-bit dtype, 128 of float8.
func slabElems(d ir.DType) int { return tmaSlabBytes / d.Bytes() }

// slabCols is the columns of one TMA slab of an operand load's tile: 128
// bytes' worth (the 128-byte swizzle), or the tile's width when that is
// 64 bytes (the 64-byte swizzle: a K tile of 32 16-bit or 64 float8
// elements).
func slabCols(ld *ir.Instr) int { t := tile2D(ld); return min(slabElems(t.DType), t.Shape[1]) }

// slabBytes is the bytes of one slab of an operand load's tile: rows x
// the slab's row bytes (TMA writes one box per slab).
func slabBytes(ld *ir.Instr) int { return tile2D(ld).Shape[0] * slabRowBytes(ld) }

// slabRowBytes is the row bytes of one slab of an operand load's tile.
func slabRowBytes(ld *ir.Instr) int { return slabCols(ld) * tile2D(ld).DType.Bytes() }

// tile2D is the shared tile of an operand load: its result, or for a
// load of one matrix of a 3-D or 4-D array, shape (1, R, C) or (1, 1, R,
// C), the (R, C) matrix.
func tile2D(ld *ir.Instr) *ir.Tile {
	t := ld.Result().Type.(*ir.Tile)
	if r := t.Rank(); r > 2 {
		return ir.TileOf(t.DType, t.Shape[r-2], t.Shape[r-1])
	}
	return t
}

// splitLoop returns the instructions before and after loop in its block,
// without the block's terminator (the kernel's return, a loop's yield).
func splitLoop(loop *ir.Instr) (pre, post []*ir.Instr) {
	b := loop.Block
	for i, in := range b.Instrs {
		if in == loop {
			return b.Instrs[:i], b.Instrs[i+1 : len(b.Instrs)-1]
		}
	}
	return nil, nil
}

// ring allocates a ring of TMA slabs for the tiles of load ld.
func (w *warpspec) ring(s *seq, ld *ir.Instr, off, stages, stageBytes int) *ir.Value {
	return s.op(ir.OpSmemAlloc, nil, tile2D(ld), ir.AttrKeyLayout, &ir.Layout{Kind: ir.LayoutSmem},
		ir.AttrKeySmem, int64(off), ir.AttrKeyStages, int64(stages), ir.AttrKeyStageBytes, int64(stageBytes),
		ir.AttrKeyRowBytes, int64(slabRowBytes(ld)), ir.AttrKeySlabBytes, int64(slabBytes(ld)))
}

// mbars allocates a ring of mbarriers expecting count arrivals.
func mbars(s *seq, count, off, stages int) *ir.Value {
	return s.op(ir.OpMbarAlloc, nil, i32T, ir.AttrKeyCount, int64(count), ir.AttrKeySmem, int64(off), ir.AttrKeyStages, int64(stages))
}

// allocRing allocates the stage ring's full and empty barriers at barOff.
func (w *warpspec) allocRing(s *seq) {
	w.full = mbars(s, 1, w.barOff, w.stages)
	// In pair mode every consumer warpgroup of both blocks frees a stage
	// of each block: either block's producer may fill both.
	w.empty = mbars(s, w.lp.consumers()*max(1, w.cluster), w.barOff+mbarBytes*w.stages, w.stages)
}

// splitRoles appends the barrier after the rings' initialisation and the
// split of the block into roles: the producer warpgroup (its register
// budget lowered; one warp issues, via produce) and the consumer
// warpgroups (their budget raised; consume). The split's if names each
// role's threads and barrier (the producer has none; the consumers
// barrierConsumers), which the barriers pass reads. Then it makes s, and
// the return ret, the kernel's body, with smemBytes of shared memory and,
// when the consumers exchange through it, the scratch region after them.
func (w *warpspec) splitRoles(s *seq, ret *ir.Instr, smemBytes int, produce, consume func(*seq)) {
	f, consumers := w.f, w.lp.consumers()
	if w.cluster > 1 {
		// The partner's barriers must be initialised before this block's
		// copies and arrivals reach them.
		s.op(ir.OpClusterSync, nil, nil)
	} else {
		s.barrier()
	}
	warp := s.op(ir.OpWarpID, nil, i32T)
	firstProducer := s.i32(int64(4 * consumers))
	isProducer := s.op(ir.OpCmp, []*ir.Value{warp, firstProducer}, boolT, ir.AttrKeyPred, ir.PredGE)

	roles := f.NewInstr(ir.OpIf, []*ir.Value{isProducer})
	roles.Pos = s.pos.Pos
	roles.Attrs.Set(ir.AttrKeyRoleThreads, []int{128, 128 * consumers})
	roles.Attrs.Set(ir.AttrKeyRoleBarriers, []int{0, barrierConsumers})
	prod := &seq{f: f, pos: s.pos}
	prod.op(ir.OpSetMaxRegs, nil, nil, ir.AttrKeyRegs, int64(wsProducerRegs))
	isLead := prod.op(ir.OpCmp, []*ir.Value{warp, firstProducer}, boolT, ir.AttrKeyPred, ir.PredEQ)
	lead := f.NewInstr(ir.OpIf, []*ir.Value{isLead})
	lead.Pos = s.pos.Pos
	issue := &seq{f: f, pos: s.pos}
	produce(issue)
	fillRegion(lead.NewRegion(), issue.out, f)
	fillRegion(lead.NewRegion(), nil, f)
	prod.add(lead)
	fillRegion(roles.NewRegion(), prod.out, f)

	cons := &seq{f: f, pos: s.pos}
	cons.op(ir.OpSetMaxRegs, nil, nil, ir.AttrKeyRegs, int64(wsConsumerRegs))
	consume(cons)
	if w.staging >= 0 {
		// Shared memory must outlive the last TMA store's reads.
		cons.op(ir.OpTMAStoreWait, nil, nil, ir.AttrKeyRead, false)
	}
	fillRegion(roles.NewRegion(), cons.out, f)
	s.add(roles)
	if w.cluster > 1 {
		// A block may not exit while its partner can still multicast
		// into its shared memory or arrive on its barriers.
		s.op(ir.OpClusterSync, nil, nil)
		f.Facts.Cluster = w.cluster
	}

	f.Facts.NumWarps = 4 * consumers
	f.Facts.BlockThreads = 128 * (consumers + 1)
	f.Facts.MaxRegs = wsEntryRegs
	f.Facts.Persistent = true
	f.Facts.Scratch, f.Facts.HasScratch = 0, false
	if w.scratch > 0 {
		off := roundUp(smemBytes, 16)
		f.Facts.Scratch, f.Facts.HasScratch = off, true
		smemBytes = off + roundUp(w.scratch, 16)
	}
	f.Facts.SmemBytes, f.Facts.SmemSized = smemBytes, true
	f.Body.Instrs = nil
	for _, in := range append(s.out, ret) {
		f.Body.Append(in)
	}
}

func (w *warpspec) rewrite(ret *ir.Instr) {
	lp := w.lp
	pre, post := splitLoop(lp.loop)
	s := &seq{f: w.f}
	s.pos.Pos = lp.mma.Pos
	w.ringA = w.ring(s, lp.loadA, 0, w.stages, w.stageA)
	w.ringB = w.ring(s, lp.loadB, w.stages*w.stageA, w.stages, w.stageB)
	w.allocRing(s)
	if lp.tiles != nil {
		outer, _ := splitLoop(lp.tiles)
		w.splitRoles(s, ret, w.barOff+2*mbarBytes*w.stages,
			func(s *seq) { w.kernelTileLoop(s, outer, pre, nil, false) },
			func(s *seq) { w.kernelTileLoop(s, outer, pre, post, true) })
		// The kernel's grid is the user's: its blocks take the tiles its
		// own loop gives them.
		w.f.Facts.Persistent = false
		return
	}
	w.splitRoles(s, ret, w.barOff+2*mbarBytes*w.stages,
		func(s *seq) { w.tileLoop(s, pre, nil, false) },
		func(s *seq) { w.tileLoop(s, pre, post, true) })
}

// kernelTileLoop appends one role's copy of the kernel's own tile loop:
// the code before it (outer), then the loop as written, carrying the
// ring's stage and phase, whose body is the code before the k-loop (pre),
// the role's k-loop, and for the consumers the code after it (post).
// Both roles run the same iterations, so the ring stays in step.
func (w *warpspec) kernelTileLoop(s *seq, outer, pre, post []*ir.Instr, consumer bool) {
	var none [3]*ir.Value
	m := map[*ir.Value]*ir.Value{}
	w.cloneInto(s, outer, m, none, none)
	tl, b, p := w.ringLoop(s, m, w.lp.tiles, s.i32(0), s.i32(0), nil)
	w.cloneInto(b, pre, m, none, none)
	var st, ph *ir.Value
	if consumer {
		var acc *ir.Value
		acc, st, ph = w.consumerLoop(b, m, blockIDs{}, p[0], p[1])
		m[w.lp.loop.Results[0]] = acc
		w.cloneInto(b, post, m, none, none)
	} else {
		st, ph = w.producerLoop(b, m, blockIDs{}, nil, p[0], p[1])
	}
	finishLoop(s, tl, b, []*ir.Value{st, ph}, w.f)
}

// fillRegion makes instrs (plus a yield without values) the body of region b.
func fillRegion(b *ir.Block, instrs []*ir.Instr, f *ir.Func) {
	for _, in := range instrs {
		b.Append(in)
	}
	b.Append(f.NewInstr(ir.OpYield, nil))
}

// blockIDs are the values that stand for the kernel's block ids and grid
// extents in a copy of its code: a persistent loop's tile (the zero value:
// the hardware's, for code that keeps them).
type blockIDs struct{ bid, grid [3]*ir.Value }

// tileIter is one iteration of a persistent loop: the kernel's block.
type tileIter struct {
	// bid is the block's id along each axis, grid the kernel's grid.
	bid, grid [3]*ir.Value
	// In pair mode: the block's rank in its cluster, the partner block's
	// bid, and whether this block's tile exists (with an odd number of
	// blocks, the last pair has one block that only keeps the ring in
	// step).
	rank    *ir.Value
	partner [3]*ir.Value
	valid   *ir.Value
}

// persistentLoop appends a loop over the kernel's blocks (t from cta_id
// by cta_count up to the grid's size) carrying n i32 values that start at
// 0 (the ring's stage and phases); body gets the iteration's block (bid
// and the grid's extents, x fastest, as the hardware numbers blocks), the
// map from the kernel's values to their copies, and the carried values,
// and returns their next values. In pair mode the two blocks of a cluster
// take neighbouring tiles t and t+1, so their loops run in step.
func (w *warpspec) persistentLoop(s *seq, n int, body func(b *seq, m map[*ir.Value]*ir.Value, it *tileIter, carried []*ir.Value) []*ir.Value) {
	f := w.f
	first := s.op(ir.OpCTAID, nil, i32T)
	var rank *ir.Value
	if w.cluster > 1 {
		rank = s.op(ir.OpClusterRank, nil, i32T)
		first = s.op(ir.OpSub, []*ir.Value{first, rank}, i32T)
	}
	stride := s.op(ir.OpCTACount, nil, i32T)
	var grid [3]*ir.Value
	for a := range grid {
		grid[a] = s.op(ir.OpGridSize, nil, i32T, ir.AttrKeyAxis, int64(a))
	}
	total := s.op(ir.OpMul, []*ir.Value{grid[0], grid[1]}, i32T)
	total = s.op(ir.OpMul, []*ir.Value{total, grid[2]}, i32T)
	zero := s.i32(0)
	args := []*ir.Value{first, total, stride}
	types := make([]ir.Type, n)
	for i := range types {
		args, types[i] = append(args, zero), i32T
	}
	tl := f.NewInstr(ir.OpFor, args, types...)
	tl.Pos = s.pos.Pos
	region := tl.NewRegion()
	tile := f.AddBlockParam(region, i32T)
	carried := make([]*ir.Value, n)
	for i := range carried {
		carried[i] = f.AddBlockParam(region, i32T)
	}
	b := &seq{f: f, pos: s.pos}
	decompose := func(t *ir.Value) (bid [3]*ir.Value) {
		bid[0] = b.op(ir.OpMod, []*ir.Value{t, grid[0]}, i32T)
		q := b.op(ir.OpFloorDiv, []*ir.Value{t, grid[0]}, i32T)
		bid[1] = b.op(ir.OpMod, []*ir.Value{q, grid[1]}, i32T)
		bid[2] = b.op(ir.OpFloorDiv, []*ir.Value{q, grid[1]}, i32T)
		return bid
	}
	it := &tileIter{grid: grid, rank: rank}
	if rank == nil {
		it.bid = decompose(tile)
	} else {
		own := b.op(ir.OpAdd, []*ir.Value{tile, rank}, i32T)
		it.valid = b.op(ir.OpCmp, []*ir.Value{own, total}, boolT, ir.AttrKeyPred, ir.PredLT)
		it.bid = decompose(own)
		other := b.op(ir.OpAdd, []*ir.Value{tile, b.i32(1)}, i32T)
		it.partner = decompose(b.op(ir.OpSub, []*ir.Value{other, rank}, i32T))
	}
	next := body(b, map[*ir.Value]*ir.Value{}, it, carried)
	for _, in := range b.out {
		region.Append(in)
	}
	region.Append(f.NewInstr(ir.OpYield, next))
	s.add(tl)
}

// tileLoop appends one role's persistent loop over the kernel's blocks:
// the code before the loop (pre) with bid and num_blocks taken from the
// tile index, the role's k-loop, and for the consumers the code after
// the loop (post).
func (w *warpspec) tileLoop(s *seq, pre, post []*ir.Instr, consumer bool) {
	w.persistentLoop(s, 2, func(b *seq, m map[*ir.Value]*ir.Value, it *tileIter, c []*ir.Value) []*ir.Value {
		w.cloneInto(b, pre, m, it.bid, it.grid)
		if !consumer {
			var pair *pairing
			if it.rank != nil {
				// The partner's indices, to see which copies both need.
				pair = &pairing{m: map[*ir.Value]*ir.Value{}, rank: it.rank, ids: blockIDs{it.partner, it.grid}}
				w.cloneInto(b, pre, pair.m, it.partner, it.grid)
			}
			st, ph := w.producerLoop(b, m, blockIDs{it.bid, it.grid}, pair, c[0], c[1])
			return []*ir.Value{st, ph}
		}
		acc, st, ph := w.consumerLoop(b, m, blockIDs{it.bid, it.grid}, c[0], c[1])
		m[w.lp.loop.Results[0]] = acc
		if it.valid == nil {
			w.cloneInto(b, post, m, it.bid, it.grid)
			return []*ir.Value{st, ph}
		}
		// A block without a tile of its own has run the k-loop only to
		// keep the ring in step with its partner: it stores nothing.
		guard := w.f.NewInstr(ir.OpIf, []*ir.Value{it.valid})
		guard.Pos = b.pos.Pos
		epi := &seq{f: w.f, pos: b.pos}
		w.cloneInto(epi, post, m, it.bid, it.grid)
		fillRegion(guard.NewRegion(), epi.out, w.f)
		fillRegion(guard.NewRegion(), nil, w.f)
		b.add(guard)
		return []*ir.Value{st, ph}
	})
}

// cloneInto appends copies of instrs to s, bid and num_blocks replaced.
func (w *warpspec) cloneInto(s *seq, instrs []*ir.Instr, m map[*ir.Value]*ir.Value, bid, grid [3]*ir.Value) {
	for _, in := range instrs {
		switch in.Op {
		case ir.OpBlockID:
			if b := bid[in.Axis()]; b != nil {
				m[in.Result()] = b
				continue
			}
		case ir.OpNumBlocks:
			if g := grid[in.Axis()]; g != nil {
				m[in.Result()] = g
				continue
			}
		case ir.OpStore:
			if in == w.lp.store && w.staging >= 0 {
				w.tmaStore(s, in, m)
				continue
			}
		}
		tmp := &ir.Block{}
		cloneBlock(w.f, &ir.Block{Instrs: []*ir.Instr{in}}, tmp, m)
		for _, x := range tmp.Instrs {
			s.add(x)
		}
	}
}

// consumerBarrier is the staging buffer's named barrier of the consumer
// warpgroups only (the producer never reaches it).
func (w *warpspec) consumerBarrier(s *seq) {
	s.op(ir.OpBarrier, nil, nil, ir.AttrKeyBarrierID, int64(barrierStaging), ir.AttrKeyThreads, int64(128*w.lp.consumers()))
}

// tmaStore replaces the epilogue's store: for each piece of stageCols
// columns, once the previous piece's TMA store has read the staging
// buffer, the consumers write the piece there in TMA's slab layout, fence
// it for the async proxy, and one thread stores it with TMA (clipped at
// C's bounds). The last piece's store runs on while the consumers start
// the next block.
func (w *warpspec) tmaStore(s *seq, st *ir.Instr, m map[*ir.Value]*ir.Value) {
	n := len(st.Args)
	val := copyOf(m, storedMatrix(st))
	tt := val.Type.(*ir.Tile)
	pieces := w.lp.n / w.stageCols
	piece := ir.TileOf(tt.DType, w.lp.m, w.stageCols)
	// The indices before the last two pick the matrix of a 3-D or 4-D C.
	var outer []*ir.Value
	for _, x := range st.Args[1 : n-3] {
		outer = append(outer, copyOf(m, x))
	}
	row, col := copyOf(m, st.Args[n-3]), copyOf(m, st.Args[n-2])
	if pieces > 1 {
		col = s.op(ir.OpMul, []*ir.Value{col, s.i32(int64(pieces))}, i32T)
	}
	for c := 0; c < pieces; c++ {
		s.op(ir.OpTMAStoreWait, nil, nil, ir.AttrKeyRead, true)
		w.consumerBarrier(s)
		staged := s.op(ir.OpSmemStage, []*ir.Value{val}, piece, ir.AttrKeyLayout, &ir.Layout{Kind: ir.LayoutSmem},
			ir.AttrKeySmem, int64(w.staging), ir.AttrKeyRowBytes, int64(128), ir.AttrKeySlabBytes, int64(w.lp.m*128),
			ir.AttrKeyCol, int64(c*w.stageCols))
		s.op(ir.OpFenceProxyAsync, nil, nil)
		w.consumerBarrier(s)
		cc := col
		if c > 0 {
			cc = s.op(ir.OpAdd, []*ir.Value{col, s.i32(int64(c))}, i32T)
		}
		s.op(ir.OpTMAStore, append(append([]*ir.Value{st.Args[0]}, outer...), row, cc, staged), nil)
	}
}

// ringLoop starts a copy of loop carrying the ring's stage and phase, then
// extra values (given by their initial values): the new for, a seq for its
// body, and its parameters after the induction variable, which stands for
// the loop's in m.
func (w *warpspec) ringLoop(s *seq, m map[*ir.Value]*ir.Value, loop *ir.Instr, stage, phase *ir.Value, extra []*ir.Value) (*ir.Instr, *seq, []*ir.Value) {
	f := w.f
	old := loop.Regions[0]
	args := []*ir.Value{copyOf(m, loop.Args[0]), copyOf(m, loop.Args[1]), copyOf(m, loop.Args[2]), stage, phase}
	types := []ir.Type{i32T, i32T}
	for _, e := range extra {
		args, types = append(args, e), append(types, e.Type)
	}
	kl := f.NewInstr(ir.OpFor, args, types...)
	kl.Pos = loop.Pos
	body := kl.NewRegion()
	m[old.Params[0]] = f.AddBlockParam(body, old.Params[0].Type)
	var params []*ir.Value
	for _, t := range types {
		params = append(params, f.AddBlockParam(body, t))
	}
	return kl, &seq{f: f, pos: s.pos}, params
}

// kLoop starts a copy of the GEMM loop (ringLoop) with the loop's scalar
// code cloned into its body.
//
// The scalar code is also copied into each map of more (the partner's
// indices in pair mode), with the same induction variable.
func (w *warpspec) kLoop(s *seq, m map[*ir.Value]*ir.Value, ids blockIDs, stage, phase *ir.Value, extra []*ir.Value, pair *pairing) (*ir.Instr, *seq, []*ir.Value) {
	lp := w.lp
	kl, b, params := w.ringLoop(s, m, lp.loop, stage, phase, extra)
	old := lp.loop.Regions[0]
	var scalars []*ir.Instr
	for _, in := range old.Instrs {
		switch in {
		case lp.loadA, lp.loadB, lp.permA, lp.permB, lp.mma, old.Instrs[len(old.Instrs)-1]:
			continue
		}
		if slices.Contains(lp.views, in) {
			continue
		}
		scalars = append(scalars, in)
	}
	// A block id in the loop's code (`ct.load(A, index=(ct.bid(0), k))`)
	// is the tile's, as before the loop.
	w.cloneInto(b, scalars, m, ids.bid, ids.grid)
	if pair != nil {
		pair.m[old.Params[0]] = m[old.Params[0]]
		w.cloneInto(b, scalars, pair.m, pair.ids.bid, pair.ids.grid)
	}
	return kl, b, params
}

// advance moves the ring to its next stage, flipping the phase when it wraps.
func (w *warpspec) advance(b *seq, stage, phase *ir.Value) (*ir.Value, *ir.Value) {
	one := b.i32(1)
	next := b.op(ir.OpAdd, []*ir.Value{stage, one}, i32T)
	wrap := b.op(ir.OpCmp, []*ir.Value{next, b.i32(int64(w.stages))}, boolT, ir.AttrKeyPred, ir.PredEQ)
	next = b.op(ir.OpSelect, []*ir.Value{wrap, b.i32(0), next}, i32T)
	flipped := b.op(ir.OpXor, []*ir.Value{phase, one}, i32T)
	phase = b.op(ir.OpSelect, []*ir.Value{wrap, flipped, phase}, i32T)
	return next, phase
}

func finishLoop(s *seq, kl *ir.Instr, b *seq, yield []*ir.Value, f *ir.Func) {
	body := kl.Regions[0]
	for _, in := range b.out {
		body.Append(in)
	}
	body.Append(f.NewInstr(ir.OpYield, yield))
	s.add(kl)
}

// producerLoop: for each k, wait until the consumers freed the stage
// (the phase before the one they complete; a fresh barrier reports that
// as done), announce the stage's bytes, and copy A's and B's tiles.
func (w *warpspec) producerLoop(s *seq, m map[*ir.Value]*ir.Value, ids blockIDs, pair *pairing, stage, phase *ir.Value) (*ir.Value, *ir.Value) {
	lp := w.lp
	kl, b, p := w.kLoop(s, m, ids, stage, phase, nil, pair)
	st, ph := p[0], p[1]
	w.fillStage(b, m, pair, st, ph, w.stageA+w.stageB, []ringLoad{{lp.loadA, w.ringA}, {lp.loadB, w.ringB}})
	ns, np := w.advance(b, st, ph)
	finishLoop(s, kl, b, []*ir.Value{ns, np}, w.f)
	return kl.Results[0], kl.Results[1]
}

// consumerLoop: for each k, wait for the stage's bytes and issue its
// wgmmas; then wait until only those are in flight, which means the
// previous stage's are done, and free the previous stage (as CUTLASS's
// consumers do: the tensor cores get the next stage's wgmmas while the
// last ones finish). After the loop, wait for the last and free its stage.
func (w *warpspec) consumerLoop(s *seq, m map[*ir.Value]*ir.Value, ids blockIDs, stage, phase *ir.Value) (acc, st, ph *ir.Value) {
	lp := w.lp
	none := s.i32(-1)
	kl, b, p := w.kLoop(s, m, ids, stage, phase, []*ir.Value{copyOf(m, lp.loop.Args[3]), none}, nil)
	stP, phP, accP, prevP := p[0], p[1], p[2], p[3]
	b.op(ir.OpMbarWait, []*ir.Value{w.full, stP, phP}, nil)
	sa := b.op(ir.OpSmemSlot, []*ir.Value{w.ringA, stP}, tile2D(lp.loadA), ir.AttrKeyLayout, &ir.Layout{Kind: ir.LayoutSmem})
	sb := b.op(ir.OpSmemSlot, []*ir.Value{w.ringB, stP}, tile2D(lp.loadB), ir.AttrKeyLayout, &ir.Layout{Kind: ir.LayoutSmem})
	attrs := []any{ir.AttrKeyLayout, lp.mma.Attrs.Get(ir.AttrKeyLayout), ir.AttrKeyTransB, lp.transB()}
	if lp.transA() {
		attrs = append(attrs, ir.AttrKeyTransA, true)
	}
	next := b.op(ir.OpWGMMA, []*ir.Value{sa, sb, accP}, lp.mma.Result().Type, attrs...)
	b.op(ir.OpWGMMAWait, nil, nil, ir.AttrKeyPending, int64(1))
	w.release(b, prevP)
	ns, np := w.advance(b, stP, phP)
	finishLoop(s, kl, b, []*ir.Value{ns, np, next, stP}, w.f)
	s.op(ir.OpWGMMAWait, nil, nil, ir.AttrKeyPending, int64(0))
	w.release(s, kl.Results[3])
	return kl.Results[2], kl.Results[0], kl.Results[1]
}

// release frees stage prev of the ring for the producer, if prev >= 0.
func (w *warpspec) release(s *seq, prev *ir.Value) {
	has := s.op(ir.OpCmp, []*ir.Value{prev, s.i32(0)}, boolT, ir.AttrKeyPred, ir.PredGE)
	if w.cluster > 1 {
		s.op(ir.OpMbarArrive, []*ir.Value{w.empty, prev, has}, nil, ir.AttrKeyArriveCluster, int64(w.cluster))
		return
	}
	s.op(ir.OpMbarArrive, []*ir.Value{w.empty, prev, has}, nil)
}

// copyOf is v's copy in m, or v itself (values defined outside the code
// being copied: kernel parameters, the rings).
func copyOf(m map[*ir.Value]*ir.Value, v *ir.Value) *ir.Value {
	if x, ok := m[v]; ok {
		return x
	}
	return v
}

// ringLoad is a load whose tiles go through a ring.
type ringLoad struct {
	ld   *ir.Instr
	ring *ir.Value
}

// pairing is the producer's view of its partner block in pair mode: the
// partner's copies of the kernel's values, and this block's rank.
type pairing struct {
	m    map[*ir.Value]*ir.Value
	rank *ir.Value
	ids  blockIDs // the partner's block ids
}

// fillStage appends the producer's work for one stage st of the ring: wait
// until the consumers freed it (the parity of the phase before the one
// they complete; a fresh barrier reports that as done), announce the
// stage's bytes on its full barrier, and copy each load's tile into its
// ring's slot with TMA. In pair mode (pair not nil) a load that both
// blocks of the cluster make with the same indices is copied half by
// each, multicast to both; the bytes that land in each block are the
// same either way.
func (w *warpspec) fillStage(b *seq, m map[*ir.Value]*ir.Value, pair *pairing, st, ph *ir.Value, bytes int, loads []ringLoad) {
	parity := b.op(ir.OpXor, []*ir.Value{ph, b.i32(1)}, i32T)
	b.op(ir.OpMbarWait, []*ir.Value{w.empty, st, parity}, nil)
	b.op(ir.OpMbarExpect, []*ir.Value{w.full, st}, nil, ir.AttrKeyBytes, int64(bytes))
	for _, c := range loads {
		slot := b.op(ir.OpSmemSlot, []*ir.Value{c.ring, st}, tile2D(c.ld), ir.AttrKeyLayout, &ir.Layout{Kind: ir.LayoutSmem})
		if sp := w.split[c.ld]; pair != nil && sp != "" {
			share := sameIndices(b, c.ld, m, pair.m)
			b.op(ir.OpTMALoadPair, append(tmaArgs(m, c.ld), slot, w.full, st, share, pair.rank), nil, ir.AttrKeySplit, sp)
			continue
		}
		tmaLoad(b, m, c.ld, slot, w.full, st)
	}
}

// sameIndices is true where load ld's indices are the same in this
// block (m) and in its partner (mp).
func sameIndices(b *seq, ld *ir.Instr, m, mp map[*ir.Value]*ir.Value) *ir.Value {
	var same *ir.Value
	for _, x := range ld.Args[1:] {
		mine, theirs := copyOf(m, x), copyOf(mp, x)
		if mine == theirs {
			continue
		}
		eq := b.op(ir.OpCmp, []*ir.Value{mine, theirs}, boolT, ir.AttrKeyPred, ir.PredEQ)
		if same == nil {
			same = eq
		} else {
			same = b.op(ir.OpAnd, []*ir.Value{same, eq}, boolT)
		}
	}
	if same == nil {
		same = b.op(ir.OpConst, nil, boolT, ir.AttrKeyValue, true)
	}
	return same
}

// tmaLoad appends the TMA copy of load ld (its indices' copies in m) into
// slot, completing on barrier barSlot of ring bar.
func tmaLoad(b *seq, m map[*ir.Value]*ir.Value, ld *ir.Instr, slot, bar, barSlot *ir.Value) {
	b.op(ir.OpTMALoad, append(tmaArgs(m, ld), slot, bar, barSlot), nil)
}

// tmaArgs are the array and the copies in m of load ld's indices: the
// leading operands of a TMA copy of its tile.
func tmaArgs(m map[*ir.Value]*ir.Value, ld *ir.Instr) []*ir.Value {
	args := []*ir.Value{ld.Args[0]}
	for _, x := range ld.Args[1:] {
		args = append(args, copyOf(m, x))
	}
	return args
}
