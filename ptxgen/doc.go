// Package ptxgen emits PTX for a kernel lowered by package lower.
//
// PTX is built as structured instructions (Instr: opcode, operands, an
// optional predicate guard) and printed by one printer (ptx.go). EmitKernel
// walks the lowered IR once, one emission function per op (opEmitters in
// emit.go, checked complete at init): scalars live in one register each
// (the block computes them redundantly in every thread), register tiles in
// one register per element the thread holds (lower.Layout says which), mma
// operand fragments in packed b32 registers. The schedule is the IR's:
// smem_alloc and smem_slot are shared addresses, async_copy a cp.async or
// element-wise copy of a tile (smem.go, window.go for 2-D windows of
// batched arrays), async_commit / async_wait / barrier one instruction
// each, frag_load ldmatrix (mma.go), mma_step the warps' mma.sync and
// smem_stage the staged epilogue's shared copy (epilogue.go); a
// loop's carried values, ring slots and fragments included, are registers
// that its yield copies into. What is not ops yet is still decided here:
// register mma operands staged into shared memory (stage.go), reductions
// and layout conversions through shuffles and the scratch region
// (reduce.go); docs/backend.md lists the steps that move them into lower.
//
// EmitVariants emits the variants lower.LowerVariants made: a fast one,
// valid where Kernel.FastPathOK holds for a launch's arrays, with its
// general one beside it. kernel.go is the ABI the runtime's CUDA backend
// launches by.
package ptxgen
