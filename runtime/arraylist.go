package runtime

// Lists of arrays as launch arguments (ir.ArrayList, cuTile's List[Array]):
// a []*Tensor, checked as cuTile checks a Python list of arrays at launch.

import (
	"fmt"
	"math"

	"github.com/tilec/tilec/ir"
)

// bindList checks the argument of list parameter name: a non-empty
// []*Tensor whose arrays all have the kernel's dtype and rank (cuTile:
// "Empty lists are not supported as kernel arguments", "Arrays in list vary
// in data type", "... in rank"), each with extents below 2^31.
func bindList(name string, lt *ir.ArrayList, arg Arg) ([]*Tensor, error) {
	l, ok := arg.([]*Tensor)
	if !ok {
		return nil, fmt.Errorf("argument %s: want a list of arrays ([]*runtime.Tensor), got %T", name, arg)
	}
	if len(l) == 0 {
		return nil, fmt.Errorf("argument %s: empty lists are not supported as kernel arguments", name)
	}
	if len(l) > math.MaxInt32 {
		return nil, fmt.Errorf("argument %s: the list has %d arrays, more than %d", name, len(l), math.MaxInt32)
	}
	for i, t := range l {
		if t == nil {
			return nil, fmt.Errorf("argument %s: list item #%d is a nil tensor", name, i)
		}
		if t.DType != lt.DType {
			return nil, fmt.Errorf("argument %s: arrays in list vary in data type: item #%d is %s, the kernel was built for %s", name, i, t.DType, lt.DType)
		}
		if len(t.Shape) != lt.Rank {
			return nil, fmt.Errorf("argument %s: arrays in list vary in rank: item #%d has rank %d (shape %v), the kernel was built for rank %d", name, i, len(t.Shape), t.Shape, lt.Rank)
		}
		if err := t.CheckBounds(); err != nil {
			return nil, fmt.Errorf("argument %s: list item #%d: %v", name, i, err)
		}
		for ax, d := range t.Shape {
			if d > math.MaxInt32 {
				return nil, fmt.Errorf("argument %s: list item #%d: dimension %d is %d, more than %d: kernels index arrays with i32",
					name, i, ax, d, math.MaxInt32)
			}
		}
	}
	return l, nil
}

// ArgTensors is the arrays of a launch argument: the tensor itself, a list
// argument's tensors, none for a scalar. Code that handles every array a
// launch touches (poisoning, cloning, comparing) goes through it.
func ArgTensors(a Arg) []*Tensor {
	switch x := a.(type) {
	case *Tensor:
		if x != nil {
			return []*Tensor{x}
		}
	case []*Tensor:
		return x
	}
	return nil
}

// ArgTensorNames names the arrays of ArgTensors(a) for parameter name:
// name itself, or name[0], name[1], ... for a list.
func ArgTensorNames(name string, a Arg) []string {
	if l, ok := a.([]*Tensor); ok {
		out := make([]string, len(l))
		for i := range l {
			out[i] = fmt.Sprintf("%s[%d]", name, i)
		}
		return out
	}
	return []string{name}
}
