package scalar

import (
	"math"
	"testing"
)

// TestE8M0 checks float8_e8m0fnu's encoding at its ends and its rounding
// midpoints, against values written out by hand.
func TestE8M0(t *testing.T) {
	for _, c := range []struct {
		x    float64
		bits uint8
	}{
		{1, 127}, {2, 128}, {0.5, 126},
		{math.Ldexp(1, 127), 254}, {math.Ldexp(1, -127), 0},
		{0, 0}, {math.Ldexp(1, -200), 0}, {math.SmallestNonzeroFloat64, 0},
		{1.4999, 127}, {1.5, 128}, {2.9, 128}, {3, 129}, // ties (and above) go up
		{math.Ldexp(1.4, 127), 254}, {math.Ldexp(1.5, 127), 255}, // past 2^127 is NaN
		{math.Ldexp(1.5, -128), 0}, // rounds up to 2^-127
		{math.Inf(1), 255}, {math.NaN(), 255}, {math.MaxFloat64, 255},
	} {
		got, ok := E8M0Bits(c.x)
		if !ok || got != c.bits {
			t.Errorf("E8M0Bits(%g) = %#x, %v; want %#x", c.x, got, ok, c.bits)
		}
	}
	for _, x := range []float64{-1, math.Copysign(0, -1), math.Inf(-1), -math.Ldexp(1, -300)} {
		if _, ok := E8M0Bits(x); ok {
			t.Errorf("E8M0Bits(%g) accepted a negative value", x)
		}
	}
	for h := 0; h < 255; h++ {
		v := E8M0Value(uint8(h))
		if want := math.Pow(2, float64(h-127)); v != want {
			t.Errorf("E8M0Value(%#x) = %g, want %g", h, v, want)
		}
		if back, ok := E8M0Bits(v); !ok || back != uint8(h) {
			t.Errorf("E8M0Bits(E8M0Value(%#x)) = %#x", h, back)
		}
	}
	if !math.IsNaN(E8M0Value(0xff)) {
		t.Errorf("E8M0Value(0xff) = %g, want NaN", E8M0Value(0xff))
	}
}
