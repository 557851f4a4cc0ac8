package host

// Tensor indexing as torch does it, for reading (x[idx]) and for writing
// (x[idx] = v): ints, slices and None (a new axis of size 1) are basic
// indexing, whose result is a view of x's elements, so that writing into
// it writes into x; integer tensors (and tuples of ints) and bool tensors
// (masks) are advanced indexing, whose result is a copy of the elements
// they pick. As in torch, ints select their axis before the advanced
// indices are placed: the advanced indices' broadcast shape stands where
// they stand when they are adjacent, else in front.

import (
	"slices"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/ir/build"
	"github.com/tilec/tilec/lang"
	"github.com/tilec/tilec/runtime"
)

// newAxis is None in an index: a new axis of size 1.
type newAxis struct{}

// advIndex is one advanced index: the view axis it indexes and the
// positions it picks (an int tensor's values, broadcast later).
type advIndex struct {
	axis  int
	shape []int
	idx   []int64
}

// indexPlan is what an index selects from t: a strided view (offset,
// shape, strides over t's Data) and, for advanced indexing, the indices
// that then pick along some of the view's axes.
type indexPlan struct {
	t       *runtime.Tensor
	offset  int
	shape   []int
	strides []int
	adv     []advIndex
}

// indexValue reads an index item: an int (a bool is one, as in Python; a
// 0-d integer tensor is one, as torch reads it), a slice, None, or a
// tensor or tuple of ints (advanced).
func (in *evaluator) indexValue(pos lang.Pos, v any) any {
	switch v := v.(type) {
	case bool:
		return num(v)
	case int64, sliceSpec:
		return v
	case none:
		return newAxis{}
	case *runtime.Tensor:
		if len(v.Shape) == 0 && v.DType.IsInt() {
			return ints(v)[0]
		}
		if !v.DType.IsInt() && v.DType != ir.Bool {
			in.fail(pos, "tensors used as indices must be integer or bool tensors, got %s", describe(v))
		}
		if len(v.Shape) == 0 {
			in.fail(pos, "a 0-d bool tensor as an index (a new axis of size 1 or 0) is not part of the host subset")
		}
		return v
	case Tuple:
		xs := make([]int64, len(v))
		for i, x := range v {
			n, ok := asIndex(x).(int64)
			if !ok {
				in.fail(pos, "a list used as an index holds ints, got %s", describe(x))
			}
			xs[i] = n
		}
		return in.fromInts(pos, "index", ir.I64, []int{len(xs)}, xs)
	}
	in.fail(pos, "tensors are indexed by ints, slices, None and integer or bool tensors, got %s", describe(v))
	return nil
}

// plan resolves idx (items from indexValue) against t.
func (in *evaluator) plan(pos lang.Pos, t *runtime.Tensor, idx []any) *indexPlan {
	used := 0 // axes of t the index consumes
	for _, x := range idx {
		switch x := x.(type) {
		case newAxis:
		case *runtime.Tensor:
			if x.DType == ir.Bool {
				used += len(x.Shape)
			} else {
				used++
			}
		default:
			used++
		}
	}
	if used > len(t.Shape) {
		in.fail(pos, "too many indices for a tensor of dimension %d", len(t.Shape))
	}
	p := &indexPlan{t: t, offset: t.Offset}
	ax := 0 // the next axis of t
	for _, x := range idx {
		switch x := x.(type) {
		case newAxis:
			p.shape, p.strides = append(p.shape, 1), append(p.strides, 0)
		case int64:
			n := t.Shape[ax]
			i := x
			if i < 0 {
				i += int64(n)
			}
			if i < 0 || i >= int64(n) {
				in.fail(pos, "index %d is out of bounds for dimension %d with size %d", x, ax, n)
			}
			p.offset += int(i) * t.Strides[ax]
			ax++
		case sliceSpec:
			n := t.Shape[ax]
			picks := x.indices(in, pos, n)
			step := 1
			if s, ok := x.step.(int64); ok {
				step = int(s)
			}
			if step < 0 {
				in.fail(pos, "step must be greater than zero (torch has no negative slice steps)")
			}
			if len(picks) > 0 {
				p.offset += picks[0] * t.Strides[ax]
			}
			p.shape, p.strides = append(p.shape, len(picks)), append(p.strides, t.Strides[ax]*step)
			ax++
		case *runtime.Tensor:
			if x.DType != ir.Bool {
				n := t.Shape[ax]
				xs := ints(x)
				for i, v := range xs {
					if v < -int64(n) || v >= int64(n) {
						in.fail(pos, "index %d is out of bounds for dimension %d with size %d", v, ax, n)
					}
					if v < 0 {
						xs[i] = v + int64(n)
					}
				}
				p.adv = append(p.adv, advIndex{axis: len(p.shape), shape: slices.Clone(x.Shape), idx: xs})
				p.shape, p.strides = append(p.shape, n), append(p.strides, t.Strides[ax])
				ax++
				continue
			}
			// A mask over k axes is the k index tensors of its true
			// positions (torch's nonzero), one per axis.
			k := len(x.Shape)
			for i := range k {
				if x.Shape[i] != t.Shape[ax+i] {
					in.fail(pos, "the shape of the mask %v at index %d does not match the shape of the indexed tensor %v at index %d", x.Shape, i, t.Shape, ax+i)
				}
			}
			coords := nonzero(x)
			for i := range k {
				xs := make([]int64, len(coords))
				for j, c := range coords {
					xs[j] = int64(c[i])
				}
				p.adv = append(p.adv, advIndex{axis: len(p.shape), shape: []int{len(xs)}, idx: xs})
				p.shape, p.strides = append(p.shape, t.Shape[ax]), append(p.strides, t.Strides[ax])
				ax++
			}
		}
	}
	for ; ax < len(t.Shape); ax++ {
		p.shape, p.strides = append(p.shape, t.Shape[ax]), append(p.strides, t.Strides[ax])
	}
	if p.shape == nil {
		p.shape, p.strides = []int{}, []int{}
	}
	return p
}

// nonzero are the coordinates of the nonzero elements of t, row-major.
func nonzero(t *runtime.Tensor) [][]int {
	var out [][]int
	for i, x := range ints(t) {
		if x != 0 {
			out = append(out, runtime.Unravel(i, t.Shape))
		}
	}
	return out
}

// view is the plan's strided view (its basic indexing) over t's Data.
func (p *indexPlan) view() *runtime.Tensor {
	return &runtime.Tensor{DType: p.t.DType, Shape: p.shape, Strides: p.strides, Offset: p.offset, Data: p.t.Data}
}

// elems is the result's shape and, row-major, the Data element of t each
// of its elements is: the view's elements, or those the advanced indices
// pick from it.
func (in *evaluator) elems(pos lang.Pos, p *indexPlan) (shape []int, elems []int) {
	if len(p.adv) == 0 {
		v := p.view()
		in.checkElements(pos, "index", v.Shape)
		v.ForEachElem(func(e int) { elems = append(elems, e) })
		return v.Shape, elems
	}
	var bshape []int
	for _, a := range p.adv {
		bshape = in.broadcastShapes(pos, bshape, a.shape)
	}
	adjacent := true
	for i, a := range p.adv {
		if a.axis != p.adv[0].axis+i {
			adjacent = false
		}
	}
	isAdv := make([]bool, len(p.shape))
	for _, a := range p.adv {
		isAdv[a.axis] = true
	}
	// The result's axes: the view's other axes, with the broadcast shape
	// where the advanced axes stood (adjacent) or in front.
	var rest []int // the view axes that are not advanced, in order
	for ax := range p.shape {
		if !isAdv[ax] {
			rest = append(rest, ax)
		}
	}
	at := 0 // where the broadcast axes go among rest's
	if adjacent {
		for at < len(rest) && rest[at] < p.adv[0].axis {
			at++
		}
	}
	for _, ax := range rest[:at] {
		shape = append(shape, p.shape[ax])
	}
	shape = append(shape, bshape...)
	for _, ax := range rest[at:] {
		shape = append(shape, p.shape[ax])
	}
	in.checkElements(pos, "index", shape)
	picks := make([][]int64, len(p.adv))
	for i, a := range p.adv {
		picks[i] = broadcastTo(a.idx, a.shape, bshape)
	}
	n := 1
	for _, s := range shape {
		n *= s
	}
	elems = make([]int, 0, n)
	for i := range n {
		c := runtime.Unravel(i, shape)
		e := p.offset
		for j, ax := range rest[:at] {
			e += c[j] * p.strides[ax]
		}
		b := 0 // the row-major position in the broadcast shape
		for j, x := range c[at : at+len(bshape)] {
			b = b*bshape[j] + x
		}
		for k, a := range p.adv {
			e += int(picks[k][b]) * p.strides[a.axis]
		}
		for j, ax := range rest[at:] {
			e += c[at+len(bshape)+j] * p.strides[ax]
		}
		elems = append(elems, e)
	}
	return shape, elems
}

// tensorIndex is t[idx]: a view for basic indexing, a copy for advanced.
func (in *evaluator) tensorIndex(pos lang.Pos, t *runtime.Tensor, idx []any) any {
	p := in.plan(pos, t, idx)
	if len(p.adv) == 0 {
		return p.view()
	}
	shape, elems := in.elems(pos, p)
	out := in.newTensor(pos, "index", t.DType, shape)
	bs := t.DType.Bytes()
	for i, e := range elems {
		copy(out.Data[i*bs:(i+1)*bs], t.Data[e*bs:(e+1)*bs])
	}
	return out
}

// setIndex is t[idx] = v: v (a number or a tensor, broadcast to what idx
// selects) converted to t's dtype and written into t's elements, as
// torch's index assignment does.
func (in *evaluator) setIndex(pos lang.Pos, t *runtime.Tensor, idx []any, v any) {
	p := in.plan(pos, t, idx)
	shape, elems := in.elems(pos, p)
	in.writeElems(pos, t, shape, elems, v)
}

// writeElems writes v, broadcast to shape, into t's Data elements elems
// (row-major over shape), converted to t's dtype: exactly for integers.
func (in *evaluator) writeElems(pos lang.Pos, t *runtime.Tensor, shape []int, elems []int, v any) {
	var src *runtime.Tensor
	switch x := num(v).(type) {
	case *runtime.Tensor:
		src = x
	case int64:
		src = in.fromInts(pos, "assignment", ir.I64, []int{}, []int64{x})
	case float64:
		src = in.fromValues(pos, "assignment", ir.F64, []int{}, []float64{x})
	default:
		in.fail(pos, "a tensor's elements are assigned a number or a tensor, got %s", describe(v))
	}
	// As torch does, leading axes of size 1 beyond the target's rank drop.
	for len(src.Shape) > len(shape) && src.Shape[0] == 1 {
		src = in.reshapeTo(pos, src, src.Shape[1:])
	}
	if b, ok := build.BroadcastShapes(src.Shape, shape); !ok || !slices.Equal(b, shape) {
		in.fail(pos, "shape mismatch: value tensor of shape %v cannot be broadcast to indexing result of shape %v", src.Shape, shape)
	}
	if exactDType(t.DType) && exactDType(src.DType) {
		xs := broadcastTo(ints(src), src.Shape, shape)
		for i, e := range elems {
			t.SetElemIntAt(e, xs[i])
		}
		return
	}
	xs := broadcastValues(src, shape)
	for i, e := range elems {
		t.SetElemAt(e, xs[i])
	}
}
