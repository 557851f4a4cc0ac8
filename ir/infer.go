package ir

// This file holds each op's typing rule (OpInfo.Infer): the result types
// from the operands' types and the attributes, or a message saying which
// operand or attribute is wrong. The verifier checks every instruction's
// declared results against its rule; the builder and the passes call the
// rule (InferResults) instead of computing a result type of their own, so
// that each rule is written once.
//
// Some results are partly the maker's choice, not a function of the
// operands: convert's dtype, reshape's and broadcast's shapes, a load's
// tile shape, a constant's dtype. The rules of those ops read the choice
// from the instruction's declared result, check it against the operands
// and return it; without a declared result they say the result is chosen
// by the maker. Where a rule relates operands to the result (an
// element-wise op's operands have its type, mma's accumulator is its
// result), it checks the operands against the declared result when there
// is one, so that its message names the type the instruction states.

import (
	"fmt"
	"slices"
)

// InferFunc is an op's typing rule: given an instruction's operands and
// attributes (and, where the op leaves part of its result to its maker,
// the declared result types), its result types, or a message.
type InferFunc func(in *Instr) (results []Type, msg string)

// InferResults runs op's typing rule on operands args and attributes
// attrs, for a maker that has not made the instruction yet. Ops whose
// results are partly the maker's choice (see above) return a message.
func InferResults(op Op, args []*Value, attrs Attrs) ([]Type, string) {
	return op.Info().Infer(&Instr{Op: op, Args: args, Attrs: attrs})
}

// InferResult is InferResults for an op of one result.
func InferResult(op Op, args []*Value, attrs Attrs) (Type, string) {
	ts, msg := InferResults(op, args, attrs)
	if msg != "" {
		return nil, msg
	}
	if len(ts) != 1 {
		return nil, fmt.Sprintf("%s has %d results, not one", op, len(ts))
	}
	return ts[0], ""
}

// declared is the declared type of in's result i, or nil when in has no
// such result (a rule run for a maker, or a result count the verifier
// reports after the rule).
func declared(in *Instr, i int) Type {
	if i < len(in.Results) && in.Results[i] != nil {
		return in.Results[i].Type
	}
	return nil
}

// declaredOr is declared(in, i), or t when in declares no result i.
func declaredOr(in *Instr, i int, t Type) Type {
	if d := declared(in, i); d != nil {
		return d
	}
	return t
}

// chosen is the declared result that a rule of a maker-chosen result
// checks, or a message when there is none.
func chosen(in *Instr) (Type, string) {
	if d := declared(in, 0); d != nil {
		return d, ""
	}
	return nil, fmt.Sprintf("the result type of %s is chosen by its maker", in.Op)
}

func one(t Type) ([]Type, string) { return []Type{t}, "" }

func fail(format string, args ...any) ([]Type, string) {
	return nil, fmt.Sprintf(format, args...)
}

// The rules read attributes through Attrs with the keys' constants, not
// the checked accessors (Instr.Axis...): those consult the op table, which
// holds the rules (an initialization cycle), and the verifier's checkAttrs
// has matched every attribute against the op's declarations before it runs
// the rule.

// inferNone is the rule of ops without results and without operand types
// to check (terminators, waits, fences).
func inferNone(*Instr) ([]Type, string) { return nil, "" }

// inferI32 is the rule of the GPU-level ops that read a hardware index or
// count: an i32 scalar.
func inferI32(*Instr) ([]Type, string) { return one(ScalarOf(I32)) }

// dtypeClass is the element dtypes that an element-wise op takes; its
// row's rule says which (elementwise), so that a new element-wise op is
// one table row.
type dtypeClass uint8

const (
	// numeric dtypes: every dtype but bool (the arithmetic).
	numeric dtypeClass = iota
	// floats only (true division, the math functions).
	floats
	// integers only (the shifts).
	ints
	// bool (logical) or integers (bitwise).
	boolOrInts
)

// elementwise is the rule of an element-wise op on dtypes of class c:
// operands and result of one scalar or tile type.
func elementwise(c dtypeClass) InferFunc {
	return func(in *Instr) ([]Type, string) {
		if len(in.Args) == 0 {
			return fail("%s needs operands", in.Op)
		}
		res := declaredOr(in, 0, in.Args[0].Type)
		for _, x := range in.Args {
			if !TypesEqual(x.Type, res) {
				return fail("operand %v has type %v, want the result type %v", x, x.Type, res)
			}
		}
		if _, ok := ValueShape(res); !ok {
			return fail("%s on %v, want a scalar or a tile", in.Op, res)
		}
		switch d := res.Elem(); c {
		case floats:
			if !d.IsFloat() {
				return fail("%s needs a float type, has %v", in.Op, d)
			}
		case ints:
			if !d.IsInt() {
				return fail("%s needs an integer type, has %v", in.Op, d)
			}
		case boolOrInts:
			if d != Bool && !d.IsInt() {
				return fail("%s needs a bool or integer type, has %v", in.Op, d)
			}
		default:
			if d == Bool {
				return fail("%s on bool", in.Op)
			}
		}
		return one(res)
	}
}

func inferConst(in *Instr) ([]Type, string) {
	res, msg := chosen(in)
	if msg != "" {
		return nil, msg
	}
	s, ok := res.(*Scalar)
	if !ok {
		return fail("const result %v, want a scalar", res)
	}
	switch x := in.Attrs.Get(AttrKeyValue).(type) {
	case bool:
		if s.DType != Bool {
			return fail("bool value for %v", s)
		}
	case int64:
		if s.DType == Bool {
			return fail("integer value for bool")
		}
		if s.DType.IsInt() && WrapInt(s.DType, x) != x {
			return fail("value %d does not fit in %v", x, s.DType)
		}
	case float64:
		if !s.DType.IsFloat() {
			return fail("float value for %v", s)
		}
	default:
		return fail("value attribute of type %T", x)
	}
	return one(res)
}

// inferGridIndex: bid and num_blocks, an i32 along grid axis 0..2.
func inferGridIndex(in *Instr) ([]Type, string) {
	axis, ok := in.Attrs.Get(AttrKeyAxis).(int64)
	if !ok || axis < 0 || axis > 2 {
		return fail("axis %v, want 0, 1 or 2", in.Attrs.Get(AttrKeyAxis))
	}
	return one(ScalarOf(I32))
}

// inferArrayAxis: dim and stride, a scalar integer (the maker's dtype)
// along an axis of the array.
func inferArrayAxis(in *Instr) ([]Type, string) {
	a := in.Args
	arr, ok := a[0].Type.(*Array)
	if !ok {
		return fail("operand %v has type %v, want an array", a[0], a[0].Type)
	}
	axis, ok := in.Attrs.Get(AttrKeyAxis).(int64)
	if !ok || axis < 0 || axis >= int64(arr.Rank) {
		return fail("axis %v out of range for %v", in.Attrs.Get(AttrKeyAxis), arr)
	}
	res, msg := chosen(in)
	if msg != "" {
		return nil, msg
	}
	if s, ok := res.(*Scalar); !ok || !s.DType.IsInt() {
		return fail("result %v, want a scalar integer", res)
	}
	return one(res)
}

// inferListGet: the list's item type, at an integer scalar index.
func inferListGet(in *Instr) ([]Type, string) {
	l, ok := in.Args[0].Type.(*ArrayList)
	if !ok {
		return fail("operand %v has type %v, want a list of arrays", in.Args[0], in.Args[0].Type)
	}
	if sh, ok := ValueShape(in.Args[1].Type); !ok || len(sh) != 0 || !in.Args[1].Type.Elem().IsInt() {
		return fail("index %v has type %v, want an integer scalar or rank-0 tile", in.Args[1], in.Args[1].Type)
	}
	return one(l.Item())
}

// inferListLen: i32, cuTile's type of len() of a list.
func inferListLen(in *Instr) ([]Type, string) {
	if _, ok := in.Args[0].Type.(*ArrayList); !ok {
		return fail("operand %v has type %v, want a list of arrays", in.Args[0], in.Args[0].Type)
	}
	return one(ScalarOf(I32))
}

// inferCmp: bool of the operands' shape.
func inferCmp(in *Instr) ([]Type, string) {
	a := in.Args
	if !TypesEqual(a[0].Type, a[1].Type) {
		return fail("operand types %v and %v differ", a[0].Type, a[1].Type)
	}
	if _, ok := ValueShape(a[0].Type); !ok {
		return fail("cmp on %v", a[0].Type)
	}
	want := WithElem(a[0].Type, Bool)
	if res := declared(in, 0); res != nil && !TypesEqual(res, want) {
		return fail("result %v, want bool of the operands' shape", res)
	}
	return one(want)
}

// inferSelect: the type of both choices; the condition is bool of their
// shape or a bool scalar.
func inferSelect(in *Instr) ([]Type, string) {
	a := in.Args
	res := declaredOr(in, 0, a[1].Type)
	if _, ok := ValueShape(res); !ok {
		return fail("select of %v", res)
	}
	if !TypesEqual(a[1].Type, res) || !TypesEqual(a[2].Type, res) {
		return fail("operands %v, %v, want the result type %v", a[1].Type, a[2].Type, res)
	}
	if c := a[0].Type; !TypesEqual(c, ScalarOf(Bool)) && !TypesEqual(c, WithElem(res, Bool)) {
		return fail("condition %v, want bool of the result's shape or a bool scalar", c)
	}
	return one(res)
}

// sameShape reports whether x and y are both scalars, or tiles of one shape.
func sameShape(x, y Type) bool {
	sh, ok := ValueShape(x)
	rsh, rok := ValueShape(y)
	return ok && rok && slices.Equal(sh, rsh) && IsTileType(x) == IsTileType(y)
}

// inferConvert: the operand's shape in the maker's dtype.
func inferConvert(in *Instr) ([]Type, string) {
	res, msg := chosen(in)
	if msg != "" {
		return nil, msg
	}
	if !sameShape(in.Args[0].Type, res) {
		return fail("convert %v to %v changes the shape", in.Args[0].Type, res)
	}
	return one(res)
}

// inferIsNaN: bool of a float operand's shape.
func inferIsNaN(in *Instr) ([]Type, string) {
	x := in.Args[0].Type
	want := x
	if _, ok := ValueShape(x); ok {
		want = WithElem(x, Bool)
	}
	res := declaredOr(in, 0, want)
	if !sameShape(x, res) {
		return fail("%s %v to %v changes the shape", in.Op, x, res)
	}
	if from, to := x.Elem(), res.Elem(); !from.IsFloat() || to != Bool {
		return fail("isnan of %v to %v, want a float operand and a bool result", from, to)
	}
	return one(res)
}

// inferBitcast: the operand's shape in the maker's dtype of one width.
func inferBitcast(in *Instr) ([]Type, string) {
	res, msg := chosen(in)
	if msg != "" {
		return nil, msg
	}
	x := in.Args[0].Type
	if !sameShape(x, res) {
		return fail("%s %v to %v changes the shape", in.Op, x, res)
	}
	if from, to := x.Elem(), res.Elem(); from == Bool || to == Bool || from.Bits() != to.Bits() {
		return fail("bitcast of %v to %v, want non-bool dtypes of one width", from, to)
	}
	return one(res)
}

// inferScan: the operand's type.
func inferScan(in *Instr) ([]Type, string) {
	x, ok := in.Args[0].Type.(*Tile)
	res := declaredOr(in, 0, in.Args[0].Type)
	if !ok || !TypesEqual(x, res) || x.DType == Bool {
		return fail("scan of %v to %v, want a non-bool tile and its type", in.Args[0].Type, res)
	}
	if axis := in.Attrs.Int(AttrKeyAxis); axis < 0 || axis >= x.Rank() {
		return fail("axis %d out of range for %v", axis, x)
	}
	return one(x)
}

// inferCat: the operands' type, twice as long along the axis.
func inferCat(in *Instr) ([]Type, string) {
	a := in.Args
	x, ok := a[0].Type.(*Tile)
	if res := declared(in, 0); !ok || res != nil && !IsTileType(res) || !TypesEqual(a[0].Type, a[1].Type) {
		return fail("cat of %v and %v, want two tiles of one type", a[0].Type, a[1].Type)
	}
	axis := in.Attrs.Int(AttrKeyAxis)
	if axis < 0 || axis >= x.Rank() {
		return fail("axis %d out of range for %v", axis, x)
	}
	want := TileOf(x.DType, x.Shape...)
	want.Shape[axis] *= 2
	return one(want)
}

// inferExtract: a sub-tile of the maker's shape that divides the
// operand's, at a grid index of one integer per axis.
func inferExtract(in *Instr) ([]Type, string) {
	res, msg := chosen(in)
	if msg != "" {
		return nil, msg
	}
	sub, sok := res.(*Tile)
	return subTile(in, 1, sub, sok, res)
}

// inferInsert: the operand tile's type, with a sub-tile replaced at a
// grid index.
func inferInsert(in *Instr) ([]Type, string) {
	a := in.Args
	if len(a) < 2 {
		return fail("%s needs %d tiles and the indices", in.Op, 2)
	}
	if res := declared(in, 0); res != nil && !TypesEqual(res, a[0].Type) {
		return fail("result %v, want the tile's %v", res, a[0].Type)
	}
	sub, sok := a[1].Type.(*Tile)
	return subTile(in, 2, sub, sok, a[0].Type)
}

// subTile checks extract's and insert's tile operand against sub and
// their indices after the first nt operands; the result is res.
func subTile(in *Instr, nt int, sub *Tile, sok bool, res Type) ([]Type, string) {
	a := in.Args
	if len(a) < nt {
		return fail("%s needs %d tiles and the indices", in.Op, nt)
	}
	x, ok := a[0].Type.(*Tile)
	if !ok || !sok || x.DType != sub.DType || x.Rank() != sub.Rank() {
		return fail("%s between %v and %v, want tiles of one dtype and rank", in.Op, a[0].Type, sub)
	}
	for i := range x.Shape {
		if x.Shape[i]%sub.Shape[i] != 0 {
			return fail("%s: %v does not divide %v", in.Op, sub, x)
		}
	}
	if len(a)-nt != x.Rank() {
		return fail("%d indices for a rank-%d tile", len(a)-nt, x.Rank())
	}
	for _, i := range a[nt:] {
		if s, ok := i.Type.(*Scalar); !ok || !s.DType.IsInt() {
			return fail("index %v has type %v, want a scalar integer", i, i.Type)
		}
	}
	return one(res)
}

// inferSplat: a tile of the maker's shape and the scalar's dtype.
func inferSplat(in *Instr) ([]Type, string) {
	res, msg := chosen(in)
	if msg != "" {
		return nil, msg
	}
	s, ok := in.Args[0].Type.(*Scalar)
	t, tok := res.(*Tile)
	if !ok || !tok || s.DType != t.DType {
		return fail("splat %v to %v, want a scalar to a tile of its dtype", in.Args[0].Type, res)
	}
	return one(res)
}

// inferIota: a rank-1 integer tile of the maker's length and dtype.
func inferIota(in *Instr) ([]Type, string) {
	res, msg := chosen(in)
	if msg != "" {
		return nil, msg
	}
	if t, ok := res.(*Tile); !ok || t.Rank() != 1 || !t.DType.IsInt() {
		return fail("result %v, want a rank-1 i32 or i64 tile", res)
	}
	return one(res)
}

// inferBroadcast: the operand stretched to the maker's shape along its
// size-1 dims.
func inferBroadcast(in *Instr) ([]Type, string) {
	res, msg := chosen(in)
	if msg != "" {
		return nil, msg
	}
	x, ok := in.Args[0].Type.(*Tile)
	t, tok := res.(*Tile)
	if !ok || !tok || x.DType != t.DType || x.Rank() != t.Rank() {
		return fail("broadcast %v to %v, want tiles of one dtype and rank", in.Args[0].Type, res)
	}
	for i := range x.Shape {
		if x.Shape[i] != t.Shape[i] && x.Shape[i] != 1 {
			return fail("broadcast %v to %v: dim %d is neither equal nor 1", x, t, i)
		}
	}
	return one(res)
}

// inferReshape: the operand's elements in the maker's shape.
func inferReshape(in *Instr) ([]Type, string) {
	res, msg := chosen(in)
	if msg != "" {
		return nil, msg
	}
	x, ok := in.Args[0].Type.(*Tile)
	t, tok := res.(*Tile)
	if !ok || !tok || x.DType != t.DType {
		return fail("reshape %v to %v, want tiles of one dtype", in.Args[0].Type, res)
	}
	if x.NumElements() != t.NumElements() {
		return fail("reshape %v to %v changes the element count", x, t)
	}
	return one(res)
}

// inferPermute: dim i of the result is dim perm[i] of the operand.
func inferPermute(in *Instr) ([]Type, string) {
	x, ok := in.Args[0].Type.(*Tile)
	res := declared(in, 0)
	if t, tok := res.(*Tile); !ok || res != nil && (!tok || x.DType != t.DType || x.Rank() != t.Rank()) {
		return fail("permute %v to %v, want tiles of one dtype and rank", in.Args[0].Type, res)
	}
	perm, ok := in.Attrs.Get(AttrKeyPerm).([]int)
	if !ok || len(perm) != x.Rank() {
		return fail("perm %s, want a permutation of %d axes", formatAttrValue(in.Attrs.Get(AttrKeyPerm)), x.Rank())
	}
	seen := make([]bool, len(perm))
	for _, p := range perm {
		if p < 0 || p >= len(perm) || seen[p] {
			return fail("perm %s is not a permutation", formatAttrValue(perm))
		}
		seen[p] = true
	}
	want := PermutedTile(x, perm)
	if res != nil && !TypesEqual(res, want) {
		return fail("permute %v by %s gives %v", x, formatAttrValue(perm), want)
	}
	return one(want)
}

// PermutedTile is the type of t with its dims permuted: dim i of the
// result is dim perm[i] of t (the permute op's typing rule).
func PermutedTile(t *Tile, perm []int) *Tile {
	out := &Tile{DType: t.DType, Shape: make([]int, len(perm))}
	for i, p := range perm {
		out.Shape[i] = t.Shape[p]
	}
	return out
}

// inferReduce: the operand without the axis; argmax and argmin give i32.
func inferReduce(in *Instr) ([]Type, string) {
	x, ok := in.Args[0].Type.(*Tile)
	res := declared(in, 0)
	if !ok || res != nil && !IsTileType(res) || x.Rank() == 0 {
		return fail("reduce %v to %v, want tiles of rank >= 1", in.Args[0].Type, res)
	}
	axis, ok := in.Attrs.Get(AttrKeyAxis).(int64)
	if !ok || axis < 0 || axis >= int64(x.Rank()) {
		return fail("axis %s out of range for %v", formatAttrValue(in.Attrs.Get(AttrKeyAxis)), x)
	}
	want := &Tile{DType: x.DType}
	want.Shape = append(append([]int{}, x.Shape[:axis]...), x.Shape[axis+1:]...)
	switch in.Attrs.Get(AttrKeyKind) {
	case ReduceSum, ReduceMax, ReduceMin, ReduceProd:
		if x.DType == Bool {
			return fail("reduce of bool")
		}
	case ReduceArgmax, ReduceArgmin:
		want.DType = I32
	}
	return one(want)
}

// inferMMA: mma, mma_step and mma_fma, the accumulator's type.
func inferMMA(in *Instr) ([]Type, string) {
	a := in.Args
	res := declaredOr(in, 0, a[2].Type)
	if msg := verifyMMA(a[0].Type, a[1].Type, a[2].Type, res); msg != "" {
		return nil, msg
	}
	return one(res)
}

// inferWGMMA: the accumulator's type; b is a shared slot, transposed
// unless trans_b.
func inferWGMMA(in *Instr) ([]Type, string) {
	a := in.Args
	if d := a[1].Def; d == nil || d.Op != OpSmemSlot {
		return fail("wgmma operand %v is not a smem_slot", a[1])
	}
	if _, ok := a[0].Type.(*Tile); !ok {
		return fail("wgmma operand %v is not a tile", a[0])
	}
	at, bt := a[0].Type, a[1].Type
	if t, ok := at.(*Tile); ok && t.Rank() == 2 && in.Attrs.Bool(AttrKeyTransA) {
		// a is the (K, M) tile as loaded (MN-major); the product uses its
		// transpose.
		at = TileOf(t.DType, t.Shape[1], t.Shape[0])
	}
	if !in.Attrs.Bool(AttrKeyTransB) {
		// b is the (N, K) tile as loaded; the product uses its transpose.
		if t, ok := bt.(*Tile); ok && t.Rank() == 2 {
			bt = TileOf(t.DType, t.Shape[1], t.Shape[0])
		}
	}
	res := declaredOr(in, 0, a[2].Type)
	if msg := verifyMMA(at, bt, a[2].Type, res); msg != "" {
		return nil, msg
	}
	return one(res)
}

// inferLoad: a tile of the array's dtype and rank, of the maker's shape.
func inferLoad(in *Instr) ([]Type, string) {
	a := in.Args
	if len(a) < 1 {
		return fail("load needs an array and indices")
	}
	arr, msg := indexedArray(in, a[1:])
	if msg != "" {
		return nil, msg
	}
	res, msg := chosen(in)
	if msg != "" {
		return nil, msg
	}
	t, ok := res.(*Tile)
	if !ok || t.DType != arr.DType || t.Rank() != arr.Rank {
		return fail("result %v, want a rank-%d %v tile", res, arr.Rank, arr.DType)
	}
	if in.Attrs.Str(AttrKeyPad) == PadNaN && !t.DType.IsFloat() {
		return fail("pad nan on a %v load", t.DType)
	}
	return one(res)
}

// inferStore: no result; the stored tile has the array's dtype and rank.
func inferStore(in *Instr) ([]Type, string) {
	a := in.Args
	if len(a) < 2 {
		return fail("store needs an array, indices and a tile")
	}
	arr, msg := indexedArray(in, a[1:len(a)-1])
	if msg != "" {
		return nil, msg
	}
	x := a[len(a)-1]
	if t, ok := x.Type.(*Tile); !ok || t.DType != arr.DType || t.Rank() != arr.Rank {
		return fail("stored %v has type %v, want a rank-%d %v tile", x, x.Type, arr.Rank, arr.DType)
	}
	return nil, ""
}

// inferFor: the carried values' types, after integer bounds of one type.
// The verifier checks the region against them.
func inferFor(in *Instr) ([]Type, string) {
	a := in.Args
	if len(a) < 3 {
		return fail("for needs lo, hi and step")
	}
	iv := a[0].Type
	if s, ok := iv.(*Scalar); !ok || !s.DType.IsInt() {
		return fail("bound %v has type %v, want a scalar integer", a[0], iv)
	}
	for _, x := range a[1:3] {
		if !TypesEqual(x.Type, iv) {
			return fail("bound %v has type %v, want %v like the others", x, x.Type, iv)
		}
	}
	return carried(in, a[3:])
}

// inferWhile: the carried values' types.
func inferWhile(in *Instr) ([]Type, string) { return carried(in, in.Args) }

// carried is the result types of a loop: its inits' types.
func carried(in *Instr, inits []*Value) ([]Type, string) {
	ts := make([]Type, len(inits))
	for i, x := range inits {
		if r := declared(in, i); r != nil && !TypesEqual(r, x.Type) {
			return fail("result %v has type %v, want the init's %v", in.Results[i], r, x.Type)
		}
		ts[i] = x.Type
	}
	return ts, ""
}

// inferIf: the maker's result types (the verifier checks both regions'
// yields against them) on a bool scalar or rank-0 bool tile condition.
func inferIf(in *Instr) ([]Type, string) {
	a := in.Args
	if !TypesEqual(a[0].Type, ScalarOf(Bool)) && !TypesEqual(a[0].Type, TileOf(Bool)) {
		return fail("condition %v has type %v, want bool or tile<bool>", a[0], a[0].Type)
	}
	ts := make([]Type, len(in.Results))
	for i, r := range in.Results {
		ts[i] = r.Type
	}
	return ts, ""
}

// inferIndexed: gather and the atomics give a tile of the array's dtype
// and the index shape; scatter none.
func inferIndexed(in *Instr) ([]Type, string) {
	want, msg := verifyIndexed(in)
	if msg != "" {
		return nil, msg
	}
	if in.Op == OpScatter {
		return nil, ""
	}
	return one(want)
}

// inferCombiner: reduce_fn and scan_fn, one result per tile operand: its
// dtype, without the axis for reduce_fn.
func inferCombiner(in *Instr) ([]Type, string) {
	a := in.Args
	if len(a) == 0 || len(a)%2 != 0 {
		return fail("%s has %d operands, want N tiles and N identities", in.Op, len(a))
	}
	n := len(a) / 2
	x0, ok := a[0].Type.(*Tile)
	if !ok || x0.Rank() == 0 {
		return fail("operand %v has type %v, want a tile of rank >= 1", a[0], a[0].Type)
	}
	axis := in.Attrs.Int(AttrKeyAxis)
	if axis < 0 || axis >= x0.Rank() {
		return fail("axis %d out of range for %v", axis, x0)
	}
	ts := make([]Type, n)
	for i := 0; i < n; i++ {
		x, ok := a[i].Type.(*Tile)
		if !ok || !slices.Equal(x.Shape, x0.Shape) {
			return fail("operand %v has type %v, want a tile of shape %s", a[i], a[i].Type, tileShapeString(x0))
		}
		if !TypesEqual(a[n+i].Type, ScalarOf(x.DType)) {
			return fail("identity %v has type %v, want %v", a[n+i], a[n+i].Type, x.DType)
		}
		want := &Tile{DType: x.DType}
		if in.Op == OpScanFn {
			want.Shape = x.Shape
		} else {
			want.Shape = append(append([]int{}, x.Shape[:axis]...), x.Shape[axis+1:]...)
		}
		if r := declared(in, i); r != nil && !TypesEqual(r, want) {
			return fail("result %v has type %v, want %v", in.Results[i], r, want)
		}
		ts[i] = want
	}
	return ts, ""
}

// inferPrintf: no result; one scalar or tile per conversion of the format.
func inferPrintf(in *Instr) ([]Type, string) {
	n, msg := PrintfConversions(in.Attrs.Str(AttrKeyFormat))
	if msg != "" {
		return nil, msg
	}
	if n != len(in.Args) {
		return fail("format has %d conversions for %d operands", n, len(in.Args))
	}
	for _, x := range in.Args {
		if _, ok := ValueShape(x.Type); !ok {
			return fail("printf of %v, want scalars and tiles", x.Type)
		}
	}
	return nil, ""
}

// inferAssert: no result; a bool scalar or tile.
func inferAssert(in *Instr) ([]Type, string) {
	a := in.Args
	if _, ok := ValueShape(a[0].Type); !ok || a[0].Type.Elem() != Bool {
		return fail("assert of %v, want a bool scalar or tile", a[0].Type)
	}
	return nil, ""
}

// inferVoteAll: vote_all of a bool tile is a bool scalar (warp-uniform;
// the verifier restricts where it may go, see warpUniformUses).
func inferVoteAll(in *Instr) ([]Type, string) {
	if t, ok := in.Args[0].Type.(*Tile); !ok || t.DType != Bool {
		return fail("vote_all of %v, want a bool tile", in.Args[0].Type)
	}
	return one(ScalarOf(Bool))
}

// inferBytes: pack_bytes and unpack_bytes, a rank-1 tile of the maker's
// dtype (u8 for pack_bytes) holding the operand's bytes.
func inferBytes(in *Instr) ([]Type, string) {
	res, msg := chosen(in)
	if msg != "" {
		return nil, msg
	}
	x, ok := in.Args[0].Type.(*Tile)
	t, tok := res.(*Tile)
	if !ok || !tok || t.Rank() != 1 || x.DType == Bool || t.DType == Bool {
		return fail("%s of %v to %v, want non-bool tiles and a rank-1 result", in.Op, in.Args[0].Type, res)
	}
	if in.Op == OpPackBytes && t.DType != U8 || in.Op == OpUnpackBytes && (x.DType != U8 || x.Rank() != 1) {
		return fail("%s of %v to %v: the bytes are a rank-1 u8 tile", in.Op, x, t)
	}
	if x.NumElements()*x.DType.Bytes() != t.NumElements()*t.DType.Bytes() {
		return fail("%s of %v to %v changes the byte count", in.Op, x, t)
	}
	return one(res)
}

// inferSmemAlloc: a ring of shared tiles of the maker's type.
func inferSmemAlloc(in *Instr) ([]Type, string) {
	res, msg := chosen(in)
	if msg != "" {
		return nil, msg
	}
	if _, ok := res.(*Tile); !ok {
		return fail("result %v, want a tile", res)
	}
	if in.Attrs.Int(AttrKeyStages) < 1 || in.Attrs.Int(AttrKeyStageBytes) <= 0 || in.Attrs.Int(AttrKeyRowBytes) <= 0 || in.Attrs.Int(AttrKeySmem) < 0 {
		return fail("smem_alloc needs stages >= 1, positive stage_bytes and row_bytes, and smem >= 0")
	}
	return one(res)
}

// inferSmemSlot: the ring's tile type, at an i32 slot.
func inferSmemSlot(in *Instr) ([]Type, string) {
	a := in.Args
	if d := a[0].Def; d == nil || d.Op != OpSmemAlloc {
		return fail("%v is not a smem_alloc ring", a[0])
	}
	if s, ok := a[1].Type.(*Scalar); !ok || s.DType != I32 {
		return fail("slot %v has type %v, want i32", a[1], a[1].Type)
	}
	if res := declared(in, 0); res != nil && !TypesEqual(res, a[0].Type) {
		return fail("result %v, want the ring's %v", res, a[0].Type)
	}
	return one(a[0].Type)
}

// inferAsyncCopy: no result; a copy into a smem_slot of the array's
// dtype and rank.
func inferAsyncCopy(in *Instr) ([]Type, string) {
	a := in.Args
	if len(a) < 2 {
		return fail("async_copy needs an array, indices and a shared tile")
	}
	arr, msg := indexedArray(in, a[1:len(a)-1])
	if msg != "" {
		return nil, msg
	}
	dst := a[len(a)-1]
	if t, ok := dst.Type.(*Tile); !ok || t.DType != arr.DType || t.Rank() != arr.Rank {
		return fail("destination %v has type %v, want a rank-%d %v tile", dst, dst.Type, arr.Rank, arr.DType)
	}
	if d := dst.Def; d == nil || d.Op != OpSmemSlot {
		return fail("destination %v is not a smem_slot", dst)
	}
	if n, q := in.Attrs.Int(AttrKeyParts), in.Attrs.Int(AttrKeyPart); n < 1 || q < 0 || q >= n {
		return fail("part %d of %d", q, n)
	}
	return nil, ""
}

// inferMbarAlloc: the i32 shared address of the ring's first barrier.
func inferMbarAlloc(in *Instr) ([]Type, string) {
	if res := declared(in, 0); res != nil {
		if s, ok := res.(*Scalar); !ok || s.DType != I32 {
			return fail("result %v, want i32 (the ring's shared address)", res)
		}
	}
	if in.Attrs.Int(AttrKeyStages) < 1 || in.Attrs.Int(AttrKeyCount) < 1 || in.Attrs.Int(AttrKeySmem)%8 != 0 {
		return fail("mbar_alloc needs stages >= 1, count >= 1 and smem a multiple of 8")
	}
	return one(ScalarOf(I32))
}

// inferMbarOp: mbar_wait, mbar_arrive and mbar_expect, no result; a ring
// and i32 operands (mbar_arrive's last a bool).
func inferMbarOp(in *Instr) ([]Type, string) {
	a := in.Args
	if d := a[0].Def; d == nil || d.Op != OpMbarAlloc {
		return fail("%v is not an mbar_alloc ring", a[0])
	}
	for i, x := range a[1:] {
		want := I32
		if in.Op == OpMbarArrive && i == 1 {
			want = Bool
		}
		if s, ok := x.Type.(*Scalar); !ok || s.DType != want {
			return fail("%v has type %v, want %v", x, x.Type, want)
		}
	}
	if in.Op == OpMbarExpect && in.Attrs.Int(AttrKeyBytes) <= 0 {
		return fail("mbar_expect needs bytes > 0")
	}
	return nil, ""
}

// matrixOf reports whether t is what a TMA copy moves to or from arr: a
// 2-D tile of arr's dtype, the array 2-D or, 3-D or 4-D, one matrix of it
// that the indices before the last two pick.
func matrixOf(t *Tile, arr *Array) bool {
	return t.DType == arr.DType && t.Rank() == 2 && arr.Rank >= 2 && arr.Rank <= 4
}

// inferTMALoad: tma_load and tma_load_pair, no result; a copy into a
// smem_slot completing on an mbar_alloc ring.
func inferTMALoad(in *Instr) ([]Type, string) {
	a := in.Args
	if in.Op == OpTMALoadPair {
		if len(a) < 6 {
			return fail("tma_load_pair needs an array, indices, a shared tile, a barrier ring, a slot, a share flag and the rank")
		}
		if s, ok := a[len(a)-2].Type.(*Scalar); !ok || s.DType != Bool {
			return fail("share flag %v has type %v, want bool", a[len(a)-2], a[len(a)-2].Type)
		}
		if s, ok := a[len(a)-1].Type.(*Scalar); !ok || s.DType != I32 {
			return fail("rank %v has type %v, want i32", a[len(a)-1], a[len(a)-1].Type)
		}
		if sp := in.Attrs.Str(AttrKeySplit); sp != "slabs" && sp != "rows" {
			return fail("split %q, want slabs or rows", sp)
		}
		a = a[:len(a)-2]
	}
	if len(a) < 4 {
		return fail("tma_load needs an array, indices, a shared tile, a barrier ring and a slot")
	}
	arr, msg := indexedArray(in, a[1:len(a)-3])
	if msg != "" {
		return nil, msg
	}
	dst := a[len(a)-3]
	if t, ok := dst.Type.(*Tile); !ok || !matrixOf(t, arr) {
		return fail("destination %v has type %v, want a 2-D %v tile of a 2-D, 3-D or 4-D array", dst, dst.Type, arr.DType)
	}
	if d := dst.Def; d == nil || d.Op != OpSmemSlot {
		return fail("destination %v is not a smem_slot", dst)
	}
	if d := a[len(a)-2].Def; d == nil || d.Op != OpMbarAlloc {
		return fail("%v is not an mbar_alloc ring", a[len(a)-2])
	}
	return nil, ""
}

// inferTMAStore: no result; a copy from a smem_stage.
func inferTMAStore(in *Instr) ([]Type, string) {
	a := in.Args
	if len(a) < 2 {
		return fail("tma_store needs an array, indices and a shared tile")
	}
	arr, msg := indexedArray(in, a[1:len(a)-1])
	if msg != "" {
		return nil, msg
	}
	src := a[len(a)-1]
	if t, ok := src.Type.(*Tile); !ok || !matrixOf(t, arr) {
		return fail("source %v has type %v, want a 2-D %v tile of a 2-D, 3-D or 4-D array", src, src.Type, arr.DType)
	}
	if d := src.Def; d == nil || d.Op != OpSmemStage {
		return fail("source %v is not a smem_stage", src)
	}
	return nil, ""
}

// inferBarrier: no result; bar.sync 0, or a named barrier of whole warps.
func inferBarrier(in *Instr) ([]Type, string) {
	if id, n := in.Attrs.Int(AttrKeyBarrierID), in.Attrs.Int(AttrKeyThreads); id < 0 || id > 15 || n < 0 || n%32 != 0 || (id > 0) != (n > 0) {
		return fail("barrier id %d threads %d: a named barrier needs id 1..15 and a multiple of 32 threads", id, n)
	}
	return nil, ""
}

// inferPending: async_wait and wgmma_wait, no result.
func inferPending(in *Instr) ([]Type, string) {
	if in.Attrs.Int(AttrKeyPending) < 0 {
		return fail("%s with negative pending", in.Op)
	}
	return nil, ""
}

// inferSetMaxRegs: no result; a register count setmaxnreg takes.
func inferSetMaxRegs(in *Instr) ([]Type, string) {
	if r := in.Attrs.Int(AttrKeyRegs); r < 24 || r > 256 || r%8 != 0 {
		return fail("set_max_regs %d, want a multiple of 8 in [24, 256]", r)
	}
	return nil, ""
}

// inferConvertLayout: the operand's type.
func inferConvertLayout(in *Instr) ([]Type, string) {
	if res := declared(in, 0); res != nil && !TypesEqual(res, in.Args[0].Type) {
		return fail("convert_layout of %v to %v, want one type", in.Args[0].Type, res)
	}
	return one(in.Args[0].Type)
}

// inferSmemStage: the operand's rank-2 type, or the maker's window of its
// columns (col) for TMA's slabs.
func inferSmemStage(in *Instr) ([]Type, string) {
	a := in.Args
	res, msg := chosen(in)
	if msg != "" {
		return nil, msg
	}
	t, ok := a[0].Type.(*Tile)
	if ok && in.Attrs.Get(AttrKeyCol) != nil {
		// A window of columns [col, col+N) of a rank-2 tile.
		rt, rok := res.(*Tile)
		col := in.Attrs.Int(AttrKeyCol)
		if !rok || t.Rank() != 2 || rt.Rank() != 2 || rt.DType != t.DType || rt.Shape[0] != t.Shape[0] ||
			col < 0 || col+rt.Shape[1] > t.Shape[1] || in.Attrs.Get(AttrKeySlabBytes) == nil {
			return fail("smem_stage of columns from %d of %v to %v", col, a[0].Type, res)
		}
		t = rt
	} else if !ok || !TypesEqual(res, t) || t.Rank() != 2 {
		return fail("smem_stage of %v to %v, want one rank-2 tile type", a[0].Type, res)
	}
	row := t.Shape[1] * t.DType.Bytes()
	switch pitch, rb := in.Attrs.Get(AttrKeyPitch), in.Attrs.Get(AttrKeyRowBytes); {
	case (pitch == nil) == (rb == nil) || (pitch != nil && in.Attrs.Get(AttrKeySmem) != nil) || (rb != nil && in.Attrs.Get(AttrKeySmem) == nil):
		return fail("smem_stage needs either pitch, or smem and row_bytes")
	case pitch != nil && in.Attrs.Int(AttrKeyPitch) < row:
		return fail("pitch %d is less than a row of %d bytes", in.Attrs.Int(AttrKeyPitch), row)
	case in.Attrs.Get(AttrKeySlabBytes) != nil:
		// TMA's slabs: 64 16-bit columns of 128-byte rows each.
		if in.Attrs.Int(AttrKeyRowBytes) != 128 || t.DType.Bytes() != 2 || row%128 != 0 || in.Attrs.Int(AttrKeySlabBytes) != t.Shape[0]*128 {
			return fail("smem_stage into slabs of %v: row_bytes %d, slab_bytes %d", t, in.Attrs.Int(AttrKeyRowBytes), in.Attrs.Int(AttrKeySlabBytes))
		}
	case rb != nil && in.Attrs.Int(AttrKeyRowBytes) != row:
		return fail("row_bytes %d, want the tile's %d", in.Attrs.Int(AttrKeyRowBytes), row)
	}
	return one(res)
}

// inferFragLoad: a rank-2 fragment tile of the shared tile's dtype, of
// the maker's k-step shape.
func inferFragLoad(in *Instr) ([]Type, string) {
	res, msg := chosen(in)
	if msg != "" {
		return nil, msg
	}
	src, ok := in.Args[0].Type.(*Tile)
	t, ok2 := res.(*Tile)
	if !ok || !ok2 || src.Rank() != 2 || t.Rank() != 2 || t.DType != src.DType {
		return fail("frag_load of %v to %v, want rank-2 tiles of one dtype", in.Args[0].Type, res)
	}
	return one(res)
}

// indexedArray checks an array access's array operand and its tile indices.
func indexedArray(in *Instr, idx []*Value) (*Array, string) {
	arr, ok := in.Args[0].Type.(*Array)
	if !ok {
		return nil, fmt.Sprintf("operand %v has type %v, want an array", in.Args[0], in.Args[0].Type)
	}
	if len(idx) != arr.Rank {
		return nil, fmt.Sprintf("%d indices for a rank-%d array", len(idx), arr.Rank)
	}
	for _, x := range idx {
		if s, ok := x.Type.(*Scalar); !ok || !s.DType.IsInt() {
			return nil, fmt.Sprintf("index %v has type %v, want a scalar integer", x, x.Type)
		}
	}
	return arr, ""
}

// missingInfer lists the ops of table without a typing rule.
func missingInfer(table *[NumOps]OpInfo) []Op {
	var missing []Op
	for op := Op(1); op < NumOps; op++ {
		if table[op].Infer == nil {
			missing = append(missing, op)
		}
	}
	return missing
}

// init checks that every op, the lowered-only ones included, has its
// typing rule, so that a new op fails at once until it has one (the
// verifier would otherwise accept any result type for it).
func init() {
	if missing := missingInfer(&opTable); len(missing) > 0 {
		panic(fmt.Sprintf("ir: no typing rule (OpInfo.Infer) for %v", missing))
	}
	// The columns that depend on each other agree: only an op with
	// results defines a tile, and only an array access has operands after
	// its indices.
	for op := Op(1); op < NumOps; op++ {
		info := &opTable[op]
		if info.NumResults < -1 || info.TileResult && info.NumResults == 0 || info.TrailingArgs < 0 || info.TrailingArgs > 0 && !info.ArrayIndexed {
			panic(fmt.Sprintf("ir: op %s: NumResults %d, TileResult %v, ArrayIndexed %v, TrailingArgs %d disagree",
				info.Name, info.NumResults, info.TileResult, info.ArrayIndexed, info.TrailingArgs))
		}
	}
}
