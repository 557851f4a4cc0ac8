package scalar

import "math"

// FloorDiv is Python's x // y on integers: the quotient rounded toward
// negative infinity. x // 0 is 0, as numpy's integer floor_divide gives
// (with a warning, which the interpreter reports as numpy does; a GPU has no
// trap), and math.MinInt64 // -1 wraps to math.MinInt64, as two's-complement
// division does. Compile-time evaluation reports x // 0 as Python does.
func FloorDiv(x, y int64) int64 {
	if y == 0 {
		return 0
	}
	if y == -1 {
		return -x // Go's x / -1 is the same, but says so only in the spec
	}
	q := x / y
	if x%y != 0 && (x < 0) != (y < 0) {
		q--
	}
	return q
}

// Mod is Python's x % y on integers: the remainder has the divisor's sign.
// x % 0 is 0, as numpy's integer remainder gives (with a warning, see
// FloorDiv).
func Mod(x, y int64) int64 {
	if y == 0 {
		return 0
	}
	if y == -1 {
		return 0
	}
	r := x % y
	if r != 0 && (r < 0) != (y < 0) {
		r += y
	}
	return r
}

// FloorDivFloat is x // y on floats, computed as floor(x / y) with IEEE
// division: x // 0 is ±Inf or NaN. (CPython derives the quotient from
// fmod and so differs in the last place for some operands, e.g. 1 // 0.1.)
func FloorDivFloat(x, y float64) float64 {
	return math.Floor(x / y)
}

// ModFloat is Python's x % y on floats: the remainder has the divisor's
// sign; x % 0 is NaN.
func ModFloat(x, y float64) float64 {
	if y == 0 {
		return math.NaN()
	}
	r := math.Mod(x, y)
	if r != 0 && (r < 0) != (y < 0) {
		r += y
	}
	return r
}

// Pow is x ** y on integers, wrapping at 64 bits. A negative exponent gives
// the integer part of the true power: 1 and -1 keep their magnitude, any
// other base gives 0 (1/x**|y| truncated; 0 ** negative is 0 too). numpy
// refuses integers to negative powers: the builder does too where the
// exponent is a constant, and the interpreter warns where it is not.
func Pow(x, y int64) int64 {
	if y < 0 {
		switch x {
		case 1:
			return 1
		case -1:
			if y&1 == 0 {
				return 1
			}
			return -1
		}
		return 0
	}
	r := int64(1)
	for y > 0 {
		if y&1 == 1 {
			r *= x
		}
		x *= x
		y >>= 1
	}
	return r
}

// PowFloat is x ** y on floats, IEEE pow (math.Pow): a negative base with a
// fractional exponent is NaN rather than Python's complex number.
func PowFloat(x, y float64) float64 {
	return math.Pow(x, y)
}

// MaxFloat and MinFloat are IEEE 754-2019 maximum and minimum, as PTX
// max.NaN and min.NaN: NaN if either operand is NaN, and +0 > -0.
func MaxFloat(x, y float64) float64 {
	return maxFloat(x, y)
}

// MaxFloatNum is max ignoring NaN (C's fmax, PTX's max.f32, cuTile's
// maximum without propagate_nan): a NaN operand gives the other one; two
// NaNs give NaN. -0 < +0 as in MaxFloat.
func MaxFloatNum(x, y float64) float64 {
	switch {
	case x != x:
		return y
	case y != y:
		return x
	}
	return maxFloat(x, y)
}

// MinFloatNum is MinFloat ignoring NaN, as MaxFloatNum is MaxFloat.
func MinFloatNum(x, y float64) float64 {
	switch {
	case x != x:
		return y
	case y != y:
		return x
	}
	return MinFloat(x, y)
}

func maxFloat(x, y float64) float64 {
	switch {
	case x > y:
		return x
	case y > x:
		return y
	case x != x:
		return x
	case y != y:
		return y
	case math.Signbit(x):
		return y
	}
	return x
}

// MinFloat: see MaxFloat.
func MinFloat(x, y float64) float64 {
	switch {
	case x < y:
		return x
	case y < x:
		return y
	case x != x:
		return x
	case y != y:
		return y
	case math.Signbit(x):
		return x
	}
	return y
}

// Wrap reduces x to a signed two's-complement integer of the given width
// (1 to 64 bits), as GPU integer arithmetic does: Wrap(32, 1<<31) is
// math.MinInt32.
func Wrap(bits int, x int64) int64 {
	s := uint(64 - bits)
	return x << s >> s
}

// Bool is the bool value (0 or 1) of an integer: x != 0.
func Bool(x int64) int64 {
	if x != 0 {
		return 1
	}
	return 0
}

// FloatToInt converts x to a signed integer of the given width (1 to 64
// bits) as PTX cvt.rzi.sat does: truncate toward zero and saturate to the
// type's range; NaN gives 0.
func FloatToInt(bits int, x float64) int64 {
	if x != x {
		return 0
	}
	limit := float64(uint64(1) << uint(bits-1)) // -limit is the type's minimum, exact in float64
	switch {
	case x >= limit:
		return math.MaxInt64 >> uint(64-bits)
	case x <= -limit:
		return math.MinInt64 >> uint(64-bits)
	}
	return int64(x)
}

// Shl is x << y at 64 bits for a count y >= 0: counts of 64 and more give 0.
func Shl(x, y int64) int64 {
	if y >= 64 || y < 0 {
		return 0
	}
	return x << uint(y)
}

// Shr is the arithmetic shift x >> y for a count y >= 0: counts of 64 and
// more give 0 or -1, the sign of x.
func Shr(x, y int64) int64 {
	if y >= 64 || y < 0 {
		y = 63
	}
	return x >> uint(y)
}

// SumRoundOdd is p + c rounded to float64 with round-to-odd: the exact sum
// when it is a float64, otherwise the neighbour of the exact sum whose last
// mantissa bit is 1. Rounding that result once more, to any binary format
// of at most 51 significant bits (f32, f16, bf16), gives the correctly
// rounded (nearest even) exact sum, where rounding p + c to nearest twice
// could be off by one unit. Infinities and NaN pass through.
func SumRoundOdd(p, c float64) float64 {
	s := p + c
	if math.IsInf(s, 0) || s != s {
		return s
	}
	// Knuth's TwoSum: s + e == p + c exactly.
	bv := s - p
	e := (p - (s - bv)) + (c - bv)
	if e == 0 {
		return s
	}
	b := math.Float64bits(s)
	if b&1 == 1 {
		return s
	}
	// The exact sum lies strictly between s and its neighbour on e's side,
	// which is odd.
	if (e > 0) == (s > 0) {
		return math.Float64frombits(b + 1)
	}
	return math.Float64frombits(b - 1)
}

// FMA32 is fma(a, b, c) in float32, as PTX fma.rn.f32: the exact a*b + c
// rounded once to the nearest float32 (ties to even). The product of two
// float32 values is exact in float64; the sum is rounded to odd there and
// then to float32, which is one correct rounding.
func FMA32(a, b, c float32) float32 {
	return float32(SumRoundOdd(float64(a)*float64(b), float64(c)))
}

// Unsigned integers: a value of an unsigned type of width bits is held in
// an int64 as its value for widths below 64, and as its bit pattern for 64
// bits (values from 2^63 are negative int64s). Addition, subtraction,
// multiplication, the bitwise ops and left shifts are the same bits as the
// signed ones, followed by WrapUnsigned; division, remainder, comparison,
// right shift and conversions to and from float differ, and are here.

// WrapUnsigned reduces x to an unsigned integer of the given width (1 to 64
// bits): its low bits, zero-extended.
func WrapUnsigned(bits int, x int64) int64 {
	if bits >= 64 {
		return x
	}
	return x & (1<<uint(bits) - 1)
}

// FloatToUnsigned converts x to an unsigned integer of the given width as
// PTX cvt.rzi.sat.u*.f* does: truncate toward zero, saturate to [0, 2^bits-1];
// NaN gives 0.
func FloatToUnsigned(bits int, x float64) int64 {
	if x != x || x <= 0 {
		return 0
	}
	limit := math.Ldexp(1, bits) // 2^bits, exact
	if x >= limit {
		return int64(uint64(math.MaxUint64) >> uint(64-bits))
	}
	return int64(uint64(x))
}

// UnsignedToFloat is the value of the unsigned 64-bit pattern x as a
// float64 (rounded to nearest even above 2^53).
func UnsignedToFloat(x int64) float64 { return float64(uint64(x)) }

// FloorDivUnsigned is x // y on unsigned 64-bit patterns; x // 0 is 0 (see
// FloorDiv).
func FloorDivUnsigned(x, y int64) int64 {
	if y == 0 {
		return 0
	}
	return int64(uint64(x) / uint64(y))
}

// ModUnsigned is x % y on unsigned 64-bit patterns; x % 0 is 0.
func ModUnsigned(x, y int64) int64 {
	if y == 0 {
		return 0
	}
	return int64(uint64(x) % uint64(y))
}

// LessUnsigned is x < y on unsigned 64-bit patterns.
func LessUnsigned(x, y int64) bool { return uint64(x) < uint64(y) }

// ShrUnsigned is the logical shift x >> y of an unsigned value of the given
// width for a count y >= 0: counts of the width and more give 0.
func ShrUnsigned(bits int, x, y int64) int64 {
	if y >= int64(bits) {
		return 0
	}
	return int64(uint64(WrapUnsigned(bits, x)) >> uint(y))
}

// ShiftCount is a run-time shift count as the GPU's shl and shr take it:
// counts are unsigned, so a negative count is a large one (shifting
// everything out).
func ShiftCount(y int64) int64 {
	if y < 0 {
		return math.MaxInt64
	}
	return y
}

// smallestNormalF32 is float32's smallest normal magnitude, 2^-126.
const smallestNormalF32 = 0x1p-126

// SubnormalF32 reports whether x, a float32 value held in a float64, is
// nonzero with a magnitude below float32's smallest normal (a float32
// subnormal, or a value that would round to one).
func SubnormalF32(x float64) bool { return x != 0 && math.Abs(x) < smallestNormalF32 }

// FlushF32 is PTX's .ftz on a float32 value held in a float64: a
// subnormal (SubnormalF32) becomes zero of the same sign.
func FlushF32(x float64) float64 {
	if SubnormalF32(x) {
		return math.Copysign(0, x)
	}
	return x
}
