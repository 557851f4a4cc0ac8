package build

// Tile methods and tile indexing, as cuTile has them: t.astype(dt),
// t.reshape(shape), t.permute(axes), t.transpose(...), t.item(),
// t.extract(index, shape), t.insert(index, value), and
// t[:, None] / t[None, :] (a full slice keeps a dim, None inserts one of
// size 1, an int index 0 drops a dim of size 1). A method is the tile
// builtin of the same name with the tile as its first argument.

import (
	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/lang"
)

// methodVal is `t.name` before the call: the receiver and the builtin.
type methodVal struct {
	recv *ir.Value
	name string
}

// tileMethods are the methods tiles have; each but item is the builtin of
// the same name.
var tileMethods = map[string]bool{
	"astype": true, "reshape": true, "permute": true, "transpose": true, "item": true,
	"expand_dims": true, "broadcast_to": true, "sum": true, "max": true, "min": true,
	"argmax": true, "argmin": true, "extract": true, "insert": true,
}

// callMethod calls a tile method: the builtin with the receiver first.
func (b *builder) callMethod(m methodVal, e *lang.Call, pos []arg, kws []kwArg) value {
	text := exprText(e.Fun)
	if m.name == "item" {
		if _, ok := b.bindArgs(text, nil, e.Pos, pos, kws); !ok {
			return poison{}
		}
		t, ok := m.recv.Type.(*ir.Tile)
		if !ok {
			return m.recv // a scalar is its own item
		}
		if t.NumElements() != 1 {
			return b.fail(e.Pos, "item: the tile has %d elements (%s), item needs exactly one", t.NumElements(), m.recv.Type)
		}
		return b.reshape(e.Pos, m.recv, []int{})
	}
	spec, ok := ctBuiltins[m.name]
	if !ok {
		return b.fail(e.Pos, "tiles have no method %s", m.name)
	}
	if extensionMethods[m.name] {
		b.extension(e.Pos, "t."+m.name+"(...)", "cuTile's Tile has no method "+m.name+"; write ct."+m.name+"(t, ...)")
	}
	// t.reshape(2, 4) and t.permute(1, 0) take the dims unpacked, as numpy.
	if (m.name == "reshape" || m.name == "permute") && len(pos) > 1 {
		b.extension(e.Pos, "t."+m.name+" with the dims unpacked", "cuTile takes one tuple, t."+m.name+"((d0, d1, ...))")
		t := make(tuple, len(pos))
		for i, a := range pos {
			t[i] = a.v
		}
		pos = []arg{{v: t, e: pos[0].e}}
	}
	all := append([]arg{{v: m.recv, e: e.Fun}}, pos...)
	args, ok := b.bindArgs(text, spec.params[1:], e.Pos, pos, kws)
	if !ok {
		return poison{}
	}
	args = append([]arg{all[0]}, args...)
	for _, a := range args {
		if isPoison(a.v) {
			return poison{}
		}
	}
	c := &callCtx{name: m.name, sig: signatureText(text, spec.params[1:]), pos: e.Pos, args: args}
	return spec.fn(b, c)
}

// indexTile evaluates t[i0, i1, ...] on a tile: `:` keeps a dim, None
// inserts a size-1 dim, a compile-time 0 (or -1) drops a size-1 dim.
func (b *builder) indexTile(x *ir.Value, e *lang.Subscript) value {
	elems := []lang.Expr{e.Index}
	if t, ok := e.Index.(*lang.Tuple); ok {
		elems = t.Elems
	}
	var shape []int
	if t, ok := x.Type.(*ir.Tile); ok {
		shape = t.Shape
	} else {
		return b.fail(e.Pos, "%s cannot be indexed", x.Type)
	}
	var out []int
	axis := 0
	for _, ie := range elems {
		switch ie := ie.(type) {
		case *lang.Slice:
			if !ie.Full() {
				return b.fail(ie.Pos, "tiles are indexed with ':' and None only (t[:, None]); a slice with bounds is not supported (use ct.extract)")
			}
			if axis >= len(shape) {
				return b.fail(ie.Pos, "too many indices for a tile of rank %d", len(shape))
			}
			out = append(out, shape[axis])
			axis++
		case *lang.NoneLit:
			out = append(out, 1)
		default:
			v := b.expr(ie)
			if isPoison(v) {
				return poison{}
			}
			n, isInt := v.(int64)
			if !isInt {
				return b.fail(ie.Position(), "a tile index must be ':', None or a compile-time int, got %s", describe(v))
			}
			if axis >= len(shape) {
				return b.fail(ie.Position(), "too many indices for a tile of rank %d", len(shape))
			}
			if n < 0 {
				n += int64(shape[axis])
			}
			if n < 0 || n >= int64(shape[axis]) {
				return b.fail(ie.Position(), "index %s is out of range for dim %d of size %d", formatConst(v), axis, shape[axis])
			}
			if shape[axis] != 1 {
				return b.fail(ie.Position(), "indexing a tile dim of size %d with an int is not supported: as in cuTile, indexing only inserts (None) and drops (0) size-1 dims; use t.extract(index, shape)", shape[axis])
			}
			axis++
		}
	}
	out = append(out, shape[axis:]...)
	return b.reshape(e.Pos, x, out)
}
