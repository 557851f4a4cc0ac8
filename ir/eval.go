package ir

// Elementwise ops on single values, for everything that computes what an IR
// op computes without running a kernel: lower's constant folding and the
// interpreter. The arithmetic itself is package scalar's; this file only says
// which op means which function, and how a dtype wraps its results.

import (
	"math"

	"github.com/tilec/tilec/ir/scalar"
)

// EvalIntBinary computes the binary elementwise op on integer or bool
// operands in 64 bits; callers wrap the result to the result dtype with
// WrapInt. ok is false for ops that have no integer form (div, and the
// comparison cmp, whose predicate is an attribute).
func EvalIntBinary(op Op, x, y int64) (r int64, ok bool) {
	switch op {
	case OpAdd:
		return x + y, true
	case OpSub:
		return x - y, true
	case OpMul:
		return x * y, true
	case OpFloorDiv:
		return scalar.FloorDiv(x, y), true
	case OpMod:
		return scalar.Mod(x, y), true
	case OpPow:
		return scalar.Pow(x, y), true
	case OpMin:
		return min(x, y), true
	case OpMax:
		return max(x, y), true
	case OpAnd:
		return x & y, true
	case OpOr:
		return x | y, true
	case OpXor:
		return x ^ y, true
	case OpShl:
		return scalar.Shl(x, scalar.ShiftCount(y)), true
	case OpShr:
		return scalar.Shr(x, scalar.ShiftCount(y)), true
	}
	return 0, false
}

// IntBinaryWarning says when an integer op's result for the operand y
// (divisor or exponent) is a convention where Python raises and numpy
// warns: "integer division by zero" and "integer modulo by zero" (the
// result is 0, numpy's), "integer to a negative power" (the integer part
// of the true power). It is "" otherwise. The interpreter reports these as
// warnings and lower's fold leaves them to run time, so they are reported.
func IntBinaryWarning(op Op, y int64) string {
	switch {
	case op == OpFloorDiv && y == 0:
		return "integer division by zero (result 0, as numpy's)"
	case op == OpMod && y == 0:
		return "integer modulo by zero (result 0, as numpy's)"
	case op == OpPow && y < 0:
		return "integer to a negative power (result: the integer part of the true power)"
	}
	return ""
}

// EvalFloatBinary computes the binary elementwise op on float operands in
// float64; callers round the result to the result dtype. ok is false for
// ops that have no float form.
func EvalFloatBinary(op Op, x, y float64) (r float64, ok bool) {
	switch op {
	case OpAdd:
		return x + y, true
	case OpSub:
		return x - y, true
	case OpMul:
		return x * y, true
	case OpDiv:
		return x / y, true
	case OpFloorDiv:
		return scalar.FloorDivFloat(x, y), true
	case OpMod:
		return scalar.ModFloat(x, y), true
	case OpPow:
		return scalar.PowFloat(x, y), true
	case OpMin:
		return scalar.MinFloat(x, y), true
	case OpMax:
		return scalar.MaxFloat(x, y), true
	case OpAtan2:
		return math.Atan2(x, y), true
	}
	return math.NaN(), false
}

// EvalIntUnary computes the unary elementwise op on an integer or bool
// operand of dtype d (not is logical on bool, bitwise on integers); callers
// wrap the result with WrapInt.
func EvalIntUnary(op Op, d DType, x int64) (r int64, ok bool) {
	switch op {
	case OpNeg:
		return -x, true
	case OpAbs:
		if x < 0 {
			return -x, true
		}
		return x, true
	case OpNot:
		if d == Bool {
			return 1 - x, true
		}
		return ^x, true
	}
	return 0, false
}

// EvalFloatUnary computes the unary elementwise op on a float operand in
// float64; callers round the result to the result dtype.
func EvalFloatUnary(op Op, x float64) (r float64, ok bool) {
	switch op {
	case OpNeg:
		return -x, true
	case OpAbs:
		return math.Abs(x), true
	case OpExp:
		return math.Exp(x), true
	case OpExp2:
		return math.Exp2(x), true
	case OpLog:
		return math.Log(x), true
	case OpSqrt:
		return math.Sqrt(x), true
	case OpRsqrt:
		return 1 / math.Sqrt(x), true
	case OpTanh:
		return math.Tanh(x), true
	case OpSin:
		return math.Sin(x), true
	case OpCos:
		return math.Cos(x), true
	case OpTan:
		return math.Tan(x), true
	case OpSinh:
		return math.Sinh(x), true
	case OpCosh:
		return math.Cosh(x), true
	case OpFloor:
		return math.Floor(x), true
	case OpCeil:
		return math.Ceil(x), true
	case OpLog2:
		return math.Log2(x), true
	}
	return math.NaN(), false
}

// WrapInt reduces x to the integer or bool dtype d: two's complement for
// integers (scalar.Wrap), x != 0 for bool.
func WrapInt(d DType, x int64) int64 {
	if d == Bool {
		return scalar.Bool(x)
	}
	if d.IsUnsigned() {
		return scalar.WrapUnsigned(d.Bits(), x)
	}
	return scalar.Wrap(d.Bits(), x)
}

// IntToFloat is the value of the integer or bool x of dtype d as a float64
// (u64 patterns from 2^63 are large positive values).
func IntToFloat(d DType, x int64) float64 {
	if d == U64 {
		return scalar.UnsignedToFloat(x)
	}
	return float64(x)
}

// IntOrderKey maps a value of the integer dtype d to an int64 whose signed
// order is d's order: the value itself, but for u64, whose patterns are
// flipped at the sign bit.
func IntOrderKey(d DType, x int64) int64 {
	if d == U64 {
		return x ^ math.MinInt64
	}
	return x
}

// EvalIntBinaryOf is EvalIntBinary for operands of the integer or bool
// dtype d: unsigned division, remainder, min and max, and the shifts
// (counts as PTX takes them: unsigned, at least the width shifts all bits
// out; right shifts are logical on unsigned dtypes, arithmetic on signed).
// Callers wrap the result with WrapInt.
func EvalIntBinaryOf(op Op, d DType, x, y int64) (r int64, ok bool) {
	switch op {
	case OpShl:
		return scalar.Shl(x, scalar.ShiftCount(y)), true
	case OpShr:
		if d.IsUnsigned() {
			return scalar.ShrUnsigned(d.Bits(), x, scalar.ShiftCount(y)), true
		}
		return scalar.Shr(x, scalar.ShiftCount(y)), true
	}
	if d == U64 {
		switch op {
		case OpFloorDiv:
			return scalar.FloorDivUnsigned(x, y), true
		case OpMod:
			return scalar.ModUnsigned(x, y), true
		case OpMin:
			if scalar.LessUnsigned(y, x) {
				return y, true
			}
			return x, true
		case OpMax:
			if scalar.LessUnsigned(x, y) {
				return y, true
			}
			return x, true
		}
	}
	return EvalIntBinary(op, x, y)
}

// FloatToInt converts x to the integer or bool dtype d: integers truncate
// toward zero and saturate, NaN giving 0 (scalar.FloatToInt); bool is
// x != 0, so NaN is true, as in Python.
func FloatToInt(d DType, x float64) int64 {
	if d == Bool {
		if x != 0 {
			return 1
		}
		return 0
	}
	if d.IsUnsigned() {
		return scalar.FloatToUnsigned(d.Bits(), x)
	}
	return scalar.FloatToInt(d.Bits(), x)
}

// IntRange is the smallest and largest value of the integer or bool dtype
// d (0 and 1 for bool).
func IntRange(d DType) (lo, hi int64) {
	if d == Bool {
		return 0, 1
	}
	bits := uint(d.Bits())
	if d.IsUnsigned() {
		return 0, WrapInt(d, -1)
	}
	return math.MinInt64 >> (64 - bits), math.MaxInt64 >> (64 - bits)
}
