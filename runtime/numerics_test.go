package runtime

import (
	"math"
	"testing"
)

func TestF16KnownBits(t *testing.T) {
	for _, tc := range []struct {
		x    float64
		bits uint16
	}{
		{0, 0x0000},
		{math.Copysign(0, -1), 0x8000},
		{1, 0x3c00},
		{-2, 0xc000},
		{65504, 0x7bff},            // largest finite
		{65519, 0x7bff},            // below the midpoint to 65536
		{65520, 0x7c00},            // the midpoint ties to even: infinity
		{1e6, 0x7c00},              // overflow
		{-1e6, 0xfc00},             // negative overflow
		{math.Inf(1), 0x7c00},      //
		{math.Inf(-1), 0xfc00},     //
		{6.103515625e-05, 0x0400},  // smallest normal 2^-14
		{6.1e-5, 0x03ff},           // subnormal just below it
		{6.0e-5, 0x03ef},           // 1006.63 units of 2^-24
		{0x1p-24, 0x0001},          // smallest subnormal
		{0x1p-25, 0x0000},          // half of it ties to even: zero
		{0x1.0001p-25, 0x0001},     // just above half rounds up
		{1023.5 * 0x1p-24, 0x0400}, // largest subnormal + half: carries into the smallest normal
		{1.0 / 3, 0x3555},          //
		{0.1, 0x2e66},              //
		{1 + 0x1p-11, 0x3c00},      // tie to even (down)
		{1 + 3*0x1p-11, 0x3c02},    // tie to even (up)
		{1 + 0x1p-11 + 0x1p-30, 0x3c01},
		{1e-10, 0x0000},
		{-1e-10, 0x8000},
	} {
		if got := F16Bits(tc.x); got != tc.bits {
			t.Errorf("F16Bits(%g) = %#04x, want %#04x", tc.x, got, tc.bits)
		}
	}
	// NaN becomes the canonical quiet NaN, keeping the sign.
	if got := F16Bits(math.NaN()); got != 0x7e00 {
		t.Errorf("F16Bits(NaN) = %#04x, want 0x7e00", got)
	}
	if got := F16Bits(math.Copysign(math.NaN(), -1)); got != 0xfe00 {
		t.Errorf("F16Bits(-NaN) = %#04x, want 0xfe00", got)
	}
	if !math.IsNaN(F16Float(0x7e00)) || F16Float(0x7c00) != math.Inf(1) || F16Float(0x0001) != 0x1p-24 ||
		F16Float(0x7bff) != 65504 || F16Float(0xbc00) != -1 {
		t.Error("F16Float decodes wrongly")
	}
}

// Every f16 value round-trips, and the midpoints between neighbours round
// to the even one (slightly off the midpoint, to the nearer one).
func TestF16Exhaustive(t *testing.T) {
	for h := 0; h < 0x7c00; h++ {
		x := F16Float(uint16(h))
		if F16Bits(x) != uint16(h) || F16Bits(-x) != uint16(h)|0x8000 {
			t.Fatalf("%#04x -> %g does not round-trip", h, x)
		}
		if h == 0x7bff {
			continue
		}
		y := F16Float(uint16(h + 1))
		mid := (x + y) / 2
		even := uint16(h)
		if h&1 == 1 {
			even = uint16(h + 1)
		}
		if got := F16Bits(mid); got != even {
			t.Fatalf("midpoint of %#04x and %#04x: got %#04x, want %#04x", h, h+1, got, even)
		}
		if got := F16Bits(math.Nextafter(mid, 0)); got != uint16(h) {
			t.Fatalf("below midpoint of %#04x: got %#04x", h, got)
		}
		if got := F16Bits(math.Nextafter(mid, 1e9)); got != uint16(h+1) {
			t.Fatalf("above midpoint of %#04x: got %#04x", h, got)
		}
	}
}

func TestBF16(t *testing.T) {
	for _, tc := range []struct {
		x    float64
		bits uint16
	}{
		{1, 0x3f80},
		{1.00390625, 0x3f80},      // 1 + 2^-8: tie to even (down)
		{1.01171875, 0x3f82},      // 1 + 3*2^-8: tie to even (up)
		{1.0 / 3, 0x3eab},         //
		{-2.5, 0xc020},            //
		{math.MaxFloat32, 0x7f80}, // rounds up to infinity
		{3.3895313892515355e38, 0x7f7f},
		{math.Inf(-1), 0xff80},
		{0x1p-133, 0x0001}, // smallest subnormal
		{0x1p-134, 0x0000}, // half of it: tie to zero
		{0x1p-126, 0x0080}, // smallest normal
	} {
		if got := BF16Bits(tc.x); got != tc.bits {
			t.Errorf("BF16Bits(%g) = %#04x, want %#04x", tc.x, got, tc.bits)
		}
	}
	// f32 -> bf16 by the usual bit trick on every f32 whose low half is not a tie.
	for _, b := range []uint32{0x3f800001, 0x3f807fff, 0x3f808001, 0x40490fdb, 0xc2f6e979, 0x00012345} {
		x := math.Float32frombits(b)
		want := uint16((b + 0x7fff + (b>>16)&1) >> 16)
		if got := F32ToBF16(x); got != want {
			t.Errorf("F32ToBF16(%#08x) = %#04x, want %#04x", b, got, want)
		}
		if BF16ToF32(want) != float32(BF16Float(want)) {
			t.Errorf("BF16ToF32 and BF16Float disagree on %#04x", want)
		}
	}
	for h := 0; h < 0x7f80; h++ {
		if BF16Bits(BF16Float(uint16(h))) != uint16(h) {
			t.Fatalf("bf16 %#04x does not round-trip", h)
		}
	}
	if v := BF16Bits(math.NaN()); v != 0x7fc0 {
		t.Errorf("BF16Bits(NaN) = %#04x, want 0x7fc0", v)
	}
	if v := BF16Bits(math.Copysign(math.NaN(), -1)); v != 0xffc0 {
		t.Errorf("BF16Bits(-NaN) = %#04x, want 0xffc0", v)
	}
}

func TestTF32(t *testing.T) {
	for _, tc := range []struct{ x, want float32 }{
		{1, 1},
		{1 + 0x1p-11, 1 + 0x1p-10}, // tie: away from zero
		{-(1 + 0x1p-11), -(1 + 0x1p-10)},
		{1 + 0x1p-12, 1},
		{1 + 3*0x1p-12, 1 + 0x1p-10},
		{1.0 / 3, 0.333251953125},
		{math.MaxFloat32, float32(math.Inf(1))},
	} {
		if got := RoundTF32(tc.x); got != tc.want {
			t.Errorf("RoundTF32(%g) = %g, want %g", tc.x, got, tc.want)
		}
	}
	if !math.IsNaN(float64(RoundTF32(float32(math.NaN())))) {
		t.Error("RoundTF32(NaN) is not NaN")
	}
}
