//go:build cuda

package cudadrv

/*
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

// cuBLAS is opened with dlopen rather than linked: the GPU machine has CUDA
// 13's libcublas.so.13 while the headers here are CUDA 11.8's, and a linked
// binary would be tied to one soname. The prototypes below follow
// cublas_api.h (CUDA 11.8, unchanged in 12 and 13); handles and streams are
// opaque pointers and every enum is passed as int.
typedef int (*tilec_cublasCreate_fn)(void **handle);
typedef int (*tilec_cublasDestroy_fn)(void *handle);
typedef int (*tilec_cublasSetStream_fn)(void *handle, void *stream);
typedef int (*tilec_cublasGetVersion_fn)(void *handle, int *version);
typedef int (*tilec_cublasGemmEx_fn)(void *handle, int transa, int transb,
	int m, int n, int k, const void *alpha,
	const void *A, int Atype, int lda,
	const void *B, int Btype, int ldb,
	const void *beta, void *C, int Ctype, int ldc,
	int computeType, int algo);
typedef int (*tilec_cublasGemmStridedBatchedEx_fn)(void *handle, int transa, int transb,
	int m, int n, int k, const void *alpha,
	const void *A, int Atype, int lda, long long strideA,
	const void *B, int Btype, int ldb, long long strideB,
	const void *beta, void *C, int Ctype, int ldc, long long strideC,
	int batchCount, int computeType, int algo);

typedef struct {
	void *lib;
	void *handle;
	tilec_cublasCreate_fn create;
	tilec_cublasDestroy_fn destroy;
	tilec_cublasSetStream_fn set_stream;
	tilec_cublasGetVersion_fn get_version;
	tilec_cublasGemmEx_fn gemm_ex;
	// NULL when the library lacks it: GemmStridedBatched then fails with
	// an error that says so, while Gemm still works.
	tilec_cublasGemmStridedBatchedEx_fn gemm_strided_batched_ex;
} tilec_cublas;

// tilec_cublas_open loads path and resolves the entry points. On failure it
// returns -1 with dlerror's text in err.
static int tilec_cublas_open(const char *path, tilec_cublas *b, char *err, size_t cap) {
	memset(b, 0, sizeof *b);
	b->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!b->lib) {
		const char *e = dlerror();
		strncpy(err, e ? e : "dlopen failed", cap - 1);
		return -1;
	}
	b->create = (tilec_cublasCreate_fn)dlsym(b->lib, "cublasCreate_v2");
	b->destroy = (tilec_cublasDestroy_fn)dlsym(b->lib, "cublasDestroy_v2");
	b->set_stream = (tilec_cublasSetStream_fn)dlsym(b->lib, "cublasSetStream_v2");
	b->get_version = (tilec_cublasGetVersion_fn)dlsym(b->lib, "cublasGetVersion_v2");
	b->gemm_ex = (tilec_cublasGemmEx_fn)dlsym(b->lib, "cublasGemmEx");
	b->gemm_strided_batched_ex = (tilec_cublasGemmStridedBatchedEx_fn)dlsym(b->lib, "cublasGemmStridedBatchedEx");
	if (!b->create || !b->destroy || !b->set_stream || !b->get_version || !b->gemm_ex) {
		strncpy(err, "missing cublasCreate_v2, cublasDestroy_v2, cublasSetStream_v2, cublasGetVersion_v2 or cublasGemmEx", cap - 1);
		dlclose(b->lib);
		b->lib = 0;
		return -1;
	}
	return 0;
}

static int tilec_cublas_create(tilec_cublas *b) {
	int s = b->create(&b->handle);
	if (s != 0) return s;
	// NULL is the legacy default stream, the one our launches use.
	return b->set_stream(b->handle, 0);
}

static int tilec_cublas_destroy(tilec_cublas *b) {
	int s = b->handle ? b->destroy(b->handle) : 0;
	b->handle = 0;
	return s;
}

static int tilec_cublas_version(tilec_cublas *b, int *v) {
	return b->get_version(b->handle, v);
}

// alpha and beta are host floats: with CUBLAS_COMPUTE_32F* the scale type is
// CUDA_R_32F and the default pointer mode is host.
static int tilec_cublas_gemm(tilec_cublas *b, int transa, int transb,
		int m, int n, int k, float alpha,
		unsigned long long A, int Atype, int lda,
		unsigned long long B, int Btype, int ldb,
		float beta, unsigned long long C, int Ctype, int ldc,
		int computeType, int algo) {
	return b->gemm_ex(b->handle, transa, transb, m, n, k, &alpha,
		(const void *)A, Atype, lda, (const void *)B, Btype, ldb,
		&beta, (void *)C, Ctype, ldc, computeType, algo);
}

static int tilec_cublas_has_gemm_strided_batched(tilec_cublas *b) {
	return b->gemm_strided_batched_ex != 0;
}

// The strided-batched GEMM, with host alpha and beta as tilec_cublas_gemm.
static int tilec_cublas_gemm_strided_batched(tilec_cublas *b, int transa, int transb,
		int m, int n, int k, float alpha,
		unsigned long long A, int Atype, int lda, long long strideA,
		unsigned long long B, int Btype, int ldb, long long strideB,
		float beta, unsigned long long C, int Ctype, int ldc, long long strideC,
		int batchCount, int computeType, int algo) {
	return b->gemm_strided_batched_ex(b->handle, transa, transb, m, n, k, &alpha,
		(const void *)A, Atype, lda, strideA, (const void *)B, Btype, ldb, strideB,
		&beta, (void *)C, Ctype, ldc, strideC, batchCount, computeType, algo);
}
*/
import "C"

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unsafe"
)

// DType is the element type of a GEMM's A, B and C.
type DType int

const (
	F16 DType = iota
	BF16
	F32
)

func (t DType) String() string {
	switch t {
	case F16:
		return "f16"
	case BF16:
		return "bf16"
	case F32:
		return "f32"
	}
	return fmt.Sprintf("DType(%d)", int(t))
}

// Size returns the element size in bytes.
func (t DType) Size() int {
	if t == F32 {
		return 4
	}
	return 2
}

// Enum values, from CUDA 11.8's library_types.h and cublas_api.h (Debian
// nvidia-cuda-dev 11.8.89); they are ABI and did not change in 12 or 13.
const (
	cudaR16F  = 2  // CUDA_R_16F
	cudaR16BF = 14 // CUDA_R_16BF
	cudaR32F  = 0  // CUDA_R_32F

	cublasOpN = 0 // CUBLAS_OP_N

	cublasCompute32F         = 68 // CUBLAS_COMPUTE_32F: f32 accumulate
	cublasCompute32FFastTF32 = 77 // CUBLAS_COMPUTE_32F_FAST_TF32: f32 inputs on TF32 tensor cores

	cublasGemmDefault = -1 // CUBLAS_GEMM_DEFAULT: let cuBLAS choose (uses tensor cores)
)

// cublasSonames are tried in order: the newest first, so a machine with
// several CUDA versions uses the one matching its driver best.
var cublasSonames = []string{"libcublas.so.13", "libcublas.so.12", "libcublas.so.11", "libcublas.so"}

// cublasDirs are tried after the loader's own search path, for installs that
// leave the CUDA lib directory out of ld.so.conf.
var cublasDirs = []string{"/usr/local/cuda/lib64", "/usr/local/cuda/targets/x86_64-linux/lib"}

type cublas struct {
	c    *C.tilec_cublas // in C memory
	path string
}

// openCublas loads cuBLAS and creates a handle in the current context.
// TILEC_CUBLAS, if set, names the library file to use.
func openCublas() (*cublas, error) {
	var cands []string
	if p := os.Getenv("TILEC_CUBLAS"); p != "" {
		cands = append(cands, p)
	}
	cands = append(cands, cublasSonames...)
	for _, dir := range cublasDirs {
		for _, so := range cublasSonames[:3] {
			cands = append(cands, filepath.Join(dir, so))
		}
	}
	b := (*C.tilec_cublas)(C.calloc(1, C.size_t(unsafe.Sizeof(C.tilec_cublas{}))))
	errbuf := (*C.char)(C.calloc(512, 1))
	defer C.free(unsafe.Pointer(errbuf))
	var tried []string
	for _, path := range cands {
		cpath := C.CString(path)
		rc := C.tilec_cublas_open(cpath, b, errbuf, 512)
		C.free(unsafe.Pointer(cpath))
		if rc == 0 {
			if s := C.tilec_cublas_create(b); s != 0 {
				C.dlclose(b.lib)
				C.free(unsafe.Pointer(b))
				return nil, &Error{Call: "cublasCreate_v2", Code: int(s), Name: cublasStatusName(int(s)), Msg: path}
			}
			return &cublas{c: b, path: path}, nil
		}
		tried = append(tried, C.GoString(errbuf))
	}
	C.free(unsafe.Pointer(b))
	return nil, fmt.Errorf("cudadrv: cannot load cuBLAS (set TILEC_CUBLAS to its path):\n  %s", strings.Join(tried, "\n  "))
}

func (b *cublas) destroy() error {
	s := C.tilec_cublas_destroy(b.c)
	C.dlclose(b.c.lib)
	C.free(unsafe.Pointer(b.c))
	b.c = nil
	if s != 0 {
		return &Error{Call: "cublasDestroy_v2", Code: int(s), Name: cublasStatusName(int(s))}
	}
	return nil
}

// cublasStatusName names cublasStatus_t values (cublas_api.h).
func cublasStatusName(s int) string {
	switch s {
	case 0:
		return "CUBLAS_STATUS_SUCCESS"
	case 1:
		return "CUBLAS_STATUS_NOT_INITIALIZED"
	case 3:
		return "CUBLAS_STATUS_ALLOC_FAILED"
	case 7:
		return "CUBLAS_STATUS_INVALID_VALUE"
	case 8:
		return "CUBLAS_STATUS_ARCH_MISMATCH"
	case 11:
		return "CUBLAS_STATUS_MAPPING_ERROR"
	case 13:
		return "CUBLAS_STATUS_EXECUTION_FAILED"
	case 14:
		return "CUBLAS_STATUS_INTERNAL_ERROR"
	case 15:
		return "CUBLAS_STATUS_NOT_SUPPORTED"
	case 16:
		return "CUBLAS_STATUS_LICENSE_ERROR"
	}
	return "CUBLAS_STATUS_UNKNOWN"
}

// withBlas runs f with the device's cuBLAS handle, creating it on first use.
func (d *Device) withBlas(f func(*cublas) error) error {
	d.blasMu.Lock()
	defer d.blasMu.Unlock()
	return d.do(func() error {
		d.mu.Lock()
		b := d.blas
		d.mu.Unlock()
		if b == nil {
			var err error
			if b, err = openCublas(); err != nil {
				return err
			}
			d.mu.Lock()
			d.blas = b
			d.mu.Unlock()
		}
		return f(b)
	})
}

// BLASInfo loads cuBLAS if needed and says which library file was loaded and
// its version (e.g. 130001 for 13.0.1).
func (d *Device) BLASInfo() (path string, version int, err error) {
	err = d.withBlas(func(b *cublas) error {
		var v C.int
		if s := C.tilec_cublas_version(b.c, &v); s != 0 {
			return &Error{Call: "cublasGetVersion_v2", Code: int(s), Name: cublasStatusName(int(s))}
		}
		path, version = b.path, int(v)
		return nil
	})
	return path, version, err
}

// gemmTypes maps dt to cuBLAS's data and compute types: f32
// accumulation for every input type; f32 inputs on the TF32 tensor cores
// (CUBLAS_COMPUTE_32F_FAST_TF32), since tilec's f32 and tf32 mma baselines
// are tensor-core GEMMs and exact f32 on the CUDA cores would flatter them.
func gemmTypes(call string, dt DType) (ty, compute C.int, err error) {
	switch dt {
	case F16:
		return cudaR16F, cublasCompute32F, nil
	case BF16:
		return cudaR16BF, cublasCompute32F, nil
	case F32:
		return cudaR32F, cublasCompute32FFastTF32, nil
	}
	return 0, 0, fmt.Errorf("cudadrv: %s: unsupported %v", call, dt)
}

// Gemm computes C = A * B with cuBLAS for row-major A (m x k), B (k x n) and
// C (m x n), all of type dt, accumulating in f32 (f32 inputs use TF32 tensor
// cores, CUBLAS_COMPUTE_32F_FAST_TF32). It is the baseline generated GEMM
// kernels are checked and timed against. It only enqueues the work on the
// default stream.
//
// cuBLAS is column-major; rowMajorGemm says how the row-major product is
// asked for (B first, no transposes).
func (d *Device) Gemm(dt DType, m, n, k int, a, b, c DevicePtr) error {
	ty, compute, err := gemmTypes("Gemm", dt)
	if err != nil {
		return err
	}
	g, err := rowMajorGemm(1, m, n, k)
	if err != nil {
		return fmt.Errorf("cudadrv: Gemm: %v", err)
	}
	x, y := a, b
	if g.SwapAB {
		x, y = b, a
	}
	return d.withBlas(func(bl *cublas) error {
		s := C.tilec_cublas_gemm(bl.c, cublasOpN, cublasOpN,
			C.int(g.M), C.int(g.N), C.int(g.K), 1,
			C.ulonglong(x), ty, C.int(g.LDA),
			C.ulonglong(y), ty, C.int(g.LDB),
			0, C.ulonglong(c), ty, C.int(g.LDC),
			compute, cublasGemmDefault)
		if s != 0 {
			return &Error{Call: "cublasGemmEx", Code: int(s), Name: cublasStatusName(int(s)),
				Msg: fmt.Sprintf("%v %dx%dx%d", dt, m, n, k)}
		}
		return nil
	})
}

// GemmStridedBatched computes C[i] = A[i] * B[i] for i < batch with one
// cuBLAS call (cublasGemmStridedBatchedEx): row-major A (batch x m x k),
// B (batch x k x n) and C (batch x m x n), each packed (product i starts
// at element i*m*k of A, i*k*n of B, i*m*n of C), of type dt, with f32
// accumulation as Gemm. It is the baseline of batched matmul kernels: one
// launch over the whole batch, as torch.bmm makes, rather than batch
// launches of Gemm whose launch gaps would flatter tilec at small shapes.
// It only enqueues the work on the default stream.
func (d *Device) GemmStridedBatched(dt DType, batch, m, n, k int, a, b, c DevicePtr) error {
	ty, compute, err := gemmTypes("GemmStridedBatched", dt)
	if err != nil {
		return err
	}
	g, err := rowMajorGemm(batch, m, n, k)
	if err != nil {
		return fmt.Errorf("cudadrv: GemmStridedBatched: %v", err)
	}
	x, y := a, b
	if g.SwapAB {
		x, y = b, a
	}
	return d.withBlas(func(bl *cublas) error {
		if C.tilec_cublas_has_gemm_strided_batched(bl.c) == 0 {
			return fmt.Errorf("cudadrv: GemmStridedBatched: %s has no cublasGemmStridedBatchedEx (set TILEC_CUBLAS to a newer cuBLAS)", bl.path)
		}
		s := C.tilec_cublas_gemm_strided_batched(bl.c, cublasOpN, cublasOpN,
			C.int(g.M), C.int(g.N), C.int(g.K), 1,
			C.ulonglong(x), ty, C.int(g.LDA), C.longlong(g.StrideA),
			C.ulonglong(y), ty, C.int(g.LDB), C.longlong(g.StrideB),
			0, C.ulonglong(c), ty, C.int(g.LDC), C.longlong(g.StrideC),
			C.int(g.Batch), compute, cublasGemmDefault)
		if s != 0 {
			return &Error{Call: "cublasGemmStridedBatchedEx", Code: int(s), Name: cublasStatusName(int(s)),
				Msg: fmt.Sprintf("%v %dx%dx%d, batch %d", dt, m, n, k, batch)}
		}
		return nil
	})
}
