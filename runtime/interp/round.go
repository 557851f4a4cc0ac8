package interp

// The interpreter's rounding of whole tiles after every op (runtime/doc.go's
// numerics), with the dtype dispatched once per tile rather than per element.

import (
	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/ir/scalar"
	"github.com/tilec/tilec/runtime"
)

// roundSlice rounds every element of xs to the float dtype d in place.
func roundSlice(d ir.DType, xs []float64) {
	switch d {
	case ir.F16:
		for i, x := range xs {
			xs[i] = runtime.F16Float(runtime.F16Bits(x))
		}
	case ir.BF16:
		for i, x := range xs {
			xs[i] = runtime.BF16Float(runtime.BF16Bits(x))
		}
	case ir.F32, ir.TF32:
		for i, x := range xs {
			xs[i] = float64(float32(x))
		}
	case ir.F8E4M3, ir.F8E5M2:
		for i, x := range xs {
			xs[i] = runtime.F8Float(d, runtime.F8Bits(d, x))
		}
	}
}

// wrapSlice wraps every element of xs to the integer or bool dtype d in
// place (ir.WrapInt, with the dtype dispatched once).
func wrapSlice(d ir.DType, xs []int64) {
	switch {
	case d == ir.Bool:
		for i, x := range xs {
			xs[i] = scalar.Bool(x)
		}
	case d.IsUnsigned() && d.Bits() < 64:
		bits := d.Bits()
		for i, x := range xs {
			xs[i] = scalar.WrapUnsigned(bits, x)
		}
	case !d.IsUnsigned() && d.Bits() < 64:
		bits := d.Bits()
		for i, x := range xs {
			xs[i] = scalar.Wrap(bits, x)
		}
	}
}
