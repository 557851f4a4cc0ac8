package host

// Complex numbers in host code, as far as NVIDIA's FFT sample uses them:
// Python's complex scalars (1j literals, complex128), and in a script's
// driver complex tensors (torch.complex64 and complex128), which kernels
// never see: a complex tensor keeps its real and imaginary parts in a
// float tensor with a trailing dimension of 2, torch.view_as_real's
// layout, so that view_as_real and view_as_complex are views both ways.
// Their arithmetic is computed in float64 and rounded to the parts'
// dtype, like the driver's real tensors.

import (
	"math"
	"math/cmplx"
	"slices"
	"strings"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/lang"
	"github.com/tilec/tilec/runtime"
)

// complexDType is torch.complex64 (float32 parts) or torch.complex128
// (float64 parts).
type complexDType struct{ part ir.DType }

func (d complexDType) String() string {
	if d.part == ir.F64 {
		return "complex128"
	}
	return "complex64"
}

// complexOf is the complex dtype whose parts have dtype d (complex64 for
// any dtype but float64, as torch promotes a real tensor with a complex
// number).
func complexOf(d ir.DType) complexDType {
	if d == ir.F64 {
		return complexDType{ir.F64}
	}
	return complexDType{ir.F32}
}

// cTensor is a complex tensor: ri holds its parts, shape + (2,).
type cTensor struct{ ri *runtime.Tensor }

func (c *cTensor) shape() []int        { return c.ri.Shape[:len(c.ri.Shape)-1] }
func (c *cTensor) dtype() complexDType { return complexDType{c.ri.DType} }

// parts are the tensor's elements, row-major.
func (c *cTensor) parts() []complex128 {
	v := values(c.ri)
	out := make([]complex128, len(v)/2)
	for i := range out {
		out[i] = complex(v[2*i], v[2*i+1])
	}
	return out
}

// newComplex makes a complex tensor of dtype d and shape from xs, each
// part rounded to d's part dtype.
func (in *evaluator) newComplex(pos lang.Pos, what string, d complexDType, shape []int, xs []complex128) *cTensor {
	v := make([]float64, 2*len(xs))
	for i, x := range xs {
		v[2*i], v[2*i+1] = real(x), imag(x)
	}
	return &cTensor{in.fromValues(pos, what, d.part, append(slices.Clone(shape), 2), v)}
}

// complexValues reads an operand of complex arithmetic: a complex tensor,
// a real tensor or a number, with its shape (nil for a number) and the
// dtype it gives a result (ok false for anything else).
func (in *evaluator) complexValues(v any) (xs []complex128, shape []int, d complexDType, tensor, ok bool) {
	switch v := num(v).(type) {
	case *cTensor:
		return v.parts(), v.shape(), v.dtype(), true, true
	case *runtime.Tensor:
		rv := values(v)
		xs = make([]complex128, len(rv))
		for i, x := range rv {
			xs[i] = complex(x, 0)
		}
		return xs, v.Shape, complexOf(v.DType), true, true
	case complex128:
		return []complex128{v}, []int{}, complexDType{ir.F32}, false, true
	case float64:
		return []complex128{complex(v, 0)}, []int{}, complexDType{ir.F32}, false, true
	case int64:
		return []complex128{complex(float64(v), 0)}, []int{}, complexDType{ir.F32}, false, true
	}
	return nil, nil, complexDType{}, false, false
}

// complexScalar is a Python number as a complex one.
func (in *evaluator) complexScalar(v any) (complex128, bool) {
	switch v := num(v).(type) {
	case complex128:
		return v, true
	case int64:
		return complex(float64(v), 0), true
	case float64:
		return complex(v, 0), true
	}
	return 0, false
}

// isComplex reports whether v is a complex number or tensor.
func isComplex(v any) bool {
	switch v.(type) {
	case complex128, *cTensor:
		return true
	}
	return false
}

// complexBinop is x op y where one operand is complex: Python's complex
// arithmetic for two numbers, elementwise with broadcasting otherwise
// (complex128 when a float64 or complex128 tensor takes part, else
// complex64).
func (in *evaluator) complexBinop(pos lang.Pos, op string, x, y any) any {
	xs, xshape, dx, xt, okx := in.complexValues(x)
	ys, yshape, dy, yt, oky := in.complexValues(y)
	if !okx || !oky {
		in.fail(pos, "unsupported operand types for %s: %s and %s", op, describe(x), describe(y))
	}
	var f func(a, b complex128) complex128
	switch op {
	case "+":
		f = func(a, b complex128) complex128 { return a + b }
	case "-":
		f = func(a, b complex128) complex128 { return a - b }
	case "*":
		f = func(a, b complex128) complex128 { return a * b }
	case "/":
		if !xt && !yt && ys[0] == 0 {
			in.fail(pos, "ZeroDivisionError: complex division by zero")
		}
		f = func(a, b complex128) complex128 { return a / b }
	case "**":
		if !xt && !yt {
			if xs[0] == 0 && (real(ys[0]) < 0 || imag(ys[0]) != 0) {
				in.fail(pos, "ZeroDivisionError: 0.0 to a negative or complex power")
			}
			return complexPow(xs[0], ys[0])
		}
		f = complexPow
	case "==", "!=":
		if !xt && !yt {
			return (xs[0] == ys[0]) == (op == "==")
		}
		in.fail(pos, "comparing complex tensors is not part of the host subset")
	default:
		in.fail(pos, "unsupported operand types for %s: %s and %s", op, describe(x), describe(y))
	}
	if !xt && !yt {
		return f(xs[0], ys[0])
	}
	shape := in.broadcastShapes(pos, xshape, yshape)
	in.checkElements(pos, op, shape)
	a, b := broadcastComplex(xs, xshape, shape), broadcastComplex(ys, yshape, shape)
	out := make([]complex128, len(a))
	for i := range a {
		out[i] = f(a[i], b[i])
	}
	d := complexDType{ir.F32}
	if xt && dx.part == ir.F64 || yt && dy.part == ir.F64 {
		d = complexDType{ir.F64}
	}
	return in.newComplex(pos, op, d, shape, out)
}

// complexPow is z**w as CPython computes it: by repeated multiplication
// for a whole exponent up to 100 in size (1j**2 is exactly -1+0j), else
// through exp and log.
func complexPow(z, w complex128) complex128 {
	n := real(w)
	if imag(w) != 0 || n != math.Floor(n) || math.Abs(n) > 100 {
		return cmplx.Pow(z, w)
	}
	r, base := complex(1, 0), z
	for k := int(math.Abs(n)); k > 0; k >>= 1 {
		if k&1 == 1 {
			r *= base
		}
		base *= base
	}
	if n < 0 {
		return 1 / r
	}
	return r
}

// broadcastComplex lays the row-major elements of a tensor of shape from
// out over shape, as broadcastTo does for real ones.
func broadcastComplex(xs []complex128, from, shape []int) []complex128 {
	re, im := make([]float64, len(xs)), make([]float64, len(xs))
	for i, x := range xs {
		re[i], im[i] = real(x), imag(x)
	}
	re, im = broadcastTo(re, from, shape), broadcastTo(im, from, shape)
	out := make([]complex128, len(re))
	for i := range out {
		out[i] = complex(re[i], im[i])
	}
	return out
}

// complexStr is Python's repr of a complex number: 2j, (1+2j), (-0-1j).
func complexStr(z complex128) string {
	part := func(x float64) string {
		return strings.TrimSuffix(pyFloat(x), ".0")
	}
	if real(z) == 0 && !math.Signbit(real(z)) {
		return part(imag(z)) + "j"
	}
	im := part(imag(z))
	if !strings.HasPrefix(im, "-") {
		im = "+" + im
	}
	return "(" + part(real(z)) + im + "j)"
}

// complexAttr is a complex tensor's attribute: its shape, dtype, ndim,
// device, and the real and imag parts as views of its elements.
func (in *evaluator) complexAttr(pos lang.Pos, c *cTensor, name string) any {
	switch name {
	case "shape":
		return shapeTuple(c.shape())
	case "dtype":
		return c.dtype()
	case "ndim":
		return int64(len(c.shape()))
	case "device":
		return device{"cuda"}
	case "is_cuda":
		return true
	case "real", "imag":
		r := len(c.ri.Shape) - 1
		v, err := c.ri.View(c.ri.Shape[:r], c.ri.Strides[:r])
		if err == nil && name == "imag" {
			v.Offset += c.ri.Strides[r]
			err = v.CheckBounds()
		}
		if err != nil {
			in.fail(pos, "%s: %v", name, err)
		}
		return v
	case "size", "dim", "numel", "contiguous", "clone", "cuda", "cpu", "to":
		return method{c, name}
	}
	in.fail(pos, "a complex tensor's %s is not part of the host subset (complex tensors have shape, dtype, ndim, device, real, imag, size(), dim(), numel(), contiguous(), clone(), to())", name)
	return nil
}

// complexMethod calls one of a complex tensor's methods.
func (in *evaluator) complexMethod(c *callSite, x *cTensor, name string) any {
	pos := c.e.Pos
	switch name {
	case "size":
		a := c.bind("tensor.size", "dim=")
		if a[0] == nil {
			return shapeTuple(x.shape())
		}
		return int64(x.shape()[in.axisArg(pos, "size", a[0], len(x.shape()))])
	case "dim":
		c.bind("tensor.dim")
		return int64(len(x.shape()))
	case "numel":
		c.bind("tensor.numel")
		return int64(x.ri.NumElements() / 2)
	case "contiguous", "clone":
		c.bind("tensor." + name)
		if name == "contiguous" && x.ri.IsContiguous() {
			return x
		}
		return &cTensor{in.copyAs(pos, name, x.ri, x.ri.Shape)}
	case "cuda", "cpu":
		c.bind("tensor."+name, "device=")
		return x
	case "to":
		a := c.bind("tensor.to", "dtype", "device=", "non_blocking=")
		switch d := a[0].(type) {
		case complexDType:
			if d == x.dtype() {
				return x
			}
			return &cTensor{in.convert(pos, x.ri, d.part)}
		case string, device:
			return x
		}
		in.fail(pos, "tensor.to: a complex tensor converts to a complex dtype here, got %s", describe(a[0]))
	}
	in.fail(pos, "tensor.%s() of a complex tensor is not part of the host subset", name)
	return nil
}

// complexCall runs the functions of torch and torch.fft that take or make
// complex tensors; ok is false when the call is none of them.
func (in *evaluator) complexCall(c *callSite, mod, fn string) (any, bool) {
	name := mod + "." + fn
	pos := c.e.Pos
	switch {
	case mod == "torch" && fn == "view_as_real":
		a := c.bind(name, "input")
		x, ok := a[0].(*cTensor)
		if !ok {
			in.fail(c.argPos(0), "%s takes a complex tensor, got %s", name, describe(a[0]))
		}
		v, err := x.ri.View(x.ri.Shape, x.ri.Strides)
		if err != nil {
			in.fail(pos, "%s: %v", name, err)
		}
		return v, true
	case mod == "torch" && fn == "view_as_complex":
		a := c.bind(name, "input")
		t := in.tensorArg(c, name, 0, a[0])
		r := len(t.Shape)
		switch {
		case t.DType != ir.F32 && t.DType != ir.F64:
			in.fail(c.argPos(0), "%s is only supported for float32 and float64 tensors here, got %s", name, torchName(t.DType))
		case r == 0 || t.Shape[r-1] != 2:
			in.fail(c.argPos(0), "%s: Tensor must have a last dimension of size 2 (its shape is %v)", name, t.Shape)
		case t.Strides[r-1] != 1:
			in.fail(c.argPos(0), "%s: Tensor must have a last dimension with stride 1", name)
		}
		v, err := t.View(t.Shape, t.Strides)
		if err != nil {
			in.fail(pos, "%s: %v", name, err)
		}
		return &cTensor{v}, true
	case mod == "torch" && fn == "exp":
		a := c.bind(name, "input")
		x, ok := a[0].(*cTensor)
		if !ok {
			return nil, false
		}
		xs := x.parts()
		for i, z := range xs {
			xs[i] = cmplx.Exp(z)
		}
		return in.newComplex(pos, name, x.dtype(), x.shape(), xs), true
	case mod == "torch" && fn == "meshgrid":
		return in.meshgrid(c, name), true
	case mod == "torch.fft" && fn == "fft":
		return in.fft(c, name), true
	}
	return nil, false
}

// meshgrid is torch.meshgrid(*tensors, indexing=): 1-D tensors spread
// over the grid of their lengths ("ij": the first along dim 0; "xy":
// the first two swapped, as numpy's).
func (in *evaluator) meshgrid(c *callSite, name string) Tuple {
	var ts []*runtime.Tensor
	args := c.args
	if len(args) == 1 {
		if t, ok := plainTuple(args[0]).(Tuple); ok {
			args = t
		}
	}
	for i, v := range args {
		t, ok := v.(*runtime.Tensor)
		if !ok || len(t.Shape) > 1 {
			in.fail(c.argPos(i), "%s takes 1-D tensors, got %s", name, describe(v))
		}
		ts = append(ts, t)
	}
	indexing := "ij"
	for k, v := range c.kw {
		s, ok := v.(string)
		if k != "indexing" || !ok || (s != "ij" && s != "xy") {
			in.fail(c.e.Pos, "%s takes indexing='ij' or 'xy' as its only keyword", name)
		}
		indexing = s
	}
	shape := make([]int, len(ts))
	for i, t := range ts {
		shape[i] = t.NumElements()
	}
	if indexing == "xy" && len(shape) >= 2 {
		shape[0], shape[1] = shape[1], shape[0]
	}
	in.checkElements(c.e.Pos, name, shape)
	out := make(Tuple, len(ts))
	for i, t := range ts {
		ax := i
		if indexing == "xy" && i < 2 && len(ts) >= 2 {
			ax = 1 - i
		}
		from := make([]int, len(shape))
		for k := range from {
			from[k] = 1
		}
		from[ax] = shape[ax]
		if exactDType(t.DType) {
			out[i] = in.fromInts(c.e.Pos, name, t.DType, shape, broadcastTo(ints(t), from, shape))
		} else {
			out[i] = in.fromValues(c.e.Pos, name, t.DType, shape, broadcastTo(values(t), from, shape))
		}
	}
	return out
}

// fft is torch.fft.fft(input, n=None, dim=-1, norm=None) (axis= is dim,
// as torch accepts): the discrete Fourier transform along dim, summed in
// float64 as its definition, X[k] = sum_j x[j] exp(-2 pi i j k / n),
// rounded to the input's complex dtype (complex64 for a real float32
// input). n pads with zeros or truncates; norm "backward" (the default),
// "ortho" or "forward" scales as torch's.
func (in *evaluator) fft(c *callSite, name string) *cTensor {
	a := c.bind(name, "input", "n=", "dim=", "norm=", "axis=")
	pos := c.e.Pos
	if a[2] != nil && a[4] != nil {
		in.fail(pos, "%s: give dim or axis, not both", name)
	}
	dimArg := a[2]
	if dimArg == nil {
		dimArg = a[4]
	}
	var xs []complex128
	var shape []int
	var d complexDType
	switch x := a[0].(type) {
	case *cTensor:
		xs, shape, d = x.parts(), x.shape(), x.dtype()
	case *runtime.Tensor:
		if !x.DType.IsFloat() && !exactDType(x.DType) {
			in.fail(c.argPos(0), "%s takes a tensor, got %s", name, describe(a[0]))
		}
		xs, shape, d, _, _ = in.complexValues(x)
	default:
		in.fail(c.argPos(0), "%s takes a tensor, got %s", name, describe(a[0]))
	}
	if len(shape) == 0 {
		in.fail(c.argPos(0), "%s: the input has no dimension to transform", name)
	}
	dim := len(shape) - 1
	if dimArg != nil && dimArg != (none{}) {
		dim = in.axisArg(pos, name, dimArg, len(shape))
	}
	m := shape[dim]
	n := m
	if a[1] != nil && a[1] != (none{}) {
		n = int(in.intArg(c.argPos(1), name, a[1]))
		if n < 1 {
			in.fail(c.argPos(1), "%s: n must be at least 1, got %d", name, n)
		}
	}
	scale := 1.0
	if a[3] != nil && a[3] != (none{}) {
		switch s, _ := a[3].(string); s {
		case "backward":
		case "ortho":
			scale = 1 / math.Sqrt(float64(n))
		case "forward":
			scale = 1 / float64(n)
		default:
			in.fail(pos, "%s: norm is \"backward\", \"ortho\" or \"forward\", got %s", name, describe(a[3]))
		}
	}
	outShape := slices.Clone(shape)
	outShape[dim] = n
	in.checkElements(pos, name, outShape)
	inner := 1
	for _, s := range shape[dim+1:] {
		inner *= s
	}
	outer := len(xs) / max(m*inner, 1)
	if int64(outer)*int64(inner)*int64(n)*int64(min(n, m)) > int64(maxSteps)*64 {
		in.fail(pos, "%s: a transform of %d points over %d rows is more than the driver computes (it sums the definition directly)", name, n, outer*inner)
	}
	out := make([]complex128, outer*n*inner)
	w := make([]complex128, n) // exp(-2 pi i k / n)
	for k := range w {
		s, co := math.Sincos(-2 * math.Pi * float64(k) / float64(n))
		w[k] = complex(co, s)
	}
	for o := range outer {
		in.checkDeadline(pos)
		for i := range inner {
			for k := range n {
				var sum complex128
				for j := range min(n, m) {
					sum += xs[(o*m+j)*inner+i] * w[(j*k)%n]
				}
				out[(o*n+k)*inner+i] = sum * complex(scale, 0)
			}
		}
	}
	return in.newComplex(pos, name, d, outShape, out)
}

// randComplex is torch.randn/rand with a complex dtype: each part normal
// with variance 1/2 (randn: the complex number has variance 1, as
// torch's), or uniform in [0, 1) (rand).
func (in *evaluator) randComplex(pos lang.Pos, fn string, d complexDType, shape []int) *cTensor {
	in.checkElements(pos, "torch."+fn, append(slices.Clone(shape), 2))
	n := 1
	for _, s := range shape {
		n *= s
	}
	xs := make([]complex128, n)
	rng := in.random()
	for i := range xs {
		if fn == "randn" {
			xs[i] = complex(rng.NormFloat64()*math.Sqrt(0.5), rng.NormFloat64()*math.Sqrt(0.5))
		} else {
			xs[i] = complex(rng.Float64(), rng.Float64())
		}
	}
	return in.newComplex(pos, "torch."+fn, d, shape, xs)
}

// complexClosePairs reads assert_close's operands when one is complex:
// both must be, of one shape (and dtype, with check_dtype); closeness is
// torch.isclose's on complex numbers, |a - e| <= atol + rtol * |e|.
func (in *evaluator) complexClosePairs(c *callSite, name string, act, exp any, checkDType bool) (shape []int, part ir.DType, pairs []closePair) {
	x, ok1 := act.(*cTensor)
	y, ok2 := exp.(*cTensor)
	if !ok1 || !ok2 {
		in.fail(c.e.Pos, "%s: the driver subset compares two complex tensors, got %s and %s", name, describe(act), describe(exp))
	}
	if !slices.Equal(x.shape(), y.shape()) {
		in.fail(c.e.Pos, "%s: the shapes differ: %v and %v", name, x.shape(), y.shape())
	}
	if checkDType && x.dtype() != y.dtype() {
		in.fail(c.e.Pos, "%s: the dtypes differ: torch.%s and torch.%s (convert one, or pass check_dtype=False)", name, x.dtype(), y.dtype())
	}
	a, b := x.parts(), y.parts()
	pairs = make([]closePair, len(a))
	for i := range a {
		isInf := cmplx.IsInf(a[i]) || cmplx.IsInf(b[i])
		pairs[i] = closePair{diff: cmplx.Abs(a[i] - b[i]), ref: cmplx.Abs(b[i]), nanA: cmplx.IsNaN(a[i]) && !isInf,
			nanB: cmplx.IsNaN(b[i]) && !isInf, same: a[i] == b[i], inf: isInf}
	}
	return x.shape(), promote(x.ri.DType, y.ri.DType), pairs
}
