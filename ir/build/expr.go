package build

// Expressions: names, attributes, subscripts, operators, and the dtype
// promotion and broadcasting that bring operands of elementwise ops to one
// type. Compile-time operands fold; run-time ones emit instructions.

import (
	"errors"
	"slices"
	"strings"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/lang"
)

// pyBuiltins are the Python builtins the language provides.
var pyBuiltins = map[string]bool{
	"range": true, "min": true, "max": true, "abs": true,
	"int": true, "float": true, "bool": true, "len": true, "print": true,
	"enumerate": true, "zip": true,
	lang.FStringFunc: true,
}

// expr evaluates an expression.
func (b *builder) expr(e lang.Expr) value {
	switch e := e.(type) {
	case *lang.IntLit:
		return e.Value
	case *lang.FloatLit:
		return e.Value
	case *lang.BoolLit:
		return e.Value
	case *lang.NoneLit:
		return noneVal{}
	case *lang.StringLit:
		return e.Value
	case *lang.Name:
		return b.lookup(e.Name, e.Pos)
	case *lang.Attr:
		return b.attrOf(b.expr(e.X), e)
	case *lang.Subscript:
		return b.subscript(e)
	case *lang.Tuple:
		t := make(tuple, len(e.Elems))
		for i, x := range e.Elems {
			t[i] = b.expr(x)
		}
		return t
	case *lang.BinaryExpr:
		if e.Op == "and" || e.Op == "or" {
			return b.logical(e)
		}
		x := b.expr(e.X)
		y := b.expr(e.Y)
		if e.Op == "in" || e.Op == "not in" {
			return b.contains(e.OpPos, e.Op, x, y)
		}
		return b.binop(e.OpPos, e.Op, x, y)
	case *lang.UnaryExpr:
		return b.unop(e.Pos, e.Op, b.expr(e.X))
	case *lang.CondExpr:
		return b.condExpr(e)
	case *lang.Slice:
		return b.fail(e.Pos, "':' is only allowed as a tile index (t[:, None])")
	case *lang.ListComp:
		if e.Gen {
			return b.fail(e.Pos, "generator expressions are host code (kernels build tiles with ct's operations)")
		}
		return b.fail(e.Pos, "list comprehensions are host code (kernels build tiles with ct's operations)")
	case *lang.Dict, *lang.DictComp:
		// Host code's: a module-level `_cache = {}` is the host's to
		// compute (moduleGlobals), a kernel's is an error.
		b.hostUsed = true
		return b.fail(e.Position(), "a dict is host code: kernels have no dicts (a kernel takes constants and tuples)")
	case *lang.Set, *lang.SetComp:
		b.hostUsed = true
		return b.fail(e.Position(), "a set is host code: kernels have no sets (a kernel takes constants and tuples)")
	case *lang.Starred:
		return b.fail(e.Pos, "*args in a call is host code: a kernel passes each argument itself")
	case *lang.Lambda:
		b.hostUsed = true
		return b.fail(e.Pos, "lambda is host code in tilec: a kernel's function arguments (ct.reduce's and ct.scan's combiner) are helper defs")
	case *lang.Call:
		return b.call(e)
	case nil:
		return poison{}
	}
	return b.fail(e.Position(), "unsupported expression")
}

// lookup resolves a name: the function's scope, then the module, then the
// Python builtins.
func (b *builder) lookup(name string, pos lang.Pos) value {
	if bd, ok := b.fn.scope[name]; ok {
		switch v := bd.val.(type) {
		case undefVal:
			return b.fail(pos, "%s", v.msg)
		case dimSym:
			return b.dimValue(v.name, pos)
		}
		return bd.val
	}
	if b.fn.locals[name] {
		return b.fail(pos, "variable %s is used before it is assigned", name)
	}
	if v, ok := b.globals[name]; ok {
		if h, ok := v.(hostOnlyVal); ok {
			b.hostUsed = true
			return b.fail(pos, "%s %s", name, h.why)
		}
		return v
	}
	if name == "__name__" || name == "dict" || name == "set" {
		// The module's name, dicts and sets: host code's (logger = get_logger(__name__), _cache = dict()).
		b.hostUsed = true
		return b.fail(pos, "%s %s, which only host code has", name, map[string]string{"__name__": "is the module's name", "dict": "makes a dict", "set": "makes a set"}[name])
	}
	if err, ok := b.file.Deferred[name]; ok {
		b.hostUsed = true
		// Host code with errors that a kernel uses after all: its errors
		// count now, once.
		if !b.deferredSeen[name] {
			if b.deferredSeen == nil {
				b.deferredSeen = map[string]bool{}
			}
			b.deferredSeen[name] = true
			var list lang.ErrorList
			if errors.As(err, &list) {
				for _, e := range list {
					b.errs.Add(e)
				}
			} else {
				b.errorf(pos, "%s: %v", name, err)
			}
		}
		return poison{}
	}
	if pyBuiltins[name] {
		return builtinVal{name: name, py: true}
	}
	if b.file.BrokenUnknown {
		// A top-level line that did not parse may have defined it.
		return poison{}
	}
	return b.fail(pos, "name %s is not defined", name)
}

// exprText renders a name or dotted attribute for messages ("ct.foo").
func exprText(e lang.Expr) string {
	switch e := e.(type) {
	case *lang.Name:
		return e.Name
	case *lang.Attr:
		return exprText(e.X) + "." + e.Name
	case *lang.Call:
		return exprText(e.Fun) + "(...)"
	case *lang.Subscript:
		return exprText(e.X) + "[...]"
	}
	return "expression"
}

// attrOf evaluates `x.name` where x is the already evaluated e.X.
func (b *builder) attrOf(x value, e *lang.Attr) value {
	switch x := x.(type) {
	case poison:
		return x
	case nsVal:
		return b.nsAttr(x, e)
	case moduleVal:
		v, ok := x.m.member(e.Name)
		if !ok {
			return b.fail(e.NamePos, "module %s has no attribute %s", x.m.src.Name, e.Name)
		}
		return v
	case *arrayVal:
		switch e.Name {
		case "dtype":
			return x.dtype()
		case "ndim":
			return int64(x.rank())
		case "shape":
			t := make(tuple, x.rank())
			for i := range t {
				t[i] = b.arrayDim(x, i, e.NamePos)
			}
			return t
		case "strides":
			t := make(tuple, x.rank())
			for i := range t {
				var attrs ir.Attrs
				attrs.Set(ir.AttrKeyAxis, int64(i))
				t[i] = b.emitAttrs(e.NamePos, ir.OpStride, ir.ScalarOf(ir.I32), attrs, x.v)
			}
			return t
		}
		if m, ok := arrayAttrMethod(x, e.Name); ok {
			return m
		}
		return b.fail(e.NamePos, "array %s has no attribute %s (it has shape, strides, dtype, ndim and the methods slice, tiled_view and get_raw_memory)", x.name, e.Name)
	case rawMemVal:
		return b.rawMemAttr(x, e)
	case *tiledViewVal:
		return b.tiledViewAttr(x, e)
	case *ir.Value:
		switch e.Name {
		case "dtype":
			return x.Type.Elem()
		case "shape":
			sh, _ := ir.ValueShape(x.Type)
			t := make(tuple, len(sh))
			for i, d := range sh {
				t[i] = int64(d)
			}
			return t
		case "ndim":
			sh, _ := ir.ValueShape(x.Type)
			return int64(len(sh))
		case "T":
			t, ok := x.Type.(*ir.Tile)
			if !ok || t.Rank() != 2 {
				return b.fail(e.NamePos, ".T needs a 2-D tile, got %s", x.Type)
			}
			return b.permute(e.NamePos, x, []int{1, 0})
		}
		if tileMethods[e.Name] {
			return methodVal{recv: x, name: e.Name}
		}
		return b.fail(e.NamePos, "%s has no attribute %s (it has shape, dtype, ndim, T and the methods astype, reshape, permute, transpose, item, ...)", x.Type, e.Name)
	case tuple:
		return b.fail(e.NamePos, "tuple has no attribute %s", e.Name)
	}
	if sep, ok := x.(string); ok && e.Name == "join" {
		return strJoin{sep: sep}
	}
	return b.fail(e.NamePos, "%s has no attribute %s", describe(x), e.Name)
}

// strJoin is `sep.join` before the call (cuTile 1.7's str.join on
// compile-time strings, as in messages of ct.static_assert).
type strJoin struct{ sep string }

// callJoin joins a tuple of compile-time strings with the separator.
func (b *builder) callJoin(j strJoin, e *lang.Call, pos []arg, kws []kwArg) value {
	if len(pos) != 1 || len(kws) != 0 {
		return b.fail(e.Pos, "str.join takes one argument, a tuple of strings")
	}
	items, ok := pos[0].v.(tuple)
	if !ok {
		return b.fail(pos[0].e.Position(), "str.join: the argument must be a tuple of compile-time strings, got %s", describe(pos[0].v))
	}
	parts := make([]string, len(items))
	for i, it := range items {
		s, ok := it.(string)
		if !ok {
			return b.fail(pos[0].e.Position(), "str.join: item %d is %s, not a string (use str(x) or an f-string)", i, describe(it))
		}
		parts[i] = s
	}
	return strings.Join(parts, j.sep)
}

// nsAttr resolves an attribute of a namespace: ct.float16, ct.load,
// ct.PaddingMode.ZERO, cuda.tile.
// tileAttr resolves a member of the tile module that kernels may use
// (a dtype, a builtin, a namespace such as ct.Array, an enum); ok is false
// for any other name.
func tileAttr(name string) (v value, ok bool) {
	if d, ok := ctDTypes[name]; ok {
		return d, true
	}
	if _, ok := ctBuiltins[name]; ok {
		return builtinVal{name: name}, true
	}
	if name == "PaddingMode" {
		return nsPaddingMode, true
	}
	if _, ok := ctEnums[nsVal(name)]; ok || slices.Contains(tileNamespaces, name) {
		return nsVal(name), true
	}
	return nil, false
}

// tileNamespaces are the tile module's members that are namespaces of
// their own (ct.Array[...], ct.Constant[...], @ct.kernel, ...).
var tileNamespaces = []string{"Array", "Constant", "Scalar", "DType", "kernel", "ByTarget"}

func (b *builder) nsAttr(ns nsVal, e *lang.Attr) value {
	switch ns {
	case nsTile:
		if v, ok := tileAttr(e.Name); ok {
			return v
		}
		return b.fail(e.Pos, "%s.%s is not a tile builtin", exprText(e.X), e.Name)
	case nsMath, nsNumpy, nsTorch:
		return b.hostAttr(ns, e)
	case "torch.nn", "torch.nn.functional", "torch.testing":
		return b.fail(e.Pos, "%s.%s is host code (a script's driver uses it): kernels compute with ct's operations", string(ns), e.Name)
	case nsCuda:
		if e.Name == "tile" {
			return nsTile
		}
		return b.fail(e.NamePos, "cuda has no module %s (only cuda.tile)", e.Name)
	case nsPaddingMode:
		if _, ok := padModes[e.Name]; ok {
			return padMode(e.Name)
		}
		return b.fail(e.NamePos, "ct.PaddingMode has no member %s (it has ZERO, NEG_ZERO, NAN, POS_INF, NEG_INF, UNDETERMINED)", e.Name)
	}
	if _, ok := ctEnums[ns]; ok {
		return b.enumAttr(ns, e)
	}
	return b.fail(e.NamePos, "ct.%s has no attribute %s", string(ns), e.Name)
}

// subscript evaluates `x[i]`: tuple indexing, and `A.shape[i]`, which
// fetches only the one extent.
func (b *builder) subscript(e *lang.Subscript) value {
	var x value
	if a, ok := e.X.(*lang.Attr); ok && a.Name == "shape" {
		base := b.expr(a.X)
		if av, ok := base.(*arrayVal); ok {
			idx := b.expr(e.Index)
			if n, isInt := idx.(int64); isInt && (n >= int64(av.rank()) || n < -int64(av.rank())) {
				return b.fail(e.Index.Position(), "%s.shape[%d] is out of range: %s has rank %d", av.name, n, av.name, av.rank())
			}
			i, ok := b.tupleIndex(idx, e.Index, av.rank())
			if !ok {
				return poison{}
			}
			return b.arrayDim(av, i, e.Pos)
		}
		x = b.attrOf(base, a)
	} else {
		x = b.expr(e.X)
	}
	if isPoison(x) {
		return poison{}
	}
	if v, ok := x.(*ir.Value); ok && isRuntime(v) {
		return b.indexTile(v, e)
	}
	idx := b.expr(e.Index)
	switch x := x.(type) {
	case tuple:
		i, ok := b.tupleIndex(idx, e.Index, len(x))
		if !ok {
			return poison{}
		}
		return x[i]
	case nsVal:
		if x == nsArray || x == nsConstant || x == nsScalar {
			// An annotation outside a parameter list: an alias names it
			// (`ConstInt = ct.Constant[int]`); only annotations use it.
			return annotVal{sub: e}
		}
	case *arrayVal:
		return b.fail(e.Pos, "array %s cannot be indexed: use ct.load", x.name)
	case *listVal:
		return b.listItem(x, idx, e)
	case *ir.Value:
		return b.indexTile(x, e)
	}
	return b.fail(e.Pos, "%s cannot be indexed", describe(x))
}

// tupleIndex checks a compile-time index into a sequence of length n
// (negative indices count from the end).
func (b *builder) tupleIndex(idx value, e lang.Expr, n int) (int, bool) {
	if isPoison(idx) {
		return 0, false
	}
	i, ok := idx.(int64)
	if !ok {
		b.errorf(e.Position(), "index must be a compile-time int, got %s", describe(idx))
		return 0, false
	}
	if i < 0 {
		i += int64(n)
	}
	if i < 0 || i >= int64(n) {
		b.errorf(e.Position(), "index %d is out of range for length %d", idx, n)
		return 0, false
	}
	return int(i), true
}

// isRuntime reports whether v is a run-time scalar or tile.
func isRuntime(v value) bool {
	x, ok := v.(*ir.Value)
	if !ok {
		return false
	}
	_, isArray := x.Type.(*ir.Array)
	return !isArray
}

// isConstVal reports whether v is a compile-time value (foldable).
func isConstVal(v value) bool {
	switch v.(type) {
	case int64, float64, bool, ir.DType, string, tuple, padMode, noneVal:
		return true
	}
	return false
}

var cmpPreds = map[string]string{"==": ir.PredEQ, "!=": ir.PredNE, "<": ir.PredLT, "<=": ir.PredLE, ">": ir.PredGT, ">=": ir.PredGE}

var arithOps = map[string]ir.Op{
	"+": ir.OpAdd, "-": ir.OpSub, "*": ir.OpMul, "/": ir.OpDiv, "//": ir.OpFloorDiv, "%": ir.OpMod, "**": ir.OpPow,
	"&": ir.OpAnd, "|": ir.OpOr, "^": ir.OpXor, "<<": ir.OpShl, ">>": ir.OpShr,
}

// binop applies a binary operator (not and/or) to evaluated operands.
func (b *builder) binop(pos lang.Pos, op string, x, y value) value {
	if isPoison(x, y) {
		return poison{}
	}
	if op == "@" {
		return b.matmul(pos, "@", x, y)
	}
	if op == "is" || op == "is not" {
		// Identity of compile-time values: `if scale is None:` on an
		// optional constant, dtypes, ints.
		if isRuntime(x) || isRuntime(y) {
			return b.fail(pos, "'%s' compares compile-time values (None, constants, dtypes); tiles and run-time scalars compare with == and !=", op)
		}
		_, xn := x.(noneVal)
		_, yn := y.(noneVal)
		same := xn && yn
		if !xn && !yn {
			v, err := foldBinary("==", x, y)
			if err != nil {
				return b.fail(pos, "'%s' of %s and %s", op, describe(x), describe(y))
			}
			same, _ = v.(bool)
		}
		return same == (op == "is")
	}
	if b.scaleOperand(pos, op, x, y) {
		return poison{}
	}
	if isConstVal(x) && isConstVal(y) {
		v, err := foldBinary(op, x, y)
		if err != nil {
			return b.fail(pos, "%v", err)
		}
		return v
	}
	pred, isCmp := cmpPreds[op]
	code, isArith := arithOps[op]
	if !isCmp && !isArith {
		return b.fail(pos, "operator %s is not supported on run-time values", op)
	}
	if !isRuntime(x) && !isNumber(x) || !isRuntime(y) && !isNumber(y) {
		return b.fail(pos, "unsupported operand types for %s: %s and %s", op, describe(x), describe(y))
	}
	dt, shape, isTile, ok := b.commonType(pos, op, x, y)
	if !ok {
		return poison{}
	}
	switch {
	case isCmp:
	case op == "/":
		if !dt.IsFloat() {
			dt = ir.F32
		}
	case op == "&" || op == "|" || op == "^":
		if dt.IsFloat() {
			return b.fail(pos, "operator %s needs int or bool operands, got %s", op, dt)
		}
	case op == "<<" || op == ">>":
		if !dt.IsInt() {
			return b.fail(pos, "operator %s needs integer operands, got %s", op, dt)
		}
	default:
		if dt == ir.Bool {
			dt = ir.I32
		}
		// A constant divisor or exponent that makes the run-time integer
		// result a convention (ir.IntBinaryWarning) is a mistake the
		// source shows: an error here, as the constant form is.
		if c, isInt := y.(int64); isInt && !dt.IsFloat() {
			switch {
			case c == 0 && (op == "//" || op == "%"):
				return b.fail(pos, "integer %s by zero", map[string]string{"//": "division", "%": "modulo"}[op])
			case c < 0 && op == "**":
				return b.fail(pos, "integers to negative integer powers are not allowed (as in numpy): convert the base to a float dtype first")
			}
		}
	}
	xv := b.coerce(pos, x, dt, shape, isTile)
	yv := b.coerce(pos, y, dt, shape, isTile)
	if isCmp {
		var attrs ir.Attrs
		attrs.Set(ir.AttrKeyPred, pred)
		return b.emitInferred(pos, ir.OpCmp, attrs, xv, yv)
	}
	return b.emitInferred(pos, code, nil, xv, yv)
}

// contains is `x in y` and `x not in y` as cuTile has them: y is a
// tuple, and x is compared with == to each item in turn; an item known
// equal at compile time makes the result True (a compile-time constant,
// so `if dtype in (ct.float16, ct.bfloat16):` picks its branch while
// compiling), run-time comparisons are or-ed together, and each must be a
// scalar (a rank-0 tile), as cuTile requires.
func (b *builder) contains(pos lang.Pos, op string, x, y value) value {
	if isPoison(x, y) {
		return poison{}
	}
	items, ok := y.(tuple)
	if !ok {
		return b.fail(pos, "'%s' in a kernel needs a tuple on its right (cuTile's 'in' is a test against a tuple's items), got %s", op, describe(y))
	}
	var result value = false
	for _, item := range items {
		eq := b.binop(pos, "==", x, item)
		if isPoison(eq) {
			return eq
		}
		if v, ok := eq.(*ir.Value); ok {
			if t, isTile := v.Type.(*ir.Tile); isTile && len(t.Shape) > 0 {
				return b.fail(pos, "'%s' requires scalar operands, but got shape %v", op, t.Shape)
			}
		}
		if c, isConst := eq.(bool); isConst {
			if c {
				result = true
				break
			}
			continue
		}
		if r, isConst := result.(bool); isConst && !r {
			result = eq
		} else {
			result = b.binop(pos, "|", result, eq)
		}
	}
	if op == "not in" {
		return b.unop(pos, "not", result)
	}
	return result
}

// typeOf is a scalar or tile type.
func typeOf(dt ir.DType, shape []int, isTile bool) ir.Type {
	if isTile {
		return ir.TileOf(dt, shape...)
	}
	return ir.ScalarOf(dt)
}

// commonType computes the dtype and shape that elementwise operands meet
// at: run-time dtypes promote, compile-time numbers are weak (they take the
// run-time operand's dtype), and tile shapes broadcast as in numpy.
func (b *builder) commonType(pos lang.Pos, what string, vs ...value) (ir.DType, []int, bool, bool) {
	dt := ir.InvalidDType
	var weak []value
	var shape []int
	isTile := false
	var first ir.Type
	for _, v := range vs {
		switch x := v.(type) {
		case *ir.Value:
			switch t := x.Type.(type) {
			case *ir.Scalar, *ir.Tile:
			default:
				b.errorf(pos, "%s: cannot use %s as an operand; load a tile with ct.load", what, t)
				return 0, nil, false, false
			}
			if dt == ir.InvalidDType {
				dt = x.Type.Elem()
			} else {
				d, err := promote(dt, x.Type.Elem())
				if err != nil {
					b.errorf(pos, "%s: %v", what, err)
					return 0, nil, false, false
				}
				dt = d
			}
			if t, ok := x.Type.(*ir.Tile); ok {
				if !isTile {
					shape, isTile, first = t.Shape, true, t
					continue
				}
				s, ok := BroadcastShapes(shape, t.Shape)
				if !ok {
					b.errorf(pos, "%s: cannot broadcast %s and %s", what, first, t)
					return 0, nil, false, false
				}
				shape = s
			}
		case int64, float64, bool:
			weak = append(weak, x)
		case *arrayVal:
			b.errorf(pos, "%s: cannot use array %s as an operand; load a tile with ct.load", what, x.name)
			return 0, nil, false, false
		default:
			b.errorf(pos, "%s: unsupported operand %s", what, describe(v))
			return 0, nil, false, false
		}
	}
	if dt == ir.InvalidDType {
		dt = weakJoinConsts(weak)
	} else {
		for _, w := range weak {
			dt = weakJoin(dt, w)
		}
		// An integer constant takes an integer operand's dtype, so it
		// must fit it, as cuTile requires ("Integer constant -170 is out
		// of range of int8"), rather than wrap. (An i32 operand widens to
		// i64 for a constant beyond i32 instead: weakJoin.)
		for _, w := range weak {
			if n, ok := w.(int64); ok && dt.IsInt() && ir.WrapInt(dt, n) != n {
				b.errorf(pos, "%s: integer constant %d is out of range of %s", what, n, dt)
				return 0, nil, false, false
			}
		}
	}
	return dt, shape, isTile, true
}

// BroadcastShapes is numpy's broadcast of two shapes; ok is false when
// they do not broadcast.
func BroadcastShapes(a, b []int) ([]int, bool) {
	n := max(len(a), len(b))
	out := make([]int, n)
	for i := range n {
		x, y := 1, 1
		if j := len(a) - n + i; j >= 0 {
			x = a[j]
		}
		if j := len(b) - n + i; j >= 0 {
			y = b[j]
		}
		switch {
		case x == y || y == 1:
			out[i] = x
		case x == 1:
			out[i] = y
		default:
			return nil, false
		}
	}
	return out, true
}

// coerce brings an operand to dtype dt and, for a tile result, to shape:
// compile-time numbers become consts, dtypes convert, scalars splat and
// tiles broadcast.
func (b *builder) coerce(pos lang.Pos, v value, dt ir.DType, shape []int, isTile bool) *ir.Value {
	var x *ir.Value
	if isNumber(v) {
		x = b.constant(pos, v, dt)
	} else {
		x = b.convert(pos, v.(*ir.Value), dt)
	}
	if isTile {
		x = b.broadcastTo(pos, x, shape)
	}
	return x
}

// convert changes a run-time value's dtype (nothing when it already has it).
func (b *builder) convert(pos lang.Pos, x *ir.Value, dt ir.DType) *ir.Value {
	if x.Type.Elem() == dt {
		return x
	}
	return b.emit(pos, ir.OpConvert, ir.WithElem(x.Type, dt), x)
}

// broadcastTo splats a scalar, or reshapes and broadcasts a tile, to shape.
// The caller has checked that the shapes broadcast.
func (b *builder) broadcastTo(pos lang.Pos, x *ir.Value, shape []int) *ir.Value {
	switch t := x.Type.(type) {
	case *ir.Scalar:
		return b.emit(pos, ir.OpSplat, ir.TileOf(t.DType, shape...), x)
	case *ir.Tile:
		if slices.Equal(t.Shape, shape) {
			return x
		}
		cur := t.Shape
		if len(cur) < len(shape) {
			padded := make([]int, len(shape))
			for i := range padded {
				padded[i] = 1
			}
			copy(padded[len(shape)-len(cur):], cur)
			x = b.emit(pos, ir.OpReshape, ir.TileOf(t.DType, padded...), x)
			cur = padded
		}
		if !slices.Equal(cur, shape) {
			x = b.emit(pos, ir.OpBroadcast, ir.TileOf(t.DType, shape...), x)
		}
	}
	return x
}

// unop applies -, +, ~ or not.
func (b *builder) unop(pos lang.Pos, op string, x value) value {
	if isPoison(x) {
		return x
	}
	if isConstVal(x) {
		v, err := foldUnary(op, x)
		if err != nil {
			return b.fail(pos, "%v", err)
		}
		return v
	}
	if !isRuntime(x) {
		return b.fail(pos, "unsupported operand type for unary %s: %s", op, describe(x))
	}
	if b.scaleOperand(pos, op, x) {
		return poison{}
	}
	v := x.(*ir.Value)
	dt := v.Type.Elem()
	switch op {
	case "+":
		if dt == ir.Bool {
			return b.convert(pos, v, ir.I32)
		}
		return v
	case "-":
		if dt == ir.Bool {
			v = b.convert(pos, v, ir.I32)
		}
		return b.emitInferred(pos, ir.OpNeg, nil, v)
	case "~":
		if dt.IsFloat() {
			return b.fail(pos, "operator ~ needs an int or bool operand, got %s", v.Type)
		}
		return b.emitInferred(pos, ir.OpNot, nil, v)
	case "not":
		if _, ok := v.Type.(*ir.Tile); ok {
			return b.fail(pos, "not on %s: use ~ for tiles", v.Type)
		}
		return b.emit(pos, ir.OpNot, ir.ScalarOf(ir.Bool), b.toBool(pos, v))
	}
	return b.fail(pos, "unsupported unary operator %s", op)
}

// toBool turns a run-time scalar into a bool scalar (comparing with 0).
func (b *builder) toBool(pos lang.Pos, v *ir.Value) *ir.Value {
	dt := v.Type.Elem()
	if dt == ir.Bool {
		return v
	}
	zero := b.constant(pos, int64(0), dt)
	var attrs ir.Attrs
	attrs.Set(ir.AttrKeyPred, ir.PredNE)
	return b.emitInferred(pos, ir.OpCmp, attrs, v, zero)
}

// condition evaluates a scalar condition: a compile-time bool (ok, static)
// or a run-time bool scalar.
func (b *builder) condition(pos lang.Pos, v value, what string) (static bool, cv bool, rv *ir.Value, ok bool) {
	if isPoison(v) {
		return false, false, nil, false
	}
	if isConstVal(v) {
		t, ok := truthy(v)
		if !ok {
			b.errorf(pos, "%s: condition must be a bool, got %s", what, describe(v))
			return false, false, nil, false
		}
		return true, t, nil, true
	}
	x, ok := v.(*ir.Value)
	if !ok {
		b.errorf(pos, "%s: condition must be a bool, got %s", what, describe(v))
		return false, false, nil, false
	}
	if _, ok := x.Type.(*ir.Scalar); !ok {
		b.errorf(pos, "%s: condition must be a scalar, got %s", what, x.Type)
		return false, false, nil, false
	}
	return false, false, b.toBool(pos, x), true
}

// logical evaluates `x and y` / `x or y`, short-circuiting on compile-time
// operands (so that a static condition can guard code that would not build).
func (b *builder) logical(e *lang.BinaryExpr) value {
	x := b.expr(e.X)
	static, xv, xr, ok := b.condition(e.X.Position(), x, e.Op)
	if !ok {
		b.expr(e.Y)
		return poison{}
	}
	if static {
		if (e.Op == "and") != xv {
			return x
		}
		return b.expr(e.Y)
	}
	y := b.expr(e.Y)
	static, yv, yr, ok := b.condition(e.Y.Position(), y, e.Op)
	if !ok {
		return poison{}
	}
	if static {
		if (e.Op == "and") == yv {
			return xr
		}
		return yv
	}
	op := ir.OpAnd
	if e.Op == "or" {
		op = ir.OpOr
	}
	return b.emitInferred(e.OpPos, op, nil, xr, yr)
}

// condExpr evaluates `x if c else y`: statically when c is compile-time,
// otherwise as a select of both.
func (b *builder) condExpr(e *lang.CondExpr) value {
	c := b.expr(e.Cond)
	var static, cv bool
	cr, isTile, ok := b.tileCondition(e.Cond.Position(), c, "conditional expression")
	if !isTile {
		static, cv, cr, ok = b.condition(e.Cond.Position(), c, "conditional expression")
	}
	if !ok {
		b.expr(e.X)
		b.expr(e.Y)
		return poison{}
	}
	if static {
		if cv {
			return b.expr(e.X)
		}
		return b.expr(e.Y)
	}
	x := b.expr(e.X)
	y := b.expr(e.Y)
	if isPoison(x, y) {
		return poison{}
	}
	if isConstVal(x) && isConstVal(y) {
		if eq, ok := constEqual(x, y); ok && eq {
			return x
		}
	}
	return b.selectValues(e.Pos, "conditional expression", cr, x, y)
}

// selectValues emits select(c, x, y) after unifying x and y.
func (b *builder) selectValues(pos lang.Pos, what string, c *ir.Value, x, y value) value {
	dt, shape, isTile, ok := b.commonType(pos, what, x, y)
	if !ok {
		return poison{}
	}
	if ct, ok := c.Type.(*ir.Tile); ok {
		s, ok := BroadcastShapes(shape, ct.Shape)
		if !ok {
			return b.fail(pos, "%s: cannot broadcast condition %s to the operands", what, c.Type)
		}
		shape, isTile = s, true
		c = b.broadcastTo(pos, c, shape)
	}
	xv := b.coerce(pos, x, dt, shape, isTile)
	yv := b.coerce(pos, y, dt, shape, isTile)
	return b.emitInferred(pos, ir.OpSelect, nil, c, xv, yv)
}

// permute emits a permute unless perm is the identity.
func (b *builder) permute(pos lang.Pos, x *ir.Value, perm []int) *ir.Value {
	ident := true
	for i, p := range perm {
		if p != i {
			ident = false
		}
	}
	if ident {
		return x
	}
	var attrs ir.Attrs
	attrs.Set(ir.AttrKeyPerm, append([]int(nil), perm...))
	return b.emitInferred(pos, ir.OpPermute, attrs, x)
}

// reshape emits a reshape unless the shape is unchanged.
func (b *builder) reshape(pos lang.Pos, x *ir.Value, shape []int) *ir.Value {
	t := x.Type.(*ir.Tile)
	if slices.Equal(t.Shape, shape) {
		return x
	}
	return b.emit(pos, ir.OpReshape, ir.TileOf(t.DType, shape...), x)
}

// signatureText renders "name(a, b, c=...)" for messages.
func signatureText(name string, params []sigParam) string {
	var s strings.Builder
	s.WriteString(name)
	s.WriteByte('(')
	for i, p := range params {
		if i > 0 {
			s.WriteString(", ")
		}
		s.WriteString(p.name)
		if p.def != "" {
			s.WriteByte('=')
			s.WriteString(p.def)
		}
	}
	s.WriteByte(')')
	return s.String()
}
