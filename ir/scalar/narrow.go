package scalar

import "math"

// Narrow floating-point formats are produced from float64 in one rounding
// step (round to nearest, ties to even), never through float32: rounding a
// float64 to f32 and then to a narrower format could round twice. The
// interpreter (runtime) keeps narrow values as these bit patterns, and
// ptxgen writes float8 constants with them.

// RoundBits rounds the finite, non-zero float64 magnitude bits b (sign
// cleared) to a binary format with mantBits explicit mantissa bits, exponent
// bias bias and maxBiased as the all-ones (inf/NaN) exponent, returning the
// format's bits without sign. Overflow gives infinity; values below half the
// smallest subnormal give zero.
func RoundBits(b uint64, mantBits, bias, maxBiased int) uint64 {
	exp := int(b>>52) & 0x7ff
	if exp == 0 {
		return 0 // a float64 subnormal is far below any narrow format's range
	}
	e := exp - 1023
	m := b&(1<<52-1) | 1<<52 // 53 significant bits
	emin := 1 - bias
	var shift int
	if e >= emin {
		shift = 52 - mantBits
	} else {
		// Subnormal: the unit is 2^(emin-mantBits); m*2^(e-52) / unit.
		shift = 52 - mantBits + emin - e
		if shift > 54 {
			return 0
		}
	}
	q := m >> shift
	rem := m & (1<<shift - 1)
	half := uint64(1) << (shift - 1)
	if rem > half || (rem == half && q&1 == 1) {
		q++
	}
	var r uint64
	if e >= emin {
		// q holds the implicit bit at 1<<mantBits; a carry out of the
		// mantissa bumps the exponent, which is what we want.
		r = uint64(e+bias-1)<<mantBits + q
	} else {
		r = q // may carry into the smallest normal, which is correct
	}
	if r >= uint64(maxBiased)<<mantBits {
		return uint64(maxBiased) << mantBits // infinity
	}
	return r
}

// Float8Bits rounds x to an 8-bit float format, e4m3fn or (e5m2) e5m2, as
// PTX cvt.rn.satfinite does: round to nearest even; magnitudes above the
// largest finite value, infinities included, give that value with x's sign
// (448 for e4m3fn, 57344 for e5m2); NaN gives the format's NaN (0x7f with
// x's sign).
func Float8Bits(e5m2 bool, x float64) uint8 {
	mant, bias, maxFinite := 3, 7, uint64(0x7e) // e4m3fn: S.1111.111 is NaN, no infinities
	if e5m2 {
		mant, bias, maxFinite = 2, 15, 0x7b // e5m2: exponent 31 is inf/NaN
	}
	b := math.Float64bits(x)
	sign := uint8(b>>56) & 0x80
	b &^= 1 << 63
	if b > 0x7ff0000000000000 {
		return sign | 0x7f
	}
	if b == 0x7ff0000000000000 {
		return sign | uint8(maxFinite)
	}
	// roundBits with an all-ones exponent one past e4m3fn's top (16) or at
	// e5m2's (31): anything that rounds past the largest finite saturates.
	r := RoundBits(b, mant, bias, 1<<(7-mant))
	if r > maxFinite {
		r = maxFinite
	}
	return sign | uint8(r)
}

// Float8Value returns the value of the bits h of an 8-bit float format,
// e4m3fn or (e5m2) e5m2.
func Float8Value(e5m2 bool, h uint8) float64 {
	mant, bias := 3, 7
	if e5m2 {
		mant, bias = 2, 15
	}
	exp := int(h&0x7f) >> mant
	m := int(h) & (1<<mant - 1)
	var x float64
	switch {
	case !e5m2 && h&0x7f == 0x7f, e5m2 && exp == 31 && m != 0:
		return math.NaN()
	case e5m2 && exp == 31:
		x = math.Inf(1)
	case exp == 0:
		x = math.Ldexp(float64(m), 1-bias-mant)
	default:
		x = math.Ldexp(float64(1<<mant+m), exp-bias-mant)
	}
	if h&0x80 != 0 {
		x = -x
	}
	return x
}
