package build

// This file defines the values of the builder's environment. A name is bound
// either to a compile-time value, which the builder folds and never emits
// (int64, float64, bool, DType, string, tuple, padMode, noneVal), to a
// run-time IR value (*Value: a scalar or a tile), or to a special value that
// only the builder understands (arrays, helper functions, builtins, the tile
// module). poison stands for the result of an expression that already
// reported an error; every operation on poison yields poison silently, so
// that one mistake gives one message.

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/lang"
)

// value is one of: int64, float64, bool, DType, string, tuple, padMode,
// noneVal, *Value, *arrayVal, *funcVal, builtinVal, nsVal, dimSym, undefVal,
// poison.
type value = any

// tuple is a Python tuple; its elements may mix compile-time and run-time values.
type tuple []value

// noneVal is Python's None.
type noneVal struct{}

// padMode is a member of ct.PaddingMode, holding the load's pad attribute.
type padMode string

// poison is the value of an expression whose error was already reported.
type poison struct{}

// undefVal marks a name that is bound but may not be read: assigned on one
// path only, or a loop variable after its loop. msg is the error on use.
type undefVal struct{ msg string }

// arrayVal is an array as the body sees it: a kernel parameter (p set,
// whose dims are the launch's symbols) or an element of a list of arrays
// (p nil; v is list_get's result and its extents are read with dim where
// they are used).
type arrayVal struct {
	name string
	p    *ir.Param
	v    *ir.Value
	t    *ir.Array
}

// paramArray is the arrayVal of array parameter p.
func paramArray(name string, p *ir.Param) *arrayVal {
	return &arrayVal{name: name, p: p, v: p.Value, t: p.Type.(*ir.Array)}
}

func (a *arrayVal) rank() int       { return a.t.Rank }
func (a *arrayVal) dtype() ir.DType { return a.t.DType }

// listVal is a list-of-arrays kernel parameter (cuTile's List[Array]):
// len() and indexing by an integer, compile-time or run-time, are all the
// body does with it.
type listVal struct {
	name string
	p    *ir.Param
}

// funcVal is a helper function (inlined at each call) or a kernel (which
// cannot be called from kernel code). decorator is the first of its
// decorators that tilec does not know (not ct.kernel, not a pureWrapper):
// the file still compiles, and a kernel calling the helper is an error at
// the call, since the decorator may change what the helper does. A
// kernel's other decorators are taken to return the kernel (TileGym's
// @register_impl, @experimental_kernel): its body is compiled as written.
type funcVal struct {
	def       *lang.FuncDef
	kernel    bool
	decorator lang.Expr
	// mod is the builder of the module of the program's own that defines
	// it (importFromModule), whose globals its body sees; nil for the
	// file's own defs.
	mod *builder
}

// builtinVal is a builtin function: a tile builtin ("load") or a Python
// builtin ("min") when py is set.
type builtinVal struct {
	name string
	py   bool
}

// nsVal is a namespace: the tile module, the `cuda` package of
// `import cuda.tile`, ct.PaddingMode, and the annotation-only ct.Array,
// ct.Constant, ct.Scalar, ct.DType and ct.kernel.
type nsVal string

const (
	nsTile        nsVal = "tile"
	nsCuda        nsVal = "cuda"
	nsPaddingMode nsVal = "PaddingMode"
	nsArray       nsVal = "Array"
	nsConstant    nsVal = "Constant"
	nsScalar      nsVal = "Scalar"
	nsDType       nsVal = "DType"
	nsKernel      nsVal = "kernel"
)

// dimSym is a symbolic array dimension bound in a kernel's scope; reading it
// emits (once) the dim instruction that fetches it.
type dimSym struct{ name string }

// isNumber reports whether v is a compile-time int, float or bool.
func isNumber(v value) bool {
	switch v.(type) {
	case int64, float64, bool:
		return true
	}
	return false
}

// isPoison reports whether any of vs is poison.
func isPoison(vs ...value) bool {
	for _, v := range vs {
		switch v := v.(type) {
		case poison:
			return true
		case tuple:
			if isPoison(v...) {
				return true
			}
		}
	}
	return false
}

// describe names the kind of a value for error messages.
func describe(v value) string {
	switch v := v.(type) {
	case int64:
		return "int"
	case float64:
		return "float"
	case bool:
		return "bool"
	case ir.DType:
		return "dtype"
	case string:
		return "string"
	case tuple:
		return "tuple"
	case fstringVal:
		return "an f-string with run-time values (only ct.print and print take one)"
	case padMode:
		return "padding mode"
	case noneVal:
		return "None"
	case *ir.Value:
		return v.Type.String()
	case *arrayVal:
		return "array " + v.name
	case *listVal:
		return "list of arrays " + v.name
	case *funcVal:
		if v.kernel {
			return "kernel " + v.def.Name
		}
		return "function " + v.def.Name
	case builtinVal:
		return "builtin " + v.name
	case nsVal:
		return "namespace " + string(v)
	case annotVal:
		return "annotation " + exprText(v.sub)
	case mathFn:
		return "function math." + v.name
	case byTargetVal:
		return "ct.ByTarget"
	case methodVal:
		return "method " + v.name
	case enumVal:
		return "ct." + string(v.ns) + "." + v.member
	case sliceVal:
		return "ct.Slice"
	case strJoin:
		return "method str.join"
	case moduleVal:
		return "module " + v.m.src.Name
	}
	if s, ok := describeView(v); ok {
		return s
	}
	return fmt.Sprintf("%T", v)
}

// formatConst renders a compile-time value as Python would (for messages).
func formatConst(v value) string {
	switch v := v.(type) {
	case int64:
		return strconv.FormatInt(v, 10)
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	case bool:
		if v {
			return "True"
		}
		return "False"
	case ir.DType:
		return v.String()
	case string:
		return strconv.Quote(v)
	case tuple:
		parts := make([]string, len(v))
		for i, e := range v {
			parts[i] = formatConst(e)
		}
		if len(v) == 1 {
			return "(" + parts[0] + ",)"
		}
		return "(" + strings.Join(parts, ", ") + ")"
	case noneVal:
		return "None"
	}
	return describe(v)
}

// shapeString renders a shape as `128x64`.
func shapeString(shape []int) string {
	if len(shape) == 0 {
		return "()"
	}
	parts := make([]string, len(shape))
	for i, d := range shape {
		parts[i] = strconv.Itoa(d)
	}
	return strings.Join(parts, "x")
}

// truthy is Python's truth value of a compile-time value.
func truthy(v value) (bool, bool) {
	switch v := v.(type) {
	case bool:
		return v, true
	case int64:
		return v != 0, true
	case float64:
		return v != 0, true
	case noneVal:
		return false, true
	case tuple:
		return len(v) > 0, true
	case string:
		return v != "", true
	case ir.DType, padMode:
		return true, true
	}
	return false, false
}

// weakDType is the dtype a compile-time number takes on its own: int
// literals are i32 (i64 when they do not fit), floats f32.
func weakDType(v value) ir.DType {
	switch v := v.(type) {
	case bool:
		return ir.Bool
	case int64:
		if v < math.MinInt32 || v > math.MaxInt32 {
			return ir.I64
		}
		return ir.I32
	case float64:
		return ir.F32
	}
	return ir.InvalidDType
}

// dtypeRank orders dtypes for promotion: bool < i32 < i64 < f16 = bf16 < f32 = tf32 < f64.
func dtypeRank(d ir.DType) int {
	switch d {
	case ir.Bool:
		return 0
	case ir.I8, ir.I16, ir.I32, ir.U8, ir.U16, ir.U32:
		return 1
	case ir.I64, ir.U64:
		return 2
	case ir.F16, ir.BF16:
		return 3
	case ir.F32, ir.TF32:
		return 4
	case ir.F64:
		return 5
	}
	return -1
}

// promote is the common dtype of two run-time operands.
func promote(a, b ir.DType) (ir.DType, error) {
	if a == b {
		return a, nil
	}
	if (a == ir.F16 && b == ir.BF16) || (a == ir.BF16 && b == ir.F16) {
		return ir.InvalidDType, fmt.Errorf("cannot mix f16 and bf16; use ct.astype")
	}
	if (a == ir.F32 && b == ir.TF32) || (a == ir.TF32 && b == ir.F32) {
		return ir.F32, nil
	}
	if a.IsFloat8() || b.IsFloat8() {
		return ir.InvalidDType, fmt.Errorf("cannot mix %s and %s implicitly; use ct.astype", a, b)
	}
	if a.IsInt() && b.IsInt() {
		if a.IsUnsigned() != b.IsUnsigned() {
			return ir.InvalidDType, fmt.Errorf("cannot mix signed and unsigned integers (%s and %s); use ct.astype", a, b)
		}
		if a.Bits() >= b.Bits() {
			return a, nil
		}
		return b, nil
	}
	if dtypeRank(a) >= dtypeRank(b) {
		return a, nil
	}
	return b, nil
}

// weakJoin is the dtype of a run-time operand of dtype d mixed with a
// compile-time number w: the number takes d's dtype unless that would lose
// its kind (a float with an int tile gives f32; a large int with i32 gives i64).
func weakJoin(d ir.DType, w value) ir.DType {
	switch w := w.(type) {
	case bool:
		return d
	case int64:
		if d == ir.Bool {
			return weakDType(w)
		}
		if d == ir.I32 && weakDType(w) == ir.I64 {
			return ir.I64
		}
		return d
	case float64:
		if d.IsFloat() {
			return d
		}
		return ir.F32
	}
	return d
}

// weakJoinConsts is the dtype of several compile-time numbers mixed only
// with each other in a run-time context (bool < int < float).
func weakJoinConsts(vs []value) ir.DType {
	d := ir.Bool
	for _, v := range vs {
		w := weakDType(v)
		if dtypeRank(w) > dtypeRank(d) {
			d = w
		}
	}
	return d
}

// ctDTypes maps the tile module's dtype names to dtypes.
var ctDTypes = map[string]ir.DType{
	"bool_":    ir.Bool,
	"int32":    ir.I32,
	"int64":    ir.I64,
	"float16":  ir.F16,
	"bfloat16": ir.BF16,
	"float32":  ir.F32,
	"tfloat32": ir.TF32,
	"float64":  ir.F64,
	"int8":     ir.I8,
	"int16":    ir.I16,
	"uint8":    ir.U8,
	"uint16":   ir.U16,
	"uint32":   ir.U32,
	"uint64":   ir.U64,

	"float8_e4m3fn": ir.F8E4M3,
	"float8_e5m2":   ir.F8E5M2,
	// Scale factors of block-scaled mma (mma_scaled): loads, stores,
	// reshapes and conversions to other floats; no arithmetic.
	"float8_e8m0fnu": ir.F8E8M0,
}

// parseDTypeName reads a dtype given on the command line: a ct name
// (float16, ct.float16) or a short name (f16).
func parseDTypeName(s string) (ir.DType, bool) {
	s = strings.TrimPrefix(s, "ct.")
	if d, ok := ctDTypes[s]; ok {
		return d, true
	}
	if s == "bool" {
		return ir.Bool, true
	}
	return ir.ParseDType(s)
}

// padModes maps ct.PaddingMode members to the load's pad attribute.
var padModes = map[string]string{
	"ZERO":         ir.PadZero,
	"NEG_ZERO":     ir.PadNegZero,
	"NAN":          ir.PadNaN,
	"POS_INF":      ir.PadPosInf,
	"NEG_INF":      ir.PadNegInf,
	"UNDETERMINED": ir.PadZero,
}

// isPow2 reports whether n is a positive power of two.
func isPow2(n int64) bool { return n > 0 && n&(n-1) == 0 }
