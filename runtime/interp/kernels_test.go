package interp

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/runtime"
	"github.com/tilec/tilec/runtime/compile"
)

// Issue 10's acceptance kernels (testdata/kernels), each run on the
// interpreter against an independent float64 or exact integer reference,
// at sizes that are not multiples of the tiles.

func compileKernel(t *testing.T, file string, consts map[string]string) *runtime.Kernel {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "testdata", "kernels", file))
	if err != nil {
		t.Fatal(err)
	}
	k, err := compile.Source(file, src, compile.Options{Consts: consts})
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func launchKernel(t *testing.T, k *runtime.Kernel, grid [3]int, args ...runtime.Arg) {
	t.Helper()
	if _, err := Launch(k, args, runtime.LaunchOptions{Grid: grid}); err != nil {
		t.Fatal(err)
	}
}

func randTensor(r *rand.Rand, d ir.DType, lo, hi int, shape ...int) *runtime.Tensor {
	x := runtime.NewTensor(d, shape...)
	n := x.NumElements()
	vals := make([]float64, n)
	for i := range vals {
		vals[i] = float64(lo + r.IntN(hi-lo+1))
	}
	return runtime.FromFloat64(d, shape, vals)
}

func TestKernelGatherAdd2D(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const M, N, tm, tn = 37, 53, 16, 32
	A, B := runtime.NewTensor(ir.F32, M, N), runtime.NewTensor(ir.F32, M, N)
	for i := 0; i < M*N; i++ {
		A.Set(r.NormFloat64(), i/N, i%N)
		B.Set(r.NormFloat64(), i/N, i%N)
	}
	C := runtime.FromFloat64(ir.F32, []int{M, N}, make([]float64, M*N))
	k := compileKernel(t, "gather_add2d.tile", map[string]string{"tm": "16", "tn": "32"})
	launchKernel(t, k, [3]int{(M + tm - 1) / tm, (N + tn - 1) / tn, 1}, A, B, C)
	for i := 0; i < M; i++ {
		for j := 0; j < N; j++ {
			// float32 addition of the two float32 inputs: the float64 sum
			// of two floats is exact, rounded once to f32.
			want := float64(float32(A.At(i, j) + B.At(i, j)))
			if got := C.At(i, j); got != want {
				t.Fatalf("C[%d,%d] = %v, want %v", i, j, got, want)
			}
		}
	}
}

func TestKernelPermuteScatter(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const n, tile = 1000, 128
	perm := r.Perm(n)
	P := runtime.NewTensor(ir.I32, n)
	X, Y := runtime.NewTensor(ir.I64, n), runtime.NewTensor(ir.I64, n)
	for i, p := range perm {
		P.SetInt(int64(p), i)
		X.SetInt(int64(i)*1_000_003-7, i)
	}
	k := compileKernel(t, "permute_scatter.tile", map[string]string{"tile": "128"})
	launchKernel(t, k, [3]int{(n + tile - 1) / tile, 1, 1}, X, P, Y)
	for i, p := range perm {
		if got, want := Y.AtInt(p), int64(i)*1_000_003-7; got != want {
			t.Fatalf("Y[%d] = %d, want X[%d] = %d", p, got, i, want)
		}
	}
}

// TestKernelSplitKGEMM: small integer inputs make every partial sum and the
// atomic accumulation exact in f32, so the result equals the integer
// product whatever order the splits land in.
func TestKernelSplitKGEMM(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	const M, N, K = 45, 38, 200
	A, B := randTensor(r, ir.F32, -8, 8, M, K), randTensor(r, ir.F32, -8, 8, K, N)
	C := runtime.NewTensor(ir.F32, M, N)
	for i := 0; i < M*N; i++ {
		C.Set(float64(i%7), i/N, i%N) // atomic adds accumulate onto C
	}
	k := compileKernel(t, "splitk_gemm.tile", map[string]string{"tm": "16", "tn": "16", "tk": "16", "splits": "4"})
	launchKernel(t, k, [3]int{3, 3, 4}, A, B, C)
	for i := 0; i < M; i++ {
		for j := 0; j < N; j++ {
			want := int64((i*N + j) % 7)
			for kk := 0; kk < K; kk++ {
				want += int64(A.At(i, kk)) * int64(B.At(kk, j))
			}
			if got := C.At(i, j); got != float64(want) {
				t.Fatalf("C[%d,%d] = %v, want %d", i, j, got, want)
			}
		}
	}
}

func TestKernelMoEAlign(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	const experts, tokens, block, maxBlocks = 8, 64, 4, 32
	for _, n := range []int{1, 13, 50, 64} {
		ids := make([]int64, n)
		for i := range ids {
			ids[i] = int64(r.IntN(experts - 1)) // expert 7 stays empty
		}
		Topk := ints(ir.I32, ids...)
		Sorted, BlockExpert, Total := runtime.NewTensor(ir.I32, maxBlocks*block), runtime.NewTensor(ir.I32, maxBlocks), runtime.NewTensor(ir.I32, 1)
		for i := 0; i < maxBlocks; i++ {
			BlockExpert.SetInt(-1, i)
		}
		k := compileKernel(t, "moe_align.tile", map[string]string{"experts": "8", "tokens": "64", "block": "4", "max_blocks": "32"})
		launchKernel(t, k, [3]int{1, 1, 1}, Topk, Sorted, BlockExpert, Total, int32(n))
		// Reference: a stable sort of the tokens by expert, each expert's
		// run padded with n to a multiple of block.
		order := make([]int, n)
		for i := range order {
			order[i] = i
		}
		sort.SliceStable(order, func(a, b int) bool { return ids[order[a]] < ids[order[b]] })
		var want, wantBE []int64
		o := 0
		for e := int64(0); e < experts; e++ {
			start := len(want)
			for o < n && ids[order[o]] == e {
				want = append(want, int64(order[o]))
				o++
			}
			for (len(want)-start)%block != 0 {
				want = append(want, int64(n))
			}
			for b := start; b < len(want); b += block {
				wantBE = append(wantBE, e)
			}
		}
		total := len(want)
		for len(want) < maxBlocks*block {
			want = append(want, int64(n))
		}
		for len(wantBE) < maxBlocks {
			wantBE = append(wantBE, -1)
		}
		wantInts(t, "total", Total, int64(total))
		wantInts(t, "sorted_ids", Sorted, want...)
		wantInts(t, "block_expert", BlockExpert, wantBE...)
	}
}

func TestKernelDropoutHash(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	const n, tile, seed = 3001, 256, 0x5eed1234
	const p = 0.3
	threshold := int32(math.Floor(p * (1 << 24)))
	scale := float32(1 / (1 - p))
	X, Y := runtime.NewTensor(ir.F32, n), runtime.NewTensor(ir.F32, n)
	for i := 0; i < n; i++ {
		X.Set(r.NormFloat64(), i)
	}
	k := compileKernel(t, "dropout_hash.tile", map[string]string{"tile": "256"})
	launchKernel(t, k, [3]int{(n + tile - 1) / tile, 1, 1}, X, Y, int32(seed), threshold, float64(scale))
	kept := 0
	for i := 0; i < n; i++ {
		h := uint32(i) ^ uint32(seed)
		h ^= h >> 16
		h *= 0x7feb352d
		h ^= h >> 15
		h *= 0x846ca68b
		h ^= h >> 16
		want := 0.0
		if int32(h&0xffffff) >= threshold {
			want = float64(float32(X.At(i)) * scale)
			kept++
		}
		if got := Y.At(i); got != want {
			t.Fatalf("Y[%d] = %v, want %v", i, got, want)
		}
	}
	if frac := float64(kept) / n; math.Abs(frac-(1-p)) > 0.05 {
		t.Errorf("kept %.3f of the elements, want about %.2f", frac, 1-p)
	}
}

func TestKernelHadamardFFT(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	const R, rows = 20, 8
	X, Y := randTensor(r, ir.I32, -1000, 1000, R, 16), runtime.NewTensor(ir.I32, R, 16)
	k := compileKernel(t, "hadamard_fft.tile", map[string]string{"rows": "8"})
	launchKernel(t, k, [3]int{(R + rows - 1) / rows, 1, 1}, X, Y)
	// Reference: the Walsh-Hadamard matrix product, H[i][j] = (-1)^popcount(i&j).
	for i := 0; i < R; i++ {
		for f := 0; f < 16; f++ {
			var want int64
			for j := 0; j < 16; j++ {
				s := int64(1)
				if bitsOdd(f & j) {
					s = -1
				}
				want += s * X.AtInt(i, j)
			}
			if got := Y.AtInt(i, f); got != want {
				t.Fatalf("Y[%d,%d] = %d, want %d", i, f, got, want)
			}
		}
	}
}

func bitsOdd(x int) bool {
	odd := false
	for ; x != 0; x &= x - 1 {
		odd = !odd
	}
	return odd
}

// flush_to_zero=True (runtime/testdata/kernels/flush_to_zero.tile): the
// ops take the ftz attribute, and the interpreter flushes float32 subnormal
// operands and results to signed zeros, as PTX's .ftz forms do.
func TestKernelFlushToZero(t *testing.T) {
	xs := []float64{0.05, -0.05, 0.11, 0.2, -3.0, 1.2, 1.5, 0}
	n := len(xs)
	X := runtime.FromFloat64(ir.F32, []int{n}, xs)
	Y, Z, W := runtime.NewTensor(ir.F32, n), runtime.NewTensor(ir.F32, n), runtime.NewTensor(ir.F32, n)
	k := compileKernel(t, "flush_to_zero.tile", map[string]string{"tile": "8"})
	launchKernel(t, k, [3]int{1, 1, 1}, X, Y, Z, W)
	f32 := func(v float64) float64 { return float64(float32(v)) }
	flush := func(v float64) float64 {
		if math.Abs(v) < 0x1p-126 {
			return math.Copysign(0, v)
		}
		return v
	}
	flushed := 0
	for i, x := range xs {
		x = f32(x)
		// tiny * 1e37 + (x / 1e37) * 1e37, each op rounded to f32.
		tiny := flush(f32(x * f32(1e-37)))
		div := flush(f32(x / f32(1e37)))
		if tiny == 0 && x != 0 {
			flushed++
		}
		wantY := f32(f32(tiny*f32(1e37)) + f32(div*f32(1e37)))
		// exp2 of a float32 exponent, flushed, then scaled.
		e := f32(f32(x*8) - 136)
		wantZ := f32(flush(f32(math.Exp2(e))) * f32(1e38))
		// x * 1e-39 reads as zero in the add and the maximum.
		wantW := f32(f32(f32(1e-37)*f32(1e37)) + f32(math.Max(0, f32(-1e-37))*f32(1e37)))
		if got := Y.At(i); got != wantY {
			t.Errorf("Y[%d] (x=%v) = %v, want %v", i, x, got, wantY)
		}
		if got := Z.At(i); got != wantZ {
			t.Errorf("Z[%d] (x=%v) = %v, want %v", i, x, got, wantZ)
		}
		if got := W.At(i); got != wantW {
			t.Errorf("W[%d] (x=%v) = %v, want %v", i, x, got, wantW)
		}
	}
	if flushed != 3 {
		t.Errorf("%d inputs flushed, want 3 (the test's inputs no longer test the flush)", flushed)
	}
	// The flush is the ops' ftz attribute, not a compare and select.
	for _, in := range k.Func.Body.Instrs {
		if in.Op == ir.OpSelect {
			t.Errorf("a select at %v: flush_to_zero built a compare and select", in.Pos)
		}
	}
}
