package interp

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/runtime"
	"github.com/tilec/tilec/runtime/compile"
)

// The float8 kernels of the GPU cases (runtime/testdata/kernels/float8_*)
// on the interpreter, against references built from the formats'
// definitions (every float8 value decoded from its fields, rounding to the
// nearest of them, ties to the even pattern, saturating at the largest
// finite one), not through runtime.F8Bits.

// f8Patterns are the values of the 256 patterns of float8 dtype d, from
// the fields (sign, exponent, mantissa) and the format's rules.
func f8Patterns(d ir.DType) [256]float64 {
	eb, mb := 4, 3
	if d == ir.F8E5M2 {
		eb, mb = 5, 2
	}
	bias := 1<<(eb-1) - 1
	var vs [256]float64
	for h := range 256 {
		e, m := h>>mb&(1<<eb-1), h&(1<<mb-1)
		var v float64
		switch {
		case d == ir.F8E4M3 && e == 15 && m == 7, d == ir.F8E5M2 && e == 31 && m != 0:
			v = math.NaN()
		case d == ir.F8E5M2 && e == 31:
			v = math.Inf(1)
		case e == 0:
			v = float64(m) / float64(int(1)<<mb) * math.Pow(2, float64(1-bias))
		default:
			v = (1 + float64(m)/float64(int(1)<<mb)) * math.Pow(2, float64(e-bias))
		}
		if h&0x80 != 0 {
			v = -v
		}
		vs[h] = v
	}
	return vs
}

// refF8 rounds x to float8 dtype d: the nearest finite value, a tie to the
// pattern whose last mantissa bit is 0 (narrow_dtypes_test.go's nearestF8
// breaks ties for e4m3 only), magnitudes beyond the largest finite value
// (infinities too) to it with x's sign, NaN to NaN.
func refF8(d ir.DType, x float64) float64 {
	if math.IsNaN(x) {
		return math.NaN()
	}
	vs := f8Patterns(d)
	best, bestH, maxFinite := math.Inf(1), -1, 0.0
	for h, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) || math.Signbit(v) != math.Signbit(x) {
			continue
		}
		maxFinite = math.Max(maxFinite, math.Abs(v))
		if dist := math.Abs(v - x); dist < best || dist == best && h&1 == 0 {
			best, bestH = dist, h
		}
	}
	if math.Abs(x) > maxFinite {
		return math.Copysign(maxFinite, x)
	}
	return vs[bestH]
}

func sameValue(a, b float64) bool {
	return a == b && math.Signbit(a) == math.Signbit(b) || math.IsNaN(a) && math.IsNaN(b)
}

// TestFloat8ConvertKernel: float8_convert.tile at N=1000 (a partial last
// block) against the reference rounding of the values the kernel makes.
func TestFloat8ConvertKernel(t *testing.T) {
	k, err := compile.File("../testdata/kernels/float8_convert.tile", compile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	const N = 1000
	rng := rand.New(rand.NewPCG(8, 1000))
	X, Y := runtime.RandNormal(rng, ir.F32, N), runtime.RandNormal(rng, ir.F8E4M3, N)
	out := map[string]*runtime.Tensor{
		"E4": runtime.NewTensor(ir.F8E4M3, N), "E5": runtime.NewTensor(ir.F8E5M2, N),
		"W4": runtime.NewTensor(ir.F32, N), "W5": runtime.NewTensor(ir.F16, N),
		"H5": runtime.NewTensor(ir.F8E5M2, N), "I4": runtime.NewTensor(ir.I32, N),
		"A4": runtime.NewTensor(ir.F8E4M3, N), "D5": runtime.NewTensor(ir.F8E5M2, N),
		"Pad": runtime.NewTensor(ir.F32, N), "S5": runtime.NewTensor(ir.F8E5M2, N),
		"NB": runtime.NewTensor(ir.Bool, N),
	}
	args := []runtime.Arg{X, Y}
	for _, n := range []string{"E4", "E5", "W4", "W5", "H5", "I4", "A4", "D5", "Pad", "S5", "NB"} {
		args = append(args, out[n])
	}
	if _, err := (CPU{}).Launch(k, args, runtime.LaunchOptions{}); err != nil {
		t.Fatal(err)
	}
	e4 := func(x float64) float64 { return refF8(ir.F8E4M3, x) }
	e5 := func(x float64) float64 { return refF8(ir.F8E5M2, x) }
	f32 := func(x float64) float64 { return float64(float32(x)) }
	blockSum := map[int]float64{}
	for i := 0; i < (N+127)/128*128; i++ {
		y := 448.0 // POS_INF padding rounds to e4m3fn's largest value
		if i < N {
			y = Y.ElemAt(i)
		}
		blockSum[i/128] += y
	}
	bad := 0
	check := func(name string, i int, got, want float64) {
		if !sameValue(got, want) && bad < 20 {
			bad++
			t.Errorf("%s[%d] = %g, want %g (x = %g)", name, i, got, want, X.ElemAt(i))
		}
	}
	for i := 0; i < N; i++ {
		x := X.ElemAt(i)
		var v float64
		switch i % 8 {
		case 0:
			v = math.NaN()
		case 1:
			v = math.Inf(1)
		case 2:
			v = math.Inf(-1)
		case 3:
			v = f32(x * 1000)
		case 4:
			v = f32(x * 1e5)
		case 5:
			v = f32(float64(float32(x) * float32(0.01)))
		case 6:
			v = f32(float64(float32(x) * float32(1e-4)))
		case 7:
			v = float64(i/8%1024)*0.25 - 128
		}
		a := e4(v)
		if i%8 == 0 {
			check("W4", i, out["W4"].ElemAt(i), math.NaN())
			a = e4(x)
		} else {
			check("W4", i, out["W4"].ElemAt(i), a)
		}
		check("E4", i, out["E4"].ElemAt(i), a)
		check("E5", i, out["E5"].ElemAt(i), e5(v))
		check("S5", N-1-i, out["S5"].ElemAt(N-1-i), e5(v))
		nb := 0.0
		if v != 0 { // NaN too
			nb = 1
		}
		check("NB", i, out["NB"].ElemAt(i), nb)
		check("W5", i, out["W5"].ElemAt(i), e5(v)) // float8 e5m2 values are float16 values
		check("H5", i, out["H5"].ElemAt(i), e5(runtime.RoundTo(ir.F16, v)))
		iv := 0.0 // NaN converts to 0 (ir.FloatToInt); |e4m3| <= 448 needs no saturation
		if w := e4(v); !math.IsNaN(w) {
			iv = math.Trunc(w) + 0 // an integer has no -0
		}
		check("I4", i, out["I4"].ElemAt(i), iv)
		check("A4", i, out["A4"].ElemAt(i), math.Max(e4(e4(a*a)-a), -a))
		check("D5", i, out["D5"].ElemAt(i), e5(e5(v)/e5(x)))
		y := Y.ElemAt(i)
		want := f32(y + f32(blockSum[i/128]))
		if got := out["Pad"].ElemAt(i); math.Abs(got-want) > 1e-6*math.Abs(want)+1e-6 && bad < 20 {
			bad++
			t.Errorf("Pad[%d] = %g, want %g", i, got, want)
		}
	}
}

// TestByteTilesKernel: byte_tiles.tile (16 one-byte elements per thread)
// at N=10007 against int8/uint8 wrapping and float8 negation done here.
func TestByteTilesKernel(t *testing.T) {
	k, err := compile.File("../testdata/kernels/byte_tiles.tile", compile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	const N = 10007
	rng := rand.New(rand.NewPCG(16, 4096))
	I, U, F := runtime.NewTensor(ir.I8, N), runtime.NewTensor(ir.U8, N), runtime.NewTensor(ir.F8E4M3, N)
	for _, x := range []*runtime.Tensor{I, U, F} {
		for j := range x.Data {
			x.Data[j] = byte(rng.Uint32())
		}
	}
	I2, U2, F2 := runtime.NewTensor(ir.I8, N), runtime.NewTensor(ir.U8, N), runtime.NewTensor(ir.F8E4M3, N)
	Sum, W := runtime.NewTensor(ir.I32, N), runtime.NewTensor(ir.F32, N)
	if _, err := (CPU{}).Launch(k, []runtime.Arg{I, U, F, I2, U2, F2, Sum, W}, runtime.LaunchOptions{}); err != nil {
		t.Fatal(err)
	}
	vals := f8Patterns(ir.F8E4M3)
	for j := 0; j < N; j++ {
		iw, uw := int8(I.Data[j])*5, uint8(U.Data[j])*9
		f := vals[F.Data[j]]
		if got := int8(I2.Data[j]); got != iw {
			t.Fatalf("I2[%d] = %d, want %d", j, got, iw)
		}
		if got := U2.Data[j]; got != uw {
			t.Fatalf("U2[%d] = %d, want %d", j, got, uw)
		}
		if got := F2.ElemAt(j); !sameValue(got, -f) {
			t.Fatalf("F2[%d] = %g, want %g", j, got, -f)
		}
		if got := Sum.AtInt(j); got != int64(iw)+int64(uw) {
			t.Fatalf("Sum[%d] = %d, want %d", j, got, int64(iw)+int64(uw))
		}
		if got := W.ElemAt(j); !sameValue(got, f) {
			t.Fatalf("W[%d] = %g, want %g", j, got, f)
		}
	}
}

// TestFloat8MatmulKernels: float8_matmul.tile's kernels at odd sizes,
// e4m3 x e4m3, e4m3 x e5m2 and e5m2 (stored (K, M)) x e4m3, against the
// float64 sum of the exact products: the float32 accumulation may differ
// from it by a few float32 ulps of the sum of |products| per k-step, and
// the bf16 output by half a bf16 ulp more.
func TestFloat8MatmulKernels(t *testing.T) {
	const M, N, K = 70, 45, 100
	for _, tc := range []struct {
		kernel string
		tb     ir.DType
		bt, at bool
	}{
		{"float8_matmul", ir.F8E4M3, false, false},
		{"float8_matmul", ir.F8E5M2, false, false},
		{"float8_matmul_bt", ir.F8E4M3, true, false},
		{"float8_matmul_bt", ir.F8E5M2, true, false},
		{"float8_matmul_at", ir.F8E4M3, false, true},
	} {
		t.Run(tc.kernel+"/"+tc.tb.String(), func(t *testing.T) {
			consts := map[string]string{"TB": map[ir.DType]string{ir.F8E4M3: "float8_e4m3fn", ir.F8E5M2: "float8_e5m2"}[tc.tb], "tm": "32", "tn": "16", "tk": "32"}
			k, err := compile.File("../testdata/kernels/float8_matmul.tile", compile.Options{Kernel: tc.kernel, Consts: consts})
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(70, 45))
			A := runtime.RandNormal(rng, ir.F8E4M3, M, K)
			if tc.at {
				A = runtime.RandNormal(rng, ir.F8E5M2, K, M) // stored (K, M)
			}
			a := func(i, k int) float64 {
				if tc.at {
					return A.At(k, i)
				}
				return A.At(i, k)
			}
			var B, C *runtime.Tensor
			if tc.bt {
				B, C = runtime.RandNormal(rng, tc.tb, N, K), runtime.NewTensor(ir.BF16, M, N)
			} else {
				B, C = runtime.RandNormal(rng, tc.tb, K, N), runtime.NewTensor(ir.F32, M, N)
			}
			if _, err := (CPU{}).Launch(k, []runtime.Arg{A, B, C}, runtime.LaunchOptions{}); err != nil {
				t.Fatal(err)
			}
			for i := 0; i < M; i++ {
				for j := 0; j < N; j++ {
					s, abs := 0.0, 0.0
					for kk := 0; kk < K; kk++ {
						var b float64
						if tc.bt {
							b = B.At(j, kk)
						} else {
							b = B.At(kk, j)
						}
						s += a(i, kk) * b
						abs += math.Abs(a(i, kk) * b)
					}
					tol := abs * K * 0x1p-24
					if tc.bt {
						tol += math.Abs(s) * 0x1p-8
					}
					if got := C.At(i, j); math.Abs(got-s) > tol {
						t.Fatalf("C[%d,%d] = %g, want %g (tol %g)", i, j, got, s, tol)
					}
				}
			}
		})
	}
}
