package scalar

import "math"

// float8_e8m0fnu (OCP MX's E8M0 scale format) is an unsigned biased
// exponent: bits e in 0..254 stand for 2^(e-127), 0xff is NaN. It has no
// sign, no zero and no infinity, so every conversion into it must say what
// happens to those; E8M0Bits follows cuTile's rule for constants
// (cuda/tile/_bytecode/float.py), the one conversion into the format that
// tilec implements.

// E8M0NaN is float8_e8m0fnu's only NaN encoding.
const E8M0NaN = 0xff

// E8M0Bits rounds a non-negative x to float8_e8m0fnu as cuTile encodes a
// constant: to the nearer power of two in linear distance (x at or above
// 1.5 * 2^e goes up to 2^(e+1): with no mantissa bit, ties go up); zero and
// magnitudes below 2^-127 give 2^-127 (0x00), the smallest value; infinity,
// NaN and anything that rounds past 2^127 give NaN. ok is false for a
// negative x (-0 included), which the format cannot hold: cuTile refuses it.
func E8M0Bits(x float64) (bits uint8, ok bool) {
	if math.Signbit(x) {
		return 0, false
	}
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return E8M0NaN, true
	}
	if x == 0 {
		return 0, true
	}
	frac, exp := math.Frexp(x) // x = frac * 2^exp, frac in [0.5, 1)
	e := exp - 1               // x = (2*frac) * 2^e, 2*frac in [1, 2)
	if e < -127 {
		return 0, true
	}
	if 2*frac >= 1.5 {
		e++
	}
	if e > 127 {
		return E8M0NaN, true
	}
	return uint8(e + 127), true
}

// E8M0Value is the value of float8_e8m0fnu bits: 2^(h-127), or NaN for
// 0xff.
func E8M0Value(h uint8) float64 {
	if h == E8M0NaN {
		return math.NaN()
	}
	return math.Ldexp(1, int(h)-127)
}
