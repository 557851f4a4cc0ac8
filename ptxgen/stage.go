package ptxgen

// Register tiles that feed an mma (lower's smem_stage with smem and
// row_bytes): every thread writes its elements to the tile's shared buffer
// in the swizzled layout the smem loads use, so that the mma reads it with
// ldmatrix like a loaded tile. The barriers around are the IR's.

import (
	"fmt"

	"github.com/tilec/tilec/ir"
)

func (e *emitter) stageToSmem(in *ir.Instr, v *value) {
	lay := v.lay
	tt := in.Result().Type.(*ir.Tile)
	if len(tt.Shape) != 2 {
		e.fail("mma operand tiles of rank %d are not supported yet", len(tt.Shape))
	}
	bytes := tt.DType.Bytes()
	off := in.Attrs.Int(ir.AttrKeySmem)
	base := e.invariant(fmt.Sprint("stage/", in.Result().ID), func() Reg {
		r := e.newReg(B32)
		e.emit("add.u32", r, e.smemBase, Imm(off))
		return r
	})
	tc := e.threadCoord(lay)
	// Pairs of consecutive halves go in one 32-bit store when register bit
	// 0 steps along the columns and every other column step is even.
	pair := bytes == 2 && len(lay.Reg) > 0 && lay.Reg[0][0] == 0 && lay.Reg[0][1] == 1
	if pair {
		for _, bs := range [][][]int{lay.Reg[1:], lay.Lane, lay.Warp} {
			for _, b := range bs {
				if b[1]%2 != 0 {
					pair = false
				}
			}
		}
	}
	addrs := map[Reg]Reg{}
	for r := range v.regs {
		if lay.CanonicalReg(r) != r || (pair && r&1 == 1) {
			continue
		}
		c := lay.RegCoord(r)
		o, imm := e.tileOffset(in, tc[0], c[0], tc[1], c[1])
		a, ok := addrs[o]
		if !ok {
			a = e.newReg(B32)
			e.emit("add.u32", a, base, o)
			addrs[o] = a
		}
		at := Addr{Base: a, Off: imm}
		switch {
		case pair:
			x := e.newReg(B32)
			e.emit("mov.b32", x, Vec{v.regs[r], v.regs[r+1]})
			e.emit("st.shared.b32", at, x)
		case bytes == 1:
			// One-byte elements (int8, uint8, float8) live in wider
			// registers: store their byte, not the register.
			e.emit("st.shared."+btype(tt.DType), at, v.regs[r])
		default:
			e.emit("st.shared."+btypeReg(v.regs[r].Class), at, v.regs[r])
		}
	}
	e.vals[in.Result()] = &value{smem: &smemVal{tile: in, base: base}}
}
