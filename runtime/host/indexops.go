package host

// Index computations of a script's driver, as routing code (a mixture of
// experts' token sorting, NVIDIA's MoE sample) writes them in torch:
// argsort, bincount, one_hot, nonzero and torch.where's one-argument form,
// chunk, and index_add_. Indices are int64 tensors, as torch's are.

import (
	"slices"
	"sort"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/lang"
	"github.com/tilec/tilec/runtime"
)

// indexFuncs are the torch functions of this file (listed in scriptFuncs
// too), and indexMethods the tensor methods (in tensorMethods).
var (
	indexFuncs   = []string{"argsort", "bincount", "nonzero"}
	indexMethods = []string{"argsort", "bincount", "nonzero", "chunk", "index_add_"}
)

// indexCall runs torch.<fn> or F.one_hot when it is one of this file's.
func (in *evaluator) indexCall(c *callSite, mod, fn string) (any, bool) {
	name := mod + "." + fn
	switch {
	case mod == "torch" && slices.Contains(indexFuncs, fn):
		if len(c.args) == 0 {
			in.fail(c.e.Pos, "%s is missing argument input", name)
		}
		t := in.tensorArg(c, name, 0, c.args[0])
		rest := &callSite{in: in, e: c.e, args: c.args[1:], kw: c.kw}
		return in.indexMethod(rest, t, fn, name), true
	case mod == "torch" && fn == "where" && len(c.args) == 1 && len(c.kw) == 0:
		// torch.where(cond) is torch.nonzero(cond, as_tuple=True).
		return in.nonzeroTuple(c.e.Pos, in.tensorArg(c, name, 0, c.args[0])), true
	case mod == "torch.nn.functional" && fn == "one_hot":
		a := c.bind(name, "input", "num_classes=")
		return in.oneHot(c.e.Pos, in.tensorArg(c, name, 0, a[0]), a[1]), true
	}
	return nil, false
}

// indexMethod is t.<name>(...) for one of indexMethods (what names the
// call in errors).
func (in *evaluator) indexMethod(c *callSite, t *runtime.Tensor, name, what string) any {
	pos := c.e.Pos
	switch name {
	case "argsort":
		a := c.bind(what, "dim=", "descending=", "stable=")
		dim := any(int64(-1))
		if a[0] != nil {
			dim = a[0]
		}
		return in.argsort(pos, what, t, dim, a[1] != nil && in.truth(pos, a[1]))
	case "bincount":
		a := c.bind(what, "weights=", "minlength=")
		if a[0] != nil {
			if _, isNone := a[0].(none); !isNone {
				in.fail(pos, "%s: weights= is not part of the host subset", what)
			}
		}
		minlength := int64(0)
		if a[1] != nil {
			minlength = in.intArg(pos, what, a[1])
		}
		return in.bincount(pos, what, t, minlength)
	case "nonzero":
		a := c.bind(what, "as_tuple=")
		if a[0] != nil && in.truth(pos, a[0]) {
			return in.nonzeroTuple(pos, t)
		}
		coords := nonzero(t)
		xs := make([]int64, 0, len(coords)*len(t.Shape))
		for _, co := range coords {
			for _, x := range co {
				xs = append(xs, int64(x))
			}
		}
		return in.fromInts(pos, what, ir.I64, []int{len(coords), len(t.Shape)}, xs)
	case "chunk":
		a := c.bind(what, "chunks", "dim=")
		return in.chunk(pos, what, t, in.intArg(c.argPos(0), what, a[0]), a[1])
	case "index_add_":
		a := c.bind(what, "dim", "index", "source", "alpha=")
		return in.indexAdd(c, what, t, a)
	}
	in.fail(pos, "%s is not part of the host subset", what)
	return nil
}

// argsort is the indices that sort t along dim (ascending, or
// descending), stable: equal elements keep their order, NaN last as in
// torch.
func (in *evaluator) argsort(pos lang.Pos, what string, t *runtime.Tensor, dim any, descending bool) *runtime.Tensor {
	if len(t.Shape) == 0 {
		return in.fromInts(pos, what, ir.I64, []int{}, []int64{0})
	}
	ax := in.axisArg(pos, what, dim, len(t.Shape))
	n, inner := t.Shape[ax], 1
	for _, s := range t.Shape[ax+1:] {
		inner *= s
	}
	total := t.NumElements()
	out := make([]int64, total)
	var less func(i, j int) bool
	if exactDType(t.DType) {
		xs := ints(t)
		less = func(i, j int) bool {
			if descending {
				return xs[i] > xs[j]
			}
			return xs[i] < xs[j]
		}
	} else {
		xs := values(t)
		less = func(i, j int) bool {
			a, b := xs[i], xs[j]
			if a != a || b != b {
				// torch takes NaN as larger than any number: last in an
				// ascending sort, first in a descending one.
				if descending {
					return a != a && b == b
				}
				return a == a && b != b
			}
			if descending {
				return a > b
			}
			return a < b
		}
	}
	for o := 0; o < total/max(n*inner, 1); o++ {
		for i := range inner {
			at := func(j int) int { return (o*n+j)*inner + i }
			perm := make([]int, n)
			for j := range perm {
				perm[j] = j
			}
			sort.SliceStable(perm, func(p, q int) bool { return less(at(perm[p]), at(perm[q])) })
			for j, p := range perm {
				out[at(j)] = int64(p)
			}
		}
	}
	return in.fromInts(pos, what, ir.I64, t.Shape, out)
}

// bincount counts each value of a 1-D tensor of non-negative ints: the
// result has max(t)+1 entries, at least minlength.
func (in *evaluator) bincount(pos lang.Pos, what string, t *runtime.Tensor, minlength int64) *runtime.Tensor {
	if len(t.Shape) != 1 || !t.DType.IsInt() {
		in.fail(pos, "%s takes a 1-d tensor of ints, got %s", what, describe(t))
	}
	if minlength < 0 {
		in.fail(pos, "%s: minlength should be >= 0", what)
	}
	xs := ints(t)
	size := minlength
	for _, x := range xs {
		if x < 0 {
			in.fail(pos, "%s: the input holds %d: only non-negative ints are counted", what, x)
		}
		size = max(size, x+1)
	}
	if size > int64(maxScriptElements) {
		in.fail(pos, "%s: %d bins are more than the %d elements a driver's tensor may have", what, size, maxScriptElements)
	}
	counts := make([]int64, size)
	for _, x := range xs {
		counts[x]++
	}
	return in.fromInts(pos, what, ir.I64, []int{int(size)}, counts)
}

// nonzeroTuple is one int64 tensor per axis of t: the coordinates of its
// nonzero elements along that axis (torch.where(cond)).
func (in *evaluator) nonzeroTuple(pos lang.Pos, t *runtime.Tensor) Tuple {
	coords := nonzero(t)
	out := make(Tuple, max(len(t.Shape), 1))
	for ax := range out {
		xs := make([]int64, len(coords))
		for i, co := range coords {
			if ax < len(co) {
				xs[i] = int64(co[ax])
			}
		}
		out[ax] = in.fromInts(pos, "nonzero", ir.I64, []int{len(xs)}, xs)
	}
	return out
}

// oneHot is F.one_hot: t's shape with a last axis of numClasses (-1 or
// absent: max(t)+1), 1 where the class is t's value.
func (in *evaluator) oneHot(pos lang.Pos, t *runtime.Tensor, classes any) *runtime.Tensor {
	if !t.DType.IsInt() {
		in.fail(pos, "one_hot is only applicable to index tensors, got %s", describe(t))
	}
	xs := ints(t)
	n := int64(-1)
	if classes != nil {
		n = in.intArg(pos, "one_hot", classes)
	}
	if n == -1 {
		n = 0
		for _, x := range xs {
			n = max(n, x+1)
		}
	}
	for _, x := range xs {
		if x < 0 || x >= n {
			in.fail(pos, "one_hot: class values must be from 0 to %d, got %d", n-1, x)
		}
	}
	shape := append(slices.Clone(t.Shape), int(n))
	in.checkElements(pos, "one_hot", shape)
	out := make([]int64, len(xs)*int(n))
	for i, x := range xs {
		out[i*int(n)+int(x)] = 1
	}
	return in.fromInts(pos, "one_hot", ir.I64, shape, out)
}

// chunk splits t along dim into chunks of ceil(size/chunks) (the last
// smaller, fewer chunks when they do not fill), views of t as torch's are.
func (in *evaluator) chunk(pos lang.Pos, what string, t *runtime.Tensor, chunks int64, dim any) Tuple {
	if chunks <= 0 {
		in.fail(pos, "%s expects chunks to be greater than 0, got %d", what, chunks)
	}
	if len(t.Shape) == 0 {
		in.fail(pos, "%s expects at least a 1-dimensional tensor", what)
	}
	ax := 0
	if dim != nil {
		ax = in.axisArg(pos, what, dim, len(t.Shape))
	}
	size := int64(t.Shape[ax])
	step := max((size+chunks-1)/chunks, 1)
	var out Tuple
	for lo := int64(0); lo < size || (size == 0 && lo == 0); lo += step {
		idx := make([]any, ax+1)
		for i := range ax {
			idx[i] = sliceSpec{}
		}
		idx[ax] = sliceSpec{lo: lo, hi: lo + step}
		out = append(out, in.tensorIndex(pos, t, idx))
		if size == 0 {
			break
		}
	}
	return out
}

// indexAdd is t.index_add_(dim, index, source, alpha=): source's slices
// along dim added into t's at index's positions (repeated indices
// accumulate), in place.
func (in *evaluator) indexAdd(c *callSite, what string, t *runtime.Tensor, a []any) *runtime.Tensor {
	pos := c.e.Pos
	ax := in.axisArg(pos, what, a[0], max(len(t.Shape), 1))
	index := in.tensorArg(c, what, 1, a[1])
	src := in.tensorArg(c, what, 2, a[2])
	if len(index.Shape) != 1 || !index.DType.IsInt() {
		in.fail(c.argPos(1), "%s: index is a 1-d tensor of ints, got %s", what, describe(index))
	}
	want := slices.Clone(t.Shape)
	want[ax] = index.Shape[0]
	if !slices.Equal(src.Shape, want) {
		in.fail(c.argPos(2), "%s: source has shape %v, want %v (self's with dim %d the index's length)", what, src.Shape, want, ax)
	}
	var alpha any = int64(1)
	if a[3] != nil {
		alpha = a[3]
	}
	scaled := in.tensorBinop(pos, "*", src, alpha).(*runtime.Tensor)
	for j, i := range ints(index) {
		if i < -int64(t.Shape[ax]) || i >= int64(t.Shape[ax]) {
			in.fail(c.argPos(1), "%s: index %d is out of bounds for dimension %d with size %d", what, i, ax, t.Shape[ax])
		}
		idx := make([]any, ax+1)
		for k := range ax {
			idx[k] = sliceSpec{}
		}
		idx[ax] = i
		part := in.tensorIndex(pos, scaled, append(slices.Clone(idx[:ax]), int64(j)))
		dst := in.tensorIndex(pos, t, idx).(*runtime.Tensor)
		sum := in.tensorBinop(pos, "+", dst, part)
		var elems []int
		dst.ForEachElem(func(e int) { elems = append(elems, e) })
		in.writeElems(pos, t, dst.Shape, elems, sum)
	}
	return t
}
