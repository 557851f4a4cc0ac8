package host

// Tensor arithmetic for a script's driver (its `if __name__ == "__main__":`
// block): random inputs, and the reference a cuTile sample compares its
// kernel with, in torch's spelling (A @ B, torch.softmax, F.layer_norm,
// F.scaled_dot_product_attention, torch.testing.assert_close).
//
// Every float result is computed in float64 from the operands' stored
// values and rounded once to the result's dtype, so a reference is at least
// as exact as torch's on the GPU (which accumulates f16 matmuls in f32).
// Integer and bool results are computed in int64 and wrapped to their
// dtype, as torch's integer arithmetic wraps: float64 would round int64
// values beyond 2^53 (2**53 + 1 printing as 9007199254740992). Copies
// (reshape, index, cat) move elements bit for bit. Dtypes
// follow torch's promotion: two tensors of one dtype keep it; a float and
// an integer tensor give the float; two floats of one size but different
// formats (f16, bf16) give f32; a Python number takes the tensor's dtype
// (float32 for a float and an integer tensor); comparisons give bool.

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/ir/build"
	"github.com/tilec/tilec/ir/scalar"
	"github.com/tilec/tilec/lang"
	"github.com/tilec/tilec/runtime"
)

// maxScriptElements bounds one tensor a driver makes (2^28 elements, 2 GiB
// of float64 while computing), so a typo in a size is an error, not an
// exhausted machine.
var maxScriptElements = 1 << 28 // a var: the fuzzer lowers it

// Functions of torch, torch.nn.functional and torch.testing that drivers
// use, beyond allocation (moduleFuncs).
var scriptFuncs = map[module][]string{
	"torch": {"randn", "rand", "randperm", "stack", "cat", "manual_seed", "arange", "matmul", "bmm", "where", "maximum", "minimum",
		"exp", "log", "abs", "sqrt", "rsqrt", "tanh", "sigmoid", "relu", "softmax", "sum", "mean", "amax",
		"amin", "max", "min", "argmax", "argmin", "allclose", "float_power", "argsort", "bincount", "nonzero", "tensor", "_scaled_mm",
		"randn_like", "rand_like", "view_as_real", "view_as_complex", "meshgrid",
		"finfo", "clamp", "pow", "log2", "ceil", "repeat_interleave"},
	"torch.fft": {"fft"},
	"torch.nn.functional": {"relu", "silu", "gelu", "sigmoid", "softmax", "layer_norm", "rms_norm", "one_hot",
		"scaled_dot_product_attention"},
	"torch.testing": {"assert_close"},
}

// tensorMethods are the tensor methods of the driver subset (beyond the
// shape queries in attrOf).
var tensorMethods = []string{"float", "half", "bfloat16", "double", "long", "int", "bool", "to", "cuda", "cpu", "clone", "item",
	"sum", "mean", "amax", "amin", "max", "min", "argmax", "argmin", "abs", "exp", "sqrt", "relu", "sigmoid", "tanh",
	"softmax", "reshape", "view", "unsqueeze", "squeeze", "fill_", "normal_", "uniform_",
	"argsort", "bincount", "nonzero", "chunk", "index_add_", "backward", "requires_grad_", "detach",
	"clamp", "pow", "log2", "ceil", "repeat_interleave"}

// rng is the driver's random generator: torch.manual_seed(s) restarts it;
// a run starts as if torch.manual_seed(opts.Seed) had been called.
func (in *evaluator) random() *rand.Rand {
	if in.rng == nil {
		in.rng = rand.New(rand.NewPCG(in.opts.Seed, in.opts.Seed))
	}
	return in.rng
}

// checkElements fails unless a tensor of shape is within the bound on a
// driver's tensors: called before a result's operands are broadcast or
// gathered, so that torch.ones(50000, 1) + torch.ones(1, 50000) is an
// error before gigabytes are allocated, not after.
func (in *evaluator) checkElements(pos lang.Pos, what string, shape []int) {
	n := 1
	for _, s := range shape {
		if s < 0 {
			in.fail(pos, "%s: negative dimension %d", what, s)
		}
		if s > 0 && n > maxScriptElements/s {
			in.fail(pos, "%s: %v is more than the %d elements a driver's tensor may have", what, shape, maxScriptElements)
		}
		n *= s
	}
}

// newTensor allocates a contiguous tensor for a driver, bounded.
func (in *evaluator) newTensor(pos lang.Pos, what string, d ir.DType, shape []int) *runtime.Tensor {
	in.checkElements(pos, what, shape)
	t, err := runtime.AllocTensor(d, shape...)
	if err != nil {
		in.fail(pos, "%s: %v", what, err)
	}
	return t
}

// values are a tensor's elements in float64, row-major.
func values(t *runtime.Tensor) []float64 {
	if len(t.Shape) == 0 {
		return []float64{t.At()}
	}
	return t.Float64s()
}

// exactDType reports whether d holds integers (integer and bool dtypes),
// which the driver computes in int64, never through float64.
func exactDType(d ir.DType) bool { return d.IsInt() || d == ir.Bool }

// ints are a tensor's elements as int64, row-major (floats truncate).
func ints(t *runtime.Tensor) []int64 {
	if len(t.Shape) == 0 {
		return []int64{t.AtInt()}
	}
	return t.Int64s()
}

// fromInts makes a tensor of dtype d and shape with the integers xs,
// wrapped to an integer d, rounded to a float d.
func (in *evaluator) fromInts(pos lang.Pos, what string, d ir.DType, shape []int, xs []int64) *runtime.Tensor {
	t := in.newTensor(pos, what, d, shape)
	i := 0
	t.ForEachElem(func(e int) {
		if exactDType(d) {
			t.SetElemIntAt(e, xs[i])
		} else {
			t.SetElemAt(e, float64(xs[i]))
		}
		i++
	})
	return t
}

// rearranged is a tensor of t's dtype and the given shape whose element i
// is t's row-major element src[i], copied bit for bit (exact for every
// dtype).
func (in *evaluator) rearranged(pos lang.Pos, what string, t *runtime.Tensor, shape []int, src []int) *runtime.Tensor {
	out := in.newTensor(pos, what, t.DType, shape)
	c := t
	if !t.IsContiguous() {
		c = in.copyAs(pos, what, t, t.Shape)
	}
	bs := t.DType.Bytes()
	for i, j := range src {
		copy(out.Data[i*bs:(i+1)*bs], c.Data[j*bs:(j+1)*bs])
	}
	return out
}

// fromValues makes a tensor of dtype d and shape with the values xs,
// rounded to d.
func (in *evaluator) fromValues(pos lang.Pos, what string, d ir.DType, shape []int, xs []float64) *runtime.Tensor {
	t := in.newTensor(pos, what, d, shape)
	if len(shape) == 0 {
		t.Set(xs[0])
		return t
	}
	for i, x := range xs {
		if d.IsInt() || d == ir.Bool {
			t.SetInt(int64(x), runtime.Unravel(i, shape)...)
		} else {
			t.Set(x, runtime.Unravel(i, shape)...)
		}
	}
	return t
}

// promote is the dtype of an arithmetic result of a and b (torch's rules).
func promote(a, b ir.DType) ir.DType {
	switch {
	case a == b:
		return a
	case a.IsFloat() && !b.IsFloat():
		return a
	case b.IsFloat() && !a.IsFloat():
		return b
	case a.Bytes() != b.Bytes():
		if a.Bytes() > b.Bytes() {
			return a
		}
		return b
	case a.IsFloat():
		return ir.F32 // f16 with bf16
	}
	if a == ir.Bool {
		return b
	}
	if b == ir.Bool {
		return a
	}
	return ir.I64
}

// broadcastShapes is numpy's broadcast of two shapes (ir's rule), or an
// error naming them.
func (in *evaluator) broadcastShapes(pos lang.Pos, a, b []int) []int {
	out, ok := build.BroadcastShapes(a, b)
	if !ok {
		in.fail(pos, "the shapes %v and %v do not broadcast", a, b)
	}
	return out
}

// broadcastTo returns the row-major elements src of a tensor of shape
// from laid out over shape (broadcast to it).
func broadcastTo[T int64 | float64](src []T, from, shape []int) []T {
	if slices.Equal(from, shape) {
		return src
	}
	n := 1
	for _, s := range shape {
		n *= s
	}
	out := make([]T, n)
	off := len(shape) - len(from)
	strides := runtime.RowMajorStrides(from)
	for i := range out {
		idx := runtime.Unravel(i, shape)
		k := 0
		for ax, d := range from {
			if d != 1 {
				k += idx[off+ax] * strides[ax]
			}
		}
		out[i] = src[k]
	}
	return out
}

// broadcastValues is t's values (float64) broadcast to shape.
func broadcastValues(t *runtime.Tensor, shape []int) []float64 {
	return broadcastTo(values(t), t.Shape, shape)
}

// scalarTensor makes a 0-d float64 tensor of a Python number next to a
// tensor of dtype other, and the dtype the number counts as in promotion:
// other's (f32 for a float with an integer tensor, i64 for an int with a
// bool tensor).
func (in *evaluator) scalarTensor(pos lang.Pos, v any, other ir.DType) (*runtime.Tensor, ir.DType, bool) {
	var x float64
	d := other
	switch v := num(v).(type) {
	case int64:
		x = float64(v)
		if other == ir.Bool {
			d = ir.I64
		}
	case float64:
		x = v
		if !other.IsFloat() {
			d = ir.F32
		}
	case bool:
		if v {
			x = 1
		}
	default:
		return nil, 0, false
	}
	if n, isInt := num(v).(int64); isInt {
		// An int stays exact next to an integer tensor (2**53 + 1).
		t := in.newTensor(pos, "a number", ir.I64, nil)
		t.SetInt(n)
		return t, d, true
	}
	t := in.newTensor(pos, "a number", ir.F64, nil)
	t.Set(x)
	return t, d, true
}

// operands reads two operands of which at least one is a tensor, a
// number standing for the other, with the dtypes they promote as.
func (in *evaluator) operands(pos lang.Pos, what string, x, y any) (tx, ty *runtime.Tensor, dx, dy ir.DType) {
	tx, xt := x.(*runtime.Tensor)
	ty, yt := y.(*runtime.Tensor)
	ok := true
	switch {
	case xt && yt:
		dx, dy = tx.DType, ty.DType
	case xt:
		dx = tx.DType
		ty, dy, ok = in.scalarTensor(pos, y, dx)
	case yt:
		dy = ty.DType
		tx, dx, ok = in.scalarTensor(pos, x, dy)
	default:
		ok = false
	}
	if !ok {
		in.fail(pos, "unsupported operand types for %s: %s and %s", what, describe(x), describe(y))
	}
	return tx, ty, dx, dy
}

// tensorBinop applies op to two operands at least one of which is a tensor.
func (in *evaluator) tensorBinop(pos lang.Pos, op string, x, y any) any {
	if op == "@" {
		tx, xt := x.(*runtime.Tensor)
		ty, yt := y.(*runtime.Tensor)
		if !xt || !yt {
			in.fail(pos, "@ takes two tensors, got %s and %s", describe(x), describe(y))
		}
		return in.matmul(pos, "@", tx, ty)
	}
	in.refuseE8M0(pos, op, x, y)
	tx, ty, dx, dy := in.operands(pos, op, x, y)
	d := promote(dx, dy)
	shape := in.broadcastShapes(pos, tx.Shape, ty.Shape)
	in.checkElements(pos, op, shape)
	if exactDType(d) && op != "/" {
		return in.intBinop(pos, op, d, shape, tx, ty)
	}
	var f func(a, b float64) float64
	switch op {
	case "+", "-", "*":
		f = ringOp[float64](op)
	case "/":
		f = func(a, b float64) float64 { return a / b }
		if !d.IsFloat() {
			d = ir.F32
		}
	case "**":
		f = scalar.PowFloat
	case "<", "<=", ">", ">=", "==", "!=":
		f = comparison[float64](op)
		d = ir.Bool
	case "//":
		// torch.floor_divide on floats: Python's quotient, IEEE's
		// ±inf or NaN for a zero divisor.
		f = func(a, b float64) float64 {
			if b == 0 {
				return a / b
			}
			return floorDivFloat(a, b)
		}
	case "%":
		// torch.remainder: the sign of the divisor; NaN for a zero one.
		f = scalar.ModFloat
	case "&", "|", "^", "<<", ">>":
		in.fail(pos, "%s on tensors takes integer or bool tensors, got torch.%s", op, torchName(d))
	default:
		in.fail(pos, "%s on tensors is not part of the driver subset (it has + - * / // %% ** @, comparisons and, on integers, & | ^ << >>)", op)
	}
	a, b := broadcastValues(tx, shape), broadcastValues(ty, shape)
	out := make([]float64, len(a))
	for i := range out {
		out[i] = f(a[i], b[i])
	}
	return in.fromValues(pos, op, d, shape, out)
}

// intBinop is op on integer or bool tensors (d their promoted dtype), in
// int64 and wrapped to d as torch's integer arithmetic wraps; // and % by
// zero raise, as torch's do on integers.
func (in *evaluator) intBinop(pos lang.Pos, op string, d ir.DType, shape []int, tx, ty *runtime.Tensor) *runtime.Tensor {
	var f func(a, b int64) int64
	zero := func(b int64) {
		if b == 0 {
			in.fail(pos, "ZeroDivisionError: integer %s by zero in a torch.%s tensor", map[string]string{"//": "division", "%": "modulo"}[op], torchName(d))
		}
	}
	switch op {
	case "+", "-", "*":
		f = ringOp[int64](op)
	case "//":
		f = func(a, b int64) int64 { zero(b); return scalar.FloorDiv(a, b) }
	case "%":
		f = func(a, b int64) int64 { zero(b); return scalar.Mod(a, b) }
	case "**":
		f = func(a, b int64) int64 {
			if b < 0 {
				in.fail(pos, "integers to negative integer powers are not allowed (torch)")
			}
			return scalar.Pow(a, b)
		}
	case "<", "<=", ">", ">=", "==", "!=":
		f = comparison[int64](op)
		d = ir.Bool
	case "&":
		f = func(a, b int64) int64 { return a & b }
	case "|":
		f = func(a, b int64) int64 { return a | b }
	case "^":
		f = func(a, b int64) int64 { return a ^ b }
	case "<<":
		f = func(a, b int64) int64 { return scalar.Shl(a, b) }
	case ">>":
		f = func(a, b int64) int64 { return scalar.Shr(a, b) }
	default:
		in.fail(pos, "%s on tensors is not part of the driver subset (it has + - * / // %% ** @, comparisons and, on integers, & | ^ << >>)", op)
	}
	a, b := broadcastTo(ints(tx), tx.Shape, shape), broadcastTo(ints(ty), ty.Shape, shape)
	out := make([]int64, len(a))
	for i := range out {
		out[i] = f(a[i], b[i])
	}
	return in.fromInts(pos, op, d, shape, out)
}

// ringOp is + - or * as a function (ints wrap at 64 bits).
func ringOp[T int64 | float64](op string) func(a, b T) T {
	return map[string]func(a, b T) T{
		"+": func(a, b T) T { return a + b },
		"-": func(a, b T) T { return a - b },
		"*": func(a, b T) T { return a * b },
	}[op]
}

// comparison is the comparison op as a function giving 1 for true, 0 for
// false (a bool tensor's values); NaN compares false except with !=.
func comparison[T int64 | float64](op string) func(a, b T) T {
	test := map[string]func(a, b T) bool{
		"<":  func(a, b T) bool { return a < b },
		"<=": func(a, b T) bool { return a <= b },
		">":  func(a, b T) bool { return a > b },
		">=": func(a, b T) bool { return a >= b },
		"==": func(a, b T) bool { return a == b },
		"!=": func(a, b T) bool { return a != b },
	}[op]
	return func(a, b T) T {
		if test(a, b) {
			return 1
		}
		return 0
	}
}

// choose is torch.where over broadcast operands: x where cond is true.
func choose[T int64 | float64](cond []float64, x, y []T) []T {
	out := make([]T, len(cond))
	for i, c := range cond {
		out[i] = y[i]
		if c != 0 {
			out[i] = x[i]
		}
	}
	return out
}

// elementwise is f over two broadcast operands.
func elementwise[T int64 | float64](x, y []T, f func(a, b T) T) []T {
	out := make([]T, len(x))
	for i := range out {
		out[i] = f(x[i], y[i])
	}
	return out
}

// mapTensor applies f to every element; the result is a float tensor
// (f32 for an integer input), as torch's unary math is, except abs and
// relu, which keep an integer dtype (and its exact values) as torch's do.
func (in *evaluator) mapTensor(pos lang.Pos, name string, t *runtime.Tensor, f func(float64) float64) *runtime.Tensor {
	in.refuseE8M0(pos, name, t)
	if t.DType.IsInt() && (name == "abs" || name == "relu") {
		xs := ints(t)
		for i, x := range xs {
			if x < 0 {
				xs[i] = map[string]int64{"abs": -x, "relu": 0}[name]
			}
		}
		return in.fromInts(pos, name, t.DType, t.Shape, xs)
	}
	d := t.DType
	if !d.IsFloat() {
		d = ir.F32
	}
	xs := values(t)
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = f(x)
	}
	return in.fromValues(pos, name, d, t.Shape, out)
}

// tensorLiteral is torch.tensor(data, dtype=): a number, a bool or nested
// lists (tuples) of them of a rectangular shape; without dtype, bool when
// every item is, float32 when any is a float, else int64 (torch's rule).
func (in *evaluator) tensorLiteral(pos lang.Pos, data, dtype any) *runtime.Tensor {
	var shape []int
	var flat []any
	var walk func(v any, depth int)
	walk = func(v any, depth int) {
		t, isTuple := asTuple(v)
		if depth == len(shape) && isTuple && len(flat) == 0 {
			shape = append(shape, len(t)) // the first item of each depth sets the shape
		}
		switch {
		case isTuple && depth < len(shape) && len(t) == shape[depth]:
			for _, x := range t {
				walk(x, depth+1)
			}
		case isTuple && depth < len(shape):
			in.fail(pos, "torch.tensor: expected a list of length %d at dim %d (got %d)", shape[depth], depth, len(t))
		case isTuple || depth != len(shape):
			in.fail(pos, "torch.tensor: the nested lists are not of one depth (%d at the first items)", len(shape))
		default:
			if len(flat) >= maxScriptElements {
				in.fail(pos, "torch.tensor: more than the %d elements a driver's tensor may have", maxScriptElements)
			}
			flat = append(flat, v)
		}
	}
	walk(data, 0)
	if shape == nil {
		shape = []int{}
	}
	d, allBool, anyFloat := ir.I64, true, false
	for _, x := range flat {
		switch x.(type) {
		case bool:
		case int64:
			allBool = false
		case float64:
			allBool, anyFloat = false, true
		default:
			in.fail(pos, "torch.tensor takes numbers, bools and nested lists of them, got %s", describe(x))
		}
	}
	switch {
	case len(flat) > 0 && allBool:
		d = ir.Bool
	case anyFloat || len(flat) == 0:
		d = ir.F32
	}
	if dt, ok := dtype.(dtypeVal); ok {
		d = dt
	}
	t := in.newTensor(pos, "torch.tensor", d, shape)
	i := 0
	t.ForEachElem(func(e int) {
		switch x := num(flat[i]).(type) {
		case int64:
			if exactDType(d) {
				t.SetElemIntAt(e, x)
			} else {
				t.SetElemAt(e, float64(x))
			}
		case float64:
			if d == ir.Bool {
				x = float64(boolInt(x != 0))
			}
			t.SetElemAt(e, x)
		}
		i++
	})
	return t
}

// boolInt is 1 for true.
func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// geluTanh is F.gelu(x, approximate="tanh"):
// 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
func geluTanh(x float64) float64 {
	return 0.5 * x * (1 + math.Tanh(math.Sqrt(2/math.Pi)*(x+0.044715*x*x*x)))
}

var unaryFuncs = map[string]func(float64) float64{
	"exp": math.Exp, "log": math.Log, "abs": math.Abs, "sqrt": math.Sqrt, "tanh": math.Tanh,
	"rsqrt":   func(x float64) float64 { return 1 / math.Sqrt(x) },
	"sigmoid": func(x float64) float64 { return 1 / (1 + math.Exp(-x)) },
	"relu":    func(x float64) float64 { return math.Max(x, 0) },
	"silu":    func(x float64) float64 { return x / (1 + math.Exp(-x)) },
	"gelu":    func(x float64) float64 { return 0.5 * x * (1 + math.Erf(x/math.Sqrt2)) },
}

// matmul multiplies 2-D matrices, or batches of them (3-D and more, the
// batch dims equal), with float64 sums; a 1-D operand is a row (on the
// left) or a column (on the right) whose axis the result drops, as in
// torch.matmul.
func (in *evaluator) matmul(pos lang.Pos, name string, a, b *runtime.Tensor) *runtime.Tensor {
	if len(a.Shape) == 1 || len(b.Shape) == 1 {
		va, vb := len(a.Shape) == 1, len(b.Shape) == 1
		if va {
			a = in.reshapeTo(pos, a, []int{1, a.Shape[0]})
		}
		if vb {
			b = in.reshapeTo(pos, b, []int{b.Shape[0], 1})
		}
		if len(a.Shape) != len(b.Shape) {
			in.fail(pos, "%s: the driver subset multiplies a vector with a matrix, not with %v", name, max(len(a.Shape), len(b.Shape)))
		}
		r := in.matmul(pos, name, a, b)
		shape := slices.Clone(r.Shape)
		if vb {
			shape = shape[:len(shape)-1]
		}
		if va {
			shape = slices.Delete(shape, len(shape)-1-boolInt(!vb), len(shape)-boolInt(!vb))
		}
		return in.reshapeTo(pos, r, shape)
	}
	ra, rb := len(a.Shape), len(b.Shape)
	if ra < 2 || ra != rb || !slices.Equal(a.Shape[:ra-2], b.Shape[:rb-2]) {
		in.fail(pos, "%s: the driver subset multiplies matrices or batches of them of one batch shape, got %v and %v", name, a.Shape, b.Shape)
	}
	m, k, k2, n := a.Shape[ra-2], a.Shape[ra-1], b.Shape[rb-2], b.Shape[rb-1]
	if k != k2 {
		in.fail(pos, "%s: shapes %v and %v cannot be multiplied (%d != %d)", name, a.Shape, b.Shape, k, k2)
	}
	batch := 1
	for _, s := range a.Shape[:ra-2] {
		batch *= s
	}
	shape := append(slices.Clone(a.Shape[:ra-2]), m, n)
	in.checkElements(pos, name, shape)
	d := promote(a.DType, b.DType)
	if in.opts.Matmul != nil && (d == ir.F16 || d == ir.BF16) && a.DType == d && b.DType == d {
		// On a GPU backend, as torch on the GPU: the device's cuBLAS
		// (no CPU work bound: the device does the work).
		r, err := in.opts.Matmul(a, b)
		if err != nil {
			in.fail(pos, "%s: %v", name, err)
		}
		return r
	}
	if float64(batch)*float64(m)*float64(n)*float64(k) > 1<<36 {
		in.fail(pos, "%s: %v @ %v is too much work for the CPU reference", name, a.Shape, b.Shape)
	}
	av, bv := values(a), values(b)
	out := make([]float64, batch*m*n)
	// torch on a GPU accumulates float16, bfloat16 and float32 products in
	// float32 (cuBLAS; TF32 only when matmul precision allows it): so does
	// the driver, k ascending, one rounding per step (a float32 fma), which
	// is how tilec's mma accumulates too. Wider and integer dtypes sum in
	// float64.
	f32 := d == ir.F16 || d == ir.BF16 || d == ir.F32
	if d == ir.F32 && (in.matmulPrecision == "high" || in.matmulPrecision == "medium") {
		// torch.set_float32_matmul_precision("high") lets float32
		// matmuls run on TF32 tensor cores: inputs rounded to tf32.
		tf := func(xs []float64) []float64 {
			out := make([]float64, len(xs))
			for i, x := range xs {
				out[i] = float64(runtime.RoundTF32(float32(x)))
			}
			return out
		}
		av, bv = tf(av), tf(bv)
	}
	for z := range batch {
		for i := range m {
			in.checkDeadline(pos) // a row at a time: a large product runs long
			row := out[(z*m+i)*n : (z*m+i+1)*n]
			for p := range k {
				x := av[(z*m+i)*k+p]
				brow := bv[(z*k+p)*n : (z*k+p+1)*n]
				if f32 {
					for j := range n {
						row[j] = float64(float32(math.FMA(x, brow[j], row[j])))
					}
					continue
				}
				for j := range n {
					row[j] += x * brow[j]
				}
			}
		}
	}
	return in.fromValues(pos, name, d, shape, out)
}

// axisArg reads a dim argument (negative from the end) of a tensor of rank r.
func (in *evaluator) axisArg(pos lang.Pos, name string, v any, r int) int {
	n := in.intArg(pos, name, v)
	if n < -int64(r) || n >= int64(r) {
		in.fail(pos, "%s: dim %d is out of range for a tensor of rank %d (dims are %d to %d)", name, n, r, -r, r-1)
	}
	if n < 0 {
		n += int64(r)
	}
	return int(n)
}

// reduce folds t along dim (every element when dim is nil) with f from
// init; keepdim keeps the reduced axis as 1. mean divides the sum; argmax
// returns the index of the first maximum (int64).
func (in *evaluator) reduce(pos lang.Pos, name string, t *runtime.Tensor, dim any, keepdim bool) *runtime.Tensor {
	if dims, ok := plainTuple(dim).(Tuple); ok {
		return in.reduceDims(pos, name, t, dims, keepdim)
	}
	xs := values(t)
	outer, n, inner := 1, len(xs), 1
	var shape []int
	ax := -1
	if dim != nil {
		if _, isNone := dim.(none); !isNone {
			ax = in.axisArg(pos, name, dim, len(t.Shape))
		}
	}
	if ax >= 0 {
		n = t.Shape[ax]
		for _, s := range t.Shape[:ax] {
			outer *= s
		}
		for _, s := range t.Shape[ax+1:] {
			inner *= s
		}
		shape = slices.Clone(t.Shape)
		if keepdim {
			shape[ax] = 1
		} else {
			shape = slices.Delete(shape, ax, ax+1)
		}
	} else if keepdim {
		for range t.Shape {
			shape = append(shape, 1)
		}
	}
	if n == 0 && name != "sum" && name != "mean" {
		in.fail(pos, "%s of an empty dimension", name)
	}
	d := t.DType
	switch {
	case name == "argmax" || name == "argmin":
		d = ir.I64
	case name == "sum" && !d.IsFloat():
		d = ir.I64
	case name == "mean" && !d.IsFloat():
		in.fail(pos, "mean of an integer tensor: convert it first (.float())")
	}
	if exactDType(t.DType) {
		return in.fromInts(pos, name, d, shape, fold(ints(t), name, outer, n, inner))
	}
	out := fold(values(t), name, outer, n, inner)
	if name == "mean" {
		for i := range out {
			out[i] /= float64(n)
		}
	}
	return in.fromValues(pos, name, d, shape, out)
}

// reduceDims reduces t over several dims (sum, mean, amax, amin take a
// tuple): one axis at a time, in float64 for floats so that the result is
// rounded once.
func (in *evaluator) reduceDims(pos lang.Pos, name string, t *runtime.Tensor, dims Tuple, keepdim bool) *runtime.Tensor {
	if !slices.Contains([]string{"sum", "mean", "amax", "amin"}, name) {
		in.fail(pos, "%s takes one dim, got %s", name, describe(dims))
	}
	if len(dims) == 0 {
		return in.reduce(pos, name, t, nil, keepdim)
	}
	var axes []int
	for _, d := range dims {
		ax := in.axisArg(pos, name, d, len(t.Shape))
		if slices.Contains(axes, ax) {
			in.fail(pos, "%s: dim %d appears multiple times in the list of dims", name, ax)
		}
		axes = append(axes, ax)
	}
	slices.Sort(axes)
	work := t
	if t.DType.IsFloat() {
		work = in.convert(pos, t, ir.F64)
	}
	for i := len(axes) - 1; i >= 0; i-- {
		work = in.reduce(pos, name, work, int64(axes[i]), true)
	}
	if t.DType.IsFloat() {
		work = in.convert(pos, work, t.DType)
	}
	if keepdim {
		return work
	}
	var shape []int
	for ax, s := range work.Shape {
		if !slices.Contains(axes, ax) {
			shape = append(shape, s)
		}
	}
	if shape == nil {
		shape = []int{}
	}
	return in.reshapeTo(pos, work, shape)
}

// fold reduces xs, viewed as (outer, n, inner), along its middle axis:
// sum (and mean's sum), amax/max, amin/min (NaN wins, as in torch) or
// argmax/argmin (the first maximum or minimum, or the first NaN).
func fold[T int64 | float64](xs []T, name string, outer, n, inner int) []T {
	isNaN := func(x T) bool { return x != x }
	out := make([]T, outer*inner)
	for o := range outer {
		for i := range inner {
			at := func(j int) T { return xs[(o*n+j)*inner+i] }
			var r T
			switch name {
			case "sum", "mean":
				for j := range n {
					r += at(j)
				}
			case "amax", "max", "amin", "min", "argmax", "argmin":
				best, arg := at(0), 0
				for j := 1; j < n; j++ {
					x := at(j)
					less := x < best
					if name != "amin" && name != "min" && name != "argmin" {
						less = x > best
					}
					if isNaN(best) {
						continue
					}
					if less || isNaN(x) {
						best, arg = x, j
					}
				}
				r = best
				if name == "argmax" || name == "argmin" {
					r = T(arg)
				}
			}
			out[o*inner+i] = r
		}
	}
	return out
}

// minMaxDim is torch.max(t, dim) and torch.min(t, dim): the named tuple
// (values, indices) of the reduction along dim, indices those of the
// first maximum (minimum), or of the first NaN, which wins as in torch.
func (in *evaluator) minMaxDim(pos lang.Pos, name string, t *runtime.Tensor, dim any, keepdim bool) namedTuple {
	vals := in.reduce(pos, name, t, dim, keepdim)
	idx := in.reduce(pos, "arg"+name, t, dim, keepdim)
	return namedTuple{typeName: "torch.return_types." + name, names: []string{"values", "indices"}, items: Tuple{vals, idx}}
}

// softmax along dim, in float64, rounded to t's dtype.
func (in *evaluator) softmax(pos lang.Pos, t *runtime.Tensor, dim any) *runtime.Tensor {
	if dim == nil {
		in.fail(pos, "softmax: give dim= (torch requires it)")
	}
	ax := in.axisArg(pos, "softmax", dim, len(t.Shape))
	xs := values(t)
	n, inner := t.Shape[ax], 1
	for _, s := range t.Shape[ax+1:] {
		inner *= s
	}
	out := make([]float64, len(xs))
	for base := 0; base < len(xs); base += n * inner {
		for i := range inner {
			m := math.Inf(-1)
			for j := range n {
				m = math.Max(m, xs[base+j*inner+i])
			}
			var s float64
			for j := range n {
				e := math.Exp(xs[base+j*inner+i] - m)
				out[base+j*inner+i] = e
				s += e
			}
			for j := range n {
				out[base+j*inner+i] /= s
			}
		}
	}
	return in.fromValues(pos, "softmax", floatDType(t.DType), t.Shape, out)
}

func floatDType(d ir.DType) ir.DType {
	if d.IsFloat() {
		return d
	}
	return ir.F32
}

// normalize is F.layer_norm (rms false) or F.rms_norm over the last
// len(normShape) dims, with optional weight and bias; n is the number of
// elements of each normalized row.
func (in *evaluator) normalize(pos lang.Pos, name string, t *runtime.Tensor, normShape, weight, bias any, eps float64, rms bool) (out *runtime.Tensor, n int) {
	var ns []int
	switch s := num(plainTuple(normShape)).(type) {
	case int64:
		ns = []int{int(s)}
	case Tuple:
		for _, x := range s {
			ns = append(ns, int(in.intArg(pos, name, x)))
		}
	default:
		in.fail(pos, "%s: normalized_shape is an int or a tuple, got %s", name, describe(normShape))
	}
	r := len(t.Shape)
	if len(ns) > r || !slices.Equal(t.Shape[r-len(ns):], ns) {
		in.fail(pos, "%s: normalized_shape %v is not the last dims of %v", name, ns, t.Shape)
	}
	n = 1
	for _, s := range ns {
		n *= s
	}
	vec := func(v any, what string) []float64 {
		if v == nil {
			return nil
		}
		if _, isNone := v.(none); isNone {
			return nil
		}
		w, ok := v.(*runtime.Tensor)
		if !ok || !slices.Equal(w.Shape, ns) {
			in.fail(pos, "%s: %s must be a tensor of shape %v, got %s", name, what, ns, describe(v))
		}
		return values(w)
	}
	w, b := vec(weight, "weight"), vec(bias, "bias")
	xs := values(t)
	ys := make([]float64, len(xs))
	for base := 0; base < len(xs); base += max(n, 1) {
		row := xs[base : base+n]
		mean, rstd := rowStats(row, eps, !rms)
		for j, x := range row {
			y := (x - mean) * rstd
			if w != nil {
				y *= w[j]
			}
			if b != nil {
				y += b[j]
			}
			ys[base+j] = y
		}
	}
	return in.fromValues(pos, name, floatDType(t.DType), t.Shape, ys), n
}

// rowStats is one normalized row's mean (0 unless centered: rms_norm
// does not center) and 1/sqrt(variance about it + eps), in float64.
func rowStats(row []float64, eps float64, centered bool) (mean, rstd float64) {
	if centered {
		for _, x := range row {
			mean += x
		}
		mean /= float64(len(row))
	}
	var sq float64
	for _, x := range row {
		sq += (x - mean) * (x - mean)
	}
	return mean, 1 / math.Sqrt(sq/float64(len(row))+eps)
}

// attention is F.scaled_dot_product_attention over (..., S, D) operands:
// softmax(Q K^T * scale (+ causal mask)) V, the causal mask aligned to the
// top left as torch's is_causal.
func (in *evaluator) attention(pos lang.Pos, q, k, v *runtime.Tensor, causal bool, scale any) *runtime.Tensor {
	r := len(q.Shape)
	if r < 2 || len(k.Shape) != r || len(v.Shape) != r || !slices.Equal(q.Shape[:r-2], k.Shape[:r-2]) ||
		!slices.Equal(k.Shape, v.Shape) || q.Shape[r-1] != k.Shape[r-1] {
		in.fail(pos, "scaled_dot_product_attention: the driver subset takes q, k, v of shapes (..., Sq, D), (..., Sk, D), (..., Sk, D), got %v, %v, %v", q.Shape, k.Shape, v.Shape)
	}
	sq, sk, d := q.Shape[r-2], k.Shape[r-2], q.Shape[r-1]
	sc := 1 / math.Sqrt(float64(d))
	if scale != nil {
		if _, isNone := scale.(none); !isNone {
			f, ok := toFloat(num(scale))
			if !ok {
				in.fail(pos, "scaled_dot_product_attention: scale is a float, got %s", describe(scale))
			}
			sc = f
		}
	}
	batch := 1
	for _, s := range q.Shape[:r-2] {
		batch *= s
	}
	if float64(batch)*float64(sq)*float64(sk)*float64(d) > 1<<35 {
		in.fail(pos, "scaled_dot_product_attention: %v is too much work for the CPU reference", q.Shape)
	}
	qv, kv, vv := values(q), values(k), values(v)
	out := make([]float64, batch*sq*d)
	p := make([]float64, sk)
	for z := range batch {
		for i := range sq {
			m := math.Inf(-1)
			for j := range sk {
				p[j] = math.Inf(-1)
				if causal && j > i {
					continue
				}
				var s float64
				for c := range d {
					s += qv[(z*sq+i)*d+c] * kv[(z*sk+j)*d+c]
				}
				p[j] = s * sc
				m = math.Max(m, p[j])
			}
			var l float64
			for j := range sk {
				p[j] = math.Exp(p[j] - m)
				l += p[j]
			}
			o := out[(z*sq+i)*d : (z*sq+i+1)*d]
			for j := range sk {
				if p[j] == 0 {
					continue
				}
				for c := range d {
					o[c] += p[j] / l * vv[(z*sk+j)*d+c]
				}
			}
		}
	}
	return in.fromValues(pos, "scaled_dot_product_attention", q.DType, q.Shape, out)
}

// defaultTolerance is torch.testing.assert_close's (rtol, atol) for a dtype.
func defaultTolerance(d ir.DType) (rtol, atol float64) {
	switch d {
	case ir.F16:
		return 1e-3, 1e-5
	case ir.BF16:
		return 1.6e-2, 1e-5
	case ir.F32, ir.TF32:
		return 1.3e-6, 1e-5
	case ir.F64:
		return 1e-7, 1e-7
	}
	return 0, 0
}

// assertClose is torch.testing.assert_close(actual, expected, rtol=, atol=):
// |a - e| <= atol + rtol * |e| elementwise (NaN never close), shapes and
// (unless check_dtype=False) dtypes equal; the failure says how many
// elements differ and where the worst one is, as torch does.
func (in *evaluator) assertClose(c *callSite) {
	const name = "torch.testing.assert_close"
	a := c.bind(name, "actual", "expected", "rtol=", "atol=", "check_dtype=", "equal_nan=", "msg=")
	checkDType := a[4] == nil || in.truth(c.e.Pos, a[4])
	var shape []int
	var dtype ir.DType
	var pairs []closePair
	if isComplex(a[0]) || isComplex(a[1]) {
		// Complex tensors: the tolerances of their parts' dtype.
		shape, dtype, pairs = in.complexClosePairs(c, name, a[0], a[1], checkDType)
	} else {
		act, ok1 := a[0].(*runtime.Tensor)
		exp, ok2 := a[1].(*runtime.Tensor)
		if !ok1 || !ok2 {
			in.fail(c.e.Pos, "%s: the driver subset compares two tensors, got %s and %s", name, describe(a[0]), describe(a[1]))
		}
		if !slices.Equal(act.Shape, exp.Shape) {
			in.fail(c.e.Pos, "%s: the shapes differ: %v and %v", name, act.Shape, exp.Shape)
		}
		if checkDType && act.DType != exp.DType {
			in.fail(c.e.Pos, "%s: the dtypes differ: torch.%s and torch.%s (convert one, or pass check_dtype=False)", name, torchName(act.DType), torchName(exp.DType))
		}
		av, ev := values(act), values(exp)
		pairs = make([]closePair, len(av))
		for i, x := range av {
			y := ev[i]
			pairs[i] = closePair{diff: math.Abs(x - y), ref: math.Abs(y), nanA: math.IsNaN(x), nanB: math.IsNaN(y),
				same: x == y, inf: math.IsInf(x, 0) || math.IsInf(y, 0)}
		}
		shape, dtype = act.Shape, promote(act.DType, exp.DType)
	}
	rtol, atol := defaultTolerance(dtype)
	if (a[2] == nil) != (a[3] == nil) {
		in.fail(c.e.Pos, "%s: give both rtol and atol, or neither", name)
	}
	if a[2] != nil {
		var ok bool
		if rtol, ok = toFloat(num(a[2])); !ok {
			in.fail(c.argPos(2), "%s: rtol is a number, got %s", name, describe(a[2]))
		}
		if atol, ok = toFloat(num(a[3])); !ok {
			in.fail(c.argPos(3), "%s: atol is a number, got %s", name, describe(a[3]))
		}
	}
	equalNaN := a[5] != nil && in.truth(c.e.Pos, a[5])
	// torch's diagnostics: |a - e| and |a - e| / |e| of the mismatched
	// elements (matched ones count 0), each maximum the first NaN if there
	// is one (5 against inf is inf / inf: nan), else the first largest.
	bad, worstAbs, worstRel, atAbs, atRel := 0, 0.0, 0.0, 0, 0
	worst := func(w *float64, at *int, x float64, i int) {
		if !math.IsNaN(*w) && (math.IsNaN(x) || x > *w) {
			*w, *at = x, i
		}
	}
	for i, p := range pairs {
		switch {
		case p.nanA || p.nanB:
			if equalNaN && p.nanA && p.nanB {
				continue
			}
		case p.same, !p.inf && p.diff <= atol+rtol*p.ref:
			continue
		}
		bad++
		worst(&worstAbs, &atAbs, p.diff, i)
		worst(&worstRel, &atRel, p.diff/p.ref, i)
	}
	if bad == 0 {
		return
	}
	index := func(i int) string {
		var parts []string
		for _, x := range runtime.Unravel(i, shape) {
			parts = append(parts, fmt.Sprint(x))
		}
		if len(parts) == 1 {
			return "(" + parts[0] + ",)"
		}
		return "(" + strings.Join(parts, ", ") + ")"
	}
	// Integer tensors are compared in int64: their absolute difference
	// prints as an int, the relative one (a true division) as a float.
	absText := pyFloat(worstAbs)
	if !dtype.IsFloat() { // complex pairs carry their parts' float dtype
		absText = strconv.FormatFloat(worstAbs, 'f', -1, 64)
	}
	// With rtol = atol = 0 torch says "equal" and gives no tolerances.
	verb, absTol, relTol := "close", fmt.Sprintf(" (up to %s allowed)", pyFloat(atol)), fmt.Sprintf(" (up to %s allowed)", pyFloat(rtol))
	if rtol == 0 && atol == 0 {
		verb, absTol, relTol = "equal", "", ""
	}
	msg := fmt.Sprintf("Tensor-likes are not %s!\n\nMismatched elements: %d / %d (%.1f%%)\n"+
		"Greatest absolute difference: %s at index %s%s\nGreatest relative difference: %s at index %s%s",
		verb, bad, len(pairs), 100*float64(bad)/float64(max(len(pairs), 1)), absText, index(atAbs), absTol,
		pyFloat(worstRel), index(atRel), relTol)
	if a[6] != nil {
		msg = in.str(a[6])
	}
	in.fail(c.e.Pos, "%s", msg)
}

// closePair is one element pair of assert_close: |actual - expected|,
// |expected|, whether either is NaN, whether they are equal, whether one
// is infinite.
type closePair struct {
	diff, ref        float64
	nanA, nanB, same bool
	inf              bool
}

// isClose is torch's closeness of one element pair (torch.isclose, which
// allclose and testing.assert_close use): |x - y| <= atol + rtol*|y| for
// finite values; infinities are close only to themselves (5 is not close
// to +Inf however large rtol is, and +Inf is not close to -Inf); NaN only
// to NaN, and only with equal_nan.
func isClose(x, y, rtol, atol float64, equalNaN bool) bool {
	switch {
	case math.IsNaN(x) || math.IsNaN(y):
		return equalNaN && math.IsNaN(x) && math.IsNaN(y)
	case x == y:
		return true
	case math.IsInf(x, 0) || math.IsInf(y, 0):
		return false
	}
	return math.Abs(x-y) <= atol+rtol*math.Abs(y)
}

// tensorArg reads argument i of a call as a tensor.
func (in *evaluator) tensorArg(c *callSite, name string, i int, v any) *runtime.Tensor {
	t, ok := v.(*runtime.Tensor)
	if !ok {
		in.fail(c.argPos(i), "%s takes a tensor, got %s", name, describe(v))
	}
	return t
}

// randTensor is torch.randn/torch.rand(*size, dtype=, device=); a complex
// dtype makes a complex tensor (complex.go).
func (in *evaluator) randTensor(c *callSite, fn string) any {
	name := "torch." + fn
	dims := c.args
	if len(dims) == 1 {
		if t, ok := plainTuple(dims[0]).(Tuple); ok {
			dims = t
		}
	}
	kw := &callSite{in: in, e: c.e, kw: c.kw}
	a := kw.bind(name, "dtype=", "device=", "requires_grad=", "generator=")
	d := ir.F32
	if cd, ok := a[0].(complexDType); ok {
		shape := make([]int, len(dims))
		for i, x := range dims {
			shape[i] = int(in.intArg(c.argPos(i), name, x))
		}
		return in.randComplex(c.e.Pos, fn, cd, shape)
	}
	if a[0] != nil {
		dt, ok := a[0].(dtypeVal)
		if !ok || !dt.IsFloat() {
			in.fail(c.e.Pos, "%s: dtype= is a float dtype, got %s", name, describe(a[0]))
		}
		d = dt
	}
	shape := make([]int, len(dims))
	for i, x := range dims {
		shape[i] = int(in.intArg(c.argPos(i), name, x))
	}
	t := in.newTensor(c.e.Pos, name, d, shape)
	xs := make([]float64, t.NumElements())
	rng := in.random()
	for i := range xs {
		if fn == "randn" {
			xs[i] = rng.NormFloat64()
		} else {
			xs[i] = rng.Float64()
		}
	}
	return in.fromValues(c.e.Pos, name, d, shape, xs)
}

// convert is t.to(dtype) and its short forms; a device argument (or
// .cuda(), .cpu()) leaves the tensor where it is: host tensors serve both.
func (in *evaluator) convert(pos lang.Pos, t *runtime.Tensor, v any) *runtime.Tensor {
	d, ok := v.(dtypeVal)
	if !ok {
		switch v.(type) {
		case string, device:
			return t
		}
		in.fail(pos, "tensor.to takes a dtype or a device, got %s", describe(v))
	}
	if d == t.DType {
		return t
	}
	if d == ir.F8E8M0 {
		return in.toE8M0(pos, t)
	}
	if exactDType(t.DType) {
		return in.fromInts(pos, "to", d, t.Shape, ints(t))
	}
	xs := values(t)
	if d == ir.Bool {
		// Nonzero is True (0.5 and NaN included), not a truncation to 0.
		for i, x := range xs {
			if x != 0 {
				xs[i] = 1
			}
		}
	}
	return in.fromValues(pos, "to", d, t.Shape, xs)
}

// reshape is t.reshape/t.view(*shape), one dim may be -1.
func (in *evaluator) reshape(c *callSite, t *runtime.Tensor, name string) *runtime.Tensor {
	dims := c.args
	if len(dims) == 1 {
		if tup, ok := plainTuple(dims[0]).(Tuple); ok {
			dims = tup
		}
	}
	n := t.NumElements()
	shape := make([]int, len(dims))
	infer, known := -1, 1
	for i, x := range dims {
		s := int(in.intArg(c.argPos(i), name, x))
		switch {
		case s == -1 && infer < 0:
			infer = i
		case s < 0:
			in.fail(c.argPos(i), "%s: bad dimension %d", name, s)
		default:
			known *= s
		}
		shape[i] = s
	}
	if infer >= 0 && known > 0 {
		shape[infer] = n / known
		known *= shape[infer]
	}
	if known != n {
		in.fail(c.e.Pos, "%s: shape %v is invalid for a tensor of %d elements", name, shape, n)
	}
	return in.reshapeTo(c.e.Pos, t, shape)
}

// torchCall runs a function of the driver subset of torch,
// torch.nn.functional or torch.testing.
func (in *evaluator) torchCall(c *callSite, mod, fn string) any {
	name := mod + "." + fn
	pos := c.e.Pos
	if v, ok := in.indexCall(c, mod, fn); ok {
		return v
	}
	if v, ok := in.scaleCall(c, mod, fn); ok {
		return v
	}
	if v, ok := in.complexCall(c, mod, fn); ok {
		return v
	}
	switch {
	case mod == "torch" && (fn == "randn" || fn == "rand"):
		return in.randTensor(c, fn)
	case mod == "torch" && (fn == "randn_like" || fn == "rand_like"):
		// The shape and dtype of the input (dtype= may change it).
		a := c.bind(name, "input", "dtype=", "device=", "requires_grad=", "layout=", "memory_format=")
		t := in.tensorArg(c, name, 0, a[0])
		kw := map[string]any{}
		if a[1] != nil {
			kw["dtype"] = a[1]
		} else {
			kw["dtype"] = t.DType
		}
		return in.randTensor(&callSite{in: in, e: c.e, args: Tuple{shapeTuple(t.Shape)}, kw: kw}, strings.TrimSuffix(fn, "_like"))
	case mod == "torch" && fn == "manual_seed":
		s := in.intArg(c.argPos(0), name, c.bind(name, "seed")[0])
		in.rng = rand.New(rand.NewPCG(uint64(s), uint64(s)))
		return none{}
	case mod == "torch" && fn == "randperm":
		a := c.bind(name, "n", "dtype=", "device=", "generator=")
		n := in.intArg(c.argPos(0), name, a[0])
		if n < 0 || n > int64(maxScriptElements) {
			in.fail(c.argPos(0), "%s: n must be from 0 to %d, got %d", name, maxScriptElements, n)
		}
		perm := in.random().Perm(int(n))
		xs := make([]float64, n)
		for i, p := range perm {
			xs[i] = float64(p)
		}
		d := ir.I64
		if dt, ok := a[1].(dtypeVal); ok {
			d = dt
		}
		return in.fromValues(pos, name, d, []int{int(n)}, xs)
	case mod == "torch" && (fn == "stack" || fn == "cat"):
		a := c.bind(name, "tensors", "dim=")
		ts, ok := a[0].(Tuple)
		if !ok || len(ts) == 0 {
			in.fail(c.argPos(0), "%s takes a non-empty list of tensors, got %s", name, describe(a[0]))
		}
		parts := make([]*runtime.Tensor, len(ts))
		for i, x := range ts {
			t, ok := x.(*runtime.Tensor)
			if !ok {
				in.fail(c.argPos(0), "%s: element %d is %s, not a tensor", name, i, describe(x))
			}
			parts[i] = t
		}
		r := len(parts[0].Shape)
		if fn == "stack" {
			r++ // stack's dim counts the new axis
		}
		dim := 0
		if a[1] != nil {
			dim = in.axisArg(pos, name, a[1], r)
		}
		if fn == "stack" {
			for i, t := range parts {
				shape := slices.Insert(slices.Clone(t.Shape), dim, 1)
				parts[i] = in.reshapeTo(pos, t, shape)
			}
		}
		return in.concat(pos, name, parts, dim)
	case mod == "torch" && fn == "tensor":
		a := c.bind(name, "data", "dtype=", "device=", "requires_grad=")
		return in.tensorLiteral(c.argPos(0), a[0], a[1])
	case mod == "torch" && fn == "_scaled_mm":
		// torch._scaled_mm(a, b, scale_a, scale_b, out_dtype=): the float8
		// GEMM of a sample's reference, (a @ b) * scale_a * scale_b, its
		// products accumulated in float32 as cuBLASLt does.
		a := c.bind(name, "input", "mat2", "scale_a", "scale_b", "bias=", "scale_result=", "out_dtype=", "use_fast_accum=")
		x, y := in.tensorArg(c, name, 0, a[0]), in.tensorArg(c, name, 1, a[1])
		if len(x.Shape) != 2 || len(y.Shape) != 2 {
			in.fail(pos, "%s takes 2-D matrices, got %v and %v", name, x.Shape, y.Shape)
		}
		for i, kw := range []string{4: "bias", 5: "scale_result"} {
			if b := a[i]; kw != "" && b != nil && b != (none{}) {
				in.fail(pos, "%s: %s= is not part of the host subset", name, kw)
			}
		}
		prod := in.matmul(pos, name, in.convert(pos, x, ir.F32), in.convert(pos, y, ir.F32))
		scaled := in.tensorBinop(pos, "*", in.tensorBinop(pos, "*", prod, a[2]), a[3]).(*runtime.Tensor)
		out := x.DType
		if d, ok := a[6].(dtypeVal); ok {
			out = d
		}
		return in.convert(pos, scaled, out)
	case mod == "torch" && fn == "arange":
		a := c.bind(name, "end", "dtype=", "device=")
		n := in.intArg(c.argPos(0), name, a[0])
		d := ir.I64
		if dt, ok := a[1].(dtypeVal); ok {
			d = dt
		}
		if n > int64(maxScriptElements) {
			in.fail(c.argPos(0), "%s: %d is more than the %d elements a driver's tensor may have", name, n, maxScriptElements)
		}
		xs := make([]int64, max(n, 0))
		for i := range xs {
			xs[i] = int64(i)
		}
		return in.fromInts(pos, name, d, []int{len(xs)}, xs)
	case mod == "torch" && (fn == "matmul" || fn == "bmm"):
		a := c.bind(name, "input", "other")
		x, y := in.tensorArg(c, name, 0, a[0]), in.tensorArg(c, name, 1, a[1])
		if fn == "bmm" && len(x.Shape) != 3 {
			in.fail(pos, "torch.bmm takes 3-D tensors, got %v", x.Shape)
		}
		return in.matmul(pos, name, x, y)
	case mod == "torch" && fn == "where":
		a := c.bind(name, "condition", "input", "other")
		cond := in.tensorArg(c, name, 0, a[0])
		tx, ty, dx, dy := in.operands(pos, name, a[1], a[2])
		shape := in.broadcastShapes(pos, in.broadcastShapes(pos, cond.Shape, tx.Shape), ty.Shape)
		in.checkElements(pos, name, shape)
		cv := broadcastValues(cond, shape)
		d := promote(dx, dy)
		if exactDType(d) {
			return in.fromInts(pos, name, d, shape, choose(cv, broadcastTo(ints(tx), tx.Shape, shape), broadcastTo(ints(ty), ty.Shape, shape)))
		}
		return in.fromValues(pos, name, d, shape, choose(cv, broadcastValues(tx, shape), broadcastValues(ty, shape)))
	case mod == "torch" && (fn == "maximum" || fn == "minimum"):
		a := c.bind(name, "input", "other")
		x, y := in.tensorArg(c, name, 0, a[0]), in.tensorArg(c, name, 1, a[1])
		shape := in.broadcastShapes(pos, x.Shape, y.Shape)
		in.checkElements(pos, name, shape)
		d := promote(x.DType, y.DType)
		if exactDType(d) {
			f := func(a, b int64) int64 { return max(a, b) }
			if fn == "minimum" {
				f = func(a, b int64) int64 { return min(a, b) }
			}
			return in.fromInts(pos, name, d, shape, elementwise(broadcastTo(ints(x), x.Shape, shape), broadcastTo(ints(y), y.Shape, shape), f))
		}
		f := math.Max
		if fn == "minimum" {
			f = math.Min
		}
		return in.fromValues(pos, name, d, shape, elementwise(broadcastValues(x, shape), broadcastValues(y, shape), f))
	case mod == "torch" && fn == "allclose":
		a := c.bind(name, "input", "other", "rtol=", "atol=", "equal_nan=")
		x, y := in.tensorArg(c, name, 0, a[0]), in.tensorArg(c, name, 1, a[1])
		rtol, atol := 1e-5, 1e-8
		for i, p := range []*float64{&rtol, &atol} {
			if v := a[2+i]; v != nil {
				f, ok := toFloat(num(v))
				if !ok {
					in.fail(c.argPos(2+i), "%s: %s is a number, got %s", name, []string{"rtol", "atol"}[i], describe(v))
				}
				*p = f
			}
		}
		equalNaN := a[4] != nil && in.truth(pos, a[4])
		shape := in.broadcastShapes(pos, x.Shape, y.Shape)
		in.checkElements(pos, name, shape)
		xv, yv := broadcastValues(x, shape), broadcastValues(y, shape)
		for i := range xv {
			if !isClose(xv[i], yv[i], rtol, atol, equalNaN) {
				return false
			}
		}
		return true
	case mod == "torch" && slices.Contains([]string{"sum", "mean", "amax", "amin", "max", "min", "argmax", "argmin"}, fn):
		a := c.bind(name, "input", "dim=", "keepdim=")
		t, keep := in.tensorArg(c, name, 0, a[0]), a[2] != nil && in.truth(pos, a[2])
		if (fn == "max" || fn == "min") && a[1] != nil {
			return in.minMaxDim(pos, fn, t, a[1], keep)
		}
		return in.reduce(pos, fn, t, a[1], keep)
	case mod == "torch.nn.functional" && fn == "gelu":
		a := c.bind(name, "input", "approximate=")
		f := unaryFuncs["gelu"]
		if a[1] != nil {
			switch mode, _ := a[1].(string); mode {
			case "none":
			case "tanh":
				f = geluTanh
			default:
				in.fail(c.argPos(1), "%s: approximate is 'none' or 'tanh', got %s", name, describe(a[1]))
			}
		}
		return in.mapTensor(pos, fn, in.tensorArg(c, name, 0, a[0]), f)
	case fn == "softmax":
		a := c.bind(name, "input", "dim=", "dtype=")
		t := in.tensorArg(c, name, 0, a[0])
		if d, ok := a[2].(dtypeVal); ok {
			t = in.convert(pos, t, d)
		}
		return in.softmax(pos, t, a[1])
	case mod == "torch.nn.functional" && (fn == "layer_norm" || fn == "rms_norm"):
		a := c.bind(name, "input", "normalized_shape", "weight=", "bias=", "eps=")
		if fn == "rms_norm" && c.kw["bias"] != nil {
			in.fail(pos, "%s takes no bias", name)
		}
		eps := 1e-5
		if fn == "rms_norm" {
			eps = 1.1920928955078125e-07 // torch.finfo(torch.float32).eps, rms_norm's default
		}
		if a[4] != nil {
			if _, isNone := a[4].(none); !isNone {
				var ok bool
				if eps, ok = toFloat(num(a[4])); !ok {
					in.fail(pos, "%s: eps is a float, got %s", name, describe(a[4]))
				}
			}
		}
		bias := a[3]
		if fn == "rms_norm" {
			bias = nil
		}
		x := in.tensorArg(c, name, 0, a[0])
		out, n := in.normalize(pos, name, x, a[1], a[2], bias, eps, fn == "rms_norm")
		if fn == "layer_norm" {
			in.recordLayerNorm(pos, out, x, a[2], bias, n, eps)
		}
		return out
	case fn == "scaled_dot_product_attention":
		a := c.bind(name, "query", "key", "value", "attn_mask=", "dropout_p=", "is_causal=", "scale=", "enable_gqa=")
		if a[3] != nil {
			if _, isNone := a[3].(none); !isNone {
				in.fail(pos, "%s: attn_mask is not part of the driver subset (is_causal=True is)", name)
			}
		}
		if a[4] != nil {
			if p, _ := toFloat(num(a[4])); p != 0 {
				in.fail(pos, "%s: dropout_p must be 0 in a reference", name)
			}
		}
		q, k, v := in.tensorArg(c, name, 0, a[0]), in.tensorArg(c, name, 1, a[1]), in.tensorArg(c, name, 2, a[2])
		if a[7] != nil && in.truth(pos, a[7]) {
			// Grouped-query attention: each key/value head serves
			// hq/hk query heads (torch repeats them, interleaved).
			k, v = in.repeatHeads(pos, name, q, k), in.repeatHeads(pos, name, q, v)
		}
		return in.attention(pos, q, k, v, a[5] != nil && in.truth(pos, a[5]), a[6])
	case mod == "torch.testing" && fn == "assert_close":
		in.assertClose(c)
		return none{}
	}
	if f, ok := unaryFuncs[fn]; ok {
		a := c.bind(name, "input")
		return in.mapTensor(pos, fn, in.tensorArg(c, name, 0, a[0]), f)
	}
	in.fail(pos, "%s is not part of the host subset", name)
	return nil
}

// tensorMethod calls one of tensorMethods.
func (in *evaluator) tensorMethod(c *callSite, t *runtime.Tensor, name string) any {
	pos := c.e.Pos
	switch name {
	case "float", "half", "bfloat16", "double", "long", "int", "bool":
		c.bind("tensor." + name)
		return in.convert(pos, t, map[string]ir.DType{"float": ir.F32, "half": ir.F16, "bfloat16": ir.BF16, "double": ir.F64,
			"long": ir.I64, "int": ir.I32, "bool": ir.Bool}[name])
	case "to":
		a := c.bind("tensor.to", "dtype", "device=", "non_blocking=")
		return in.convert(pos, t, a[0])
	case "cuda", "cpu":
		c.bind("tensor."+name, "device=")
		return t
	case "clone":
		c.bind("tensor.clone")
		return in.copyAs(pos, "clone", t, t.Shape)
	case "item":
		c.bind("tensor.item")
		if t.NumElements() != 1 {
			in.fail(pos, "item(): a tensor of %d elements cannot be converted to a Python number", t.NumElements())
		}
		switch {
		case t.DType == ir.Bool:
			return ints(t)[0] != 0
		case t.DType.IsInt():
			return ints(t)[0]
		}
		return values(t)[0]
	case "sum", "mean", "amax", "amin", "max", "min", "argmax", "argmin":
		a := c.bind("tensor."+name, "dim=", "keepdim=")
		keep := a[1] != nil && in.truth(pos, a[1])
		if (name == "max" || name == "min") && a[0] != nil {
			return in.minMaxDim(pos, name, t, a[0], keep)
		}
		return in.reduce(pos, name, t, a[0], keep)
	case "softmax":
		a := c.bind("tensor.softmax", "dim")
		return in.softmax(pos, t, a[0])
	case "reshape", "view":
		return in.reshape(c, t, "tensor."+name)
	case "unsqueeze":
		a := c.bind("tensor.unsqueeze", "dim")
		ax := in.axisArg(pos, "unsqueeze", a[0], len(t.Shape)+1)
		return in.reshapeTo(pos, t, slices.Insert(slices.Clone(t.Shape), ax, 1))
	case "squeeze":
		a := c.bind("tensor.squeeze", "dim=")
		// torch: a dim out of range raises; a dim whose size is not 1
		// is left as it is.
		ax := -1
		if a[0] != nil {
			ax = in.axisArg(pos, "squeeze", a[0], max(len(t.Shape), 1))
		}
		shape := []int{}
		for i, s := range t.Shape {
			if s != 1 || (ax >= 0 && i != ax) {
				shape = append(shape, s)
			}
		}
		return in.reshapeTo(pos, t, shape)
	case "fill_", "normal_", "uniform_":
		// In place, as torch's: the kernel arguments made with torch.empty
		// are filled before a launch.
		var xs []float64
		rng := in.random()
		switch name {
		case "fill_":
			arg := num(c.bind("tensor.fill_", "value")[0])
			v, ok := toFloat(arg)
			if !ok {
				in.fail(pos, "fill_ takes a number")
			}
			if n, isInt := arg.(int64); isInt && exactDType(t.DType) {
				t.ForEachElem(func(e int) { t.SetElemIntAt(e, n) })
				return t
			}
			xs = slices.Repeat([]float64{v}, t.NumElements())
		case "normal_", "uniform_":
			a := c.bind("tensor."+name, "a=", "b=")
			lo, hi := 0.0, 1.0
			if a[0] != nil {
				lo, _ = toFloat(num(a[0]))
			}
			if a[1] != nil {
				hi, _ = toFloat(num(a[1]))
			}
			xs = make([]float64, t.NumElements())
			for i := range xs {
				if name == "normal_" {
					xs[i] = lo + hi*rng.NormFloat64()
				} else {
					xs[i] = lo + (hi-lo)*rng.Float64()
				}
			}
		}
		for i, x := range xs {
			t.Set(x, runtime.Unravel(i, t.Shape)...)
		}
		return t
	}
	if f, ok := unaryFuncs[name]; ok {
		c.bind("tensor." + name)
		return in.mapTensor(pos, name, t, f)
	}
	switch name {
	case "backward":
		return in.backward(c, t)
	case "requires_grad_":
		a := c.bind("tensor.requires_grad_", "requires_grad=")
		in.setRequiresGrad(pos, t, a[0] == nil || in.truth(pos, a[0]))
		return t
	case "detach":
		// A view of t's elements that autograd does not know.
		c.bind("tensor.detach")
		v, err := t.View(t.Shape, t.Strides)
		if err != nil {
			return in.copyAs(pos, "detach", t, t.Shape)
		}
		return v
	}
	if slices.Contains(indexMethods, name) {
		return in.indexMethod(c, t, name, "tensor."+name)
	}
	if slices.Contains(scaleMethods, name) {
		return in.scaleMethod(c, t, name, "tensor."+name)
	}
	in.fail(pos, "tensor.%s() is not part of the host subset", name)
	return nil
}

// tensorRepr prints a tensor as torch does, in short: nested lists of its
// values (4 decimals for floats), the first and last 3 of each dim of a
// tensor of more than 1000 elements, and the dtype unless it is torch's
// default for the values (float32, int64, bool).
func tensorRepr(t *runtime.Tensor) string {
	xs := values(t)
	summarize := len(xs) > 1000
	// torch prints a float tensor whose values are all whole numbers as
	// "1.", "-3.".
	whole := t.DType.IsFloat()
	for _, x := range xs {
		if !math.IsInf(x, 0) && !math.IsNaN(x) && (x != math.Trunc(x) || math.Abs(x) >= 1e8) {
			whole = false
			break
		}
	}
	var is []int64
	if exactDType(t.DType) {
		is = ints(t)
	}
	format := func(i int) string {
		x := xs[i]
		switch {
		case t.DType == ir.Bool:
			if x != 0 {
				return "True"
			}
			return "False"
		case !t.DType.IsFloat():
			return strconv.FormatInt(is[i], 10)
		case math.IsNaN(x):
			return "nan"
		case math.IsInf(x, 0):
			if x > 0 {
				return "inf"
			}
			return "-inf"
		}
		if whole {
			return strconv.FormatFloat(x, 'f', 0, 64) + "."
		}
		return strconv.FormatFloat(x, 'f', 4, 64)
	}
	// torch right-aligns the elements to the widest one shown.
	width := 0
	for i := range xs {
		if summarize && i > 3000 && i < len(xs)-3000 {
			continue
		}
		width = max(width, len(format(i)))
	}
	var rec func(ax, off int) string
	rec = func(ax, off int) string {
		if ax == len(t.Shape) {
			f := format(off)
			return strings.Repeat(" ", width-len(f)) + f
		}
		n, inner := t.Shape[ax], 1
		for _, s := range t.Shape[ax+1:] {
			inner *= s
		}
		var parts []string
		for i := 0; i < n; i++ {
			if summarize && n > 6 && i == 3 {
				parts = append(parts, "...")
				i = n - 4
				continue
			}
			parts = append(parts, rec(ax+1, off+i*inner))
		}
		sep := ", "
		if ax < len(t.Shape)-1 {
			sep = ",\n" + strings.Repeat(" ", 8+ax)
		}
		return "[" + strings.Join(parts, sep) + "]"
	}
	s := "tensor(" + rec(0, 0)
	switch t.DType {
	case ir.F32, ir.I64, ir.Bool:
	default:
		s += ", dtype=torch." + torchName(t.DType)
	}
	return s + ")"
}

// repeatHeads repeats t's heads (axis -3) to q's count, each head
// hq/hk times in a row (repeat_interleave), for enable_gqa.
func (in *evaluator) repeatHeads(pos lang.Pos, name string, q, t *runtime.Tensor) *runtime.Tensor {
	r := len(t.Shape)
	if r < 3 || len(q.Shape) != r {
		in.fail(pos, "%s: enable_gqa takes (..., heads, seq, dim) tensors", name)
	}
	hq, hk := q.Shape[r-3], t.Shape[r-3]
	if hk == hq {
		return t
	}
	if hk == 0 || hq%hk != 0 {
		in.fail(pos, "%s: enable_gqa needs the query heads (%d) to be a multiple of the key/value heads (%d)", name, hq, hk)
	}
	rep := hq / hk
	shape := append([]int(nil), t.Shape...)
	shape[r-3] = hq
	in.checkElements(pos, name, shape)
	xs := values(t)
	inner := t.Shape[r-2] * t.Shape[r-1]
	outer := len(xs) / (hk * inner)
	out := make([]float64, 0, len(xs)*rep)
	for o := 0; o < outer; o++ {
		for h := 0; h < hk; h++ {
			head := xs[(o*hk+h)*inner : (o*hk+h+1)*inner]
			for range rep {
				out = append(out, head...)
			}
		}
	}
	return in.fromValues(pos, name, t.DType, shape, out)
}

// sliceSpec is a slice's bounds as written (nil: absent).
type sliceSpec struct{ lo, hi, step any }

// asIndex is v as Python's __index__ reads it where an int is wanted: a
// bool or a 0-d integer tensor (torch's) is an int; other values are
// returned as they are, for the caller's error.
func asIndex(v any) any {
	if t, ok := v.(*runtime.Tensor); ok && len(t.Shape) == 0 && exactDType(t.DType) {
		return ints(t)[0]
	}
	return num(v)
}

func (in *evaluator) sliceBounds(fr *frame, sl *lang.Slice) sliceSpec {
	var sp sliceSpec
	if sl.Lo != nil {
		sp.lo = asIndex(in.expr(fr, sl.Lo))
	}
	if sl.Hi != nil {
		sp.hi = asIndex(in.expr(fr, sl.Hi))
	}
	if sl.Step != nil {
		sp.step = asIndex(in.expr(fr, sl.Step))
	}
	return sp
}

// indices are the positions a slice selects from a sequence of n items,
// as Python's range(*slice.indices(n)).
func (sp sliceSpec) indices(in *evaluator, pos lang.Pos, n int) []int {
	get := func(v any, what string) (int, bool) {
		if v == nil {
			return 0, false
		}
		if _, isNone := v.(none); isNone {
			return 0, false
		}
		x, ok := v.(int64)
		if !ok {
			in.fail(pos, "slice %s must be an int, got %s", what, describe(v))
		}
		return int(max(min(x, 1<<40), -(1 << 40))), true
	}
	step := 1
	if s, ok := get(sp.step, "step"); ok {
		if s == 0 {
			in.fail(pos, "slice step cannot be zero")
		}
		step = s
	}
	// A bound counts from the end when negative and is clamped to [0, n]
	// going forward, [-1, n-1] going backward.
	lowest, highest := 0, n
	lo, hi := 0, n
	if step < 0 {
		lowest, highest = -1, n-1
		lo, hi = n-1, -1
	}
	bound := func(v any, what string, def int) int {
		x, ok := get(v, what)
		if !ok {
			return def
		}
		if x < 0 {
			x += n
		}
		return max(lowest, min(x, highest))
	}
	lo, hi = bound(sp.lo, "start", lo), bound(sp.hi, "stop", hi)
	out := []int{}
	for i := lo; (step > 0 && i < hi) || (step < 0 && i > hi); i += step {
		out = append(out, i)
	}
	return out
}

// reshapeTo is t with another shape of the same size: as torch does, a
// view of t's elements when they are row-major without gaps (so that a
// kernel writing into `out.reshape(...)` writes into out), else a copy.
func (in *evaluator) reshapeTo(pos lang.Pos, t *runtime.Tensor, shape []int) *runtime.Tensor {
	if t.IsRowMajor() {
		if v, err := t.View(shape, runtime.RowMajorStrides(shape)); err == nil {
			return v
		}
	}
	return in.copyAs(pos, "reshape", t, shape)
}

// copyAs is a contiguous copy of t's elements, row-major, with shape (of
// t's size), checked as a driver's tensors are before Tensor.Clone, which
// panics where the host has no room.
func (in *evaluator) copyAs(pos lang.Pos, what string, t *runtime.Tensor, shape []int) *runtime.Tensor {
	in.checkElements(pos, what, shape)
	n, err := runtime.ShapeBytes(t.DType, shape)
	if err == nil {
		err = runtime.CheckHostBytes(t.DType, shape, n)
	}
	if err != nil {
		in.fail(pos, "%s: %v", what, err)
	}
	c := t.Clone()
	c.Shape, c.Strides = slices.Clone(shape), runtime.RowMajorStrides(shape)
	return c
}

// concat joins tensors of one rank along dim (the others equal), the
// result's dtype promoted across them.
func (in *evaluator) concat(pos lang.Pos, name string, parts []*runtime.Tensor, dim int) *runtime.Tensor {
	r := len(parts[0].Shape)
	d := parts[0].DType
	total := 0
	for i, p := range parts {
		if len(p.Shape) != r {
			in.fail(pos, "%s: tensor %d has %d dimensions, the first %d", name, i, len(p.Shape), r)
		}
		for ax := range r {
			if ax != dim && p.Shape[ax] != parts[0].Shape[ax] {
				in.fail(pos, "%s: sizes must match except in dimension %d: %v and %v", name, dim, parts[0].Shape, p.Shape)
			}
		}
		total += p.Shape[dim]
		d = promote(d, p.DType)
	}
	shape := slices.Clone(parts[0].Shape)
	shape[dim] = total
	in.checkElements(pos, name, shape)
	outer := 1
	for _, s := range shape[:dim] {
		outer *= s
	}
	inner := 1
	for _, s := range shape[dim+1:] {
		inner *= s
	}
	widths := make([]int, len(parts))
	for i, p := range parts {
		widths[i] = p.Shape[dim] * inner
	}
	if exactDType(d) {
		vals := make([][]int64, len(parts))
		for i, p := range parts {
			vals[i] = ints(p)
		}
		return in.fromInts(pos, name, d, shape, interleave(vals, widths, outer))
	}
	vals := make([][]float64, len(parts))
	for i, p := range parts {
		vals[i] = values(p)
	}
	return in.fromValues(pos, name, d, shape, interleave(vals, widths, outer))
}

// interleave joins the row-major parts of a concatenation: for each of
// outer rows, widths[i] elements of part i in turn.
func interleave[T int64 | float64](parts [][]T, widths []int, outer int) []T {
	var out []T
	for o := range outer {
		for i, p := range parts {
			out = append(out, p[o*widths[i]:(o+1)*widths[i]]...)
		}
	}
	return out
}
