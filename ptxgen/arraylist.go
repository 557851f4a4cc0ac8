package ptxgen

// Lists of arrays (ir.ArrayList, cuTile's List[Array]): a list parameter
// is two .params, the device address of a table the launcher builds (per
// array, 1 + 2*rank 64-bit words: address, extents, strides; cuTile's
// layout) and its length; list_get loads an array's words from the table
// into the registers every array access reads (array), list_len is the
// length.
//
// An array taken inside a loop changes from one iteration to the next,
// so what the access code computes from its registers once per kernel
// (invariant) must stay where the array is: listRegs marks those
// registers, and listInvariant computes anything that reads them in place
// instead of in the loop nest's preheader.

import (
	"github.com/tilec/tilec/ir"
)

func init() {
	opEmitters[ir.OpListGet] = (*emitter).emitListGet
	opEmitters[ir.OpListLen] = func(e *emitter, in *ir.Instr) {
		e.vals[in.Result()] = &value{reg: e.lists[in.Args[0]].length}
	}
}

// list is a list parameter's registers.
type list struct {
	table  Reg // global address of the table
	length Reg // s32
	dt     ir.DType
	rank   int
}

// listParam declares list parameter i (p) and loads its two slots.
func (e *emitter) listParam(i int, p *ir.Param, t *ir.ArrayList, name string) {
	l := &list{dt: t.DType, rank: t.Rank}
	e.params = append(e.params, ParamSlot{Kind: SlotListTable, Param: i}, ParamSlot{Kind: SlotListLen, Param: i})
	e.paramDecl = append(e.paramDecl, ".param .u64 "+name+"_table", ".param .s32 "+name+"_len")
	raw := e.newReg(B64)
	e.emit("ld.param.u64", raw, Addr{Base: Sym(name + "_table")})
	l.table = e.newReg(B64)
	e.emit("cvta.to.global.u64", l.table, raw)
	l.length = e.newReg(B32)
	e.emit("ld.param.s32", l.length, Addr{Base: Sym(name + "_len")})
	if e.lists == nil {
		e.lists = map[*ir.Value]*list{}
	}
	e.lists[p.Value] = l
}

// emitListGet loads item g's address, extents (to s32, as an array
// parameter's) and strides from the table. An index out of range reads
// past the table, as in cuTile, where it is undefined.
func (e *emitter) emitListGet(in *ir.Instr) {
	l := e.lists[in.Args[0]]
	if l == nil {
		e.fail("internal: list_get of %v, which is not a list parameter", in.Args[0])
	}
	iv := in.Args[1]
	g := e.vals[iv].reg
	if vr := e.vals[iv]; vr.regs != nil {
		g = vr.regs[0] // a rank-0 tile: every copy holds the value
	}
	g64 := e.newReg(B64)
	if iv.Type.Elem().Bytes() == 8 {
		e.emit("mov.b64", g64, g)
	} else if iv.Type.Elem().IsUnsigned() {
		e.emit("cvt.u64.u32", g64, g)
	} else {
		e.emit("cvt.s64.s32", g64, g)
	}
	words := 1 + 2*l.rank
	item := e.newReg(B64)
	e.emit("mad.lo.s64", item, g64, Imm(int64(8*words)), l.table)
	a := &array{dt: l.dt, ptr: e.newReg(B64)}
	e.emit("ld.global.u64", a.ptr, Addr{Base: item})
	for ax := 0; ax < l.rank; ax++ {
		w := e.newReg(B64)
		e.emit("ld.global.u64", w, Addr{Base: item, Off: int64(8 * (1 + ax))})
		d := e.newReg(B32)
		e.emit("cvt.u32.u64", d, w)
		a.dims = append(a.dims, d)
	}
	for ax := 0; ax < l.rank; ax++ {
		s := e.newReg(B64)
		e.emit("ld.global.u64", s, Addr{Base: item, Off: int64(8 * (1 + l.rank + ax))})
		a.strides = append(a.strides, s)
	}
	e.arrs[in.Result()] = a
	if e.hoist != nil {
		// Inside a loop: nothing computed from these may be hoisted.
		if e.listRegs == nil {
			e.listRegs = map[Reg]bool{}
		}
		e.listRegs[a.ptr] = true
		for _, r := range append(append([]Reg(nil), a.dims...), a.strides...) {
			e.listRegs[r] = true
		}
	}
}

// listInvariant is invariant inside a loop nest that holds a list_get: gen
// runs into a buffer of its own; code that reads none of listRegs goes to
// the preheader and is kept for reuse as any invariant, code that reads
// one stays where it is needed, is not kept (a later use may be in another
// iteration or branch) and its registers join listRegs.
func (e *emitter) listInvariant(key string, gen func() Reg) Reg {
	saved := e.cur
	var buf []Instr
	e.cur = &buf
	r := gen()
	e.cur = saved
	if !e.readsListRegs(buf) {
		*e.hoist = append(*e.hoist, buf...)
		e.inv[key] = r
		return r
	}
	for _, in := range buf {
		for _, op := range in.Args {
			for _, x := range operandRegs(op) {
				e.listRegs[x] = true
			}
		}
	}
	e.listRegs[r] = true
	*e.cur = append(*e.cur, buf...)
	return r
}

// readsListRegs reports whether any instruction of code reads (or writes:
// the destination is an operand too, which only makes this conservative)
// a register of listRegs.
func (e *emitter) readsListRegs(code []Instr) bool {
	for _, in := range code {
		if in.Guard != nil && e.listRegs[*in.Guard] {
			return true
		}
		for _, op := range in.Args {
			for _, r := range operandRegs(op) {
				if e.listRegs[r] {
					return true
				}
			}
		}
	}
	return false
}

// operandRegs lists the registers an operand names.
func operandRegs(op Operand) []Reg {
	switch x := op.(type) {
	case Reg:
		return []Reg{x}
	case Addr:
		return operandRegs(x.Base)
	case Vec:
		var out []Reg
		for _, y := range x {
			out = append(out, operandRegs(y)...)
		}
		return out
	case nil:
		return nil
	}
	return nil
}
