// Package compile is tilec's compile pipeline in one place: source text to
// a launchable runtime.Kernel (lang -> ir/build -> ir.Verify: Source, File,
// Parsed, with generic kernels specialized at each launch on their
// arguments' signature) and a kernel's IR to PTX for a target (lower ->
// ptxgen: PTX, PTXFor). cmd/tilec, runtime/host, runtime/bench, runtime/tune
// and the kernel cache call it; the backends do not build from source.
//
// It sits above runtime (whose Kernel it returns and whose
// runtime.Specializer its generic kernels implement), so that runtime, the
// launch API, reaches neither the front end nor lower and ptxgen.
package compile
