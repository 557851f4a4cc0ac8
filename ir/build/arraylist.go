package build

// Lists of arrays as kernel parameters (cuTile's List[Array], TileGym's
// grouped GEMM: `As[g]` for a group g computed from ct.bid or a loop).
// An unannotated parameter whose launch argument is a list of arrays is a
// list parameter (ir.ArrayList); its elements share a dtype and a rank,
// which the kernel is specialized on, while the length and each element's
// extents and strides are fixed at launch. len(As) is the run-time length
// (list_len, an i32 as in cuTile) and As[g] an array (list_get) that every
// array builtin takes, its shape read with dim where it is used.

import (
	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/lang"
)

// listItem builds `As[i]`: i is a compile-time int or an integer scalar or
// rank-0 tile. A compile-time i must not be negative: cuTile does not
// count from the end of a list whose length is known only at launch.
func (b *builder) listItem(l *listVal, idx value, e *lang.Subscript) value {
	var iv *ir.Value
	switch x := idx.(type) {
	case poison:
		return poison{}
	case int64:
		if x < 0 {
			return b.fail(e.Index.Position(), "list index %d is negative: the length of %s is known only at launch, so it cannot count from the end", x, l.name)
		}
		if x > 1<<31-1 {
			return b.fail(e.Index.Position(), "list index %d is out of range: lists have at most 2**31-1 arrays", x)
		}
		iv = b.constant(e.Index.Position(), x, ir.I32)
	case *ir.Value:
		if sh, ok := ir.ValueShape(x.Type); ok && len(sh) == 0 && x.Type.Elem().IsInt() {
			iv = x
		}
	}
	if iv == nil {
		return b.fail(e.Index.Position(), "index of list %s must be an integer scalar or rank-0 integer tile, got %s", l.name, describe(idx))
	}
	t := l.p.Type.(*ir.ArrayList)
	v := b.emit(e.Pos, ir.OpListGet, t.Item(), l.p.Value, iv)
	return &arrayVal{name: l.name + "[...]", v: v, t: t.Item()}
}
