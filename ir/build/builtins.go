package build

// The tile builtins (ct.load, ct.mma, ...) and the Python builtins (min,
// max, abs, int, float, bool, len). Each checks its arguments against
// docs/language.md and emits IR, or folds when every operand is known at
// compile time. Messages start with the builtin's name ("load: ...").

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/ir/scalar"
	"github.com/tilec/tilec/lang"
)

type builtinSpec struct {
	params []sigParam
	fn     func(b *builder, c *callCtx) value
	raw    rawBuiltin
}

// ctBuiltins is filled in init: the functions refer back to the table
// through the expression evaluator.
var ctBuiltins map[string]*builtinSpec

func init() {
	ctBuiltins = map[string]*builtinSpec{}
	def := func(sig string, fn func(b *builder, c *callCtx) value) {
		name, params := parseSig(sig)
		ctBuiltins[name] = &builtinSpec{params: params, fn: fn}
	}
	def("bid(axis)", func(b *builder, c *callCtx) value { return b.biGridQuery(c, ir.OpBlockID) })
	def("num_blocks(axis)", func(b *builder, c *callCtx) value { return b.biGridQuery(c, ir.OpNumBlocks) })
	def("cdiv(a, b)", (*builder).biCdiv)
	def("num_tiles(array, axis, shape)", (*builder).biNumTiles)
	def("load(array, index, shape, order=C, padding_mode=ZERO, latency=None, allow_tma=None, check_bounds=None)", (*builder).biLoad)
	def("store(array, index, tile, order=C, latency=None, allow_tma=None, check_bounds=None)", (*builder).biStore)
	def("full(shape, value, dtype=float32)", func(b *builder, c *callCtx) value { return b.biFull(c, c.args[1]) })
	def("zeros(shape, dtype=float32)", func(b *builder, c *callCtx) value { return b.biFull(c, arg{v: int64(0)}) })
	def("ones(shape, dtype=float32)", func(b *builder, c *callCtx) value { return b.biFull(c, arg{v: int64(1)}) })
	def("arange(n, dtype=int32)", (*builder).biArange)
	def("astype(x, dtype, rounding_mode=None)", (*builder).biAstype)
	// use_fast_acc (cuTile 1.4+) lets a float8 mma accumulate in lower
	// precision on the GPU (ir's fast_acc attribute); the interpreter's
	// sums are exact float32 either way.
	def("mma(a, b, acc, use_fast_acc=False)", func(b *builder, c *callCtx) value {
		if !b.boolArgOK(c, 3, "use_fast_acc") {
			return poison{}
		}
		return b.biMMA(c)
	})
	def("mma_scaled(x, x_scale, y, y_scale, acc)", (*builder).biMMAScaled)
	def("matmul(a, b)", func(b *builder, c *callCtx) value { return b.matmul(c.pos, "matmul", c.args[0].v, c.args[1].v) })
	for name, op := range map[string]ir.Op{"log": ir.OpLog, "abs": ir.OpAbs} {
		def(name+"(x)", func(b *builder, c *callCtx) value { return b.mathOp(c.pos, c.name, op, c.args[0].v) })
	}
	// cuTile's exp and tanh take rounding_mode, sqrt rounding_mode and
	// flush_to_zero (plainNumerics: what tilec computes is the default).
	for name, op := range map[string]ir.Op{"exp": ir.OpExp, "tanh": ir.OpTanh} {
		def(name+"(x, rounding_mode=None)", func(b *builder, c *callCtx) value {
			if !b.plainNumerics(c, 1, -1) {
				return poison{}
			}
			return b.mathOp(c.pos, c.name, op, c.args[0].v)
		})
	}
	def("sqrt(x, rounding_mode=None, flush_to_zero=False)", func(b *builder, c *callCtx) value {
		if !b.plainNumerics(c, 1, 2) {
			return poison{}
		}
		return b.flushToZero(c, 2, b.mathOp(c.pos, c.name, ir.OpSqrt, c.args[0].v))
	})
	// cuTile's exp2 and rsqrt take flush_to_zero.
	for name, op := range map[string]ir.Op{"exp2": ir.OpExp2, "rsqrt": ir.OpRsqrt} {
		def(name+"(x, flush_to_zero=False)", func(b *builder, c *callCtx) value {
			if !b.plainNumerics(c, -1, 1) {
				return poison{}
			}
			return b.flushToZero(c, 1, b.mathOp(c.pos, c.name, op, c.args[0].v))
		})
	}
	def("maximum(x, y, flush_to_zero=False, propagate_nan=False)", func(b *builder, c *callCtx) value {
		if !b.plainNumerics(c, -1, 2) || !b.boolArgOK(c, 3, "propagate_nan") {
			return poison{}
		}
		return b.propagateNaN(c, 3, b.flushToZero(c, 2, b.minmax(c.pos, "maximum", ir.OpMax, c.args[0].v, c.args[1].v, flag(c, 3))))
	})
	def("minimum(x, y, flush_to_zero=False, propagate_nan=False)", func(b *builder, c *callCtx) value {
		if !b.plainNumerics(c, -1, 2) || !b.boolArgOK(c, 3, "propagate_nan") {
			return poison{}
		}
		return b.propagateNaN(c, 3, b.flushToZero(c, 2, b.minmax(c.pos, "minimum", ir.OpMin, c.args[0].v, c.args[1].v, flag(c, 3))))
	})
	def("where(cond, x, y)", (*builder).biWhere)
	def("sum(x, axis=None, keepdims=False)", func(b *builder, c *callCtx) value { return b.biReduce(c, ir.ReduceSum) })
	def("max(x, axis=None, keepdims=False, flush_to_zero=False, propagate_nan=False)", func(b *builder, c *callCtx) value {
		if !b.plainNumerics(c, -1, 3) || !b.boolArgOK(c, 4, "propagate_nan") {
			return poison{}
		}
		return b.flushToZero(c, 3, b.propagateNaN(c, 4, b.biReduce(c, ir.ReduceMax)))
	})
	def("min(x, axis=None, keepdims=False, flush_to_zero=False, propagate_nan=False)", func(b *builder, c *callCtx) value {
		if !b.plainNumerics(c, -1, 3) || !b.boolArgOK(c, 4, "propagate_nan") {
			return poison{}
		}
		return b.flushToZero(c, 3, b.propagateNaN(c, 4, b.biReduce(c, ir.ReduceMin)))
	})
	def("argmax(x, axis=None, keepdims=False, propagate_nan=False)", func(b *builder, c *callCtx) value {
		if !b.boolArgOK(c, 3, "propagate_nan") {
			return poison{}
		}
		return b.propagateNaN(c, 3, b.biReduce(c, ir.ReduceArgmax))
	})
	def("argmin(x, axis=None, keepdims=False, propagate_nan=False)", func(b *builder, c *callCtx) value {
		if !b.boolArgOK(c, 3, "propagate_nan") {
			return poison{}
		}
		return b.propagateNaN(c, 3, b.biReduce(c, ir.ReduceArgmin))
	})
	def("reshape(x, shape)", (*builder).biReshape)
	def("permute(x, axes)", (*builder).biPermute)
	def("transpose(x, axis0=None, axis1=None)", (*builder).biTranspose)
	def("expand_dims(x, axis)", (*builder).biExpandDims)
	def("broadcast_to(x, shape)", (*builder).biBroadcastTo)
	def("static_assert(cond, msg=\"\")", (*builder).biStaticAssert)
}

// ---- argument readers ----

// intArg reads a compile-time int argument.
func (b *builder) intArg(c *callCtx, i int, what string) (int64, bool) {
	v := c.args[i].v
	n, ok := v.(int64)
	if !ok {
		if isRuntime(v) {
			b.errorf(c.argPos(i), "%s: %s must be a compile-time constant", c.name, what)
		} else {
			b.errorf(c.argPos(i), "%s: %s must be an int, got %s", c.name, what, describe(v))
		}
		return 0, false
	}
	return n, true
}

// axisArg reads a compile-time axis in [-rank, rank) and normalizes it.
func (b *builder) axisArg(c *callCtx, i int, rank int, t ir.Type) (int, bool) {
	n, ok := b.intArg(c, i, "axis")
	if !ok {
		return 0, false
	}
	if n < -int64(rank) || n >= int64(rank) {
		b.errorf(c.argPos(i), "%s: axis %d is out of range for %s", c.name, n, t)
		return 0, false
	}
	if n < 0 {
		n += int64(rank)
	}
	return int(n), true
}

// intsArg reads a compile-time tuple of ints (a single int counts as a
// 1-tuple), reporting at the offending element where the tuple is written out.
func (b *builder) intsArg(c *callCtx, i int, what string) ([]int64, []lang.Pos, bool) {
	a := c.args[i]
	var elems []value
	switch x := a.v.(type) {
	case int64:
		elems = tuple{x}
	case tuple:
		elems = x
	default:
		if isRuntime(x) {
			b.errorf(c.argPos(i), "%s must be a compile-time constant", what)
		} else {
			b.errorf(c.argPos(i), "%s: %s must be a tuple of ints, got %s", c.name, what, describe(x))
		}
		return nil, nil, false
	}
	var exprs []lang.Expr
	if te, ok := a.e.(*lang.Tuple); ok && len(te.Elems) == len(elems) {
		exprs = te.Elems
	}
	out := make([]int64, len(elems))
	poss := make([]lang.Pos, len(elems))
	ok := true
	for j, el := range elems {
		poss[j] = c.argPos(i)
		if exprs != nil {
			poss[j] = exprs[j].Position()
		}
		n, isInt := el.(int64)
		if !isInt {
			if isRuntime(el) {
				b.errorf(poss[j], "%s must be a compile-time constant", what)
			} else if !isPoison(el) {
				b.errorf(poss[j], "%s: %s must hold ints, got %s", c.name, what, describe(el))
			}
			ok = false
			continue
		}
		out[j] = n
	}
	return out, poss, ok
}

// tileShapeArg reads a tile shape: compile-time, every dim a power of two,
// at most maxTileElems elements.
func (b *builder) tileShapeArg(c *callCtx, i int) ([]int, bool) {
	dims, poss, ok := b.intsArg(c, i, "tile shape")
	if !ok {
		return nil, false
	}
	var exprs []lang.Expr
	if te, isTuple := c.args[i].e.(*lang.Tuple); isTuple && len(te.Elems) == len(dims) {
		exprs = te.Elems
	} else if len(dims) == 1 {
		exprs = []lang.Expr{c.args[i].e}
	}
	return b.checkTileShape(dims, poss, exprs, c.argPos(i))
}

// checkTileShape checks the dims of a tile shape; exprs, when not nil, are
// the expressions of the dims (an error about a constant's value is given
// once: rootErrorf).
func (b *builder) checkTileShape(dims []int64, poss []lang.Pos, exprs []lang.Expr, pos lang.Pos) ([]int, bool) {
	shape := make([]int, len(dims))
	ok := true
	total := int64(1)
	for j, n := range dims {
		if !isPow2(n) {
			var e lang.Expr
			if exprs != nil {
				e = exprs[j]
			}
			b.rootErrorf(e, poss[j], "tile dimension %d is not a power of two", n)
			ok = false
			continue
		}
		shape[j] = int(n)
		if total > maxTileElems/n {
			total = maxTileElems + 1
		} else {
			total *= n
		}
	}
	if ok && total > maxTileElems {
		b.errorf(pos, "tile of shape %s is too large (at most 2^24 elements)", shapeString(shape))
		ok = false
	}
	return shape, ok
}

// dtypeArg reads a dtype argument (ct.float16, or Python's int, float, bool).
func (b *builder) dtypeArg(c *callCtx, i int, def ir.DType) (ir.DType, bool) {
	if !c.given(i) {
		return def, true
	}
	switch x := c.args[i].v.(type) {
	case ir.DType:
		return x, true
	case builtinVal:
		if x.py {
			switch x.name {
			case "int":
				return ir.I32, true
			case "float":
				return ir.F32, true
			case "bool":
				return ir.Bool, true
			}
		}
	}
	b.errorf(c.argPos(i), "%s: dtype must be a dtype such as ct.float32, got %s", c.name, describe(c.args[i].v))
	return 0, false
}

// tileArg reads a run-time tile argument.
func (b *builder) tileArg(c *callCtx, i int, what string) (*ir.Value, *ir.Tile, bool) {
	v := c.args[i].v
	if x, ok := v.(*ir.Value); ok {
		if t, ok := x.Type.(*ir.Tile); ok {
			return x, t, true
		}
	}
	b.errorf(c.argPos(i), "%s: %s must be a tile, got %s", c.name, what, describe(v))
	return nil, nil, false
}

// arrayArg reads an array argument.
func (b *builder) arrayArg(c *callCtx, i int) (*arrayVal, bool) {
	if a, ok := c.args[i].v.(*arrayVal); ok {
		return a, true
	}
	b.errorf(c.argPos(i), "%s: %s must be an array parameter, got %s", c.name, c.sigParamName(i), describe(c.args[i].v))
	return nil, false
}

func (c *callCtx) sigParamName(i int) string {
	open := strings.IndexByte(c.sig, '(')
	parts := strings.Split(strings.TrimSuffix(c.sig[open+1:], ")"), ", ")
	if i < len(parts) {
		n, _, _ := strings.Cut(parts[i], "=")
		return n
	}
	return "argument"
}

// ---- grid ----

func (b *builder) biGridQuery(c *callCtx, op ir.Op) value {
	axis, ok := b.intArg(c, 0, "axis")
	if !ok {
		return poison{}
	}
	if axis < 0 || axis > 2 {
		return b.fail(c.argPos(0), "%s: axis must be 0, 1 or 2, got %d", c.name, axis)
	}
	var attrs ir.Attrs
	attrs.Set(ir.AttrKeyAxis, axis)
	return b.emitInferred(c.pos, op, attrs)
}

// biCdiv is ceil(a / b) on ints: compile-time ones, integer scalars or
// rank-0 integer tiles (a length loaded with shape (), as cuTile has it;
// the result is then a rank-0 tile).
func (b *builder) biCdiv(c *callCtx) value {
	for i := range 2 {
		v := c.args[i].v
		if isRuntime(v) {
			t := v.(*ir.Value).Type
			if _, isScalar := t.(*ir.Scalar); (isScalar || rank0(t) != nil) && t.Elem().IsInt() {
				continue
			}
		} else if _, ok := v.(int64); ok {
			continue
		}
		return b.fail(c.argPos(i), "cdiv: operands must be integers, got %s", describe(v))
	}
	return b.cdiv(c.pos, c.args[0].v, c.args[1].v)
}

// cdiv computes ceil(x / y): folded on constants; for a positive constant
// y, x // y plus min(x % y, 1) (one when y does not divide x: the floor
// remainder lies in [0, y)), which cannot overflow where x + y - 1 would
// (cdiv(2**31 - 1, 2) in i32, an array of 2**31 - 1 elements), whatever y;
// -((-x) // y) otherwise.
func (b *builder) cdiv(pos lang.Pos, x, y value) value {
	if yc, ok := y.(int64); ok {
		if xc, ok := x.(int64); ok {
			if yc == 0 {
				return b.fail(pos, "cdiv: division by zero")
			}
			// ceil(x / y) is the floor, plus one when y does not divide x
			// (no overflow then: the quotient is smaller than x).
			q, ok := scalar.FloorDivChecked(xc, yc)
			if !ok {
				return b.fail(pos, "cdiv: %v", &overflowError{op: "//", x: xc, y: yc})
			}
			if scalar.Mod(xc, yc) != 0 {
				q++
			}
			return q
		}
		if yc > 0 {
			if yc == 1 {
				return x
			}
			q := b.binop(pos, "//", x, yc)
			up := b.minmax(pos, "min", ir.OpMin, b.binop(pos, "%", x, yc), int64(1), false)
			return b.binop(pos, "+", q, up)
		}
	}
	return b.unop(pos, "-", b.binop(pos, "//", b.unop(pos, "-", x), y))
}

func (b *builder) biNumTiles(c *callCtx) value {
	a, ok := b.arrayArg(c, 0)
	if !ok {
		return poison{}
	}
	axis, ok := b.axisArg(c, 1, a.rank(), a.t)
	if !ok {
		return poison{}
	}
	shape, poss, ok := b.intsArg(c, 2, "tile shape")
	if !ok {
		return poison{}
	}
	if len(shape) == 0 {
		// shape=() is one element per tile, as for load (cuTile).
		shape = make([]int64, a.rank())
		for i := range shape {
			shape[i] = 1
		}
	}
	if len(shape) != a.rank() {
		return b.fail(c.argPos(2), "num_tiles: shape has %d entries but %s has rank %d", len(shape), a.name, a.rank())
	}
	if shape[axis] <= 0 {
		return b.fail(poss[axis], "num_tiles: tile size must be positive, got %d", shape[axis])
	}
	return b.cdiv(c.pos, b.arrayDim(a, axis, c.pos), shape[axis])
}

// ---- memory ----

// indexArg reads a load/store tile index: one integer scalar or rank-0
// integer tile (cuTile's scalars are rank-0 tiles) per array axis.
func (b *builder) indexArg(c *callCtx, i int, a *arrayVal) ([]*ir.Value, bool) {
	v := c.args[i].v
	elems, isTuple := v.(tuple)
	if !isTuple {
		elems = tuple{v}
	}
	if len(elems) != a.rank() {
		b.errorf(c.argPos(i), "%s: index has %d entr%s but %s has rank %d", c.name, len(elems), pluralY(len(elems)), a.name, a.rank())
		return nil, false
	}
	var exprs []lang.Expr
	if te, ok := c.args[i].e.(*lang.Tuple); ok && len(te.Elems) == len(elems) {
		exprs = te.Elems
	}
	out := make([]*ir.Value, len(elems))
	ok := true
	for j, el := range elems {
		pos := c.argPos(i)
		if exprs != nil {
			pos = exprs[j].Position()
		}
		switch x := el.(type) {
		case int64:
			out[j] = b.constant(pos, x, weakDType(x))
			continue
		case *ir.Value:
			if s, isScalar := x.Type.(*ir.Scalar); isScalar && s.DType.IsInt() {
				out[j] = x
				continue
			}
			if t := rank0(x.Type); t != nil && t.DType.IsInt() {
				out[j] = x
				continue
			}
		case poison:
			ok = false
			continue
		}
		b.errorf(pos, "%s: index must hold integer scalars or rank-0 integer tiles, got %s", c.name, describe(el))
		ok = false
	}
	return out, ok
}

func pluralY(n int) string {
	if n == 1 {
		return "y"
	}
	return "ies"
}

func (b *builder) biLoad(c *callCtx) value {
	a, ok := b.arrayArg(c, 0)
	if !ok {
		return poison{}
	}
	idx, idxOK := b.indexArg(c, 1, a)
	shape, shapeOK := b.tileShapeArg(c, 2)
	pad := ir.PadZero
	if c.given(4) {
		m, isPad := c.args[4].v.(padMode)
		if !isPad {
			b.errorf(c.argPos(4), "load: padding_mode must be a ct.PaddingMode member, got %s", describe(c.args[4].v))
			return poison{}
		}
		pad = padModes[string(m)]
	}
	var attrs ir.Attrs
	order, hintsOK := b.memHints(c, a.rank(), &attrs)
	if !idxOK || !shapeOK || !hintsOK {
		return poison{}
	}
	// shape=() loads one element (cuTile's scalar load): the tile of
	// shape (1, ..., 1) at the index (an order still permutes the index),
	// as a rank-0 tile.
	scalarLoad := len(shape) == 0 && a.rank() > 0
	if scalarLoad {
		shape = ones(a.rank())
	}
	if len(shape) != a.rank() {
		return b.fail(c.argPos(2), "load: shape has %d dims but %s has rank %d", len(shape), a.name, a.rank())
	}
	if order != nil {
		// Load the tile in the array's axis order, then permute it.
		ashape := make([]int, len(shape))
		aidx := make([]*ir.Value, len(idx))
		for k, ax := range order {
			ashape[ax], aidx[ax] = shape[k], idx[k]
		}
		shape, idx = ashape, aidx
	}
	if pad == ir.PadNaN && !a.dtype().IsFloat() {
		return b.fail(c.argPos(4), "load: padding_mode NAN has no value in %s (%s's dtype); integers pad with ZERO, NEG_INF (the minimum) or POS_INF (the maximum)", a.dtype(), a.name)
	}
	var t *ir.Value
	if hasTileIndex(idx) {
		pv, ok := padValue(a.dtype(), pad)
		if !ok {
			return poison{} // NAN on integers: refused above
		}
		gattrs := gatherAttrs(attrs)
		padV := b.coerce(c.pos, pv, a.dtype(), shape, true)
		t = b.emitInferred(c.pos, ir.OpGather, gattrs, append(append([]*ir.Value{a.v}, b.elementIndices(c.pos, idx, shape)...), padV)...)
	} else {
		attrs.Set(ir.AttrKeyPad, pad)
		t = b.emitAttrs(c.pos, ir.OpLoad, ir.TileOf(a.dtype(), shape...), attrs, append([]*ir.Value{a.v}, idx...)...)
	}
	if scalarLoad {
		return b.reshape(c.pos, t, []int{})
	}
	if order != nil {
		return b.permuteTile(c.pos, t, order)
	}
	return t
}

// ones is the shape (1, ..., 1) of rank n.
func ones(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = 1
	}
	return s
}

// permuteTile emits t permuted: result axis k is t's axis perm[k].
func (b *builder) permuteTile(pos lang.Pos, t *ir.Value, perm []int) *ir.Value {
	var attrs ir.Attrs
	attrs.Set(ir.AttrKeyPerm, append([]int(nil), perm...))
	return b.emitInferred(pos, ir.OpPermute, attrs, t)
}

func (b *builder) biStore(c *callCtx) value {
	a, ok := b.arrayArg(c, 0)
	if !ok {
		return poison{}
	}
	idx, idxOK := b.indexArg(c, 1, a)
	x, t, ok := b.storedTile(c, a)
	var attrs ir.Attrs
	order, hintsOK := b.memHints(c, a.rank(), &attrs)
	if !hintsOK || !ok || !idxOK {
		return poison{}
	}
	if t.Rank() != a.rank() {
		return b.fail(c.argPos(2), "store: tile is %s (rank %d) but %s has rank %d", t, t.Rank(), a.name, a.rank())
	}
	if t.DType != a.dtype() {
		// cuTile's implicit cast: a dtype that promotes to the array's
		// (i32 into i64, f16 into f32, an integer into a float) converts.
		if p, err := promote(t.DType, a.dtype()); err != nil || p != a.dtype() {
			return b.fail(c.argPos(2), "store: tile is %s but %s holds %s; use ct.astype", t.DType, a.name, a.dtype())
		}
		x = b.convert(c.pos, x, a.dtype())
	}
	if order != nil {
		// Permute the tile into the array's axis order: its axis order[k]
		// is the tile's axis k.
		inv := make([]int, len(order))
		aidx := make([]*ir.Value, len(idx))
		for k, ax := range order {
			inv[ax], aidx[ax] = k, idx[k]
		}
		x, idx = b.permuteTile(c.pos, x, inv), aidx
	}
	if hasTileIndex(idx) {
		shape := x.Type.(*ir.Tile).Shape
		b.emitAttrs(c.pos, ir.OpScatter, nil, gatherAttrs(attrs), append(append([]*ir.Value{a.v}, b.elementIndices(c.pos, idx, shape)...), x)...)
		return noneVal{}
	}
	b.emitAttrs(c.pos, ir.OpStore, nil, attrs, append(append([]*ir.Value{a.v}, idx...), x)...)
	return noneVal{}
}

// hasTileIndex reports whether a load/store index holds a rank-0 tile. The
// ops load and store take scalar indices, and the IR has no op that makes
// a scalar of a rank-0 tile, so such an access is built as the gather or
// scatter of the same elements (elementIndices): the same values and the
// same padding and dropping out of bounds, on every backend, without the
// tile paths (TMA, vector loads) that the GPU takes for load and store.
func hasTileIndex(idx []*ir.Value) bool {
	for _, x := range idx {
		if _, isTile := x.Type.(*ir.Tile); isTile {
			return true
		}
	}
	return false
}

// elementIndices are the element indices, one tile of the given shape per
// array axis (both in the array's axis order), of the tile at tile index
// idx: along axis d, idx[d]*shape[d] + (0, 1, ..., shape[d]-1).
func (b *builder) elementIndices(pos lang.Pos, idx []*ir.Value, shape []int) []*ir.Value {
	return b.stridedIndices(pos, idx, shape, shape)
}

// gatherAttrs are the attributes of the gather or scatter that stands for
// a load or store (hasTileIndex): bounds checked (out of bounds pads or is
// dropped, as for load and store), and the latency hint if given.
func gatherAttrs(attrs ir.Attrs) ir.Attrs {
	var out ir.Attrs
	out.Set("check_bounds", true)
	if l := attrs.Get(ir.AttrKeyLatency); l != nil {
		out.Set("latency", l)
	}
	return out
}

// storedTile reads store's tile argument. As in cuTile, a scalar is a
// rank-0 tile, and a rank-0 tile stores one element: it is stored as the
// tile of shape (1, ..., 1) at the index. A compile-time number takes the
// array's dtype; a run-time scalar keeps its own (a dtype other than the
// array's is the caller's error, as for any tile).
func (b *builder) storedTile(c *callCtx, a *arrayVal) (*ir.Value, *ir.Tile, bool) {
	v := c.args[2].v
	var x *ir.Value
	switch v := v.(type) {
	case int64, float64, bool:
		d := a.dtype()
		if f, isFloat := v.(float64); isFloat && !d.IsFloat() {
			b.errorf(c.argPos(2), "store: the float constant %s does not fit %s's dtype %s", formatConst(f), a.name, d)
			return nil, nil, false
		}
		if n, isInt := v.(int64); isInt && d.IsInt() && ir.WrapInt(d, n) != n {
			b.errorf(c.argPos(2), "store: integer constant %d is out of range of %s (%s's dtype)", n, d, a.name)
			return nil, nil, false
		}
		x = b.constant(c.pos, v, d)
	case *ir.Value:
		x = v
	}
	if x == nil || a.rank() == 0 {
		return b.tileArg(c, 2, "tile")
	}
	switch t := x.Type.(type) {
	case *ir.Scalar:
		x = b.emit(c.pos, ir.OpSplat, ir.TileOf(t.DType, ones(a.rank())...), x)
	case *ir.Tile:
		if t.Rank() != 0 {
			return x, t, true
		}
		x = b.reshape(c.pos, x, ones(a.rank()))
	}
	return x, x.Type.(*ir.Tile), true
}

// ---- constructors ----

// biFull is full, zeros and ones: a const splat to the shape.
func (b *builder) biFull(c *callCtx, fill arg) value {
	shape, ok := b.tileShapeArg(c, 0)
	dt, dtOK := b.dtypeArg(c, len(c.args)-1, ir.F32)
	if !ok || !dtOK {
		return poison{}
	}
	var s *ir.Value
	switch x := fill.v.(type) {
	case int64, float64, bool:
		s = b.constant(c.pos, x, dt)
	case *ir.Value:
		if _, isScalar := x.Type.(*ir.Scalar); isScalar {
			s = b.convert(c.pos, x, dt)
		} else if t, isTile := x.Type.(*ir.Tile); isTile && t.Rank() == 0 {
			// A rank-0 tile fill (cuTile's scalars are rank-0 tiles):
			// broadcast to the shape in the requested dtype.
			return b.broadcastTo(c.pos, b.convert(c.pos, x, dt), shape)
		}
	}
	if s == nil {
		pos := c.pos
		if fill.e != nil {
			pos = fill.e.Position()
		}
		return b.fail(pos, "%s: value must be a scalar, got %s", c.name, describe(fill.v))
	}
	return b.emit(c.pos, ir.OpSplat, ir.TileOf(dt, shape...), s)
}

func (b *builder) biArange(c *callCtx) value {
	if !c.given(1) {
		b.extension(c.pos, "ct.arange without dtype=", "cuTile requires it, ct.arange(n, dtype=ct.int32)")
	}
	n, ok := b.intArg(c, 0, "n")
	if !ok {
		return poison{}
	}
	dt, ok := b.dtypeArg(c, 1, ir.I32)
	if !ok {
		return poison{}
	}
	if !isPow2(n) {
		b.rootErrorf(c.args[0].e, c.argPos(0), "arange: n must be a power of two, got %d", n)
		return poison{}
	}
	if n > maxTileElems {
		return b.fail(c.argPos(0), "arange: n = %d is too large (at most 2^24)", n)
	}
	if dt == ir.Bool {
		return b.fail(c.argPos(1), "arange: dtype must be numeric, got bool")
	}
	it := ir.I32
	if dt == ir.I64 {
		it = ir.I64
	}
	v := b.emit(c.pos, ir.OpIota, ir.TileOf(it, int(n)))
	return b.convert(c.pos, v, dt)
}

func (b *builder) biAstype(c *callCtx) value {
	dt, ok := b.dtypeArg(c, 1, ir.InvalidDType)
	if !ok || !b.astypeRounding(c, dt) {
		return poison{}
	}
	switch x := c.args[0].v.(type) {
	case int64, float64, bool:
		return b.constant(c.pos, x, dt)
	case *ir.Value:
		if isRuntime(x) {
			if dt == ir.F8E8M0 && x.Type.Elem() != dt {
				return b.fail(c.pos, "astype: conversion from %s to float8_e8m0fnu is not supported yet (cuTile rounds it toward zero or up, rounding_mode=RZ or RP, and tilec has only RN)", x.Type.Elem())
			}
			return b.convert(c.pos, x, dt)
		}
	}
	return b.fail(c.argPos(0), "astype: x must be a tile or a scalar, got %s", describe(c.args[0].v))
}

// astypeRounding checks astype's rounding_mode: None, or RN where tilec
// rounds to nearest even (to a float dtype); float to integer truncates
// toward zero (cuTile's default), so RN there, and the other modes, are
// not supported yet.
func (b *builder) astypeRounding(c *callCtx, dt ir.DType) bool {
	if !c.given(2) {
		return true
	}
	switch v := c.args[2].v.(type) {
	case noneVal:
		return true
	case enumVal:
		if v.ns != nsRoundingMode {
			break
		}
		if v.member == "RN" && dt.IsFloat() {
			return true
		}
		b.errorf(c.argPos(2), "astype: rounding_mode=%s to %s is not supported yet (RN to a float dtype is: tilec rounds to nearest even, and truncates a float to an integer)", exprTextOf(c, 2), dt)
		return false
	}
	b.errorf(c.argPos(2), "astype: rounding_mode is a ct.RoundingMode, got %s", describe(c.args[2].v))
	return false
}

// ---- mma and matmul ----

// mmaInputs checks the a and b operands of mma or matmul.
func (b *builder) mmaInputs(pos lang.Pos, name string, x, y value) (*ir.Value, *ir.Value, *ir.Tile, *ir.Tile, bool) {
	xv, xok := x.(*ir.Value)
	yv, yok := y.(*ir.Value)
	var xt, yt *ir.Tile
	if xok {
		xt, xok = xv.Type.(*ir.Tile)
	}
	if yok {
		yt, yok = yv.Type.(*ir.Tile)
	}
	if !xok || !yok {
		bad, what := x, "a"
		if xok {
			bad, what = y, "b"
		}
		b.errorf(pos, "%s: %s must be a tile, got %s", name, what, describe(bad))
		return nil, nil, nil, nil, false
	}
	r := xt.Rank()
	switch {
	case r != 2 && r != 3:
		b.errorf(pos, "%s: a is %s: operands must be 2-D tiles (3-D when batched)", name, xt)
	case yt.Rank() != r:
		b.errorf(pos, "%s: a is %s but b is %s: ranks differ", name, xt, yt)
	case r == 3 && xt.Shape[0] != yt.Shape[0]:
		b.errorf(pos, "%s: a is %s but b is %s: batch dimensions %d and %d differ", name, xt, yt, xt.Shape[0], yt.Shape[0])
	case xt.Shape[r-1] != yt.Shape[r-2]:
		b.errorf(pos, "%s: a is %s but b is %s: inner dimensions %d and %d differ", name, xt, yt, xt.Shape[r-1], yt.Shape[r-2])
	case xt.DType != yt.DType && !(isF32ish(xt.DType) && isF32ish(yt.DType)) && !(xt.DType.IsFloat8() && yt.DType.IsFloat8()) &&
		!(name == "mma" && xt.DType.IsByteInt() && yt.DType.IsByteInt()):
		// mma takes int8 with uint8 (cuTile's one mix of integer
		// inputs); matmul promotes its inputs, and cuTile has no
		// promotion of int8 and uint8.
		b.errorf(pos, "%s: a is %s but b is %s: input dtypes differ; use ct.astype", name, xt, yt)
	case !xt.DType.IsFloat() && !xt.DType.IsByteInt():
		b.errorf(pos, "%s: %s inputs are not supported (use f16, bf16, f32, tf32, f64, float8, int8 or uint8)", name, xt.DType)
	default:
		return xv, yv, xt, yt, true
	}
	return nil, nil, nil, nil, false
}

func isF32ish(d ir.DType) bool { return d == ir.F32 || d == ir.TF32 }

// mmaShape is the shape of a@b.
func mmaShape(xt, yt *ir.Tile) []int {
	r := xt.Rank()
	shape := append([]int(nil), xt.Shape[:r-1]...)
	return append(shape, yt.Shape[r-1])
}

func (b *builder) biMMA(c *callCtx) value {
	xv, yv, xt, yt, ok := b.mmaInputs(c.pos, "mma", c.args[0].v, c.args[1].v)
	if !ok {
		return poison{}
	}
	acc, at, ok := b.tileArg(c, 2, "acc")
	if !ok {
		return poison{}
	}
	want := mmaShape(xt, yt)
	if !slices.Equal(at.Shape, want) {
		return b.fail(c.argPos(2), "mma: acc is %s but a@b is %s (a is %s, b is %s)", at, shapeString(want), xt, yt)
	}
	in := xt.DType
	good := false
	var allowed string
	switch {
	case in == ir.F16:
		good, allowed = at.DType == ir.F32 || at.DType == ir.F16, "f32 or f16"
	case in == ir.BF16:
		good, allowed = at.DType == ir.F32, "f32"
	case isF32ish(in):
		good, allowed = at.DType == ir.F32, "f32"
	case in == ir.F64:
		good, allowed = at.DType == ir.F64, "f64"
	case in.IsFloat8():
		good, allowed = at.DType == ir.F32 || at.DType == ir.F16, "f32 or f16"
	case in.IsByteInt():
		good, allowed = at.DType == ir.I32, "i32"
	}
	if allowed == "" {
		return b.fail(c.argPos(0), "mma: %s inputs are not supported (mma takes float16, bfloat16, float8_e4m3fn, float8_e5m2, tfloat32, float32, float64, int8 or uint8 tiles)", in)
	}
	if !good {
		return b.fail(c.argPos(2), "mma: %s inputs accumulate in %s, not %s", in, allowed, at.DType)
	}
	var attrs ir.Attrs
	if flag(c, 3) && in.IsFloat8() {
		// Only float8 has a reduced-precision accumulation to allow.
		attrs.Set(ir.AttrKeyFastAcc, true)
	}
	return b.emitInferred(c.pos, ir.OpMMA, attrs, xv, yv, acc)
}

// matmul is a@b in the inputs' dtype: an mma into a zero accumulator
// (f32, f64 for f64 inputs, i32 for int8 and uint8), converted back.
func (b *builder) matmul(pos lang.Pos, name string, x, y value) value {
	if isPoison(x, y) {
		return poison{}
	}
	x, y = b.matmulBatch(pos, x, y)
	xv, yv, xt, yt, ok := b.mmaInputs(pos, name, x, y)
	if !ok {
		return poison{}
	}
	accDT := ir.F32
	switch {
	case xt.DType == ir.F64:
		accDT = ir.F64
	case xt.DType.IsByteInt():
		// cuTile's matmul of int8 (or uint8) tiles: the int32 product
		// converted back, wrapping to the inputs' width.
		accDT = ir.I32
	}
	resDT := xt.DType
	if isF32ish(resDT) {
		resDT = ir.F32
	}
	shape := mmaShape(xt, yt)
	zero := b.emit(pos, ir.OpSplat, ir.TileOf(accDT, shape...), b.constant(pos, 0.0, accDT))
	r := b.emitInferred(pos, ir.OpMMA, nil, xv, yv, zero)
	return b.convert(pos, r, resDT)
}

// matmulBatch broadcasts the batch dimension of matmul's operands as
// numpy's matmul does: (1, M, K) @ (B, K, N) and (M, K) @ (B, K, N) are B
// products. Operands it does not apply to are returned as they are (and
// mmaInputs reports what is wrong with them).
func (b *builder) matmulBatch(pos lang.Pos, x, y value) (value, value) {
	xv, xok := x.(*ir.Value)
	yv, yok := y.(*ir.Value)
	if !xok || !yok {
		return x, y
	}
	xt, xok := xv.Type.(*ir.Tile)
	yt, yok := yv.Type.(*ir.Tile)
	if !xok || !yok || xt.Rank() < 2 || yt.Rank() < 2 || xt.Rank() > 3 || yt.Rank() > 3 || xt.Rank()+yt.Rank() == 4 {
		return x, y
	}
	batch := func(t *ir.Tile) int {
		if t.Rank() == 3 {
			return t.Shape[0]
		}
		return 1
	}
	bx, by := batch(xt), batch(yt)
	if bx != by && bx != 1 && by != 1 {
		return x, y // batch dims that do not broadcast: mmaInputs says so
	}
	n := max(bx, by)
	widen := func(v *ir.Value, t *ir.Tile) *ir.Value {
		r := t.Rank()
		return b.broadcastTo(pos, v, []int{n, t.Shape[r-2], t.Shape[r-1]})
	}
	return widen(xv, xt), widen(yv, yt)
}

// ---- elementwise ----

// mathOp is exp, exp2, log, sqrt, rsqrt, tanh (floats; ints convert to f32) and abs.
func (b *builder) mathOp(pos lang.Pos, name string, op ir.Op, x value) value {
	if isPoison(x) {
		return x
	}
	if isNumber(x) {
		if i, ok := x.(int64); ok && name == "abs" && i == math.MinInt64 {
			return b.fail(pos, "%v", &overflowError{op: "abs", x: i, un: true})
		}
		v, _ := foldMath(name, x)
		return v
	}
	if !isRuntime(x) {
		return b.fail(pos, "%s: x must be a number or a tile, got %s", name, describe(x))
	}
	if b.scaleOperand(pos, name, x) {
		return poison{}
	}
	v := x.(*ir.Value)
	dt := v.Type.Elem()
	if op == ir.OpAbs {
		if dt == ir.Bool {
			v = b.convert(pos, v, ir.I32)
		}
	} else if !dt.IsFloat() {
		v = b.convert(pos, v, ir.F32)
	}
	return b.emitInferred(pos, op, nil, v)
}

// minmax is elementwise min or max with broadcasting (folded on numbers).
func (b *builder) minmax(pos lang.Pos, name string, op ir.Op, x, y value, propNaN bool) value {
	if isPoison(x, y) {
		return poison{}
	}
	if xf, ok := x.(float64); ok && name != "min" && name != "max" {
		if yf, ok := y.(float64); ok {
			// ct.minimum and ct.maximum fold as the min and max ops
			// compute: NaN ignored unless propNaN (then NaN wins); -0 < +0.
			switch {
			case propNaN:
				r, _ := ir.EvalFloatBinary(op, xf, yf)
				return r
			case op == ir.OpMax:
				return scalar.MaxFloatNum(xf, yf)
			}
			return scalar.MinFloatNum(xf, yf)
		}
	}
	if isNumber(x) && isNumber(y) {
		less, _ := foldBinary("<", y, x)
		if (op == ir.OpMin) == less.(bool) {
			return y
		}
		return x
	}
	dt, shape, isTile, ok := b.commonType(pos, name, x, y)
	if !ok {
		return poison{}
	}
	if dt == ir.Bool {
		dt = ir.I32
	}
	return b.emitInferred(pos, op, nil, b.coerce(pos, x, dt, shape, isTile), b.coerce(pos, y, dt, shape, isTile))
}

func (b *builder) biWhere(c *callCtx) value {
	cond, x, y := c.args[0].v, c.args[1].v, c.args[2].v
	if isConstVal(cond) {
		t, ok := truthy(cond)
		if !ok {
			return b.fail(c.argPos(0), "where: cond must be bool, got %s", describe(cond))
		}
		// A static condition still gives the broadcast shape and dtype of both.
		dt, shape, isTile, ok := b.commonType(c.pos, "where", x, y)
		if !ok {
			return poison{}
		}
		if isNumber(x) && isNumber(y) {
			if t {
				return x
			}
			return y
		}
		if t {
			return b.coerce(c.pos, x, dt, shape, isTile)
		}
		return b.coerce(c.pos, y, dt, shape, isTile)
	}
	cv, ok := cond.(*ir.Value)
	if !ok || !isRuntime(cv) {
		return b.fail(c.argPos(0), "where: cond must be a bool tile or scalar, got %s", describe(cond))
	}
	if cv.Type.Elem() != ir.Bool {
		return b.fail(c.argPos(0), "where: cond must be bool, got %s (compare it, e.g. x > 0)", cv.Type)
	}
	return b.selectValues(c.pos, "where", cv, x, y)
}

// ---- reductions and shape ops ----

func (b *builder) biReduce(c *callCtx, kind string) value {
	x, t, ok := b.tileArg(c, 0, "x")
	if !ok || b.scaleOperand(c.argPos(0), c.name, x) {
		return poison{}
	}
	keep := false
	if c.given(2) {
		k, isBool := c.args[2].v.(bool)
		if !isBool {
			return b.fail(c.argPos(2), "%s: keepdims must be True or False, got %s", c.name, describe(c.args[2].v))
		}
		keep = k
	}
	if t.Rank() == 0 {
		return b.fail(c.argPos(0), "%s: cannot reduce a rank-0 %s", c.name, t)
	}
	if (kind == ir.ReduceSum || kind == ir.ReduceMax || kind == ir.ReduceMin) && t.DType == ir.Bool {
		x = b.convert(c.pos, x, ir.I32)
		t = x.Type.(*ir.Tile)
	}
	axis := 0
	if _, isNone := c.args[1].v.(noneVal); isNone || !c.given(1) {
		// Reduce everything: flatten, then reduce the one axis.
		x = b.reshape(c.pos, x, []int{t.NumElements()})
	} else {
		axis, ok = b.axisArg(c, 1, t.Rank(), t)
		if !ok {
			return poison{}
		}
	}
	xt := x.Type.(*ir.Tile)
	var attrs ir.Attrs
	attrs.Set(ir.AttrKeyAxis, axis)
	attrs.Set(ir.AttrKeyKind, kind)
	r := b.emitInferred(c.pos, ir.OpReduce, attrs, x)
	if keep {
		kept := make([]int, t.Rank())
		if xt.Rank() == t.Rank() {
			copy(kept, t.Shape)
			kept[axis] = 1
		} else {
			for i := range kept {
				kept[i] = 1
			}
		}
		r = b.reshape(c.pos, r, kept)
	}
	return r
}

func (b *builder) biReshape(c *callCtx) value {
	x, t, ok := b.tileArg(c, 0, "x")
	if !ok {
		return poison{}
	}
	dims, poss, ok := b.intsArg(c, 1, "tile shape")
	if !ok {
		return poison{}
	}
	// One -1 takes the remaining extent, as in numpy.
	infer := -1
	known := int64(1)
	for j, d := range dims {
		switch {
		case d == -1 && infer < 0:
			infer = j
		case d <= 0:
			return b.fail(poss[j], "reshape: dimension %d is not positive", d)
		default:
			if known > maxTileElems {
				continue
			}
			known *= d
		}
	}
	n := int64(t.NumElements())
	if infer >= 0 && known > 0 && n%known == 0 {
		dims[infer] = n / known
		known = n
	}
	if known != n {
		return b.fail(c.argPos(1), "reshape: cannot reshape %s (%d elements) to %s (%d elements)", t, n, formatDims(dims), known)
	}
	shape, ok := b.checkTileShape(dims, poss, nil, c.argPos(1))
	if !ok {
		return poison{}
	}
	return b.reshape(c.pos, x, shape)
}

func formatDims(dims []int64) string {
	parts := make([]string, len(dims))
	for i, d := range dims {
		parts[i] = strconv.FormatInt(d, 10)
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

func (b *builder) biPermute(c *callCtx) value {
	x, t, ok := b.tileArg(c, 0, "x")
	if !ok {
		return poison{}
	}
	axes, _, ok := b.intsArg(c, 1, "axes")
	if !ok {
		return poison{}
	}
	perm := make([]int, len(axes))
	seen := make([]bool, t.Rank())
	good := len(axes) == t.Rank()
	for i, a := range axes {
		if !good {
			break
		}
		if a < 0 {
			a += int64(t.Rank())
		}
		if a < 0 || a >= int64(t.Rank()) || seen[a] {
			good = false
			break
		}
		seen[a] = true
		perm[i] = int(a)
	}
	if !good {
		return b.fail(c.argPos(1), "permute: axes %s are not a permutation of 0..%d for %s", formatDims(axes), t.Rank()-1, t)
	}
	return b.permute(c.pos, x, perm)
}

func (b *builder) biTranspose(c *callCtx) value {
	x, t, ok := b.tileArg(c, 0, "x")
	if !ok {
		return poison{}
	}
	r := t.Rank()
	perm := make([]int, r)
	for i := range perm {
		perm[i] = r - 1 - i
	}
	if c.given(1) || c.given(2) {
		if !c.given(1) || !c.given(2) {
			return b.fail(c.pos, "transpose: give both axis0 and axis1, or neither")
		}
		a0, ok0 := b.axisArg(c, 1, r, t)
		a1, ok1 := b.axisArg(c, 2, r, t)
		if !ok0 || !ok1 {
			return poison{}
		}
		for i := range perm {
			perm[i] = i
		}
		perm[a0], perm[a1] = a1, a0
	}
	return b.permute(c.pos, x, perm)
}

func (b *builder) biExpandDims(c *callCtx) value {
	x, ok := c.args[0].v.(*ir.Value)
	if !ok || !isRuntime(x) {
		return b.fail(c.argPos(0), "expand_dims: x must be a tile, got %s", describe(c.args[0].v))
	}
	if _, isScalar := x.Type.(*ir.Scalar); isScalar {
		x = b.emit(c.pos, ir.OpSplat, ir.TileOf(x.Type.Elem()), x)
	}
	t := x.Type.(*ir.Tile)
	n, ok := b.intArg(c, 1, "axis")
	if !ok {
		return poison{}
	}
	r := int64(t.Rank())
	if n < -r-1 || n > r {
		return b.fail(c.argPos(1), "expand_dims: axis %d is out of range for %s", n, t)
	}
	if n < 0 {
		n += r + 1
	}
	shape := append(append(append([]int(nil), t.Shape[:n]...), 1), t.Shape[n:]...)
	return b.emit(c.pos, ir.OpReshape, ir.TileOf(t.DType, shape...), x)
}

func (b *builder) biBroadcastTo(c *callCtx) value {
	shape, ok := b.tileShapeArg(c, 1)
	if !ok {
		return poison{}
	}
	switch x := c.args[0].v.(type) {
	case int64, float64, bool:
		return b.emit(c.pos, ir.OpSplat, ir.TileOf(weakDType(x), shape...), b.constant(c.pos, x, weakDType(x)))
	case *ir.Value:
		switch t := x.Type.(type) {
		case *ir.Scalar:
			return b.broadcastTo(c.pos, x, shape)
		case *ir.Tile:
			s, ok := BroadcastShapes(t.Shape, shape)
			if !ok || !slices.Equal(s, shape) {
				return b.fail(c.argPos(1), "broadcast_to: cannot broadcast %s to %s", t, shapeString(shape))
			}
			return b.broadcastTo(c.pos, x, shape)
		}
	}
	return b.fail(c.argPos(0), "broadcast_to: x must be a tile or a scalar, got %s", describe(c.args[0].v))
}

func (b *builder) biStaticAssert(c *callCtx) value {
	cond := c.args[0].v
	if !isConstVal(cond) {
		return b.fail(c.argPos(0), "static_assert: condition must be a compile-time constant")
	}
	t, _ := truthy(cond)
	msg := ""
	if c.given(1) {
		s, ok := c.args[1].v.(string)
		if !ok {
			return b.fail(c.argPos(1), "static_assert: msg must be a string, got %s", describe(c.args[1].v))
		}
		msg = s
	}
	if !t {
		if msg == "" {
			return b.fail(c.pos, "static assertion failed")
		}
		return b.fail(c.pos, "static assertion failed: %s", msg)
	}
	return noneVal{}
}

// ---- Python builtins ----

var pySigs = map[string][]sigParam{
	"abs":   {{name: "x"}},
	"int":   {{name: "x"}},
	"float": {{name: "x"}},
	"bool":  {{name: "x"}},
	"len":   {{name: "x"}},
}

func (b *builder) callPy(name string, e *lang.Call, pos []arg, kws []kwArg) value {
	switch name {
	case "range", "enumerate", "zip":
		if b.staticIterable > 0 {
			switch name {
			case "range":
				return b.staticRange(e, pos, kws)
			case "enumerate":
				return b.staticEnumerate(e, pos, kws)
			}
			return b.staticZip(e, pos, kws)
		}
		if name == "range" {
			return b.fail(e.Pos, "range() can only be the iterator of a for loop")
		}
		return b.fail(e.Pos, "%s() can only be used in the iterable of a ct.static_iter loop", name)
	case "print":
		return b.biPrint("print", e, pos, kws)
	case lang.FStringFunc:
		return b.biFString(e, pos)
	case "min", "max":
		if len(kws) > 0 {
			return b.fail(kws[0].pos, "%s() takes no keyword arguments", name)
		}
		vals := make([]value, len(pos))
		for i, a := range pos {
			vals[i] = a.v
		}
		if len(vals) == 1 {
			if t, ok := vals[0].(tuple); ok {
				vals = t
			}
		}
		if len(vals) < 2 {
			return b.fail(e.Pos, "%s() needs at least 2 arguments", name)
		}
		op := ir.OpMin
		if name == "max" {
			op = ir.OpMax
		}
		r := vals[0]
		for _, v := range vals[1:] {
			r = b.minmax(e.Pos, name, op, r, v, false)
		}
		return r
	}
	args, ok := b.bindArgs(name, pySigs[name], e.Pos, pos, kws)
	if !ok || isPoison(args[0].v) {
		return poison{}
	}
	x := args[0].v
	p := args[0].e.Position()
	switch name {
	case "abs":
		return b.mathOp(e.Pos, "abs", ir.OpAbs, x)
	case "len":
		switch x := x.(type) {
		case tuple:
			return int64(len(x))
		case *listVal:
			// cuTile's len() of a list is its run-time length (an i32).
			return b.emit(p, ir.OpListLen, ir.ScalarOf(ir.I32), x.p.Value)
		case *ir.Value:
			if t, ok := x.Type.(*ir.Tile); ok && t.Rank() > 0 {
				return int64(t.Shape[0])
			}
		}
		return b.fail(p, "len() of %s", describe(x))
	case "int", "float", "bool":
		switch x := x.(type) {
		case int64, float64, bool:
			switch name {
			case "int":
				if f, ok := x.(float64); ok {
					switch {
					case math.IsNaN(f):
						return b.fail(p, "int(nan): cannot convert float NaN to integer")
					case f >= 1<<63 || f < -(1<<63):
						return b.fail(p, "integer overflow: int(%g) does not fit in 64 bits (compile-time ints are int64)", f)
					}
				}
				return toInt(x)
			case "float":
				return toFloat(x)
			}
			t, _ := truthy(x)
			return t
		case string:
			if name == "float" {
				switch strings.ToLower(strings.TrimSpace(x)) {
				case "inf", "+inf", "infinity":
					return math.Inf(1)
				case "-inf", "-infinity":
					return math.Inf(-1)
				case "nan":
					return math.NaN()
				}
				if f, err := strconv.ParseFloat(x, 64); err == nil {
					return f
				}
			}
			if name == "int" {
				if n, err := strconv.ParseInt(strings.TrimSpace(x), 10, 64); err == nil {
					return n
				}
			}
			return b.fail(p, "%s(): cannot convert %s", name, strconv.Quote(x))
		case *ir.Value:
			if isRuntime(x) {
				if _, isScalar := x.Type.(*ir.Scalar); isScalar {
					switch name {
					case "int":
						if x.Type.Elem().IsInt() {
							return x
						}
						return b.convert(e.Pos, x, ir.I32)
					case "float":
						if x.Type.Elem().IsFloat() {
							return x
						}
						return b.convert(e.Pos, x, ir.F32)
					}
					return b.toBool(e.Pos, x)
				}
			}
		}
		return b.fail(p, "%s() of %s", name, describe(x))
	}
	return b.fail(e.Pos, "%s is not supported", name)
}

// ---- issue 10: cuTile 1.6's remaining operations ----

func init() {
	def := func(sig string, fn func(b *builder, c *callCtx) value) {
		name, params := parseSig(sig)
		ctBuiltins[name] = &builtinSpec{params: params, fn: fn}
	}
	// Function forms of the operators.
	for name, op := range map[string]string{"add": "+", "sub": "-", "mul": "*", "truediv": "/"} {
		def(name+"(x, y, rounding_mode=None, flush_to_zero=False)", func(b *builder, c *callCtx) value {
			if !b.plainNumerics(c, 2, 3) {
				return poison{}
			}
			return b.flushToZero(c, 3, b.binop(c.pos, op, c.args[0].v, c.args[1].v))
		})
	}
	for name, op := range map[string]string{"floordiv": "//", "mod": "%", "pow": "**",
		"greater": ">", "greater_equal": ">=", "less": "<", "less_equal": "<=", "equal": "==", "not_equal": "!=",
		"bitwise_and": "&", "bitwise_or": "|", "bitwise_xor": "^", "bitwise_lshift": "<<", "bitwise_rshift": ">>"} {
		def(name+"(x, y)", func(b *builder, c *callCtx) value { return b.binop(c.pos, op, c.args[0].v, c.args[1].v) })
	}
	def("bitwise_not(x)", func(b *builder, c *callCtx) value { return b.unop(c.pos, "~", c.args[0].v) })
	def("negative(x)", func(b *builder, c *callCtx) value { return b.unop(c.pos, "-", c.args[0].v) })
	def("divmod(x, y)", func(b *builder, c *callCtx) value {
		return tuple{b.binop(c.pos, "//", c.args[0].v, c.args[1].v), b.binop(c.pos, "%", c.args[0].v, c.args[1].v)}
	})
	// Programmatic dependent launch lets a kernel start while the one
	// before it in the stream still runs. tilec launches a stream's
	// kernels one after the other, so the wait for the previous grid has
	// already happened and there are no early dependents to release: both
	// are no-ops, which is correct without PDL (only slower).
	for _, name := range []string{"grid_dependency_control_wait", "grid_dependency_control_launch_dependents"} {
		def(name+"()", func(b *builder, c *callCtx) value { return noneVal{} })
	}
	// Math.
	for name, op := range map[string]ir.Op{"sin": ir.OpSin, "cos": ir.OpCos, "tan": ir.OpTan, "sinh": ir.OpSinh, "cosh": ir.OpCosh,
		"floor": ir.OpFloor, "ceil": ir.OpCeil, "log2": ir.OpLog2} {
		def(name+"(x)", func(b *builder, c *callCtx) value { return b.floatUnary(c.pos, c.name, op, c.args[0].v) })
	}
	def("atan2(x1, x2)", (*builder).biAtan2)
	def("isnan(x)", (*builder).biIsNaN)
	// Reductions and scans.
	def("prod(x, axis=None, keepdims=False, rounding_mode=None, flush_to_zero=False)", func(b *builder, c *callCtx) value {
		if !b.plainNumerics(c, 3, 4) {
			return poison{}
		}
		return b.biReduce(c, ir.ReduceProd)
	})
	def("cumsum(x, axis=0, reverse=False, rounding_mode=None, flush_to_zero=False)", func(b *builder, c *callCtx) value { return b.biScan(c, ir.ReduceSum) })
	def("cumprod(x, axis=0, reverse=False, rounding_mode=None, flush_to_zero=False)", func(b *builder, c *callCtx) value { return b.biScan(c, ir.ReduceProd) })
	// Shapes and selection.
	def("cat(tiles, axis)", (*builder).biCat)
	def("extract(x, index, shape)", (*builder).biExtract)
	def("insert(x, index, value)", (*builder).biInsert)
	def("bitcast(x, dtype)", (*builder).biBitcast)
	def("astile(value, dtype)", (*builder).biAstile)
	def("arange(size, dtype=int32, start=0, step=1)", (*builder).biArangeStep)
	// Hints and metaprogramming.
	def("assume_divisible_by(x, divisor)", func(b *builder, c *callCtx) value {
		if _, ok := b.intArg(c, 1, "divisor"); !ok {
			return poison{}
		}
		return c.args[0].v
	})
	def("ensure_constant(value)", func(b *builder, c *callCtx) value {
		if isRuntime(c.args[0].v) {
			return b.fail(c.argPos(0), "ensure_constant: the value is not a compile-time constant")
		}
		return c.args[0].v
	})
	// Reached only through the callee's own evaluation: b.call reports a
	// static_iter call that is not a for loop's iterable before evaluating
	// its argument, and staticFor handles the others.
	def("static_iter(iterable)", func(b *builder, c *callCtx) value {
		return b.fail(c.pos, "ct.static_iter is only allowed as the iterable of a for loop")
	})
	def("static_eval(expr)", func(b *builder, c *callCtx) value {
		if isRuntime(c.args[0].v) {
			return b.fail(c.argPos(0), "static_eval: the expression is not a compile-time value")
		}
		return c.args[0].v
	})
}

// boolArgOK checks that argument i, when given, is True or False.
func (b *builder) boolArgOK(c *callCtx, i int, what string) bool {
	if c.given(i) {
		if _, ok := c.args[i].v.(bool); !ok {
			b.errorf(c.argPos(i), "%s: %s must be True or False, got %s", c.name, what, describe(c.args[i].v))
			return false
		}
	}
	return true
}

// flag is the bool argument i of a call (false when not given; boolArgOK
// has checked its type).
func flag(c *callCtx, i int) bool {
	v, _ := c.args[i].v.(bool)
	return c.given(i) && v
}

// propagateNaN applies a propagate_nan=True argument (index i) to result r
// of min, max (elementwise or reduced), argmin or argmax: the op this call
// emitted (through a keepdims reshape) takes the propagate_nan attribute,
// so that a NaN operand gives NaN (argmin/argmax: the first NaN's index).
// Without it NaN is ignored, cuTile's default. Folded constants are
// minmax's; integer operands have no NaN and are left alone.
func (b *builder) propagateNaN(c *callCtx, i int, r value) value {
	v, ok := r.(*ir.Value)
	if !flag(c, i) || !ok || v.Def == nil {
		return r
	}
	d := v.Def
	if d.Op == ir.OpReshape && d.Args[0].Def != nil {
		d = d.Args[0].Def
	}
	if d.Pos != ir.Pos(c.pos) || !(d.Op == ir.OpMin || d.Op == ir.OpMax || d.Op == ir.OpReduce) {
		return r
	}
	if d.Args[0].Type.Elem().IsFloat() {
		d.Attrs.Set(ir.AttrKeyPropagateNaN, true)
	}
	return r
}

// plainNumerics checks the rounding_mode and flush_to_zero arguments (at
// indices rm and ftz) of the function forms: the defaults (round to nearest
// even, subnormals kept) are what tilec computes; others are not supported
// yet.
func (b *builder) plainNumerics(c *callCtx, rm, ftz int) bool {
	if rm >= 0 && c.given(rm) {
		switch v := c.args[rm].v.(type) {
		case noneVal:
		case enumVal:
			// RN is the default; APPROX and FULL allow a less accurate
			// division, which the correctly rounded one satisfies.
			if v.ns == nsRoundingMode && (v.member == "RN" || v.member == "APPROX" || v.member == "FULL") {
				break
			}
			b.errorf(c.argPos(rm), "%s: rounding_mode=%s is not supported yet (RN, APPROX and FULL are: tilec rounds to nearest even)", c.name, exprTextOf(c, rm))
			return false
		default:
			b.errorf(c.argPos(rm), "%s: rounding_mode is a ct.RoundingMode, got %s", c.name, describe(c.args[rm].v))
			return false
		}
	}
	return ftz < 0 || b.boolArgOK(c, ftz, "flush_to_zero")
}

// exprTextOf is the source text of argument i of a call, for messages.
func exprTextOf(c *callCtx, i int) string {
	if e := c.args[i].e; e != nil {
		return exprText(e)
	}
	return "?"
}

// flushToZero applies a flush_to_zero=True argument (index i) to result r,
// a float32 value: subnormals become zeros of their sign, as cuTile's
// flush_to_zero does. An op with a PTX .ftz form (FTZOp) whose operands
// are float32 too takes the ftz attribute, which flushes its operands and
// its result (the interpreter as PTX does, and on the GPU one instruction:
// ex2.approx.ftz.f32 for exp2). Any other result (a reduction, or an op
// on converted operands) is flushed by a compare and a select. Other
// dtypes are left alone.
func (b *builder) flushToZero(c *callCtx, i int, r value) value {
	if i < 0 || !c.given(i) {
		return r
	}
	if f, _ := c.args[i].v.(bool); !f {
		return r
	}
	v, ok := r.(*ir.Value)
	if !ok || v.Type.Elem() != ir.F32 {
		return r
	}
	// Only the op this call just emitted (the current block's last, at the
	// call's position): an operand handed back unchanged (maximum(x, x))
	// must not have its own op changed.
	if d := v.Def; d != nil && ir.FTZOp(d.Op) && len(d.Results) == 1 && d.Pos == ir.Pos(c.pos) &&
		len(b.cur.Instrs) > 0 && b.cur.Instrs[len(b.cur.Instrs)-1] == d {
		f32 := true
		for _, a := range d.Args {
			f32 = f32 && a.Type.Elem() == ir.F32
		}
		if f32 {
			d.Attrs.Set(ir.AttrKeyFTZ, true)
			return v
		}
	}
	tiny, ok := b.binop(c.pos, "<", b.mathOp(c.pos, "abs", ir.OpAbs, v), 0x1p-126 /* float32's smallest normal */).(*ir.Value)
	if !ok {
		return poison{}
	}
	return b.selectValues(c.pos, "flush_to_zero", tiny, b.binop(c.pos, "*", v, 0.0), v)
}

// floatUnary is sin, cos, tan, sinh, cosh, floor, ceil and log2: float
// tiles and scalars (integers convert to f32), folded on numbers.
func (b *builder) floatUnary(pos lang.Pos, name string, op ir.Op, x value) value {
	if isPoison(x) {
		return x
	}
	if isNumber(x) {
		r, _ := ir.EvalFloatUnary(op, toFloat(x))
		return r
	}
	if !isRuntime(x) {
		return b.fail(pos, "%s: x must be a number or a tile, got %s", name, describe(x))
	}
	if b.scaleOperand(pos, name, x) {
		return poison{}
	}
	v := x.(*ir.Value)
	if !v.Type.Elem().IsFloat() {
		v = b.convert(pos, v, ir.F32)
	}
	return b.emitInferred(pos, op, nil, v)
}

func (b *builder) biAtan2(c *callCtx) value {
	x, y := c.args[0].v, c.args[1].v
	if isPoison(x, y) {
		return poison{}
	}
	if isNumber(x) && isNumber(y) {
		return math.Atan2(toFloat(x), toFloat(y))
	}
	dt, shape, isTile, ok := b.commonType(c.pos, "atan2", x, y)
	if !ok {
		return poison{}
	}
	if !dt.IsFloat() {
		dt = ir.F32
	}
	return b.emitInferred(c.pos, ir.OpAtan2, nil, b.coerce(c.pos, x, dt, shape, isTile), b.coerce(c.pos, y, dt, shape, isTile))
}

func (b *builder) biIsNaN(c *callCtx) value {
	x := c.args[0].v
	if isPoison(x) {
		return x
	}
	if isNumber(x) {
		return math.IsNaN(toFloat(x))
	}
	if !isRuntime(x) {
		return b.fail(c.argPos(0), "isnan: x must be a number or a tile, got %s", describe(x))
	}
	v := x.(*ir.Value)
	if !v.Type.Elem().IsFloat() {
		return b.fail(c.argPos(0), "isnan: x must be a float tile or scalar, got %s", v.Type)
	}
	return b.emitInferred(c.pos, ir.OpIsNaN, nil, v)
}

func (b *builder) biScan(c *callCtx, kind string) value {
	x, t, ok := b.tileArg(c, 0, "x")
	if !ok || b.scaleOperand(c.argPos(0), c.name, x) || !b.plainNumerics(c, 3, 4) {
		return poison{}
	}
	if t.Rank() == 0 {
		return b.fail(c.argPos(0), "%s: cannot scan a rank-0 %s", c.name, t)
	}
	axis := 0
	if c.given(1) {
		if axis, ok = b.axisArg(c, 1, t.Rank(), t); !ok {
			return poison{}
		}
	}
	reverse := false
	if c.given(2) {
		r, isBool := c.args[2].v.(bool)
		if !isBool {
			return b.fail(c.argPos(2), "%s: reverse must be True or False, got %s", c.name, describe(c.args[2].v))
		}
		reverse = r
	}
	if t.DType == ir.Bool {
		x = b.convert(c.pos, x, ir.I32)
	}
	var attrs ir.Attrs
	attrs.Set(ir.AttrKeyAxis, int64(axis))
	attrs.Set(ir.AttrKeyKind, kind)
	if reverse {
		attrs.Set(ir.AttrKeyReverse, true)
	}
	return b.emitInferred(c.pos, ir.OpScan, attrs, x)
}

func (b *builder) biCat(c *callCtx) value {
	tl, ok := c.args[0].v.(tuple)
	if !ok || len(tl) != 2 {
		return b.fail(c.argPos(0), "cat: tiles must be a pair of tiles, got %s", describe(c.args[0].v))
	}
	var ts [2]*ir.Value
	for i, v := range tl {
		x, isVal := v.(*ir.Value)
		if !isVal || !ir.IsTileType(x.Type) {
			return b.fail(c.argPos(0), "cat: tiles must be a pair of tiles, got %s", describe(v))
		}
		ts[i] = x
	}
	if !ir.TypesEqual(ts[0].Type, ts[1].Type) {
		return b.fail(c.argPos(0), "cat: the tiles must have one shape and dtype (%s and %s), as cuTile requires", ts[0].Type, ts[1].Type)
	}
	t := ts[0].Type.(*ir.Tile)
	if t.Rank() == 0 {
		return b.fail(c.argPos(0), "cat: cannot concatenate rank-0 tiles")
	}
	axis, ok := b.axisArg(c, 1, t.Rank(), t)
	if !ok {
		return poison{}
	}
	if int64(t.NumElements())*2 > maxTileElems {
		return b.fail(c.pos, "cat: the result is too large")
	}
	var attrs ir.Attrs
	attrs.Set(ir.AttrKeyAxis, int64(axis))
	return b.emitInferred(c.pos, ir.OpCat, attrs, ts[0], ts[1])
}

// subtileIndex reads extract's and insert's grid index: one compile-time
// or run-time integer per axis.
func (b *builder) subtileIndex(c *callCtx, i int, rank int) ([]*ir.Value, bool) {
	var elems []value
	switch x := c.args[i].v.(type) {
	case tuple:
		elems = x
	default:
		elems = tuple{x}
	}
	if len(elems) != rank {
		b.errorf(c.argPos(i), "%s: index has %d elements for a rank-%d tile", c.name, len(elems), rank)
		return nil, false
	}
	out := make([]*ir.Value, rank)
	for j, e := range elems {
		switch v := e.(type) {
		case int64:
			out[j] = b.constant(c.argPos(i), v, ir.I32)
		case *ir.Value:
			s, ok := v.Type.(*ir.Scalar)
			if !ok || !s.DType.IsInt() {
				b.errorf(c.argPos(i), "%s: index elements must be integers, got %s", c.name, v.Type)
				return nil, false
			}
			out[j] = v
		default:
			b.errorf(c.argPos(i), "%s: index elements must be integers, got %s", c.name, describe(e))
			return nil, false
		}
	}
	return out, true
}

func (b *builder) biExtract(c *callCtx) value {
	x, t, ok := b.tileArg(c, 0, "x")
	if !ok {
		return poison{}
	}
	idx, idxOK := b.subtileIndex(c, 1, t.Rank())
	shape, shapeOK := b.tileShapeArg(c, 2)
	if !idxOK || !shapeOK {
		return poison{}
	}
	// shape=() extracts one element as a rank-0 tile (cuTile's scalar
	// extract): the subtile of shape (1, ..., 1), reshaped.
	scalar := len(shape) == 0 && t.Rank() > 0
	if scalar {
		shape = ones(t.Rank())
	}
	if len(shape) != t.Rank() {
		return b.fail(c.argPos(2), "extract: shape has %d dims for a rank-%d tile", len(shape), t.Rank())
	}
	for i := range shape {
		if t.Shape[i]%shape[i] != 0 {
			return b.fail(c.argPos(2), "extract: shape %s does not divide %s", shapeString(shape), t)
		}
	}
	r := b.emit(c.pos, ir.OpExtract, ir.TileOf(t.DType, shape...), append([]*ir.Value{x}, idx...)...)
	if scalar {
		return b.reshape(c.pos, r, []int{})
	}
	return r
}

func (b *builder) biInsert(c *callCtx) value {
	x, t, ok := b.tileArg(c, 0, "x")
	if !ok {
		return poison{}
	}
	idx, idxOK := b.subtileIndex(c, 1, t.Rank())
	if !idxOK {
		return poison{}
	}
	v := c.args[2].v
	var vt *ir.Tile
	if vv, isVal := v.(*ir.Value); isVal {
		vt, _ = vv.Type.(*ir.Tile)
	}
	unit := ones(t.Rank())
	var val *ir.Value
	switch {
	case vt != nil && vt.Rank() == 0:
		val = b.reshape(c.pos, b.coerce(c.pos, v, t.DType, vt.Shape, true), unit)
	case vt != nil:
		if vt.Rank() != t.Rank() {
			return b.fail(c.argPos(2), "insert: value is %s, want a tile of rank %d", vt, t.Rank())
		}
		for i := range vt.Shape {
			if t.Shape[i]%vt.Shape[i] != 0 {
				return b.fail(c.argPos(2), "insert: %s does not divide %s", vt, t)
			}
		}
		val = b.coerce(c.pos, v, t.DType, vt.Shape, true)
	default:
		if !isNumber(v) && !isRuntime(v) {
			return b.fail(c.argPos(2), "insert: value must be a tile or a scalar, got %s", describe(v))
		}
		val = b.coerce(c.pos, v, t.DType, unit, true)
	}
	if val == nil {
		return poison{}
	}
	return b.emitInferred(c.pos, ir.OpInsert, nil, append([]*ir.Value{x, val}, idx...)...)
}

func (b *builder) biBitcast(c *callCtx) value {
	x := c.args[0].v
	dt, ok := b.dtypeArg(c, 1, ir.InvalidDType)
	if !ok || isPoison(x) {
		return poison{}
	}
	v, isVal := x.(*ir.Value)
	if !isVal || !isRuntime(v) {
		return b.fail(c.argPos(0), "bitcast: x must be a tile or a run-time scalar, got %s", describe(x))
	}
	from := v.Type.Elem()
	if from == ir.Bool || dt == ir.Bool || from.Bits() != dt.Bits() {
		return b.fail(c.argPos(1), "bitcast: %s and %s differ in width (or are bool)", from, dt)
	}
	if from == dt {
		return v
	}
	return b.emit(c.pos, ir.OpBitcast, ir.WithElem(v.Type, dt), v)
}

// biAstile makes a rank-0 tile of a scalar (a tile stays as it is,
// converted to dtype).
func (b *builder) biAstile(c *callCtx) value {
	dt, ok := b.dtypeArg(c, 1, ir.InvalidDType)
	x := c.args[0].v
	if !ok || isPoison(x) {
		return poison{}
	}
	if v, isVal := x.(*ir.Value); isVal {
		if t, isTile := v.Type.(*ir.Tile); isTile {
			return b.coerce(c.pos, v, dt, t.Shape, true)
		}
	}
	if !isNumber(x) && !isRuntime(x) {
		return b.fail(c.argPos(0), "astile: value must be a number, a scalar or a tile, got %s", describe(x))
	}
	return b.coerce(c.pos, x, dt, []int{}, true)
}

// biArangeStep is arange with cuTile's start and step: start + step*i.
func (b *builder) biArangeStep(c *callCtx) value {
	r := b.biArange(c)
	if isPoison(r) {
		return r
	}
	if c.given(3) {
		r = b.binop(c.pos, "*", r, c.args[3].v)
	}
	if c.given(2) {
		r = b.binop(c.pos, "+", r, c.args[2].v)
	}
	if v, ok := r.(*ir.Value); ok && !isPoison(r) {
		dt, _ := b.dtypeArg(c, 1, ir.I32)
		if v.Type.Elem() != dt {
			return b.convert(c.pos, v, dt)
		}
	}
	return r
}

// ---- issue 10, part 2: indexed memory, atomics, combiners, printing ----

// builtinSpec.raw, when set, takes the call's arguments unbound (printf's
// and print's *args).
type rawBuiltin func(b *builder, e *lang.Call, pos []arg, kws []kwArg) value

func init() {
	def := func(sig string, fn func(b *builder, c *callCtx) value) {
		name, params := parseSig(sig)
		ctBuiltins[name] = &builtinSpec{params: params, fn: fn}
	}
	def("gather(array, indices, mask=None, padding_value=0, check_bounds=True, latency=None)", (*builder).biGather)
	def("scatter(array, indices, value, mask=None, check_bounds=True, latency=None)", (*builder).biScatter)
	for _, kind := range ir.AtomicKinds {
		def("atomic_"+kind+"(array, indices, update, check_bounds=True, memory_order=ACQ_REL, memory_scope=DEVICE)",
			func(b *builder, c *callCtx) value { return b.biAtomic(c, kind) })
	}
	def("atomic_cas(array, indices, expected, desired, check_bounds=True, memory_order=ACQ_REL, memory_scope=DEVICE)",
		func(b *builder, c *callCtx) value { return b.biAtomic(c, "") })
	def("Slice(start, length)", (*builder).biSlice)
	def("load_advanced_indexing(array, indices, padding_mode=UNDETERMINED, latency=None, allow_tma=None)", (*builder).biLoadAdvanced)
	def("store_advanced_indexing(array, indices, tile, latency=None, allow_tma=None)", (*builder).biStoreAdvanced)
	def("reduce(x, axis, func, identity, keepdims=False)", func(b *builder, c *callCtx) value { return b.biCombine(c, ir.OpReduceFn) })
	def("scan(x, axis, func, identity, reverse=False)", func(b *builder, c *callCtx) value { return b.biCombine(c, ir.OpScanFn) })
	def("assert_(cond, message=None)", (*builder).biAssert)
	def("pack_to_bytes(x)", (*builder).biPackToBytes)
	def("unpack_from_bytes(x, dtype)", (*builder).biUnpackFromBytes)
	ctBuiltins["printf"] = &builtinSpec{raw: (*builder).biPrintf}
	ctBuiltins["print"] = &builtinSpec{raw: func(b *builder, e *lang.Call, pos []arg, kws []kwArg) value {
		return b.biPrint("ct.print", e, pos, kws)
	}}
}

// ctEnums are cuTile's enums other than ct.PaddingMode, by member: the
// attribute value each member records.
var ctEnums = map[nsVal]map[string]string{
	nsMemoryOrder:  {"RELAXED": ir.OrderRelaxed, "ACQUIRE": ir.OrderAcquire, "RELEASE": ir.OrderRelease, "ACQ_REL": ir.OrderAcqRel, "WEAK": "weak"},
	nsMemoryScope:  {"NONE": ir.ScopeNone, "BLOCK": ir.ScopeBlock, "DEVICE": ir.ScopeDevice, "SYS": ir.ScopeSys, "CLUSTER": "cluster"},
	nsRoundingMode: {"RN": "nearest_even", "RZ": "zero", "RM": "negative_inf", "RP": "positive_inf", "RA": "nearest_away", "FULL": "full", "APPROX": "approx", "RZI": "nearest_int_to_zero"},
}

const (
	nsMemoryOrder  nsVal = "MemoryOrder"
	nsMemoryScope  nsVal = "MemoryScope"
	nsRoundingMode nsVal = "RoundingMode"
)

// enumVal is a member of one of ctEnums.
type enumVal struct {
	ns     nsVal
	member string
}

// enumAttr resolves a member of ct.MemoryOrder or ct.MemoryScope.
func (b *builder) enumAttr(ns nsVal, e *lang.Attr) value {
	if _, ok := ctEnums[ns][e.Name]; ok {
		return enumVal{ns: ns, member: e.Name}
	}
	names := make([]string, 0, len(ctEnums[ns]))
	for n := range ctEnums[ns] {
		names = append(names, n)
	}
	sortStrings(names)
	return b.fail(e.NamePos, "ct.%s has no member %s (it has %s)", ns, e.Name, strings.Join(names, ", "))
}

// sliceVal is ct.Slice(start, length): the dense part of an advanced index.
type sliceVal struct {
	start  value
	length int64
}

func (b *builder) biSlice(c *callCtx) value {
	n, ok := b.intArg(c, 1, "length")
	if !ok {
		return poison{}
	}
	if !isPow2(n) || n > maxTileElems {
		return b.fail(c.argPos(1), "Slice: length must be a power of two (at most 2^24), got %d", n)
	}
	if !b.isIntScalar(c.args[0].v) {
		return b.fail(c.argPos(0), "Slice: start must be an integer scalar, got %s", describe(c.args[0].v))
	}
	return sliceVal{start: c.args[0].v, length: n}
}

// isIntScalar reports whether v is a compile-time int or a run-time integer scalar.
func (b *builder) isIntScalar(v value) bool {
	switch x := v.(type) {
	case int64:
		return true
	case *ir.Value:
		s, ok := x.Type.(*ir.Scalar)
		return ok && s.DType.IsInt()
	}
	return false
}

// boolArg reads a compile-time bool argument (def when absent).
func (b *builder) boolArg(c *callCtx, i int, what string, def bool) (bool, bool) {
	if !c.given(i) {
		return def, true
	}
	v, ok := c.args[i].v.(bool)
	if !ok {
		b.errorf(c.argPos(i), "%s: %s must be True or False, got %s", c.name, what, describe(c.args[i].v))
	}
	return v, ok
}

// latencyArg records the latency hint (1-10) when given.
func (b *builder) latencyArg(c *callCtx, i int, attrs *ir.Attrs) bool {
	if !c.given(i) {
		return true
	}
	if _, none := c.args[i].v.(noneVal); none {
		return true
	}
	n, ok := b.intArg(c, i, "latency")
	if !ok {
		return false
	}
	if n < 1 || n > 10 {
		b.errorf(c.argPos(i), "%s: latency must be between 1 and 10, got %d", c.name, n)
		return false
	}
	attrs.Set(ir.AttrKeyLatency, n)
	return true
}

// indexTiles reads the indices of gather, scatter and the atomics: a tuple
// of one integer scalar or tile per array axis (a single one for a rank-1
// array), broadcast to their common shape. Each index keeps its dtype.
func (b *builder) indexTiles(c *callCtx, i int, a *arrayVal) ([]*ir.Value, []int, bool) {
	v := c.args[i].v
	elems, isTuple := v.(tuple)
	if !isTuple {
		elems = tuple{v}
	}
	if len(elems) != a.rank() {
		b.errorf(c.argPos(i), "%s: %s has rank %d, so indices must be a tuple of %d integer tiles or scalars%s; got %s",
			c.name, a.name, a.rank(), a.rank(), map[bool]string{true: " (or one tile)", false: ""}[a.rank() == 1], describe(v))
		return nil, nil, false
	}
	shape := []int{}
	for _, el := range elems {
		switch x := el.(type) {
		case int64:
			continue
		case *ir.Value:
			if x.Type.Elem().IsInt() {
				if t, ok := x.Type.(*ir.Tile); ok {
					s, ok := BroadcastShapes(shape, t.Shape)
					if !ok {
						b.errorf(c.argPos(i), "%s: index shapes do not broadcast to a common shape (%s and %s)", c.name, shapeString(shape), t)
						return nil, nil, false
					}
					shape = s
				}
				continue
			}
		}
		b.errorf(c.argPos(i), "%s: indices must be integer tiles or scalars, got %s", c.name, describe(el))
		return nil, nil, false
	}
	out := make([]*ir.Value, len(elems))
	for j, el := range elems {
		dt := weakDType(el)
		if x, ok := el.(*ir.Value); ok {
			dt = x.Type.Elem()
		}
		out[j] = b.coerce(c.argPos(i), el, dt, shape, true)
	}
	return out, shape, true
}

// indexedValue brings a value operand (scatter's value, gather's padding,
// an atomic's update) to the array's dtype and the index shape: numbers
// take the dtype, run-time values must promote to it (cuTile's implicit
// cast), and their shape must broadcast to the index shape.
func (b *builder) indexedValue(c *callCtx, i int, a *arrayVal, shape []int, what string, exact bool) *ir.Value {
	v := c.args[i].v
	if !c.given(i) {
		v = int64(0) // gather's padding_value default
	}
	dt := a.dtype()
	switch x := v.(type) {
	case int64, bool:
		return b.coerce(c.argPos(i), x, dt, shape, true)
	case float64:
		if !dt.IsFloat() {
			b.errorf(c.argPos(i), "%s: %s %s does not fit %s's dtype %s", c.name, what, formatConst(x), a.name, dt)
			return nil
		}
		return b.coerce(c.argPos(i), x, dt, shape, true)
	case *ir.Value:
		sh, ok := ir.ValueShape(x.Type)
		if !ok {
			break
		}
		if s, ok := BroadcastShapes(sh, shape); !ok || !slices.Equal(s, shape) {
			b.errorf(c.argPos(i), "%s: %s of shape %s does not broadcast to the index shape %s", c.name, what, shapeString(sh), shapeString(shape))
			return nil
		}
		if d := x.Type.Elem(); d != dt {
			p, err := promote(d, dt)
			if exact || err != nil || p != dt {
				b.errorf(c.argPos(i), "%s: %s is %s but %s holds %s; use ct.astype", c.name, what, d, a.name, dt)
				return nil
			}
		}
		return b.coerce(c.argPos(i), x, dt, shape, true)
	}
	b.errorf(c.argPos(i), "%s: %s must be a scalar or a tile, got %s", c.name, what, describe(v))
	return nil
}

// maskArg reads gather's and scatter's optional bool mask (nil when None).
func (b *builder) maskArg(c *callCtx, i int, shape []int) (*ir.Value, bool) {
	v := c.args[i].v
	if _, none := v.(noneVal); none || !c.given(i) {
		return nil, true
	}
	switch x := v.(type) {
	case bool:
		return b.coerce(c.argPos(i), x, ir.Bool, shape, true), true
	case *ir.Value:
		sh, ok := ir.ValueShape(x.Type)
		if ok && x.Type.Elem() == ir.Bool {
			if s, ok := BroadcastShapes(sh, shape); ok && slices.Equal(s, shape) {
				return b.coerce(c.argPos(i), x, ir.Bool, shape, true), true
			}
			b.errorf(c.argPos(i), "%s: mask of shape %s does not broadcast to the index shape %s", c.name, shapeString(sh), shapeString(shape))
			return nil, false
		}
	}
	b.errorf(c.argPos(i), "%s: mask must be a bool tile or scalar, got %s", c.name, describe(v))
	return nil, false
}

// indexedAccess reads what gather and scatter share: the array (argument
// 0), its index tiles (argument 1) and their broadcast shape, and
// check_bounds and latency (arguments 4 and 5) as attributes.
func (b *builder) indexedAccess(c *callCtx) (a *arrayVal, idx []*ir.Value, shape []int, attrs ir.Attrs, ok bool) {
	if a, ok = b.arrayArg(c, 0); !ok {
		return
	}
	if idx, shape, ok = b.indexTiles(c, 1, a); !ok {
		return
	}
	cb, cbOK := b.boolArg(c, 4, "check_bounds", true)
	if !cbOK || !b.latencyArg(c, 5, &attrs) {
		return a, nil, nil, nil, false
	}
	attrs.Set(ir.AttrKeyCheckBounds, cb)
	return a, idx, shape, attrs, true
}

func (b *builder) biGather(c *callCtx) value {
	a, idx, shape, attrs, ok := b.indexedAccess(c)
	if !ok {
		return poison{}
	}
	mask, ok := b.maskArg(c, 2, shape)
	pad := b.indexedValue(c, 3, a, shape, "padding_value", false)
	if !ok || pad == nil {
		return poison{}
	}
	args := append(append([]*ir.Value{a.v}, idx...), pad)
	if mask != nil {
		args = append(args, mask)
	}
	return b.emitInferred(c.pos, ir.OpGather, attrs, args...)
}

func (b *builder) biScatter(c *callCtx) value {
	a, idx, shape, attrs, ok := b.indexedAccess(c)
	if !ok {
		return poison{}
	}
	val := b.indexedValue(c, 2, a, shape, "value", false)
	mask, ok := b.maskArg(c, 3, shape)
	if !ok || val == nil {
		return poison{}
	}
	args := append(append([]*ir.Value{a.v}, idx...), val)
	if mask != nil {
		args = append(args, mask)
	}
	b.emitAttrs(c.pos, ir.OpScatter, nil, attrs, args...)
	return noneVal{}
}

// enumArg reads a ct.MemoryOrder or ct.MemoryScope argument (its default
// member when absent) and checks it against the members atomics accept.
func (b *builder) enumArg(c *callCtx, i int, ns nsVal, def string, allowed []string) (string, bool) {
	member := def
	if c.given(i) {
		e, ok := c.args[i].v.(enumVal)
		if !ok || e.ns != ns {
			b.errorf(c.argPos(i), "%s: %s must be a ct.%s member, got %s", c.name, c.sigParamName(i), ns, describe(c.args[i].v))
			return "", false
		}
		member = e.member
	}
	v := ctEnums[ns][member]
	if !slices.Contains(allowed, v) {
		b.errorf(c.argPos(i), "%s: ct.%s.%s is not valid for atomics", c.name, ns, member)
		return "", false
	}
	return v, true
}

// biAtomic is atomic_<kind> (kind "" for atomic_cas).
func (b *builder) biAtomic(c *callCtx, kind string) value {
	a, ok := b.arrayArg(c, 0)
	if !ok {
		return poison{}
	}
	idx, shape, ok := b.indexTiles(c, 1, a)
	if !ok {
		return poison{}
	}
	nv := 1
	if kind == "" {
		nv = 2
	}
	var attrs ir.Attrs
	cb, cbOK := b.boolArg(c, 2+nv, "check_bounds", true)
	// The op table declares the orders and scopes (atomic_cas takes the same ones).
	order, oOK := b.enumArg(c, 3+nv, nsMemoryOrder, "ACQ_REL", ir.AttrSpecOf(ir.OpAtomicRMW, "memory_order").Enum)
	scope, sOK := b.enumArg(c, 4+nv, nsMemoryScope, "DEVICE", ir.AttrSpecOf(ir.OpAtomicRMW, "memory_scope").Enum)
	if !cbOK || !oOK || !sOK {
		return poison{}
	}
	attrs.Set(ir.AttrKeyCheckBounds, cb)
	attrs.Set(ir.AttrKeyMemoryOrder, order)
	attrs.Set(ir.AttrKeyMemoryScope, scope)
	d := a.dtype()
	op := ir.OpAtomicRMW
	switch kind {
	case "":
		op = ir.OpAtomicCAS
		if !ir.AtomicDType(d, true) {
			return b.fail(c.argPos(0), "%s: %s holds %s; atomic_cas supports int32, int64, uint32, uint64, float32 and float64", c.name, a.name, d)
		}
	case ir.AtomicXchg, ir.AtomicAdd:
		if !ir.AtomicDType(d, true) && !(kind == ir.AtomicAdd && (d == ir.F16 || d == ir.BF16)) {
			return b.fail(c.argPos(0), "%s: %s holds %s, which %s does not support", c.name, a.name, d, c.name)
		}
	default:
		if !ir.AtomicDType(d, false) {
			return b.fail(c.argPos(0), "%s: %s holds %s; %s supports int32, int64, uint32 and uint64", c.name, a.name, d, c.name)
		}
	}
	if kind != "" {
		attrs.Set(ir.AttrKeyKind, kind)
	}
	bitwise := kind == ir.AtomicAnd || kind == ir.AtomicOr || kind == ir.AtomicXor
	args := append([]*ir.Value{a.v}, idx...)
	names := []string{"update"}
	if kind == "" {
		names = []string{"expected", "desired"}
	}
	for j, n := range names {
		v := b.indexedValue(c, 2+j, a, shape, n, bitwise)
		if v == nil {
			return poison{}
		}
		args = append(args, v)
	}
	return b.emitInferred(c.pos, op, attrs, args...)
}

// advancedIndex reads load/store_advanced_indexing's indices: one 1-D
// integer tile (the sparse dim) and a ct.Slice per other axis. It returns
// one index tile per axis, shaped to broadcast into the result's shape.
func (b *builder) advancedIndex(c *callCtx, i int, a *arrayVal) ([]*ir.Value, []int, bool) {
	elems, isTuple := c.args[i].v.(tuple)
	if !isTuple {
		elems = tuple{c.args[i].v}
	}
	if len(elems) != a.rank() {
		b.errorf(c.argPos(i), "%s: indices must have %d entries (%s's rank), got %d", c.name, a.rank(), a.name, len(elems))
		return nil, nil, false
	}
	r := a.rank()
	shape := make([]int, r)
	sparse := -1
	for j, el := range elems {
		switch x := el.(type) {
		case sliceVal:
			shape[j] = int(x.length)
			continue
		case *ir.Value:
			if t, ok := x.Type.(*ir.Tile); ok && t.Rank() == 1 && t.DType.IsInt() {
				if sparse >= 0 {
					b.errorf(c.argPos(i), "%s: exactly one index may be a tile (the sparse dim); the others are ct.Slice", c.name)
					return nil, nil, false
				}
				sparse, shape[j] = j, t.Shape[0]
				continue
			}
		}
		b.errorf(c.argPos(i), "%s: index %d must be a 1-D integer tile or a ct.Slice(start, length), got %s", c.name, j, describe(el))
		return nil, nil, false
	}
	if sparse < 0 {
		b.errorf(c.argPos(i), "%s: one index must be a 1-D integer tile (the sparse dim)", c.name)
		return nil, nil, false
	}
	out := make([]*ir.Value, r)
	for j, el := range elems {
		unit := make([]int, r)
		for k := range unit {
			unit[k] = 1
		}
		unit[j] = shape[j]
		var v *ir.Value
		switch x := el.(type) {
		case sliceVal:
			it := ir.I32
			if s, ok := x.start.(*ir.Value); ok {
				it = s.Type.Elem()
			}
			iota := b.convert(c.pos, b.emit(c.pos, ir.OpIota, ir.TileOf(ir.I32, shape[j])), it)
			r := b.binop(c.pos, "+", iota, x.start)
			rv, ok := r.(*ir.Value)
			if !ok {
				return nil, nil, false
			}
			v = rv
		case *ir.Value:
			v = x
		}
		v = b.reshape(c.pos, v, unit)
		out[j] = b.broadcastTo(c.pos, v, shape)
	}
	return out, shape, true
}

// biLoadAdvanced is load_advanced_indexing: a gather whose padding is the
// padding mode's value (integers: see load).
func (b *builder) biLoadAdvanced(c *callCtx) value {
	a, ok := b.arrayArg(c, 0)
	if !ok {
		return poison{}
	}
	idx, shape, ok := b.advancedIndex(c, 1, a)
	if !ok {
		return poison{}
	}
	pad := ir.PadZero
	if c.given(2) {
		m, isPad := c.args[2].v.(padMode)
		if !isPad {
			return b.fail(c.argPos(2), "%s: padding_mode must be a ct.PaddingMode member, got %s", c.name, describe(c.args[2].v))
		}
		pad = padModes[string(m)]
	}
	var attrs ir.Attrs
	if !b.latencyArg(c, 3, &attrs) {
		return poison{}
	}
	if _, ok := b.boolArg(c, 4, "allow_tma", true); !ok {
		return poison{}
	}
	d := a.dtype()
	pv, ok := padValue(d, pad)
	if !ok {
		return b.fail(c.argPos(2), "%s: padding_mode NAN has no value in %s", c.name, d)
	}
	attrs.Set(ir.AttrKeyCheckBounds, true)
	padV := b.coerce(c.pos, pv, d, shape, true)
	return b.emitInferred(c.pos, ir.OpGather, attrs, append(append([]*ir.Value{a.v}, idx...), padV)...)
}

// padValue is the value a padding mode pads dtype d with (integers: see
// load); ok is false for NAN on a dtype that has none.
func padValue(d ir.DType, pad string) (pv value, ok bool) {
	switch {
	case d.IsFloat():
		return map[string]float64{ir.PadZero: 0, ir.PadNegZero: math.Copysign(0, -1), ir.PadNaN: math.NaN(), ir.PadPosInf: math.Inf(1), ir.PadNegInf: math.Inf(-1)}[pad], true
	case pad == ir.PadNaN:
		return nil, false
	}
	lo, hi := ir.IntRange(d)
	n := map[string]int64{ir.PadPosInf: hi, ir.PadNegInf: lo}[pad]
	if d == ir.Bool {
		return n != 0, true
	}
	return n, true
}

// biStoreAdvanced is store_advanced_indexing: a scatter of a tile of the
// indices' shape.
func (b *builder) biStoreAdvanced(c *callCtx) value {
	a, ok := b.arrayArg(c, 0)
	if !ok {
		return poison{}
	}
	idx, shape, ok := b.advancedIndex(c, 1, a)
	if !ok {
		return poison{}
	}
	var attrs ir.Attrs
	if !b.latencyArg(c, 3, &attrs) {
		return poison{}
	}
	if _, ok := b.boolArg(c, 4, "allow_tma", true); !ok {
		return poison{}
	}
	if x, isVal := c.args[2].v.(*ir.Value); isVal {
		if t, isTile := x.Type.(*ir.Tile); isTile && !slices.Equal(t.Shape, shape) {
			return b.fail(c.argPos(2), "%s: tile is %s but the indices select %s", c.name, t, shapeString(shape))
		}
	}
	val := b.indexedValue(c, 2, a, shape, "tile", false)
	if val == nil {
		return poison{}
	}
	attrs.Set(ir.AttrKeyCheckBounds, true)
	b.emitAttrs(c.pos, ir.OpScatter, nil, attrs, append(append([]*ir.Value{a.v}, idx...), val)...)
	return noneVal{}
}

// biCombine is ct.reduce and ct.scan with a helper function as the
// combiner: the helper is inlined once into the op's region, on rank-0
// tiles.
func (b *builder) biCombine(c *callCtx, op ir.Op) value {
	xs, single := c.args[0].v.(tuple)
	if !single {
		xs = tuple{c.args[0].v}
	}
	single = !single
	ids, idTuple := c.args[3].v.(tuple)
	if !idTuple {
		ids = tuple{c.args[3].v}
	}
	if len(ids) != len(xs) {
		return b.fail(c.argPos(3), "%s: %d identities for %d tiles", c.name, len(ids), len(xs))
	}
	// The tiles broadcast to a common shape.
	var shape []int
	for _, x := range xs {
		v, ok := x.(*ir.Value)
		t, tok := ir.Type(nil), false
		if ok {
			t = v.Type
			_, tok = t.(*ir.Tile)
		}
		if !tok {
			return b.fail(c.argPos(0), "%s: x must be a tile or a tuple of tiles, got %s", c.name, describe(x))
		}
		s, ok := BroadcastShapes(shape, t.(*ir.Tile).Shape)
		if !ok {
			return b.fail(c.argPos(0), "%s: the tiles' shapes do not broadcast to a common shape", c.name)
		}
		shape = s
	}
	if len(shape) == 0 {
		return b.fail(c.argPos(0), "%s: cannot %s rank-0 tiles", c.name, c.name)
	}
	axis, ok := b.axisArg(c, 1, len(shape), ir.TileOf(xs[0].(*ir.Value).Type.Elem(), shape...))
	if !ok {
		return poison{}
	}
	fn, isFn := c.args[2].v.(*funcVal)
	if !isFn || fn.kernel {
		return b.fail(c.argPos(2), "%s: func must be a helper function (def) taking %d rank-0 tiles, got %s", c.name, 2*len(xs), describe(c.args[2].v))
	}
	flag, ok := b.boolArg(c, 4, map[ir.Op]string{ir.OpReduceFn: "keepdims", ir.OpScanFn: "reverse"}[op], false)
	if !ok {
		return poison{}
	}
	n := len(xs)
	args := make([]*ir.Value, 2*n)
	for i, x := range xs {
		v := x.(*ir.Value)
		args[i] = b.broadcastTo(c.pos, v, shape)
		id := ids[i]
		if !isNumber(id) {
			return b.fail(c.argPos(3), "%s: identity must be a compile-time number, got %s", c.name, describe(id))
		}
		args[n+i] = b.constant(c.pos, id, v.Type.Elem())
	}
	var attrs ir.Attrs
	attrs.Set(ir.AttrKeyAxis, int64(axis))
	if op == ir.OpScanFn && flag {
		attrs.Set(ir.AttrKeyReverse, true)
	}
	in := &ir.Instr{Op: op, Args: args, Attrs: attrs, Pos: ir.Pos(c.pos)}
	in.Block = b.cur
	body := in.NewRegion()
	outer := b.cur
	b.cur = body
	params := make([]value, 2*n)
	for i := range params {
		params[i] = b.f.AddBlockParam(body, ir.TileOf(args[i%n].Type.Elem()))
	}
	pos := make([]arg, 2*n)
	for i, p := range params {
		pos[i] = arg{v: p, e: c.args[2].e}
	}
	r := b.inline(fn.def, &lang.Call{Pos: c.argPos(2), Fun: c.args[2].e}, pos, nil)
	outs, isTuple := r.(tuple)
	if !isTuple {
		outs = tuple{r}
	}
	var yields []*ir.Value
	if isPoison(r) {
		yields = nil
	} else if len(outs) != n {
		b.errorf(c.argPos(2), "%s: %s returns %d values, want %d", c.name, fn.def.Name, len(outs), n)
	} else {
		for i, o := range outs {
			e := ir.TileOf(args[i].Type.Elem())
			var y *ir.Value
			switch v := o.(type) {
			case int64, float64, bool:
				y = b.coerce(c.argPos(2), v, e.DType, nil, true)
			case *ir.Value:
				sh, ok := ir.ValueShape(v.Type)
				if ok && len(sh) == 0 && v.Type.Elem() == e.DType {
					y = b.broadcastTo(c.argPos(2), v, []int{})
				}
			}
			if y == nil {
				b.errorf(c.argPos(2), "%s: %s returns %s, want a rank-0 %s tile (the combiner may not change the dtype)", c.name, fn.def.Name, describe(o), e.DType)
				yields = nil
				break
			}
			yields = append(yields, y)
		}
	}
	b.cur = outer
	if len(yields) != n {
		return poison{}
	}
	body.Append(&ir.Instr{Op: ir.OpYield, Args: yields, Pos: ir.Pos(c.pos)})
	for i, rt := range b.inferResults(c.pos, op, attrs, args) {
		r := b.f.NewValue(rt)
		r.Def, r.Index = in, i
		in.Results = append(in.Results, r)
	}
	b.append(in)
	out := make(tuple, n)
	for i, r := range in.Results {
		out[i] = r
		if op == ir.OpReduceFn && flag {
			kept := append([]int(nil), shape...)
			kept[axis] = 1
			out[i] = b.reshape(c.pos, r, kept)
		}
	}
	if single {
		return out[0]
	}
	return out
}

func (b *builder) biAssert(c *callCtx) value {
	cond := c.args[0].v
	msg := ""
	if c.given(1) {
		switch m := c.args[1].v.(type) {
		case string:
			msg = m
		case noneVal:
		default:
			return b.fail(c.argPos(1), "assert_: message must be a string, got %s", describe(m))
		}
	}
	if isConstVal(cond) {
		t, ok := truthy(cond)
		if !ok {
			return b.fail(c.argPos(0), "assert_: cond must be bool, got %s", describe(cond))
		}
		if !t {
			if msg != "" {
				return b.fail(c.pos, "assertion failed: %s", msg)
			}
			return b.fail(c.pos, "assertion failed")
		}
		return noneVal{}
	}
	v, ok := cond.(*ir.Value)
	if !ok || !isRuntime(v) || v.Type.Elem() != ir.Bool {
		return b.fail(c.argPos(0), "assert_: cond must be a bool tile or scalar, got %s", describe(cond))
	}
	var attrs ir.Attrs
	if msg != "" {
		attrs.Set(ir.AttrKeyMessage, msg)
	}
	b.emitAttrs(c.pos, ir.OpAssert, nil, attrs, v)
	return noneVal{}
}

func (b *builder) biPackToBytes(c *callCtx) value {
	x, t, ok := b.tileArg(c, 0, "x")
	if !ok {
		return poison{}
	}
	if t.DType == ir.Bool {
		return b.fail(c.argPos(0), "pack_to_bytes: bool tiles have no byte layout; convert with ct.astype")
	}
	return b.emit(c.pos, ir.OpPackBytes, ir.TileOf(ir.U8, t.NumElements()*t.DType.Bytes()), x)
}

func (b *builder) biUnpackFromBytes(c *callCtx) value {
	x, t, ok := b.tileArg(c, 0, "x")
	dt, dtOK := b.dtypeArg(c, 1, ir.InvalidDType)
	if !ok || !dtOK {
		return poison{}
	}
	if t.DType != ir.U8 || t.Rank() != 1 {
		return b.fail(c.argPos(0), "unpack_from_bytes: x must be a 1-D uint8 tile, got %s", t)
	}
	if dt == ir.Bool || t.NumElements()%dt.Bytes() != 0 {
		return b.fail(c.argPos(1), "unpack_from_bytes: %d bytes do not hold whole %s elements", t.NumElements(), dt)
	}
	return b.emit(c.pos, ir.OpUnpackBytes, ir.TileOf(dt, t.NumElements()/dt.Bytes()), x)
}

// printfArgs checks printf's run-time arguments: scalars and tiles (numbers
// become constants).
func (b *builder) printfArg(pos lang.Pos, name string, v value) *ir.Value {
	switch x := v.(type) {
	case int64, float64, bool:
		return b.constant(pos, x, weakDType(x))
	case *ir.Value:
		if isRuntime(x) {
			return x
		}
	}
	b.errorf(pos, "%s: cannot print %s", name, describe(v))
	return nil
}

func (b *builder) biPrintf(e *lang.Call, pos []arg, kws []kwArg) value {
	if len(kws) > 0 {
		return b.fail(kws[0].pos, "printf takes no keyword arguments")
	}
	if len(pos) == 0 {
		return b.fail(e.Pos, "printf: missing argument format")
	}
	format, ok := pos[0].v.(string)
	if !ok {
		return b.fail(pos[0].e.Position(), "printf: format must be a string, got %s", describe(pos[0].v))
	}
	n, msg := ir.PrintfConversions(format)
	if msg == "" {
		msg = checkPrintfNumbers(format)
	}
	if msg != "" {
		return b.fail(pos[0].e.Position(), "printf: %s", msg)
	}
	if n != len(pos)-1 {
		return b.fail(e.Pos, "printf: the format has %d conversions but %d values are given", n, len(pos)-1)
	}
	var args []*ir.Value
	for _, a := range pos[1:] {
		if isPoison(a.v) {
			return poison{}
		}
		v := b.printfArg(a.e.Position(), "printf", a.v)
		if v == nil {
			return poison{}
		}
		args = append(args, v)
	}
	var attrs ir.Attrs
	attrs.Set(ir.AttrKeyFormat, format)
	b.emitAttrs(e.Pos, ir.OpPrintf, nil, attrs, args...)
	return noneVal{}
}

// biPrint is ct.print and Python's print: strings and compile-time values
// become text of the format, tiles and scalars %d (integers and bool) or
// %f (floats) conversions; sep and end are strings.
func (b *builder) biPrint(name string, e *lang.Call, pos []arg, kws []kwArg) value {
	sep, end := " ", "\n"
	for _, k := range kws {
		s, ok := k.v.(string)
		switch {
		case k.name != "sep" && k.name != "end":
			return b.fail(k.pos, "%s has no parameter named %s (it has sep and end)", name, k.name)
		case !ok:
			return b.fail(k.pos, "%s: %s must be a string, got %s", name, k.name, describe(k.v))
		case k.name == "sep":
			sep = s
		default:
			end = s
		}
	}
	var f strings.Builder
	var args []*ir.Value
	for i, a := range pos {
		if i > 0 {
			f.WriteString(strings.ReplaceAll(sep, "%", "%%"))
		}
		if isPoison(a.v) {
			return poison{}
		}
		switch x := a.v.(type) {
		case string:
			f.WriteString(strings.ReplaceAll(x, "%", "%%"))
			continue
		case fstringVal:
			var ok bool
			if args, ok = b.printFString(name, x, &f, args); !ok {
				return poison{}
			}
			continue
		case int64, float64, bool, ir.DType, noneVal, tuple:
			if !isRuntime(x) && !isPoison(x) {
				if s, ok := x.(tuple); ok && tupleHasRuntime(s) {
					break
				}
				f.WriteString(strings.ReplaceAll(formatConst(x), "%", "%%"))
				continue
			}
		}
		v := b.printfArg(a.e.Position(), name, a.v)
		if v == nil {
			return poison{}
		}
		if v.Type.Elem().IsFloat() {
			f.WriteString("%f")
		} else {
			f.WriteString("%d")
		}
		args = append(args, v)
	}
	f.WriteString(strings.ReplaceAll(end, "%", "%%"))
	var attrs ir.Attrs
	attrs.Set(ir.AttrKeyFormat, f.String())
	b.emitAttrs(e.Pos, ir.OpPrintf, nil, attrs, args...)
	return noneVal{}
}

func tupleHasRuntime(t tuple) bool {
	for _, x := range t {
		if isRuntime(x) {
			return true
		}
		if s, ok := x.(tuple); ok && tupleHasRuntime(s) {
			return true
		}
	}
	return false
}
