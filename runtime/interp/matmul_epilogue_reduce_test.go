package interp

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/runtime"
)

// GEMMs whose epilogue reduces the accumulator across its rows (the warps
// of the warp-specialized path): testdata/kernels/matmul_colsum.tile's
// per-block column sums and matmul_amax.tile's per-tile largest magnitude,
// against float64 references of the float64 product, at sizes that leave
// partial tiles in both M and N (their padding must add nothing), at the
// default 128x128 tiles and at 64x64. Each kernel also stores the product.
func TestExampleMatmulEpilogueReductions(t *testing.T) {
	const M, N, K = 200, 150, 70
	for _, tile := range []int{128, 64} {
		mb, nb := (M+tile-1)/tile, (N+tile-1)/tile
		rng := rand.New(rand.NewPCG(7, uint64(tile)))
		A := runtime.RandNormal(rng, ir.F16, M, K)
		B := runtime.RandNormal(rng, ir.F16, K, N)
		c := refMatmul(A, B)
		// Per kernel, its second output's shape and the reference that
		// folds each element of the product into it.
		for _, k := range []struct {
			name  string
			shape []int
			fold  func(acc []float64, m, n int, x float64)
		}{
			{"matmul_colsum", []int{mb, N}, func(acc []float64, m, n int, x float64) { acc[m/tile*N+n] += x }},
			{"matmul_amax", []int{mb, nb}, func(acc []float64, m, n int, x float64) {
				i := m/tile*nb + n/tile
				acc[i] = math.Max(acc[i], math.Abs(x))
			}},
		} {
			C, R := poisoned(ir.F16, M, N), poisoned(ir.F32, k.shape...)
			consts := map[string]string{"tm": strconv.Itoa(tile), "tn": strconv.Itoa(tile)}
			runExample(t, compileExample(t, k.name, k.name, consts), A, B, C, R)
			checkClose(t, k.name+" C", C.Float64s(), c, 2e-3)
			want := make([]float64, R.NumElements())
			for m := 0; m < M; m++ {
				for n := 0; n < N; n++ {
					k.fold(want, m, n, c[m*N+n])
				}
			}
			checkClose(t, k.name+" reduction", R.Float64s(), want, 1e-5)
		}
	}
}
