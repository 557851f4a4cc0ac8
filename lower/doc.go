// Package lower turns a target-free IR kernel into a schedule for one GPU
// target, through the passes in Passes: it folds integer constants, removes
// dead code, rejects what ptxgen cannot emit, chooses how every tile value
// is spread over the block's threads (a layout: blocked, mma, or a slice
// derived from a neighbour's), places the tiles that feed tensor-core mma in
// shared memory (loaded tiles, 2-D windows of batched arrays, and register
// operands staged there), pipelines their loads, and reserves one scratch
// region of shared memory for reductions across warps and for layout
// conversions.
//
// Decisions are recorded as the lowered attributes that ir declares
// (ir.LoweredAttrs: their kinds and the ops that may carry them), so that
// ir.Verify checks them after every pass and `tilec compile --emit lowered`
// shows them as IR text. A tile's layout is one attribute, an *ir.Layout,
// which the printer names once per kernel:
//
//	#mma0 = mma<warps=[2, 4], reg=[[0, 1], [8, 0], ...], lane=[...], warp=[...]>
//	kernel @matmul(...) {
//	  %30 = splat %29 {layout=#mma0} : tile<128x256xf32>
//	  %35 = load %0[%22, %33] {layout=smem, pad=zero, pipelined=true, row_bytes=128, smem=0, stage_bytes=16384, stages=4} : tile<128x64xf16>
//
// ptxgen reads the decisions back through LayoutOf, InSmem, ScratchOffset
// and the other helpers in this package. Lower never adds ops: the lowered
// IR is ordinary IR with extra attributes, and its text form holds all that
// ptxgen needs (ptxgen's tests emit from the parsed text and compare).
package lower
