package build

// Performance hints as cuTile spells them: the kernel decorator's
// num_ctas, occupancy, opt_level and num_worker_warps (an int, or
// ct.ByTarget(sm_90=..., default=...) per target), and the load/store
// hints latency, allow_tma, check_bounds and order. They are recorded in
// the IR (Func.Hints, the ops' optional attributes) for the backends; a
// hint is never an error unless its value is malformed. order is not a
// hint: it maps tile axes to array axes (see memHints).

import (
	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/lang"
)

var kernelHints = map[string]bool{"num_ctas": true, "occupancy": true, "opt_level": true, "num_worker_warps": true}

const nsByTarget nsVal = "ByTarget"

// byTargetVal is ct.ByTarget(sm_90=2, default=1): a value per target.
type byTargetVal []ir.Const

// byTarget evaluates a ct.ByTarget(...) call: keyword arguments only,
// each a compile-time int, float or bool.
func (b *builder) byTarget(e *lang.Call, pos []arg, kws []kwArg) value {
	if len(pos) > 0 {
		return b.fail(pos[0].e.Position(), "ct.ByTarget takes keyword arguments only: ct.ByTarget(sm_90=2, default=1)")
	}
	var out byTargetVal
	for _, kw := range kws {
		switch kw.v.(type) {
		case int64, float64, bool:
		default:
			if isPoison(kw.v) {
				return poison{}
			}
			return b.fail(kw.pos, "ct.ByTarget: %s must be a compile-time number, got %s", kw.name, describe(kw.v))
		}
		out = append(out, ir.Const{Name: kw.name, Value: kw.v})
	}
	if len(out) == 0 {
		return b.fail(e.Pos, "ct.ByTarget needs at least one target=value")
	}
	return out
}

// kernelHint records one hint of @ct.kernel(...).
func (b *builder) kernelHint(kw *lang.Keyword) {
	v := b.expr(kw.Value)
	switch v := v.(type) {
	case int64:
		if v < 0 {
			b.errorf(kw.Value.Position(), "%s must not be negative, got %d", kw.Name, v)
			return
		}
		b.f.Hints = append(b.f.Hints, ir.Const{Name: kw.Name, Value: v})
	case byTargetVal:
		for _, c := range v {
			b.f.Hints = append(b.f.Hints, ir.Const{Name: kw.Name + ":" + c.Name, Value: c.Value})
		}
	case poison:
	default:
		b.errorf(kw.Value.Position(), "%s must be an int or ct.ByTarget(...), got %s", kw.Name, describe(v))
	}
}

// memHints reads the hints of a load or store call into attrs, and its
// order: nil for the identity ("C"), else the permutation, cuTile's
// meaning: tile axis k is array axis order[k] ("F" reverses the axes).
// ct.load(A, (j, i), shape=(tn, tm), order=(1, 0)) is the transpose of
// ct.load(A, (i, j), shape=(tm, tn)).
func (b *builder) memHints(c *callCtx, rank int, attrs *ir.Attrs) ([]int, bool) {
	params := ctBuiltins[c.name].params
	ok := true
	var order []int
	for i, p := range params {
		if !c.given(i) {
			continue
		}
		v := c.args[i].v
		switch p.name {
		case "latency":
			n, isInt := v.(int64)
			if !isInt || n < 1 || n > 10 {
				b.errorf(c.argPos(i), "%s: latency must be an int from 1 to 10, got %s", c.name, formatConst(v))
				ok = false
				continue
			}
			attrs.Set(ir.AttrKeyLatency, n)
		case "allow_tma", "check_bounds":
			t, isBool := v.(bool)
			if !isBool {
				b.errorf(c.argPos(i), "%s: %s must be True or False, got %s", c.name, p.name, describe(v))
				ok = false
				continue
			}
			attrs.Set(p.name, t)
		case "order":
			perm, valid := orderPerm(v, rank)
			if !valid {
				b.errorf(c.argPos(i), "%s: order must be \"C\", \"F\" or a permutation of the %d array axes, got %s", c.name, rank, formatConst(v))
				ok = false
			}
			order = perm
		}
	}
	return order, ok
}

// orderPerm reads a load or store order: nil for the identity.
func orderPerm(v value, rank int) ([]int, bool) {
	perm := make([]int, rank)
	switch v := v.(type) {
	case string:
		switch v {
		case "C":
			return nil, true
		case "F":
			for i := range perm {
				perm[i] = rank - 1 - i
			}
		default:
			return nil, false
		}
	case tuple:
		if len(v) != rank {
			return nil, false
		}
		seen := make([]bool, rank)
		for i, x := range v {
			n, ok := x.(int64)
			if !ok || n < 0 || n >= int64(rank) || seen[n] {
				return nil, false
			}
			seen[n] = true
			perm[i] = int(n)
		}
	default:
		return nil, false
	}
	for i, p := range perm {
		if p != i {
			return perm, true
		}
	}
	return nil, true
}
