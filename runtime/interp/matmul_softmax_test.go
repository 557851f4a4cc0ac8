package interp

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/runtime"
)

// testdata/kernels/matmul_softmax.tile against a float64 softmax of the
// float64 product, at a width below the tile (the padded columns must not
// take part) and at the tile's width.
func TestExampleMatmulSoftmax(t *testing.T) {
	for _, n := range []int{200, 256} {
		const M, K = 130, 70
		rng := rand.New(rand.NewPCG(31, uint64(n)))
		A := runtime.RandNormal(rng, ir.F16, M, K)
		B := runtime.RandNormal(rng, ir.F16, K, n)
		C := poisoned(ir.F16, M, n)
		runExample(t, compileExample(t, "matmul_softmax", "matmul_softmax", nil), A, B, C)
		s := refMatmul(A, B)
		want := make([]float64, len(s))
		for i := 0; i < M; i++ {
			row := s[i*n : (i+1)*n]
			m := math.Inf(-1)
			for _, x := range row {
				m = math.Max(m, x)
			}
			sum := 0.0
			for _, x := range row {
				sum += math.Exp(x - m)
			}
			for j, x := range row {
				want[i*n+j] = math.Exp(x-m) / sum
			}
		}
		checkClose(t, "matmul_softmax", C.Float64s(), want, 2e-3)
	}
}
