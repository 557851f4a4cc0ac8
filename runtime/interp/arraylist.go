package interp

// Lists of arrays (ir.ArrayList): list_get and list_len.

import (
	"fmt"

	"github.com/tilec/tilec/runtime"
)

// listRef is a list parameter's arrays, named by item: As[0], As[1].
type listRef struct {
	name  string
	items []*arrayRef
}

func listRefs(name string, ts []*runtime.Tensor) *listRef {
	l := &listRef{name: name, items: make([]*arrayRef, len(ts))}
	for i, t := range ts {
		l.items[i] = &arrayRef{name: fmt.Sprintf("%s[%d]", name, i), t: t}
	}
	return l
}

// execListGet takes item g of a list. cuTile leaves an index out of range
// undefined (the GPU reads past the list's table); the interpreter, the
// reference, stops the block with an error instead.
func execListGet(fr *frame, c *cinstr) error {
	l := fr.regs[c.args[0]].l
	iv := fr.regs[c.args[1]]
	g := iv.i
	if iv.t != nil {
		g = iv.t.i[0] // a rank-0 tile
	}
	if g < 0 || g >= int64(len(l.items)) {
		return fmt.Errorf("list index %d is out of range: %s has %d arrays", g, l.name, len(l.items))
	}
	fr.regs[c.res[0]] = val{a: l.items[g]}
	return nil
}

func execListLen(fr *frame, c *cinstr) error {
	fr.regs[c.res[0]] = val{i: int64(len(fr.regs[c.args[0]].l.items))}
	return nil
}
