// Package cuda is the CUDA backend: it implements runtime.Backend on an
// NVIDIA GPU. cuda.go compiles a kernel through the kernel cache (lower and
// ptxgen), loads the PTX, uploads the arguments, launches and copies back;
// bench_cuda.go holds the device-resident API of benchmarks (Prepare,
// timing, cuBLAS); tensormap.go the TMA descriptors' geometry. Both files
// are under the build tag cuda and built on the driver layer in
// runtime/cudadrv, which with this package is the only code that reaches
// cgo. Without the tag, cuda_stub.go gives the same API failing with
// ErrNoCUDA, so callers (cmd/tilec, runtime/bench, runtime/host) build
// either way; cuda_info.go holds the types both builds share.
//
// The backend is a package of its own, above runtime, so that the
// interpreter, the tensors and the launch API build and test without the
// driver, and a cgo dependency cannot creep into them (deps_test.go).
package cuda
