package ptxgen

// Views and element offsets of an array. array_slice makes an array's
// registers (as list_get does): the base moved by start*stride along the
// axis, the extent stop - start there, the strides unchanged. The
// element-offset accesses are emitIndexed's (indexed.go).

import "github.com/tilec/tilec/ir"

func init() {
	opEmitters[ir.OpArraySlice] = (*emitter).emitArraySlice
	for _, op := range []ir.Op{ir.OpLoadOffset, ir.OpStoreOffset, ir.OpAtomicRMWOffset, ir.OpAtomicCASOffset} {
		opEmitters[op] = (*emitter).emitIndexed
	}
}

// emitArraySlice computes the slice's registers. A slice made inside a
// loop changes from one iteration to the next: its registers join
// listRegs, so that nothing computed from them is hoisted out of the loop.
func (e *emitter) emitArraySlice(in *ir.Instr) {
	a := e.arrs[in.Args[0]]
	if a == nil {
		e.fail("internal: array_slice of %v, which has no array registers", in.Args[0])
	}
	ax := int(in.IntAttr(ir.AttrKeyAxis))
	bound := func(v *ir.Value) Reg {
		x := e.vals[v]
		if x.regs != nil {
			return x.regs[0] // a rank-0 tile: every copy holds the value
		}
		return x.reg
	}
	start64 := e.index64(bound(in.Args[1]), in.Args[1].Type.Elem())
	stop64 := e.index64(bound(in.Args[2]), in.Args[2].Type.Elem())
	s := &array{dt: a.dt, ptr: e.newReg(B64), strides: a.strides, dims: append([]Reg(nil), a.dims...)}
	step := e.newReg(B64)
	e.emit("mul.lo.s64", step, start64, a.strides[ax])
	e.emit("mad.lo.s64", s.ptr, step, Imm(int64(a.dt.Bytes())), a.ptr)
	n64 := e.newReg(B64)
	e.emit("sub.s64", n64, stop64, start64)
	n := e.newReg(B32)
	e.emit("cvt.u32.u64", n, n64)
	s.dims[ax] = n
	e.arrs[in.Result()] = s
	if e.hoist != nil {
		if e.listRegs == nil {
			e.listRegs = map[Reg]bool{}
		}
		e.listRegs[s.ptr] = true
		e.listRegs[n] = true
	}
}
