// Package lower turns a target-free IR kernel into a schedule for one GPU
// target: it folds constants, removes dead code, chooses how every tile
// value is spread over the block's threads (a layout), places the tiles
// that feed tensor-core mma in shared memory and pipelines their loads.
//
// Decisions are recorded as attributes on the IR instructions, so that
// `tilec compile --emit lowered` shows them as IR text; ptxgen reads them
// back through LayoutOf and the helpers in this package. Lower never adds
// ops: the lowered IR is ordinary IR with extra attributes.
package lower
