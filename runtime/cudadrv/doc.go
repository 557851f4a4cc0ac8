// Package cudadrv is tilec's thin layer over the CUDA driver API: it owns
// every call into libcuda and libcublas that the GPU runtime makes.
//
// It opens a device on its primary context, loads PTX text through the
// driver's JIT (returning the JIT logs, and on failure the offending PTX
// lines), launches kernels with marshalled arguments, moves bytes to and from
// device memory, times launches with CUDA events, encodes TMA tensor maps, and
// runs cuBLAS GEMMs (single and strided-batched) as the reference that
// generated kernels are measured against.
//
// Why a package of its own: cgo is confined here, so the compiler (lang, ir,
// lower, ptxgen) and the CPU interpreter build with CGO_ENABLED=0. Every file
// that uses cgo carries the build tag "cuda"; without the tag the package
// holds only pure-Go helpers. Building with the tag needs cuda.h and a
// libcuda.so to link against; scripts/cuda-dev.sh fetches both on a machine
// without CUDA. At run time the binary needs the driver's libcuda.so.1.
//
// What it builds on: gorgonia.org/cu for device queries, contexts, memory,
// events and synchronisation; a small cgo shim in this package for what cu
// lacks or hides: cuModuleLoadDataEx with both JIT logs, cuFuncSetAttribute,
// cuLaunchKernel with C-allocated parameters, cuTensorMapEncodeTiled (looked
// up at run time: Debian's CUDA 11.8 headers predate it) and cuBLAS (dlopen'ed,
// so the binary is not tied to one cuBLAS soname).
//
// Caveat from gorgonia.org/cu: its package initialiser calls cuInit and exits
// the process (status 1) when that fails, so a cuda-tagged binary cannot run
// on a machine without a working driver and GPU; it cannot fall back to the
// CPU interpreter at run time. Open still returns errors for everything after
// initialisation.
//
// Threading: a driver context is current per OS thread, and goroutines move
// between threads, so every method locks its goroutine to its thread and makes
// the device's context current before calling the driver. All work goes to
// the legacy default stream, which keeps launches, copies, cuBLAS calls and
// event records in one order.
package cudadrv
