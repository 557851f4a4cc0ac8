package ptxgen

import (
	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/lower"
)

// A shared tile load of rank > 2 (a (1, tm, tk) slab of a batched array,
// reshaped to 2-D for the mma) copies a 2-D window: lower.WindowAxes are
// its rows and columns (the columns are the array's last axis), and the
// other axes have size 1, so their tile index is a fixed element index.

// smemWindow returns what a shared tile load copies from as a 2-D array
// (for a window: the array with the fixed axes' offset folded into the
// pointer, and the window axes' dims and strides), the window's shape,
// and the load's tile index along the window axes. For a rank-2 load it
// is the array itself.
func (e *emitter) smemWindow(c *tileCopy) (*array, [2]int, [2]*ir.Value) {
	a := e.arrs[c.arr]
	tt := c.tile
	ax, ok := lower.WindowAxes(tt.Shape)
	if !ok || (tt.Rank() > 2 && ax[1] != tt.Rank()-1) {
		e.fail("shared tile %s is not a 2-D window of its array's last axis", tt)
	}
	shape := [2]int{tt.Shape[ax[0]], tt.Shape[ax[1]]}
	idx := [2]*ir.Value{c.idx[ax[0]], c.idx[ax[1]]}
	if tt.Rank() == 2 {
		return a, shape, idx
	}
	ptr := a.ptr
	for d := range tt.Shape {
		if d == ax[0] || d == ax[1] {
			continue
		}
		// Tile size 1: the tile index is the element index.
		i := e.vals[c.idx[d]].reg
		i64 := e.newReg(B64)
		e.emit("cvt.s64.s32", i64, i)
		t := e.newReg(B64)
		e.emit("mul.lo.s64", t, i64, a.strides[d])
		p := e.newReg(B64)
		e.emit("mad.lo.s64", p, t, Imm(int64(a.dt.Bytes())), ptr)
		ptr = p
	}
	return &array{
		ptr:     ptr,
		dims:    []Reg{a.dims[ax[0]], a.dims[ax[1]]},
		strides: []Reg{a.strides[ax[0]], a.strides[ax[1]]},
		dt:      a.dt,
	}, shape, idx
}
