package ir

// Op is an IR operation. Every op's comment shows its printed form, with
// the op's own attributes (declared with their kinds in opTable). Operands
// of elementwise ops already have the result's shape (the builder inserts
// broadcast and splat) and the same dtype (the builder inserts convert);
// comparisons produce bool. After lowering, ops also carry the lowered
// attributes of LoweredAttrs, such as {layout=#mma0} on a tile op; what
// lowering decides for the whole kernel is on the Func (KernelFacts).
type Op uint8

const (
	OpInvalid Op = iota

	// %v = const {value=1.5} : f32          a scalar constant (int64, float64 or bool value)
	OpConst
	// %v = bid {axis=0} : i32               this block's index along grid axis 0..2
	OpBlockID
	// %v = num_blocks {axis=0} : i32        the grid's extent along an axis
	OpNumBlocks
	// %v = dim %A {axis=1} : i32            an array's extent along an axis, fixed at launch
	OpDim

	// Binary elementwise, on scalars or tiles of one type.
	// %v = add %x, %y : tile<128xf32>
	OpAdd
	OpSub
	OpMul
	// %v = div %x, %y : f32                 true division (floats only; the builder converts ints)
	OpDiv
	// %v = floordiv %x, %y : i32            Python's // (rounds toward -inf; floor of the quotient for floats)
	OpFloorDiv
	// %v = mod %x, %y : i32                 Python's % (result has the divisor's sign)
	OpMod
	// %v = pow %x, %y : f32
	OpPow
	// %v = min %x, %y : i32                 also ct.minimum on tiles
	OpMin
	// %v = max %x, %y : i32                 also ct.maximum on tiles
	OpMax
	// %v = and %x, %y : bool                logical on bool, bitwise on ints
	OpAnd
	OpOr
	OpXor
	// %v = cmp %x, %y {pred=lt} : bool      pred is eq, ne, lt, le, gt or ge; result dtype bool, operand shape
	OpCmp

	// Unary elementwise.
	// %v = neg %x : f32
	OpNeg
	// %v = not %x : bool                    logical on bool, bitwise on ints
	OpNot
	OpAbs
	OpExp
	OpExp2
	OpLog
	OpSqrt
	OpRsqrt
	OpTanh

	// %v = select %c, %x, %y : tile<64xf32>  ct.where; %c is bool of the same shape (or a bool scalar)
	OpSelect
	// %v = convert %x : tile<128x256xf16>   ct.astype: change dtype, keep shape (round to nearest even)
	OpConvert

	// %v = splat %s : tile<128x256xf32>     a tile filled with a scalar (full, zeros, ones)
	OpSplat
	// %v = iota : tile<64xi32>              0, 1, ..., n-1 (ct.arange)
	OpIota
	// %v = broadcast %t : tile<128x64xf32>  stretch size-1 dims; operand and result have equal rank
	OpBroadcast
	// %v = reshape %t : tile<1x64xf32>      same element count, row-major order
	OpReshape
	// %v = permute %t {perm=[1, 0]} : tile<64x128xf16>   result dim i is operand dim perm[i]
	OpPermute
	// %v = reduce %t {axis=1, kind=sum} : tile<128xf32>  kind is sum, max, min or argmax (i32 result);
	// the axis is removed from the shape
	OpReduce
	// %v = mma %a, %b, %acc : tile<128x256xf32>  acc + a@b, products and sums in acc's dtype
	OpMMA
	// %v = mma_scaled %a, %sa, %b, %sb, %acc : tile<64x64xf32>
	// Block-scaled acc + (a*sa)@(b*sb) (cuTile's mma_scaled): a (M,K) and
	// b (K,N) are float8 (e4m3fn or e5m2, one dtype), sa (M,K/32) and sb
	// (K/32,N) float8_e8m0fnu scale factors, one per 32 consecutive
	// elements along K; each product of the two scaled elements is exact,
	// summed in the f32 accumulator (MMAScaledBlock, inferMMAScaled).
	OpMMAScaled

	// %v = load %A[%i, %j] {pad=zero} : tile<128x64xf16>
	// Reads the tile at tile index (i, j), i.e. elements [i*128, (i+1)*128) x [j*64, ...);
	// out-of-bounds elements take the padding value (pad: zero, neg_zero, nan, pos_inf, neg_inf).
	OpLoad
	// store %A[%i, %j], %t                  writes the tile at tile index (i, j); out-of-bounds parts are dropped
	OpStore

	// %r0, %r1 = for %lo, %hi, %step, %init0, %init1 : i32, tile<...> { ^(%i: i32, %c0: .., %c1: ..) ... yield %n0, %n1 }
	// Region 0's parameters are the induction variable and the loop-carried values;
	// it ends with a yield of the next carried values. Results are the final carried values.
	OpFor
	// %r = if %c : tile<...> { ... yield %a } else { ... yield %b }
	// Two regions without parameters, each ending in a yield of the results.
	// The condition is a bool scalar or a rank-0 bool tile (tile<bool>: an
	// `if` on a reduction, which every thread of a block holds alike).
	OpIf
	// yield %a, %b                          ends a for/if region
	OpYield
	// return                                ends the kernel body
	OpReturn

	// Issue 10's ops (cuTile 1.6's operations list).

	// %v = shl %x, %n : tile<64xi32>        x << n; counts as PTX's shl: at least the width gives 0
	OpShl
	// %v = shr %x, %n : tile<64xu32>        x >> n: arithmetic on signed, logical on unsigned dtypes
	OpShr
	// %v = atan2 %y, %x : f32               the angle of (x, y), floats only
	OpAtan2
	// %v = sin %x : tile<64xf32>            float unary math: sin cos tan sinh cosh floor ceil log2
	OpSin
	OpCos
	OpTan
	OpSinh
	OpCosh
	OpFloor
	OpCeil
	OpLog2
	// %v = isnan %x : tile<64xbool>         float operand, bool result of its shape
	OpIsNaN
	// %v = bitcast %x : tile<64xi32>        the same bits as another dtype of the same width
	OpBitcast
	// %v = scan %t {axis=0, kind=sum, reverse=false} : tile<64xf32>
	// Inclusive prefix sum or product along the axis (from the end when
	// reverse); f16 and bf16 accumulate in f32, each output rounded.
	OpScan
	// %v = cat %a, %b {axis=0} : tile<128x64xf32>  a then b along the axis (a and b of one type)
	OpCat
	// %v = extract %t, %i, %j : tile<16x16xf32>  the subtile at grid index (i, j) in units of the result's shape
	OpExtract
	// %v = insert %t, %s, %i, %j : tile<64x64xf32>  t with the subtile at grid index (i, j) replaced by s
	OpInsert

	// %v = gather %A, %i, %j, %pad {check_bounds=true} : tile<64x32xf32>
	// %v = gather %A, %i, %j, %pad, %mask {check_bounds=true} : tile<64x32xf32>
	// Element e of the result is A[i[e], j[e]]: one integer index tile per
	// array axis, each of the result's shape (any integer dtype; negative
	// means out of bounds). Where an index is out of bounds (check_bounds)
	// or the optional bool mask is false, the element is pad[e] (a tile of
	// the result's type). check_bounds=false promises in-bounds indices:
	// the interpreter checks them anyway and reports an error.
	OpGather
	// scatter %A, %i, %j, %value {check_bounds=true}
	// scatter %A, %i, %j, %value, %mask {check_bounds=true}
	// A[i[e], j[e]] = value[e] for every element e of the index shape, in
	// row-major order of e; out-of-bounds elements (and masked-off ones)
	// are dropped.
	OpScatter
	// %old = atomic_rmw %A, %i, %j, %update {check_bounds=true, kind=add, memory_order=acq_rel, memory_scope=device} : tile<64xi32>
	// For each element e, atomically: old[e] = A[i[e], j[e]]; A[...] =
	// old[e] kind update[e] (kind xchg, add, max, min, and, or, xor).
	// Out-of-bounds elements do nothing and give 0.
	OpAtomicRMW
	// %old = atomic_cas %A, %i, %j, %expected, %desired {check_bounds=true, memory_order=acq_rel, memory_scope=device} : tile<64xi32>
	// For each element e, atomically: old[e] = A[...]; if old[e] ==
	// expected[e] (bitwise) then A[...] = desired[e]. Out-of-bounds
	// elements give expected[e].
	OpAtomicCAS
	// %r = reduce_fn %x, %id {axis=0} : tile<16xf32> { ^(%a: tile<f32>, %b: tile<f32>) ... yield %c }
	// %r0, %r1 = reduce_fn %x0, %x1, %id0, %id1 {axis=0} : ... { ^(%a0, %a1, %b0, %b1) ... yield %c0, %c1 }
	// ct.reduce with a helper as the combiner: N tiles of one shape, N
	// scalar identities of their dtypes; the region combines two groups of
	// N rank-0 tiles into one. The interpreter folds from the identity in
	// ascending index order along the axis: acc = f(acc, x[l]).
	OpReduceFn
	// %r = scan_fn %x, %id {axis=0, reverse=false} : tile<16xf32> { ^(%a: tile<f32>, %b: tile<f32>) ... yield %c }
	// ct.scan with a helper combiner: the inclusive prefix fold of
	// reduce_fn, each prefix a result element (from the end when reverse).
	OpScanFn
	// printf %t0, %t1 {format="x=%d y=%f\n"}
	// Prints, once per block, the format with each conversion applied to
	// its argument (a scalar, or a tile printed as [e0, e1, ...] with the
	// conversion per element), prefixed with the block id.
	OpPrintf
	// assert %c {message="x must be positive"}
	// An error of the block, at the op's position, unless every element of
	// the bool tile or scalar %c is true.
	OpAssert
	// %b = pack_bytes %x : tile<256xu8>     the storage bytes of x (row-major, little-endian)
	OpPackBytes
	// %x = unpack_bytes %b : tile<64xi32>   a rank-1 tile from its u8 storage bytes
	OpUnpackBytes

	// %r0, %r1 = while %init0, %init1 : i32, tile<64xf32> { ^(%c0: i32, %c1: tile<64xf32>) ... yield %cond } do { ^(%b0: i32, %b1: tile<64xf32>) ... yield %n0, %n1 }
	// A loop on a run-time condition (Python's while; a for loop with a
	// break is built as one too). Both regions take the carried values as
	// parameters: region 0 computes the condition from them and yields one
	// bool scalar or rank-0 bool tile (tile<bool>); while it is true, region 1 (the body) runs and yields the
	// next carried values. Results are the carried values when the
	// condition is first false. break and continue are not ops: the builder
	// turns them into carried bool flags that guard the rest of the body
	// (an if) and, for break, join the condition.
	OpWhile
	// %v = stride %A {axis=1} : i32         an array's stride along an axis in elements (A.strides; cuTile's int32), fixed at launch
	OpStride
	// %a = list_get %As, %g : array<?x?xf16>  element g of a list-of-arrays parameter (any integer g; out of range is undefined, as in cuTile)
	OpListGet
	// %n = list_len %As : i32               the length of a list-of-arrays parameter, fixed at launch
	OpListLen

	// Views and element offsets of an array (cuTile's Array.slice and
	// Array.get_raw_memory; ir/rawmem.go).

	// %s = array_slice %A, %start, %stop {axis=0} : array<?x?xf32>
	// A's elements [start, stop) along the axis, as an array of A's dtype
	// and rank over A's memory (nothing is copied): its base is element
	// start along the axis, its extent there stop - start, its strides
	// A's. start and stop are integer scalars or rank-0 tiles with 0 <=
	// start <= stop <= A's extent (cuTile leaves others undefined; the
	// interpreter reports them).
	OpArraySlice
	// %v = load_offset %A, %off, %pad {latency=3} : tile<64xf32>
	// %v = load_offset %A, %off, %pad, %mask : tile<64xf32>
	// Element e of the result is A's memory at off[e] elements from A's
	// first element, whatever A's shape and strides (off: an integer tile
	// of the result's shape; the address wraps as address arithmetic
	// does, so a negative offset reaches memory before A's first element;
	// cuTile adds it to the base pointer as unsigned); where the optional bool mask
	// is false, pad[e] (a tile of the result's type). Nothing is bounds
	// checked: cuTile leaves an offset outside the array's memory
	// undefined (the interpreter reports it).
	OpLoadOffset
	// store_offset %A, %off, %value
	// store_offset %A, %off, %value, %mask
	// A's memory at off[e] elements = value[e] for every element e of the
	// offset shape where the mask holds, in row-major order of e.
	OpStoreOffset
	// %old = atomic_rmw_offset %A, %off, %update {kind=add, memory_order=acq_rel, memory_scope=device} : tile<64xi32>
	// %old = atomic_rmw_offset %A, %off, %update, %mask {...} : tile<64xi32>
	// atomic_rmw at element offsets: for each element e where the mask
	// holds, atomically old[e] = A's memory at off[e]; it becomes old[e]
	// kind update[e]. Masked-off elements do nothing and give 0.
	OpAtomicRMWOffset
	// %old = atomic_cas_offset %A, %off, %expected, %desired {memory_order=acq_rel, memory_scope=device} : tile<64xi32>
	// %old = atomic_cas_offset %A, %off, %expected, %desired, %mask {...} : tile<64xi32>
	// atomic_cas at element offsets; masked-off elements give expected[e].
	OpAtomicCASOffset

	// GPU-level ops: only lower's passes make them (OpInfo.LoweredOnly);
	// they state the schedule that ptxgen emits one op at a time
	// (docs/backend.md). Shared tiles are row-major with the XOR swizzle of
	// lower.SwizzleXor.

	// %r = smem_alloc {layout=smem, row_bytes=128, smem=0, stage_bytes=16384, stages=4} : tile<128x64xf16>
	// A ring of `stages` copies of a shared tile at byte offset smem of the
	// kernel's shared memory, stage_bytes apart.
	OpSmemAlloc
	// %s = smem_slot %r, %i {layout=smem} : tile<128x64xf16>   copy %i (an i32) of ring %r
	OpSmemSlot
	// async_copy %A[%i, %j], %s {pad=zero, part=0, parts=1, path=vector}
	// Starts copying the tile at tile index (i, j) of A into the shared tile
	// %s (padding out-of-bounds elements): part `part` of `parts` equal
	// parts of the copy. path says how: vector (16-byte cp.async; the
	// launch guarantees alignment), element (element by element, any
	// strides), auto (chosen at run time from the array's alignment).
	// The copy is complete after the async_commit that follows it and an
	// async_wait that leaves fewer groups pending.
	OpAsyncCopy
	// async_commit                          closes the group of copies started since the last commit
	OpAsyncCommit
	// async_wait {pending=2}                waits until at most `pending` committed groups are incomplete
	OpAsyncWait
	// barrier                               every thread of the block arrives before any goes on (bar.sync 0)
	// barrier {id=1, threads=256}           the first `threads` threads (a named barrier among them: bar.sync id, threads)
	OpBarrier
	// %f = frag_load %s {kstep=1, layout=#mma_a0, operand=a} : tile<128x16xf16>
	// The mma operand fragments of k-step `kstep` of shared tile %s, in the
	// registers that mma_step reads (ldmatrix; ld.shared for tf32): for
	// operand a the (M, k) slice, for b the (k, N) slice.
	OpFragLoad
	// %c = mma_step %fa, %fb, %acc {layout=#mma0} : tile<128x256xf32>
	// acc + fa@fb for one k-step: every warp's mma.sync over its part of
	// the accumulator.
	OpMMAStep
	// %s = smem_stage %t {layout=smem, row_bytes=128, smem=0} : tile<64x64xf16>
	// %s = smem_stage %t {layout=smem, pitch=528} : tile<128x256xf16>
	// %s = smem_stage %t {col=128, layout=smem, row_bytes=128, slab_bytes=16384, smem=147456} : tile<128x128xf16>
	// Writes register tile %t to shared memory: at byte offset smem in the
	// swizzled layout of the loaded tiles (rows of row_bytes), for an
	// mma to read with ldmatrix; or at offset 0, row-major with rows pitch
	// bytes apart, unswizzled, so that a store of %s writes whole 16-byte
	// chunks of rows (the staged epilogue); or with slab_bytes, columns
	// [col, col+N) of %t in TMA's 128-byte swizzled slabs, for a tma_store.
	OpSmemStage
	// %c = mma_fma %a, %b, %acc {layout=#mma0} : tile<64x64xf32>
	// acc + a@b with float32 inputs, exact as cuTile defines it: each
	// thread's accumulator elements take fma(a[i][k], b[k][j], acc) for k
	// in ascending order, reading a and b (shared tiles) element by
	// element; no tensor cores (they round float32 inputs to tf32).
	OpMMAFMA
	// %c = convert_layout %x {layout=#blocked1} : tile<64x64xf32>
	// The same tile in another register layout, through the scratch region
	// of shared memory (a barrier before the writes and one after).
	OpConvertLayout

	// The sm_90a path (lower's warpspec pass): warp-specialized, persistent
	// GEMM loops on TMA, mbarriers and wgmma (docs/hopper.md).

	// %b = mbar_alloc {count=1, smem=196608, stages=4} : i32
	// A ring of `stages` mbarriers (8 bytes each) at byte offset smem of
	// shared memory, each initialised by thread 0 to expect `count`
	// arrivals; the result is the shared-window address of the first. A
	// barrier op must follow before any thread uses them.
	OpMbarAlloc
	// mbar_wait %b, %slot, %parity          waits until barrier %slot of ring %b has completed the phase of that parity
	OpMbarWait
	// mbar_arrive %b, %slot, %p             one thread per warpgroup arrives on barrier %slot, where bool %p holds
	//                                        (cluster=2: on barrier %slot of each of the cluster's 2 blocks)
	OpMbarArrive
	// mbar_expect %b, %slot {bytes=49152}   one thread arrives on barrier %slot expecting `bytes` of TMA copies
	OpMbarExpect
	// tma_load %A[%i, %j], %s, %b, %slot
	// One thread copies the tile at tile index (i, j) of A into the shared
	// tile %s with TMA (128-byte swizzled slabs of 64 columns,
	// out-of-bounds elements zero), completing on barrier %slot of ring %b.
	// The array's tensor maps are kernel parameters the launcher encodes.
	OpTMALoad
	// %c = wgmma %a, %b, %acc {layout=#mma0, trans_b=true} : tile<128x256xf32>
	// acc + a@b for one stage, a and b shared tiles of TMA's slab layout
	// (b given as (N, K) and transposed when trans_b is false): every
	// consumer warpgroup issues wgmma.mma_async over its 64 rows, then
	// commits; the result lives in acc's registers once wgmma_wait says so.
	// %a may instead be a register tile in the accumulator's layout (the
	// register-A form: attention's P). zero_init: the result is a@b alone
	// (acc only gives the type), in registers of its own.
	OpWGMMA
	// wgmma_wait {pending=0}                waits until at most `pending` wgmma groups are in flight
	OpWGMMAWait
	// set_max_regs {regs=40}                the warpgroup's register budget from here on (setmaxnreg)
	OpSetMaxRegs
	// %w = warp_id : i32                    the thread's warp within the block
	OpWarpID
	// %c = cta_id : i32                     the block's hardware index (a persistent kernel's first tile)
	OpCTAID
	// %n = cta_count : i32                  the number of blocks launched (a persistent kernel's tile stride)
	OpCTACount
	// %g = grid_size {axis=0} : i32         the kernel's own grid along an axis, passed at launch to a persistent kernel
	OpGridSize
	// tma_store %C[%i, %j], %s
	// One thread copies the shared tile %s (smem_stage's TMA slabs) to the
	// tile at tile index (i, j) of C with TMA, clipped at C's bounds, as one
	// bulk group; its reads of %s are done after tma_store_wait {read=true}.
	OpTMAStore
	// tma_store_wait {read=true}            the storing thread waits for its TMA stores: to have read shared memory (read), or to be complete
	OpTMAStoreWait
	// fence_proxy_async                     orders this thread's shared-memory writes before later TMA (async proxy) reads of them
	OpFenceProxyAsync
	// %r = cluster_rank : i32                the block's rank in its cluster (a kernel launched in clusters of two CTAs)
	OpClusterRank
	// cluster_sync                           every thread of every block of the cluster arrives and waits (barrier.cluster)
	OpClusterSync
	// tma_load_pair %A[%i, %j], %s, %b, %slot, %share, %rank {split="slabs"}
	// tma_load for a cluster of two blocks that may need the same tile:
	// where bool %share holds (both blocks' indices are equal), this block
	// copies its half of the tile (split "slabs": the 64-column slabs of
	// its parity; "rows": rows/2 rows of every slab, rank %rank's half)
	// into both blocks' %s with TMA multicast, completing on both blocks'
	// barrier %slot; elsewhere it copies the whole tile into its own %s.
	OpTMALoadPair

	// Warp votes: lower's rescale pass (rescale.go) makes them; unlike the
	// GPU-level ops above, the interpreter runs them, so that a rewritten
	// kernel can be checked against its source.

	// %all = vote_all %ok : bool
	// True when every element of the bool tile %ok that a thread holds is
	// true, in every thread of the thread's warp (PTX's vote.sync.all over
	// the per-thread and of its elements). The result is warp-uniform, not
	// block-uniform like every other scalar: two warps of one block may
	// see different values. So the verifier lets it be only the condition
	// of an `if` whose results are register tiles and whose arms are
	// pure: no barrier, no exchange through shared memory, no side effect
	// (those need the whole block, or would make the warps' different
	// branches visible). A kernel is correct only where both arms give the
	// same results for whatever each warp votes (lower's rescale: x and
	// x*s where every scale is 1, and x*1 == x); the interpreter, which
	// has no warps, votes over the whole tile, which then gives the
	// results that any warp's vote gives.
	OpVoteAll

	NumOps
)

// OpInfo is the one table of per-op facts that the printer, parser, verifier
// and passes consult. Like Go's compiler's opInfo with its auxType, a row
// declares the kind of each attribute, so that a value of the wrong kind is
// a verifier error rather than a zero read back by a later phase.
type OpInfo struct {
	Name string
	// NumArgs is the exact operand count, or -1 when variable.
	NumArgs int
	// NumResults is the exact result count, or -1 when the typing rule
	// decides it from the operands (for, while, reduce_fn, scan_fn) or the
	// maker does (if).
	NumResults int
	// NumRegions is the number of nested blocks.
	NumRegions int
	// Attrs declares the op's own attributes (the lowered ones, which any
	// op of a kind may carry after lowering, are in LoweredAttrs).
	Attrs []AttrSpec
	// SideEffect ops are kept even when their results are unused.
	SideEffect bool
	// Terminator ops end a block.
	Terminator bool
	// Elementwise ops act independently on each element of same-shaped operands.
	Elementwise bool
	// TileResult ops may define a tile (their result is a tile for some
	// operands): lowering may give an ordinary one a register layout and
	// the other lowered tile attributes (attrs.go, tileOps).
	TileResult bool
	// ArrayIndexed ops access an array at a tile index and print as
	// `op %A[%i, %j]`, followed by TrailingArgs more operands (the stored
	// tile, the destination shared tile, tma_load's ring and slot...).
	ArrayIndexed bool
	TrailingArgs int
	// Global is what the op does to the array that is its first operand
	// (zero: the op touches no array). ParamAccess reads it.
	Global GlobalAccess
	// Shared is what the op does to the block's shared memory (zero: none).
	Shared SharedAccess
	// Infer is the op's typing rule (infer.go): its result types from its
	// operands and attributes, or why they are wrong. The verifier checks
	// every instruction against it and the builder calls it; init checks
	// that every op has one.
	Infer InferFunc
	// LoweredOnly ops exist only in IR that lower's passes produced for a
	// GPU target. The interpreter runs target-free IR and has no handler
	// for them; its table of handlers must cover every other op.
	LoweredOnly bool
}

// axisAttr is the axis of bid, num_blocks, dim and reduce.
var axisAttr = AttrSpec{Name: AttrKeyAxis, Kind: AttrInt}

// ftzAttr marks a float32 op of cuTile's flush_to_zero=True: subnormal
// operands are read as zero and a subnormal result is written as zero, each
// keeping its sign (PTX's .ftz; ir/scalar.FlushF32). Only the ops that
// have a .ftz form in PTX carry it (FTZOp); the builder flushes the others
// with a compare and a select.
var ftzAttr = AttrSpec{Name: AttrKeyFTZ, Kind: AttrBool, Optional: true}

// propagateNaNAttr is cuTile's propagate_nan=True on min, max (elementwise
// and reductions), argmin and argmax of floats: a NaN operand makes the
// result NaN (argmin/argmax: the first NaN's index). Without it NaN is
// ignored: the other operand wins, as PTX's max.f32 and C's fmax do, and a
// reduction of all NaNs is NaN (argmin/argmax: index 0).
var propagateNaNAttr = AttrSpec{Name: AttrKeyPropagateNaN, Kind: AttrBool, Optional: true}

// AttrKeyPropagateNaN is the key of propagateNaNAttr.
const AttrKeyPropagateNaN = "propagate_nan"

// fastAccAttr is cuTile's use_fast_acc=True on a float8 mma: the
// products may be summed in the tensor cores' reduced-precision
// accumulator (Hopper's float8 wgmma keeps about 14 bits of the running
// sum) instead of float32. Without it a float8 mma sums in float32 (the
// interpreter always does), which on sm_90a keeps it off the float8
// wgmma path.
var fastAccAttr = AttrSpec{Name: AttrKeyFastAcc, Kind: AttrBool, Optional: true}

// AttrKeyFastAcc is the key of fastAccAttr.
const AttrKeyFastAcc = "fast_acc"

// AttrKeyFTZ is the key of ftzAttr.
const AttrKeyFTZ = "ftz"

// FTZOp reports whether op takes the ftz attribute (its row declares it).
func FTZOp(op Op) bool {
	for _, s := range op.Info().Attrs {
		if s.Name == AttrKeyFTZ {
			return true
		}
	}
	return false
}

var opTable = [NumOps]OpInfo{
	OpInvalid:   {Name: "invalid"},
	OpConst:     {Name: "const", Infer: inferConst, NumArgs: 0, NumResults: 1, Attrs: []AttrSpec{{Name: AttrKeyValue, Kind: AttrScalar}}},
	OpBlockID:   {Name: "bid", Infer: inferGridIndex, NumArgs: 0, NumResults: 1, Attrs: []AttrSpec{axisAttr}},
	OpNumBlocks: {Name: "num_blocks", Infer: inferGridIndex, NumArgs: 0, NumResults: 1, Attrs: []AttrSpec{axisAttr}},
	OpDim:       {Name: "dim", Infer: inferArrayAxis, NumArgs: 1, NumResults: 1, Attrs: []AttrSpec{axisAttr}},

	OpAdd:      {Name: "add", Infer: elementwise(numeric), NumArgs: 2, NumResults: 1, TileResult: true, Attrs: []AttrSpec{ftzAttr}, Elementwise: true},
	OpSub:      {Name: "sub", Infer: elementwise(numeric), NumArgs: 2, NumResults: 1, TileResult: true, Attrs: []AttrSpec{ftzAttr}, Elementwise: true},
	OpMul:      {Name: "mul", Infer: elementwise(numeric), NumArgs: 2, NumResults: 1, TileResult: true, Attrs: []AttrSpec{ftzAttr}, Elementwise: true},
	OpDiv:      {Name: "div", Infer: elementwise(floats), NumArgs: 2, NumResults: 1, TileResult: true, Attrs: []AttrSpec{ftzAttr}, Elementwise: true},
	OpFloorDiv: {Name: "floordiv", Infer: elementwise(numeric), NumArgs: 2, NumResults: 1, TileResult: true, Elementwise: true},
	OpMod:      {Name: "mod", Infer: elementwise(numeric), NumArgs: 2, NumResults: 1, TileResult: true, Elementwise: true},
	OpPow:      {Name: "pow", Infer: elementwise(numeric), NumArgs: 2, NumResults: 1, TileResult: true, Elementwise: true},
	OpMin:      {Name: "min", Infer: elementwise(numeric), NumArgs: 2, NumResults: 1, TileResult: true, Attrs: []AttrSpec{ftzAttr, propagateNaNAttr}, Elementwise: true},
	OpMax:      {Name: "max", Infer: elementwise(numeric), NumArgs: 2, NumResults: 1, TileResult: true, Attrs: []AttrSpec{ftzAttr, propagateNaNAttr}, Elementwise: true},
	OpAnd:      {Name: "and", Infer: elementwise(boolOrInts), NumArgs: 2, NumResults: 1, TileResult: true, Elementwise: true},
	OpOr:       {Name: "or", Infer: elementwise(boolOrInts), NumArgs: 2, NumResults: 1, TileResult: true, Elementwise: true},
	OpXor:      {Name: "xor", Infer: elementwise(boolOrInts), NumArgs: 2, NumResults: 1, TileResult: true, Elementwise: true},
	OpCmp:      {Name: "cmp", Infer: inferCmp, NumArgs: 2, NumResults: 1, TileResult: true, Attrs: []AttrSpec{{Name: AttrKeyPred, Kind: AttrEnum, Enum: []string{PredEQ, PredNE, PredLT, PredLE, PredGT, PredGE}}}, Elementwise: true},

	OpNeg:   {Name: "neg", Infer: elementwise(numeric), NumArgs: 1, NumResults: 1, TileResult: true, Elementwise: true},
	OpNot:   {Name: "not", Infer: elementwise(boolOrInts), NumArgs: 1, NumResults: 1, TileResult: true, Elementwise: true},
	OpAbs:   {Name: "abs", Infer: elementwise(numeric), NumArgs: 1, NumResults: 1, TileResult: true, Elementwise: true},
	OpExp:   {Name: "exp", Infer: elementwise(floats), NumArgs: 1, NumResults: 1, TileResult: true, Elementwise: true},
	OpExp2:  {Name: "exp2", Infer: elementwise(floats), NumArgs: 1, NumResults: 1, TileResult: true, Attrs: []AttrSpec{ftzAttr}, Elementwise: true},
	OpLog:   {Name: "log", Infer: elementwise(floats), NumArgs: 1, NumResults: 1, TileResult: true, Elementwise: true},
	OpSqrt:  {Name: "sqrt", Infer: elementwise(floats), NumArgs: 1, NumResults: 1, TileResult: true, Elementwise: true},
	OpRsqrt: {Name: "rsqrt", Infer: elementwise(floats), NumArgs: 1, NumResults: 1, TileResult: true, Attrs: []AttrSpec{ftzAttr}, Elementwise: true},
	OpTanh:  {Name: "tanh", Infer: elementwise(floats), NumArgs: 1, NumResults: 1, TileResult: true, Elementwise: true},

	OpSelect:  {Name: "select", Infer: inferSelect, NumArgs: 3, NumResults: 1, TileResult: true, Elementwise: true},
	OpConvert: {Name: "convert", Infer: inferConvert, NumArgs: 1, NumResults: 1, TileResult: true, Elementwise: true},

	OpSplat:     {Name: "splat", Infer: inferSplat, NumArgs: 1, NumResults: 1, TileResult: true},
	OpIota:      {Name: "iota", Infer: inferIota, NumArgs: 0, NumResults: 1, TileResult: true},
	OpBroadcast: {Name: "broadcast", Infer: inferBroadcast, NumArgs: 1, NumResults: 1, TileResult: true},
	OpReshape:   {Name: "reshape", Shared: SharedExchange, Infer: inferReshape, NumArgs: 1, NumResults: 1, TileResult: true},
	OpPermute:   {Name: "permute", Infer: inferPermute, NumArgs: 1, NumResults: 1, TileResult: true, Attrs: []AttrSpec{{Name: AttrKeyPerm, Kind: AttrInts}}},
	OpReduce:    {Name: "reduce", Shared: SharedExchange, Infer: inferReduce, NumArgs: 1, NumResults: 1, TileResult: true, Attrs: []AttrSpec{axisAttr, {Name: AttrKeyKind, Kind: AttrEnum, Enum: []string{ReduceSum, ReduceMax, ReduceMin, ReduceArgmax, ReduceArgmin, ReduceProd}}, propagateNaNAttr}},
	OpMMA:       {Name: "mma", Infer: inferMMA, NumArgs: 3, NumResults: 1, TileResult: true, Attrs: []AttrSpec{fastAccAttr}},
	OpMMAScaled: {Name: "mma_scaled", Infer: inferMMAScaled, NumArgs: 5, NumResults: 1, TileResult: true},

	OpLoad:  {Name: "load", Infer: inferLoad, NumArgs: -1, NumResults: 1, TileResult: true, ArrayIndexed: true, Global: GlobalRead, Attrs: append([]AttrSpec{padAttr}, memHintAttrs...)},
	OpStore: {Name: "store", Infer: inferStore, NumArgs: -1, ArrayIndexed: true, TrailingArgs: 1, SideEffect: true, Global: GlobalWrite, Attrs: memHintAttrs},

	OpFor:    {Name: "for", Infer: inferFor, NumArgs: -1, NumResults: -1, NumRegions: 1, SideEffect: true},
	OpIf:     {Name: "if", Infer: inferIf, NumArgs: 1, NumResults: -1, NumRegions: 2, SideEffect: true},
	OpYield:  {Name: "yield", Infer: inferNone, NumArgs: -1, Terminator: true, SideEffect: true},
	OpReturn: {Name: "return", Infer: inferNone, NumArgs: 0, Terminator: true, SideEffect: true},

	OpShl:     {Name: "shl", Infer: elementwise(ints), NumArgs: 2, NumResults: 1, TileResult: true, Elementwise: true},
	OpShr:     {Name: "shr", Infer: elementwise(ints), NumArgs: 2, NumResults: 1, TileResult: true, Elementwise: true},
	OpAtan2:   {Name: "atan2", Infer: elementwise(floats), NumArgs: 2, NumResults: 1, TileResult: true, Elementwise: true},
	OpSin:     {Name: "sin", Infer: elementwise(floats), NumArgs: 1, NumResults: 1, TileResult: true, Elementwise: true},
	OpCos:     {Name: "cos", Infer: elementwise(floats), NumArgs: 1, NumResults: 1, TileResult: true, Elementwise: true},
	OpTan:     {Name: "tan", Infer: elementwise(floats), NumArgs: 1, NumResults: 1, TileResult: true, Elementwise: true},
	OpSinh:    {Name: "sinh", Infer: elementwise(floats), NumArgs: 1, NumResults: 1, TileResult: true, Elementwise: true},
	OpCosh:    {Name: "cosh", Infer: elementwise(floats), NumArgs: 1, NumResults: 1, TileResult: true, Elementwise: true},
	OpFloor:   {Name: "floor", Infer: elementwise(floats), NumArgs: 1, NumResults: 1, TileResult: true, Elementwise: true},
	OpCeil:    {Name: "ceil", Infer: elementwise(floats), NumArgs: 1, NumResults: 1, TileResult: true, Elementwise: true},
	OpLog2:    {Name: "log2", Infer: elementwise(floats), NumArgs: 1, NumResults: 1, TileResult: true, Elementwise: true},
	OpIsNaN:   {Name: "isnan", Infer: inferIsNaN, NumArgs: 1, NumResults: 1, TileResult: true, Elementwise: true},
	OpBitcast: {Name: "bitcast", Infer: inferBitcast, NumArgs: 1, NumResults: 1, TileResult: true, Elementwise: true},
	OpScan: {Name: "scan", Shared: SharedExchange, Infer: inferScan, NumArgs: 1, NumResults: 1, TileResult: true, Attrs: []AttrSpec{axisAttr,
		{Name: AttrKeyKind, Kind: AttrEnum, Enum: []string{ReduceSum, ReduceProd}},
		{Name: AttrKeyReverse, Kind: AttrBool, Optional: true}}},
	OpCat:     {Name: "cat", Shared: SharedExchange, Infer: inferCat, NumArgs: 2, NumResults: 1, TileResult: true, Attrs: []AttrSpec{axisAttr}},
	OpExtract: {Name: "extract", Shared: SharedExchange, Infer: inferExtract, NumArgs: -1, NumResults: 1, TileResult: true},
	OpInsert:  {Name: "insert", Shared: SharedExchange, Infer: inferInsert, NumArgs: -1, NumResults: 1, TileResult: true},

	OpGather:      {Name: "gather", Infer: inferIndexed, NumArgs: -1, NumResults: 1, TileResult: true, Global: GlobalRead, Attrs: []AttrSpec{checkBoundsAttr, latencyAttr}},
	OpScatter:     {Name: "scatter", Infer: inferIndexed, NumArgs: -1, SideEffect: true, Global: GlobalWrite, Attrs: []AttrSpec{checkBoundsAttr, latencyAttr}},
	OpAtomicRMW:   {Name: "atomic_rmw", Shared: SharedExchange, Infer: inferIndexed, NumArgs: -1, NumResults: 1, TileResult: true, SideEffect: true, Global: GlobalAtomic, Attrs: append([]AttrSpec{checkBoundsAttr, {Name: AttrKeyKind, Kind: AttrEnum, Enum: AtomicKinds}}, memoryAttrs...)},
	OpAtomicCAS:   {Name: "atomic_cas", Shared: SharedExchange, Infer: inferIndexed, NumArgs: -1, NumResults: 1, TileResult: true, SideEffect: true, Global: GlobalAtomic, Attrs: append([]AttrSpec{checkBoundsAttr}, memoryAttrs...)},
	OpReduceFn:    {Name: "reduce_fn", Shared: SharedExchange, Infer: inferCombiner, NumArgs: -1, NumResults: -1, TileResult: true, NumRegions: 1, Attrs: []AttrSpec{axisAttr}},
	OpScanFn:      {Name: "scan_fn", Shared: SharedExchange, Infer: inferCombiner, NumArgs: -1, NumResults: -1, TileResult: true, NumRegions: 1, Attrs: []AttrSpec{axisAttr, {Name: AttrKeyReverse, Kind: AttrBool, Optional: true}}},
	OpPrintf:      {Name: "printf", Infer: inferPrintf, NumArgs: -1, SideEffect: true, Attrs: []AttrSpec{{Name: AttrKeyFormat, Kind: AttrString}}},
	OpAssert:      {Name: "assert", Infer: inferAssert, NumArgs: 1, SideEffect: true, Attrs: []AttrSpec{{Name: AttrKeyMessage, Kind: AttrString, Optional: true}}},
	OpPackBytes:   {Name: "pack_bytes", Infer: inferBytes, NumArgs: 1, NumResults: 1, TileResult: true},
	OpUnpackBytes: {Name: "unpack_bytes", Infer: inferBytes, NumArgs: 1, NumResults: 1, TileResult: true},
	OpWhile:       {Name: "while", Infer: inferWhile, NumArgs: -1, NumResults: -1, NumRegions: 2, SideEffect: true},
	OpStride:      {Name: "stride", Infer: inferArrayAxis, NumArgs: 1, NumResults: 1, Attrs: []AttrSpec{axisAttr}},
	OpListGet:     {Name: "list_get", Infer: inferListGet, NumArgs: 2, NumResults: 1},
	OpListLen:     {Name: "list_len", Infer: inferListLen, NumArgs: 1, NumResults: 1},

	OpArraySlice:      {Name: "array_slice", Infer: inferArraySlice, NumArgs: 3, NumResults: 1, Attrs: []AttrSpec{axisAttr}},
	OpLoadOffset:      {Name: "load_offset", Infer: inferOffsetAccess, NumArgs: -1, NumResults: 1, TileResult: true, Global: GlobalRead, Attrs: []AttrSpec{latencyAttr}},
	OpStoreOffset:     {Name: "store_offset", Infer: inferOffsetAccess, NumArgs: -1, SideEffect: true, Global: GlobalWrite, Attrs: []AttrSpec{latencyAttr}},
	OpAtomicRMWOffset: {Name: "atomic_rmw_offset", Shared: SharedExchange, Infer: inferOffsetAccess, NumArgs: -1, NumResults: 1, TileResult: true, SideEffect: true, Global: GlobalAtomic, Attrs: append([]AttrSpec{{Name: AttrKeyKind, Kind: AttrEnum, Enum: AtomicKinds}}, memoryAttrs...)},
	OpAtomicCASOffset: {Name: "atomic_cas_offset", Shared: SharedExchange, Infer: inferOffsetAccess, NumArgs: -1, NumResults: 1, TileResult: true, SideEffect: true, Global: GlobalAtomic, Attrs: memoryAttrs},

	OpSmemAlloc: {Name: "smem_alloc", Infer: inferSmemAlloc, NumArgs: 0, NumResults: 1, TileResult: true, LoweredOnly: true, Attrs: []AttrSpec{
		layoutAttr, {Name: AttrKeySmem, Kind: AttrInt}, {Name: AttrKeyStages, Kind: AttrInt},
		{Name: AttrKeyStageBytes, Kind: AttrInt}, {Name: AttrKeyRowBytes, Kind: AttrInt}}},
	OpSmemSlot: {Name: "smem_slot", Infer: inferSmemSlot, NumArgs: 2, NumResults: 1, TileResult: true, LoweredOnly: true, Attrs: []AttrSpec{layoutAttr}},
	OpAsyncCopy: {Name: "async_copy", Shared: SharedAsync, Infer: inferAsyncCopy, NumArgs: -1, ArrayIndexed: true, TrailingArgs: 1, LoweredOnly: true, SideEffect: true, Global: GlobalRead, Attrs: []AttrSpec{
		padAttr, {Name: AttrKeyPart, Kind: AttrInt}, {Name: AttrKeyParts, Kind: AttrInt},
		{Name: AttrKeyPath, Kind: AttrEnum, Enum: []string{CopyAuto, CopyVector, CopyElement}}}},
	OpAsyncCommit: {Name: "async_commit", Infer: inferNone, NumArgs: 0, LoweredOnly: true, SideEffect: true},
	OpAsyncWait:   {Name: "async_wait", Infer: inferPending, NumArgs: 0, LoweredOnly: true, SideEffect: true, Attrs: []AttrSpec{{Name: AttrKeyPending, Kind: AttrInt}}},
	OpBarrier: {Name: "barrier", Shared: SharedSync, Infer: inferBarrier, NumArgs: 0, LoweredOnly: true, SideEffect: true, Attrs: []AttrSpec{
		{Name: AttrKeyBarrierID, Kind: AttrInt, Optional: true}, {Name: AttrKeyThreads, Kind: AttrInt, Optional: true}}},
	OpFragLoad: {Name: "frag_load", Shared: SharedRead, Infer: inferFragLoad, NumArgs: 1, NumResults: 1, TileResult: true, LoweredOnly: true, Attrs: []AttrSpec{
		layoutAttr, {Name: AttrKeyKStep, Kind: AttrInt}, {Name: AttrKeyOperand, Kind: AttrEnum, Enum: []string{"a", "b"}}}},
	OpMMAStep: {Name: "mma_step", Infer: inferMMA, NumArgs: 3, NumResults: 1, TileResult: true, LoweredOnly: true, Attrs: []AttrSpec{layoutAttr}},
	OpSmemStage: {Name: "smem_stage", Shared: SharedWrite, Infer: inferSmemStage, NumArgs: 1, NumResults: 1, TileResult: true, LoweredOnly: true, Attrs: []AttrSpec{layoutAttr,
		{Name: AttrKeyPitch, Kind: AttrInt, Optional: true}, {Name: AttrKeySmem, Kind: AttrInt, Optional: true}, {Name: AttrKeyRowBytes, Kind: AttrInt, Optional: true},
		{Name: AttrKeyCol, Kind: AttrInt, Optional: true}}},
	OpMMAFMA:        {Name: "mma_fma", Infer: inferMMA, NumArgs: 3, NumResults: 1, TileResult: true, LoweredOnly: true, Attrs: []AttrSpec{layoutAttr}},
	OpConvertLayout: {Name: "convert_layout", Shared: SharedExchange, Infer: inferConvertLayout, NumArgs: 1, NumResults: 1, TileResult: true, LoweredOnly: true, Attrs: []AttrSpec{layoutAttr}},

	OpMbarAlloc: {Name: "mbar_alloc", Infer: inferMbarAlloc, NumArgs: 0, NumResults: 1, LoweredOnly: true, SideEffect: true, Attrs: []AttrSpec{
		{Name: AttrKeyCount, Kind: AttrInt}, {Name: AttrKeySmem, Kind: AttrInt}, {Name: AttrKeyStages, Kind: AttrInt}}},
	OpMbarWait: {Name: "mbar_wait", Infer: inferMbarOp, NumArgs: 3, LoweredOnly: true, SideEffect: true},
	OpMbarArrive: {Name: "mbar_arrive", Infer: inferMbarOp, NumArgs: 3, LoweredOnly: true, SideEffect: true, Attrs: []AttrSpec{
		{Name: AttrKeyArriveCluster, Kind: AttrInt, Optional: true}}},
	OpMbarExpect: {Name: "mbar_expect", Infer: inferMbarOp, NumArgs: 2, LoweredOnly: true, SideEffect: true, Attrs: []AttrSpec{{Name: AttrKeyBytes, Kind: AttrInt}}},
	OpTMALoad:    {Name: "tma_load", Shared: SharedAsync, Infer: inferTMALoad, NumArgs: -1, ArrayIndexed: true, TrailingArgs: 3, LoweredOnly: true, SideEffect: true, Global: GlobalRead},
	OpWGMMA: {Name: "wgmma", Shared: SharedRead, Infer: inferWGMMA, NumArgs: 3, NumResults: 1, TileResult: true, LoweredOnly: true, SideEffect: true, Attrs: []AttrSpec{layoutAttr,
		{Name: AttrKeyTransA, Kind: AttrBool, Optional: true}, {Name: AttrKeyTransB, Kind: AttrBool}, {Name: AttrKeyZeroInit, Kind: AttrBool, Optional: true}}},
	OpWGMMAWait:       {Name: "wgmma_wait", Infer: inferPending, NumArgs: 0, LoweredOnly: true, SideEffect: true, Attrs: []AttrSpec{{Name: AttrKeyPending, Kind: AttrInt}}},
	OpSetMaxRegs:      {Name: "set_max_regs", Infer: inferSetMaxRegs, NumArgs: 0, LoweredOnly: true, SideEffect: true, Attrs: []AttrSpec{{Name: AttrKeyRegs, Kind: AttrInt}}},
	OpWarpID:          {Name: "warp_id", Infer: inferI32, NumArgs: 0, NumResults: 1, LoweredOnly: true},
	OpCTAID:           {Name: "cta_id", Infer: inferI32, NumArgs: 0, NumResults: 1, LoweredOnly: true},
	OpCTACount:        {Name: "cta_count", Infer: inferI32, NumArgs: 0, NumResults: 1, LoweredOnly: true},
	OpGridSize:        {Name: "grid_size", Infer: inferI32, NumArgs: 0, NumResults: 1, LoweredOnly: true, Attrs: []AttrSpec{axisAttr}},
	OpTMAStore:        {Name: "tma_store", Shared: SharedRead, Infer: inferTMAStore, NumArgs: -1, ArrayIndexed: true, TrailingArgs: 1, LoweredOnly: true, SideEffect: true, Global: GlobalWrite},
	OpTMAStoreWait:    {Name: "tma_store_wait", Infer: inferNone, NumArgs: 0, LoweredOnly: true, SideEffect: true, Attrs: []AttrSpec{{Name: AttrKeyRead, Kind: AttrBool}}},
	OpFenceProxyAsync: {Name: "fence_proxy_async", Infer: inferNone, NumArgs: 0, LoweredOnly: true, SideEffect: true},
	OpClusterRank:     {Name: "cluster_rank", Infer: inferI32, NumArgs: 0, NumResults: 1, LoweredOnly: true},
	OpClusterSync:     {Name: "cluster_sync", Infer: inferNone, NumArgs: 0, LoweredOnly: true, SideEffect: true},
	OpTMALoadPair: {Name: "tma_load_pair", Shared: SharedAsync, Infer: inferTMALoad, NumArgs: -1, ArrayIndexed: true, TrailingArgs: 5, LoweredOnly: true, SideEffect: true, Global: GlobalRead, Attrs: []AttrSpec{
		{Name: AttrKeySplit, Kind: AttrString}}},

	// Every column is written out: the row is one op's whole record.
	OpVoteAll: {Name: "vote_all", Infer: inferVoteAll, NumArgs: 1, NumResults: 1, NumRegions: 0, Attrs: nil,
		SideEffect: false, Terminator: false, Elementwise: false, TileResult: false, ArrayIndexed: false, TrailingArgs: 0,
		Global: 0, Shared: SharedNone, LoweredOnly: false},
}

// layoutAttr is the layout of a GPU-level op's tile result, its own
// attribute (ordinary ops get it as a lowered attribute).
var layoutAttr = AttrSpec{Name: AttrKeyLayout, Kind: AttrLayout}

// memHintAttrs are cuTile's load and store hints, recorded as given:
// latency (1-10), allow_tma, check_bounds (False promises in-bounds
// indices; tilec checks anyway). All optional.
var memHintAttrs = []AttrSpec{
	{Name: AttrKeyLatency, Kind: AttrInt, Optional: true},
	{Name: AttrKeyAllowTMA, Kind: AttrBool, Optional: true},
	{Name: AttrKeyCheckBounds, Kind: AttrBool, Optional: true},
}

// checkBoundsAttr and latencyAttr are the hints of gather, scatter and the
// atomics: check_bounds as given (default true), latency (1-10) optional.
var (
	checkBoundsAttr = AttrSpec{Name: AttrKeyCheckBounds, Kind: AttrBool}
	latencyAttr     = AttrSpec{Name: AttrKeyLatency, Kind: AttrInt, Optional: true}
)

// memoryAttrs are cuTile's MemoryOrder and MemoryScope of the atomics,
// recorded as given (the interpreter's atomics are sequentially
// consistent, which every order and scope allows).
var memoryAttrs = []AttrSpec{
	{Name: AttrKeyMemoryOrder, Kind: AttrEnum, Enum: []string{OrderRelaxed, OrderAcquire, OrderRelease, OrderAcqRel}},
	{Name: AttrKeyMemoryScope, Kind: AttrEnum, Enum: []string{ScopeNone, ScopeBlock, ScopeDevice, ScopeSys}},
}

// Memory orders and scopes (cuTile's ct.MemoryOrder and ct.MemoryScope
// members that atomics accept, lower-cased as cuTile spells their values).
const (
	OrderRelaxed = "relaxed"
	OrderAcquire = "acquire"
	OrderRelease = "release"
	OrderAcqRel  = "acq_rel"
	ScopeNone    = "none"
	ScopeBlock   = "block"
	ScopeDevice  = "device"
	ScopeSys     = "sys"
)

// Atomic read-modify-write kinds (the "kind" attribute of atomic_rmw).
const (
	AtomicXchg = "xchg"
	AtomicAdd  = "add"
	AtomicMax  = "max"
	AtomicMin  = "min"
	AtomicAnd  = "and"
	AtomicOr   = "or"
	AtomicXor  = "xor"
)

// AtomicKinds lists the atomic_rmw kinds.
var AtomicKinds = []string{AtomicXchg, AtomicAdd, AtomicMax, AtomicMin, AtomicAnd, AtomicOr, AtomicXor}

// padAttr is the padding mode of load and async_copy.
var padAttr = AttrSpec{Name: AttrKeyPad, Kind: AttrEnum, Enum: []string{PadZero, PadNegZero, PadNaN, PadPosInf, PadNegInf}}

// Copy paths (the "path" attribute of async_copy).
const (
	CopyAuto    = "auto"
	CopyVector  = "vector"
	CopyElement = "element"
)

// Info returns the op's table entry.
func (o Op) Info() *OpInfo {
	if o >= NumOps {
		return &opTable[OpInvalid]
	}
	return &opTable[o]
}

func (o Op) String() string { return o.Info().Name }

// OpByName maps a printed op name to its Op (OpInvalid if unknown).
func OpByName(name string) Op {
	for o := Op(1); o < NumOps; o++ {
		if opTable[o].Name == name {
			return o
		}
	}
	return OpInvalid
}

// Comparison predicates (the "pred" attribute of cmp).
const (
	PredEQ = "eq"
	PredNE = "ne"
	PredLT = "lt"
	PredLE = "le"
	PredGT = "gt"
	PredGE = "ge"
)

// Reduction kinds (the "kind" attribute of reduce).
const (
	ReduceSum    = "sum"
	ReduceMax    = "max"
	ReduceMin    = "min"
	ReduceArgmax = "argmax"
	ReduceArgmin = "argmin"
	ReduceProd   = "prod"
)

// Padding modes (the "pad" attribute of load), as in cuTile's ct.PaddingMode.
const (
	PadZero    = "zero"
	PadNegZero = "neg_zero"
	PadNaN     = "nan"
	PadPosInf  = "pos_inf"
	PadNegInf  = "neg_inf"
)
