// Package runtime is the launch API every backend shares, and what users
// import first: host tensors (Tensor, their dtype numerics and the poison
// pattern of outputs), kernels (Kernel, Arg, Kernel.Bind; generic kernels
// through Specializer), and the Backend interface with LaunchOptions and
// LaunchResult (Progress, Warning). It imports only ir and lang (for
// positions), so every package of the runtime can stand on it.
//
// The implementations live in packages of their own above it, each named
// for its job; runtime imports none of them (deps_test.go):
//   - runtime/compile: the compile pipeline, source text to a Kernel
//     (compile.File, compile.Source) and a kernel to PTX (compile.PTX);
//   - runtime/interp: the CPU backend, an interpreter of the IR that is
//     tilec's reference semantics (interp.CPU, interp.Launch);
//   - runtime/check: the comparison of a device's results against the
//     interpreter (check.CheckAgainstInterpreter, Compare, Poison*);
//   - runtime/kcache: the disk cache of compiled kernels;
//   - runtime/cuda: the CUDA backend (cgo, through runtime/cudadrv, only
//     there);
//   - runtime/host: the host-code driver; runtime/bench, runtime/tune,
//     runtime/npy.
//
// # Launch checks
//
// Kernel.Bind, which every backend calls first, checks the argument count,
// each array's dtype, rank and storage bounds (overflow-checked), that its
// dims fit the i32 kernels index arrays with, binds the symbolic dims from
// the first argument that has them and checks the others against it, checks
// literal dims, converts scalars, and evaluates the grid; the Binding it
// returns is what a backend launches with. What happens after, during
// execution, is each backend's (runtime/interp's doc says the
// interpreter's).
//
// # Numerics
//
// RoundTo and the F16/BF16/TF32/F8 conversions are the dtypes' own
// arithmetic, which the interpreter applies after every op
// (runtime/interp's doc has its numerics in full).
package runtime
