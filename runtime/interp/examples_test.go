package interp

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/ir/build"
	"github.com/tilec/tilec/lang"
	"github.com/tilec/tilec/runtime"
	"github.com/tilec/tilec/runtime/internal/irtest"
)

// compileExample builds kernel name of examples/<file>.tile with the -D
// constants consts.
func compileExample(t testing.TB, file, name string, consts map[string]string) *runtime.Kernel {
	t.Helper()
	path := filepath.Join("..", "..", "testdata", "kernels", file+".tile")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := lang.Parse(path, src)
	if err != nil {
		t.Fatal(err)
	}
	m, err := build.File(f, build.Options{Kernel: name, Consts: consts})
	if err != nil {
		t.Fatal(err)
	}
	fn := m.Func(name)
	if fn == nil {
		t.Fatalf("%s: no kernel %s", path, name)
	}
	if err := ir.Verify(fn); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return runtime.NewKernel(fn)
}

func runExample(t *testing.T, k *runtime.Kernel, args ...runtime.Arg) {
	t.Helper()
	if _, err := Launch(k, args, runtime.LaunchOptions{}); err != nil {
		t.Fatal(err)
	}
}

func poisoned(d ir.DType, shape ...int) *runtime.Tensor {
	t := runtime.NewTensor(d, shape...)
	t.Fill(math.NaN())
	return t
}

// --- float64 references, written independently of the interpreter ---

func refMatmulBT(A, B *runtime.Tensor) []float64 { // A (M,K), B (N,K)
	M, K, N := A.Shape[0], A.Shape[1], B.Shape[0]
	out := make([]float64, M*N)
	for i := 0; i < M; i++ {
		for j := 0; j < N; j++ {
			s := 0.0
			for k := 0; k < K; k++ {
				s += A.At(i, k) * B.At(j, k)
			}
			out[i*N+j] = s
		}
	}
	return out
}

func refSoftmaxRows(x []float64, M, N int) []float64 {
	out := make([]float64, M*N)
	for i := 0; i < M; i++ {
		row := x[i*N : (i+1)*N]
		m := math.Inf(-1)
		for _, v := range row {
			m = math.Max(m, v)
		}
		s := 0.0
		for _, v := range row {
			s += math.Exp(v - m)
		}
		for j, v := range row {
			out[i*N+j] = math.Exp(v-m) / s
		}
	}
	return out
}

func TestExampleMatmul(t *testing.T) {
	for _, tc := range []struct {
		dt      ir.DType
		M, N, K int
		consts  map[string]string
		tol     float64
	}{
		{ir.F16, 127, 129, 65, nil, 1e-2},
		{ir.F16, 127, 129, 65, map[string]string{"tm": "32", "tn": "64", "tk": "16", "GROUP_SIZE_M": "2"}, 1e-2},
		{ir.BF16, 300, 200, 100, map[string]string{"T": "bf16", "tm": "64", "tn": "64", "tk": "32"}, 1e-2},
		{ir.F32, 65, 33, 47, map[string]string{"T": "f32", "tm": "16", "tn": "16", "tk": "16"}, 1e-3}, // tf32 mma
		{ir.F16, 1, 1, 1, map[string]string{"tm": "16", "tn": "16", "tk": "16"}, 1e-2},
	} {
		rng := rand.New(rand.NewPCG(11, uint64(tc.M)))
		A := runtime.RandNormal(rng, tc.dt, tc.M, tc.K)
		B := runtime.RandNormal(rng, tc.dt, tc.K, tc.N)
		C := poisoned(tc.dt, tc.M, tc.N)
		runExample(t, compileExample(t, "matmul", "matmul", tc.consts), A, B, C)
		checkClose(t, "matmul "+tc.dt.String(), C.Float64s(), refMatmul(A, B), tc.tol)
	}
}

func TestExampleMatmulBiasRelu(t *testing.T) {
	for _, dt := range []ir.DType{ir.F16, ir.BF16} {
		rng := rand.New(rand.NewPCG(12, 0))
		M, N, K := 100, 90, 70
		A, B := runtime.RandNormal(rng, dt, M, K), runtime.RandNormal(rng, dt, K, N)
		bias := runtime.RandNormal(rng, dt, N)
		C := poisoned(dt, M, N)
		runExample(t, compileExample(t, "matmul_bias_relu", "matmul_bias_relu", map[string]string{"T": dt.String()}), A, B, bias, C)
		want := refMatmul(A, B)
		for i := 0; i < M; i++ {
			for j := 0; j < N; j++ {
				want[i*N+j] = math.Max(0, want[i*N+j]+bias.At(j))
			}
		}
		checkClose(t, "matmul_bias_relu "+dt.String(), C.Float64s(), want, 1e-2)
	}
}

func TestExampleBatchedMatmul(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 0))
	Bt, M, N, K := 3, 70, 50, 40
	A, B := runtime.RandNormal(rng, ir.F16, Bt, M, K), runtime.RandNormal(rng, ir.F16, Bt, K, N)
	C := poisoned(ir.F16, Bt, M, N)
	runExample(t, compileExample(t, "batched_matmul", "batched_matmul", nil), A, B, C)
	want := make([]float64, 0, Bt*M*N)
	for b := 0; b < Bt; b++ {
		Ab, _ := A.View([]int{M, K}, []int{K, 1})
		Ab.Offset = b * M * K
		Bb, _ := B.View([]int{K, N}, []int{N, 1})
		Bb.Offset = b * K * N
		want = append(want, refMatmul(Ab, Bb)...)
	}
	checkClose(t, "batched_matmul", C.Float64s(), want, 1e-2)
}

func TestExampleMatmulBT(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 0))
	M, N, K := 90, 77, 100
	A, B := runtime.RandNormal(rng, ir.F16, M, K), runtime.RandNormal(rng, ir.F16, N, K)
	C := poisoned(ir.F16, M, N)
	k := compileExample(t, "matmul_bt", "matmul_bt", nil)
	runExample(t, k, A, B, C)
	checkClose(t, "matmul_bt", C.Float64s(), refMatmulBT(A, B), 1e-2)
	// The same with B given as a transposed view of a (K, N) array.
	Bkn := B.Transpose().Clone()
	C2 := poisoned(ir.F16, M, N)
	runExample(t, k, A, Bkn.Transpose(), C2)
	checkClose(t, "matmul_bt (view)", C2.Float64s(), refMatmulBT(A, B), 1e-2)
}

func TestExampleVectorAdd(t *testing.T) {
	for _, tc := range []struct {
		dt ir.DType
		n  int
	}{{ir.F32, 3000}, {ir.F16, 1024}, {ir.F32, 1}} {
		rng := rand.New(rand.NewPCG(15, 0))
		X, Y := runtime.RandNormal(rng, tc.dt, tc.n), runtime.RandNormal(rng, tc.dt, tc.n)
		Z := poisoned(tc.dt, tc.n)
		runExample(t, compileExample(t, "vector_add", "vector_add", map[string]string{"T": tc.dt.String()}), X, Y, Z)
		want := make([]float64, tc.n)
		for i := range want {
			want[i] = X.At(i) + Y.At(i)
		}
		checkClose(t, "vector_add "+tc.dt.String(), Z.Float64s(), want, tolFor(tc.dt))
	}
}

func TestExampleSoftmax(t *testing.T) {
	for _, dt := range []ir.DType{ir.F32, ir.F16} {
		rng := rand.New(rand.NewPCG(16, 0))
		M, N := 37, 100
		X := runtime.RandNormal(rng, dt, M, N)
		Y := poisoned(dt, M, N)
		runExample(t, compileExample(t, "softmax", "softmax", map[string]string{"T": dt.String()}), X, Y)
		checkClose(t, "softmax "+dt.String(), Y.Float64s(), refSoftmaxRows(X.Float64s(), M, N), tolFor(dt))
	}
}

func TestExampleLayernorm(t *testing.T) {
	for _, dt := range []ir.DType{ir.F32, ir.BF16} {
		rng := rand.New(rand.NewPCG(17, 0))
		M, N := 37, 100
		X, W, Bias := runtime.RandNormal(rng, dt, M, N), runtime.RandNormal(rng, dt, N), runtime.RandNormal(rng, dt, N)
		Y := poisoned(dt, M, N)
		runExample(t, compileExample(t, "layernorm", "layernorm", map[string]string{"T": dt.String()}), X, W, Bias, Y)
		want := make([]float64, M*N)
		for i := 0; i < M; i++ {
			mean, vr := 0.0, 0.0
			for j := 0; j < N; j++ {
				mean += X.At(i, j)
			}
			mean /= float64(N)
			for j := 0; j < N; j++ {
				d := X.At(i, j) - mean
				vr += d * d
			}
			vr /= float64(N)
			for j := 0; j < N; j++ {
				want[i*N+j] = (X.At(i, j)-mean)/math.Sqrt(vr+1e-5)*W.At(j) + Bias.At(j)
			}
		}
		checkClose(t, "layernorm "+dt.String(), Y.Float64s(), want, tolFor(dt))
	}
}

// attentionRows is the float64 reference of one head: softmax(q k^T /
// sqrt(D)) v over S rows, keys right of the query masked when causal; q,
// k and v read element (row, d).
func attentionRows(S, D int, causal bool, q, k, v func(i, d int) float64) []float64 {
	out := make([]float64, S*D)
	scores := make([]float64, S)
	for i := 0; i < S; i++ {
		m := math.Inf(-1)
		for j := 0; j < S; j++ {
			s := 0.0
			for d := 0; d < D; d++ {
				s += q(i, d) * k(j, d)
			}
			s /= math.Sqrt(float64(D))
			if causal && j > i {
				s = math.Inf(-1)
			}
			scores[j] = s
			m = math.Max(m, s)
		}
		sum := 0.0
		for j := range scores {
			scores[j] = math.Exp(scores[j] - m)
			sum += scores[j]
		}
		for d := 0; d < D; d++ {
			o := 0.0
			for j := 0; j < S; j++ {
				o += scores[j] * v(j, d)
			}
			out[i*D+d] = o / sum
		}
	}
	return out
}

func TestExampleAttention(t *testing.T) {
	for _, causal := range []bool{false, true} {
		rng := rand.New(rand.NewPCG(18, 0))
		S, D := 150, 64
		Q, K, V := runtime.RandNormal(rng, ir.F16, S, D), runtime.RandNormal(rng, ir.F16, S, D), runtime.RandNormal(rng, ir.F16, S, D)
		O := poisoned(ir.F16, S, D)
		consts := map[string]string{}
		if causal {
			consts["CAUSAL"] = "True"
		}
		runExample(t, compileExample(t, "attention", "attention", consts), Q, K, V, O)
		want := attentionRows(S, D, causal,
			func(i, d int) float64 { return Q.At(i, d) },
			func(j, d int) float64 { return K.At(j, d) },
			func(j, d int) float64 { return V.At(j, d) })
		name := "attention"
		if causal {
			name += " causal"
		}
		checkClose(t, name, O.Float64s(), want, 1e-2)
	}
}

// mha over (BH, S, D) arrays, S not a multiple of the tiles; with CAUSAL
// its loop stops at the last visible key block (the float64 reference
// masks j > i), so a block that skipped too many or too few differs.
func TestExampleMHA(t *testing.T) {
	for _, causal := range []bool{false, true} {
		rng := rand.New(rand.NewPCG(23, 0))
		BH, S, D := 2, 200, 64
		Q, K, V := runtime.RandNormal(rng, ir.F16, BH, S, D), runtime.RandNormal(rng, ir.F16, BH, S, D), runtime.RandNormal(rng, ir.F16, BH, S, D)
		O := poisoned(ir.F16, BH, S, D)
		consts := map[string]string{"tq": "64"}
		if causal {
			consts["CAUSAL"] = "True"
		}
		runExample(t, compileExample(t, "mha", "mha", consts), Q, K, V, O)
		var want []float64
		for h := 0; h < BH; h++ {
			want = append(want, attentionRows(S, D, causal,
				func(i, d int) float64 { return Q.At(h, i, d) },
				func(j, d int) float64 { return K.At(h, j, d) },
				func(j, d int) float64 { return V.At(h, j, d) })...)
		}
		checkClose(t, fmt.Sprintf("mha causal=%v", causal), O.Float64s(), want, 1e-2)
	}
}

func TestExampleReduction(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 0))
	M, N := 37, 100
	X := runtime.RandNormal(rng, ir.F32, M, N)
	sum := poisoned(ir.F32, M)
	arg := runtime.NewTensor(ir.I32, M)
	arg.Fill(-1)
	runExample(t, compileExample(t, "reduction", "row_reduce", nil), X, sum, arg)
	wantSum := make([]float64, M)
	wantArg := make([]float64, M)
	for i := 0; i < M; i++ {
		best := 0
		for j := 0; j < N; j++ {
			wantSum[i] += X.At(i, j)
			if X.At(i, j) > X.At(i, best) {
				best = j
			}
		}
		wantArg[i] = float64(best)
	}
	checkClose(t, "row sums", sum.Float64s(), wantSum, 1e-5)
	expect(t, "row argmax", arg, wantArg...)

	M2, N2 := 100, 70
	X2 := runtime.RandNormal(rng, ir.F32, M2, N2)
	cm := poisoned(ir.F32, N2)
	runExample(t, compileExample(t, "reduction", "col_max", nil), X2, cm)
	wantMax := make([]float64, N2)
	for j := 0; j < N2; j++ {
		wantMax[j] = math.Inf(-1)
		for i := 0; i < M2; i++ {
			wantMax[j] = math.Max(wantMax[j], X2.At(i, j))
		}
	}
	expect(t, "col max", cm, wantMax...)
}

func TestExampleBroadcast(t *testing.T) {
	for _, dt := range []ir.DType{ir.F32, ir.F16} {
		rng := rand.New(rand.NewPCG(20, 0))
		M, N := 50, 70
		X, scale, shift := runtime.RandNormal(rng, dt, M, N), runtime.RandNormal(rng, dt, N), runtime.RandNormal(rng, dt, M)
		Out := poisoned(dt, M, N)
		runExample(t, compileExample(t, "broadcast", "broadcast", map[string]string{"T": dt.String()}), X, scale, shift, Out)
		want := make([]float64, M*N)
		for i := 0; i < M; i++ {
			for j := 0; j < N; j++ {
				x := X.At(i, j)
				y := x*scale.At(j) + shift.At(i)
				if y <= 0 {
					y *= 0.1
				}
				if math.Abs(x) < 1 {
					y = math.Tanh(y)
				}
				want[i*N+j] = y
			}
		}
		checkClose(t, "broadcast "+dt.String(), Out.Float64s(), want, tolFor(dt))
	}
}

// Every example compiles for the interpreter with its defaults.
func TestExamplesCompile(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "kernels", "*.tile"))
	if len(files) == 0 {
		t.Fatal("no examples")
	}
	for _, path := range files {
		src, _ := os.ReadFile(path)
		f, err := lang.Parse(path, src)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		m, err := build.File(f, build.Options{})
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		for _, fn := range m.Funcs {
			if _, err := programOf(runtime.NewKernel(fn)); err != nil {
				t.Errorf("%s: %v", path, err)
			}
		}
	}
}

func TestExecErrorPositions(t *testing.T) {
	src := `import cuda.tile as ct

@ct.kernel(grid=(2,))
def oob(A: ct.Array[ct.float32, (M,)], n: int):
    t = ct.load(A, index=(ct.bid(0) + n,), shape=(16,))
    for i in range(0, 4, n - 3):
        t = t + 1.0
    ct.store(A, index=(0,), tile=t)
`
	f, err := lang.Parse("oob.tile", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	m, err := build.File(f, build.Options{})
	if err != nil {
		t.Fatal(err)
	}
	k := runtime.NewKernel(m.Func("oob"))
	_, err = Launch(k, []runtime.Arg{runtime.NewTensor(ir.F32, 20), 1}, runtime.LaunchOptions{})
	want := "oob.tile:5:9: block (1,0,0): load of A at tile index (2) with shape (16) lies entirely outside A's shape (20)"
	if err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
	var ee *ExecError
	if !errors.As(err, &ee) || ee.Block != [3]int{1, 0, 0} || ee.Op != ir.OpLoad || ee.Bug {
		t.Errorf("%#v", ee)
	}
	_, err = Launch(k, []runtime.Arg{runtime.NewTensor(ir.F32, 64), 3}, runtime.LaunchOptions{Blocks: [][3]int{{0, 0, 0}}})
	if err == nil || !strings.HasSuffix(err.Error(), "block (0,0,0): for: step is 0") || !strings.HasPrefix(err.Error(), "oob.tile:6:") {
		t.Errorf("step 0: %v", err)
	}
}

func TestInterpreterBugIsAnError(t *testing.T) {
	k := irtest.NewBuilder("bug")
	k.F.Grid[0] = irtest.HConst(2)
	k.CInt(1)
	kern := runtime.NewKernel(k.Ret())
	p, err := programOf(kern)
	if err != nil {
		t.Fatal(err)
	}
	p.body.instrs[0].exec = func(*frame, *cinstr) error { panic("boom") }
	_, err = Launch(kern, nil, runtime.LaunchOptions{})
	if err == nil || err.Error() != "block (0,0,0): interpreter bug in const: boom" {
		t.Errorf("got %v", err)
	}
}
