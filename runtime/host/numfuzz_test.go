package host

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"testing"
)

// pyLiteral writes x as host code reads it back exactly: Python's repr,
// float('inf') and float('nan') for the values that have no literal.
func pyLiteral(x float64) string {
	switch {
	case math.IsNaN(x):
		return "float('nan')"
	case math.IsInf(x, 1):
		return "float('inf')"
	case math.IsInf(x, -1):
		return "(-float('inf'))"
	}
	return "(" + pyFloat(x) + ")"
}

// FuzzHostNumerics checks host code's numbers against Python's semantics
// where that needs no Python: ints are exact (math/big), overflow and
// division by zero raise; int64 tensors wrap as torch's do and compare
// exactly; an int and a float compare exactly; a float remainder has the
// divisor's sign, zero included, and is smaller than it; comparisons with
// NaN are false (!= true) and infinities order.
func FuzzHostNumerics(f *testing.F) {
	for _, s := range []struct {
		a, b int64
		x, y float64
	}{
		{1 << 53, 1, 1 << 53, 0.5},
		{-3, 0, -3.0, 0.5},
		{math.MaxInt64, 1, 3.0, -0.5},
		{math.MinInt64, -1, math.Inf(1), math.Inf(-1)},
		{7, -2, math.NaN(), 5},
		{-5, 3, math.Copysign(0, -1), 1e-300},
		{9007199254740993, 9007199254740992, 9007199254740992, 1e308},
	} {
		f.Add(s.a, s.b, s.x, s.y)
	}
	f.Fuzz(func(t *testing.T, a, b int64, x, y float64) {
		A, B, X, Y := strconv.FormatInt(a, 10), strconv.FormatInt(b, 10), pyLiteral(x), pyLiteral(y)
		if a < 0 {
			A = "(" + A + ")"
		}
		if b < 0 {
			B = "(" + B + ")"
		}
		if a == math.MinInt64 {
			A = "(-9223372036854775807 - 1)" // the literal 9223372036854775808 overflows
		}
		if b == math.MinInt64 {
			B = "(-9223372036854775807 - 1)"
		}
		// one evaluates an expression; err is non-nil where it raised.
		one := func(expr string) (string, error) {
			t.Helper()
			var out strings.Builder
			src := "import torch\n\nif __name__ == \"__main__\":\n    print(" + expr + ")\n"
			err := load(t, "f.py", []byte(src)).RunMain(Options{Stdout: &out})
			return strings.TrimSuffix(out.String(), "\n"), err
		}
		ba, bb := big.NewInt(a), big.NewInt(b)
		fits := func(z *big.Int) bool { return z.IsInt64() }
		intCase := func(op string, want *big.Int) {
			got, err := one(A + " " + op + " " + B)
			switch {
			case want == nil:
				if err == nil || !strings.Contains(err.Error(), "ZeroDivisionError") {
					t.Errorf("%d %s %d: printed %q, err %v; want ZeroDivisionError", a, op, b, got, err)
				}
			case !fits(want):
				if err == nil || !strings.Contains(err.Error(), "overflow") {
					t.Errorf("%d %s %d: printed %q, err %v; want an overflow error", a, op, b, got, err)
				}
			case err != nil || got != want.String():
				t.Errorf("%d %s %d: printed %q, err %v; want %s", a, op, b, got, err, want)
			}
		}
		intCase("+", new(big.Int).Add(ba, bb))
		intCase("-", new(big.Int).Sub(ba, bb))
		intCase("*", new(big.Int).Mul(ba, bb))
		if b == 0 {
			intCase("//", nil)
			intCase("%", nil)
		} else {
			q, r := floorDivMod(ba, bb)
			intCase("//", q)
			intCase("%", r)
		}

		// int64 tensors: exact, wrapping as torch's integer arithmetic;
		// floor division and remainder as Python's (the one quotient that
		// overflows wraps), by zero an error.
		T := "torch.full((1,), " + A + ", dtype=torch.int64)"
		cases := []struct {
			op   string
			want string
		}{
			{"+", strconv.FormatInt(a+b, 10)},
			{"-", strconv.FormatInt(a-b, 10)},
			{"*", strconv.FormatInt(a*b, 10)},
			{"==", pyBool(a == b)},
			{"<", pyBool(a < b)},
			{">=", pyBool(a >= b)},
		}
		if b != 0 {
			q, r := floorDivMod(ba, bb)
			qs := q.String()
			if !q.IsInt64() { // MinInt64 // -1 wraps
				qs = strconv.FormatInt(math.MinInt64, 10)
			}
			cases = append(cases, struct{ op, want string }{"//", qs},
				struct{ op, want string }{"%", r.String()})
		} else if _, err := one("(" + T + " // " + B + ")"); err == nil || !strings.Contains(err.Error(), "ZeroDivisionError") {
			t.Errorf("int64 tensor %d // 0: err %v, want ZeroDivisionError", a, err)
		}
		for _, c := range cases {
			if got, err := one("(" + T + " " + c.op + " " + B + ").item()"); err != nil || got != c.want {
				t.Errorf("int64 tensor %d %s %d: printed %q, err %v; want %s", a, c.op, b, got, err, c.want)
			}
		}

		// An int and a float compare exactly (NaN: unordered).
		if got, err := one(A + " < " + X + ", " + A + " == " + X + ", " + A + " > " + X); err != nil {
			t.Errorf("%d vs %v: %v", a, x, err)
		} else {
			lt, eq, gt := false, false, false
			if !math.IsNaN(x) {
				c := new(big.Float).SetInt64(a).Cmp(big.NewFloat(x))
				if math.IsInf(x, 0) {
					c = -int(math.Copysign(1, x))
				}
				lt, eq, gt = c < 0, c == 0, c > 0
			}
			if want := pyBool(lt) + " " + pyBool(eq) + " " + pyBool(gt); got != want {
				t.Errorf("%d <, ==, > %v: printed %q, want %q", a, x, got, want)
			}
		}

		// Floats: IEEE comparisons (NaN false but !=), the same on
		// float64 tensors.
		want := fmt.Sprintf("%s %s %s %s", pyBool(x < y), pyBool(x == y), pyBool(x != y), pyBool(x >= y))
		if got, err := one(X + " < " + Y + ", " + X + " == " + Y + ", " + X + " != " + Y + ", " + X + " >= " + Y); err != nil || got != want {
			t.Errorf("%v vs %v: printed %q, err %v; want %q", x, y, got, err, want)
		}
		FT := "torch.full((1,), " + X + ", dtype=torch.float64)"
		if got, err := one("(" + FT + " < " + Y + ").item(), (" + FT + " == " + Y + ").item(), (" + FT + " != " + Y + ").item(), (" + FT + " >= " + Y + ").item()"); err != nil || got != want {
			t.Errorf("float64 tensor %v vs %v: printed %q, err %v; want %q", x, y, got, err, want)
		}

		// A float remainder: the divisor's sign (a zero too), no larger
		// than the divisor; by zero it raises.
		got, err := one(X + " % " + Y)
		switch {
		case y == 0:
			if err == nil || !strings.Contains(err.Error(), "ZeroDivisionError") {
				t.Errorf("%v %% %v: printed %q, err %v; want ZeroDivisionError", x, y, got, err)
			}
		case err != nil:
			t.Errorf("%v %% %v: %v", x, y, err)
		default:
			r, perr := strconv.ParseFloat(got, 64)
			switch {
			case perr != nil:
				t.Errorf("%v %% %v printed %q", x, y, got)
			case math.IsNaN(x) || math.IsNaN(y) || math.IsInf(x, 0):
				if !math.IsNaN(r) {
					t.Errorf("%v %% %v = %v, want nan", x, y, r)
				}
			case math.IsNaN(r):
				t.Errorf("%v %% %v = nan", x, y)
			case math.Signbit(r) != math.Signbit(y) || math.Abs(r) > math.Abs(y):
				t.Errorf("%v %% %v = %v: not of the divisor's sign and magnitude", x, y, r)
			}
		}
	})
}

// floorDivMod is Python's divmod on ints: big.Int's Div is Euclidean, so
// the floor comes from the truncated quotient.
func floorDivMod(a, b *big.Int) (q, r *big.Int) {
	q, r = new(big.Int).QuoRem(a, b, new(big.Int))
	if r.Sign() != 0 && (r.Sign() < 0) != (b.Sign() < 0) {
		q.Sub(q, big.NewInt(1))
		r.Add(r, b)
	}
	return q, r
}

func pyBool(b bool) string {
	if b {
		return "True"
	}
	return "False"
}
