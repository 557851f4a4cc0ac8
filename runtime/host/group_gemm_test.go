package host

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/runtime"
)

// examples/cutile/group_gemm.py through its host function, given lists of
// tensors (host code's lists are tuples) of unequal, odd shapes, B as
// (K, N) and as (N, K): each C_g against its float64 product, within f16's
// rounding of the output.
func TestGroupGEMMEntry(t *testing.T) {
	p := loadExample(t, "group_gemm.py")
	rng := rand.New(rand.NewPCG(3, 4))
	sizes := [][3]int{{70, 40, 33}, {16, 100, 64}, {130, 9, 5}}
	for _, nk := range []bool{false, true} {
		var As, Bs Tuple
		for _, s := range sizes {
			As = append(As, runtime.RandNormal(rng, ir.F16, s[0], s[1]))
			if nk {
				Bs = append(Bs, runtime.RandNormal(rng, ir.F16, s[2], s[1]))
			} else {
				Bs = append(Bs, runtime.RandNormal(rng, ir.F16, s[1], s[2]))
			}
		}
		res, err := p.Run("group_gemm", map[string]any{"As": As, "Bs": Bs, "b_is_nk": nk, "num_sms": int64(5)}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		Cs, ok := res.(Tuple)
		if !ok || len(Cs) != len(sizes) {
			t.Fatalf("got %T of %d, want %d tensors", res, len(Cs), len(sizes))
		}
		for g, s := range sizes {
			A, B, C := As[g].(*runtime.Tensor), Bs[g].(*runtime.Tensor), Cs[g].(*runtime.Tensor)
			for i := range s[0] {
				for j := range s[2] {
					want := 0.0
					for k := range s[1] {
						if nk {
							want += A.At(i, k) * B.At(j, k)
						} else {
							want += A.At(i, k) * B.At(k, j)
						}
					}
					if got := C.At(i, j); !(math.Abs(got-want) <= 1e-3+1e-3*math.Abs(want)) {
						t.Fatalf("b_is_nk=%v: C%d[%d,%d] = %g, want %g", nk, g, i, j, got, want)
					}
				}
			}
		}
	}
}

// TestGroupGEMMScript: the __main__ block checks both layouts with
// assert_close; the kernel also lowers to sm_80.
func TestGroupGEMMScript(t *testing.T) {
	runCheckingScript(t, filepath.Join("..", "..", "examples", "cutile", "group_gemm.py"))
}

// A list argument follows cuTile's launch rules, positioned at the launch.
func TestListArgumentErrors(t *testing.T) {
	src := `import cuda.tile as ct
import torch

@ct.kernel
def k(Xs, Y):
    ct.store(Y, (0,), tile=ct.load(Xs[0], (0,), shape=(4,)))

def run(a, b):
    y = torch.empty((4,), dtype=torch.float32)
    ct.launch(torch.cuda.current_stream(), (1,), k, ([a, b], y))
    return y
`
	p := load(t, "k.py", []byte(src))
	for _, c := range []struct {
		a, b any
		want string
	}{
		{runtime.NewTensor(ir.F32, 4), runtime.NewTensor(ir.F16, 4), "k.py:10:53: ct.launch: argument 1 of k (Xs): arrays in list vary in data type (item #0 is f32, item #1 f16)"},
		{runtime.NewTensor(ir.F32, 4), runtime.NewTensor(ir.F32, 4, 2), "arrays in list vary in rank (item #0 has rank 1, item #1 rank 2)"},
		{runtime.NewTensor(ir.F32, 4), int64(3), "list item #1 is int 3; a list argument holds arrays (tensors)"},
	} {
		_, err := p.Run("run", map[string]any{"a": c.a, "b": c.b}, Options{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
}
