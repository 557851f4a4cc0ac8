package npy

import (
	"math"
	"strings"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/runtime"
)

// TestConvertRangeChecksIntegers: an integer conversion at the --in
// boundary keeps the value or is an error naming the element, signedness
// included: uint64 2^64-1 is not int64 -1, int64 -1 is not uint64 2^64-1.
func TestConvertRangeChecksIntegers(t *testing.T) {
	one := func(d ir.DType, v int64) *runtime.Tensor {
		x := runtime.NewTensor(d, 2)
		x.SetInt(v, 1)
		return x
	}
	for _, c := range []struct {
		from ir.DType
		v    int64
		to   ir.DType
		want string // "" when the value converts
	}{
		{ir.U64, -1, ir.I64, "element A[1] of the file is 18446744073709551615, which does not fit the kernel's i64"},
		{ir.U64, math.MinInt64, ir.U64, ""},
		{ir.U64, 1 << 62, ir.I64, ""},
		{ir.I64, -1, ir.U64, "element A[1] of the file is -1, which does not fit the kernel's u64"},
		{ir.I64, -1, ir.U32, "does not fit the kernel's u32"},
		{ir.I8, -1, ir.U32, "does not fit"},
		{ir.I64, 1 << 31, ir.I32, "is 2147483648, which does not fit the kernel's i32"},
		{ir.I64, -1 << 31, ir.I32, ""},
		{ir.U32, 1<<32 - 1, ir.U64, ""},
		{ir.U32, 1<<32 - 1, ir.I32, "does not fit"},
		{ir.I32, 2, ir.Bool, "does not fit the kernel's bool"},
		{ir.I32, 1, ir.Bool, ""},
		{ir.Bool, 1, ir.U8, ""},
	} {
		out, err := Convert(one(c.from, c.v), c.to, "A")
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s %d -> %s: %v", c.from, c.v, c.to, err)
		case c.want == "" && (out.DType != c.to || out.AtInt(1) != c.v):
			t.Errorf("%s %d -> %s: got %s %d", c.from, c.v, c.to, out.DType, out.AtInt(1))
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s %d -> %s: got %v, want an error containing %q", c.from, c.v, c.to, err, c.want)
		}
	}
	if _, err := Convert(one(ir.I32, 1), ir.F32, "A"); err == nil || !strings.Contains(err.Error(), "file holds i32, kernel declares f32") {
		t.Errorf("int file into a float array: %v", err)
	}
	f := runtime.FromFloat64(ir.F32, []int{2, 2}, []float64{1, 2, 3, 4.5}).Transpose()
	out, err := Convert(f, ir.F16, "A")
	if err != nil || out.At(1, 0) != 2 || out.At(0, 1) != 3 || !out.IsContiguous() {
		t.Errorf("a transposed f32 view to f16: %v %v", out.Float64s(), err)
	}
}
