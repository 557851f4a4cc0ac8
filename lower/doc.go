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
// Decisions are recorded as attributes on the IR instructions, so that
// `tilec compile --emit lowered` shows them as IR text; ptxgen reads them
// back through LayoutOf, ScratchOffset and the other helpers in this
// package. Lower never adds ops: the lowered IR is ordinary IR with extra
// attributes.
package lower
