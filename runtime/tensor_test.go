package runtime

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tilec/tilec/ir"
)

func TestTensorBasics(t *testing.T) {
	x := FromFloat64(ir.F32, []int{2, 3}, []float64{1, 2, 3, 4, 5, 6})
	if !x.IsContiguous() || x.NumElements() != 6 || x.Rank() != 2 || !slices.Equal(x.Strides, []int{3, 1}) {
		t.Errorf("%v", x)
	}
	if x.At(1, 2) != 6 {
		t.Errorf("At(1,2) = %g", x.At(1, 2))
	}
	x.Set(0.1, 0, 1)
	if x.At(0, 1) != float64(float32(0.1)) {
		t.Errorf("Set rounds to f32: %g", x.At(0, 1))
	}
	tr := x.Transpose()
	if tr.IsContiguous() || !slices.Equal(tr.Shape, []int{3, 2}) || tr.At(2, 1) != 6 {
		t.Errorf("transpose %v", tr)
	}
	if got := tr.Float64s(); !slices.Equal(got, []float64{1, 4, float64(float32(0.1)), 5, 3, 6}) {
		t.Errorf("transposed Float64s = %v", got)
	}
	c := tr.Clone()
	if !c.IsContiguous() || !slices.Equal(c.Float64s(), tr.Float64s()) {
		t.Error("Clone")
	}
	tr.Set(9, 0, 0) // shares storage
	if x.At(0, 0) != 9 || c.At(0, 0) != 1 {
		t.Error("Transpose must share storage and Clone must not")
	}
	if _, err := x.View([]int{3, 3}, []int{3, 1}); err == nil {
		t.Error("View past the storage must fail")
	}
	v, err := x.View([]int{3}, []int{2})
	if err != nil || !slices.Equal(v.Float64s(), []float64{9, 3, 5}) {
		t.Errorf("View = %v, %v", v, err)
	}
	x.Fill(math.NaN())
	for _, f := range x.Float64s() {
		if !math.IsNaN(f) {
			t.Fatal("Fill(NaN)")
		}
	}
	i := NewTensor(ir.I64, 2)
	i.SetInt(1<<60+1, 1)
	if i.AtInt(1) != 1<<60+1 || i.Int64s()[1] != 1<<60+1 {
		t.Error("i64 precision")
	}
	b := FromFloat64(ir.Bool, []int{3}, []float64{0, 2, -1})
	if !slices.Equal(b.Data, []byte{0, 1, 1}) {
		t.Errorf("bool storage %v", b.Data)
	}
	h := FromFloat64(ir.F16, []int{2}, []float64{1, 65504})
	if !slices.Equal(h.Data, []byte{0x00, 0x3c, 0xff, 0x7b}) {
		t.Errorf("f16 storage % x", h.Data)
	}
	p := NewTensor(ir.F32, 2, 3, 4).Transpose(2, 0, 1)
	if !slices.Equal(p.Shape, []int{4, 2, 3}) || !slices.Equal(p.Strides, []int{1, 12, 4}) {
		t.Errorf("Transpose(2,0,1) = %v", p)
	}
	if s := FromFloat64(ir.F32, []int{2, 2}, []float64{1, 2, 3, 4}).Format(); s != "f32[2 2]:\n  1 2\n  3 4" {
		t.Errorf("Format = %q", s)
	}
}

func TestRandNormal(t *testing.T) {
	for _, d := range []ir.DType{ir.F16, ir.BF16, ir.F32, ir.F64, ir.I32, ir.Bool} {
		a := RandNormal(rand.New(rand.NewPCG(1, 1)), d, 64, 64)
		b := RandNormal(rand.New(rand.NewPCG(1, 1)), d, 64, 64)
		if !slices.Equal(a.Data, b.Data) {
			t.Errorf("%s: not reproducible", d)
		}
		sum, sq, nonzero := 0.0, 0.0, 0
		for _, x := range a.Float64s() {
			if RoundTo(d, x) != x {
				t.Fatalf("%s: %g is not rounded to the dtype", d, x)
			}
			sum += x
			sq += x * x
			if x != 0 {
				nonzero++
			}
		}
		n := float64(a.NumElements())
		if d.IsFloat() && (math.Abs(sum/n) > 0.1 || math.Abs(sq/n-1) > 0.1) {
			t.Errorf("%s: mean %g, variance %g", d, sum/n, sq/n)
		}
		if nonzero < a.NumElements()/3 {
			t.Errorf("%s: only %d non-zero values", d, nonzero)
		}
	}
}
