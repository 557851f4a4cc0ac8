package host

// Lists of arrays as ct.launch arguments (cuTile's List[Array], TileGym's
// grouped GEMM: ct.launch(stream, grid, kernel, (As, Bs, Cs, ...)) with As
// a Python list of tensors). Host code's lists are tuples, so a tuple of
// tensors passed for an unannotated parameter is a list of arrays; cuTile's
// launch-time rules apply: not empty, every item a tensor, one dtype and
// one rank.

import (
	"github.com/tilec/tilec/ir/build"
	"github.com/tilec/tilec/lang"
	"github.com/tilec/tilec/runtime"
)

// listArg is the launch argument of parameter prm (argument i of kernel
// name) given the list v.
func (in *evaluator) listArg(pos lang.Pos, i int, name string, prm build.KernelParam, v Tuple) []*runtime.Tensor {
	if prm.Kind != build.ParamTyped {
		in.fail(pos, "ct.launch: argument %d of %s is %s, annotated; a list of arrays goes to an unannotated parameter", i+1, name, prm.Name)
	}
	if len(v) == 0 {
		in.fail(pos, "ct.launch: argument %d of %s (%s): empty lists are not supported as kernel arguments", i+1, name, prm.Name)
	}
	out := make([]*runtime.Tensor, len(v))
	for j, x := range v {
		t, ok := x.(*runtime.Tensor)
		if !ok {
			in.fail(pos, "ct.launch: argument %d of %s (%s): list item #%d is %s; a list argument holds arrays (tensors)", i+1, name, prm.Name, j, describe(x))
		}
		if j > 0 {
			if t.DType != out[0].DType {
				in.fail(pos, "ct.launch: argument %d of %s (%s): arrays in list vary in data type (item #0 is %s, item #%d %s)", i+1, name, prm.Name, out[0].DType, j, t.DType)
			}
			if len(t.Shape) != len(out[0].Shape) {
				in.fail(pos, "ct.launch: argument %d of %s (%s): arrays in list vary in rank (item #0 has rank %d, item #%d rank %d)", i+1, name, prm.Name, len(out[0].Shape), j, len(t.Shape))
			}
		}
		out[j] = t
	}
	return out
}
