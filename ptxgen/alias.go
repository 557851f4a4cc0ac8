package ptxgen

import "github.com/tilec/tilec/ir"

// ownsRegs reports whether tile value v's registers are its own, so that
// an instruction may update them in place (emitMMA's accumulator): they
// are pairwise distinct and v's defining instruction made them. A splat
// shares one scalar register among all its elements (ct.zeros in a loop
// body gives an mma accumulator whose registers are all the constant
// 0.0, which other values use too), and a broadcast, register reshape or
// permute, or an identity convert shares its operand's registers.
func (e *emitter) ownsRegs(v *ir.Value) bool {
	x := e.vals[v]
	if x == nil || x.regs == nil {
		return false
	}
	seen := make(map[Reg]bool, len(x.regs))
	for _, r := range x.regs {
		if seen[r] {
			return false
		}
		seen[r] = true
	}
	d := v.Def
	if d == nil {
		return true // a loop-carried block parameter: the loop's own registers
	}
	switch d.Op {
	case ir.OpSplat, ir.OpBroadcast, ir.OpReshape, ir.OpPermute:
		return false
	case ir.OpConvert:
		from, to := d.Args[0].Type.Elem(), v.Type.Elem()
		if from == to || (from == ir.F32 && to == ir.TF32) || (from == ir.TF32 && to == ir.F32) {
			return false
		}
	}
	return true
}
