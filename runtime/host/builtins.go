package host

// The names host code may use from ct, torch, numpy, math and Python's
// builtins, and the attributes and methods of tensors and dtypes.

import (
	"io"
	"maps"
	"math"
	"math/cmplx"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/ir/build"
	"github.com/tilec/tilec/lang"
	"github.com/tilec/tilec/runtime"
)

var torchDTypes = map[string]ir.DType{
	"bool": ir.Bool, "int8": ir.I8, "int16": ir.I16, "short": ir.I16, "int32": ir.I32, "int": ir.I32,
	"int64": ir.I64, "long": ir.I64, "uint8": ir.U8, "uint16": ir.U16, "uint32": ir.U32, "uint64": ir.U64,
	"float16": ir.F16, "half": ir.F16, "bfloat16": ir.BF16, "float32": ir.F32, "float": ir.F32,
	"float64": ir.F64, "double": ir.F64, "float8_e4m3fn": ir.F8E4M3, "float8_e5m2": ir.F8E5M2,
	"float8_e8m0fnu": ir.F8E8M0,
}

var numpyDTypes = map[string]ir.DType{
	"bool_": ir.Bool, "bool": ir.Bool, "int8": ir.I8, "int16": ir.I16, "int32": ir.I32, "int64": ir.I64,
	"uint8": ir.U8, "uint16": ir.U16, "uint32": ir.U32, "uint64": ir.U64,
	"float16": ir.F16, "half": ir.F16, "float32": ir.F32, "single": ir.F32, "float64": ir.F64, "double": ir.F64,
}

// torchName is the dtype's torch name (for print).
func torchName(d ir.DType) string {
	if d == ir.Bool {
		return "bool"
	}
	if name := build.TileDTypeName(d); name != "" {
		return name
	}
	return d.String()
}

var moduleFuncs = map[module][]string{
	"ct":         {"cdiv", "launch"},
	"math":       build.MathFuncs(), // the math the builder has, for kernels too
	"torch":      {"empty", "zeros", "ones", "full", "empty_like", "zeros_like", "ones_like", "full_like", "device"},
	"ct.tune":    {"exhaustive_search"},
	"torch.cuda": {"current_stream", "Event"},
	"types":      {"SimpleNamespace"},
	"numpy":      {"empty", "zeros", "ones", "full", "empty_like", "zeros_like", "ones_like", "full_like"},
}

func hasFunc(m module, name string) bool {
	return slices.Contains(moduleFuncs[m], name) || slices.Contains(scriptFuncs[m], name) || slices.Contains(scriptlibFuncs[m], name)
}

// attrOf evaluates x.name.
func (in *evaluator) attrOf(pos lang.Pos, x any, name string) any {
	switch x := x.(type) {
	case module:
		return in.moduleAttr(pos, x, name)
	case progModule:
		return in.moduleValue(moduleMember{file: x.file, name: name, pos: pos})
	case *runtime.Tensor:
		switch name {
		case "shape":
			return shapeTuple(x.Shape)
		case "dtype":
			return x.DType
		case "ndim":
			return int64(len(x.Shape))
		case "device":
			return device{"cuda"}
		case "is_cuda":
			return true
		case "itemsize":
			return int64(x.DType.Bytes())
		case "nbytes":
			return int64(x.DType.Bytes() * x.NumElements())
		case "T":
			return x.Transpose()
		case "grad", "requires_grad", "is_leaf", "grad_fn":
			v, _ := in.tensorGradAttr(x, name)
			return v
		case "size", "dim", "numel", "element_size", "stride", "contiguous", "t", "transpose", "permute":
			return method{x, name}
		}
		if slices.Contains(tensorMethods, name) {
			return method{x, name}
		}
		in.fail(pos, "tensor.%s is not part of the host subset (tensors have shape, dtype, ndim, itemsize, device, T, grad, requires_grad, is_leaf, grad_fn, size(), stride(), numel(), element_size(), contiguous(), t(), transpose(), permute(), and for a script's driver %s())", name, strings.Join(tensorMethods, "(), "))
	case dtypeVal:
		switch name {
		case "itemsize":
			return int64(x.Bytes())
		case "is_floating_point":
			return x.IsFloat()
		}
		in.fail(pos, "dtype.%s is not part of the host subset (dtypes have itemsize and is_floating_point)", name)
	case device:
		if name == "type" {
			return x.kind
		}
	case *argParser:
		return method{x, name}
	case namespace:
		if v, ok := x[name]; ok {
			return v
		}
		in.fail(pos, "the parsed arguments have no %s (they have %s)", name, strings.Join(slices.Sorted(maps.Keys(x)), ", "))
	case deviceProps:
		return in.propsAttr(pos, x, name)
	case *pyDict:
		return method{x, name}
	case *record:
		if v, ok := x.get(name); ok {
			return v
		}
		in.fail(pos, "%s has no attribute %s (it has %s)", x.typeName, name, strings.Join(x.names, ", "))
	case *funcRef:
		if x.kernel && name == "replace_hints" {
			return method{x, name}
		}
	case *cudaEvent:
		switch name {
		case "record", "elapsed_time", "synchronize", "query":
			return method{x, name}
		}
	case *cTensor:
		return in.complexAttr(pos, x, name)
	case complexDType:
		switch name {
		case "itemsize":
			return int64(2 * x.part.Bytes())
		case "is_floating_point":
			return false
		case "is_complex":
			return true
		}
		in.fail(pos, "dtype.%s is not part of the host subset (dtypes have itemsize, is_floating_point and is_complex)", name)
	case *classVal:
		return in.classAttr(pos, x, name)
	case *instance:
		return in.instanceAttr(pos, x, name)
	case *fnCtx:
		return in.ctxAttr(pos, x, name)
	case namedTuple:
		if i := slices.Index(x.names, name); i >= 0 {
			return x.items[i]
		}
		in.fail(pos, "%s has no attribute %s (it has %s)", x.typeName, name, strings.Join(x.names, ", "))
	}
	in.fail(pos, "%s has no attribute %s in the host subset", describe(x), name)
	return nil
}

// shapeTuple is shape as a torch.Size (x.shape, x.size()).
func shapeTuple(shape []int) sizeTuple {
	t := make(sizeTuple, len(shape))
	for i, d := range shape {
		t[i] = int64(d)
	}
	return t
}

func (in *evaluator) moduleAttr(pos lang.Pos, m module, name string) any {
	if hasFunc(m, name) {
		return builtin(string(m) + "." + name)
	}
	switch m {
	case "cuda":
		if name == "tile" {
			return module("ct")
		}
	case "ct":
		if d, ok := build.TileDType(name); ok {
			return d
		}
		if name == "tune" {
			return module("ct.tune")
		}
		in.fail(pos, "ct.%s cannot be used in host code: host functions may use ct.launch, ct.cdiv and ct's dtypes (tile operations run in kernels)", name)
	case "torch":
		if d, ok := torchDTypes[name]; ok {
			return d
		}
		switch name {
		case "complex64", "cfloat":
			return complexDType{ir.F32}
		case "complex128", "cdouble":
			return complexDType{ir.F64}
		case "cuda", "nn", "testing", "autograd", "fft":
			return module("torch." + name)
		}
	case "torch.autograd":
		if name == "Function" {
			return functionBase{}
		}
	case "torch.nn":
		switch name {
		case "functional", "attention":
			return module("torch.nn." + name)
		}
	case "torch.nn.attention":
		if name == "SDPBackend" {
			return module("torch.nn.attention.SDPBackend")
		}
	case "torch.nn.attention.SDPBackend":
		return name // a backend's name: the driver's SDPA is one float64 algorithm
	case "numpy":
		if d, ok := numpyDTypes[name]; ok {
			return d
		}
		if c, ok := build.MathConst(name); ok && name != "tau" {
			return c
		}
	case "math":
		if c, ok := build.MathConst(name); ok {
			return c
		}
	case "argparse":
		if strings.HasSuffix(name, "Formatter") {
			return name // formatter_class: help text layout, which tilec does not print
		}
	}
	if summary := moduleSummary(m); summary != "" {
		in.fail(pos, "%s.%s is not part of the host subset (it has %s)", m, name, summary)
	}
	in.fail(pos, "%s.%s: the module %s is not part of the host subset", m, name, m)
	return nil
}

func moduleSummary(m module) string {
	names := append(append(append([]string{}, moduleFuncs[m]...), scriptFuncs[m]...), scriptlibFuncs[m]...)
	switch m {
	case "torch", "numpy":
		names = append(names, "dtypes")
	case "math":
		names = append(names, "pi", "e", "tau", "inf", "nan")
	}
	if m == "torch" {
		names = append(names, "cuda.current_stream")
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

func (in *evaluator) callBuiltin(c *callSite, name string) any {
	e := c.e
	switch name {
	case "dict", "set":
		return in.makeDict(c, name == "set")
	case "sorted", "list", "enumerate", "zip", "any", "all", "sum":
		return in.iterBuiltin(c, name)
	case "ct.tune.exhaustive_search":
		return in.exhaustiveSearch(c, name)
	case "types.SimpleNamespace":
		return in.simpleNamespace(c)
	case "torch.cuda.Event":
		c.bind(name, "enable_timing=", "blocking=", "interprocess=")
		return &cudaEvent{}
	case "min", "max":
		key, hasKey := c.kw["key"]
		if len(c.kw) > 1 || len(c.kw) == 1 && !hasKey {
			in.fail(e.Pos, "%s takes only key= as a keyword in the host subset", name)
		}
		xs := c.args
		if len(xs) == 1 {
			xs = in.iterValue(c.argPos(0), xs[0])
		}
		if len(xs) == 0 {
			in.fail(e.Pos, "ValueError: %s() arg is an empty sequence", name)
		}
		keyOf := func(x any) any {
			if !hasKey || key == (none{}) {
				return x
			}
			return in.callValue(e.Pos, key, x)
		}
		best, bestKey := xs[0], keyOf(xs[0])
		op := "<"
		if name == "max" {
			op = ">"
		}
		// The first of equal items wins, as in Python.
		for _, x := range xs[1:] {
			k := keyOf(x)
			if in.truth(e.Pos, in.binop(e.Pos, op, k, bestKey)) {
				best, bestKey = x, k
			}
		}
		return best
	case "abs":
		a := c.bind(name, "x")
		switch x := num(a[0]).(type) {
		case int64:
			if x == math.MinInt64 {
				in.fail(e.Pos, "integer overflow in abs")
			}
			return abs64(x)
		case float64:
			return math.Abs(x)
		case complex128:
			return cmplx.Abs(x)
		}
		in.fail(e.Pos, "abs of %s", describe(a[0]))
	case "int":
		a := c.bind(name, "x")
		switch x := num(a[0]).(type) {
		case int64:
			return x
		case float64:
			if math.IsNaN(x) || math.IsInf(x, 0) || x >= 1<<63 || x < -(1<<63) {
				in.fail(e.Pos, "int(%s): not a 64-bit int", pyFloat(x))
			}
			return int64(x)
		}
		in.fail(e.Pos, "int of %s", describe(a[0]))
	case "float":
		a := c.bind(name, "x")
		if f, ok := toFloat(num(a[0])); ok {
			return f
		}
		if s, ok := a[0].(string); ok {
			switch strings.ToLower(strings.TrimSpace(s)) {
			case "inf", "+inf", "infinity":
				return math.Inf(1)
			case "-inf", "-infinity":
				return math.Inf(-1)
			case "nan":
				return math.NaN()
			}
			if f, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil {
				return f
			}
			in.fail(e.Pos, "could not convert string to float: %q", s)
		}
		in.fail(e.Pos, "float of %s", describe(a[0]))
	case "bool":
		a := c.bind(name, "x")
		return in.truth(e.Pos, a[0])
	case "len":
		a := c.bind(name, "x")
		switch x := plainTuple(a[0]).(type) {
		case Tuple:
			return int64(len(x))
		case namedTuple:
			return int64(len(x.items))
		case *pyDict:
			return int64(len(x.keys))
		case string:
			return int64(len(x))
		case *runtime.Tensor:
			if len(x.Shape) == 0 {
				in.fail(e.Pos, "len() of a 0-d tensor")
			}
			return int64(x.Shape[0])
		}
		in.fail(e.Pos, "len of %s", describe(a[0]))
	case "str":
		a := c.bind(name, "x")
		return in.str(a[0])
	case "tuple":
		a := c.bind(name, "x")
		if t, ok := plainTuple(a[0]).(Tuple); ok {
			return t
		}
		if d, ok := a[0].(*pyDict); ok {
			return append(Tuple{}, d.keys...)
		}
		in.fail(e.Pos, "tuple of %s: the host subset makes tuples of tuples (shapes) only", describe(a[0]))
	case lang.FStringFunc:
		// f"...": literal text, then (value, conversion, format spec,
		// text) per field; a spec with fields of its own is a string by now.
		ok := len(c.args)%4 == 1
		for i := 0; i < len(c.args) && ok; i += 4 {
			_, ok = c.args[i].(string)
			if i+3 < len(c.args) {
				_, okConv := c.args[i+2].(string)
				_, okSpec := c.args[i+3].(string)
				ok = ok && okConv && okSpec
			}
		}
		if !ok || len(c.kw) > 0 {
			in.fail(e.Pos, "%s is the f-string's internal form; write an f-string instead", name)
		}
		var s strings.Builder
		for i := 0; i < len(c.args); i += 4 {
			s.WriteString(c.args[i].(string))
			if i+1 >= len(c.args) {
				break
			}
			x, conv, spec := c.args[i+1], c.args[i+2].(string), c.args[i+3].(string)
			switch conv {
			case "s":
				x = in.str(x)
			case "r", "a":
				text, ok := build.PyConvert(x, conv)
				if !ok {
					// Tuples and dtypes: their str is their repr here
					// (dtype names, tuples of ints).
					text = in.str(x)
				}
				x = text
			}
			if spec == "" {
				s.WriteString(in.str(x))
				continue
			}
			// FormatField bounds widths and precisions (build.MaxFormatWidth)
			// as it does for kernels' f-strings.
			text, msg := build.FormatField(x, spec)
			if msg != "" {
				in.fail(c.argPos(i+1), "f-string: %s", msg)
			}
			s.WriteString(text)
		}
		return s.String()
	case "print":
		var parts []string
		for _, x := range c.args {
			parts = append(parts, in.str(x))
		}
		if in.opts.Stdout != nil {
			io.WriteString(in.opts.Stdout, strings.Join(parts, " ")+"\n")
		}
		return none{}
	case "range":
		in.fail(e.Pos, "range is only for for loops in host code")
	case "ct.cdiv":
		a := c.bind(name, "a", "b")
		x, y := in.intArg(c.argPos(0), name, a[0]), in.intArg(c.argPos(1), name, a[1])
		if y == 0 {
			in.fail(e.Pos, "ct.cdiv by zero")
		}
		return in.binop(e.Pos, "//", in.binop(e.Pos, "-", in.binop(e.Pos, "+", x, y), int64(1)), y)
	case "ct.launch":
		a := c.bind(name, "stream", "grid", "kernel", "kernel_args")
		k, ok := a[2].(*funcRef)
		if !ok || !k.kernel {
			in.fail(c.argPos(2), "ct.launch: the third argument is a kernel (a def decorated with @ct.kernel), got %s", describe(a[2]))
		}
		in.launch(e, a[1], k, a[3], c.argPos(3))
		return none{}
	case "torch.cuda.current_stream":
		c.bind(name, "device=")
		return stream{}
	case "torch.device":
		a := c.bind(name, "type", "index=")
		s, ok := a[0].(string)
		if !ok {
			in.fail(e.Pos, "torch.device takes a string")
		}
		return device{s}
	}
	if i := strings.LastIndex(name, "."); i > 0 {
		mod, fn := name[:i], name[i+1:]
		if v, ok := in.scriptlibCall(c, mod, fn); ok {
			return v
		}
		switch {
		case mod == "math":
			return in.callMath(c, fn)
		case (mod == "torch" || mod == "numpy") && slices.Contains(moduleFuncs[module(mod)], fn):
			return in.alloc(c, module(mod), fn)
		case strings.HasPrefix(mod, "torch"):
			return in.torchCall(c, mod, fn)
		}
	}
	in.fail(e.Pos, "%s is not part of the host subset", name)
	return nil
}

func (in *evaluator) callMath(c *callSite, fn string) any {
	name := "math." + fn
	a := c.bind(name, "x")
	x := num(a[0])
	f, ok := toFloat(x)
	if !ok {
		in.fail(c.e.Pos, "%s takes a number, got %s", name, describe(a[0]))
	}
	switch fn {
	case "ceil", "floor", "trunc":
		if n, isInt := x.(int64); isInt {
			return n
		}
		r := map[string]func(float64) float64{"ceil": math.Ceil, "floor": math.Floor, "trunc": math.Trunc}[fn](f)
		if math.IsNaN(r) || math.IsInf(r, 0) || r >= 1<<63 || r < -(1<<63) {
			in.fail(c.e.Pos, "%s(%s): the result is not a 64-bit int", name, pyFloat(f))
		}
		return int64(r)
	case "isqrt":
		n, isInt := x.(int64)
		if !isInt || n < 0 {
			in.fail(c.e.Pos, "%s needs a non-negative int, got %s", name, describe(a[0]))
		}
		r := int64(math.Sqrt(float64(n)))
		for r*r > n {
			r--
		}
		for (r+1)*(r+1) <= n {
			r++
		}
		return r
	case "sqrt", "log", "log2":
		if f < 0 || f == 0 && fn != "sqrt" {
			in.fail(c.e.Pos, "%s(%s): math domain error", name, pyFloat(f))
		}
	}
	r := map[string]func(float64) float64{"sqrt": math.Sqrt, "exp": math.Exp, "log": math.Log, "log2": math.Log2}[fn](f)
	if math.IsInf(r, 0) && !math.IsInf(f, 0) {
		// Python raises where a finite argument's result is out of the
		// float range (math.exp(1000)); a silent inf would pass a check.
		in.fail(c.e.Pos, "OverflowError: %s(%s): math range error", name, pyFloat(f))
	}
	return r
}

// alloc makes a tensor: torch.empty/zeros/ones/full(shape, ..., dtype=,
// device=) or their _like forms, and numpy's of the same names.
func (in *evaluator) alloc(c *callSite, lib module, fn string) any {
	name := string(lib) + "." + fn
	if lib == "numpy" {
		name = "np." + fn
	}
	like := strings.HasSuffix(fn, "_like")
	kind := strings.TrimSuffix(fn, "_like")
	var shapeArg, dtArg, fill any
	defDT := ir.F32
	if lib == "numpy" {
		defDT = ir.F64
	}
	var shape []int
	switch {
	case like && kind == "full":
		a := c.bind(name, "input", "fill_value", "dtype=", "device=", "requires_grad=")
		shapeArg, fill, dtArg = a[0], a[1], a[2]
	case like:
		a := c.bind(name, "input", "dtype=", "device=", "requires_grad=")
		shapeArg, dtArg = a[0], a[1]
	case lib == "numpy" && kind == "full":
		a := c.bind(name, "shape", "fill_value", "dtype=")
		shapeArg, fill, dtArg = a[0], a[1], a[2]
	case lib == "numpy":
		a := c.bind(name, "shape", "dtype=")
		shapeArg, dtArg = a[0], a[1]
	case kind == "full":
		a := c.bind(name, "size", "fill_value", "dtype=", "device=", "requires_grad=")
		shapeArg, fill, dtArg = a[0], a[1], a[2]
	default:
		// torch.empty(m, n, dtype=...) or torch.empty((m, n), dtype=...)
		var dims []any
		if len(c.args) == 1 {
			if t, ok := plainTuple(c.args[0]).(Tuple); ok {
				dims = t
			}
		}
		if dims == nil {
			dims = c.args
		}
		kw := &callSite{in: in, e: c.e, kw: c.kw}
		a := kw.bind(name, "dtype=", "device=", "requires_grad=", "pin_memory=")
		shapeArg, dtArg = Tuple(dims), a[0]
	}
	if like {
		src, ok := shapeArg.(*runtime.Tensor)
		if !ok {
			in.fail(c.argPos(0), "%s takes a tensor, got %s", name, describe(shapeArg))
		}
		shape = append([]int{}, src.Shape...)
		defDT = src.DType
	} else {
		var dims Tuple
		switch s := num(plainTuple(shapeArg)).(type) {
		case int64:
			dims = Tuple{s}
		case Tuple:
			dims = s
		default:
			in.fail(c.argPos(0), "%s: the shape is an int or a tuple of ints, got %s", name, describe(shapeArg))
		}
		for i, d := range dims {
			n, ok := asIndex(d).(int64)
			if !ok {
				in.fail(c.argPos(0), "%s: dimension %d is %s, not an int", name, i, describe(d))
			}
			if n < 0 || n > math.MaxInt32 {
				in.fail(c.argPos(0), "%s: dimension %d is %d: array dims are 0 to %d (i32 in kernels)", name, i, n, math.MaxInt32)
			}
			shape = append(shape, int(n))
		}
		if len(shape) == 0 {
			in.fail(c.e.Pos, "%s: a 0-d tensor cannot be a kernel argument", name)
		}
	}
	dt := defDT
	if dtArg != nil {
		if _, isNone := dtArg.(none); !isNone {
			d, ok := dtArg.(dtypeVal)
			if !ok {
				in.fail(c.e.Pos, "%s: dtype= is a dtype (torch.float16, np.float32, ct.bfloat16), got %s", name, describe(dtArg))
			}
			dt = d
		}
	}
	t, err := runtime.AllocTensor(dt, shape...)
	if err != nil {
		in.fail(c.e.Pos, "%s: %v", name, err)
	}
	switch kind {
	case "empty":
		if dt.IsFloat() {
			t.Fill(math.NaN()) // an element no kernel writes shows as NaN
		}
	case "ones":
		t.Fill(1)
	case "full":
		f, ok := toFloat(num(fill))
		if !ok {
			in.fail(c.e.Pos, "%s: the fill value is a number, got %s", name, describe(fill))
		}
		if dt.IsFloat() {
			t.Fill(f)
		} else {
			n, isInt := num(fill).(int64)
			if !isInt {
				in.fail(c.e.Pos, "%s: a float fill value for an integer dtype", name)
			}
			for i := 0; i < t.NumElements(); i++ {
				t.SetInt(n, runtime.Unravel(i, shape)...)
			}
		}
	}
	return t
}

// callMethod calls a tensor method (or an argument parser's).
func (in *evaluator) callMethod(c *callSite, m method) any {
	if p, ok := m.recv.(*argParser); ok {
		return in.parserMethod(c, p, m.name)
	}
	if d, ok := m.recv.(*pyDict); ok {
		return in.dictMethod(c, d, m.name)
	}
	if k, ok := m.recv.(*funcRef); ok {
		return in.replaceHints(c, k)
	}
	if ev, ok := m.recv.(*cudaEvent); ok {
		return in.eventMethod(c, ev, m.name)
	}
	if x, ok := m.recv.(*cTensor); ok {
		return in.complexMethod(c, x, m.name)
	}
	if cls, ok := m.recv.(*classVal); ok {
		return in.applyFunction(c, cls)
	}
	if ctx, ok := m.recv.(*fnCtx); ok {
		return in.saveForBackward(c, ctx)
	}
	t := m.recv.(*runtime.Tensor)
	axis := func(v any) int {
		n := in.intArg(c.e.Pos, m.name, v)
		r := int64(len(t.Shape))
		if n < 0 {
			n += r
		}
		if n < 0 || n >= r {
			in.fail(c.e.Pos, "%s: dimension %d out of range for a tensor of rank %d", m.name, n, r)
		}
		return int(n)
	}
	switch m.name {
	case "size", "stride":
		a := c.bind("tensor."+m.name, "dim=")
		vals := t.Shape
		if m.name == "stride" {
			vals = t.Strides
		}
		if a[0] == nil {
			if m.name == "stride" {
				return Tuple(shapeTuple(vals)) // x.stride() is a plain tuple
			}
			return shapeTuple(vals)
		}
		return int64(vals[axis(a[0])])
	case "dim":
		c.bind("tensor.dim")
		return int64(len(t.Shape))
	case "numel":
		c.bind("tensor.numel")
		return int64(t.NumElements())
	case "element_size":
		c.bind("tensor.element_size")
		return int64(t.DType.Bytes())
	case "contiguous":
		c.bind("tensor.contiguous")
		if t.IsContiguous() {
			return t
		}
		return in.copyAs(c.e.Pos, "contiguous", t, t.Shape)
	case "t":
		c.bind("tensor.t")
		if len(t.Shape) > 2 {
			in.fail(c.e.Pos, "t() expects a tensor of at most 2 dims, got %d", len(t.Shape))
		}
		return t.Transpose()
	case "transpose":
		a := c.bind("tensor.transpose", "dim0", "dim1")
		i, j := axis(a[0]), axis(a[1])
		perm := make([]int, len(t.Shape))
		for k := range perm {
			perm[k] = k
		}
		perm[i], perm[j] = perm[j], perm[i]
		return t.Transpose(perm...)
	case "permute":
		dims := c.args
		if len(dims) == 1 {
			if tup, ok := plainTuple(dims[0]).(Tuple); ok {
				dims = tup
			}
		}
		if len(dims) != len(t.Shape) {
			in.fail(c.e.Pos, "permute: %d dims for a tensor of rank %d", len(dims), len(t.Shape))
		}
		perm := make([]int, len(dims))
		seen := map[int]bool{}
		for k, d := range dims {
			perm[k] = axis(d)
			if seen[perm[k]] {
				in.fail(c.e.Pos, "permute: dimension %d repeats", perm[k])
			}
			seen[perm[k]] = true
		}
		return t.Transpose(perm...)
	}
	return in.tensorMethod(c, t, m.name)
}
