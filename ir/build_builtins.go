package ir

// The tile builtins (ct.load, ct.mma, ...) and the Python builtins (min,
// max, abs, int, float, bool, len). Each checks its arguments against
// docs/language.md and emits IR, or folds when every operand is known at
// compile time. Messages start with the builtin's name ("load: ...").

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/tilec/tilec/ir/scalar"
	"github.com/tilec/tilec/lang"
)

type builtinSpec struct {
	params []sigParam
	fn     func(b *builder, c *callCtx) value
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
	def("bid(axis)", func(b *builder, c *callCtx) value { return b.biGridQuery(c, OpBlockID) })
	def("num_blocks(axis)", func(b *builder, c *callCtx) value { return b.biGridQuery(c, OpNumBlocks) })
	def("cdiv(a, b)", (*builder).biCdiv)
	def("num_tiles(array, axis, shape)", (*builder).biNumTiles)
	def("load(array, index, shape, order=C, padding_mode=ZERO, latency=None, allow_tma=None, check_bounds=None)", (*builder).biLoad)
	def("store(array, index, tile, order=C, latency=None, allow_tma=None, check_bounds=None)", (*builder).biStore)
	def("full(shape, value, dtype=float32)", func(b *builder, c *callCtx) value { return b.biFull(c, c.args[1]) })
	def("zeros(shape, dtype=float32)", func(b *builder, c *callCtx) value { return b.biFull(c, arg{v: int64(0)}) })
	def("ones(shape, dtype=float32)", func(b *builder, c *callCtx) value { return b.biFull(c, arg{v: int64(1)}) })
	def("arange(n, dtype=int32)", (*builder).biArange)
	def("astype(x, dtype)", (*builder).biAstype)
	def("mma(a, b, acc)", (*builder).biMMA)
	def("matmul(a, b)", func(b *builder, c *callCtx) value { return b.matmul(c.pos, "matmul", c.args[0].v, c.args[1].v) })
	for name, op := range map[string]Op{"exp": OpExp, "exp2": OpExp2, "log": OpLog, "sqrt": OpSqrt, "rsqrt": OpRsqrt, "tanh": OpTanh, "abs": OpAbs} {
		def(name+"(x)", func(b *builder, c *callCtx) value { return b.mathOp(c.pos, c.name, op, c.args[0].v) })
	}
	def("maximum(x, y)", func(b *builder, c *callCtx) value { return b.minmax(c.pos, "maximum", OpMax, c.args[0].v, c.args[1].v) })
	def("minimum(x, y)", func(b *builder, c *callCtx) value { return b.minmax(c.pos, "minimum", OpMin, c.args[0].v, c.args[1].v) })
	def("where(cond, x, y)", (*builder).biWhere)
	def("sum(x, axis=None, keepdims=False)", func(b *builder, c *callCtx) value { return b.biReduce(c, ReduceSum) })
	def("max(x, axis=None, keepdims=False)", func(b *builder, c *callCtx) value { return b.biReduce(c, ReduceMax) })
	def("min(x, axis=None, keepdims=False)", func(b *builder, c *callCtx) value { return b.biReduce(c, ReduceMin) })
	def("argmax(x, axis=None, keepdims=False)", func(b *builder, c *callCtx) value { return b.biReduce(c, ReduceArgmax) })
	def("argmin(x, axis=None, keepdims=False)", func(b *builder, c *callCtx) value { return b.biReduce(c, ReduceArgmin) })
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
func (b *builder) axisArg(c *callCtx, i int, rank int, t Type) (int, bool) {
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
	return b.checkTileShape(dims, poss, c.argPos(i))
}

// checkTileShape checks the dims of a tile shape.
func (b *builder) checkTileShape(dims []int64, poss []lang.Pos, pos lang.Pos) ([]int, bool) {
	shape := make([]int, len(dims))
	ok := true
	total := int64(1)
	for j, n := range dims {
		if !isPow2(n) {
			b.errorf(poss[j], "tile dimension %d is not a power of two", n)
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
func (b *builder) dtypeArg(c *callCtx, i int, def DType) (DType, bool) {
	if !c.given(i) {
		return def, true
	}
	switch x := c.args[i].v.(type) {
	case DType:
		return x, true
	case builtinVal:
		if x.py {
			switch x.name {
			case "int":
				return I32, true
			case "float":
				return F32, true
			case "bool":
				return Bool, true
			}
		}
	}
	b.errorf(c.argPos(i), "%s: dtype must be a dtype such as ct.float32, got %s", c.name, describe(c.args[i].v))
	return 0, false
}

// tileArg reads a run-time tile argument.
func (b *builder) tileArg(c *callCtx, i int, what string) (*Value, *Tile, bool) {
	v := c.args[i].v
	if x, ok := v.(*Value); ok {
		if t, ok := x.Type.(*Tile); ok {
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

func (b *builder) biGridQuery(c *callCtx, op Op) value {
	axis, ok := b.intArg(c, 0, "axis")
	if !ok {
		return poison{}
	}
	if axis < 0 || axis > 2 {
		return b.fail(c.argPos(0), "%s: axis must be 0, 1 or 2, got %d", c.name, axis)
	}
	var attrs Attrs
	attrs.Set("axis", axis)
	return b.emitAttrs(c.pos, op, ScalarOf(I32), attrs)
}

// biCdiv is ceil(a / b) on ints.
func (b *builder) biCdiv(c *callCtx) value {
	for i := range 2 {
		v := c.args[i].v
		if isRuntime(v) {
			s, ok := v.(*Value).Type.(*Scalar)
			if ok && s.DType.IsInt() {
				continue
			}
		} else if _, ok := v.(int64); ok {
			continue
		}
		return b.fail(c.argPos(i), "cdiv: operands must be integers, got %s", describe(v))
	}
	return b.cdiv(c.pos, c.args[0].v, c.args[1].v)
}

// cdiv computes ceil(x / y): folded on constants, floordiv(x + (y-1), y)
// for a positive constant y, -((-x) // y) otherwise.
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
			return b.binop(pos, "//", b.binop(pos, "+", x, yc-1), yc)
		}
	}
	return b.unop(pos, "-", b.binop(pos, "//", b.unop(pos, "-", x), y))
}

func (b *builder) biNumTiles(c *callCtx) value {
	a, ok := b.arrayArg(c, 0)
	if !ok {
		return poison{}
	}
	axis, ok := b.axisArg(c, 1, a.rank(), a.p.Type)
	if !ok {
		return poison{}
	}
	shape, poss, ok := b.intsArg(c, 2, "tile shape")
	if !ok {
		return poison{}
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

// indexArg reads a load/store tile index: one integer scalar per array axis.
func (b *builder) indexArg(c *callCtx, i int, a *arrayVal) ([]*Value, bool) {
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
	out := make([]*Value, len(elems))
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
		case *Value:
			if s, isScalar := x.Type.(*Scalar); isScalar && s.DType.IsInt() {
				out[j] = x
				continue
			}
		case poison:
			ok = false
			continue
		}
		b.errorf(pos, "%s: index must hold integer scalars, got %s", c.name, describe(el))
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
	pad := PadZero
	if c.given(4) {
		m, isPad := c.args[4].v.(padMode)
		if !isPad {
			b.errorf(c.argPos(4), "load: padding_mode must be a ct.PaddingMode member, got %s", describe(c.args[4].v))
			return poison{}
		}
		pad = padModes[string(m)]
	}
	var attrs Attrs
	hintsOK := b.memHints(c, a.rank(), &attrs)
	if !idxOK || !shapeOK || !hintsOK {
		return poison{}
	}
	if len(shape) != a.rank() {
		return b.fail(c.argPos(2), "load: shape has %d dims but %s has rank %d", len(shape), a.name, a.rank())
	}
	if pad == PadNaN && !a.dtype().IsFloat() {
		return b.fail(c.argPos(4), "load: padding_mode NAN has no value in %s (%s's dtype); integers pad with ZERO, NEG_INF (the minimum) or POS_INF (the maximum)", a.dtype(), a.name)
	}
	attrs.Set("pad", pad)
	return b.emitAttrs(c.pos, OpLoad, TileOf(a.dtype(), shape...), attrs, append([]*Value{a.p.Value}, idx...)...)
}

func (b *builder) biStore(c *callCtx) value {
	a, ok := b.arrayArg(c, 0)
	if !ok {
		return poison{}
	}
	idx, idxOK := b.indexArg(c, 1, a)
	x, t, ok := b.tileArg(c, 2, "tile")
	var attrs Attrs
	if !b.memHints(c, a.rank(), &attrs) || !ok || !idxOK {
		return poison{}
	}
	if t.Rank() != a.rank() {
		return b.fail(c.argPos(2), "store: tile is %s (rank %d) but %s has rank %d", t, t.Rank(), a.name, a.rank())
	}
	if t.DType != a.dtype() {
		return b.fail(c.argPos(2), "store: tile is %s but %s holds %s; use ct.astype", t.DType, a.name, a.dtype())
	}
	b.emitAttrs(c.pos, OpStore, nil, attrs, append(append([]*Value{a.p.Value}, idx...), x)...)
	return noneVal{}
}

// ---- constructors ----

// biFull is full, zeros and ones: a const splat to the shape.
func (b *builder) biFull(c *callCtx, fill arg) value {
	shape, ok := b.tileShapeArg(c, 0)
	dt, dtOK := b.dtypeArg(c, len(c.args)-1, F32)
	if !ok || !dtOK {
		return poison{}
	}
	var s *Value
	switch x := fill.v.(type) {
	case int64, float64, bool:
		s = b.constant(c.pos, x, dt)
	case *Value:
		if _, isScalar := x.Type.(*Scalar); isScalar {
			s = b.convert(c.pos, x, dt)
		}
	}
	if s == nil {
		pos := c.pos
		if fill.e != nil {
			pos = fill.e.Position()
		}
		return b.fail(pos, "%s: value must be a scalar, got %s", c.name, describe(fill.v))
	}
	return b.emit(c.pos, OpSplat, TileOf(dt, shape...), s)
}

func (b *builder) biArange(c *callCtx) value {
	n, ok := b.intArg(c, 0, "n")
	if !ok {
		return poison{}
	}
	dt, ok := b.dtypeArg(c, 1, I32)
	if !ok {
		return poison{}
	}
	if !isPow2(n) {
		return b.fail(c.argPos(0), "arange: n must be a power of two, got %d", n)
	}
	if n > maxTileElems {
		return b.fail(c.argPos(0), "arange: n = %d is too large (at most 2^24)", n)
	}
	if dt == Bool {
		return b.fail(c.argPos(1), "arange: dtype must be numeric, got bool")
	}
	it := I32
	if dt == I64 {
		it = I64
	}
	v := b.emit(c.pos, OpIota, TileOf(it, int(n)))
	return b.convert(c.pos, v, dt)
}

func (b *builder) biAstype(c *callCtx) value {
	dt, ok := b.dtypeArg(c, 1, InvalidDType)
	if !ok {
		return poison{}
	}
	switch x := c.args[0].v.(type) {
	case int64, float64, bool:
		return b.constant(c.pos, x, dt)
	case *Value:
		if isRuntime(x) {
			return b.convert(c.pos, x, dt)
		}
	}
	return b.fail(c.argPos(0), "astype: x must be a tile or a scalar, got %s", describe(c.args[0].v))
}

// ---- mma and matmul ----

// mmaInputs checks the a and b operands of mma or matmul.
func (b *builder) mmaInputs(pos lang.Pos, name string, x, y value) (*Value, *Value, *Tile, *Tile, bool) {
	xv, xok := x.(*Value)
	yv, yok := y.(*Value)
	var xt, yt *Tile
	if xok {
		xt, xok = xv.Type.(*Tile)
	}
	if yok {
		yt, yok = yv.Type.(*Tile)
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
	case xt.DType != yt.DType && !(isF32ish(xt.DType) && isF32ish(yt.DType)):
		b.errorf(pos, "%s: a is %s but b is %s: input dtypes differ; use ct.astype", name, xt, yt)
	case !xt.DType.IsFloat():
		b.errorf(pos, "%s: %s inputs are not supported (use f16, bf16, f32, tf32 or f64)", name, xt.DType)
	default:
		return xv, yv, xt, yt, true
	}
	return nil, nil, nil, nil, false
}

func isF32ish(d DType) bool { return d == F32 || d == TF32 }

// mmaShape is the shape of a@b.
func mmaShape(xt, yt *Tile) []int {
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
	case in == F16:
		good, allowed = at.DType == F32 || at.DType == F16, "f32 or f16"
	case in == BF16:
		good, allowed = at.DType == F32, "f32"
	case isF32ish(in):
		good, allowed = at.DType == F32, "f32"
	case in == F64:
		good, allowed = at.DType == F64, "f64"
	}
	if !good {
		return b.fail(c.argPos(2), "mma: %s inputs accumulate in %s, not %s", in, allowed, at.DType)
	}
	return b.emit(c.pos, OpMMA, at, xv, yv, acc)
}

// matmul is a@b in the inputs' dtype: an mma into a zero accumulator
// (f32, or f64 for f64 inputs), converted back.
func (b *builder) matmul(pos lang.Pos, name string, x, y value) value {
	if isPoison(x, y) {
		return poison{}
	}
	xv, yv, xt, yt, ok := b.mmaInputs(pos, name, x, y)
	if !ok {
		return poison{}
	}
	accDT := F32
	if xt.DType == F64 {
		accDT = F64
	}
	resDT := xt.DType
	if isF32ish(resDT) {
		resDT = F32
	}
	shape := mmaShape(xt, yt)
	zero := b.emit(pos, OpSplat, TileOf(accDT, shape...), b.constant(pos, 0.0, accDT))
	r := b.emit(pos, OpMMA, TileOf(accDT, shape...), xv, yv, zero)
	return b.convert(pos, r, resDT)
}

// ---- elementwise ----

// mathOp is exp, exp2, log, sqrt, rsqrt, tanh (floats; ints convert to f32) and abs.
func (b *builder) mathOp(pos lang.Pos, name string, op Op, x value) value {
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
	v := x.(*Value)
	dt := v.Type.Elem()
	if op == OpAbs {
		if dt == Bool {
			v = b.convert(pos, v, I32)
		}
	} else if !dt.IsFloat() {
		v = b.convert(pos, v, F32)
	}
	return b.emit(pos, op, v.Type, v)
}

// minmax is elementwise min or max with broadcasting (folded on numbers).
func (b *builder) minmax(pos lang.Pos, name string, op Op, x, y value) value {
	if isPoison(x, y) {
		return poison{}
	}
	if xf, ok := x.(float64); ok && name != "min" && name != "max" {
		if yf, ok := y.(float64); ok {
			// ct.minimum and ct.maximum fold as the min and max ops
			// compute: NaN wins, -0 < +0 (Python's min and max compare).
			r, _ := EvalFloatBinary(op, xf, yf)
			return r
		}
	}
	if isNumber(x) && isNumber(y) {
		less, _ := foldBinary("<", y, x)
		if (op == OpMin) == less.(bool) {
			return y
		}
		return x
	}
	dt, shape, isTile, ok := b.commonType(pos, name, x, y)
	if !ok {
		return poison{}
	}
	if dt == Bool {
		dt = I32
	}
	return b.emit(pos, op, typeOf(dt, shape, isTile), b.coerce(pos, x, dt, shape, isTile), b.coerce(pos, y, dt, shape, isTile))
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
	cv, ok := cond.(*Value)
	if !ok || !isRuntime(cv) {
		return b.fail(c.argPos(0), "where: cond must be a bool tile or scalar, got %s", describe(cond))
	}
	if cv.Type.Elem() != Bool {
		return b.fail(c.argPos(0), "where: cond must be bool, got %s (compare it, e.g. x > 0)", cv.Type)
	}
	return b.selectValues(c.pos, "where", cv, x, y)
}

// ---- reductions and shape ops ----

func (b *builder) biReduce(c *callCtx, kind string) value {
	x, t, ok := b.tileArg(c, 0, "x")
	if !ok {
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
	if (kind == ReduceSum || kind == ReduceMax || kind == ReduceMin) && t.DType == Bool {
		x = b.convert(c.pos, x, I32)
		t = x.Type.(*Tile)
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
	xt := x.Type.(*Tile)
	shape := append(append([]int(nil), xt.Shape[:axis]...), xt.Shape[axis+1:]...)
	dt := xt.DType
	if kind == ReduceArgmax || kind == ReduceArgmin {
		dt = I32
	}
	var attrs Attrs
	attrs.Set("axis", axis)
	attrs.Set("kind", kind)
	r := b.emitAttrs(c.pos, OpReduce, TileOf(dt, shape...), attrs, x)
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
	shape, ok := b.checkTileShape(dims, poss, c.argPos(1))
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
	x, ok := c.args[0].v.(*Value)
	if !ok || !isRuntime(x) {
		return b.fail(c.argPos(0), "expand_dims: x must be a tile, got %s", describe(c.args[0].v))
	}
	if _, isScalar := x.Type.(*Scalar); isScalar {
		x = b.emit(c.pos, OpSplat, TileOf(x.Type.Elem()), x)
	}
	t := x.Type.(*Tile)
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
	return b.emit(c.pos, OpReshape, TileOf(t.DType, shape...), x)
}

func (b *builder) biBroadcastTo(c *callCtx) value {
	shape, ok := b.tileShapeArg(c, 1)
	if !ok {
		return poison{}
	}
	switch x := c.args[0].v.(type) {
	case int64, float64, bool:
		return b.emit(c.pos, OpSplat, TileOf(weakDType(x), shape...), b.constant(c.pos, x, weakDType(x)))
	case *Value:
		switch t := x.Type.(type) {
		case *Scalar:
			return b.broadcastTo(c.pos, x, shape)
		case *Tile:
			s, ok := broadcastShapes(t.Shape, shape)
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
	case "range":
		return b.fail(e.Pos, "range() can only be the iterator of a for loop")
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
		op := OpMin
		if name == "max" {
			op = OpMax
		}
		r := vals[0]
		for _, v := range vals[1:] {
			r = b.minmax(e.Pos, name, op, r, v)
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
		return b.mathOp(e.Pos, "abs", OpAbs, x)
	case "len":
		switch x := x.(type) {
		case tuple:
			return int64(len(x))
		case *Value:
			if t, ok := x.Type.(*Tile); ok && t.Rank() > 0 {
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
		case *Value:
			if isRuntime(x) {
				if _, isScalar := x.Type.(*Scalar); isScalar {
					switch name {
					case "int":
						if x.Type.Elem().IsInt() {
							return x
						}
						return b.convert(e.Pos, x, I32)
					case "float":
						if x.Type.Elem().IsFloat() {
							return x
						}
						return b.convert(e.Pos, x, F32)
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
			return b.binop(c.pos, op, c.args[0].v, c.args[1].v)
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
	// Math.
	for name, op := range map[string]Op{"sin": OpSin, "cos": OpCos, "tan": OpTan, "sinh": OpSinh, "cosh": OpCosh,
		"floor": OpFloor, "ceil": OpCeil, "log2": OpLog2} {
		def(name+"(x)", func(b *builder, c *callCtx) value { return b.floatUnary(c.pos, c.name, op, c.args[0].v) })
	}
	def("atan2(x1, x2)", (*builder).biAtan2)
	def("isnan(x)", (*builder).biIsNaN)
	// Reductions and scans.
	def("prod(x, axis=None, keepdims=False, rounding_mode=None, flush_to_zero=False)", func(b *builder, c *callCtx) value {
		if !b.plainNumerics(c, 3, 4) {
			return poison{}
		}
		return b.biReduce(c, ReduceProd)
	})
	def("cumsum(x, axis=0, reverse=False, rounding_mode=None, flush_to_zero=False)", func(b *builder, c *callCtx) value { return b.biScan(c, ReduceSum) })
	def("cumprod(x, axis=0, reverse=False, rounding_mode=None, flush_to_zero=False)", func(b *builder, c *callCtx) value { return b.biScan(c, ReduceProd) })
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
	def("static_eval(expr)", func(b *builder, c *callCtx) value {
		if isRuntime(c.args[0].v) {
			return b.fail(c.argPos(0), "static_eval: the expression is not a compile-time value")
		}
		return c.args[0].v
	})
}

// plainNumerics checks the rounding_mode and flush_to_zero arguments (at
// indices rm and ftz) of the function forms: the defaults (round to nearest
// even, subnormals kept) are what tilec computes; others are not supported
// yet.
func (b *builder) plainNumerics(c *callCtx, rm, ftz int) bool {
	if c.given(rm) {
		if _, none := c.args[rm].v.(noneVal); !none {
			b.errorf(c.argPos(rm), "%s: rounding_mode other than the default (nearest even) is not supported yet", c.name)
			return false
		}
	}
	if c.given(ftz) {
		if f, ok := c.args[ftz].v.(bool); !ok || f {
			b.errorf(c.argPos(ftz), "%s: flush_to_zero=True is not supported yet", c.name)
			return false
		}
	}
	return true
}

// floatUnary is sin, cos, tan, sinh, cosh, floor, ceil and log2: float
// tiles and scalars (integers convert to f32), folded on numbers.
func (b *builder) floatUnary(pos lang.Pos, name string, op Op, x value) value {
	if isPoison(x) {
		return x
	}
	if isNumber(x) {
		r, _ := EvalFloatUnary(op, toFloat(x))
		return r
	}
	if !isRuntime(x) {
		return b.fail(pos, "%s: x must be a number or a tile, got %s", name, describe(x))
	}
	v := x.(*Value)
	if !v.Type.Elem().IsFloat() {
		v = b.convert(pos, v, F32)
	}
	return b.emit(pos, op, v.Type, v)
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
		dt = F32
	}
	return b.emit(c.pos, OpAtan2, typeOf(dt, shape, isTile), b.coerce(c.pos, x, dt, shape, isTile), b.coerce(c.pos, y, dt, shape, isTile))
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
	v := x.(*Value)
	if !v.Type.Elem().IsFloat() {
		return b.fail(c.argPos(0), "isnan: x must be a float tile or scalar, got %s", v.Type)
	}
	return b.emit(c.pos, OpIsNaN, WithElem(v.Type, Bool), v)
}

func (b *builder) biScan(c *callCtx, kind string) value {
	x, t, ok := b.tileArg(c, 0, "x")
	if !ok || !b.plainNumerics(c, 3, 4) {
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
	if t.DType == Bool {
		x = b.convert(c.pos, x, I32)
	}
	var attrs Attrs
	attrs.Set("axis", int64(axis))
	attrs.Set("kind", kind)
	if reverse {
		attrs.Set("reverse", true)
	}
	return b.emitAttrs(c.pos, OpScan, x.Type, attrs, x)
}

func (b *builder) biCat(c *callCtx) value {
	tl, ok := c.args[0].v.(tuple)
	if !ok || len(tl) != 2 {
		return b.fail(c.argPos(0), "cat: tiles must be a pair of tiles, got %s", describe(c.args[0].v))
	}
	var ts [2]*Value
	for i, v := range tl {
		x, isVal := v.(*Value)
		if !isVal || !isTileType(x.Type) {
			return b.fail(c.argPos(0), "cat: tiles must be a pair of tiles, got %s", describe(v))
		}
		ts[i] = x
	}
	if !TypesEqual(ts[0].Type, ts[1].Type) {
		return b.fail(c.argPos(0), "cat: the tiles must have one shape and dtype (%s and %s), as cuTile requires", ts[0].Type, ts[1].Type)
	}
	t := ts[0].Type.(*Tile)
	if t.Rank() == 0 {
		return b.fail(c.argPos(0), "cat: cannot concatenate rank-0 tiles")
	}
	axis, ok := b.axisArg(c, 1, t.Rank(), t)
	if !ok {
		return poison{}
	}
	shape := append([]int(nil), t.Shape...)
	shape[axis] *= 2
	if int64(t.NumElements())*2 > maxTileElems {
		return b.fail(c.pos, "cat: the result is too large")
	}
	var attrs Attrs
	attrs.Set("axis", int64(axis))
	return b.emitAttrs(c.pos, OpCat, TileOf(t.DType, shape...), attrs, ts[0], ts[1])
}

// subtileIndex reads extract's and insert's grid index: one compile-time
// or run-time integer per axis.
func (b *builder) subtileIndex(c *callCtx, i int, rank int) ([]*Value, bool) {
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
	out := make([]*Value, rank)
	for j, e := range elems {
		switch v := e.(type) {
		case int64:
			out[j] = b.constant(c.argPos(i), v, I32)
		case *Value:
			s, ok := v.Type.(*Scalar)
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
	if len(shape) != t.Rank() {
		return b.fail(c.argPos(2), "extract: shape has %d dims for a rank-%d tile", len(shape), t.Rank())
	}
	for i := range shape {
		if t.Shape[i]%shape[i] != 0 {
			return b.fail(c.argPos(2), "extract: shape %s does not divide %s", shapeString(shape), t)
		}
	}
	return b.emit(c.pos, OpExtract, TileOf(t.DType, shape...), append([]*Value{x}, idx...)...)
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
	var vt *Tile
	if vv, isVal := v.(*Value); isVal {
		vt, _ = vv.Type.(*Tile)
	}
	ones := make([]int, t.Rank())
	for i := range ones {
		ones[i] = 1
	}
	var val *Value
	switch {
	case vt != nil && vt.Rank() == 0:
		val = b.reshape(c.pos, b.coerce(c.pos, v, t.DType, vt.Shape, true), ones)
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
		val = b.coerce(c.pos, v, t.DType, ones, true)
	}
	if val == nil {
		return poison{}
	}
	return b.emit(c.pos, OpInsert, t, append([]*Value{x, val}, idx...)...)
}

func (b *builder) biBitcast(c *callCtx) value {
	x := c.args[0].v
	dt, ok := b.dtypeArg(c, 1, InvalidDType)
	if !ok || isPoison(x) {
		return poison{}
	}
	v, isVal := x.(*Value)
	if !isVal || !isRuntime(v) {
		return b.fail(c.argPos(0), "bitcast: x must be a tile or a run-time scalar, got %s", describe(x))
	}
	from := v.Type.Elem()
	if from == Bool || dt == Bool || from.Bits() != dt.Bits() {
		return b.fail(c.argPos(1), "bitcast: %s and %s differ in width (or are bool)", from, dt)
	}
	if from == dt {
		return v
	}
	return b.emit(c.pos, OpBitcast, WithElem(v.Type, dt), v)
}

// biAstile makes a rank-0 tile of a scalar (a tile stays as it is,
// converted to dtype).
func (b *builder) biAstile(c *callCtx) value {
	dt, ok := b.dtypeArg(c, 1, InvalidDType)
	x := c.args[0].v
	if !ok || isPoison(x) {
		return poison{}
	}
	if v, isVal := x.(*Value); isVal {
		if t, isTile := v.Type.(*Tile); isTile {
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
	if v, ok := r.(*Value); ok && !isPoison(r) {
		dt, _ := b.dtypeArg(c, 1, I32)
		if v.Type.Elem() != dt {
			return b.convert(c.pos, v, dt)
		}
	}
	return r
}
