package interp

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/runtime"
)

// testdata/kernels/matmul_softmax.tile against a float64 softmax along
// each row of the float64 product, at a width below the tile (the padded
// columns must not take part) and at the tile's width; and its mirror
// matmul_softmax_cols.tile, a softmax down each column (the reductions
// across the accumulator's warps), at a height below the tile's rows and
// at the tile's, with N leaving a partial column tile.
func TestExampleMatmulSoftmax(t *testing.T) {
	for _, c := range []struct {
		kernel  string
		m, n, k int
		rows    bool // the softmax runs along each row (else down each column)
	}{
		{"matmul_softmax", 130, 200, 70, true},
		{"matmul_softmax", 130, 256, 70, true},
		{"matmul_softmax_cols", 100, 150, 70, false},
		{"matmul_softmax_cols", 128, 150, 70, false},
	} {
		seed := uint64(c.n)
		if !c.rows {
			seed = uint64(1000 + c.m)
		}
		rng := rand.New(rand.NewPCG(31, seed))
		A := runtime.RandNormal(rng, ir.F16, c.m, c.k)
		B := runtime.RandNormal(rng, ir.F16, c.k, c.n)
		C := poisoned(ir.F16, c.m, c.n)
		runExample(t, compileExample(t, c.kernel, c.kernel, nil), A, B, C)
		checkClose(t, c.kernel, C.Float64s(), refSoftmax(refMatmul(A, B), c.m, c.n, c.rows), 2e-3)
	}
}

// refSoftmax is the softmax of the m x n row-major s along each row (rows)
// or down each column.
func refSoftmax(s []float64, m, n int, rows bool) []float64 {
	lines, length := m, n
	at := func(line, i int) int { return line*n + i }
	if !rows {
		lines, length = n, m
		at = func(line, i int) int { return i*n + line }
	}
	out := make([]float64, len(s))
	for l := 0; l < lines; l++ {
		mx := math.Inf(-1)
		for i := 0; i < length; i++ {
			mx = math.Max(mx, s[at(l, i)])
		}
		sum := 0.0
		for i := 0; i < length; i++ {
			sum += math.Exp(s[at(l, i)] - mx)
		}
		for i := 0; i < length; i++ {
			out[at(l, i)] = math.Exp(s[at(l, i)]-mx) / sum
		}
	}
	return out
}
