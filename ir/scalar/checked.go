package scalar

import "math"

// Checked integer arithmetic, for compile-time evaluation: Python's ints do
// not overflow, and tilec holds them in int64, so a result that does not fit
// 64 bits is reported (ok false) rather than wrapped as the run-time ops
// above wrap. The grid's host expressions use them too, since a grid that
// wrapped would launch the wrong number of blocks.

// AddChecked is x + y; ok is false if it overflows int64.
func AddChecked(x, y int64) (r int64, ok bool) {
	r = x + y
	return r, (y >= 0) == (r >= x)
}

// SubChecked is x - y; ok is false if it overflows int64.
func SubChecked(x, y int64) (r int64, ok bool) {
	r = x - y
	return r, (y >= 0) == (r <= x)
}

// MulChecked is x * y; ok is false if it overflows int64.
func MulChecked(x, y int64) (r int64, ok bool) {
	if x == 0 || y == 0 {
		return 0, true
	}
	r = x * y
	if r/y != x || (x == -1 && y == math.MinInt64) || (y == -1 && x == math.MinInt64) {
		return r, false
	}
	return r, true
}

// NegChecked is -x; ok is false for math.MinInt64.
func NegChecked(x int64) (r int64, ok bool) { return -x, x != math.MinInt64 }

// FloorDivChecked is FloorDiv for y != 0; ok is false for
// math.MinInt64 // -1, the one quotient that overflows.
func FloorDivChecked(x, y int64) (r int64, ok bool) {
	return FloorDiv(x, y), !(x == math.MinInt64 && y == -1)
}

// PowChecked is x ** y for y >= 0; ok is false if the power overflows.
func PowChecked(x, y int64) (r int64, ok bool) {
	r = 1
	for y > 0 {
		if y&1 == 1 {
			if r, ok = MulChecked(r, x); !ok {
				return r, false
			}
		}
		y >>= 1
		if y > 0 {
			if x, ok = MulChecked(x, x); !ok {
				return r, false
			}
		}
	}
	return r, true
}

// ShlChecked is x << y for y >= 0 (Python's x * 2**y); ok is false if bits
// of x would be shifted out or into the sign.
func ShlChecked(x, y int64) (r int64, ok bool) {
	if x == 0 {
		return 0, true
	}
	if y >= 64 {
		return 0, false
	}
	r = x << uint(y)
	return r, r>>uint(y) == x
}
