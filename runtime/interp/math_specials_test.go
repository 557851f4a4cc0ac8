package interp

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/runtime"
	"github.com/tilec/tilec/runtime/compile"
)

// runtime/testdata/kernels/math_specials.tile (the GPU check's math ops at
// special values) against Go's math package: NaN, infinities and signed
// zeros exactly where IEEE puts them, finite results within a few float32
// ulps. It pins the semantics the GPU is compared with.
func TestMathSpecials(t *testing.T) {
	k, err := compile.File("../testdata/kernels/math_specials.tile", compile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	const n = 128
	rng := rand.New(rand.NewPCG(41, 0))
	X := runtime.RandNormal(rng, ir.F32, n)
	names := []string{"Exp", "Exp2", "Log", "Log2", "Sqrt", "Rsqrt", "Tanh", "Sin", "Cos", "Pow", "Div"}
	outs := make([]*runtime.Tensor, len(names))
	args := []runtime.Arg{X}
	for i := range outs {
		outs[i] = poisoned(ir.F32, n)
		args = append(args, outs[i])
	}
	runExample(t, k, args...)
	f32 := func(x float64) float64 { return float64(float32(x)) }
	for i := range n {
		x := X.At(i)
		var v float64
		switch i % 8 {
		case 0:
			v = math.NaN()
		case 1:
			v = math.Inf(1)
		case 2:
			v = math.Inf(-1)
		case 3:
			v = 0
		case 4:
			v = math.Copysign(0, -1)
		case 5:
			v = f32(x * f32(1e-40)) // the kernel's constant is a float32 (subnormal)
		case 6:
			v = f32(x * 50)
		default:
			v = x
		}
		a := math.Abs(v)
		p := 0.5
		if i%8 == 7 {
			p = -1.5
		}
		want := []float64{math.Exp(v), math.Exp2(v), math.Log(v), math.Log2(a), math.Sqrt(v), 1 / math.Sqrt(a),
			math.Tanh(v), math.Sin(v), math.Cos(v), math.Pow(a, p), x / v}
		for j, w := range want {
			got := outs[j].At(i)
			w = f32(w)
			switch {
			case math.IsNaN(w) || math.IsInf(w, 0) || w == 0:
				same := math.IsNaN(got) == math.IsNaN(w) && (math.IsNaN(w) || got == w && math.Signbit(got) == math.Signbit(w))
				// A result that underflows to a subnormal or zero may differ
				// in the last place only.
				if !same && !(w == 0 && math.Abs(got) < 1e-37) {
					t.Errorf("%s at %d (v=%g): got %g, want %g", names[j], i, v, got, w)
				}
			case math.Abs(got-w) > 4*math.Abs(w)*0x1p-24+1e-45:
				t.Errorf("%s at %d (v=%g): got %g, want %g", names[j], i, v, got, w)
			}
		}
	}
}
