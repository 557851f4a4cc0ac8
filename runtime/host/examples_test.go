package host

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/lang"
	"github.com/tilec/tilec/ptxgen"
	"github.com/tilec/tilec/runtime"
	"github.com/tilec/tilec/runtime/compile"
	"github.com/tilec/tilec/runtime/interp"
)

// The plain-cuTile examples (examples/cutile/*.py): each host function runs
// as written on the interpreter, at sizes that are not multiples of the
// tiles, and every result is checked against a float64 reference written
// here independently of the kernels.

type exampleCase struct {
	file, entry string
	inputs      []exampleInput
	scalars     map[string]any
	// ref returns the expected results (one slice per returned tensor, in
	// order) from the inputs.
	ref  func(in map[string]*runtime.Tensor) [][]float64
	atol float64
	rtol float64
	// device is what the host sees as the GPU (nil: the interpreter's
	// own, capability 8.0): a Hopper one takes a host's sm_90 paths.
	device *Device
}

// hopper is an H100 as host code sees it.
var hopper = &Device{Name: "NVIDIA H100 80GB HBM3", Major: 9, Minor: 0, SMs: 132}

type exampleInput struct {
	name  string
	dt    ir.DType
	shape []int
}

func in(name string, dt ir.DType, shape ...int) exampleInput { return exampleInput{name, dt, shape} }

func matmulRef(A, B *runtime.Tensor, batch int) []float64 {
	r := len(A.Shape)
	M, K, N := A.Shape[r-2], A.Shape[r-1], B.Shape[r-1]
	out := make([]float64, 0, batch*M*N)
	for b := range batch {
		for i := range M {
			for j := range N {
				s := 0.0
				for k := range K {
					if r == 3 {
						s += A.At(b, i, k) * B.At(b, k, j)
					} else {
						s += A.At(i, k) * B.At(k, j)
					}
				}
				out = append(out, s)
			}
		}
	}
	return out
}

// rows applies f to each row of X (M, N) and concatenates the results.
func rows(X *runtime.Tensor, f func(i int, x []float64) []float64) []float64 {
	var out []float64
	for i := range X.Shape[0] {
		x := make([]float64, X.Shape[1])
		for j := range x {
			x[j] = X.At(i, j)
		}
		out = append(out, f(i, x)...)
	}
	return out
}

func meanVar(x []float64) (float64, float64) {
	m := 0.0
	for _, v := range x {
		m += v
	}
	m /= float64(len(x))
	v := 0.0
	for _, e := range x {
		v += (e - m) * (e - m)
	}
	return m, v / float64(len(x))
}

func silu(g float64) float64 { return g / (1 + math.Exp(-g)) }

func vec(t *runtime.Tensor) []float64 { return t.Float64s() }

var exampleCases = []exampleCase{
	{file: "vector_add.py", entry: "vector_add", inputs: []exampleInput{in("a", ir.F32, 3001), in("b", ir.F32, 3001)},
		ref: func(t map[string]*runtime.Tensor) [][]float64 {
			a, b := vec(t["a"]), vec(t["b"])
			out := make([]float64, len(a))
			for i := range a {
				out[i] = a[i] + b[i]
			}
			return [][]float64{out}
		}, atol: 1e-6, rtol: 1e-6},
	{file: "matmul.py", entry: "matmul", inputs: []exampleInput{in("A", ir.F16, 130, 70), in("B", ir.F16, 70, 100)},
		ref:  func(t map[string]*runtime.Tensor) [][]float64 { return [][]float64{matmulRef(t["A"], t["B"], 1)} },
		atol: 1e-2, rtol: 2e-3},
	// matmul.py's Hopper paths: a few tokens (C^T = B^T A^T, 16 and 32 a
	// tile) and tiles chosen by shape (64x32 for 40 rows).
	{file: "matmul.py", entry: "matmul", inputs: []exampleInput{in("A", ir.F16, 13, 70), in("B", ir.F16, 70, 150)}, device: hopper,
		ref:  func(t map[string]*runtime.Tensor) [][]float64 { return [][]float64{matmulRef(t["A"], t["B"], 1)} },
		atol: 1e-2, rtol: 2e-3},
	{file: "matmul.py", entry: "matmul", inputs: []exampleInput{in("A", ir.BF16, 27, 130), in("B", ir.BF16, 130, 70)}, device: hopper,
		ref:  func(t map[string]*runtime.Tensor) [][]float64 { return [][]float64{matmulRef(t["A"], t["B"], 1)} },
		atol: 5e-2, rtol: 1e-2},
	{file: "matmul.py", entry: "matmul", inputs: []exampleInput{in("A", ir.F16, 40, 70), in("B", ir.F16, 70, 100)}, device: hopper,
		ref:  func(t map[string]*runtime.Tensor) [][]float64 { return [][]float64{matmulRef(t["A"], t["B"], 1)} },
		atol: 1e-2, rtol: 2e-3},
	{file: "matmul.py", entry: "matmul", inputs: []exampleInput{in("A", ir.F32, 67, 45), in("B", ir.F32, 45, 70)},
		ref:  func(t map[string]*runtime.Tensor) [][]float64 { return [][]float64{matmulRef(t["A"], t["B"], 1)} },
		atol: 5e-2, rtol: 5e-3}, // tfloat32 inputs: 10-bit mantissas
	{file: "persistent_matmul.py", entry: "persistent_matmul", inputs: []exampleInput{in("A", ir.F16, 130, 70), in("B", ir.F16, 70, 200)},
		scalars: map[string]any{"num_sms": int64(5)},
		ref:     func(t map[string]*runtime.Tensor) [][]float64 { return [][]float64{matmulRef(t["A"], t["B"], 1)} },
		atol:    1e-2, rtol: 2e-3},
	{file: "batched_matmul.py", entry: "bmm", inputs: []exampleInput{in("A", ir.F16, 3, 70, 50), in("B", ir.F16, 3, 50, 90)},
		ref:  func(t map[string]*runtime.Tensor) [][]float64 { return [][]float64{matmulRef(t["A"], t["B"], 3)} },
		atol: 1e-2, rtol: 2e-3},
	{file: "transpose.py", entry: "transpose", inputs: []exampleInput{in("X", ir.F32, 70, 130)},
		ref: func(t map[string]*runtime.Tensor) [][]float64 {
			X := t["X"]
			var out []float64
			for j := range X.Shape[1] {
				for i := range X.Shape[0] {
					out = append(out, X.At(i, j))
				}
			}
			return [][]float64{out}
		}},
	{file: "layernorm_bwd.py", entry: "layernorm_backward",
		inputs: []exampleInput{in("X", ir.F32, 37, 300), in("W", ir.F32, 300), in("DY", ir.F32, 37, 300), in("Mean", ir.F32, 37), in("Rstd", ir.F32, 37)},
		ref: func(t map[string]*runtime.Tensor) [][]float64 {
			w, dyAll := vec(t["W"]), t["DY"]
			mean, rstd := vec(t["Mean"]), vec(t["Rstd"])
			N := len(w)
			dw, db := make([]float64, N), make([]float64, N)
			dx := rows(t["X"], func(i int, x []float64) []float64 {
				xhat, g := make([]float64, N), make([]float64, N)
				c1, c2 := 0.0, 0.0
				for j := range x {
					dy := dyAll.At(i, j)
					xhat[j] = (x[j] - mean[i]) * rstd[i]
					g[j] = dy * w[j]
					c1 += g[j] * xhat[j]
					c2 += g[j]
					dw[j] += dy * xhat[j]
					db[j] += dy
				}
				out := make([]float64, N)
				for j := range out {
					out[j] = (g[j] - c2/float64(N) - xhat[j]*c1/float64(N)) * rstd[i]
				}
				return out
			})
			return [][]float64{dx, dw, db}
		}, atol: 1e-3, rtol: 1e-4},
	{file: "rope.py", entry: "rope", inputs: []exampleInput{in("X", ir.F32, 37, 128), in("Cos", ir.F32, 37, 64), in("Sin", ir.F32, 37, 64)},
		ref: func(t map[string]*runtime.Tensor) [][]float64 {
			c, s := t["Cos"], t["Sin"]
			return [][]float64{rows(t["X"], func(i int, x []float64) []float64 {
				h := len(x) / 2
				out := make([]float64, len(x))
				for j := range h {
					out[j] = x[j]*c.At(i, j) - x[j+h]*s.At(i, j)
					out[j+h] = x[j+h]*c.At(i, j) + x[j]*s.At(i, j)
				}
				return out
			})}
		}, atol: 1e-5, rtol: 1e-5},
	{file: "silu_and_mul.py", entry: "silu_and_mul", inputs: []exampleInput{in("X", ir.F32, 37, 192)},
		ref: func(t map[string]*runtime.Tensor) [][]float64 {
			return [][]float64{rows(t["X"], func(_ int, x []float64) []float64 {
				n := len(x) / 2
				out := make([]float64, n)
				for j := range out {
					out[j] = silu(x[j]) * x[j+n]
				}
				return out
			})}
		}, atol: 1e-5, rtol: 1e-5},
	{file: "swiglu.py", entry: "swiglu", inputs: []exampleInput{in("G", ir.F32, 37, 300), in("U", ir.F32, 37, 300)},
		ref: func(t map[string]*runtime.Tensor) [][]float64 {
			g, u := vec(t["G"]), vec(t["U"])
			out := make([]float64, len(g))
			for i := range g {
				out[i] = silu(g[i]) * u[i]
			}
			return [][]float64{out}
		}, atol: 1e-5, rtol: 1e-5},
	{file: "row_sum.py", entry: "row_sum", inputs: []exampleInput{in("X", ir.F32, 37, 300)},
		ref: func(t map[string]*runtime.Tensor) [][]float64 {
			return [][]float64{rows(t["X"], func(_ int, x []float64) []float64 {
				s := 0.0
				for _, v := range x {
					s += v
				}
				return []float64{s}
			})}
		}, atol: 1e-4, rtol: 1e-5},
	{file: "bias_gelu.py", entry: "bias_gelu", inputs: []exampleInput{in("X", ir.F32, 37, 300), in("Bias", ir.F32, 300)},
		ref: func(t map[string]*runtime.Tensor) [][]float64 {
			b := vec(t["Bias"])
			return [][]float64{rows(t["X"], func(_ int, x []float64) []float64 {
				out := make([]float64, len(x))
				for j := range x {
					v := x[j] + b[j]
					out[j] = 0.5 * v * (1 + math.Tanh(math.Sqrt(2/math.Pi)*(v+0.044715*v*v*v)))
				}
				return out
			})}
		}, atol: 1e-5, rtol: 1e-5},
}

func TestCuTileExamples(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "examples", "cutile", "*.py"))
	covered := map[string]bool{"group_gemm.py": true} // lists of tensors: group_gemm_test.go
	for _, c := range exampleCases {
		covered[c.file] = true
	}
	for _, f := range files {
		if !covered[filepath.Base(f)] {
			t.Errorf("%s has no case in exampleCases", f)
		}
	}
	for i, c := range exampleCases {
		t.Run(fmt.Sprintf("%s_%d", c.entry, i), func(t *testing.T) {
			p := loadExample(t, c.file)
			rng := rand.New(rand.NewPCG(7, uint64(i)))
			args := map[string]any{}
			tensors := map[string]*runtime.Tensor{}
			for _, x := range c.inputs {
				tensors[x.name] = runtime.RandNormal(rng, x.dt, x.shape...)
				args[x.name] = tensors[x.name]
			}
			if c.file == "layernorm_bwd.py" { // a positive Rstd, as the forward makes
				r := tensors["Rstd"]
				for j := range r.Shape[0] {
					r.Set(1+0.1*math.Abs(r.At(j)), j)
				}
			}
			for k, v := range c.scalars {
				args[k] = v
			}
			res, err := p.Run(c.entry, args, Options{Device: c.device})
			if err != nil {
				t.Fatal(err)
			}
			got := []*runtime.Tensor{}
			switch r := res.(type) {
			case *runtime.Tensor:
				got = append(got, r)
			case Tuple:
				for _, x := range r {
					got = append(got, x.(*runtime.Tensor))
				}
			}
			want := c.ref(tensors)
			if len(got) != len(want) {
				t.Fatalf("%d results, want %d", len(got), len(want))
			}
			for k := range want {
				g := got[k].Float64s()
				if len(g) != len(want[k]) {
					t.Fatalf("result %d: %d elements, want %d", k, len(g), len(want[k]))
				}
				for e := range g {
					if d := math.Abs(g[e] - want[k][e]); !(d <= c.atol+c.rtol*math.Abs(want[k][e])) {
						t.Fatalf("result %d element %d: got %g, want %g", k, e, g[e], want[k][e])
					}
				}
			}
		})
	}
}

// TestCuTileExamplesCompileSM80 lowers every kernel each example launches,
// specialized on the launch's arguments, to sm_80 PTX.
func TestCuTileExamplesCompileSM80(t *testing.T) {
	for i, c := range exampleCases {
		err := eachLaunch(t, i, c, func(l *Launch) error {
			k, err := l.Kernel.Specialize(l.Args)
			if err != nil {
				return err
			}
			if _, err := compile.PTX(k.Func, "sm_80"); err != nil {
				t.Errorf("%s: %s: %v", c.file, l.Name, err)
			}
			// The next launch may read this one's output: fill it.
			_, err = interp.CPU{}.Launch(k, l.Args, runtime.LaunchOptions{Grid: l.Grid})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// loadExample parses and loads the host program of examples/cutile/file.
func loadExample(t *testing.T, file string) *Program {
	t.Helper()
	path := filepath.Join("..", "..", "examples", "cutile", file)
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := lang.Parse(path, src)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Load(f)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestAttentionHostSM80: the mma.sync kernel of examples/cutile/attention.py
// as its host function launches it off Hopper (4 warps of 32 query rows):
// the mask is an if whose skipping branch copies nothing (its result lives
// in the registers of the scores it passes through), so it is one branch
// past the masking arm to the if's end, with no else; exp2 is one
// ex2.approx.ftz, and acc * alpha is skipped by a warp whose alphas are
// all 1.
func TestAttentionHostSM80(t *testing.T) {
	eachAttentionKernel(t, "sm_80", func(i int, c exampleCase, l *Launch, pk *ptxgen.Kernel) {
		if pk.Block != [3]int{128, 1, 1} {
			t.Errorf("case %d: block %v, want 4 warps", i, pk.Block)
		}
		for _, re := range []string{`@!%p\d+ bra\.uni \$L_endif_\d+;`, `ex2\.approx\.ftz\.f32`, `vote\.sync\.all\.pred`} {
			if !regexp.MustCompile(re).MatchString(pk.PTX) {
				t.Errorf("case %d (%s): no %s", i, strings.Join(l.Consts, " "), re)
			}
		}
	})
}

// TestAttentionHostSM90a: the kernel that examples/cutile/attention.py's
// host function launches, specialized on the launch's (B, H, S, D) arrays
// and constants (tq = 64 or 128), lowers for sm_90a to the warp-specialized
// wgmma kernel (persistent, TMA copies of 4-D maps), causal or not, at D =
// 64 and 128; its general variant stays on mma.sync.
func TestAttentionHostSM90a(t *testing.T) {
	eachAttentionKernel(t, "sm_90a", func(i int, c exampleCase, l *Launch, pk *ptxgen.Kernel) {
		if !pk.Persistent || !strings.Contains(pk.PTX, "cp.async.bulk.tensor.4d") || !strings.Contains(pk.PTX, "wgmma.mma_async") {
			t.Errorf("case %d (%s, %v): the sm_90a kernel is not the warp-specialized wgmma one (persistent %v)", i, strings.Join(l.Consts, " "), c.scalars, pk.Persistent)
		}
		if pk.General == nil || strings.Contains(pk.General.PTX, "wgmma") {
			t.Errorf("case %d: no mma.sync general variant", i)
		}
	})
}

// eachAttentionKernel compiles for target the kernel of every launch of
// attention.py's host function in exampleCases (the host's own tiles) and
// hands it to check.
func eachAttentionKernel(t *testing.T, target string, check func(i int, c exampleCase, l *Launch, pk *ptxgen.Kernel)) {
	t.Helper()
	n := 0
	for i, c := range exampleCases {
		if c.file != "attention.py" || c.entry != "attention" || c.scalars["tq"] != nil {
			continue
		}
		n++
		err := eachLaunch(t, i, c, func(l *Launch) error {
			k, err := l.Kernel.Specialize(l.Args)
			if err != nil {
				return err
			}
			pk, err := compile.PTX(k.Func, target)
			if err != nil {
				return err
			}
			check(i, c, l, pk)
			return nil
		})
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
	}
	if n < 8 {
		t.Errorf("%d attention cases, want at least 8", n)
	}
}

// eachLaunch runs case i's host function on seeded random inputs with
// launch called in place of each of its launches.
func eachLaunch(t *testing.T, i int, c exampleCase, launch func(*Launch) error) error {
	p := loadExample(t, c.file)
	rng := rand.New(rand.NewPCG(7, uint64(i)))
	args := map[string]any{}
	for _, x := range c.inputs {
		args[x.name] = runtime.RandNormal(rng, x.dt, x.shape...)
	}
	for k, v := range c.scalars {
		args[k] = v
	}
	// Strict: examples/cutile is plain cuTile 1.6 (ir/build/strict.go).
	_, err := p.Run(c.entry, args, Options{Launch: launch, Strict: true})
	return err
}
