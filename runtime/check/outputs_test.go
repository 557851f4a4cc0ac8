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
)

// Every array a kernel may write is compared: scatter and atomic outputs
// as well as stores. indexed_atomics.tile writes nine arrays; before the
// check read ir.ParamAccess, a device run compared only Pad (the one
// ct.store).
func TestCheckComparesEveryWrittenArray(t *testing.T) {
	k, err := compile.File("../testdata/kernels/indexed_atomics.tile", compile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	const n = 300
	rng := rand.New(rand.NewPCG(3, 4))
	args := []runtime.Arg{
		runtime.RandNormal(rng, ir.F32, n), runtime.RandNormal(rng, ir.I32, n), runtime.RandNormal(rng, ir.I64, n),
		runtime.RandNormal(rng, ir.F16, n), runtime.RandNormal(rng, ir.F32, n), runtime.RandNormal(rng, ir.I32, n),
		runtime.NewTensor(ir.I32, 64), runtime.NewTensor(ir.I64, 64), runtime.RandNormal(rng, ir.I32, n), runtime.RandNormal(rng, ir.I32, n),
	}
	// Y and Pad are written only (scatter, store): poisoned. X, I, H, L,
	// Old, Hist and Bits are updated atomically: their contents are inputs.
	inputs, res := checkOutputsOf(t, k, args, []bool{false, false, false, false, true, false, false, false, false, true}, "X I L H Y Old Hist Bits Pad")
	if s := res.String(); !strings.Contains(s, "PASS H f16") || !strings.Contains(s, "atomic: any order of up to 3 block updates") {
		t.Errorf("the atomic f16 output's bound is not stated:\n%s", s)
	}

	// A device that gets one element of a scatter output wrong, or leaves
	// it unwritten, or miscounts a histogram bin, fails.
	Y, Hist := args[4].(*runtime.Tensor), args[6].(*runtime.Tensor)
	y := Y.At(7)
	Y.Set(y+1, 7)
	if res, _ := CheckAgainstInterpreter(k, inputs, args, CheckOptions{}); res.Pass || !strings.Contains(res.String(), "FAIL Y f32") {
		t.Errorf("a wrong scatter element passed:\n%s", res)
	}
	copy(Y.Data[4*7:], poisonBytes(ir.F32))
	res, _ = CheckAgainstInterpreter(k, inputs, args, CheckOptions{})
	if res.Pass || res.Outputs[4].Unwritten != 1 || !strings.Contains(res.String(), "got poison (unwritten)") {
		t.Errorf("an unwritten scatter element passed:\n%s", res)
	}
	Y.Set(y, 7)
	Hist.SetInt(Hist.AtInt(5)+1, 5)
	if res, _ := CheckAgainstInterpreter(k, inputs, args, CheckOptions{}); res.Pass || !strings.Contains(res.String(), "FAIL Hist i32") {
		t.Errorf("a wrong histogram bin passed:\n%s", res)
	}
}

// The magnitude kernel of a matmul computes sum_k |a_ik||b_kj|, the scale
// of each element's rounding error.
func TestMagnitudeOfMatmul(t *testing.T) {
	f := irtest.Matmul(ir.F16, 16, 16, 16, 2)
	g, why := magnitudeKernel(f)
	if g == nil {
		t.Fatalf("matmul is not polynomial? %s", why)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	A, B := runtime.RandNormal(rng, ir.F16, 37, 45), runtime.RandNormal(rng, ir.F16, 45, 19)
	C := runtime.NewTensor(ir.F16, 37, 19)
	args := absArgs([]runtime.Arg{A, B, C})
	fakeDevice(t, runtime.NewKernel(g), args)
	S := args[2].(*runtime.Tensor)
	for i := 0; i < 37; i++ {
		for j := 0; j < 19; j++ {
			want := 0.0
			for l := 0; l < 45; l++ {
				want += math.Abs(A.At(i, l) * B.At(l, j))
			}
			if got := S.At(i, j); math.Abs(got-want) > 2e-3*want {
				t.Fatalf("S[%d,%d] = %g, want %g", i, j, got, want)
			}
		}
	}
	// absArgs works on copies: the original inputs keep their negative values.
	negative := 0
	for _, x := range A.Float64s() {
		if x < 0 {
			negative++
		}
	}
	if negative == 0 {
		t.Error("absArgs changed its input A (no negative value left)")
	}
}

// A kernel with exp, or a float that decides control flow, has no
// magnitude kernel; the check falls back to max|want| and says why.
func TestMagnitudeRefusals(t *testing.T) {
	k := irtest.NewBuilder("expk")
	k.F.Grid[0] = irtest.HConst(1)
	X := k.Array("X", ir.F32, 4)
	Y := k.Array("Y", ir.F32, 4)
	zero := k.CInt(0)
	x := k.Load(X, []int{4}, ir.PadZero, zero)
	k.Store(Y, k.Op(ir.OpExp, x.Type, nil, x), zero)
	f := k.Ret()
	if g, why := magnitudeKernel(f); g != nil || !strings.Contains(why, "exp is not polynomial") {
		t.Errorf("exp: %v %q", g, why)
	}
	kern := runtime.NewKernel(f)
	args := []runtime.Arg{runtime.FromFloat64(ir.F32, []int{4}, []float64{0, 1, -1, 2}), runtime.NewTensor(ir.F32, 4)}
	PoisonOutputs(f, args)
	inputs := CloneArgs(args)
	fakeDevice(t, kern, args)
	res, err := CheckAgainstInterpreter(kern, inputs, args, CheckOptions{Grid: [3]int{1, 1, 1}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Pass || !strings.Contains(res.String(), "scale max|want| (exp is not polynomial)") {
		t.Errorf("%s", res)
	}

	// A float compare that feeds a select is fine (select takes the larger
	// magnitude); one that feeds an integer conversion is not.
	k = irtest.NewBuilder("relu")
	X = k.Array("X", ir.F32, 4)
	Y = k.Array("Y", ir.F32, 4)
	zero = k.CInt(0)
	x = k.Load(X, []int{4}, ir.PadZero, zero)
	z := k.Op(ir.OpSplat, x.Type, nil, k.CFloat(ir.F32, -0.5))
	c := k.Op(ir.OpCmp, ir.TileOf(ir.Bool, 4), map[string]any{"pred": ir.PredGT}, x, z)
	k.Store(Y, k.Op(ir.OpSelect, x.Type, nil, c, x, z), zero)
	if g, why := magnitudeKernel(k.Ret()); g == nil {
		t.Errorf("select on a float compare refused: %s", why)
	}
	k = irtest.NewBuilder("count")
	X = k.Array("X", ir.F32, 4)
	Y = k.Array("Y", ir.I32, 4)
	zero = k.CInt(0)
	x = k.Load(X, []int{4}, ir.PadZero, zero)
	z = k.Op(ir.OpSplat, x.Type, nil, k.CFloat(ir.F32, 0))
	c = k.Op(ir.OpCmp, ir.TileOf(ir.Bool, 4), map[string]any{"pred": ir.PredGT}, x, z)
	k.Store(Y, k.Op(ir.OpConvert, ir.TileOf(ir.I32, 4), nil, c), zero)
	if g, why := magnitudeKernel(k.Ret()); g != nil || !strings.Contains(why, "float comparison decides convert") {
		t.Errorf("compare into convert: %v %q", g, why)
	}
}

func TestPoisonRoundTrip(t *testing.T) {
	for _, d := range []ir.DType{ir.F64, ir.F32, ir.TF32, ir.F16, ir.BF16, ir.F8E4M3, ir.F8E5M2, ir.I8, ir.U16, ir.I32, ir.I64, ir.Bool} {
		x := runtime.NewTensor(d, 3)
		orig := runtime.FromFloat64(d, []int{3}, []float64{1, 0, 1})
		x.Poison()
		if n := x.CountPoison(); n != 3 {
			t.Errorf("%s: %d poisoned", d, n)
		}
		if d.IsFloat() && !math.IsNaN(x.At(0)) {
			t.Errorf("%s poison reads %g, not NaN", d, x.At(0))
		}
		// A NaN computed by a kernel is not poison (except e4m3fn's only NaN).
		if d.IsFloat() && d != ir.F8E4M3 {
			x.Set(math.NaN(), 1)
			if x.CountPoison() != 2 {
				t.Errorf("%s: a computed NaN reads as poison", d)
			}
		} else {
			x.SetInt(1, 1)
		}
		if n := Unpoison(x, orig); n != 2 || x.At(0) != 1 || x.At(2) != 1 {
			t.Errorf("%s: Unpoison restored %d: %v", d, n, x.Float64s())
		}
	}
}

func TestPoisonFloatOutputsRestores(t *testing.T) {
	f := irtest.Matmul(ir.F16, 16, 16, 16, 2)
	A, B := runtime.NewTensor(ir.F16, 16, 16), runtime.NewTensor(ir.F16, 16, 16)
	C := runtime.FromFloat64(ir.F16, []int{2, 2}, []float64{1, 2, 3, 4})
	restore := PoisonFloatOutputs(f, []runtime.Arg{A, B, C})
	if C.CountPoison() != 4 {
		t.Fatal("C not poisoned")
	}
	C.Set(9, 0, 1) // the "launch" wrote one element
	restore()
	if got := C.Float64s(); got[0] != 1 || got[1] != 9 || got[2] != 3 || got[3] != 4 {
		t.Errorf("after restore: %v", got)
	}
	// An output that shares storage with an input is not poisoned.
	restore = PoisonFloatOutputs(f, []runtime.Arg{A, B, A})
	restore()
	if A.CountPoison() != 0 {
		t.Error("an aliased input was poisoned")
	}
}

func TestUlpOf(t *testing.T) {
	for _, c := range []struct {
		d    ir.DType
		x    float64
		want float64
	}{
		{ir.F32, 1, 0x1p-23}, {ir.F32, 1.5, 0x1p-23}, {ir.F32, 2, 0x1p-22}, {ir.F16, 1, 0x1p-10},
		{ir.F16, 1000, 0.5}, {ir.BF16, 1, 0x1p-7}, {ir.F16, 0, 0x1p-24}, {ir.F32, 1e-45, 0x1p-149},
		{ir.F32, math.Inf(1), 0}, {ir.I32, 5, 0},
	} {
		if got := ulpOf(c.d, c.x); got != c.want {
			t.Errorf("ulpOf(%s, %g) = %g, want %g", c.d, c.x, got, c.want)
		}
	}
}

// cast_specials.tile on the interpreter against hand-derived values: NaN
// converts to 0 in every integer dtype, +-Inf and out-of-range values
// saturate, and a zero remainder keeps the dividend's sign (cuTile's
// C-style remainder; the GPU check compares the GPU with these).
func TestCastSpecials(t *testing.T) {
	k, err := compile.File("../testdata/kernels/cast_specials.tile", compile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	const n = 128
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = float64(i%7) - 2.75 // -2.75 .. 3.25
	}
	args := []runtime.Arg{runtime.FromFloat64(ir.F32, []int{n}, xs)}
	for _, d := range []ir.DType{ir.I8, ir.I16, ir.I32, ir.I64, ir.U8, ir.U16, ir.U32, ir.U64, ir.F16, ir.BF16, ir.F32} {
		args = append(args, runtime.NewTensor(d, n))
	}
	fakeDevice(t, k, args)
	ints := func(a int) *runtime.Tensor { return args[a].(*runtime.Tensor) }
	for a, d := range []ir.DType{ir.I8, ir.I16, ir.I32, ir.I64, ir.U8, ir.U16, ir.U32, ir.U64} {
		lo, hi := ir.IntRange(d)
		got := ints(1 + a).Int64s()
		if got[0] != 0 || got[8] != 0 { // NaN
			t.Errorf("%s: NaN gives %d", d, got[0])
		}
		if got[1] != hi || got[2] != lo { // +Inf, -Inf
			t.Errorf("%s: +Inf %d -Inf %d, want %d %d", d, got[1], got[2], hi, lo)
		}
	}
	rem := args[11].(*runtime.Tensor).Float64s()
	for i, r := range rem {
		k := i % 8
		x := float32(xs[i])
		if k < 4 && r == 0 {
			num := math.Floor(float64(x)*8) * 0.5
			if math.Signbit(r) != math.Signbit(num) {
				t.Errorf("Rem[%d] = %g: the zero remainder of %g has the dividend's sign", i, r, num)
			}
		}
		if (k == 6 || k == 7) && !math.IsNaN(r) {
			t.Errorf("Rem[%d] = %g, want NaN (infinite dividend or zero divisor)", i, r)
		}
	}
}

// nan_rules.tile on the interpreter: min and max ignore NaN unless
// propagate_nan=True (cuTile 1.6), elementwise and reduced.
func TestNaNRules(t *testing.T) {
	k, err := compile.File("../testdata/kernels/nan_rules.tile", compile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	args := []runtime.Arg{runtime.NewTensor(ir.F32, 8), runtime.NewTensor(ir.F32, 8), runtime.NewTensor(ir.F32, 4),
		runtime.NewTensor(ir.I32, 4), runtime.NewTensor(ir.F16, 8)}
	fakeDevice(t, k, args)
	nan := math.NaN()
	for i, want := range [][]float64{
		{0, 0, 0, 0, 0.5, 0, 2.5, 3.5},          // maximum(x, 0)
		{0, 0, nan, 0, 0.5, nan, 2.5, 3.5},      // maximum(x, 0, propagate_nan=True)
		{3.5, nan, -3.5, nan},                   // max, max propagating, min, min propagating
		{7, 2, 0, 2},                            // argmax, argmax propagating, argmin, argmin propagating
		{-3.5, -2.5, nan, -0.5, 0.5, nan, 1, 1}, // f16 minimum(h, 1, propagate_nan=True)
	} {
		if got := args[i].(*runtime.Tensor).Float64s(); !sameNaNFloats(got, want) {
			t.Errorf("%s = %v, want %v", k.Func.Params[i].Name, got, want)
		}
	}
}

// sameNaNFloats: equal values, NaN equal to NaN.
func sameNaNFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] && !(a[i] != a[i] && b[i] != b[i]) {
			return false
		}
	}
	return true
}

// Arrays written through raw memory (store_offset, the *_offset atomics),
// through a slice (array_slice's result) or through a tiled view are
// outputs: the write-only ones poisoned, the atomically updated ones kept
// as inputs, all compared; a wrong element in one written through a slice
// or by element offsets fails.
func TestCheckComparesRawMemoryAndSliceWrites(t *testing.T) {
	k, err := compile.File("../testdata/kernels/array_views.tile", compile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	const n, r = 300, 11
	rng := rand.New(rand.NewPCG(7, 8))
	args := []runtime.Arg{
		runtime.RandNormal(rng, ir.F32, n), runtime.RandNormal(rng, ir.F32, n), runtime.RandNormal(rng, ir.F32, n),
		runtime.RandNormal(rng, ir.F32, n), runtime.RandNormal(rng, ir.F32, n), runtime.RandNormal(rng, ir.I32, n),
		runtime.RandNormal(rng, ir.I32, n), runtime.NewTensor(ir.I32, 64),
		runtime.RandNormal(rng, ir.F32, r, 8), runtime.RandNormal(rng, ir.F32, r, 8),
	}
	// X and M are read only; Cnt and Hist updated atomically (inputs);
	// Y, Z, W, Win, Old and S written only.
	inputs, _ := checkOutputsOf(t, k, args, []bool{false, true, true, true, true, false, true, false, false, true}, "Y Z W Win Cnt Old Hist S")
	for _, c := range []struct {
		arg  int
		name string
	}{{1, "Y"}, {6, "Old"}, {9, "S"}} {
		x := args[c.arg].(*runtime.Tensor)
		if x.DType.IsFloat() {
			x.SetElemAt(5, x.ElemAt(5)+1)
		} else {
			x.SetElemIntAt(5, x.ElemIntAt(5)+1)
		}
		if res, _ := CheckAgainstInterpreter(k, inputs, args, CheckOptions{}); res.Pass || !strings.Contains(res.String(), "FAIL "+c.name) {
			t.Errorf("a wrong element of %s passed:\n%s", c.name, res)
		}
		if x.DType.IsFloat() {
			x.SetElemAt(5, x.ElemAt(5)-1)
		} else {
			x.SetElemIntAt(5, x.ElemIntAt(5)-1)
		}
	}
}
