package lower

// Pass mma.
// Requires: pipeline.
// Guarantees: no mma op is left: each remaining one becomes frag_load and
// mma_step ops, one k-step after another (with Tuning.FragmentDoubleBuffer
// the fragments of k-step s+1 are loaded before the mma_step of s).
//
// The k-steps themselves are built here for both passes: frag_load of the
// A and B operand fragments of one k-step and mma_step over the warps'
// accumulators (mma.sync m16n8k16; m16n8k8 for tf32, m16n8k32 for float8),
// or one mma_fma for float32 inputs, which cuTile multiplies exactly.

import "github.com/tilec/tilec/ir"

// exactF32 reports whether mma has float32 inputs, which cuTile multiplies
// exactly (fma chains): no tensor-core path (tf32 is only for tfloat32).
func exactF32(mma *ir.Instr) bool { return mma.Args[0].Type.Elem() == ir.F32 }

// kSteps is the number of mma.sync k-steps of an mma.
func kSteps(mma *ir.Instr) int {
	a := mma.Args[0].Type.(*ir.Tile)
	return a.Shape[1] / ir.MMAKStep(a.DType)
}

// slotSet is the shared tile each load of a loop is read from at one
// point of the schedule (a ring slot), and the views (smem permutes and
// reshapes) of them built so far.
type slotSet struct {
	of    map[*ir.Instr]*ir.Value
	views map[*ir.Value]*ir.Value
}

func newSlotSet() *slotSet {
	return &slotSet{of: map[*ir.Instr]*ir.Value{}, views: map[*ir.Value]*ir.Value{}}
}

// operandView rebuilds mma operand v (a shared tile: a load, or smem
// permutes and reshapes of one) on the slot that slots gives for its load,
// in s; operands that are not loads of the loop (staged register tiles,
// shared tiles loaded before it) are used as they are.
func (slots *slotSet) operandView(s *seq, v *ir.Value) *ir.Value {
	if slots == nil || v.Def == nil {
		return v
	}
	if x, ok := slots.views[v]; ok {
		return x
	}
	d := v.Def
	out := v
	switch {
	case d.Op == ir.OpLoad && slots.of[d] != nil:
		out = slots.of[d]
	case (d.Op == ir.OpPermute || d.Op == ir.OpReshape) && InSmem(d):
		if src := slots.operandView(s, d.Args[0]); src != d.Args[0] {
			c := s.f.NewInstr(d.Op, []*ir.Value{src}, v.Type)
			c.Attrs = cloneAttrs(d.Attrs)
			s.add(c)
			out = c.Result()
		}
	}
	slots.views[v] = out
	return out
}

// fragOp is the frag_load of k-step k of operand i (0: A, 1: B) of mma.
func fragOp(s *seq, mma *ir.Instr, i, k int, slots *slotSet) *ir.Value {
	src := slots.operandView(s, mma.Args[i])
	acc, _ := LayoutOf(mma.Result())
	at := mma.Args[0].Type.(*ir.Tile)
	ct := mma.Result().Type.(*ir.Tile)
	ksz := ir.MMAKStep(at.DType)
	shape, kind, name := []int{ct.Shape[0], ksz}, ir.LayoutMMAOperandA, "a"
	if i == 1 {
		shape, kind, name = []int{ksz, ct.Shape[1]}, ir.LayoutMMAOperandB, "b"
	}
	lay := OperandLayoutFor(kind, shape, acc)
	// Each fragment keeps its operand's dtype: float8 mmas may mix e4m3
	// and e5m2.
	dt := mma.Args[i].Type.Elem()
	return s.op(ir.OpFragLoad, []*ir.Value{src}, ir.TileOf(dt, shape...),
		ir.AttrKeyKStep, int64(k), ir.AttrKeyOperand, name, ir.AttrKeyLayout, lay.Layout)
}

// fragOps loads both operands' fragments of k-step k.
func fragOps(s *seq, mma *ir.Instr, k int, slots *slotSet) (fa, fb *ir.Value) {
	return fragOp(s, mma, 0, k, slots), fragOp(s, mma, 1, k, slots)
}

// decomposeMMA emits mma as k-steps into s and returns the accumulator;
// after(k), when set, runs after the mma_step of k-step k (before the
// next fragments, when they are not double-buffered).
func decomposeMMA(s *seq, mma *ir.Instr, dbl bool, slots *slotSet, after func(k int)) *ir.Value {
	ks := kSteps(mma)
	acc := mma.Args[2]
	if exactF32(mma) {
		// No tensor-core k-steps: one mma_fma reads the shared tiles.
		acc = s.op(ir.OpMMAFMA, []*ir.Value{slots.operandView(s, mma.Args[0]), slots.operandView(s, mma.Args[1]), acc},
			mma.Result().Type, ir.AttrKeyLayout, mma.Attrs.Get(ir.AttrKeyLayout))
		for k := 0; k < ks && after != nil; k++ {
			after(k)
		}
		return acc
	}
	fa, fb := fragOps(s, mma, 0, slots)
	for k := 0; k < ks; k++ {
		var na, nb *ir.Value
		if dbl && k+1 < ks {
			na, nb = fragOps(s, mma, k+1, slots)
		}
		acc = s.op(ir.OpMMAStep, []*ir.Value{fa, fb, acc}, mma.Result().Type, ir.AttrKeyLayout, mma.Attrs.Get(ir.AttrKeyLayout))
		if after != nil {
			after(k)
		}
		if !dbl && k+1 < ks {
			na, nb = fragOps(s, mma, k+1, slots)
		}
		fa, fb = na, nb
	}
	return acc
}

// DecomposeMMA is the mma pass.
func DecomposeMMA(f *ir.Func, t *Target) error {
	var mmas []*ir.Instr
	f.Body.Walk(func(in *ir.Instr) {
		if in.Op == ir.OpMMA {
			mmas = append(mmas, in)
		}
	})
	for _, in := range mmas {
		s := &seq{f: f}
		s.pos.Pos = in.Pos
		acc := decomposeMMA(s, in, t.Tuning.FragmentDoubleBuffer, nil, nil)
		replaceUses(f, in.Result(), acc)
		replaceInstr(in, s.out)
	}
	return nil
}
