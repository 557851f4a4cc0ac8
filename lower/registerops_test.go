package lower

import (
	"testing"

	"github.com/tilec/tilec/ir"
)

// TestAttnRegisterOpFollowsTheTable checks attnRegisterOp against the op
// table's columns for every op: what touches memory, synchronizes or is
// GPU-level is refused, element-wise code is taken, and of the exchanges
// only reduce and reshape are.
func TestAttnRegisterOpFollowsTheTable(t *testing.T) {
	taken := 0
	for op := ir.Op(1); op < ir.NumOps; op++ {
		info := op.Info()
		in := &ir.Instr{Op: op}
		for i := 0; i < info.NumRegions; i++ {
			in.Regions = append(in.Regions, &ir.Block{})
		}
		got := attnRegisterOp(in)
		if got {
			taken++
		}
		switch {
		case info.Global != 0 || info.SideEffect || info.LoweredOnly || info.NumRegions > 0:
			if got {
				t.Errorf("%s (global %s, side effect %v, lowered-only %v, %d regions) taken", op, info.Global, info.SideEffect, info.LoweredOnly, info.NumRegions)
			}
		case info.Shared == ir.SharedExchange:
			if want := op == ir.OpReduce || op == ir.OpReshape; got != want {
				t.Errorf("exchange %s: taken %v, want %v", op, got, want)
			}
		case info.Shared != ir.SharedNone:
			if got {
				t.Errorf("%s (shared %s) taken", op, info.Shared)
			}
		case info.Elementwise:
			if !got {
				t.Errorf("element-wise %s refused", op)
			}
		}
	}
	for _, op := range []ir.Op{ir.OpConst, ir.OpDim, ir.OpSplat, ir.OpIota, ir.OpBroadcast, ir.OpPermute, ir.OpSelect, ir.OpConvert} {
		if !attnRegisterOp(&ir.Instr{Op: op}) {
			t.Errorf("%s refused", op)
		}
	}
	for _, op := range []ir.Op{ir.OpMMA, ir.OpBlockID, ir.OpNumBlocks, ir.OpStride, ir.OpListGet, ir.OpListLen, ir.OpLoad, ir.OpGather, ir.OpScan, ir.OpCat} {
		if attnRegisterOp(&ir.Instr{Op: op}) {
			t.Errorf("%s taken", op)
		}
	}
	if taken < 40 {
		t.Errorf("only %d ops taken", taken)
	}
}
