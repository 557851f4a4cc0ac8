package cudadrv

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// colMajorGemm is what cuBLAS computes for a gemmCall with no transposes
// and alpha 1, beta 0: for each product p, C = X * Y with X (M x K), Y
// (K x N) and C (M x N) column-major, X the first operand.
func colMajorGemm(c gemmCall, x, y, out []float64) {
	for p := 0; p < c.Batch; p++ {
		xo, yo, co := int64(p)*c.StrideA, int64(p)*c.StrideB, int64(p)*c.StrideC
		for i := 0; i < c.M; i++ {
			for j := 0; j < c.N; j++ {
				var s float64
				for l := 0; l < c.K; l++ {
					s += x[xo+int64(i+l*c.LDA)] * y[yo+int64(l+j*c.LDB)]
				}
				out[co+int64(i+j*c.LDC)] = s
			}
		}
	}
}

// The call Gemm and GemmStridedBatched make, run through cuBLAS's
// column-major semantics, computes tilec's row-major C[b] = A[b] @ B[b]:
// non-square shapes, so that a swapped m and n, a wrong leading dimension
// or a wrong stride reads the wrong elements.
func TestRowMajorGemm(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, s := range []struct{ batch, m, n, k int }{{1, 3, 5, 7}, {4, 3, 5, 7}, {3, 8, 2, 5}, {2, 1, 6, 1}} {
		A := make([]float64, s.batch*s.m*s.k)
		B := make([]float64, s.batch*s.k*s.n)
		for i := range A {
			A[i] = rng.NormFloat64()
		}
		for i := range B {
			B[i] = rng.NormFloat64()
		}
		c, err := rowMajorGemm(s.batch, s.m, s.n, s.k)
		if err != nil {
			t.Fatal(err)
		}
		x, y := A, B
		if c.SwapAB {
			x, y = B, A
		}
		got := make([]float64, s.batch*s.m*s.n)
		colMajorGemm(c, x, y, got)
		for b := 0; b < s.batch; b++ {
			for i := 0; i < s.m; i++ {
				for j := 0; j < s.n; j++ {
					var want float64
					for l := 0; l < s.k; l++ {
						want += A[(b*s.m+i)*s.k+l] * B[(b*s.k+l)*s.n+j]
					}
					if g := got[(b*s.m+i)*s.n+j]; math.Abs(g-want) > 1e-12 {
						t.Fatalf("%+v: C[%d][%d][%d] = %g, want %g (call %+v)", s, b, i, j, g, want, c)
					}
				}
			}
		}
	}
}

// Sizes that do not fit cuBLAS's C ints are errors naming the shape.
func TestRowMajorGemmBadShape(t *testing.T) {
	for _, s := range []struct{ batch, m, n, k int }{
		{0, 4, 4, 4}, {1, 0, 4, 4}, {1, 4, -1, 4}, {1, 4, 4, 0},
		{1, math.MaxInt32 + 1, 4, 4}, {math.MaxInt32 + 1, 4, 4, 4},
		{math.MaxInt32, math.MaxInt32, math.MaxInt32, 4},
	} {
		_, err := rowMajorGemm(s.batch, s.m, s.n, s.k)
		if err == nil || !strings.HasPrefix(err.Error(), "bad shape ") {
			t.Errorf("%+v: err = %v", s, err)
		}
	}
}
