package host

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

// printedFloats runs body (a driver's lines) and parses each printed line
// as a Python float.
func printedFloats(t *testing.T, body string) []float64 {
	t.Helper()
	out, err := printed(t, body)
	if err != nil {
		t.Fatalf("%s:\n%v", body, err)
	}
	var xs []float64
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		x, err := strconv.ParseFloat(l, 64)
		if err != nil {
			t.Fatalf("%s: printed %q, not a float", body, l)
		}
		xs = append(xs, x)
	}
	return xs
}

// pyList is xs as a Python list literal, every float exact.
func pyList(xs []float64) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		switch {
		case math.IsNaN(x):
			s[i] = "math.nan"
		case math.IsInf(x, 1):
			s[i] = "math.inf"
		default:
			s[i] = strconv.FormatFloat(x, 'g', -1, 64)
		}
	}
	return "[" + strings.Join(s, ", ") + "]"
}

// TestBlockQuantizeScale: block_quantize's scale (BlockScaledMatMul.py),
// pow(2, ceil(log2(clamp(amax / 448, min=1e-12)))) in float32, equals the
// power of two computed here in float64 with each float32 rounding torch
// makes, around powers of two, below the clamp and for a negative value.
func TestBlockQuantizeScale(t *testing.T) {
	xs := []float64{0, 1e-20, 0.5, 1, 3.3, 448, 449, 447.99, 896, 1000, -7, 1 << 20}
	got := printedFloats(t, "a = torch.tensor("+pyList(xs)+")\n"+
		"s = torch.pow(2.0, torch.ceil(torch.log2(torch.clamp(a.abs() / torch.finfo(torch.float8_e4m3fn).max, min=1e-12))))\n"+
		"print(int(s.dtype == torch.float32))\n"+
		"for i in range(len(s)):\n    print(s[i].item())")
	if got[0] != 1 {
		t.Fatalf("the scale's dtype is not float32")
	}
	for i, x := range xs {
		v := float64(float32(math.Abs(float64(float32(x))) / 448))
		v = math.Max(v, float64(float32(1e-12)))
		want := math.Pow(2, math.Ceil(float64(float32(math.Log2(v)))))
		if got[i+1] != want {
			t.Errorf("scale of %g: got %g, want %g", x, got[i+1], want)
		}
	}
}

// e8m0Ref is torch's float32 -> float8_e8m0fnu conversion, by value: the
// magnitude of the float32 value rounded to a power of two, a normal
// number's mantissa at or above 1.5 going up; a subnormal above 2^-127
// goes to 2^-126, the rest (zero included) to 2^-127; infinities, NaN and
// anything past 2^127 are NaN.
func e8m0Ref(x float64) float64 {
	v := math.Abs(float64(float32(x)))
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return math.NaN()
	case v < 0x1p-126:
		if v > 0x1p-127 {
			return 0x1p-126
		}
		return 0x1p-127
	}
	e := math.Floor(math.Log2(v))
	if v/math.Pow(2, e) >= 1.5 {
		e++
	}
	if e > 127 {
		return math.NaN()
	}
	return math.Pow(2, e)
}

// TestToE8M0: .to(torch.float8_e8m0fnu) rounds as torch does (not as
// cuTile's constants: a negative value loses its sign, zero is 2^-127), and
// back to float32 is exact.
func TestToE8M0(t *testing.T) {
	xs := []float64{1, 1.5, 1.49, 3, 0.75, -4, 0, 0x1p127, 0x1.8p127, math.Inf(1), math.NaN(), 1e-39, 1e-38, 0x1p-127, 6.5e-39, 1e300, 0x1.7fffffp0}
	got := printedFloats(t, "s = torch.tensor("+pyList(xs)+").to(torch.float8_e8m0fnu)\n"+
		"print(int(s.dtype == torch.float8_e8m0fnu))\nf = s.to(torch.float32)\n"+
		"for i in range(len(f)):\n    print(f[i].item())")
	if got[0] != 1 {
		t.Fatalf("the dtype is not float8_e8m0fnu")
	}
	for i, x := range xs {
		want := e8m0Ref(x)
		if g := got[i+1]; g != want && !(math.IsNaN(g) && math.IsNaN(want)) {
			t.Errorf("%g to float8_e8m0fnu: got %g, want %g", x, g, want)
		}
	}
	// From a float64 tensor (rounded to float32 first) and from ints.
	got = printedFloats(t, "print(torch.tensor("+pyList([]float64{0x1.7fffffffp0})+", dtype=torch.float64).to(torch.float8_e8m0fnu).float().item())\n"+
		"print(torch.tensor([5, 6, -3]).to(torch.float8_e8m0fnu).float()[1].item())")
	if want := []float64{e8m0Ref(0x1.7fffffffp0), e8m0Ref(6)}; got[0] != want[0] || got[1] != want[1] {
		t.Errorf("float64 and int64 to float8_e8m0fnu: got %v, want %v", got, want)
	}
}

// TestBlockScaleOps: the other operations of block_quantize and its
// reference, their dtypes and torch's errors.
func TestBlockScaleOps(t *testing.T) {
	const s = "s = torch.tensor([0.5, 2, 8]).to(torch.float8_e8m0fnu)\n"
	expectScripts(t, []scriptCase{
		// torch.finfo.
		{"f = torch.finfo(torch.float16)\nprint(f.max, f.min, f.eps, f.tiny, f.bits, f.dtype)", "65504.0 -65504.0 0.0009765625 6.103515625e-05 16 float16"},
		{"print(torch.finfo().max, torch.finfo(torch.bfloat16).max, torch.finfo(torch.float8_e5m2).max)", "3.4028234663852886e+38 3.3895313892515355e+38 57344.0"},
		{"print(torch.finfo(torch.float8_e4m3fn).max, torch.finfo(torch.float8_e4m3fn).eps, torch.finfo(torch.float64).eps)", "448.0 0.125 2.220446049250313e-16"},
		{"print(torch.finfo(torch.int32))", "error: torch.finfo() requires a floating point input type"},
		// clamp: result_type of the tensor and its bounds.
		{"print(torch.clamp(torch.arange(5), min=1, max=3))", "tensor([1, 1, 2, 3, 3])"},
		{"print(torch.clamp(torch.arange(3), min=0.5))", "tensor([0.5000, 1.0000, 2.0000])"},
		{"print(x.clamp(max=0).reshape(-1))", "tensor([-2.5000, -1.5000, -0.5000,  0.0000,  0.0000,  0.0000])"},
		{"print(torch.clamp(torch.arange(3), min=2, max=1))", "tensor([1, 1, 1])"},
		{"c = torch.clamp(torch.tensor([math.nan, 5.0]), min=0, max=1)\nprint(c[0].item(), c[1].item())", "nan 1.0"},
		{"print(torch.clamp(torch.tensor([True, False]), min=0).dtype)", "torch.int64"},
		{"print(torch.clamp(x))", "error: torch.clamp: at least one of 'min' or 'max' must not be None"},
		{"print(torch.clamp(x, min=x))", "error: torch.clamp: a tensor min is not part of the host subset"},
		// pow with a number base or a tensor base.
		{"print(torch.pow(2.0, torch.arange(3)), torch.pow(torch.arange(4), 2), torch.arange(3).pow(3))", "tensor([1., 2., 4.]) tensor([0, 1, 4, 9]) tensor([0, 1, 8])"},
		{"print(torch.pow(2, 3))", "error: unsupported operand types for **"},
		// log2 and ceil: an integer tensor's ceil keeps its dtype.
		{"print(torch.log2(torch.tensor([1, 8])), torch.ceil(x[0]), torch.ceil(torch.arange(2)).dtype)", "tensor([0., 3.]) tensor([-2., -1., -0.]) torch.int64"},
		{"print(torch.ceil(torch.tensor([True])))", "error: torch.ceil is not implemented for torch.bool tensors"},
		// repeat_interleave: along a dim, flattened, zero times; bits
		// copied (float8_e8m0fnu too).
		{"print(torch.repeat_interleave(torch.arange(6).reshape(2, 3), 2, dim=1))", "tensor([[0, 0, 1, 1, 2, 2],\n        [3, 3, 4, 4, 5, 5]])"},
		{"print(torch.arange(4).reshape(2, 2).repeat_interleave(2, dim=0), torch.repeat_interleave(torch.arange(4).reshape(2, 2), 2))", "tensor([[0, 1],\n        [0, 1],\n        [2, 3],\n        [2, 3]]) tensor([0, 0, 1, 1, 2, 2, 3, 3])"},
		{"print(torch.repeat_interleave(x, 0, dim=-1).shape, torch.repeat_interleave(torch.tensor(3), 2))", "torch.Size([2, 0]) tensor([3, 3])"},
		{s + "print(torch.repeat_interleave(s, 2, dim=0).to(torch.float32), s.T.contiguous().dtype)", "tensor([0.5000, 0.5000, 2.0000, 2.0000, 8.0000, 8.0000]) torch.float8_e8m0fnu"},
		{"print(torch.repeat_interleave(x, -1, dim=0))", "error: torch.repeat_interleave: repeats can not be negative"},
		{"print(torch.repeat_interleave(x, 2, dim=2))", "error: "},
		{"print(torch.repeat_interleave(x, torch.tensor([1, 2])))", "error: a tensor of repeats is not part of the host subset"},
		// No arithmetic on float8_e8m0fnu tensors, as in torch.
		{s + "print(s * 2)", "error: * is not implemented for torch.float8_e8m0fnu tensors"},
		{s + "print(torch.log2(s))", "error: torch.log2 is not implemented for torch.float8_e8m0fnu tensors"},
		// torch's NumPy spellings of keyword names.
		{"print(torch.max(x, dim=-1, keepdims=True)[0].shape, torch.sum(x, axis=0), x.amax(axis=1, keepdims=True).shape)", "torch.Size([2, 1]) tensor([-2.,  0.,  2.]) torch.Size([2, 1])"},
	})
}
