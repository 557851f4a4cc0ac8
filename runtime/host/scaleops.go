package host

// Torch operations that block-scaled quantization drivers use (NVIDIA's
// samples/BlockScaledMatMul.py: block_quantize and its reference):
// torch.finfo, clamp, pow, log2, ceil, repeat_interleave, and torch's own
// conversion into float8_e8m0fnu, which rounds differently from cuTile's
// constant rule that runtime.Tensor.Set follows.

import (
	"math"
	"slices"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/lang"
	"github.com/tilec/tilec/runtime"
)

var (
	scaleFuncs   = []string{"finfo", "clamp", "pow", "log2", "ceil", "repeat_interleave"}
	scaleMethods = []string{"clamp", "pow", "log2", "ceil", "repeat_interleave"}
)

// scaleCall runs torch.<fn> when it is one of this file's.
func (in *evaluator) scaleCall(c *callSite, mod, fn string) (any, bool) {
	if mod != "torch" || !slices.Contains(scaleFuncs, fn) {
		return nil, false
	}
	name := "torch." + fn
	switch fn {
	case "finfo":
		a := c.bind(name, "type=")
		d := ir.F32 // torch's default dtype
		if a[0] != nil {
			var ok bool
			if d, ok = a[0].(dtypeVal); !ok {
				in.fail(c.argPos(0), "torch.finfo takes a dtype, got %s", describe(a[0]))
			}
		}
		return in.finfo(c.e.Pos, d), true
	case "pow":
		// torch.pow(self: Number, exponent: Tensor) too: the base may be
		// a number.
		a := c.bind(name, "input", "exponent")
		in.refuseE8M0(c.e.Pos, name, a[0], a[1])
		return in.tensorBinop(c.e.Pos, "**", a[0], a[1]), true
	}
	if len(c.args) == 0 {
		in.fail(c.e.Pos, "%s is missing argument input", name)
	}
	t := in.tensorArg(c, name, 0, c.args[0])
	rest := &callSite{in: in, e: c.e, args: c.args[1:], kw: c.kw}
	return in.scaleMethod(rest, t, fn, name), true
}

// scaleMethod is t.<name>(...) for one of scaleMethods (what names the
// call in errors).
func (in *evaluator) scaleMethod(c *callSite, t *runtime.Tensor, name, what string) any {
	pos := c.e.Pos
	switch name {
	case "clamp":
		a := c.bind(what, "min=", "max=")
		return in.clamp(pos, what, t, a[0], a[1])
	case "pow":
		a := c.bind(what, "exponent")
		in.refuseE8M0(pos, what, t, a[0])
		return in.tensorBinop(pos, "**", t, a[0])
	case "log2":
		c.bind(what)
		in.refuseE8M0(pos, what, t)
		return in.mapTensor(pos, name, t, math.Log2)
	case "ceil":
		c.bind(what)
		in.refuseE8M0(pos, what, t)
		switch {
		case t.DType == ir.Bool:
			in.fail(pos, "%s is not implemented for torch.bool tensors (torch)", what)
		case t.DType.IsInt():
			// torch: ceil of an integer tensor is a copy, its dtype kept.
			return in.copyAs(pos, what, t, t.Shape)
		}
		return in.mapTensor(pos, name, t, math.Ceil)
	case "repeat_interleave":
		a := c.bind(what, "repeats", "dim=", "output_size=")
		if a[2] != nil {
			in.fail(pos, "%s: output_size= is not part of the host subset", what)
		}
		return in.repeatInterleave(pos, what, t, a[0], a[1])
	}
	in.fail(pos, "%s is not part of the host subset", what)
	return nil
}

// refuseE8M0 fails when an operand is a float8_e8m0fnu tensor: torch has
// no arithmetic on them (its kernels are not implemented for the dtype, and
// it refuses to promote float8 dtypes), so a driver converts first.
func (in *evaluator) refuseE8M0(pos lang.Pos, what string, xs ...any) {
	for _, x := range xs {
		if t, ok := x.(*runtime.Tensor); ok && t.DType == ir.F8E8M0 {
			in.fail(pos, "%s is not implemented for torch.float8_e8m0fnu tensors (torch has no arithmetic on them: convert with .to(torch.float32) first)", what)
		}
	}
}

// finfo is torch.finfo(d): a record of the float dtype's limits, the
// values torch.finfo reports.
func (in *evaluator) finfo(pos lang.Pos, d ir.DType) *record {
	type limits struct {
		bits                  int64
		eps, max, tiny, resol float64
	}
	l, ok := map[ir.DType]limits{
		ir.F16:    {16, 0x1p-10, 65504, 0x1p-14, 1e-3},
		ir.BF16:   {16, 0x1p-7, 0x1.fep127, 0x1p-126, 1e-2},
		ir.F32:    {32, 0x1p-23, math.MaxFloat32, 0x1p-126, 1e-6},
		ir.F64:    {64, 0x1p-52, math.MaxFloat64, 0x1p-1022, 1e-15},
		ir.F8E4M3: {8, 0x1p-3, 448, 0x1p-6, 1},
		ir.F8E5M2: {8, 0x1p-2, 57344, 0x1p-14, 1},
	}[d]
	if !ok {
		if !d.IsFloat() {
			in.fail(pos, "TypeError: torch.finfo() requires a floating point input type, got torch.%s (torch.iinfo is not part of the host subset)", torchName(d))
		}
		in.fail(pos, "torch.finfo(torch.%s) is not part of the host subset (it has float16, bfloat16, float32, float64, float8_e4m3fn and float8_e5m2)", torchName(d))
	}
	return &record{
		typeName: "finfo",
		names:    []string{"bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"},
		vals:     []any{l.bits, l.eps, l.max, -l.max, l.tiny, l.tiny, l.resol, torchName(d)},
	}
}

// clamp is torch.clamp(t, min=, max=) with number bounds: the result's
// dtype is torch's result_type of the tensor and the numbers (a float
// bound makes an integer or bool tensor's result float32, an int bound
// makes a bool tensor's int64); NaN elements stay NaN; a min above max
// gives max everywhere, as torch's min(max(x, lo), hi).
func (in *evaluator) clamp(pos lang.Pos, what string, t *runtime.Tensor, lo, hi any) *runtime.Tensor {
	in.refuseE8M0(pos, what, t)
	if _, isNone := lo.(none); isNone {
		lo = nil
	}
	if _, isNone := hi.(none); isNone {
		hi = nil
	}
	if lo == nil && hi == nil {
		in.fail(pos, "%s: at least one of 'min' or 'max' must not be None (torch)", what)
	}
	d := t.DType
	bound := func(v any, arg string) (float64, int64, bool) {
		if v == nil {
			return 0, 0, false
		}
		switch x := num(v).(type) {
		case int64:
			if d == ir.Bool {
				d = ir.I64
			}
			return float64(x), x, true
		case float64:
			if !d.IsFloat() {
				d = ir.F32
			}
			return x, 0, true
		}
		if _, isTensor := v.(*runtime.Tensor); isTensor {
			in.fail(pos, "%s: a tensor %s is not part of the host subset (numbers are)", what, arg)
		}
		in.fail(pos, "%s: %s is a number, got %s", what, arg, describe(v))
		return 0, 0, false
	}
	lf, li, hasLo := bound(lo, "min")
	hf, hi64, hasHi := bound(hi, "max")
	if exactDType(d) {
		xs := ints(t)
		for i, x := range xs {
			if hasLo {
				x = max(x, li)
			}
			if hasHi {
				x = min(x, hi64)
			}
			xs[i] = x
		}
		return in.fromInts(pos, what, d, t.Shape, xs)
	}
	xs := values(t)
	for i, x := range xs {
		if math.IsNaN(x) {
			continue
		}
		if hasLo {
			x = math.Max(x, lf)
		}
		if hasHi {
			x = math.Min(x, hf)
		}
		xs[i] = x
	}
	return in.fromValues(pos, what, d, t.Shape, xs)
}

// repeatInterleave is torch.repeat_interleave(t, repeats, dim=) with an
// int repeats: each element (each slice along dim) repeated in place,
// copied bit for bit; without dim, of the flattened tensor.
func (in *evaluator) repeatInterleave(pos lang.Pos, what string, t *runtime.Tensor, repeats, dim any) *runtime.Tensor {
	if _, isTensor := repeats.(*runtime.Tensor); isTensor {
		in.fail(pos, "%s: a tensor of repeats is not part of the host subset (an int is)", what)
	}
	r := in.intArg(pos, what, repeats)
	if r < 0 {
		in.fail(pos, "%s: repeats can not be negative (torch)", what)
	}
	if _, isNone := dim.(none); isNone {
		dim = nil
	}
	shape := slices.Clone(t.Shape)
	ax := 0
	if dim == nil {
		shape = []int{t.NumElements()}
	} else {
		ax = in.axisArg(pos, what, dim, max(len(t.Shape), 1))
		if len(shape) == 0 {
			shape = []int{1}
		}
	}
	outer, inner := 1, 1
	for _, s := range shape[:ax] {
		outer *= s
	}
	for _, s := range shape[ax+1:] {
		inner *= s
	}
	size := shape[ax]
	if r > 0 && int64(size) > int64(maxScriptElements)/r {
		in.fail(pos, "%s: %d repeats of %d are more than the %d elements a driver's tensor may have", what, r, size, maxScriptElements)
	}
	out := slices.Clone(shape)
	out[ax] = size * int(r)
	in.checkElements(pos, what, out)
	src := make([]int, 0, outer*out[ax]*inner)
	for o := range outer {
		for j := range out[ax] {
			for k := range inner {
				src = append(src, (o*size+j/int(r))*inner+k)
			}
		}
	}
	return in.rearranged(pos, what, t, out, src)
}

// toE8M0 is t.to(torch.float8_e8m0fnu) as torch converts: each value
// rounded to float32 first, then its float32 exponent field kept (the
// sign dropped) and rounded up by one when the mantissa's top bit is set
// and the rest, or the implied bit of a normal number, makes it more than
// a tie below (round to nearest even on the exponent); float32 infinities
// and NaN give NaN (0xff), and so does a value that rounds past 2^127.
// Zero gives 2^-127 (0x00). This differs from cuTile's rule for constants
// (ir/scalar.E8M0Bits: ties up, negative refused).
func (in *evaluator) toE8M0(pos lang.Pos, t *runtime.Tensor) *runtime.Tensor {
	out := in.newTensor(pos, "to", ir.F8E8M0, t.Shape)
	var f32 []float32
	if exactDType(t.DType) {
		for _, x := range ints(t) {
			f32 = append(f32, float32(x))
		}
	} else {
		for _, x := range values(t) {
			f32 = append(f32, float32(x))
		}
	}
	for i, f := range f32 {
		out.Data[i] = torchE8M0Bits(f)
	}
	return out
}

// torchE8M0Bits is torch's float32 -> float8_e8m0fnu rounding (toE8M0).
func torchE8M0Bits(f float32) uint8 {
	b := math.Float32bits(f)
	exp := (b >> 23) & 0xff
	if exp == 0xff {
		return 0xff
	}
	guard := b&0x400000 != 0
	rest := b&0x3fffff != 0
	if guard && (rest || exp > 0) {
		exp++
	}
	return uint8(exp)
}
