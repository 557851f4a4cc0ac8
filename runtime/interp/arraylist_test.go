package interp

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/runtime"
	"github.com/tilec/tilec/runtime/compile"
)

// groupedSrc is TileGym's grouped GEMM pattern: lists As, Bs, Cs, len(As)
// as a loop bound, As[g] at the loop's run-time index, each element's
// extents read where they are used.
const groupedSrc = `
@ct.kernel
def grouped(As, Bs, Cs, nb: ct.Constant[int]):
    t = ct.bid(0)
    first = 0
    for g in range(len(As)):
        A = As[g]
        B = Bs[g]
        C = Cs[g]
        tn = ct.num_tiles(B, 1, (16, 16))
        last = first + ct.num_tiles(A, 0, (16, 16)) * tn
        while t < last:
            acc = ct.zeros((16, 16), dtype=ct.float32)
            for k in range(ct.num_tiles(A, 1, (16, 16))):
                a = ct.load(A, ((t - first) // tn, k), shape=(16, 16), padding_mode=ct.PaddingMode.ZERO)
                b = ct.load(B, (k, (t - first) % tn), shape=(16, 16), padding_mode=ct.PaddingMode.ZERO)
                acc = ct.mma(a, b, acc)
            ct.store(C, ((t - first) // tn, (t - first) % tn), tile=acc.astype(C.dtype))
            t += nb
        first = last
`

// The grouped GEMM on lists of three problems of different shapes, each
// C_g against its float64 product.
func TestListOfArraysGroupedGEMM(t *testing.T) {
	k, err := compile.Source("k.py", []byte("import cuda.tile as ct\n"+groupedSrc), compile.Options{Consts: map[string]string{"nb": "3"}})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	sizes := [][3]int{{40, 20, 33}, {16, 48, 16}, {70, 5, 21}}
	var As, Bs, Cs []*runtime.Tensor
	for _, s := range sizes {
		As = append(As, runtime.RandNormal(rng, ir.F16, s[0], s[1]))
		Bs = append(Bs, runtime.RandNormal(rng, ir.F16, s[1], s[2]))
		Cs = append(Cs, runtime.NewTensor(ir.F32, s[0], s[2]))
	}
	// Cs of another dtype than As: each list has its own element type.
	if _, err := Launch(k, []runtime.Arg{As, Bs, Cs}, runtime.LaunchOptions{Grid: [3]int{3, 1, 1}}); err != nil {
		t.Fatal(err)
	}
	for g := range sizes {
		checkClose(t, "C"+string(rune('0'+g)), Cs[g].Float64s(), refMatmul(As[g], Bs[g]), 1e-6)
	}
	// One build serves lists of any length and element shapes.
	k1, err := k.Specialize([]runtime.Arg{As[:1], Bs[:1], Cs[:1]})
	if err != nil {
		t.Fatal(err)
	}
	k3, _ := k.Specialize([]runtime.Arg{As, Bs, Cs})
	if k1 != k3 {
		t.Errorf("lists of length 1 and 3 built two kernels")
	}
}

// list_get's index may be a compile-time int, a scalar or a rank-0 tile
// (cuTile's scalars); an index out of range stops the block, naming the list.
func TestListOfArraysIndexForms(t *testing.T) {
	src := `
@ct.kernel
def k(Xs, Y):
    a = ct.load(Xs[0], (0,), shape=(4,))
    i = ct.load(Y, (0,), shape=(1,)).astype(ct.int32).item()
    b = ct.load(Xs[i], (0,), shape=(4,))
    n = len(Xs)
    c = ct.load(Xs[n - 1], (0,), shape=(4,))
    m, = Xs[i].shape
    ct.store(Y, (0,), tile=a + b + c + ct.full((4,), len(Xs) + 10 * m + 1000 * Xs[i].strides[0], dtype=ct.float32))
`
	x0 := runtime.FromFloat64(ir.F32, []int{4}, []float64{1, 2, 3, 4})
	x1 := runtime.FromFloat64(ir.F32, []int{6}, []float64{10, 20, 30, 40, 50, 60})
	x2 := runtime.FromFloat64(ir.F32, []int{4}, []float64{100, 200, 300, 400})
	y := runtime.FromFloat64(ir.F32, []int{4}, []float64{1, 0, 0, 0})
	runSrc(t, src, []*runtime.Tensor{x0, x1, x2}, y)
	// a = x0, b = x1 (Y[0] = 1), c = x2, plus len 3, x1's extent 6 and stride 1.
	checkClose(t, "Y", y.Float64s(), []float64{1174, 1285, 1396, 1507}, 0)

	k, err := compile.Source("k.py", []byte("import cuda.tile as ct\n"+strings.TrimLeft(src, "\n")), compile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	y = runtime.FromFloat64(ir.F32, []int{4}, []float64{5, 0, 0, 0})
	_, err = Launch(k, []runtime.Arg{[]*runtime.Tensor{x0, x1, x2}, y}, runtime.LaunchOptions{Grid: [3]int{1, 1, 1}})
	if err == nil || !strings.Contains(err.Error(), "list index 5 is out of range: Xs has 3 arrays") || !strings.Contains(err.Error(), "k.py:6:") {
		t.Errorf("index 5 of 3: %v", err)
	}
}

// The launch checks a list as cuTile does: not empty, one dtype, one rank.
func TestListOfArraysLaunchErrors(t *testing.T) {
	k, err := compile.Source("k.py", []byte("import cuda.tile as ct\n"+groupedSrc), compile.Options{Consts: map[string]string{"nb": "1"}})
	if err != nil {
		t.Fatal(err)
	}
	a := runtime.NewTensor(ir.F16, 16, 16)
	for _, c := range []struct {
		args []runtime.Arg
		want string
	}{
		{[]runtime.Arg{[]*runtime.Tensor{}, []*runtime.Tensor{a}, []*runtime.Tensor{a}}, "argument As: empty lists are not supported"},
		{[]runtime.Arg{[]*runtime.Tensor{a, runtime.NewTensor(ir.F32, 16, 16)}, []*runtime.Tensor{a}, []*runtime.Tensor{a}}, "argument As: arrays in list vary in data type (item #0 is f16, item #1 f32)"},
		{[]runtime.Arg{[]*runtime.Tensor{a, runtime.NewTensor(ir.F16, 16)}, []*runtime.Tensor{a}, []*runtime.Tensor{a}}, "argument As: arrays in list vary in rank (item #0 has rank 2, item #1 rank 1)"},
		{[]runtime.Arg{a, []*runtime.Tensor{a}, []*runtime.Tensor{a}}, ""},
	} {
		_, err := Launch(k, c.args, runtime.LaunchOptions{Grid: [3]int{1, 1, 1}})
		if c.want == "" {
			// A plain array for As builds a kernel that cannot index it.
			if err == nil || !strings.Contains(err.Error(), "array As cannot be indexed") {
				t.Errorf("an array for a list: %v", err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
	// A kernel built for one list signature refuses another.
	f := k.Func
	if f == nil {
		s, _ := k.Specialize([]runtime.Arg{[]*runtime.Tensor{a}, []*runtime.Tensor{a}, []*runtime.Tensor{a}})
		f = s.Func
	}
	_, err = Launch(runtime.NewKernel(f), []runtime.Arg{[]*runtime.Tensor{runtime.NewTensor(ir.F32, 16, 16)}, []*runtime.Tensor{a}, []*runtime.Tensor{a}}, runtime.LaunchOptions{Grid: [3]int{1, 1, 1}})
	if err == nil || !strings.Contains(err.Error(), "item #0 is f32, the kernel was built for f16") {
		t.Errorf("f32 list for an f16 kernel: %v", err)
	}
}
