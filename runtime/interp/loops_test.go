package interp

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/runtime"
	"github.com/tilec/tilec/runtime/compile"
)

// while loops, break and continue (testdata/kernels/while_loops.tile) on
// the interpreter against a reference that runs the same control flow in
// Go. The inputs are small integers, so that every sum is exact.
func TestKernelWhileLoops(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, sz := range [][2]int{{37, 300}, {16, 1}, {5, 64}, {40, 97}} {
		M, N := sz[0], sz[1]
		const tm, tn = 16, 32
		X := randTensor(r, ir.F32, -8, 8, M, N)
		S, P, C := runtime.NewTensor(ir.F32, M), runtime.NewTensor(ir.F32, M), runtime.NewTensor(ir.I32, M)
		k := compileKernel(t, "while_loops.tile", nil)
		grid := (M + tm - 1) / tm
		launchKernel(t, k, [3]int{grid, 1, 1}, X, S, P, C)
		nt := (N + tn - 1) / tn
		for i := 0; i < M; i++ {
			var s float64
			for j := 0; j < nt && j < 8; j++ {
				if j%3 == 0 {
					continue
				}
				for c := j * tn; c < min((j+1)*tn, N); c++ {
					s += X.At(i, c)
				}
			}
			if got := S.At(i); got != s {
				t.Fatalf("%dx%d: S[%d] = %v, want %v", M, N, i, got, s)
			}
			p := -1.0
			for k := nt - 1; k >= 0 && k >= nt-4; k-- {
				m := math.Inf(-1)
				for c := k * tn; c < min((k+1)*tn, N); c++ {
					m = max(m, X.At(i, c))
				}
				p = p*0.5 + m
			}
			if got := P.At(i); got != p {
				t.Fatalf("%dx%d: P[%d] = %v, want %v", M, N, i, got, p)
			}
			b := i / tm
			cnt := int64(0)
			for r := 0; r < 4; r++ {
				if r == 2 {
					continue
				}
				for x := b*4 + r + 1; x != 1; cnt++ {
					if x%2 == 0 {
						x /= 2
					} else {
						x = 3*x + 1
					}
				}
			}
			if got := C.AtInt(i); got != cnt {
				t.Fatalf("%dx%d: C[%d] = %v, want %v", M, N, i, got, cnt)
			}
		}
	}
}

// loopKernel compiles and runs a one-block kernel writing an i32 tile of 8
// elements, returning them.
func runLoopKernel(t *testing.T, body string, n int64) []int64 {
	t.Helper()
	src := "import cuda.tile as ct\n\n@ct.kernel(grid=(1,))\ndef k(Y: ct.Array[ct.int32, (8,)], n: int):\n" + body
	k, err := compile.Source("loop.py", []byte(src), compile.Options{})
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	Y := runtime.NewTensor(ir.I32, 8)
	if _, err := Launch(k, []runtime.Arg{Y, n}, runtime.LaunchOptions{}); err != nil {
		t.Fatal(err)
	}
	return Y.Int64s()
}

// Python's semantics of break, continue, else-less loops and the values
// variables keep, against results worked out by hand (and by CPython).
func TestBreakContinueSemantics(t *testing.T) {
	cases := []struct {
		name, body string
		n          int64
		want       int64
	}{
		{"while_count", "    i = 0\n    while i < n:\n        i += 1\n    v = i\n", 5, 5},
		{"while_zero_trips", "    i = 7\n    while i < n:\n        i += 1\n    v = i\n", 3, 7},
		{"while_break", "    i = 0\n    while True:\n        i += 2\n        if i > n:\n            break\n    v = i\n", 5, 6},
		{"while_continue", "    i = 0\n    s = 0\n    while i < n:\n        i += 1\n        if i % 2 == 0:\n            continue\n        s += i\n    v = s\n", 10, 25},
		{"for_break_keeps_value", "    s = 0\n    for i in range(100):\n        if i * i > n:\n            break\n        s = i\n    v = s\n", 50, 7},
		{"for_continue", "    s = 0\n    for i in range(n):\n        if i % 3 == 0:\n            continue\n        s += i\n    v = s\n", 10, 27},
		{"for_break_continue", "    s = 0\n    for i in range(0, n, 2):\n        if i == 4:\n            continue\n        if i >= 10:\n            break\n        s += i\n    v = s\n", 20, 2 + 6 + 8},
		{"for_negative_step_break", "    s = 0\n    for i in range(n, 0, -3):\n        if i < 5:\n            break\n        s += i\n    v = s\n", 14, 14 + 11 + 8 + 5},
		{"runtime_step", "    s = 0\n    st = 1 if n > 0 else -1\n    for i in range(0, n * 3, st):\n        if i == 7:\n            break\n        s += 1\n    v = s\n", 2, 6},
		{"nested_break_inner_only", "    s = 0\n    for i in range(n):\n        j = 0\n        while True:\n            j += 1\n            if j > i:\n                break\n            s += 1\n    v = s\n", 5, 0 + 1 + 2 + 3 + 4},
		{"nested_continue_outer", "    s = 0\n    for i in range(n):\n        if i == 1:\n            continue\n        for j in range(n):\n            if j == 2:\n                break\n            s += 10\n        s += 1\n    v = s\n", 4, 3 * 21},
		{"break_in_else", "    s = 0\n    for i in range(n):\n        if i < 3:\n            s += 1\n        else:\n            break\n    v = s\n", 9, 3},
		{"unconditional_break", "    s = 5\n    for i in range(n):\n        s += i + 1\n        break\n        s = 100\n    v = s\n", 9, 6},
		{"continue_last", "    s = 0\n    for i in range(n):\n        s += i\n        continue\n    v = s\n", 4, 6},
		{"while_false", "    s = 3\n    while False:\n        s = 4\n    v = s\n", 0, 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := runLoopKernel(t, c.body+"    ct.store(Y, index=(0,), tile=ct.full((8,), v, dtype=ct.int32))\n", c.n)
			if got[0] != c.want {
				t.Fatalf("v = %d, want %d", got[0], c.want)
			}
		})
	}
}

// A run-time assert is cuTile's assert_: a failing one is an error of the
// block naming the position and the message.
func TestRuntimeAssertStatement(t *testing.T) {
	body := "    assert n < 3, \"n must be small\"\n    ct.store(Y, index=(0,), tile=ct.full((8,), n, dtype=ct.int32))\n"
	if got := runLoopKernel(t, body, 2); got[0] != 2 {
		t.Fatalf("got %v", got)
	}
	src := "import cuda.tile as ct\n\n@ct.kernel(grid=(1,))\ndef k(Y: ct.Array[ct.int32, (8,)], n: int):\n" + body
	k, err := compile.Source("loop.py", []byte(src), compile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Launch(k, []runtime.Arg{runtime.NewTensor(ir.I32, 8), int64(5)}, runtime.LaunchOptions{})
	if err == nil || !strings.Contains(err.Error(), "loop.py:5:5") || !strings.Contains(err.Error(), "n must be small") {
		t.Fatalf("err = %v, want the assert's position and message", err)
	}
}

// mma in a while loop and in a for loop with a break
// (testdata/kernels/while_mma.tile), on small integers (exact products and
// sums) against a float64 reference.
func TestKernelWhileMMA(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	const M, N, K, tm, tn, tk = 70, 100, 90, 64, 64, 32
	A := randTensor(r, ir.F16, -3, 3, M, K)
	B := randTensor(r, ir.F16, -3, 3, K, N)
	C := runtime.NewTensor(ir.F32, M, N)
	k := compileKernel(t, "while_mma.tile", nil)
	launchKernel(t, k, [3]int{(M + tm - 1) / tm, (N + tn - 1) / tn, 1}, A, B, C)
	for i := 0; i < M; i++ {
		for j := 0; j < N; j++ {
			var want float64
			for l := 0; l < K; l++ {
				want += A.At(i, l) * B.At(l, j)
				if l < 2*tk {
					want += A.At(i, l) * B.At(l, j)
				}
			}
			if got := C.At(i, j); got != want {
				t.Fatalf("C[%d,%d] = %v, want %v", i, j, got, want)
			}
		}
	}
}

// while loops on rank-0 tile conditions (testdata/kernels/while_tile_cond.tile:
// a bool one from a comparison of a sum, an int one with a break) on the
// interpreter, against a reference that runs the loops on float64 values.
// The inputs are small integers, so every halving, step and sum is exact.
func TestKernelWhileTileCondition(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	const tn, limit = 32, 10.0
	for _, n := range []int{100, 32, 5, 1} {
		X := randTensor(r, ir.F32, -8, 8, n)
		nb := (n + tn - 1) / tn
		Y, H, S := runtime.NewTensor(ir.F32, n), runtime.NewTensor(ir.I32, nb), runtime.NewTensor(ir.I32, nb)
		k := compileKernel(t, "while_tile_cond.tile", map[string]string{"tn": "32", "limit": "10.0"})
		launchKernel(t, k, [3]int{nb, 1, 1}, X, Y, H, S)
		for b := 0; b < nb; b++ {
			lo, hi := b*tn, min((b+1)*tn, n)
			x := make([]float64, hi-lo)
			for i := range x {
				x[i] = X.At(lo + i)
			}
			l1 := func() float64 {
				s := 0.0
				for _, v := range x {
					s += math.Abs(v)
				}
				return s
			}
			halvings := int64(0)
			for l1() > limit {
				for i := range x {
					x[i] *= 0.5
				}
				halvings++
			}
			steps := int64(0)
			for {
				above := 0
				for _, v := range x {
					if v > 0.25 {
						above++
					}
				}
				if above == 0 {
					break
				}
				for i, v := range x {
					if v > 0.25 {
						x[i] = v - 0.25
					}
				}
				steps++
				if steps >= 3 {
					break
				}
			}
			if got := H.AtInt(b); got != halvings {
				t.Errorf("n=%d block %d: %d halvings, want %d", n, b, got, halvings)
			}
			if got := S.AtInt(b); got != steps {
				t.Errorf("n=%d block %d: %d steps, want %d", n, b, got, steps)
			}
			for i, v := range x {
				if got := Y.At(lo + i); got != v {
					t.Fatalf("n=%d: Y[%d] = %v, want %v", n, lo+i, got, v)
				}
			}
		}
		if H.AtInt(0) == 0 && n >= 32 {
			t.Errorf("n=%d: the first loop never ran: the test checks nothing", n)
		}
	}
}

// ct.static_iter loops (testdata/kernels/static_iter.tile: a tuple of rows
// grown item by item, enumerate with a start, zip of coefficients of mixed
// types inside a run-time loop) on the interpreter, against a reference
// that runs the same arithmetic on float64. The inputs are small integers
// and the coefficients 2, 0.5 and 1, so every value is exact in float32.
func TestKernelStaticIter(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	const tn = 32
	for _, c := range []struct{ R, N int }{{3, 100}, {4, 32}, {2, 5}, {1, 1}} {
		X := randTensor(r, ir.F32, -4, 4, c.R, c.N)
		S, Y := runtime.NewTensor(ir.F32, c.N), runtime.NewTensor(ir.F32, c.R, c.N)
		k := compileKernel(t, "static_iter.tile", map[string]string{"R": strconv.Itoa(c.R), "tn": strconv.Itoa(tn)})
		launchKernel(t, k, [3]int{(c.N + tn - 1) / tn, 1, 1}, X, S, Y)
		coef := []float64{2, 0.5, 1}
		for j := 0; j < c.N; j++ {
			s := 0.0
			for i := 0; i < c.R; i++ {
				s += float64(i+1) * X.At(i, j)
			}
			if got := S.At(j); got != s {
				t.Fatalf("R=%d N=%d: S[%d] = %v, want %v", c.R, c.N, j, got, s)
			}
			y := 0.0
			for range 2 {
				for i := 0; i < min(len(coef), c.R); i++ {
					y = y*coef[i] + X.At(i, j)
				}
			}
			for i := 0; i < c.R; i++ {
				if got, want := Y.At(i, j), y+X.At(i, j); got != want {
					t.Fatalf("R=%d N=%d: Y[%d,%d] = %v, want %v", c.R, c.N, i, j, got, want)
				}
			}
		}
	}
}

// if statements and conditional expressions on rank-0 tile conditions
// (testdata/kernels/if_tile_cond.tile: a bool one with an else, an int one
// with an elif, selects of tiles and of scalars) on the interpreter,
// against a reference that takes the same branches on float64 values of
// the block's padded tile. The inputs are small integers, so every sum,
// doubling and comparison is exact; their ranges make blocks take each
// branch.
func TestKernelIfTileCondition(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	const tn = 32
	seen := map[int64]bool{}
	for _, c := range []struct{ n, lo, hi int }{{200, -4, 4}, {32, -3, 1}, {7, 0, 0}, {40, 1, 3}, {1, -4, 4}} {
		n := c.n
		X := randTensor(r, ir.F32, c.lo, c.hi, n)
		nb := (n + tn - 1) / tn
		Y, F := runtime.NewTensor(ir.F32, n), runtime.NewTensor(ir.I32, nb)
		k := compileKernel(t, "if_tile_cond.tile", map[string]string{"tn": strconv.Itoa(tn)})
		launchKernel(t, k, [3]int{nb, 1, 1}, X, Y, F)
		for b := 0; b < nb; b++ {
			x := make([]float64, tn) // zero-padded, as the kernel loads it
			for i := range x {
				if j := b*tn + i; j < n {
					x[i] = X.At(j)
				}
			}
			sum, above := 0.0, 0
			for _, v := range x {
				sum += v
			}
			for i := range x {
				if sum > 0 {
					x[i] *= 2
				} else {
					x[i] = -x[i]
				}
				if x[i] > 4 {
					above++
				}
			}
			lo, hi := slices.Min(x), slices.Max(x)
			f := int64(3)
			switch {
			case above != 0:
				f = 1
			case hi < 1:
				f = 2
			}
			g := int64(20)
			if hi > 3 {
				g = 10
			}
			if got := F.AtInt(b); got != f+g {
				t.Errorf("n=%d block %d: flags %d, want %d", n, b, got, f+g)
			}
			seen[f+g] = true
			for i := 0; i < tn && b*tn+i < n; i++ {
				want := x[i] - 1
				if lo < 0 {
					want = x[i] + 1
				}
				if got := Y.At(b*tn + i); got != want {
					t.Fatalf("n=%d: Y[%d] = %v, want %v", n, b*tn+i, got, want)
				}
			}
		}
	}
	// f+g: f=1 means an element above 4, so g=10 (11); f=2 means max < 1,
	// so g=20 (22); f=3 takes either (13, 23). The ranges above reach all
	// four.
	if len(seen) < 4 {
		t.Errorf("the blocks reached only the flags %v: the test checks too little", seen)
	}
}
