package build

import (
	"slices"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/lang"
)

// biMMAScaled is ct.mma_scaled(x, x_scale, y, y_scale, acc): the
// block-scaled acc + (x*x_scale) @ (y*y_scale) of MX formats. It checks
// cuTile's rules in cuTile's order (dtypes, then scale shapes, then the
// accumulator's shape), each error at the argument it is about. tilec has
// float8 operands (float8_e4m3fn, float8_e5m2) with float8_e8m0fnu scales,
// one per 32 elements along K; cuTile's float4_e2m1fn operands (and its
// float8_e4m3fn / float8_e5m3fnu scales for them) are not supported.
func (b *builder) biMMAScaled(c *callCtx) value {
	names := []string{"x", "x_scale", "y", "y_scale", "acc"}
	vs := make([]*ir.Value, len(names))
	ts := make([]*ir.Tile, len(names))
	for i, n := range names {
		v, t, ok := b.tileArg(c, i, n)
		if !ok {
			return poison{}
		}
		if r := t.Rank(); r != 2 && r != 3 {
			return b.fail(c.argPos(i), "mma_scaled: %s is %s: operands and scales must be 2-D tiles (3-D when batched)", n, t)
		}
		vs[i], ts[i] = v, t
	}
	x, xs, y, ys, acc := ts[0], ts[1], ts[2], ts[3], ts[4]
	switch {
	case x.DType != y.DType:
		return b.fail(c.argPos(2), "mma_scaled: x is %s but y is %s: x and y must have the same dtype", x, y)
	case xs.DType != ys.DType:
		return b.fail(c.argPos(3), "mma_scaled: x_scale is %s but y_scale is %s: the scales must have the same dtype", xs, ys)
	case !x.DType.IsFloat8():
		return b.fail(c.argPos(0), "mma_scaled: %s inputs are not supported (float8_e4m3fn or float8_e5m2 with float8_e8m0fnu scales; tilec has no float4_e2m1fn)", x.DType)
	case xs.DType != ir.F8E8M0:
		return b.fail(c.argPos(1), "mma_scaled: %s inputs take float8_e8m0fnu scales, not %s", x.DType, xs.DType)
	case acc.DType != ir.F32:
		return b.fail(c.argPos(4), "mma_scaled: acc is %s: block-scaled products accumulate in float32", acc)
	}
	for _, p := range []struct {
		i, si   int
		operand int
	}{{0, 1, 0}, {2, 3, 1}} {
		t, st := ts[p.i], ts[p.si]
		r := t.Rank()
		kAxis := r - 1 - p.operand
		want, ok := ir.MMAScaledScaleShape(t.Shape, p.operand)
		if st.Rank() != r {
			return b.fail(c.argPos(p.si), "mma_scaled: %s is %s but %s is %s: ranks differ", names[p.si], st, names[p.i], t)
		}
		if !ok || !slices.Equal(st.Shape, want) {
			for d := range t.Shape {
				if d != kAxis && t.Shape[d] != st.Shape[d] {
					return b.fail(c.argPos(p.si), "mma_scaled: %s is %s but %s is %s: all dimensions but K (axis %d) must match", names[p.si], st, names[p.i], t, kAxis-r)
				}
			}
			return b.fail(c.argPos(p.si), "mma_scaled: %s is %s but %s is %s: %s.shape[%d] must be %d times %s.shape[%d] (%s inputs with float8_e8m0fnu scales have one scale per %d elements along K)",
				names[p.si], st, names[p.i], t, names[p.i], kAxis-r, ir.MMAScaledBlock, names[p.si], kAxis-r, t.DType, ir.MMAScaledBlock)
		}
	}
	r := x.Rank()
	switch {
	case y.Rank() != r:
		return b.fail(c.argPos(2), "mma_scaled: x is %s but y is %s: ranks differ", x, y)
	case r == 3 && x.Shape[0] != y.Shape[0]:
		return b.fail(c.argPos(2), "mma_scaled: x is %s but y is %s: batch dimensions %d and %d differ", x, y, x.Shape[0], y.Shape[0])
	case x.Shape[r-1] != y.Shape[r-2]:
		return b.fail(c.argPos(2), "mma_scaled: x is %s but y is %s: inner dimensions %d and %d differ", x, y, x.Shape[r-1], y.Shape[r-2])
	}
	if want := mmaShape(x, y); !slices.Equal(acc.Shape, want) {
		return b.fail(c.argPos(4), "mma_scaled: acc is %s but x@y is %s (x is %s, y is %s)", acc, shapeString(want), x, y)
	}
	return b.emitInferred(c.pos, ir.OpMMAScaled, nil, vs...)
}

// scaleOperand reports (as an error at pos) an operator or math function
// applied to a float8_e8m0fnu tile or scalar: cuTile's scale factors are
// a restricted float that only moves (load, store, reshape, permute) and
// converts to another float dtype (astype) before any arithmetic.
func (b *builder) scaleOperand(pos lang.Pos, op string, xs ...value) bool {
	for _, x := range xs {
		if v, ok := x.(*ir.Value); ok && v.Type.Elem() == ir.F8E8M0 {
			b.errorf(pos, "%s of a float8_e8m0fnu value: scale factors support no arithmetic; convert them with ct.astype(x, ct.float32) first", op)
			return true
		}
	}
	return false
}
