package build

// Compile-time evaluation: Python semantics on int64, float64, bool, dtypes,
// strings and tuples. Ints wrap at 64 bits instead of growing.

import (
	"fmt"
	"math"
	"strings"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/ir/scalar"
)

// foldBinary applies a binary operator to two compile-time values.
func foldBinary(op string, x, y value) (value, error) {
	if op == "==" || op == "!=" {
		eq, ok := constEqual(x, y)
		if ok {
			return eq == (op == "=="), nil
		}
	}
	if xt, ok := x.(tuple); ok {
		if yt, ok := y.(tuple); ok && op == "+" {
			out := make(tuple, 0, len(xt)+len(yt))
			return append(append(out, xt...), yt...), nil
		}
	}
	if !isNumber(x) || !isNumber(y) {
		return nil, fmt.Errorf("unsupported operand types for %s: %s and %s", op, describe(x), describe(y))
	}
	xb, xIsBool := x.(bool)
	yb, yIsBool := y.(bool)
	if xIsBool && yIsBool {
		switch op {
		case "&":
			return xb && yb, nil
		case "|":
			return xb || yb, nil
		case "^":
			return xb != yb, nil
		}
	}
	_, xf := x.(float64)
	_, yf := y.(float64)
	var v value
	var err error
	if xf || yf {
		v, err = foldFloat(op, toFloat(x), toFloat(y))
	} else {
		v, err = foldInt(op, toInt(x), toInt(y))
	}
	if _, ok := err.(*overflowError); err != nil && !ok && err != errDivZero && !strings.HasPrefix(err.Error(), "negative shift") {
		err = fmt.Errorf("unsupported operand types for %s: %s and %s", op, describe(x), describe(y))
	}
	return v, err
}

// constEqual compares two compile-time values for == (ok is false when
// they are not comparable, e.g. a tile).
func constEqual(x, y value) (eq, ok bool) {
	if isNumber(x) && isNumber(y) {
		_, xf := x.(float64)
		_, yf := y.(float64)
		if xf || yf {
			return toFloat(x) == toFloat(y), true
		}
		return toInt(x) == toInt(y), true
	}
	switch x := x.(type) {
	case ir.DType, string, padMode, noneVal:
		switch y.(type) {
		case ir.DType, string, padMode, noneVal, int64, float64, bool, tuple:
			return x == y, true
		}
	case tuple:
		yt, isTuple := y.(tuple)
		if !isTuple {
			switch y.(type) {
			case ir.DType, string, padMode, noneVal, int64, float64, bool:
				return false, true
			}
			return false, false
		}
		if len(x) != len(yt) {
			return false, true
		}
		for i := range x {
			e, ok := constEqual(x[i], yt[i])
			if !ok {
				return false, false
			}
			if !e {
				return false, true
			}
		}
		return true, true
	case int64, float64, bool:
		switch y.(type) {
		case ir.DType, string, padMode, noneVal, tuple:
			return false, true
		}
	}
	return false, false
}

func toFloat(v value) float64 {
	switch v := v.(type) {
	case int64:
		return float64(v)
	case float64:
		return v
	case bool:
		if v {
			return 1
		}
	}
	return 0
}

func toInt(v value) int64 {
	switch v := v.(type) {
	case int64:
		return v
	case float64:
		return scalar.FloatToInt(64, v)
	case bool:
		if v {
			return 1
		}
	}
	return 0
}

var errDivZero = fmt.Errorf("division by zero")

// overflowError is compile-time integer arithmetic whose Python result
// does not fit the int64 that holds it: an error, not a wrapped value.
type overflowError struct {
	op   string
	x, y int64
	un   bool // unary: op x
}

func (e *overflowError) Error() string {
	if e.un {
		return fmt.Sprintf("integer overflow: %s(%d) does not fit in 64 bits (compile-time ints are int64)", e.op, e.x)
	}
	return fmt.Sprintf("integer overflow: %d %s %d does not fit in 64 bits (compile-time ints are int64)", e.x, e.op, e.y)
}

// checked turns a checked op's result into a value or an overflowError.
func checked(op string, x, y int64, r int64, ok bool) (value, error) {
	if !ok {
		return nil, &overflowError{op: op, x: x, y: y}
	}
	return r, nil
}

func foldInt(op string, x, y int64) (value, error) {
	switch op {
	case "+":
		r, ok := scalar.AddChecked(x, y)
		return checked(op, x, y, r, ok)
	case "-":
		r, ok := scalar.SubChecked(x, y)
		return checked(op, x, y, r, ok)
	case "*":
		r, ok := scalar.MulChecked(x, y)
		return checked(op, x, y, r, ok)
	case "/":
		if y == 0 {
			return nil, errDivZero
		}
		return float64(x) / float64(y), nil
	case "//":
		if y == 0 {
			return nil, errDivZero
		}
		r, ok := scalar.FloorDivChecked(x, y)
		return checked(op, x, y, r, ok)
	case "%":
		if y == 0 {
			return nil, errDivZero
		}
		return scalar.Mod(x, y), nil
	case "**":
		if y < 0 {
			// Python: an int to a negative power is a float.
			return scalar.PowFloat(float64(x), float64(y)), nil
		}
		r, ok := scalar.PowChecked(x, y)
		return checked(op, x, y, r, ok)
	case "&":
		return x & y, nil
	case "|":
		return x | y, nil
	case "^":
		return x ^ y, nil
	case "<<", ">>":
		if y < 0 {
			return nil, fmt.Errorf("negative shift count %d", y)
		}
		if op == "<<" {
			r, ok := scalar.ShlChecked(x, y)
			return checked(op, x, y, r, ok)
		}
		return scalar.Shr(x, y), nil
	}
	if r, ok := foldCompare(op, x, y); ok {
		return r, nil
	}
	return nil, fmt.Errorf("unsupported operand types for %s: int and int", op)
}

// foldCompare applies comparison op to x and y; ok is false when op is not
// a comparison.
func foldCompare[T int64 | float64](op string, x, y T) (r, ok bool) {
	switch op {
	case "<":
		return x < y, true
	case "<=":
		return x <= y, true
	case ">":
		return x > y, true
	case ">=":
		return x >= y, true
	case "==":
		return x == y, true
	case "!=":
		return x != y, true
	}
	return false, false
}

func foldFloat(op string, x, y float64) (value, error) {
	switch op {
	case "+":
		return x + y, nil
	case "-":
		return x - y, nil
	case "*":
		return x * y, nil
	case "/":
		if y == 0 {
			return nil, errDivZero
		}
		return x / y, nil
	case "//":
		if y == 0 {
			return nil, errDivZero
		}
		return scalar.FloorDivFloat(x, y), nil
	case "%":
		if y == 0 {
			return nil, errDivZero
		}
		return scalar.ModFloat(x, y), nil
	case "**":
		return scalar.PowFloat(x, y), nil
	}
	if r, ok := foldCompare(op, x, y); ok {
		return r, nil
	}
	return nil, fmt.Errorf("unsupported operand types for %s: float", op)
}

// foldUnary applies -, +, ~ or not to a compile-time value.
func foldUnary(op string, x value) (value, error) {
	if op == "not" {
		t, ok := truthy(x)
		if !ok {
			return nil, fmt.Errorf("unsupported operand type for not: %s", describe(x))
		}
		return !t, nil
	}
	switch x := x.(type) {
	case bool:
		switch op {
		case "~":
			return !x, nil
		case "-":
			return -toInt(x), nil
		case "+":
			return toInt(x), nil
		}
	case int64:
		switch op {
		case "~":
			return ^x, nil
		case "-":
			if r, ok := scalar.NegChecked(x); ok {
				return r, nil
			}
			return nil, &overflowError{op: "-", x: x, un: true}
		case "+":
			return x, nil
		}
	case float64:
		switch op {
		case "-":
			return -x, nil
		case "+":
			return x, nil
		}
	}
	return nil, fmt.Errorf("unsupported operand type for unary %s: %s", op, describe(x))
}

// foldMath applies an elementwise math builtin to a compile-time number.
func foldMath(name string, x value) (value, bool) {
	if name == "abs" {
		switch x := x.(type) {
		case int64:
			if x < 0 {
				return -x, true
			}
			return x, true
		case bool:
			return toInt(x), true
		case float64:
			return math.Abs(x), true
		}
		return nil, false
	}
	if !isNumber(x) {
		return nil, false
	}
	f := toFloat(x)
	switch name {
	case "exp":
		return math.Exp(f), true
	case "exp2":
		return math.Exp2(f), true
	case "log":
		return math.Log(f), true
	case "sqrt":
		return math.Sqrt(f), true
	case "rsqrt":
		return 1 / math.Sqrt(f), true
	case "tanh":
		return math.Tanh(f), true
	}
	return nil, false
}
