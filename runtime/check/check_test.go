package check

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/runtime"
	"github.com/tilec/tilec/runtime/compile"
	"github.com/tilec/tilec/runtime/internal/irtest"
	"github.com/tilec/tilec/runtime/interp"
)

func TestToleranceFor(t *testing.T) {
	for d, want := range map[ir.DType]float64{ir.F32: 1e-5, ir.TF32: 1e-3, ir.F16: 1e-2, ir.BF16: 1e-2, ir.I32: 0, ir.Bool: 0} {
		if got := ToleranceFor(d); got.Rel != want || got.Abs != 0 {
			t.Errorf("ToleranceFor(%s) = %+v, want rel %g", d, got, want)
		}
	}
	if got := KernelTolerance(irtest.Matmul(ir.F32, 16, 16, 8, 2), ir.F32); got.Rel != 1e-3 {
		t.Errorf("f32 matmul: %+v, want tf32's 1e-3", got)
	}
	if got := KernelTolerance(irtest.Matmul(ir.F16, 16, 16, 16, 2), ir.F16); got.Rel != 1e-2 {
		t.Errorf("f16 matmul: %+v", got)
	}
	if got := KernelTolerance(irtest.CopyTile(ir.F32, 2, 2, ir.PadZero), ir.F32); got.Rel != 1e-5 {
		t.Errorf("f32 copy: %+v", got)
	}
}

func TestCompare(t *testing.T) {
	want := runtime.FromFloat64(ir.F32, []int{2, 3}, []float64{1, -2, 3, -4, 100, 0.5})
	r := Compare(want.Clone(), want, Tolerance{})
	if !r.Pass || r.MaxAbs != 0 || r.MaxRel != 0 || r.Compared != 6 || r.MaxWant != 100 || r.Worst != nil {
		t.Errorf("identical: %+v", r)
	}

	// Errors are relative to max|want| = 100: 5e-4 absolute is 5e-6.
	got := want.Clone()
	got.Set(0.5+5e-4, 1, 2)
	r = Compare(got, want, Tolerance{})
	if !r.Pass || math.Abs(r.MaxRel-5e-6) > 1e-7 || r.Bad != 0 {
		t.Errorf("small error: %+v", r)
	}
	if r.Worst[0] != 1 || r.Worst[1] != 2 {
		t.Errorf("worst at %v", r.Worst)
	}
	got.Set(-2.01, 0, 1)
	r = Compare(got, want, Tolerance{})
	if r.Pass || r.Bad != 1 || math.Abs(r.MaxAbs-0.01) > 1e-6 || r.Worst[0] != 0 || r.Worst[1] != 1 {
		t.Errorf("error 1e-4 relative: %+v", r)
	}
	if !strings.Contains(r.String(), "FAIL") || !strings.Contains(r.String(), "worst at [0 1]") {
		t.Errorf("String: %s", r)
	}
	// The same passes at f16's tolerance.
	if r := Compare(got, want, ToleranceFor(ir.F16)); !r.Pass {
		t.Errorf("f16 tolerance: %s", r)
	}

	// An unwritten (NaN) element fails and is the worst even with larger errors elsewhere.
	got.Set(math.NaN(), 1, 0)
	r = Compare(got, want, Tolerance{})
	if r.Pass || r.NaN != 1 || r.Bad != 2 || r.Worst[0] != 1 || r.Worst[1] != 0 {
		t.Errorf("NaN: %+v", r)
	}

	// NaN must sit at the same positions: NaN against a number fails either
	// way, NaN against NaN matches.
	w2 := want.Clone()
	w2.Set(math.NaN(), 0, 1)
	g2 := want.Clone()
	g2.Set(12345, 0, 1)
	r = Compare(g2, w2, Tolerance{})
	if r.Pass || r.NaN != 1 || r.Compared != 6 {
		t.Errorf("NaN in want only: %+v", r)
	}
	if r := Compare(w2.Clone(), w2, Tolerance{}); !r.Pass {
		t.Errorf("NaN on both sides: %s", r)
	}

	// Infinities: equal ones match, different ones fail, a finite value
	// against an infinite one fails.
	wi := runtime.FromFloat64(ir.F32, []int{2}, []float64{math.Inf(1), 1})
	if r := Compare(wi.Clone(), wi, Tolerance{}); !r.Pass {
		t.Errorf("equal infinities: %s", r)
	}
	gi := runtime.FromFloat64(ir.F32, []int{2}, []float64{math.Inf(-1), 1})
	if r := Compare(gi, wi, Tolerance{}); r.Pass || r.Inf != 1 {
		t.Errorf("different infinities: %+v", r)
	}
	gf := runtime.FromFloat64(ir.F32, []int{2}, []float64{3e38, 1})
	if r := Compare(gf, wi, Tolerance{Rel: 1}); r.Pass || r.Inf != 1 {
		t.Errorf("finite against +Inf: %+v", r)
	}

	// Problems.
	if r := Compare(runtime.NewTensor(ir.F32, 3, 2), want, Tolerance{}); r.Pass || !strings.Contains(r.Problem, "shape") {
		t.Errorf("shape mismatch: %+v", r)
	}
	if r := Compare(runtime.NewTensor(ir.F16, 2, 3), want, Tolerance{}); r.Pass || !strings.Contains(r.Problem, "dtype") {
		t.Errorf("dtype mismatch: %+v", r)
	}
	unwritten := runtime.NewTensor(ir.F32, 2, 2)
	unwritten.Poison()
	if r := compare(unwritten, unwritten, Tolerance{}, compareOptions{sampled: true}); r.Pass || !strings.Contains(r.Problem, "no element") {
		t.Errorf("nothing compared: %+v", r)
	}

	// All-zero reference: only exact zeros pass.
	z := runtime.NewTensor(ir.F32, 3)
	if r := Compare(z.Clone(), z, Tolerance{}); !r.Pass || r.MaxRel != 0 {
		t.Errorf("zeros: %+v", r)
	}
	nz := z.Clone()
	nz.Set(1e-30, 1)
	if r := Compare(nz, z, Tolerance{}); r.Pass || !math.IsInf(r.MaxRel, 1) {
		t.Errorf("zeros vs tiny: %+v", r)
	}
	if r := Compare(nz, z, Tolerance{Abs: 1e-20}); !r.Pass {
		t.Errorf("absolute tolerance: %+v", r)
	}
}

func TestCompareStridedAndInts(t *testing.T) {
	// A transposed view against its contiguous copy: equal element by element.
	rng := rand.New(rand.NewPCG(1, 1))
	base := runtime.RandNormal(rng, ir.BF16, 5, 7)
	view := base.Transpose()
	r := Compare(view, view.Clone(), Tolerance{})
	if !r.Pass || r.Compared != 35 || r.MaxAbs != 0 {
		t.Errorf("transposed view: %+v", r)
	}
	c := view.Clone()
	c.Set(c.At(6, 4)+1, 6, 4)
	r = Compare(view, c, Tolerance{})
	if r.Pass || r.Worst[0] != 6 || r.Worst[1] != 4 {
		t.Errorf("transposed view, one error: %+v", r)
	}

	// Integers compare exactly, including values beyond float64's 53 bits.
	a := runtime.NewTensor(ir.I64, 3)
	a.SetInt(1<<60, 0)
	b := a.Clone()
	if r := Compare(b, a, Tolerance{}); !r.Pass {
		t.Errorf("i64 equal: %s", r)
	}
	b.SetInt(1<<60+1, 0)
	if r := Compare(b, a, Tolerance{}); r.Pass || r.Bad != 1 {
		t.Errorf("i64 off by one at 2^60: %+v", r)
	}
	bo := runtime.NewTensor(ir.Bool, 4)
	bo2 := bo.Clone()
	bo2.SetInt(1, 3)
	if r := Compare(bo2, bo, Tolerance{}); r.Pass || r.Bad != 1 {
		t.Errorf("bool: %+v", r)
	}
}

func TestSampleBlocks(t *testing.T) {
	if got := SampleBlocks([3]int{4, 2, 1}, 8, 1); got != nil {
		t.Errorf("n == total: %v, want nil (all)", got)
	}
	if got := SampleBlocks([3]int{4, 2, 1}, 100, 1); got != nil {
		t.Errorf("n > total: %v", got)
	}
	if got := SampleBlocks([3]int{4, 2, 1}, 0, 1); got != nil {
		t.Errorf("n = 0: %v", got)
	}
	for _, grid := range [][3]int{{1000, 1, 1}, {7, 9, 1}, {5, 4, 3}, {3, 0, 0}} {
		g := grid
		for i := range g {
			g[i] = max(g[i], 1)
		}
		total := g[0] * g[1] * g[2]
		n := min(8, total-1)
		s := SampleBlocks(grid, n, 42)
		if len(s) != n {
			t.Fatalf("grid %v: %d blocks, want %d", grid, len(s), n)
		}
		seen := map[[3]int]bool{}
		prev := -1
		for _, b := range s {
			for ax := range b {
				if b[ax] < 0 || b[ax] >= g[ax] {
					t.Errorf("grid %v: block %v outside", grid, b)
				}
			}
			if seen[b] {
				t.Errorf("grid %v: block %v twice", grid, b)
			}
			seen[b] = true
			lin := b[0] + g[0]*(b[1]+g[1]*b[2])
			if lin <= prev {
				t.Errorf("grid %v: not sorted: %v", grid, s)
			}
			prev = lin
		}
		if !seen[[3]int{}] || !seen[[3]int{g[0] - 1, g[1] - 1, g[2] - 1}] {
			t.Errorf("grid %v: first or last block missing: %v", grid, s)
		}
		again := SampleBlocks(grid, n, 42)
		for i := range s {
			if s[i] != again[i] {
				t.Errorf("grid %v: not deterministic", grid)
				break
			}
		}
	}
	// Different seeds pick different samples (overwhelmingly likely in 1000 blocks).
	a, b := SampleBlocks([3]int{1000, 1, 1}, 10, 1), SampleBlocks([3]int{1000, 1, 1}, 10, 2)
	same := true
	for i := range a {
		if a[i] != b[i] {
			same = false
		}
	}
	if same {
		t.Errorf("seeds 1 and 2 give the same sample %v", a)
	}
}

// fakeDevice runs k on the interpreter as a device backend would: on the
// arguments given, writing the outputs into them.
func fakeDevice(t *testing.T, k *runtime.Kernel, args []runtime.Arg) {
	t.Helper()
	if _, err := (interp.CPU{}).Launch(k, args, runtime.LaunchOptions{}); err != nil {
		t.Fatal(err)
	}
}

func TestCheckAgainstInterpreterFull(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	A := runtime.RandNormal(rng, ir.F16, 37, 21)
	B := runtime.RandNormal(rng, ir.F16, 21, 19)
	C := runtime.NewTensor(ir.F16, 37, 19)
	k := runtime.NewKernel(irtest.Matmul(ir.F16, 16, 16, 16, 2))
	args := []runtime.Arg{A, B, C}
	PoisonOutputs(k.Func, args)
	inputs := CloneArgs(args)
	fakeDevice(t, k, args)

	res, err := CheckAgainstInterpreter(k, inputs, args, CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Pass || res.Blocks != nil || res.TotalBlocks != 3*2 || len(res.Outputs) != 1 {
		t.Fatalf("%+v", res)
	}
	r := res.Outputs[0]
	if r.Name != "C" || r.Compared != 37*19 || r.MaxAbs != 0 || r.Tol.ULPs != outputULPs ||
		r.Tol.Rel != (boundULPs+3)*math.Ldexp(1, -24) || !strings.HasPrefix(r.Scale, "per element") {
		t.Errorf("report %+v", r)
	}
	if !strings.Contains(res.String(), "all 6 blocks") || !strings.Contains(res.String(), "PASS C f16") {
		t.Errorf("String:\n%s", res)
	}
	// inputs are untouched: C is still poisoned.
	if n := inputs[2].(*runtime.Tensor).CountPoison(); n != 37*19 {
		t.Errorf("inputs modified: %d elements of C poisoned", n)
	}

	// One wrong element, one NaN, one unwritten element.
	C.Set(C.At(36, 18)+1, 36, 18)
	C.Set(math.NaN(), 20, 3)
	copy(C.Data[2*(C.Offset+5*C.Strides[0]+5*C.Strides[1]):], poisonBytes(ir.F16))
	res, err = CheckAgainstInterpreter(k, inputs, args, CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r = res.Outputs[0]
	if res.Pass || r.NaN != 1 || r.Unwritten != 1 || r.Bad != 3 {
		t.Errorf("corrupted: %+v", r)
	}
	// An element off by 1e-2 relative to its own size fails even where
	// larger values elsewhere would have hidden it under max|want|.
	C.Set(math.NaN(), 20, 3)
	fakeDevice(t, k, args)
	small, big := math.Inf(1), 0.0
	var at []int
	for i := 0; i < 37; i++ {
		for j := 0; j < 19; j++ {
			v := math.Abs(C.At(i, j))
			big = max(big, v)
			if v > 0.25 && v < small {
				small, at = v, []int{i, j}
			}
		}
	}
	C.Set(C.At(at...)*1.02, at...)
	res, _ = CheckAgainstInterpreter(k, inputs, args, CheckOptions{})
	if res.Pass || res.Outputs[0].Bad != 1 {
		t.Errorf("2%% error on an element of %g (max %g) passed:\n%s", small, big, res)
	}
	ref := CloneArgs(inputs)
	fakeDevice(t, k, ref)
	if old := Compare(C, ref[2].(*runtime.Tensor), KernelTolerance(k.Func, ir.F16)); !old.Pass {
		t.Errorf("max|want| as the scale should miss it: %s", old)
	}
	if !strings.Contains(res.String(), "FAIL C") {
		t.Errorf("String:\n%s", res)
	}

	// Argument problems are errors.
	if _, err := CheckAgainstInterpreter(k, inputs[:2], args[:2], CheckOptions{}); err == nil {
		t.Error("missing argument: no error")
	}
	if _, err := CheckAgainstInterpreter(k, inputs, args[:2], CheckOptions{}); err == nil {
		t.Error("argument count mismatch: no error")
	}
}

func TestCheckAgainstInterpreterSampled(t *testing.T) {
	for _, d := range []ir.DType{ir.F32, ir.I32, ir.Bool} {
		const tm, tn = 4, 8
		rng := rand.New(rand.NewPCG(7, 8))
		A := runtime.RandNormal(rng, d, 41, 77) // 11 x 10 blocks, partial at the edges
		C := runtime.NewTensor(d, 41, 77)
		k := runtime.NewKernel(irtest.CopyTile(d, tm, tn, ir.PadZero))
		args := []runtime.Arg{A, C}
		PoisonOutputs(k.Func, args)
		inputs := CloneArgs(args)
		fakeDevice(t, k, args)

		opts := CheckOptions{FullLimit: 100, SampleBlocks: 5, Seed: 3}
		res, err := CheckAgainstInterpreter(k, inputs, args, opts)
		if err != nil {
			t.Fatal(err)
		}
		if !res.Pass || len(res.Blocks) != 8 || res.TotalBlocks != 110 {
			t.Fatalf("%s: %s (blocks %v)", d, res, res.Blocks)
		}
		r := res.Outputs[0]
		// Each sampled block wrote its tile, cut at the edges.
		want := 0
		inSample := map[[2]int]bool{}
		for _, b := range res.Blocks {
			rows := min(tm, 41-b[0]*tm)
			cols := min(tn, 77-b[1]*tn)
			want += rows * cols
			inSample[[2]int{b[0], b[1]}] = true
		}
		if r.Compared != want || r.Skipped != 41*77-want {
			t.Errorf("%s: compared %d skipped %d, want %d compared", d, r.Compared, r.Skipped, want)
		}

		// An error in a block outside the sample goes unseen; one inside fails.
		var in, out [2]int
		foundOut := false
		for bi := 0; bi < 11 && !foundOut; bi++ {
			for bj := 0; bj < 10; bj++ {
				if !inSample[[2]int{bi, bj}] {
					out, foundOut = [2]int{bi * tm, bj * tn}, true
					break
				}
			}
		}
		in = [2]int{res.Blocks[1][0] * tm, res.Blocks[1][1] * tn}
		flip := func(i, j int) {
			if d == ir.Bool {
				C.SetInt(1-C.AtInt(i, j), i, j)
			} else {
				C.Set(C.At(i, j)+3, i, j)
			}
		}
		flip(out[0], out[1])
		if res, _ := CheckAgainstInterpreter(k, inputs, args, opts); !res.Pass {
			t.Errorf("%s: error outside the sample was caught?\n%s", d, res)
		}
		flip(in[0], in[1])
		res, err = CheckAgainstInterpreter(k, inputs, args, opts)
		if err != nil {
			t.Fatal(err)
		}
		if res.Pass || res.Outputs[0].Bad != 1 {
			t.Errorf("%s: error inside the sample missed:\n%s", d, res)
		}
	}
}

// An output the kernel also reads cannot be poisoned: checked on all blocks.
func TestCheckAgainstInterpreterInOut(t *testing.T) {
	k := irtest.NewBuilder("accumulate")
	A := k.Array("A", ir.F32, "M")
	C := k.Array("C", ir.F32, "M")
	k.F.Grid[0] = &ir.HostExpr{Op: ir.HostCdiv, Args: []*ir.HostExpr{irtest.Sym("M"), irtest.HConst(4)}}
	bid := k.Op(ir.OpBlockID, ir.ScalarOf(ir.I32), map[string]any{"axis": 0})
	a := k.Load(A, []int{4}, ir.PadZero, bid)
	c := k.Load(C, []int{4}, ir.PadZero, bid)
	k.Store(C, k.Bin(ir.OpAdd, a, c), bid)
	kern := runtime.NewKernel(k.Ret())
	rng := rand.New(rand.NewPCG(9, 9))
	At, Ct := runtime.RandNormal(rng, ir.F32, 64), runtime.RandNormal(rng, ir.F32, 64)
	args := []runtime.Arg{At, Ct}
	inputs := CloneArgs(args)
	fakeDevice(t, kern, args)
	res, err := CheckAgainstInterpreter(kern, inputs, args, CheckOptions{FullLimit: 8})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Pass || res.Blocks != nil || res.Outputs[0].Compared != 64 {
		t.Errorf("%s", res)
	}
}

func TestWrittenParamsAndPoison(t *testing.T) {
	f := irtest.Matmul(ir.F16, 16, 16, 16, 2)
	if got := ir.WrittenParams(f); len(got) != 1 || got[0] != 2 {
		t.Errorf("WrittenParams = %v, want [2]", got)
	}
	A, B, C := runtime.NewTensor(ir.F16, 2, 2), runtime.NewTensor(ir.F16, 2, 2), runtime.NewTensor(ir.F16, 2, 2)
	PoisonOutputs(f, []runtime.Arg{A, B, C})
	if x := C.At(1, 1); x == x {
		t.Errorf("C not poisoned: %g", x)
	}
	if A.At(0, 0) != 0 || B.At(0, 0) != 0 {
		t.Error("inputs poisoned")
	}
}

// The bound earns a unit per tensor-core instruction an element's sum can
// run through (their roundings add up): the largest float input extent
// over the instruction's k. f32 inputs run exact fma chains: none.
func TestTensorCoreSteps(t *testing.T) {
	for _, tc := range []struct {
		dt      ir.DType
		k, want int
	}{
		{ir.F16, 8192, 512},
		{ir.BF16, 100, 7},
		{ir.TF32, 100, 13},
		{ir.F32, 8192, 0},
	} {
		f := irtest.Matmul(tc.dt, 16, 16, 16, 2)
		args := []runtime.Arg{runtime.NewTensor(tc.dt, 32, tc.k), runtime.NewTensor(tc.dt, tc.k, 32), runtime.NewTensor(tc.dt, 32, 32)}
		if got := tensorCoreSteps(f, args, false); got != tc.want {
			t.Errorf("%s, K=%d: %d steps, want %d", tc.dt, tc.k, got, tc.want)
		}
	}
	// A float8 mma with use_fast_acc earns 2^8 units a step (2^-16 of the
	// magnitude) where the device summed it in the reduced accumulator
	// (float8 wgmma): 1024 / 32 steps; without use_fast_acc, or on a device
	// that summed in float32 (mma.sync), one unit a step.
	for _, fast := range []bool{false, true} {
		src := "import cuda.tile as ct\n\n@ct.kernel(grid=(1,))\n" +
			"def k(A: ct.Array[ct.float8_e4m3fn, (M, K)], B: ct.Array[ct.float8_e4m3fn, (K, N)], C: ct.Array[ct.float32, (M, N)]):\n" +
			"    acc = ct.zeros((16, 16), dtype=ct.float32)\n" +
			"    for k in range(ct.num_tiles(A, axis=1, shape=(16, 32))):\n" +
			"        a = ct.load(A, index=(0, k), shape=(16, 32))\n" +
			"        b = ct.load(B, index=(k, 0), shape=(32, 16))\n" +
			"        acc = ct.mma(a, b, acc, use_fast_acc=" + map[bool]string{false: "False", true: "True"}[fast] + ")\n" +
			"    ct.store(C, index=(0, 0), tile=acc)\n"
		k, err := compile.Source("k.py", []byte(src), compile.Options{})
		if err != nil {
			t.Fatal(err)
		}
		args := []runtime.Arg{runtime.NewTensor(ir.F8E4M3, 16, 1024), runtime.NewTensor(ir.F8E4M3, 1024, 16), runtime.NewTensor(ir.F32, 16, 16)}
		want := 32
		if fast {
			want = 32 << 8
		}
		if got := tensorCoreSteps(k.Func, args, true); got != want {
			t.Errorf("float8, use_fast_acc=%v, float8 wgmma: %d units, want %d", fast, got, want)
		}
		if got := tensorCoreSteps(k.Func, args, false); got != 32 {
			t.Errorf("float8, use_fast_acc=%v, float32 sums: %d units, want 32", fast, got)
		}
	}
}

// Where the scale is the largest |want|, an f32 output of a kernel that
// rounds values to f16 or bf16 for an mma is bounded by two units of that
// dtype; f32 inputs (tf32 on the tensor cores) by tf32's tolerance.
func TestKernelTolerance(t *testing.T) {
	for _, tc := range []struct {
		in   ir.DType
		want float64
	}{
		{ir.F16, 0x1p-10},
		{ir.BF16, 0x1p-7},
		{ir.F32, 1e-3},
	} {
		f := irtest.Matmul(tc.in, 16, 16, 16, 2)
		if got := KernelTolerance(f, ir.F32).Rel; got != tc.want {
			t.Errorf("mma of %s into an f32 output: Rel %g, want %g", tc.in, got, tc.want)
		}
	}
}

// The tensor-core units of the bound are f32's (the accumulator's), not
// the kernel's narrowest arithmetic: a deep f16 GEMM with an f16 epilogue
// multiply keeps a tight bound, and an all-zero device result fails (it
// passed when the units were f16's: 0.26 of the scale).
func TestTensorCoreUnitsAreF32(t *testing.T) {
	k, err := compile.Source("k.py", []byte(`import cuda.tile as ct


@ct.kernel(grid=(1,))
def deep(A: ct.Array[ct.float16, (64, K)], B: ct.Array[ct.float16, (K, 64)], C: ct.Array[ct.float16, (64, 64)]):
    acc = ct.zeros((64, 64), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(64, 64))):
        acc = ct.mma(ct.load(A, index=(0, k), shape=(64, 64)), ct.load(B, index=(k, 0), shape=(64, 64)), acc)
    ct.store(C, index=(0, 0), tile=ct.astype(acc, ct.float16) * 2.0)
`), compile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(9, 9))
	A := runtime.RandNormal(rng, ir.F16, 64, 8192)
	B := runtime.RandNormal(rng, ir.F16, 8192, 64)
	C := runtime.NewTensor(ir.F16, 64, 64)
	args := []runtime.Arg{A, B, C}
	PoisonOutputs(k.Func, args)
	inputs := CloneArgs(args)
	C.Fill(0) // a device that wrote zeros
	res, err := CheckAgainstInterpreter(k, inputs, args, CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r := res.Outputs[0]
	if want := boundULPs*math.Ldexp(1, -11) + 512*math.Ldexp(1, -24); res.Pass || r.Tol.Rel != want {
		t.Errorf("pass %v, Rel %g (want %g): %s", res.Pass, r.Tol.Rel, want, res)
	}
}

// An integer mma's int32 result compares exactly: the products are exact
// and integer mma.sync wraps its sums as the interpreter does, so any
// difference is a wrong value (a saturating device, an element off by
// one). int8_matmul_bt accumulates onto C, started near the int32 limits
// so that most sums wrap; the tensor-core units of the float bound do not
// apply (no float mma), and an f32 output scaled from the int32 product
// keeps f32's tolerance.
func TestIntegerMMAComparesExactly(t *testing.T) {
	k, err := compile.File("../testdata/kernels/int8_matmul.tile", compile.Options{Kernel: "int8_matmul_bt", Consts: map[string]string{"TB": "u8"}})
	if err != nil {
		t.Fatal(err)
	}
	const M, N, K = 70, 90, 100
	rng := rand.New(rand.NewPCG(70, 90))
	A, B, C := runtime.NewTensor(ir.I8, M, K), runtime.NewTensor(ir.U8, N, K), runtime.NewTensor(ir.I32, M, N)
	for _, x := range []*runtime.Tensor{A, B} {
		for i := range x.Data {
			x.Data[i] = byte(rng.Uint32())
		}
	}
	for e := 0; e < M*N; e++ {
		C.SetElemIntAt(e, math.MaxInt32-int64(rng.IntN(1<<16)))
	}
	args := []runtime.Arg{A, B, C}
	if tensorCoreSteps(k.Func, args, true) != 0 {
		t.Errorf("an int8 mma earns tensor-core steps: %d", tensorCoreSteps(k.Func, args, true))
	}
	inputs := CloneArgs(args)
	fakeDevice(t, k, args)
	res, err := CheckAgainstInterpreter(k, inputs, args, CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r := res.Outputs[0]
	if !res.Pass || r.Compared != M*N || r.Tol != (Tolerance{}) || !strings.Contains(res.String(), "PASS C i32: 6300 elements compared, exact") {
		t.Fatalf("%s\n%+v", res, r)
	}
	// One element off by one fails.
	e := C.Offset + 3*C.Strides[0] + 4*C.Strides[1]
	good := C.ElemIntAt(e)
	C.SetElemIntAt(e, good+1)
	if res, _ := CheckAgainstInterpreter(k, inputs, args, CheckOptions{}); res.Pass || res.Outputs[0].Bad != 1 {
		t.Errorf("an element off by one passed:\n%s", res)
	}
	C.SetElemIntAt(e, good)
	// A device that saturates instead of wrapping fails wherever a sum
	// left int32's range.
	want := CloneArgs(inputs)
	fakeDevice(t, k, want)
	sat := 0
	for e := 0; e < M*N; e++ {
		if c0, w := inputs[2].(*runtime.Tensor).ElemIntAt(e), want[2].(*runtime.Tensor).ElemIntAt(e); c0 > 0 && w < 0 {
			C.SetElemIntAt(e, math.MaxInt32)
			sat++
		}
	}
	if sat < M*N/10 {
		t.Fatalf("only %d of %d sums wrap", sat, M*N)
	}
	if res, _ := CheckAgainstInterpreter(k, inputs, args, CheckOptions{}); res.Pass || res.Outputs[0].Bad != sat {
		t.Errorf("a saturating device (%d elements) passed or miscounted:\n%s", sat, res)
	}
	// No float mma: an f32 output keeps f32's tolerance.
	if got, want := KernelTolerance(k.Func, ir.F32), ToleranceFor(ir.F32); got != want {
		t.Errorf("KernelTolerance of an int8 kernel for f32: %v, want %v", got, want)
	}
}
