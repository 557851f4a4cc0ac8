// Package ptxgen emits PTX for a kernel lowered by package lower.
//
// PTX is built as structured instructions (Instr: opcode, operands, an
// optional predicate guard) and printed by one printer (ptx.go). EmitKernel
// walks the lowered IR once: scalars live in one register each (the block
// computes them redundantly in every thread), register tiles in one
// register per element the thread holds (lower.Layout says which), tiles
// that feed mma in shared memory, copied there with cp.async (or element by
// element where alignment forbids it) and read with ldmatrix (mma.go,
// smem.go, window.go for 2-D windows of batched arrays). Register mma
// operands are staged into shared memory (stage.go); reductions and layout
// conversions go through shuffles and the scratch region (reduce.go);
// mma-layout results are stored through shared memory where canStage
// allows (epilogue.go).
//
// EmitKernel gives one kernel valid for every launch, the two copy paths of
// a pipelined loop unswitched on a uniform alignment flag; EmitVariants
// splits such a kernel into a fast and a general variant, chosen at launch
// by Kernel.FastPathOK. kernel.go is the ABI the runtime's CUDA backend
// launches by.
package ptxgen
