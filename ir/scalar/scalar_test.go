package scalar

import (
	"math"
	"math/big"
	"testing"
)

// interesting are the int64 operands every two-operand test combines: zero,
// ±1, small values of both signs with and without remainders, and the
// boundaries of the 32- and 64-bit ranges.
var interesting = []int64{
	0, 1, -1, 2, -2, 3, -3, 7, -7, 10, -10,
	math.MaxInt32, math.MinInt32, math.MaxInt32 + 1, math.MinInt32 - 1,
	math.MaxInt64, math.MinInt64, math.MaxInt64 - 1, math.MinInt64 + 1,
}

// wrap64 is the int64 that the exact integer z wraps to.
func wrap64(z *big.Int) int64 {
	m := new(big.Int).Lsh(big.NewInt(1), 64)
	r := new(big.Int).Mod(z, m) // in [0, 2^64)
	if r.Cmp(new(big.Int).Lsh(big.NewInt(1), 63)) >= 0 {
		r.Sub(r, m)
	}
	return r.Int64()
}

func TestFloorDivModAgainstBig(t *testing.T) {
	for _, x := range interesting {
		for _, y := range interesting {
			if y == 0 {
				continue
			}
			// big.Int's DivMod is Euclidean (0 <= m < |y|); Python's
			// remainder takes the divisor's sign, so for y < 0 a nonzero m
			// moves to m+y and the quotient to q-1.
			q, m := new(big.Int).DivMod(big.NewInt(x), big.NewInt(y), new(big.Int))
			if m.Sign() != 0 && y < 0 {
				q.Sub(q, big.NewInt(1))
				m.Add(m, big.NewInt(y))
			}
			if got, want := FloorDiv(x, y), wrap64(q); got != want {
				t.Errorf("FloorDiv(%d, %d) = %d, want %d", x, y, got, want)
			}
			if got, want := Mod(x, y), m.Int64(); got != want {
				t.Errorf("Mod(%d, %d) = %d, want %d", x, y, got, want)
			}
		}
	}
}

func TestDivisionByZero(t *testing.T) {
	for _, x := range interesting {
		if got := FloorDiv(x, 0); got != 0 {
			t.Errorf("FloorDiv(%d, 0) = %d, want 0", x, got)
		}
		if got := Mod(x, 0); got != 0 {
			t.Errorf("Mod(%d, 0) = %d, want 0 (numpy)", x, got)
		}
	}
	if got := FloorDivFloat(1, 0); !math.IsInf(got, 1) {
		t.Errorf("FloorDivFloat(1, 0) = %g, want +Inf", got)
	}
	if got := FloorDivFloat(0, 0); !math.IsNaN(got) {
		t.Errorf("FloorDivFloat(0, 0) = %g, want NaN", got)
	}
	if got := ModFloat(1, 0); !math.IsNaN(got) {
		t.Errorf("ModFloat(1, 0) = %g, want NaN", got)
	}
}

func TestFloorDivModFloat(t *testing.T) {
	for _, tc := range []struct{ x, y, div, mod float64 }{
		{7.5, 2, 3, 1.5},
		{-7.5, 2, -4, 0.5},
		{7.5, -2, -4, -0.5},
		{-7.5, -2, 3, -1.5},
		{6, 3, 2, 0},
		{1, math.Inf(1), 0, 1},
		{-1, math.Inf(1), 0, math.Inf(1)}, // floor(-1/Inf) is -0; CPython's // gives -1
	} {
		if got := FloorDivFloat(tc.x, tc.y); got != tc.div {
			t.Errorf("FloorDivFloat(%g, %g) = %g, want %g", tc.x, tc.y, got, tc.div)
		}
		if got := ModFloat(tc.x, tc.y); got != tc.mod {
			t.Errorf("ModFloat(%g, %g) = %g, want %g", tc.x, tc.y, got, tc.mod)
		}
	}
	// Against float64 arithmetic on integral operands, where x - y*floor(x/y)
	// is exact: the identity x == y*(x//y) + x%y.
	for _, x := range []float64{-9, -8, -1, 0, 1, 8, 9} {
		for _, y := range []float64{-4, -3, 3, 4} {
			if got := y*FloorDivFloat(x, y) + ModFloat(x, y); got != x {
				t.Errorf("%g*(%g//%g) + %g%%%g = %g", y, x, y, x, y, got)
			}
		}
	}
}

func TestPowAgainstBig(t *testing.T) {
	for _, x := range interesting {
		for _, y := range []int64{0, 1, 2, 3, 5, 31, 32, 63, 64, 100} {
			want := wrap64(new(big.Int).Exp(big.NewInt(x), big.NewInt(y), nil))
			if got := Pow(x, y); got != want {
				t.Errorf("Pow(%d, %d) = %d, want %d", x, y, got, want)
			}
		}
	}
	for _, tc := range []struct{ x, y, want int64 }{
		{2, -1, 0}, {-2, -1, 0}, {0, -1, 0}, {1, -5, 1}, {-1, -3, -1}, {-1, -4, 1},
	} {
		if got := Pow(tc.x, tc.y); got != tc.want {
			t.Errorf("Pow(%d, %d) = %d, want %d", tc.x, tc.y, got, tc.want)
		}
	}
	if got := PowFloat(2, 0.5); got != math.Sqrt2 {
		t.Errorf("PowFloat(2, 0.5) = %g", got)
	}
	if got := PowFloat(-8, 1.0/3); !math.IsNaN(got) {
		t.Errorf("PowFloat(-8, 1/3) = %g, want NaN", got)
	}
}

func TestMaxMinFloat(t *testing.T) {
	negZero, nan := math.Copysign(0, -1), math.NaN()
	same := func(a, b float64) bool {
		return a == b && math.Signbit(a) == math.Signbit(b) || math.IsNaN(a) && math.IsNaN(b)
	}
	for _, tc := range []struct{ x, y, max, min float64 }{
		{1, 2, 2, 1},
		{2, 1, 2, 1},
		{negZero, 0, 0, negZero},
		{0, negZero, 0, negZero},
		{1, nan, nan, nan},
		{nan, 1, nan, nan},
		{math.Inf(-1), math.Inf(1), math.Inf(1), math.Inf(-1)},
	} {
		if got := MaxFloat(tc.x, tc.y); !same(got, tc.max) {
			t.Errorf("MaxFloat(%g, %g) = %g, want %g", tc.x, tc.y, got, tc.max)
		}
		if got := MinFloat(tc.x, tc.y); !same(got, tc.min) {
			t.Errorf("MinFloat(%g, %g) = %g, want %g", tc.x, tc.y, got, tc.min)
		}
	}
}

func TestWrap(t *testing.T) {
	for _, bits := range []int{8, 16, 32, 64} {
		m := new(big.Int).Lsh(big.NewInt(1), uint(bits))
		half := new(big.Int).Lsh(big.NewInt(1), uint(bits-1))
		for _, x := range interesting {
			r := new(big.Int).Mod(big.NewInt(x), m)
			if r.Cmp(half) >= 0 {
				r.Sub(r, m)
			}
			if got := Wrap(bits, x); got != r.Int64() {
				t.Errorf("Wrap(%d, %d) = %d, want %d", bits, x, got, r.Int64())
			}
		}
	}
	if Bool(0) != 0 || Bool(2) != 1 || Bool(math.MinInt64) != 1 {
		t.Error("Bool")
	}
}

func TestFloatToIntSaturates(t *testing.T) {
	for _, bits := range []int{8, 16, 32, 64} {
		lo := -math.Ldexp(1, bits-1) // exact
		hi := math.Ldexp(1, bits-1)  // one past the maximum
		minInt := int64(math.MinInt64) >> uint(64-bits)
		maxInt := int64(math.MaxInt64) >> uint(64-bits)
		for _, tc := range []struct {
			x    float64
			want int64
		}{
			{math.NaN(), 0},
			{math.Inf(1), maxInt},
			{math.Inf(-1), minInt},
			{hi, maxInt},
			{2 * hi, maxInt},
			{lo, minInt},
			{2 * lo, minInt},
			{math.Nextafter(lo, math.Inf(-1)), minInt},
			{2.9, 2},
			{-2.9, -2},
			{0.5, 0},
			{math.Copysign(0, -1), 0},
		} {
			if got := FloatToInt(bits, tc.x); got != tc.want {
				t.Errorf("FloatToInt(%d, %g) = %d, want %d", bits, tc.x, got, tc.want)
			}
		}
		// Just inside the range, where the float can hold it.
		if bits <= 32 {
			if got := FloatToInt(bits, float64(maxInt)+0.5); got != maxInt {
				t.Errorf("FloatToInt(%d, max+0.5) = %d, want %d", bits, got, maxInt)
			}
			if got := FloatToInt(bits, float64(minInt)-0.5); got != minInt {
				t.Errorf("FloatToInt(%d, min-0.5) = %d, want %d", bits, got, minInt)
			}
		} else if got, want := FloatToInt(64, math.Nextafter(hi, 0)), int64(1<<63-1024); got != want {
			t.Errorf("FloatToInt(64, largest float below 2^63) = %d, want %d", got, want)
		}
	}
}

func TestShifts(t *testing.T) {
	for _, x := range interesting {
		for _, y := range []int64{0, 1, 31, 32, 63, 64, 65, 1000} {
			z := new(big.Int).Lsh(big.NewInt(x), uint(y))
			if got, want := Shl(x, y), wrap64(z); got != want {
				t.Errorf("Shl(%d, %d) = %d, want %d", x, y, got, want)
			}
			// big.Int's Rsh on negative values rounds toward -inf, as an
			// arithmetic shift does.
			if got, want := Shr(x, y), new(big.Int).Rsh(big.NewInt(x), uint(y)).Int64(); got != want {
				t.Errorf("Shr(%d, %d) = %d, want %d", x, y, got, want)
			}
		}
	}
}

func TestChecked(t *testing.T) {
	const max, min = math.MaxInt64, math.MinInt64
	for _, tc := range []struct {
		name string
		f    func(x, y int64) (int64, bool)
		x, y int64
		want int64
		ok   bool
	}{
		{"add", AddChecked, max, 1, 0, false},
		{"add", AddChecked, min, -1, 0, false},
		{"add", AddChecked, max, min, -1, true},
		{"sub", SubChecked, min, 1, 0, false},
		{"sub", SubChecked, 0, min, 0, false},
		{"sub", SubChecked, -1, min, max, true},
		{"mul", MulChecked, 1 << 62, 2, 0, false},
		{"mul", MulChecked, -1 << 62, 2, min, true},
		{"mul", MulChecked, min, -1, 0, false},
		{"mul", MulChecked, -1, min, 0, false},
		{"mul", MulChecked, 3037000500, 3037000500, 0, false},
		{"mul", MulChecked, 0, min, 0, true},
		{"floordiv", FloorDivChecked, min, -1, 0, false},
		{"floordiv", FloorDivChecked, -7, 2, -4, true},
		{"pow", PowChecked, 10, 19, 0, false},
		{"pow", PowChecked, 10, 18, 1e18, true},
		{"pow", PowChecked, 2, 63, 0, false},
		{"pow", PowChecked, -2, 63, min, true},
		{"pow", PowChecked, 2, 62, 1 << 62, true},
		{"pow", PowChecked, 1, max, 1, true},
		{"pow", PowChecked, -1, max, -1, true},
		{"pow", PowChecked, 0, 0, 1, true},
		{"shl", ShlChecked, 1, 100, 0, false},
		{"shl", ShlChecked, 1, 63, 0, false},
		{"shl", ShlChecked, 1, 62, 1 << 62, true},
		{"shl", ShlChecked, -1, 63, min, true},
		{"shl", ShlChecked, -1, 64, 0, false},
		{"shl", ShlChecked, 3, 62, 0, false},
		{"shl", ShlChecked, 0, 1000, 0, true},
	} {
		got, ok := tc.f(tc.x, tc.y)
		if ok != tc.ok || ok && got != tc.want {
			t.Errorf("%s(%d, %d) = %d, %v; want %d, %v", tc.name, tc.x, tc.y, got, ok, tc.want, tc.ok)
		}
	}
	if _, ok := NegChecked(min); ok {
		t.Errorf("NegChecked(MinInt64) did not overflow")
	}
}

// TestCheckedAgainstBig compares the checked ops with math/big on every pair
// of interesting operands: ok exactly when the true result fits int64, and
// then the result is the true one.
func TestCheckedAgainstBig(t *testing.T) {
	fits := func(z *big.Int) bool { return z.IsInt64() }
	for _, x := range interesting {
		for _, y := range interesting {
			X, Y := big.NewInt(x), big.NewInt(y)
			check := func(name string, got int64, ok bool, want *big.Int) {
				if ok != fits(want) || ok && got != want.Int64() {
					t.Errorf("%s(%d, %d) = %d, %v; true result %s", name, x, y, got, ok, want)
				}
			}
			r, ok := AddChecked(x, y)
			check("add", r, ok, new(big.Int).Add(X, Y))
			r, ok = SubChecked(x, y)
			check("sub", r, ok, new(big.Int).Sub(X, Y))
			r, ok = MulChecked(x, y)
			check("mul", r, ok, new(big.Int).Mul(X, Y))
			if y != 0 {
				// big's Div is Euclidean (remainder >= 0): the floor is one less
				// when y < 0 and the remainder is not zero.
				q := new(big.Int).Div(X, Y)
				if m := new(big.Int).Mod(X, Y); y < 0 && m.Sign() != 0 {
					q.Sub(q, big.NewInt(1))
				}
				r, ok = FloorDivChecked(x, y)
				check("floordiv", r, ok, q)
			}
			if y >= 0 && y < 200 {
				r, ok = PowChecked(x, y)
				check("pow", r, ok, new(big.Int).Exp(X, Y, nil))
				r, ok = ShlChecked(x, y)
				check("shl", r, ok, new(big.Int).Lsh(X, uint(y)))
			}
		}
	}
}

// TestFMA32AgainstBig checks FMA32 against the exact a*b + c rounded once
// by math/big (nearest even), on random operands chosen so that the sums
// cancel and need more than 53 bits.
func TestFMA32AgainstBig(t *testing.T) {
	seed := uint64(1)
	next := func() uint64 {
		seed ^= seed << 13
		seed ^= seed >> 7
		seed ^= seed << 17
		return seed
	}
	f32 := func(expLo, expSpan int) float32 {
		m := float32(next()&(1<<24-1)) / (1 << 24)
		if next()&1 == 1 {
			m = -m
		}
		return float32(math.Ldexp(float64(m), expLo+int(next()%uint64(expSpan))))
	}
	cases := [][3]float32{
		{1 + 0x1p-12, 1 + 0x1p-12, -1},         // exact 2^-11 + 2^-24
		{1 + 0x1p-23, 1 - 0x1p-23, -1},         // exact -2^-46
		{1 + 0x1p-23, 1 + 0x1p-23, 0},          // tie broken by the product's tail
		{math.MaxFloat32, 2, -math.MaxFloat32}, // overflowing product, finite sum
		{float32(math.Inf(1)), 1, 1},           // inf
		{0x1p-140, 0x1p-10, 0x1p-149},          // subnormal
	}
	for i := 0; i < 200000; i++ {
		a, b := f32(-20, 40), f32(-20, 40)
		c := -a * b * (1 + f32(-30, 28))
		cases = append(cases, [3]float32{a, b, c})
	}
	for _, cs := range cases {
		a, b, c := cs[0], cs[1], cs[2]
		got := FMA32(a, b, c)
		if math.IsInf(float64(a), 0) {
			if !math.IsInf(float64(got), 1) {
				t.Errorf("FMA32(%g, %g, %g) = %g, want +Inf", a, b, c, got)
			}
			continue
		}
		x := new(big.Float).SetPrec(400).SetFloat64(float64(a))
		x.Mul(x, new(big.Float).SetPrec(400).SetFloat64(float64(b)))
		x.Add(x, new(big.Float).SetPrec(400).SetFloat64(float64(c)))
		want, _ := x.Float32()
		if got != want && !(got == 0 && want == 0) {
			t.Fatalf("FMA32(%g, %g, %g) = %g (%#x), want %g (%#x)", a, b, c, got, math.Float32bits(got), want, math.Float32bits(want))
		}
	}
}
