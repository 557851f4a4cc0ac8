// Package bench times kernels on a device and says how fast they are:
// TFLOP/s from the mma work in the kernel's IR, GB/s from the bytes its
// loads and stores move (Count), fractions of the device's peak (a table
// of datasheet figures, LookupPeak), cuBLAS side by side for GEMM-shaped
// kernels (GEMMOperands; the strided-batched GEMM for batched ones,
// BatchedGEMMOperands), over a sweep of shapes (ParseSweep), as a table,
// JSON or a plot.
// RunEntry does the same for a cuTile program's host launch function: the
// kernels it launches, each launch checked, then timed alone, and cuBLAS
// timed the same way beside a repetition that is one GEMM launch
// (entry.go).
//
// Timing goes through the Device, Prepared and Timer interfaces: the CUDA
// backend in a cuda build (OpenCUDA), fakes in tests. Everything else (the
// sweep, the count, the check of each shape against the interpreter before
// it is timed, the report) is plain Go and runs without a GPU. Package
// runtime/tune builds its search on Measure.
package bench
