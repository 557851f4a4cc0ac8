package runtime

import (
	"math"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/ir/scalar"
)

// Narrow floating-point formats are produced from float64 in one rounding
// step (round to nearest, ties to even), never through float32: rounding a
// float64 to f32 and then to f16 could round twice. Values are kept as the
// uint16 bit patterns the GPU stores.

// F16Bits rounds x to IEEE binary16 (round to nearest even; overflow to
// infinity; NaN to the canonical quiet NaN with x's sign).
func F16Bits(x float64) uint16 { return halfBits(x, 10, 15, 31) }

// F16Float returns the value of binary16 bits h.
func F16Float(h uint16) float64 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h>>10) & 0x1f
	mant := uint32(h & 0x3ff)
	switch exp {
	case 0:
		x := float64(mant) * 0x1p-24
		if sign != 0 {
			x = -x
		}
		return x
	case 31:
		if mant != 0 {
			return math.NaN()
		}
		exp = 255 - 112 // infinity
	}
	return float64(math.Float32frombits(sign | (exp+112)<<23 | mant<<13))
}

// BF16Bits rounds x to bfloat16 (round to nearest even; overflow to
// infinity; NaN to a quiet NaN with x's sign).
func BF16Bits(x float64) uint16 { return halfBits(x, 7, 127, 255) }

// halfBits rounds x to a 16-bit binary format with mantBits mantissa bits,
// exponent bias and all-ones biased exponent maxBiased. Infinity and the
// quiet NaN are built from the format's own fields, so F16 and BF16 share
// one path.
func halfBits(x float64, mantBits, bias, maxBiased int) uint16 {
	b := math.Float64bits(x)
	sign := uint16(b>>48) & 0x8000
	b &^= 1 << 63
	if b >= 0x7ff0000000000000 {
		inf := uint16(maxBiased) << mantBits
		if b > 0x7ff0000000000000 {
			return sign | inf | 1<<(mantBits-1) // quiet NaN
		}
		return sign | inf
	}
	return sign | uint16(scalar.RoundBits(b, mantBits, bias, maxBiased))
}

// BF16Float returns the value of bfloat16 bits h.
func BF16Float(h uint16) float64 {
	return float64(math.Float32frombits(uint32(h) << 16))
}

// F8Bits rounds x to the 8-bit float dtype d (ir.F8E4M3 or ir.F8E5M2) as
// PTX cvt.rn.satfinite does (scalar.Float8Bits).
func F8Bits(d ir.DType, x float64) uint8 { return scalar.Float8Bits(d == ir.F8E5M2, x) }

// F8Float returns the value of the bits h of the 8-bit float dtype d.
func F8Float(d ir.DType, h uint8) float64 { return scalar.Float8Value(d == ir.F8E5M2, h) }

// F32ToF16 and the following are the float32 forms of the conversions.
func F32ToF16(x float32) uint16  { return F16Bits(float64(x)) }
func F16ToF32(h uint16) float32  { return float32(F16Float(h)) }
func F32ToBF16(x float32) uint16 { return BF16Bits(float64(x)) }
func BF16ToF32(h uint16) float32 { return math.Float32frombits(uint32(h) << 16) }

// RoundTF32 rounds x to TF32 precision (10 explicit mantissa bits) as PTX
// cvt.rna.tf32.f32 does: round to nearest, ties away from zero, the result
// kept in float32 storage with the low 13 bits cleared. Inf and NaN pass
// through; the largest finite values round up to infinity.
func RoundTF32(x float32) float32 {
	b := math.Float32bits(x)
	if b&0x7f800000 == 0x7f800000 {
		return x
	}
	b = (b + 0x1000) &^ 0x1fff
	return math.Float32frombits(b)
}

// RoundTo rounds x to the nearest value of dtype d and returns it as a
// float64: floats round to nearest even (TF32 values are f32 values; only
// mma inputs and conversions to TF32 use tf32 precision), integers truncate
// toward zero and saturate (ir.FloatToInt), bool is x != 0.
func RoundTo(d ir.DType, x float64) float64 {
	switch d {
	case ir.F16:
		return F16Float(F16Bits(x))
	case ir.BF16:
		return BF16Float(BF16Bits(x))
	case ir.F32, ir.TF32:
		return float64(float32(x))
	case ir.F8E4M3, ir.F8E5M2:
		return F8Float(d, F8Bits(d, x))
	case ir.F8E8M0:
		return scalar.E8M0Value(E8M0Bits(x))
	case ir.F64:
		return x
	}
	if d == ir.Bool || d.IsInt() {
		return ir.IntToFloat(d, ir.FloatToInt(d, x))
	}
	return x
}

// E8M0Bits rounds x to float8_e8m0fnu as ir/scalar.E8M0Bits does (cuTile's
// constant rule); a negative x, which the format cannot hold and which only
// host data can bring here (a kernel's e8m0 values are the format's own),
// gives NaN.
func E8M0Bits(x float64) uint8 {
	h, ok := scalar.E8M0Bits(x)
	if !ok {
		return scalar.E8M0NaN
	}
	return h
}

// F8E8M0Float is the value of float8_e8m0fnu bits h (ir/scalar.E8M0Value).
func F8E8M0Float(h uint8) float64 { return scalar.E8M0Value(h) }
