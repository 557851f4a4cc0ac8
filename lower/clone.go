package lower

import "github.com/tilec/tilec/ir"

// Clone returns a deep copy of f: new values, instructions and blocks, so
// that lowering never changes the caller's IR.
func Clone(f *ir.Func) *ir.Func {
	g := ir.NewFunc(f.Name)
	g.Pos = f.Pos
	g.Consts = append([]ir.Const(nil), f.Consts...)
	g.Hints = append([]ir.Const(nil), f.Hints...)
	g.Grid = f.Grid
	g.Facts = f.Facts
	m := map[*ir.Value]*ir.Value{}
	for _, p := range f.Params {
		np := g.AddParam(p.Name, p.Type, append([]ir.Dim(nil), p.Dims...))
		m[p.Value] = np.Value
	}
	cloneBlock(g, f.Body, g.Body, m)
	return g
}

func cloneBlock(g *ir.Func, src, dst *ir.Block, m map[*ir.Value]*ir.Value) {
	for _, in := range src.Instrs {
		args := make([]*ir.Value, len(in.Args))
		for i, a := range in.Args {
			if na, ok := m[a]; ok {
				args[i] = na
			} else {
				args[i] = a // defined outside f: keep (should not happen in valid IR)
			}
		}
		types := make([]ir.Type, len(in.Results))
		for i, r := range in.Results {
			types[i] = r.Type
		}
		ni := g.NewInstr(in.Op, args, types...)
		ni.Pos = in.Pos
		ni.Attrs = cloneAttrs(in.Attrs)
		for i, r := range in.Results {
			m[r] = ni.Results[i]
		}
		for _, r := range in.Regions {
			nr := ni.NewRegion()
			for _, p := range r.Params {
				m[p] = g.AddBlockParam(nr, p.Type)
			}
			cloneBlock(g, r, nr, m)
		}
		dst.Append(ni)
	}
}

func cloneAttrs(a ir.Attrs) ir.Attrs {
	if a == nil {
		return nil
	}
	b := make(ir.Attrs, len(a))
	for i, x := range a {
		if l, ok := x.Val.([]int); ok {
			x.Val = append([]int(nil), l...)
		}
		b[i] = x
	}
	return b
}
