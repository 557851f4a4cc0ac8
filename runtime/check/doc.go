// Package check compares a device backend's results with the
// interpreter's (runtime/interp), tilec's reference semantics: Compare for
// two tensors within a dtype's tolerance (Tolerance, ToleranceFor,
// KernelTolerance), CheckAgainstInterpreter for a whole launch (every block
// for small outputs, a sample for large ones, SampleBlocks), and the
// poisoning of outputs before a launch (PoisonOutputs, PoisonFloatOutputs,
// Unpoison, CloneArgs) so that an element no launch wrote shows as such.
// Elements are bounded by the scale of their rounding errors where the
// kernel is polynomial (magnitude.go). It needs no GPU: runtime/bench,
// runtime/cuda's tests and `tilec run --check` call it.
//
// It is not ir.Verify (the IR's invariants) nor lower's verification of a
// lowered kernel: those check programs, this checks results.
package check
