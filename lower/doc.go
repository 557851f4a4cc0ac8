// Package lower turns a target-free IR kernel into a schedule for one GPU
// target, through the passes in Passes: it folds integer constants, removes
// dead code, rejects what ptxgen cannot emit, chooses how every tile value
// is spread over the block's threads (a layout: blocked, mma, or a slice
// derived from a neighbour's), places the tiles that feed tensor-core mma in
// shared memory (loaded tiles, 2-D windows of batched arrays, and register
// operands staged there) and reserves one scratch region of shared memory
// for reductions across warps and for layout conversions; then it splits a
// kernel into its fast and general variants (variants.go) and writes the
// schedule out as GPU-level ops (pipeline.go): rings of shared tiles
// (smem_alloc, smem_slot), async copies with their commits and waits,
// barriers, and the mmas as frag_load / mma_step k-steps, with a pipelined
// loop's prologue, carried ring slots and copies between k-steps.
//
// Layout decisions are lowered attributes that ir declares (ir.LoweredAttrs:
// their kinds and the ops that may carry them); decisions about the whole
// kernel (num_warps, smem_bytes, variant, the warpspec facts) are fields of
// ir.Func.Facts; the schedule is ops in ir's op table (OpInfo.LoweredOnly). ir.Verify checks both after every pass, and
// `tilec compile --emit lowered` shows the result as IR text. A tile's
// layout is one attribute, an *ir.Layout (lower.Layout is a view of it with
// the tile's shape, not a copy), which the printer names once per kernel:
//
//	#mma0 = mma<warps=[2, 4], reg=[[0, 1], [8, 0], ...], lane=[...], warp=[...]>
//	kernel @matmul(...) {
//	  %3 = smem_alloc {layout=smem, row_bytes=128, smem=0, stage_bytes=16384, stages=4} : tile<128x64xf16>
//	  ...
//	  async_copy %0[%24, %33], %36 {pad=zero, part=0, parts=1, path=vector}
//	  async_commit
//	  ...
//	  %64 = mma_step %58, %59, %55 {layout=#mma0} : tile<128x256xf32>
//
// The lowered text holds all that ptxgen needs (ptxgen's tests emit from
// the parsed text and compare); ptxgen reads layouts back through LayoutOf
// and the other helpers here, and emits each op as it stands.
package lower
