package host

// Python's arithmetic on host values: ints are exact (overflow is an
// error), / is true division, // and % floor.

import (
	"math"
	"math/bits"

	"github.com/tilec/tilec/lang"
	"github.com/tilec/tilec/runtime"
)

func (in *interp) binop(pos lang.Pos, op string, x, y any) any {
	if op == "is" || op == "is not" {
		return identical(x, y) == (op == "is")
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
	switch op {
	case "+":
		return fa + fb
	case "-":
		return fa - fb
	case "*":
		return fa * fb
	case "/":
		if fb == 0 {
			in.fail(pos, "float division by zero")
		}
		return fa / fb
	case "//":
		if fb == 0 {
			in.fail(pos, "float floor division by zero")
		}
		return math.Floor(fa / fb)
	case "%":
		if fb == 0 {
			in.fail(pos, "float modulo by zero")
		}
		r := math.Mod(fa, fb)
		if r != 0 && (r < 0) != (fb < 0) {
			r += fb
		}
		return r
	case "**":
		if fa < 0 && fb != math.Trunc(fb) {
			in.fail(pos, "a negative number to a fractional power is complex in Python")
		}
		if fa == 0 && fb < 0 {
			in.fail(pos, "0.0 cannot be raised to a negative power")
		}
		return math.Pow(fa, fb)
	case "<":
		return fa < fb
	case "<=":
		return fa <= fb
	case ">":
		return fa > fb
	case ">=":
		return fa >= fb
	}
	in.fail(pos, "unsupported operand types for %s: %s and %s", op, describe(x), describe(y))
	return nil
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

func (in *interp) intOp(pos lang.Pos, op string, a, b int64) any {
	overflow := func() {
		in.fail(pos, "integer overflow: %d %s %d does not fit 64 bits", a, op, b)
	}
	switch op {
	case "+":
		r := a + b
		if (r > a) != (b > 0) {
			overflow()
		}
		return r
	case "-":
		r := a - b
		if (r < a) != (b > 0) {
			overflow()
		}
		return r
	case "*":
		if a == 0 || b == 0 {
			return int64(0)
		}
		r := a * b
		if r/b != a || (a == -1 && b == math.MinInt64) || (b == -1 && a == math.MinInt64) {
			overflow()
		}
		return r
	case "/":
		if b == 0 {
			in.fail(pos, "division by zero")
		}
		return float64(a) / float64(b)
	case "//", "%":
		if b == 0 {
			in.fail(pos, "integer division or modulo by zero")
		}
		if a == math.MinInt64 && b == -1 {
			if op == "%" {
				return int64(0)
			}
			overflow()
		}
		q, r := a/b, a%b
		if r != 0 && (r < 0) != (b < 0) {
			q, r = q-1, r+b
		}
		if op == "//" {
			return q
		}
		return r
	case "**":
		if b < 0 {
			if a == 0 {
				in.fail(pos, "0 cannot be raised to a negative power")
			}
			return math.Pow(float64(a), float64(b))
		}
		r := int64(1)
		base := a
		for e := b; e > 0; e >>= 1 {
			if e&1 == 1 {
				hi, lo := bits.Mul64(uint64(abs64(r)), uint64(abs64(base)))
				if hi != 0 || lo > math.MaxInt64 {
					overflow()
				}
				r *= base
			}
			if e > 1 {
				hi, lo := bits.Mul64(uint64(abs64(base)), uint64(abs64(base)))
				if hi != 0 || lo > math.MaxInt64 {
					overflow()
				}
				base *= base
			}
		}
		return r
	case "<":
		return a < b
	case "<=":
		return a <= b
	case ">":
		return a > b
	case ">=":
		return a >= b
	case "&":
		return a & b
	case "|":
		return a | b
	case "^":
		return a ^ b
	case "<<":
		if b < 0 {
			in.fail(pos, "negative shift count")
		}
		if b >= 63 || a<<b>>b != a {
			if a != 0 {
				overflow()
			}
			return int64(0)
		}
		return a << b
	case ">>":
		if b < 0 {
			in.fail(pos, "negative shift count")
		}
		if b >= 63 {
			if a < 0 {
				return int64(-1)
			}
			return int64(0)
		}
		return a >> b
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
func (in *interp) equal(x, y any) bool {
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
	if fa, ok := toFloat(a); ok {
		if fb, ok := toFloat(b); ok {
			if ia, ok := a.(int64); ok {
				if ib, ok := b.(int64); ok {
					return ia == ib
				}
			}
			return fa == fb
		}
		return false
	}
	if _, ok := x.(method); ok {
		return false
	}
	return x == y
}

func (in *interp) compareTuples(pos lang.Pos, op string, a, b Tuple) bool {
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
