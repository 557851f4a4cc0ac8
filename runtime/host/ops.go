package host

// Python's arithmetic on host values: ints are exact (overflow is an
// error), / is true division, // and % floor.

import (
	"cmp"
	"math"

	"github.com/tilec/tilec/ir/scalar"
	"github.com/tilec/tilec/lang"
	"github.com/tilec/tilec/runtime"
)

func (in *evaluator) binop(pos lang.Pos, op string, x, y any) any {
	if op == "is" || op == "is not" {
		return identical(x, y) == (op == "is")
	}
	if isComplex(x) || isComplex(y) {
		return in.complexBinop(pos, op, x, y)
	}
	_, xt := x.(*runtime.Tensor)
	_, yt := y.(*runtime.Tensor)
	if xt || yt {
		return in.tensorBinop(pos, op, x, y)
	}
	switch op {
	case "==", "!=":
		eq := in.equal(x, y)
		return eq == (op == "==")
	}
	if sx, ok := x.(sizeTuple); ok && (op == "+" || op == "*") {
		// torch.Size + tuple and torch.Size * n are torch.Sizes.
		if t, ok := in.binop(pos, op, Tuple(sx), plainTuple(y)).(Tuple); ok {
			return sizeTuple(t)
		}
	}
	x, y = plainTuple(x), plainTuple(y)
	if tx, ok := x.(Tuple); ok {
		switch op {
		case "+":
			if ty, ok := y.(Tuple); ok {
				return append(append(Tuple{}, tx...), ty...)
			}
		case "*":
			if n, ok := num(y).(int64); ok {
				if n < 0 {
					n = 0
				}
				if n*int64(len(tx)) > 1<<20 {
					in.fail(pos, "tuple repetition too large")
				}
				var out Tuple
				for range n {
					out = append(out, tx...)
				}
				return out
			}
		case "<", "<=", ">", ">=":
			if ty, ok := y.(Tuple); ok {
				return in.compareTuples(pos, op, tx, ty)
			}
		}
		in.fail(pos, "unsupported operand types for %s: %s and %s", op, describe(x), describe(y))
	}
	if sx, ok := x.(string); ok {
		if sy, ok := y.(string); ok {
			switch op {
			case "+":
				return sx + sy
			case "<":
				return sx < sy
			case "<=":
				return sx <= sy
			case ">":
				return sx > sy
			case ">=":
				return sx >= sy
			}
		}
	}
	a, b := num(x), num(y)
	ia, aInt := a.(int64)
	ib, bInt := b.(int64)
	if aInt && bInt {
		return in.intOp(pos, op, ia, ib)
	}
	fa, aOK := toFloat(a)
	fb, bOK := toFloat(b)
	if !aOK || !bOK {
		in.fail(pos, "unsupported operand types for %s: %s and %s", op, describe(x), describe(y))
	}
	if op == "==" || op == "!=" || op == "<" || op == "<=" || op == ">" || op == ">=" {
		return compareNumbers(op, a, b)
	}
	switch op {
	case "+":
		return fa + fb
	case "-":
		return fa - fb
	case "*":
		return fa * fb
	case "/":
		if fb == 0 {
			in.fail(pos, "ZeroDivisionError: float division by zero")
		}
		return fa / fb
	case "//":
		if fb == 0 {
			in.fail(pos, "ZeroDivisionError: float floor division by zero")
		}
		return floorDivFloat(fa, fb)
	case "%":
		if fb == 0 {
			in.fail(pos, "ZeroDivisionError: float modulo by zero")
		}
		return modFloat(fa, fb)
	case "**":
		if fa < 0 && fb != math.Trunc(fb) && !math.IsInf(fb, 0) {
			in.fail(pos, "a negative number to a fractional power is complex in Python")
		}
		if fa == 0 && fb < 0 {
			in.fail(pos, "ZeroDivisionError: 0.0 cannot be raised to a negative power")
		}
		r := math.Pow(fa, fb)
		if math.IsInf(r, 0) && !math.IsInf(fa, 0) && !math.IsInf(fb, 0) {
			in.fail(pos, "OverflowError: %s ** %s is out of the float range", pyFloat(fa), pyFloat(fb))
		}
		return r
	}
	in.fail(pos, "unsupported operand types for %s: %s and %s", op, describe(x), describe(y))
	return nil
}

// floorDivFloat is Python's float x // y (and torch.floor_divide's on
// floats), y != 0: the quotient derived from fmod, so that -5.0 // inf is
// -1.0 (x - x%y is divided exactly) where floor(x / y) would give -0.0.
// ir/scalar.FloorDivFloat is the kernels' floor(x / y), which cuTile
// computes; host code is Python.
func floorDivFloat(x, y float64) float64 {
	mod := math.Mod(x, y)
	div := (x - mod) / y
	if mod != 0 && (y < 0) != (mod < 0) {
		div--
	}
	if div == 0 {
		return math.Copysign(0, x/y)
	}
	q := math.Floor(div)
	if div-q > 0.5 {
		q++
	}
	return q
}

// modFloat is Python's float x % y, y != 0: ir/scalar's ModFloat (the sign
// of the divisor), and a zero remainder takes the divisor's sign too, so
// -3.0 % 0.5 is 0.0 as in Python, not fmod's -0.0.
func modFloat(x, y float64) float64 {
	r := scalar.ModFloat(x, y)
	if r == 0 {
		return math.Copysign(0, y)
	}
	return r
}

// compareNumbers is Python's comparison of two numbers (ints or floats):
// an int and a float compare exactly, as CPython does, so 2**53 + 1 is not
// equal to 2.0**53 although float(2**53 + 1) is; NaN compares false with
// everything (!= true).
func compareNumbers(op string, a, b any) bool {
	c, ordered := cmpNumbers(a, b)
	switch op {
	case "==":
		return ordered && c == 0
	case "!=":
		return !ordered || c != 0
	case "<":
		return ordered && c < 0
	case "<=":
		return ordered && c <= 0
	case ">":
		return ordered && c > 0
	}
	return ordered && c >= 0
}

// cmpNumbers orders two int64/float64 values exactly; ordered is false
// when either is NaN.
func cmpNumbers(a, b any) (c int, ordered bool) {
	switch a := a.(type) {
	case int64:
		switch b := b.(type) {
		case int64:
			return cmp.Compare(a, b), true
		case float64:
			c, ok := cmpIntFloat(a, b)
			return c, ok
		}
	case float64:
		switch b := b.(type) {
		case int64:
			c, ok := cmpIntFloat(b, a)
			return -c, ok
		case float64:
			if math.IsNaN(a) || math.IsNaN(b) {
				return 0, false
			}
			return cmp.Compare(a, b), true
		}
	}
	return 0, false
}

// cmpIntFloat orders an int64 and a float64 without rounding the int: a
// float outside int64's range orders by its sign; inside it, its integer
// part compares as an int64 and a fraction breaks a tie.
func cmpIntFloat(i int64, f float64) (int, bool) {
	switch {
	case math.IsNaN(f):
		return 0, false
	case f >= 1<<63:
		return -1, true
	case f < -(1 << 63):
		return 1, true
	}
	t := math.Trunc(f)
	if c := cmp.Compare(i, int64(t)); c != 0 {
		return c, true
	}
	return cmp.Compare(0, f-t), true
}

func toFloat(v any) (float64, bool) {
	switch v := v.(type) {
	case int64:
		return float64(v), true
	case float64:
		return v, true
	}
	return 0, false
}

// intOp is Python's int arithmetic on int64 values, from ir/scalar's
// checked definitions (compile-time evaluation uses the same): a result
// that does not fit 64 bits is an error, x // 0 and x % 0 raise.
func (in *evaluator) intOp(pos lang.Pos, op string, a, b int64) any {
	checked := func(r int64, ok bool) int64 {
		if !ok {
			in.fail(pos, "integer overflow: %d %s %d does not fit 64 bits", a, op, b)
		}
		return r
	}
	switch op {
	case "+":
		return checked(scalar.AddChecked(a, b))
	case "-":
		return checked(scalar.SubChecked(a, b))
	case "*":
		return checked(scalar.MulChecked(a, b))
	case "/":
		if b == 0 {
			in.fail(pos, "ZeroDivisionError: division by zero")
		}
		return float64(a) / float64(b)
	case "//":
		if b == 0 {
			in.fail(pos, "ZeroDivisionError: integer division or modulo by zero")
		}
		return checked(scalar.FloorDivChecked(a, b))
	case "%":
		if b == 0 {
			in.fail(pos, "ZeroDivisionError: integer division or modulo by zero")
		}
		return scalar.Mod(a, b)
	case "**":
		if b < 0 {
			if a == 0 {
				in.fail(pos, "ZeroDivisionError: 0 cannot be raised to a negative power")
			}
			return math.Pow(float64(a), float64(b))
		}
		return checked(scalar.PowChecked(a, b))
	case "<", "<=", ">", ">=":
		return compareNumbers(op, a, b)
	case "&":
		return a & b
	case "|":
		return a | b
	case "^":
		return a ^ b
	case "<<":
		if b < 0 {
			in.fail(pos, "ValueError: negative shift count")
		}
		return checked(scalar.ShlChecked(a, b))
	case ">>":
		if b < 0 {
			in.fail(pos, "ValueError: negative shift count")
		}
		return a >> min(b, 63)
	}
	in.fail(pos, "unsupported operand types for %s: int and int", op)
	return nil
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// equal is Python's == on host values.
func (in *evaluator) equal(x, y any) bool {
	if dx, ok := x.(*pyDict); ok {
		dy, ok := y.(*pyDict)
		return ok && in.dictsEqual(dx, dy)
	}
	if rx, ok := x.(*record); ok {
		ry, ok := y.(*record)
		return ok && in.recordsEqual(rx, ry)
	}
	x, y = plainTuple(x), plainTuple(y)
	if tx, ok := x.(Tuple); ok {
		ty, ok := y.(Tuple)
		if !ok || len(tx) != len(ty) {
			return false
		}
		for i := range tx {
			if !in.equal(tx[i], ty[i]) {
				return false
			}
		}
		return true
	}
	a, b := num(x), num(y)
	if za, ok := a.(complex128); ok {
		zb, ok := in.complexScalar(b)
		return ok && za == zb
	}
	if zb, ok := b.(complex128); ok {
		za, ok := in.complexScalar(a)
		return ok && za == zb
	}
	if _, ok := toFloat(a); ok {
		if _, ok := toFloat(b); ok {
			return compareNumbers("==", a, b)
		}
		return false
	}
	if _, ok := x.(method); ok {
		return false
	}
	return x == y
}

func (in *evaluator) compareTuples(pos lang.Pos, op string, a, b Tuple) bool {
	for i := 0; i < len(a) && i < len(b); i++ {
		if !in.equal(a[i], b[i]) {
			return in.binop(pos, op, a[i], b[i]).(bool)
		}
	}
	return in.binop(pos, op, int64(len(a)), int64(len(b))).(bool)
}

// identical is Python's `is` for host values: None, bools, numbers,
// strings, dtypes and modules by value (CPython interns the ones host code
// compares), tensors and other objects by identity, tuples only when both
// are empty.
func identical(x, y any) bool {
	x, y = plainTuple(x), plainTuple(y)
	switch x := x.(type) {
	case Tuple:
		t, ok := y.(Tuple)
		return ok && len(x) == 0 && len(t) == 0
	case namespace:
		return false
	}
	if _, ok := y.(Tuple); ok {
		return false
	}
	if _, ok := y.(namespace); ok {
		return false
	}
	return x == y
}
