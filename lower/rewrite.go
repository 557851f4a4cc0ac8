package lower

// Helpers of the passes that rewrite the IR into the GPU-level schedule
// (pipeline, mma, epilogue, convert): building runs of new instructions
// and splicing them into blocks.

import (
	"fmt"

	"github.com/tilec/tilec/ir"
)

// seq builds a straight run of new instructions.
type seq struct {
	f   *ir.Func
	out []*ir.Instr
	pos ir.Instr // only Pos is used
}

func (s *seq) add(in *ir.Instr) *ir.Instr {
	if in.Pos.Line == 0 {
		in.Pos = s.pos.Pos
	}
	s.out = append(s.out, in)
	return in
}

func (s *seq) op(op ir.Op, args []*ir.Value, res ir.Type, attrs ...any) *ir.Value {
	var in *ir.Instr
	if res == nil {
		in = s.f.NewInstr(op, args)
	} else {
		in = s.f.NewInstr(op, args, res)
	}
	for i := 0; i+1 < len(attrs); i += 2 {
		in.Attrs.Set(attrs[i].(string), attrs[i+1])
	}
	s.add(in)
	if res == nil {
		return nil
	}
	return in.Result()
}

func (s *seq) i32(x int64) *ir.Value {
	return s.op(ir.OpConst, nil, ir.ScalarOf(ir.I32), ir.AttrKeyValue, x)
}

func (s *seq) barrier()         { s.op(ir.OpBarrier, nil, nil) }
func (s *seq) commit()          { s.op(ir.OpAsyncCommit, nil, nil) }
func (s *seq) wait(pending int) { s.op(ir.OpAsyncWait, nil, nil, ir.AttrKeyPending, int64(pending)) }

// replaceUses makes every use of old a use of new.
func replaceUses(f *ir.Func, old, new *ir.Value) {
	f.Body.Walk(func(in *ir.Instr) {
		for i, a := range in.Args {
			if a == old {
				in.Args[i] = new
			}
		}
	})
}

// replaceInstr puts seq in place of in, in in's block.
func replaceInstr(in *ir.Instr, seq []*ir.Instr) {
	b := in.Block
	for i, x := range b.Instrs {
		if x == in {
			insertAt(b, i, seq)
			b.Instrs = append(b.Instrs[:i+len(seq)], b.Instrs[i+len(seq)+1:]...)
			return
		}
	}
	panic(fmt.Sprintf("lower: %s is not in its block", in.Op))
}

// insertAt inserts seq before b.Instrs[i].
func insertAt(b *ir.Block, i int, seq []*ir.Instr) {
	for _, x := range seq {
		x.Block = b
	}
	b.Instrs = append(b.Instrs[:i], append(append([]*ir.Instr(nil), seq...), b.Instrs[i:]...)...)
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

func dropAttr(a ir.Attrs, key string) ir.Attrs {
	var out ir.Attrs
	for _, x := range a {
		if x.Key != key {
			out = append(out, x)
		}
	}
	return out
}

// insertBefore puts in right before at, in at's block.
func insertBefore(at, in *ir.Instr) {
	for i, x := range at.Block.Instrs {
		if x == at {
			insertAt(at.Block, i, []*ir.Instr{in})
			return
		}
	}
	panic(fmt.Sprintf("lower: %s is not in its block", at.Op))
}

// insertAfter puts in right after at, in at's block.
func insertAfter(at, in *ir.Instr) {
	for i, x := range at.Block.Instrs {
		if x == at {
			insertAt(at.Block, i+1, []*ir.Instr{in})
			return
		}
	}
	panic(fmt.Sprintf("lower: %s is not in its block", at.Op))
}
