package build

// An array's views and raw memory, as cuTile has them:
//
//   - A.slice(axis, start, stop): the array between start and stop along
//     an axis (op array_slice), an array like any other: every array
//     builtin takes it, its shape is read where it is used;
//   - A.tiled_view(tile_shape, padding_mode=, traversal_steps=): a
//     compile-time view (nothing is emitted) whose load, store and
//     atomic_store_* are ct.load, ct.store and the atomics at tile
//     origins index*traversal_steps (a load or store at tile index when
//     the steps are the tile shape, the gather, scatter or atomic of the
//     tile's elements otherwise) and whose num_tiles(axis) is
//     cdiv(extent, step);
//   - A.get_raw_memory(): the array's memory by element offsets, whatever
//     its shape and strides: load_offset, store_offset, atomic_cas_offset
//     and atomic_<kind>_offset (ops of their own, ir/rawmem.go).

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/lang"
)

// arrayMethod is `A.slice`, `A.tiled_view` or `A.get_raw_memory` before
// the call.
type arrayMethod struct {
	a    *arrayVal
	name string
}

// rawMemVal is A.get_raw_memory(): A's memory addressed by element
// offsets from its first element.
type rawMemVal struct{ a *arrayVal }

// tiledViewVal is A.tiled_view(...): the array, its tile shape as given
// (() for one element per tile), the tile shape every access uses
// (shape, the given one or all ones), the padding mode (a
// ct.PaddingMode member) and the elements between tile origins per axis.
type tiledViewVal struct {
	a       *arrayVal
	given   []int
	shape   []int
	pad     padMode
	steps   []int
	strided bool // steps differ from shape: accesses are element-wise
}

// viewMethod is a method of a raw memory or a tiled view before the call.
type viewMethod struct {
	recv value // rawMemVal or *tiledViewVal
	name string
}

// methodSig is a method's signature as cuTile declares it: the
// parameters after self, of which the first npos may be positional (the
// others are keyword-only).
type methodSig struct {
	params []sigParam
	npos   int
}

func mustMethodSig(sig string, npos int) methodSig {
	_, params := parseSig(sig)
	return methodSig{params: params, npos: npos}
}

var (
	arraySliceSig     = mustMethodSig("slice(axis, start, stop)", 3)
	arrayTiledViewSig = mustMethodSig("tiled_view(tile_shape, padding_mode=UNDETERMINED, traversal_steps=None)", 1)
	arrayRawMemSig    = mustMethodSig("get_raw_memory()", 0)

	loadOffsetSig  = mustMethodSig("load_offset(offset, mask=None, padding_value=0, latency=None)", 1)
	storeOffsetSig = mustMethodSig("store_offset(offset, value, mask=None, latency=None)", 2)
	casOffsetSig   = mustMethodSig("atomic_cas_offset(offset, expected, desired, mask=None, memory_order=ACQ_REL, memory_scope=DEVICE)", 3)

	viewLoadSig     = mustMethodSig("load(index, check_bounds=True, latency=None, allow_tma=None)", 1)
	viewStoreSig    = mustMethodSig("store(index, tile, check_bounds=True, latency=None, allow_tma=None)", 2)
	viewNumTilesSig = mustMethodSig("num_tiles(axis)", 1)
)

// rmwOffsetSig is atomic_<kind>_offset's signature.
func rmwOffsetSig(kind string) methodSig {
	return mustMethodSig("atomic_"+kind+"_offset(offset, update, mask=None, memory_order=ACQ_REL, memory_scope=DEVICE)", 2)
}

// viewAtomicKinds are TiledView's atomic_store_<kind> methods (no xchg).
var viewAtomicKinds = []string{ir.AtomicAdd, ir.AtomicMax, ir.AtomicMin, ir.AtomicAnd, ir.AtomicOr, ir.AtomicXor}

// bindMethod binds a method call's arguments to sig, refusing more
// positional ones than cuTile's signature takes.
func (b *builder) bindMethod(text string, sig methodSig, e *lang.Call, pos []arg, kws []kwArg) (*callCtx, bool) {
	name := text[strings.LastIndexByte(text, '.')+1:]
	if len(pos) > sig.npos && len(pos) <= len(sig.params) {
		b.errorf(pos[sig.npos].e.Position(), "%s takes %d positional argument%s (the others by keyword), got %d", signatureText(text, sig.params), sig.npos, plural(sig.npos), len(pos))
		return nil, false
	}
	args, ok := b.bindArgs(text, sig.params, e.Pos, pos, kws)
	if !ok {
		return nil, false
	}
	for _, a := range args {
		if isPoison(a.v) {
			return nil, false
		}
	}
	return &callCtx{name: name, sig: signatureText(name, sig.params), pos: e.Pos, args: args}, true
}

// arrayAttrMethod is A.name for the array methods of this file.
func arrayAttrMethod(a *arrayVal, name string) (value, bool) {
	switch name {
	case "slice", "tiled_view", "get_raw_memory":
		return arrayMethod{a: a, name: name}, true
	}
	return nil, false
}

// callArrayMethod calls A.slice, A.tiled_view or A.get_raw_memory.
func (b *builder) callArrayMethod(m arrayMethod, e *lang.Call, pos []arg, kws []kwArg) value {
	text := exprText(e.Fun)
	switch m.name {
	case "get_raw_memory":
		if _, ok := b.bindMethod(text, arrayRawMemSig, e, pos, kws); !ok {
			return poison{}
		}
		return rawMemVal{a: m.a}
	case "slice":
		c, ok := b.bindMethod(text, arraySliceSig, e, pos, kws)
		if !ok {
			return poison{}
		}
		return b.arraySlice(m.a, c)
	}
	c, ok := b.bindMethod(text, arrayTiledViewSig, e, pos, kws)
	if !ok {
		return poison{}
	}
	return b.tiledView(m.a, c)
}

// arraySlice builds A.slice(axis, start, stop). cuTile asks start and
// stop of a signed integer type; constants must be non-negative with
// stop >= start. Against the extent they are checked at run time by the
// interpreter only (cuTile leaves a slice past the end undefined).
func (b *builder) arraySlice(a *arrayVal, c *callCtx) value {
	axis, ok := b.axisArg(c, 0, a.rank(), a.t)
	if !ok {
		return poison{}
	}
	bounds := make([]*ir.Value, 2)
	consts := make([]int64, 2)
	isConst := make([]bool, 2)
	for j, what := range []string{"start", "stop"} {
		i := 1 + j
		switch x := c.args[i].v.(type) {
		case int64:
			if x < 0 {
				return b.fail(c.argPos(i), "slice: %s must be non-negative, got %d", what, x)
			}
			if x > 1<<31-1 {
				return b.fail(c.argPos(i), "slice: %s %d is out of range (array extents are int32)", what, x)
			}
			consts[j], isConst[j] = x, true
			bounds[j] = b.constant(c.argPos(i), x, ir.I32)
			continue
		case *ir.Value:
			if sh, ok := ir.ValueShape(x.Type); ok && len(sh) == 0 && x.Type.Elem().IsInt() && !x.Type.Elem().IsUnsigned() {
				bounds[j] = x
				continue
			}
		}
		return b.fail(c.argPos(i), "slice: %s must be a signed integer scalar or rank-0 tile, got %s", what, describe(c.args[i].v))
	}
	if isConst[0] && isConst[1] && consts[1] < consts[0] {
		return b.fail(c.argPos(2), "slice: stop (%d) must be greater than or equal to start (%d)", consts[1], consts[0])
	}
	var attrs ir.Attrs
	attrs.Set(ir.AttrKeyAxis, int64(axis))
	v := b.emitInferred(c.pos, ir.OpArraySlice, attrs, a.v, bounds[0], bounds[1])
	return &arrayVal{name: a.name + ".slice(...)", v: v, t: a.t}
}

// tiledView builds A.tiled_view(tile_shape, padding_mode, traversal_steps).
func (b *builder) tiledView(a *arrayVal, c *callCtx) value {
	dims, poss, ok := b.intsArg(c, 0, "tile shape")
	if !ok {
		return poison{}
	}
	given, ok := b.checkTileShape(dims, poss, nil, c.argPos(0))
	if !ok {
		return poison{}
	}
	if len(given) != 0 && len(given) != a.rank() {
		return b.fail(c.argPos(0), "tiled_view: tile_shape has %d dims but %s has rank %d", len(given), a.name, a.rank())
	}
	shape := given
	if len(shape) == 0 {
		shape = ones(a.rank())
	}
	pad := padMode("UNDETERMINED")
	if c.given(1) {
		m, isPad := c.args[1].v.(padMode)
		if !isPad {
			return b.fail(c.argPos(1), "tiled_view: padding_mode must be a ct.PaddingMode member, got %s", describe(c.args[1].v))
		}
		pad = m
	}
	if padModes[string(pad)] == ir.PadNaN && !a.dtype().IsFloat() {
		return b.fail(c.argPos(1), "tiled_view: padding_mode NAN has no value in %s (%s's dtype)", a.dtype(), a.name)
	}
	steps := shape
	if _, none := c.args[2].v.(noneVal); c.given(2) && !none {
		ns, sposs, ok := b.intsArg(c, 2, "traversal_steps")
		if !ok {
			return poison{}
		}
		if len(ns) != a.rank() {
			return b.fail(c.argPos(2), "tiled_view: expected traversal_steps length to be %d (%s's rank), got %d", a.rank(), a.name, len(ns))
		}
		steps = make([]int, len(ns))
		for j, n := range ns {
			if n <= 0 {
				return b.fail(sposs[j], "tiled_view: entry %d of traversal_steps (%d) is not positive", j, n)
			}
			if n > 1<<31-1 {
				return b.fail(sposs[j], "tiled_view: entry %d of traversal_steps (%d) is out of range", j, n)
			}
			steps[j] = int(n)
		}
	}
	strided := false
	for j := range steps {
		strided = strided || steps[j] != shape[j]
	}
	return &tiledViewVal{a: a, given: given, shape: shape, pad: pad, steps: steps, strided: strided}
}

// rawMemAttr is m.name on a raw memory: its dtype or a method.
func (b *builder) rawMemAttr(m rawMemVal, e *lang.Attr) value {
	switch e.Name {
	case "dtype":
		return m.a.dtype()
	case "load_offset", "store_offset", "atomic_cas_offset":
		return viewMethod{recv: m, name: e.Name}
	}
	if k, ok := strings.CutPrefix(e.Name, "atomic_"); ok {
		if k, ok = strings.CutSuffix(k, "_offset"); ok && isAtomicKind(k) {
			return viewMethod{recv: m, name: e.Name}
		}
	}
	return b.fail(e.NamePos, "RawArrayMemory has no attribute %s (it has dtype, load_offset, store_offset, atomic_cas_offset and atomic_<op>_offset)", e.Name)
}

func isAtomicKind(k string) bool {
	for _, x := range ir.AtomicKinds {
		if x == k {
			return true
		}
	}
	return false
}

// tiledViewAttr is v.name on a tiled view.
func (b *builder) tiledViewAttr(v *tiledViewVal, e *lang.Attr) value {
	switch e.Name {
	case "dtype":
		return v.a.dtype()
	case "tile_shape":
		return intsTuple(v.given)
	case "traversal_steps":
		return intsTuple(v.steps)
	case "num_tiles", "load", "store":
		return viewMethod{recv: v, name: e.Name}
	}
	if k, ok := strings.CutPrefix(e.Name, "atomic_store_"); ok {
		for _, x := range viewAtomicKinds {
			if x == k {
				return viewMethod{recv: v, name: e.Name}
			}
		}
	}
	return b.fail(e.NamePos, "TiledView has no attribute %s (it has dtype, tile_shape, traversal_steps, num_tiles, load, store and atomic_store_<op>)", e.Name)
}

func intsTuple(xs []int) tuple {
	t := make(tuple, len(xs))
	for i, x := range xs {
		t[i] = int64(x)
	}
	return t
}

// callViewMethod calls a method of a raw memory or a tiled view.
func (b *builder) callViewMethod(m viewMethod, e *lang.Call, pos []arg, kws []kwArg) value {
	text := exprText(e.Fun)
	switch r := m.recv.(type) {
	case rawMemVal:
		var sig methodSig
		kind := ""
		switch m.name {
		case "load_offset":
			sig = loadOffsetSig
		case "store_offset":
			sig = storeOffsetSig
		case "atomic_cas_offset":
			sig = casOffsetSig
		default:
			kind = strings.TrimSuffix(strings.TrimPrefix(m.name, "atomic_"), "_offset")
			sig = rmwOffsetSig(kind)
		}
		c, ok := b.bindMethod(text, sig, e, pos, kws)
		if !ok {
			return poison{}
		}
		switch m.name {
		case "load_offset":
			return b.loadOffset(r.a, c)
		case "store_offset":
			return b.storeOffset(r.a, c)
		}
		return b.atomicOffset(r.a, c, kind)
	case *tiledViewVal:
		switch m.name {
		case "num_tiles":
			c, ok := b.bindMethod(text, viewNumTilesSig, e, pos, kws)
			if !ok {
				return poison{}
			}
			axis, ok := b.axisArg(c, 0, r.a.rank(), r.a.t)
			if !ok {
				return poison{}
			}
			return b.cdiv(c.pos, b.arrayDim(r.a, axis, c.pos), int64(r.steps[axis]))
		case "load":
			c, ok := b.bindMethod(text, viewLoadSig, e, pos, kws)
			if !ok {
				return poison{}
			}
			return b.viewLoad(r, c, e)
		case "store":
			c, ok := b.bindMethod(text, viewStoreSig, e, pos, kws)
			if !ok {
				return poison{}
			}
			return b.viewStore(r, c, e)
		}
		kind := strings.TrimPrefix(m.name, "atomic_store_")
		c, ok := b.bindMethod(text, mustMethodSig(m.name+"(index, update)", 2), e, pos, kws)
		if !ok {
			return poison{}
		}
		return b.viewAtomic(r, c, e, kind)
	}
	return b.fail(e.Pos, "internal: method %s of %s", m.name, describe(m.recv))
}

// offsetArg reads a raw-memory offset: an integer constant, scalar or
// tile, as a tile of its own shape (a rank-0 one for a scalar) and dtype.
func (b *builder) offsetArg(c *callCtx) (*ir.Value, []int, bool) {
	switch x := c.args[0].v.(type) {
	case int64:
		return b.coerce(c.argPos(0), x, weakDType(x), nil, true), []int{}, true
	case *ir.Value:
		if sh, ok := ir.ValueShape(x.Type); ok && x.Type.Elem().IsInt() {
			return b.coerce(c.argPos(0), x, x.Type.Elem(), sh, true), sh, true
		}
	}
	b.errorf(c.argPos(0), "%s: offset must be an integer scalar or tile, got %s", c.name, describe(c.args[0].v))
	return nil, nil, false
}

// loadOffset is RawArrayMemory.load_offset.
func (b *builder) loadOffset(a *arrayVal, c *callCtx) value {
	off, shape, ok := b.offsetArg(c)
	if !ok {
		return poison{}
	}
	mask, ok := b.maskArg(c, 1, shape)
	if !ok {
		return poison{}
	}
	if _, none := c.args[2].v.(noneVal); none {
		c.args[2] = arg{} // padding_value=None: cuTile leaves it undetermined; tilec pads with 0
	}
	pad := b.indexedValue(c, 2, a, shape, "padding_value", false)
	var attrs ir.Attrs
	if pad == nil || !b.latencyArg(c, 3, &attrs) {
		return poison{}
	}
	args := []*ir.Value{a.v, off, pad}
	if mask != nil {
		args = append(args, mask)
	}
	return b.emitInferred(c.pos, ir.OpLoadOffset, attrs, args...)
}

// storeOffset is RawArrayMemory.store_offset.
func (b *builder) storeOffset(a *arrayVal, c *callCtx) value {
	off, shape, ok := b.offsetArg(c)
	if !ok {
		return poison{}
	}
	val := b.indexedValue(c, 1, a, shape, "value", false)
	mask, ok := b.maskArg(c, 2, shape)
	var attrs ir.Attrs
	if val == nil || !ok || !b.latencyArg(c, 3, &attrs) {
		return poison{}
	}
	args := []*ir.Value{a.v, off, val}
	if mask != nil {
		args = append(args, mask)
	}
	b.emitAttrs(c.pos, ir.OpStoreOffset, nil, attrs, args...)
	return noneVal{}
}

// atomicOffset is RawArrayMemory.atomic_<kind>_offset (kind "" for
// atomic_cas_offset), with the dtypes and operand rules of ct.atomic_*.
func (b *builder) atomicOffset(a *arrayVal, c *callCtx, kind string) value {
	off, shape, ok := b.offsetArg(c)
	if !ok {
		return poison{}
	}
	nv := 1
	if kind == "" {
		nv = 2
	}
	mask, mOK := b.maskArg(c, 1+nv, shape)
	order, oOK := b.enumArg(c, 2+nv, nsMemoryOrder, "ACQ_REL", ir.AttrSpecOf(ir.OpAtomicRMWOffset, ir.AttrKeyMemoryOrder).Enum)
	scope, sOK := b.enumArg(c, 3+nv, nsMemoryScope, "DEVICE", ir.AttrSpecOf(ir.OpAtomicRMWOffset, ir.AttrKeyMemoryScope).Enum)
	if !mOK || !oOK || !sOK {
		return poison{}
	}
	if msg := atomicDTypeRefusal(kind, a.dtype()); msg != "" {
		return b.fail(c.pos, "%s: %s holds %s; %s", c.name, a.name, a.dtype(), msg)
	}
	var attrs ir.Attrs
	op := ir.OpAtomicCASOffset
	names := []string{"expected", "desired"}
	if kind != "" {
		op = ir.OpAtomicRMWOffset
		names = []string{"update"}
		attrs.Set(ir.AttrKeyKind, kind)
	}
	attrs.Set(ir.AttrKeyMemoryOrder, order)
	attrs.Set(ir.AttrKeyMemoryScope, scope)
	bitwise := kind == ir.AtomicAnd || kind == ir.AtomicOr || kind == ir.AtomicXor
	args := []*ir.Value{a.v, off}
	for j, n := range names {
		v := b.indexedValue(c, 1+j, a, shape, n, bitwise)
		if v == nil {
			return poison{}
		}
		args = append(args, v)
	}
	if mask != nil {
		args = append(args, mask)
	}
	return b.emitInferred(c.pos, op, attrs, args...)
}

// atomicDTypeRefusal says which dtypes an atomic of kind ("" for cas)
// supports when d is not one of them, or "" when it is.
func atomicDTypeRefusal(kind string, d ir.DType) string {
	switch kind {
	case "", ir.AtomicXchg:
		if !ir.AtomicDType(d, true) {
			return "it supports int32, int64, uint32, uint64, float32 and float64"
		}
	case ir.AtomicAdd:
		if !ir.AtomicDType(d, true) && d != ir.F16 && d != ir.BF16 {
			return "it supports int32, int64, uint32, uint64, float16, bfloat16, float32 and float64"
		}
	default:
		if !ir.AtomicDType(d, false) {
			return "it supports int32, int64, uint32 and uint64"
		}
	}
	return ""
}

// builtinCtx is a call of ct builtin name with the given arguments (their
// expressions, for positions, are the method call's where the method did
// not take the argument itself), for the tiled view's accesses, which are
// ct.load, ct.store and the atomics.
func builtinCtx(name string, pos lang.Pos, args []arg) *callCtx {
	return &callCtx{name: name, sig: signatureText(name, ctBuiltins[name].params), pos: pos, args: args}
}

// synth is an argument the method call stands for (positioned at it).
func synth(v value, e *lang.Call) arg { return arg{v: v, e: e} }

// viewLoad is TiledView.load: ct.load of the view's tile at the index
// when the tiles partition the array; otherwise the gather of the tile's
// elements from origin index*steps, padded as the view says.
func (b *builder) viewLoad(v *tiledViewVal, c *callCtx, e *lang.Call) value {
	if !v.strided {
		args := []arg{synth(v.a, e), c.args[0], synth(intsTuple(v.given), e), {}, synth(v.pad, e), c.args[2], c.args[3], c.args[1]}
		return b.biLoad(builtinCtx("load", c.pos, args))
	}
	lc := builtinCtx("load", c.pos, []arg{synth(v.a, e), c.args[0], {}, {}, {}, c.args[2], c.args[3], c.args[1]})
	idx, ok := b.indexArg(lc, 1, v.a)
	var attrs ir.Attrs
	if _, hintsOK := b.memHints(lc, v.a.rank(), &attrs); !ok || !hintsOK {
		return poison{}
	}
	pv, _ := padValue(v.a.dtype(), padModes[string(v.pad)]) // NAN on integers was refused by tiled_view
	padV := b.coerce(c.pos, pv, v.a.dtype(), v.shape, true)
	t := b.emitInferred(c.pos, ir.OpGather, gatherAttrs(attrs), append(append([]*ir.Value{v.a.v}, b.stridedIndices(c.pos, idx, v.shape, v.steps)...), padV)...)
	if len(v.given) == 0 {
		return b.reshape(c.pos, t, []int{})
	}
	return t
}

// viewStore is TiledView.store: the tile (a scalar, or a tile that
// broadcasts to the tile shape) stored as ct.store would at the index, or
// scattered to the tile's elements from origin index*steps.
func (b *builder) viewStore(v *tiledViewVal, c *callCtx, e *lang.Call) value {
	sc := builtinCtx("store", c.pos, []arg{synth(v.a, e), c.args[0], c.args[1], {}, c.args[3], c.args[4], c.args[2]})
	var x *ir.Value
	switch t := c.args[1].v.(type) {
	case *ir.Value:
		sh, ok := ir.ValueShape(t.Type)
		if !ok {
			return b.fail(c.argPos(1), "store: tile must be a tile or a scalar, got %s", describe(t))
		}
		if s, ok := BroadcastShapes(sh, v.given); !ok || !slices.Equal(s, v.given) {
			return b.fail(c.argPos(1), "store: tile of shape %s does not broadcast to the tiled view's tile shape %s", shapeString(sh), shapeString(v.given))
		}
		x = b.broadcastTo(c.argPos(1), t, v.given)
	case int64, float64, bool:
		// A number takes the array's dtype, over the tile shape.
		if x = b.indexedValue(sc, 2, v.a, v.given, "tile", false); x == nil {
			return poison{}
		}
	default:
		return b.fail(c.argPos(1), "store: tile must be a tile or a scalar, got %s", describe(t))
	}
	sc.args[2].v = x
	if !v.strided {
		return b.biStore(sc)
	}
	idx, ok := b.indexArg(sc, 1, v.a)
	var attrs ir.Attrs
	if _, hintsOK := b.memHints(sc, v.a.rank(), &attrs); !ok || !hintsOK {
		return poison{}
	}
	if len(v.given) == 0 {
		x = b.reshape(c.pos, x, v.shape)
		sc.args[2].v = x
	}
	// The stored values in the array's dtype (a promoting cast, as
	// store's).
	val := b.indexedValue(sc, 2, v.a, v.shape, "tile", false)
	if val == nil {
		return poison{}
	}
	b.emitAttrs(c.pos, ir.OpScatter, nil, gatherAttrs(attrs), append(append([]*ir.Value{v.a.v}, b.stridedIndices(c.pos, idx, v.shape, v.steps)...), val)...)
	return noneVal{}
}

// viewAtomic is TiledView.atomic_store_<kind>: the atomic of ct.atomic_*
// on the tile's elements (out-of-bounds ones do nothing) with relaxed
// order at device scope, as cuTile's, its old values unused.
func (b *builder) viewAtomic(v *tiledViewVal, c *callCtx, e *lang.Call, kind string) value {
	lc := builtinCtx("load", c.pos, []arg{synth(v.a, e), c.args[0], {}, {}, {}, {}, {}, {}})
	idx, ok := b.indexArg(lc, 1, v.a)
	if !ok {
		return poison{}
	}
	if u, isTile := c.args[1].v.(*ir.Value); isTile {
		if sh, ok := ir.ValueShape(u.Type); ok {
			if s, ok := BroadcastShapes(sh, v.given); !ok || !slices.Equal(s, v.given) {
				return b.fail(c.argPos(1), "%s: update of shape %s does not broadcast to the tiled view's tile shape %s", c.name, shapeString(sh), shapeString(v.given))
			}
		}
	}
	indices := tuple{}
	for _, x := range b.stridedIndices(c.pos, idx, v.shape, v.steps) {
		indices = append(indices, x)
	}
	name := "atomic_" + kind
	args := []arg{synth(v.a, e), synth(indices, e), c.args[1], synth(true, e),
		synth(enumVal{ns: nsMemoryOrder, member: "RELAXED"}, e), synth(enumVal{ns: nsMemoryScope, member: "DEVICE"}, e)}
	ac := builtinCtx(name, c.pos, args)
	ac.name = c.name
	if r := b.biAtomic(ac, kind); isPoison(r) {
		return r
	}
	return noneVal{}
}

// stridedIndices are the element indices of the tile of the given shape
// whose origin is idx[d]*steps[d] along each axis d: one tile of the
// shape per axis, idx[d]*steps[d] + (0, 1, ..., shape[d]-1) along d.
func (b *builder) stridedIndices(pos lang.Pos, idx []*ir.Value, shape, steps []int) []*ir.Value {
	out := make([]*ir.Value, len(shape))
	for d, n := range shape {
		dt := idx[d].Type.Elem()
		iota := b.convert(pos, b.emit(pos, ir.OpIota, ir.TileOf(ir.I32, n)), dt)
		var base value = idx[d]
		if steps[d] != 1 {
			base = b.binop(pos, "*", base, int64(steps[d]))
		}
		x, ok := b.binop(pos, "+", iota, base).(*ir.Value)
		if !ok {
			x = iota // poison: the error is out and the build fails
		}
		unit := ones(len(shape))
		unit[d] = n
		out[d] = b.broadcastTo(pos, b.reshape(pos, x, unit), shape)
	}
	return out
}

// describeView names the values of this file for messages.
func describeView(v value) (string, bool) {
	switch v := v.(type) {
	case arrayMethod:
		return "method " + v.a.name + "." + v.name, true
	case rawMemVal:
		return "the raw memory of " + v.a.name, true
	case *tiledViewVal:
		return fmt.Sprintf("a tiled view of %s", v.a.name), true
	case viewMethod:
		return "method " + v.name, true
	}
	return "", false
}
