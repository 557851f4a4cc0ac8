package cudadrv

import (
	"fmt"
	"math"
)

// gemmCall is the arguments of one cuBLAS GEMM (cublasGemmEx, or
// cublasGemmStridedBatchedEx with Batch products) in cuBLAS's column-major
// terms, with no transposes. It is pure Go, apart from the cgo calls, so
// that the translation from tilec's row-major arrays is tested on machines
// without a GPU (gemm_test.go runs it through a column-major reference).
type gemmCall struct {
	// M, N, K are cuBLAS's m, n, k: its C is M x N, column-major.
	M, N, K int
	// SwapAB says cuBLAS's first operand is our B and its second our A.
	SwapAB bool
	// Leading dimensions of cuBLAS's first operand, second operand and C.
	LDA, LDB, LDC int
	// Element strides between consecutive products of each operand.
	StrideA, StrideB, StrideC int64
	Batch                     int
}

// rowMajorGemm translates batch products C[i] = A[i] @ B[i] of row-major
// A (m x k), B (k x n) and C (m x n), each batch's matrices packed one
// after the other, into a cuBLAS call.
//
// cuBLAS is column-major, and a row-major matrix is its transpose in
// column-major, so this asks cuBLAS for C^T (n x m) = B^T (n x k) * A^T
// (k x m) with no transposes: B is passed first, with leading dimension n,
// A second with k, C with n. A transpose flag instead would make cuBLAS
// write C^T, which is not tilec's layout. The sizes are checked here
// because cuBLAS takes them as C ints: a bad one is an error that names
// the shape, never a wrapped value or a crash.
func rowMajorGemm(batch, m, n, k int) (gemmCall, error) {
	const maxInt32 = math.MaxInt32
	if batch <= 0 || m <= 0 || n <= 0 || k <= 0 || batch > maxInt32 || m > maxInt32 || n > maxInt32 || k > maxInt32 {
		return gemmCall{}, fmt.Errorf("bad shape %dx%dx%d, batch %d (each must be 1 to %d)", m, n, k, batch, maxInt32)
	}
	sa, sb, sc := int64(m)*int64(k), int64(k)*int64(n), int64(m)*int64(n)
	for _, s := range []int64{sa, sb, sc} {
		if s > math.MaxInt64/int64(batch) {
			return gemmCall{}, fmt.Errorf("bad shape %dx%dx%d, batch %d: the arrays' element counts overflow", m, n, k, batch)
		}
	}
	return gemmCall{
		M: n, N: m, K: k, SwapAB: true,
		LDA: n, LDB: k, LDC: n,
		StrideA: sb, StrideB: sa, StrideC: sc,
		Batch: batch,
	}, nil
}
