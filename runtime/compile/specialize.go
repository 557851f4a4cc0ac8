package compile

// Generic kernels: a kernel written as cuTile writes it, with unannotated
// parameters (`def matmul_kernel(A, B, C, tm: ConstInt, ...)`), takes each
// such parameter's dtype and rank from its launch argument. The kernel is
// built once per signature (plus its constants, fixed at Source) and the
// builds are cached in the Kernel; backends key their own caches on the
// specialized IR, which includes the signature.

import (
	"fmt"
	"strings"
	"sync"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/ir/build"
	"github.com/tilec/tilec/lang"
	"github.com/tilec/tilec/runtime"
)

// genericKernel is the runtime.Specializer of a generic kernel's Kernel.
type genericKernel struct {
	file   *lang.File
	opts   Options
	name   string
	params []build.LaunchParam

	mu    sync.Mutex
	cache map[string]*runtime.Kernel // signature key -> specialization
}

// Name implements runtime.Specializer.
func (g *genericKernel) Name() string { return g.name }

// Specialize returns the kernel built for args' signature: for each
// unannotated parameter, an array's dtype and rank (its dims are symbols
// named param_axis, bound at launch: A_0, A_1) or a scalar's dtype (Go
// int and int32 give i32, int64 i64, float32 and float64 f32 as Python
// floats do in cuTile, bool bool). Builds are cached per signature.
func (g *genericKernel) Specialize(args []runtime.Arg) (*runtime.Kernel, error) {
	if len(args) != len(g.params) {
		names := make([]string, len(g.params))
		for i, p := range g.params {
			names[i] = p.Name
		}
		return nil, fmt.Errorf("%s takes %d arguments (%s), got %d", g.name, len(g.params), strings.Join(names, ", "), len(args))
	}
	sigs := map[string]build.ArgSig{}
	for name, s := range g.opts.Args {
		sigs[name] = s
	}
	var key strings.Builder
	for i, p := range g.params {
		if !p.Typed {
			continue
		}
		if _, given := g.opts.Args[p.Name]; given {
			continue
		}
		sig, err := argSignature(p.Name, args[i])
		if err != nil {
			return nil, fmt.Errorf("argument %s: %v", p.Name, err)
		}
		sigs[p.Name] = sig
		if sig.IsList() {
			// One build serves every length and every element shape.
			fmt.Fprintf(&key, "%s=%s;", p.Name, sig.ListKey())
			continue
		}
		fmt.Fprintf(&key, "%s=%s;", p.Name, sig)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if s, ok := g.cache[key.String()]; ok {
		return s, nil
	}
	bo := g.opts.buildOptions()
	bo.Kernel, bo.Args = g.name, sigs
	mod, err := build.File(g.file, bo)
	if err != nil {
		return nil, err
	}
	s := runtime.NewKernel(mod.Funcs[0])
	g.cache[key.String()] = s
	return s, nil
}

// argSignature is the signature an argument gives an unannotated parameter.
func argSignature(name string, a runtime.Arg) (build.ArgSig, error) {
	switch v := a.(type) {
	case *runtime.Tensor:
		if v == nil {
			return build.ArgSig{}, fmt.Errorf("nil tensor")
		}
		dims := make([]ir.Dim, len(v.Shape))
		for i := range dims {
			dims[i] = ir.Dim{Sym: fmt.Sprintf("%s_%d", name, i)}
		}
		if len(dims) == 0 {
			return build.ArgSig{}, fmt.Errorf("a rank-0 tensor: arrays have at least one dimension")
		}
		return build.ArgSig{DType: v.DType, Dims: dims}, nil
	case []*runtime.Tensor:
		// A list of arrays: cuTile's launch checks, the dims named
		// param_item_axis (As_1_0).
		if len(v) == 0 {
			return build.ArgSig{}, fmt.Errorf("empty lists are not supported as kernel arguments")
		}
		list := build.ArgSig{DType: v[0].DType, Elems: []build.ArgSig{}}
		for j, t := range v {
			sig, err := argSignature(fmt.Sprintf("%s_%d", name, j), t)
			if err != nil {
				return build.ArgSig{}, fmt.Errorf("list item #%d: %v", j, err)
			}
			switch {
			case t.DType != v[0].DType:
				return build.ArgSig{}, fmt.Errorf("arrays in list vary in data type (item #0 is %s, item #%d %s)", v[0].DType, j, t.DType)
			case len(t.Shape) != len(v[0].Shape):
				return build.ArgSig{}, fmt.Errorf("arrays in list vary in rank (item #0 has rank %d, item #%d rank %d)", len(v[0].Shape), j, len(t.Shape))
			}
			list.Elems = append(list.Elems, sig)
		}
		return list, nil
	case int, int32:
		return build.ArgSig{DType: ir.I32}, nil
	case int64:
		return build.ArgSig{DType: ir.I64}, nil
	case float32, float64:
		return build.ArgSig{DType: ir.F32}, nil
	case bool:
		return build.ArgSig{DType: ir.Bool}, nil
	}
	return build.ArgSig{}, fmt.Errorf("want a *runtime.Tensor, a []*runtime.Tensor (a list of arrays) or a Go scalar, got %T", a)
}
