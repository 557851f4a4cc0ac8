package lower

// Pass convert.
// Requires: layout.
// Guarantees: every register tile reaches its users in the layout they
// need, up to the numbering of each thread's registers (RegisterMap): where
// a broadcast, reshape or permute wants its operand in another layout than
// the operand has (OperandLayout), a convert_layout to that layout comes
// right before it; a reduce has the layout its combining steps leave
// (Layout.Reduce of its operand's), followed by a convert_layout to the
// layout the layout pass chose for its users where the two differ. The
// smem pass sizes the scratch region from these ops.

import "github.com/tilec/tilec/ir"

// ConvertLayouts is the convert pass.
func ConvertLayouts(f *ir.Func, t *Target) error {
	var err error
	var todo []func()
	f.Body.Walk(func(in *ir.Instr) {
		if err != nil || len(in.Results) != 1 || InSmem(in) {
			return
		}
		if in.Op != ir.OpBroadcast && in.Op != ir.OpReshape && in.Op != ir.OpPermute && in.Op != ir.OpReduce || GeneralReshape(in) {
			return
		}
		src, e := LayoutOf(in.Args[0])
		if e != nil || src == nil || src.Kind == ir.LayoutSmem {
			err = e
			return
		}
		res, e := LayoutOf(in.Result())
		if e != nil {
			err = e
			return
		}
		switch in.Op {
		case ir.OpBroadcast, ir.OpReshape, ir.OpPermute:
			want, e := OperandLayout(in, res)
			if e != nil {
				err = unsupportedAt(t, in, "%v", e)
				return
			}
			if _, ok := RegisterMap(src, want); ok {
				return
			}
			todo = append(todo, func() {
				c := f.NewInstr(ir.OpConvertLayout, []*ir.Value{in.Args[0]}, in.Args[0].Type)
				c.Pos = in.Pos
				setLayoutAttrs(c, want)
				in.Args[0] = c.Result()
				insertBefore(in, c)
			})
		case ir.OpReduce:
			natural := src.Reduce(in.Axis())
			if _, ok := RegisterMap(natural, res); ok {
				return
			}
			todo = append(todo, func() {
				r := in.Result()
				c := f.NewInstr(ir.OpConvertLayout, []*ir.Value{r}, r.Type)
				c.Pos = in.Pos
				c.Attrs.Set(ir.AttrKeyLayout, in.Attrs.Get(ir.AttrKeyLayout))
				replaceUses(f, r, c.Result())
				c.Args[0] = r
				setLayoutAttrs(in, natural)
				insertAfter(in, c)
			})
		}
	})
	if err != nil {
		return err
	}
	for _, do := range todo {
		do()
	}
	return nil
}
