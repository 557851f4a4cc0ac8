package lower

// Pass fold.
// Requires: a kernel with its constants baked in (the builder did that).
// Guarantees: integer scalar arithmetic and comparisons whose operands are
// constants are replaced by constants (float arithmetic is not folded);
// pure instructions whose results are unused are removed.

import "github.com/tilec/tilec/ir"

// Fold folds constant integer scalar arithmetic and removes dead pure instructions.
func Fold(f *ir.Func) error {
	foldBlock(f, f.Body)
	DeadCode(f)
	return nil
}

func constOf(v *ir.Value) (any, bool) {
	if v.Def == nil || v.Def.Op != ir.OpConst {
		return nil, false
	}
	if _, ok := v.Type.(*ir.Scalar); !ok {
		return nil, false
	}
	return v.Def.Attrs.Get(ir.AttrKeyValue), true
}

func foldBlock(f *ir.Func, b *ir.Block) {
	for _, in := range b.Instrs {
		for _, r := range in.Regions {
			foldBlock(f, r)
		}
		if len(in.Results) != 1 || !in.Op.Info().Elementwise {
			continue
		}
		if _, ok := in.Result().Type.(*ir.Scalar); !ok {
			continue
		}
		vals := make([]any, len(in.Args))
		ok := true
		for i, a := range in.Args {
			vals[i], ok = constOf(a)
			if !ok {
				break
			}
		}
		if !ok {
			continue
		}
		v, ok := evalConst(in, vals)
		if !ok {
			continue
		}
		// Rewrite in place: the instruction becomes a const.
		in.Op = ir.OpConst
		in.Args = nil
		in.Attrs = nil
		in.Attrs.Set(ir.AttrKeyValue, v)
	}
}

func evalConst(in *ir.Instr, vals []any) (any, bool) {
	dt := in.Result().Type.Elem()
	if len(vals) == 2 {
		x, xok := vals[0].(int64)
		y, yok := vals[1].(int64)
		if xok && yok && in.Args[0].Type.Elem().IsInt() {
			ad := in.Args[0].Type.Elem()
			switch in.Op {
			case ir.OpCmp:
				// IntOrderKey orders u64 bit patterns as unsigned, as the interpreter compares.
				return cmpInt(in.Pred(), ir.IntOrderKey(ad, x), ir.IntOrderKey(ad, y))
			}
			if ir.IntBinaryWarning(in.Op, y) != "" {
				return nil, false // left to run time, which defines it and warns
			}
			r, ok := ir.EvalIntBinaryOf(in.Op, ad, x, y)
			if !ok {
				return nil, false
			}
			return ir.WrapInt(dt, r), true
		}
	}
	return nil, false
}

func cmpInt(pred string, x, y int64) (any, bool) {
	switch pred {
	case ir.PredEQ:
		return x == y, true
	case ir.PredNE:
		return x != y, true
	case ir.PredLT:
		return x < y, true
	case ir.PredLE:
		return x <= y, true
	case ir.PredGT:
		return x > y, true
	case ir.PredGE:
		return x >= y, true
	}
	return nil, false
}

// DeadCode removes instructions without side effects whose results are not
// used, until none is left.
func DeadCode(f *ir.Func) {
	for {
		uses := Uses(f)
		removed := false
		var sweep func(b *ir.Block)
		sweep = func(b *ir.Block) {
			keep := b.Instrs[:0]
			for _, in := range b.Instrs {
				for _, r := range in.Regions {
					sweep(r)
				}
				dead := !in.Op.Info().SideEffect && len(in.Regions) == 0
				for _, r := range in.Results {
					if len(uses[r]) > 0 {
						dead = false
					}
				}
				if dead {
					removed = true
					continue
				}
				keep = append(keep, in)
			}
			b.Instrs = keep
		}
		sweep(f.Body)
		if !removed {
			return
		}
	}
}

// Uses maps every value to the instructions that use it.
func Uses(f *ir.Func) map[*ir.Value][]*ir.Instr {
	u := map[*ir.Value][]*ir.Instr{}
	f.Body.Walk(func(in *ir.Instr) {
		for _, a := range in.Args {
			u[a] = append(u[a], in)
		}
	})
	return u
}
