package build

// ct.static_iter: `for x in ct.static_iter(iterable):` iterates at compile
// time. cuTile evaluates the iterable as static_eval does (no run-time
// operation; range, enumerate, zip, len, tuples), saves its items (at most
// 1000) and inlines the body once per item with the target bound to it.
// The builder does the same: the loop leaves no op in the IR, so the
// interpreter and the GPU back end see straight-line code and need
// nothing of their own. Because the body is inlined, a variable may change
// its type or stay a compile-time value from one item to the next (`t =
// 0.0; for v in static_iter((2, 3.0, True)): t += v`), which a run-time
// loop's carried values cannot.

import (
	"fmt"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/lang"
)

// maxStaticIter is cuTile's limit on the items of a static_iter iterable.
const maxStaticIter = 1000

// staticIterCall reports whether a for loop's iterable is a call of
// ct.static_iter (ct.static_iter, or a name bound to it), evaluating only
// the callee and reporting nothing when it is not.
func (b *builder) staticIterCall(iter lang.Expr) (*lang.Call, bool) {
	c, ok := iter.(*lang.Call)
	if !ok {
		return nil, false
	}
	var fn value
	switch f := c.Fun.(type) {
	case *lang.Attr:
		if f.Name != "static_iter" {
			return nil, false
		}
		fn = b.expr(c.Fun)
	case *lang.Name:
		if bd, ok := b.fn.scope[f.Name]; ok {
			fn = bd.val
		} else {
			fn = b.globals[f.Name]
		}
	}
	bv, isBuiltin := fn.(builtinVal)
	return c, isBuiltin && !bv.py && bv.name == "static_iter"
}

// staticFor builds `for target in ct.static_iter(iterable):` by inlining
// the body once per item. live is the set of names read after the loop.
func (b *builder) staticFor(s *lang.ForStmt, call *lang.Call, live nameSet) {
	exits := staticExits(s.Body)
	for _, e := range exits {
		what := "break"
		switch e.(type) {
		case *lang.ContinueStmt:
			what = "continue"
		case *lang.ReturnStmt:
			what = "return"
		}
		b.errorf(e.Position(), "'%s' is not allowed in a ct.static_iter loop: its body is inlined once per item, so there is no loop to leave", what)
	}
	items, ok := b.staticItems(call)
	if !ok || len(exits) > 0 {
		b.bindTarget(s.Target, poison{})
		for _, n := range assignedList(s.Body) {
			b.bind(n, poison{}, s.Pos)
		}
		return
	}
	// Each copy of the body is followed by the next one, which reads what
	// it reads: those names are live after every copy.
	bodyLive := nameSet{}
	for n := range live {
		bodyLive[n] = true
	}
	readList(s.Body, bodyLive)
	for i, item := range items {
		nerrs := len(b.errs)
		b.assign(s.Target, item, s.Target.Position())
		b.stmts(s.Body, bodyLive, false)
		if len(b.errs) > nerrs {
			// The same mistake would be reported for every item: keep the
			// first item's errors, saying which item it was.
			for _, e := range b.errs[nerrs:] {
				e.Msg += fmt.Sprintf(" (ct.static_iter item %d: %s = %s)", i, targetText(s.Target), staticItemText(item))
			}
			for _, n := range assignedList(s.Body) {
				b.bind(n, poison{}, s.Pos)
			}
			break
		}
		if b.aborted {
			return
		}
	}
	b.bindTarget(s.Target, nil)
}

// targetText is a for loop's target as written: a name, or names separated
// by commas.
func targetText(t lang.Expr) string {
	if tu, ok := t.(*lang.Tuple); ok {
		s := ""
		for i, e := range tu.Elems {
			if i > 0 {
				s += ", "
			}
			if _, nested := e.(*lang.Tuple); nested {
				s += "(" + targetText(e) + ")"
			} else {
				s += targetText(e)
			}
		}
		return s
	}
	return exprText(t)
}

// bindTarget binds every name of a for loop's target to v; nil leaves them
// undefined after the loop, as a range loop's variable is.
func (b *builder) bindTarget(t lang.Expr, v value) {
	switch t := t.(type) {
	case *lang.Name:
		if v == nil {
			b.bind(t.Name, undefVal{msg: "loop variable " + t.Name + " cannot be used after its loop"}, t.Pos)
			return
		}
		b.bind(t.Name, v, t.Pos)
	case *lang.Tuple:
		for _, e := range t.Elems {
			b.bindTarget(e, v)
		}
	}
}

// staticExits returns the break, continue and return statements of a
// static_iter body, those of loops nested in it excepted (a nested loop's
// break and continue are its own; a return is never allowed).
func staticExits(list []lang.Stmt) []lang.Stmt {
	var out []lang.Stmt
	eachStmt(list, func(s lang.Stmt, nested bool) {
		switch s.(type) {
		case *lang.BreakStmt, *lang.ContinueStmt:
			if !nested {
				out = append(out, s)
			}
		case *lang.ReturnStmt:
			out = append(out, s)
		}
	})
	return out
}

// staticItems evaluates static_iter's argument to its items: a tuple, or
// what range, enumerate and zip give inside it. The evaluation must emit no
// instruction (cuTile: "must not perform any run-time operations"); items
// may still be run-time values made before the loop (a tuple of tiles).
func (b *builder) staticItems(call *lang.Call) ([]value, bool) {
	if len(call.Kwargs) > 0 {
		b.errorf(call.Kwargs[0].Pos, "ct.static_iter(iterable) takes no keyword arguments")
		return nil, false
	}
	if len(call.Args) != 1 {
		b.errorf(call.Pos, "ct.static_iter(iterable) takes 1 argument, got %d", len(call.Args))
		return nil, false
	}
	a := call.Args[0]
	before := b.ninstrs
	b.staticIterable++
	v := b.expr(a)
	b.staticIterable--
	if isPoison(v) {
		return nil, false
	}
	if b.ninstrs > before {
		b.errorf(a.Position(), "ct.static_iter: the iterable performs run-time operations; it must be computed at compile time (as ct.static_eval's expression)")
		return nil, false
	}
	t, ok := v.(tuple)
	if !ok {
		b.errorf(a.Position(), "ct.static_iter: the iterable must be a tuple, range(...), enumerate(...) or zip(...), got %s", describe(v))
		return nil, false
	}
	if len(t) > maxStaticIter {
		b.errorf(a.Position(), "ct.static_iter: the iterable has %d items, more than cuTile's limit of %d", len(t), maxStaticIter)
		return nil, false
	}
	for i, x := range t {
		if _, undef := x.(undefVal); undef {
			b.errorf(a.Position(), "ct.static_iter: item %d of the iterable is not a value", i)
			return nil, false
		}
	}
	return t, true
}

// staticItemText shows an item in an error's note: compile-time values as
// Python prints them, others by kind.
func staticItemText(v value) string {
	switch x := v.(type) {
	case int64:
		return fmt.Sprint(x)
	case bool:
		if x {
			return "True"
		}
		return "False"
	case float64:
		return PyFloat(x)
	case tuple:
		s := "("
		for i, e := range x {
			if i > 0 {
				s += ", "
			}
			s += staticItemText(e)
		}
		if len(x) == 1 {
			s += ","
		}
		return s + ")"
	}
	return describe(v)
}

// staticRange evaluates range(...) inside a static_iter iterable to the
// tuple of its ints; every argument must be a compile-time int.
func (b *builder) staticRange(e *lang.Call, pos []arg, kws []kwArg) value {
	if len(kws) > 0 {
		return b.fail(kws[0].pos, "range() takes no keyword arguments")
	}
	if len(pos) < 1 || len(pos) > 3 {
		return b.fail(e.Pos, "range() takes 1 to 3 arguments, got %d", len(pos))
	}
	xs := make([]int64, len(pos))
	for i, a := range pos {
		switch x := a.v.(type) {
		case int64:
			xs[i] = x
		case poison:
			return poison{}
		case *ir.Value:
			return b.fail(a.e.Position(), "ct.static_iter: range() bound %s is a run-time value; the iterable must be known at compile time", exprText(a.e))
		default:
			return b.fail(a.e.Position(), "range() arguments must be integers, got %s", describe(x))
		}
	}
	if len(xs) == 3 && xs[2] == 0 {
		return b.fail(pos[2].e.Position(), "range() step must not be zero")
	}
	ints, ok := PyRange(xs, maxStaticIter)
	if !ok {
		return b.fail(e.Pos, "ct.static_iter: range() has more than cuTile's limit of %d items", maxStaticIter)
	}
	out := make(tuple, len(ints))
	for i, x := range ints {
		out[i] = x
	}
	return out
}

// PyRange is Python's range(*xs) (one to three ints, the step not zero) as
// a list; false when it has more than limit items, before it is built.
// The builder's static_iter and the host evaluator's loops share it.
func PyRange(xs []int64, limit int) ([]int64, bool) {
	lo, hi, step := int64(0), xs[0], int64(1)
	if len(xs) >= 2 {
		lo, hi = xs[0], xs[1]
	}
	if len(xs) == 3 {
		step = xs[2]
	}
	// The count in uint64, where the distance between any two int64s fits.
	var dist, stride uint64
	switch {
	case step > 0 && hi > lo:
		dist, stride = uint64(hi)-uint64(lo), uint64(step)
	case step < 0 && hi < lo:
		dist, stride = uint64(lo)-uint64(hi), -uint64(step)
	}
	n := dist / max(stride, 1)
	if stride != 0 && dist%stride != 0 {
		n++
	}
	if n > uint64(limit) {
		return nil, false
	}
	out := make([]int64, n)
	for i := range out {
		out[i] = lo + int64(i)*step
	}
	return out, true
}

// staticEnumerate evaluates enumerate(iterable, start=0) inside a
// static_iter iterable to the tuple of its (index, item) pairs.
func (b *builder) staticEnumerate(e *lang.Call, pos []arg, kws []kwArg) value {
	args, ok := b.bindArgs("enumerate", []sigParam{{name: "iterable"}, {name: "start", def: "0"}}, e.Pos, pos, kws)
	if !ok || isPoison(args[0].v, args[1].v) {
		return poison{}
	}
	t, ok := args[0].v.(tuple)
	if !ok {
		return b.fail(args[0].e.Position(), "enumerate(): %s is not a tuple", describe(args[0].v))
	}
	start := int64(0)
	if args[1].e != nil {
		s, ok := args[1].v.(int64)
		if !ok {
			return b.fail(args[1].e.Position(), "enumerate(): start must be a compile-time int, got %s", describe(args[1].v))
		}
		start = s
	}
	out := make(tuple, len(t))
	for i, x := range t {
		out[i] = tuple{start + int64(i), x}
	}
	return out
}

// staticZip evaluates zip(a, b, ...) inside a static_iter iterable to the
// tuple of its item tuples, as long as the shortest argument.
func (b *builder) staticZip(e *lang.Call, pos []arg, kws []kwArg) value {
	if len(kws) > 0 {
		return b.fail(kws[0].pos, "zip() takes no keyword arguments here")
	}
	n := -1
	ts := make([]tuple, len(pos))
	for i, a := range pos {
		if isPoison(a.v) {
			return poison{}
		}
		t, ok := a.v.(tuple)
		if !ok {
			return b.fail(a.e.Position(), "zip(): %s is not a tuple", describe(a.v))
		}
		ts[i] = t
		if n < 0 || len(t) < n {
			n = len(t)
		}
	}
	out := make(tuple, max(n, 0))
	for j := range out {
		item := make(tuple, len(ts))
		for i, t := range ts {
			item[i] = t[j]
		}
		out[j] = item
	}
	return out
}
