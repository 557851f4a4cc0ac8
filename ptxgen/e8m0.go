package ptxgen

import (
	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/ir/scalar"
)

// float8_e8m0fnu (mma_scaled's scale factors) on the GPU: like float8, a
// value is its bit pattern in the low byte of a 32-bit register; it is
// loaded, stored, moved and widened to float32, never computed with (the
// builder refuses arithmetic on it, lower's check everything else).

// e8m0Bits is the constant x as float8_e8m0fnu bits, as the interpreter
// stores it (runtime.E8M0Bits): cuTile's constant rounding, and NaN for a
// negative value (a NEG_ZERO or NEG_INF load padding).
func e8m0Bits(x float64) int64 {
	h, ok := scalar.E8M0Bits(x)
	if !ok {
		return scalar.E8M0NaN
	}
	return int64(h)
}

// e8m0ToF32 widens float8_e8m0fnu bits h to the float32 of the same value
// (ir/scalar.E8M0Value): h is float32's biased exponent (2^(h-127)) with a
// zero mantissa, except 0x00, 2^-127, which is float32's subnormal
// 0x00400000, and 0xff, NaN (0x7fffffff, a quiet NaN).
func (e *emitter) e8m0ToF32(h Reg) Reg {
	b := e.def(B32, "shl.b32", h, Imm(23))
	zero := e.def(Pred, "setp.eq.u32", h, Imm(0))
	b = e.def(B32, "selp.b32", Imm(0x00400000), b, zero)
	nan := e.def(Pred, "setp.eq.u32", h, Imm(scalar.E8M0NaN))
	b = e.def(B32, "selp.b32", Imm(0x7fffffff), b, nan)
	return e.def(F32, "mov.b32", b)
}

// convertE8M0 is convert from float8_e8m0fnu (the only direction: the
// builder refuses conversions into it).
func (e *emitter) convertE8M0(x Reg, from, to ir.DType) Reg {
	if from != ir.F8E8M0 {
		e.fail("conversion from %s to %s is not supported on the GPU", from, to)
		return x
	}
	f := e.e8m0ToF32(x)
	if to == ir.F32 || to == ir.TF32 {
		return f
	}
	return e.convert(f, ir.F32, to)
}
