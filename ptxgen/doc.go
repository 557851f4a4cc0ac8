// Package ptxgen emits PTX for a kernel lowered by package lower.
//
// PTX is built as structured instructions (Instr: opcode, operands, an
// optional predicate guard) and printed by one printer (ptx.go). EmitKernel
// walks the lowered IR once: scalars live in one register each (the block
// computes them redundantly in every thread), register tiles in one
// register per element the thread holds (lower.Layout says which), tiles
// that feed mma in shared memory, copied there with cp.async and read with
// ldmatrix. kernel.go is the ABI the runtime's CUDA backend launches by.
package ptxgen
