package interp

import (
	"math/rand/v2"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/runtime"
)

// Load/store order, A.strides and t.extract/t.insert
// (testdata/kernels/surface_ops.tile) against a reference written from
// cuTile's definitions: a load with order=(1, 0) at index (j, i) and shape
// (tn, tm) is t[y, x] = X[i*tm + x, j*tn + y]; a store with order "F" writes
// the transpose of its tile. X is a strided view (a transpose), so its
// strides are not the row-major ones.
func TestKernelSurfaceOps(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for _, sz := range [][2]int{{70, 45}, {32, 16}, {1, 1}, {33, 17}} {
		M, N := sz[0], sz[1]
		X := runtime.RandNormal(r, ir.F32, N, M).Transpose() // (M, N), strides (1, M)
		T, Y, St := runtime.NewTensor(ir.F32, N, M), runtime.NewTensor(ir.F32, M, N), runtime.NewTensor(ir.I32, M, N)
		k := compileKernel(t, "surface_ops.tile", nil)
		launchKernel(t, k, [3]int{(M + 31) / 32, (N + 15) / 16, 1}, X, T, Y, St)
		for i := 0; i < M; i++ {
			for j := 0; j < N; j++ {
				if got, want := T.At(j, i), X.At(i, j); got != want {
					t.Fatalf("%dx%d: T[%d,%d] = %v, want %v", M, N, j, i, got, want)
				}
				// Within its 32x16 tile, element (x, y) is xt[y, x]; the
				// block xt[0:8, 0:8] (y < 8, x < 8) is xt[8:16, 0:8] * 2.
				x, y := i%32, j%16
				want := X.At(i, j)
				if x < 8 && y < 8 {
					src := j + 8 // y + 8 in the same tile
					if src < N {
						want = X.At(i, src) * 2
					} else {
						want = 0 // padded
					}
				}
				if got := Y.At(i, j); got != want {
					t.Fatalf("%dx%d: Y[%d,%d] = %v, want %v", M, N, i, j, got, want)
				}
				if got, want := St.AtInt(i, j), int64(1*1000+M); got != want {
					t.Fatalf("%dx%d: St[%d,%d] = %v, want %v", M, N, i, j, got, want)
				}
			}
		}
	}
}
