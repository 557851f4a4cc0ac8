package npy

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/runtime"
)

// TestE8M0Files: float8_e8m0fnu arrays (mma_scaled's scales) go to .npy
// as float32 (2^-127 as a subnormal, 0xff as NaN) and come back with every
// encoding; a file value the format cannot hold (negative, past 2^127) is
// an error naming the element.
func TestE8M0Files(t *testing.T) {
	s := runtime.NewTensor(ir.F8E8M0, 256)
	for i := range s.Data {
		s.Data[i] = byte(i)
	}
	var buf bytes.Buffer
	if err := Write(&buf, s); err != nil {
		t.Fatal(err)
	}
	f, err := Read(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if f.DType != ir.F32 {
		t.Fatalf("written as %s, want f32", f.DType)
	}
	if v := f.ElemAt(0); v != math.Ldexp(1, -127) {
		t.Errorf("0x00 written as %g, want 2^-127", v)
	}
	back, err := Convert(f, ir.F8E8M0, "S")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(back.Data, s.Data) {
		t.Errorf("e8m0 round trip through .npy changed the bits")
	}
	for _, c := range []struct {
		v    float64
		want string
	}{
		{-2, "element S[1] of the file is -2, beyond the range of the kernel's f8e8m0"},
		{math.Ldexp(1.5, 127), "beyond the range"},
		{0.75, ""},
	} {
		x := runtime.NewTensor(ir.F32, 2)
		x.SetElemAt(1, c.v)
		x.SetElemAt(0, 1)
		_, err := Convert(x, ir.F8E8M0, "S")
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("Convert(%g to f8e8m0) = %v, want %q", c.v, err, c.want)
		}
	}
}
