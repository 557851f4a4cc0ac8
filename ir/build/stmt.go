package build

// Statements and control flow. A `for` becomes an OpFor whose carried
// values are the variables assigned in the body that were defined before
// the loop; an `if` on a compile-time condition builds only the taken
// branch, otherwise an OpIf whose results are the variables assigned in a
// branch and still needed afterwards. "Needed afterwards" comes from a
// conservative liveness: the names read by the rest of the function (and,
// inside a loop, by the whole loop body).

import (
	"strings"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/lang"
)

// nameSet is a set of variable names.
type nameSet map[string]bool

// stmts builds a statement list. live is the set of names that may be read
// after the list; top is set for the top-level body of a function (where a
// helper's return may appear, as the last statement).
func (b *builder) stmts(list []lang.Stmt, live nameSet, top bool) {
	// after[i] = names read by list[i+1:], plus live.
	after := make([]nameSet, len(list))
	acc := nameSet{}
	for n := range live {
		acc[n] = true
	}
	for i := len(list) - 1; i >= 0; i-- {
		after[i] = acc
		next := nameSet{}
		for n := range acc {
			next[n] = true
		}
		readNames(list[i], next)
		acc = next
	}
	for i, s := range list {
		if b.aborted {
			return
		}
		b.stmt(s, after[i], top && i == len(list)-1)
		if i+1 < len(list) {
			if g := b.exitGuard(s); g != nil {
				// The rest runs only if s did not break or continue.
				b.ifStmt(&lang.IfStmt{Pos: list[i+1].Position(), Cond: g, Then: list[i+1:]}, live, false)
				return
			}
		}
	}
}

// stmt builds one statement; last is set when it may be a helper's return.
func (b *builder) stmt(s lang.Stmt, live nameSet, last bool) {
	switch s := s.(type) {
	case *lang.AssignStmt:
		v := b.expr(s.Value)
		if len(s.Targets) == 1 {
			root := b.rootOf(s.Value)
			b.assign(s.Targets[0], v, s.Value.Position())
			if n, ok := s.Targets[0].(*lang.Name); ok && root != "" {
				b.setRoot(n.Name, root)
			}
		} else {
			b.assign(&lang.Tuple{Pos: s.Pos, Elems: s.Targets}, v, s.Value.Position())
		}
	case *lang.AugAssignStmt:
		n, ok := s.Target.(*lang.Name)
		if !ok {
			b.errorf(s.Target.Position(), "cannot assign to %s", exprText(s.Target))
			b.expr(s.Value)
			return
		}
		x := b.lookup(n.Name, n.Pos)
		y := b.expr(s.Value)
		b.assign(n, b.binop(s.Pos, s.Op, x, y), s.Pos)
	case *lang.ExprStmt:
		b.expr(s.X)
	case *lang.PassStmt:
	case *lang.ReturnStmt:
		b.returnStmt(s, last)
	case *lang.ForStmt:
		if call, ok := b.staticIterCall(s.Iter); ok {
			// Not a loop at run time: break and continue cannot leave it,
			// and a raise in it is decided at compile time.
			b.staticFor(s, call, live)
			return
		}
		b.fn.loops++
		b.buildLoop(s.Pos, func() { b.forStmt(s, live) })
		b.fn.loops--
	case *lang.IfStmt:
		b.ifStmt(s, live, last)
	case *lang.WhileStmt:
		b.fn.loops++
		b.buildLoop(s.Pos, func() { b.whileStmt(s, live) })
		b.fn.loops--
	case *lang.BreakStmt, *lang.ContinueStmt:
		what, flag := "break", breakFlag
		if _, ok := s.(*lang.ContinueStmt); ok {
			what, flag = "continue", continueFlag
		}
		if b.fn.loops == 0 {
			b.errorf(s.Position(), "'%s' outside a loop", what)
			return
		}
		b.bind(flag, true, s.Position())
	case *lang.AssertStmt:
		b.assertStmt(s)
	case *lang.RaiseStmt:
		b.raiseStmt(s)
	case *lang.WithStmt:
		b.errorf(s.Pos, "'with' statements are not supported in kernels (host code may use them)")
	default:
		b.errorf(s.Position(), "unsupported statement")
	}
}

// assign binds target (a name or a tuple of targets) to v.
func (b *builder) assign(target lang.Expr, v value, pos lang.Pos) {
	switch t := target.(type) {
	case *lang.Name:
		if b.reservedName(t.Name) {
			b.errorf(t.Pos, "cannot assign to %s: it is a builtin", t.Name)
			return
		}
		if _, isDim := b.fn.scope[t.Name].val.(dimSym); isDim && b.fn.isKernel {
			b.errorf(t.Pos, "cannot assign to %s: it is an array dimension", t.Name)
			return
		}
		b.bind(t.Name, v, t.Pos)
	case *lang.Tuple:
		if isPoison(v) {
			for _, e := range t.Elems {
				b.assign(e, poison{}, pos)
			}
			return
		}
		tv, ok := v.(tuple)
		if !ok {
			b.errorf(pos, "cannot unpack %s into %d names", describe(v), len(t.Elems))
			for _, e := range t.Elems {
				b.assign(e, poison{}, pos)
			}
			return
		}
		if len(tv) != len(t.Elems) {
			b.errorf(pos, "cannot unpack %d values into %d names", len(tv), len(t.Elems))
			for _, e := range t.Elems {
				b.assign(e, poison{}, pos)
			}
			return
		}
		for i, e := range t.Elems {
			b.assign(e, tv[i], pos)
		}
	default:
		b.errorf(target.Position(), "cannot assign to %s: only names and tuples of names can be assigned", exprText(target))
	}
}

// returnStmt records a helper's return value.
func (b *builder) returnStmt(s *lang.ReturnStmt, last bool) {
	var v value = noneVal{}
	if s.Value != nil {
		v = b.expr(s.Value)
	}
	if b.fn.isKernel {
		switch {
		case s.Value != nil:
			b.errorf(s.Pos, "return is not allowed in a kernel: kernels write their results with ct.store")
		case !last:
			// moveAfterReturnsOf made every return outside loops last.
			b.errorf(s.Pos, "return inside a loop of a kernel is not supported (an early exit outside loops is: if c: return)")
		}
		return
	}
	if !last {
		b.errorf(s.Pos, "return must be the last statement of helper %s", b.fn.def.Name)
		return
	}
	b.bind(retName, v, s.Pos)
}

// retName is the pseudo-variable that holds a helper's return value, so
// that returns at the end of both branches of an if merge like assignments.
const retName = "$return"

// rangeArgs evaluates `range(...)` into lo, hi, step.
func (b *builder) rangeArgs(s *lang.ForStmt) (lo, hi, step value, ok bool) {
	call, isCall := s.Iter.(*lang.Call)
	if !isCall {
		b.expr(s.Iter)
		b.errorf(s.Iter.Position(), "for loops iterate over range(...) only")
		return nil, nil, nil, false
	}
	fn := b.expr(call.Fun)
	if bv, isBuiltin := fn.(builtinVal); !isBuiltin || bv.name != "range" || !bv.py {
		if !isPoison(fn) {
			b.errorf(s.Iter.Position(), "for loops iterate over range(...) only")
		}
		return nil, nil, nil, false
	}
	if len(call.Kwargs) > 0 {
		b.errorf(call.Kwargs[0].Pos, "range() takes no keyword arguments")
		return nil, nil, nil, false
	}
	args := make([]value, len(call.Args))
	ok = true
	// Any argument may be a rank-0 integer tile (cuTile's 0-d tiles index
	// range(), `for i in range(ct.load(Lens, (b,), shape=()))`); forStmt
	// then builds a while loop (forBreak).
	for i, a := range call.Args {
		args[i] = b.expr(a)
		switch x := args[i].(type) {
		case int64:
		case *ir.Value:
			if t := rank0(x.Type); t != nil && t.DType.IsInt() {
				continue
			}
			if s, isScalar := x.Type.(*ir.Scalar); !isScalar || !s.DType.IsInt() {
				b.errorf(a.Position(), "range() arguments must be integers, got %s", x.Type)
				ok = false
			}
		case poison:
			ok = false
		default:
			b.errorf(a.Position(), "range() arguments must be integers, got %s", describe(x))
			ok = false
		}
	}
	if !ok {
		return nil, nil, nil, false
	}
	switch len(args) {
	case 1:
		return int64(0), args[0], int64(1), true
	case 2:
		return args[0], args[1], int64(1), true
	case 3:
		if args[2] == int64(0) {
			b.errorf(call.Args[2].Position(), "range() step must not be zero")
			return nil, nil, nil, false
		}
		return args[0], args[1], args[2], true
	}
	b.errorf(call.Pos, "range() takes 1 to 3 arguments, got %d", len(args))
	return nil, nil, nil, false
}

// intValue materializes a loop bound as an integer scalar of dtype dt.
func (b *builder) intValue(pos lang.Pos, v value, dt ir.DType) *ir.Value {
	if x, ok := v.(*ir.Value); ok {
		return b.convert(pos, x, dt)
	}
	return b.constant(pos, v, dt)
}

// coerceTo makes v a run-time value of type t: equal types pass, and a
// compile-time number becomes a const when t is a scalar.
func (b *builder) coerceTo(v value, t ir.Type, pos lang.Pos) (*ir.Value, bool) {
	switch x := v.(type) {
	case *ir.Value:
		if ir.TypesEqual(x.Type, t) {
			return x, true
		}
	case int64, float64, bool:
		if s, ok := t.(*ir.Scalar); ok {
			if _, isFloat := x.(float64); isFloat && !s.DType.IsFloat() {
				return nil, false
			}
			return b.constant(pos, x, s.DType), true
		}
	}
	// A scalar (or number) where a rank-0 tile of its dtype is wanted:
	// the same value, splat (cuTile's scalars are rank-0 tiles).
	if r, ok := t.(*ir.Tile); ok && r.Rank() == 0 && !isPoison(v) {
		if s, ok := b.coerceTo(v, ir.ScalarOf(r.DType), pos); ok {
			return b.emit(pos, ir.OpSplat, r, s), true
		}
	}
	return nil, false
}

// ifStmt builds an if: statically on a compile-time condition, else an
// OpIf. last is set when the if ends a helper, so that its branches may end
// in returns.
func (b *builder) ifStmt(s *lang.IfStmt, live nameSet, last bool) {
	c := b.expr(s.Cond)
	var static, cv bool
	cr, isTile, ok := b.tileCondition(s.Cond.Position(), c, "if")
	if !isTile {
		static, cv, cr, ok = b.condition(s.Cond.Position(), c, "if")
	}
	if ok && static {
		if cv {
			b.stmts(s.Then, live, last)
		} else {
			b.stmts(s.Else, live, last)
		}
		return
	}
	if !ok {
		// Build both branches for their errors; what they assign is poisoned.
		in := &ir.Instr{Op: ir.OpIf, Pos: ir.Pos(s.Pos)}
		in.Block = b.cur
		saved := b.cur
		scope := copyScope(b.fn.scope)
		b.cur = in.NewRegion()
		b.stmts(s.Then, live, last)
		b.fn.scope = copyScope(scope)
		b.cur = in.NewRegion()
		b.stmts(s.Else, live, last)
		b.fn.scope = scope
		b.cur = saved
		for _, n := range append(assignedList(s.Then), assignedList(s.Else)...) {
			b.bind(n, poison{}, s.Pos)
		}
		return
	}

	in := &ir.Instr{Op: ir.OpIf, Pos: ir.Pos(s.Pos), Args: []*ir.Value{cr}}
	b.append(in)
	outer := b.cur
	before := b.fn.scope
	m := &ifMerge{b: b, pos: s.Pos, thenB: in.NewRegion(), elseB: in.NewRegion()}
	b.fn.scope = copyScope(before)
	b.cur = m.thenB
	b.stmts(s.Then, live, last)
	thenScope := b.fn.scope
	b.fn.scope = copyScope(before)
	b.cur = m.elseB
	b.stmts(s.Else, live, last)
	elseScope := b.fn.scope
	b.fn.scope = before
	b.cur = outer

	// Merge the names assigned in either branch that are read afterwards.
	names := assignedList(append(append([]lang.Stmt(nil), s.Then...), s.Else...))
	plans := map[string]any{}
	for _, n := range names {
		tb, inThen := thenScope[n]
		eb, inElse := elseScope[n]
		if n == retName && (!inThen || !inElse) {
			// A branch that ends without a return returns None, as
			// Python's falling off the end does (moveAfterReturnsOf left
			// nothing after an if that returns): where the other returns
			// None too, so does the helper. Otherwise the helper returns a
			// value on one path only, an error where the value is used.
			_, tNone := tb.val.(noneVal)
			_, eNone := eb.val.(noneVal)
			if (!inThen || tNone) && (!inElse || eNone) {
				b.bind(n, noneVal{}, s.Pos)
				continue
			}
		}
		_, tUndef := tb.val.(undefVal)
		_, eUndef := eb.val.(undefVal)
		switch {
		case !inThen || !inElse || tUndef || eUndef:
			msg := n + " is not defined on every path"
			if n == retName {
				msg = "helper " + b.fn.def.Name + " does not return a value on every path"
			}
			b.bind(n, undefVal{msg: msg}, s.Pos)
		case !live[n]:
			b.bind(n, undefVal{msg: n + " is not defined on every path"}, s.Pos)
		default:
			plan, ok := m.plan(tb.val, eb.val, tb.pos, eb.pos)
			if !ok {
				what := n
				if n == retName {
					what = "the return value of " + b.fn.def.Name
				}
				b.errorf(s.Pos, "%s is %s on one branch of the if but %s on the other", what, describe(tb.val), describe(eb.val))
				b.bind(n, poison{}, s.Pos)
				continue
			}
			plans[n] = plan
		}
	}
	m.thenB.Append(&ir.Instr{Op: ir.OpYield, Args: m.thenVals, Pos: ir.Pos(s.Pos)})
	m.elseB.Append(&ir.Instr{Op: ir.OpYield, Args: m.elseVals, Pos: ir.Pos(s.Pos)})
	results := make([]*ir.Value, len(m.thenVals))
	for i, tv := range m.thenVals {
		r := b.f.NewValue(tv.Type)
		r.Def = in
		r.Index = i
		in.Results = append(in.Results, r)
		results[i] = r
	}
	for _, n := range names {
		if plan, ok := plans[n]; ok {
			b.bind(n, resolvePlan(plan, results), s.Pos)
		}
	}
}

// ifMerge collects the values that the two branches of an OpIf yield.
type ifMerge struct {
	b                  *builder
	pos                lang.Pos
	thenB, elseB       *ir.Block
	thenVals, elseVals []*ir.Value
}

// resultIndex is a merge plan's reference to the if's result i.
type resultIndex int

// plan decides how a variable's two branch values meet: the same value on
// both sides stays as it is (compile-time values stay compile-time), tuples
// merge element by element, and anything else becomes a result of the if.
// The plan is a value, a resultIndex, or a []any of plans for a tuple.
func (m *ifMerge) plan(tv, ev value, tpos, epos lang.Pos) (any, bool) {
	b := m.b
	if isPoison(tv) || isPoison(ev) {
		return poison{}, true
	}
	tt, tIsTuple := tv.(tuple)
	et, eIsTuple := ev.(tuple)
	if tIsTuple && eIsTuple && len(tt) == len(et) {
		plans := make([]any, len(tt))
		for i := range tt {
			p, ok := m.plan(tt[i], et[i], tpos, epos)
			if !ok {
				return nil, false
			}
			plans[i] = p
		}
		return plans, true
	}
	if sameValue(tv, ev) {
		return tv, true
	}
	t := b.mergeType(tv, ev)
	if t == nil {
		return nil, false
	}
	outer := b.cur
	b.cur = m.thenB
	x, _ := b.coerceTo(tv, t, tpos)
	b.cur = m.elseB
	y, _ := b.coerceTo(ev, t, epos)
	b.cur = outer
	m.thenVals = append(m.thenVals, x)
	m.elseVals = append(m.elseVals, y)
	return resultIndex(len(m.thenVals) - 1), true
}

// resolvePlan turns a merge plan into the value after the if.
func resolvePlan(plan any, results []*ir.Value) value {
	switch p := plan.(type) {
	case resultIndex:
		return results[p]
	case []any:
		t := make(tuple, len(p))
		for i, x := range p {
			t[i] = resolvePlan(x, results)
		}
		return t
	}
	return plan
}

// mergeType is the type that two branch values of a variable meet at, or
// nil when they cannot: run-time types must be equal; a compile-time
// number takes the other side's scalar dtype; two numbers take their
// common default dtype.
func (b *builder) mergeType(x, y value) ir.Type {
	xv, xRT := x.(*ir.Value)
	yv, yRT := y.(*ir.Value)
	xRT = xRT && isRuntime(xv)
	yRT = yRT && isRuntime(yv)
	switch {
	case xRT && yRT:
		if ir.TypesEqual(xv.Type, yv.Type) {
			return xv.Type
		}
		// A scalar on one side and a rank-0 tile of its dtype on the
		// other meet as the tile (cuTile's scalars are rank-0 tiles).
		if x0, y0 := rank0(xv.Type), rank0(yv.Type); x0 != nil && ir.TypesEqual(yv.Type, ir.ScalarOf(x0.DType)) {
			return x0
		} else if y0 != nil && ir.TypesEqual(xv.Type, ir.ScalarOf(y0.DType)) {
			return y0
		}
	case xRT && isNumber(y):
		if s, ok := xv.Type.(*ir.Scalar); ok && weakJoin(s.DType, y) == s.DType {
			return s
		}
		if t := rank0(xv.Type); t != nil && weakJoin(t.DType, y) == t.DType {
			return t
		}
	case yRT && isNumber(x):
		if s, ok := yv.Type.(*ir.Scalar); ok && weakJoin(s.DType, x) == s.DType {
			return s
		}
		if t := rank0(yv.Type); t != nil && weakJoin(t.DType, x) == t.DType {
			return t
		}
	case isNumber(x) && isNumber(y):
		return ir.ScalarOf(weakJoinConsts([]value{x, y}))
	}
	return nil
}

// rank0 is t when it is a rank-0 tile type, else nil.
func rank0(t ir.Type) *ir.Tile {
	if r, ok := t.(*ir.Tile); ok && r.Rank() == 0 {
		return r
	}
	return nil
}

// sameValue reports whether two values are the same (identical run-time
// values, equal compile-time values, the same array or function).
func sameValue(x, y value) bool {
	xt, xIsTuple := x.(tuple)
	yt, yIsTuple := y.(tuple)
	if xIsTuple || yIsTuple {
		if !xIsTuple || !yIsTuple || len(xt) != len(yt) {
			return false
		}
		for i := range xt {
			if !sameValue(xt[i], yt[i]) {
				return false
			}
		}
		return true
	}
	if isConstVal(x) && isConstVal(y) {
		eq, ok := constEqual(x, y)
		return ok && eq
	}
	return x == y
}

func copyScope(m map[string]binding) map[string]binding {
	out := make(map[string]binding, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// ---- name analysis ----

// assignedList returns the names assigned in stmts (recursively, loop
// variables of nested loops excluded), in order of first assignment.
func assignedList(stmts []lang.Stmt) []string {
	var out []string
	seen := nameSet{}
	var add func(e lang.Expr)
	add = func(e lang.Expr) {
		switch e := e.(type) {
		case *lang.Name:
			if !seen[e.Name] {
				seen[e.Name] = true
				out = append(out, e.Name)
			}
		case *lang.Tuple:
			for _, x := range e.Elems {
				add(x)
			}
		}
	}
	// nested is set inside loops nested in stmts, whose break and continue
	// set their own flags.
	eachStmt(stmts, func(s lang.Stmt, nested bool) {
		switch s := s.(type) {
		case *lang.AssignStmt:
			for _, t := range s.Targets {
				add(t)
			}
		case *lang.AugAssignStmt:
			add(s.Target)
		case *lang.ReturnStmt:
			add(&lang.Name{Name: retName})
		case *lang.BreakStmt:
			if !nested {
				add(&lang.Name{Name: breakFlag})
			}
		case *lang.ContinueStmt:
			if !nested {
				add(&lang.Name{Name: continueFlag})
			}
		}
	})
	return out
}

// eachStmt calls visit on every statement of list and of the bodies nested
// in it, depth first in source order; nested is set for those inside a
// loop of list (whose break and continue are the inner loop's own).
func eachStmt(list []lang.Stmt, visit func(s lang.Stmt, nested bool)) {
	var walk func(list []lang.Stmt, nested bool)
	walk = func(list []lang.Stmt, nested bool) {
		for _, s := range list {
			visit(s, nested)
			switch s := s.(type) {
			case *lang.IfStmt:
				walk(s.Then, nested)
				walk(s.Else, nested)
			case *lang.ForStmt:
				walk(s.Body, true)
			case *lang.WhileStmt:
				walk(s.Body, true)
			}
		}
	}
	walk(list, false)
}

// assignedSet is the set of names a function body assigns, its loop
// variables included: Python's locals.
func assignedSet(body []lang.Stmt) map[string]bool {
	set := map[string]bool{}
	for _, n := range assignedList(body) {
		set[n] = true
	}
	var walk func(list []lang.Stmt)
	walk = func(list []lang.Stmt) {
		for _, s := range list {
			switch s := s.(type) {
			case *lang.ForStmt:
				for _, n := range assignedList([]lang.Stmt{&lang.AssignStmt{Targets: []lang.Expr{s.Target}}}) {
					set[n] = true
				}
				walk(s.Body)
			case *lang.IfStmt:
				walk(s.Then)
				walk(s.Else)
			case *lang.WhileStmt:
				walk(s.Body)
			}
		}
	}
	walk(body)
	return set
}

// readList adds the names read by stmts to set.
func readList(stmts []lang.Stmt, set nameSet) {
	for _, s := range stmts {
		readNames(s, set)
	}
}

// readNames adds the names read by one statement to set.
func readNames(s lang.Stmt, set nameSet) {
	switch s := s.(type) {
	case *lang.AssignStmt:
		readExpr(s.Value, set)
	case *lang.AugAssignStmt:
		readExpr(s.Target, set)
		readExpr(s.Value, set)
	case *lang.ExprStmt:
		readExpr(s.X, set)
	case *lang.ReturnStmt:
		readExpr(s.Value, set)
	case *lang.ForStmt:
		readExpr(s.Iter, set)
		readList(s.Body, set)
	case *lang.IfStmt:
		readExpr(s.Cond, set)
		readList(s.Then, set)
		readList(s.Else, set)
	case *lang.WhileStmt:
		readExpr(s.Cond, set)
		readList(s.Body, set)
	case *lang.AssertStmt:
		readExpr(s.Cond, set)
		readExpr(s.Msg, set)
	case *lang.RaiseStmt:
		readExpr(s.Exc, set)
	}
}

// raiseStmt builds `raise`: reached under compile-time conditions only
// (the kernel's top level, or a branch the builder chose), it is an error
// of the compilation that says what was raised, as a check in a helper
// means; under a run-time condition or in a loop it cannot be decided at
// compile time: the kernel's way is ct.assert_.
func (b *builder) raiseStmt(s *lang.RaiseStmt) {
	if b.cur.Parent != nil {
		b.errorf(s.Pos, "raise under a run-time condition or in a loop is not supported in a kernel; use ct.assert_(cond, message)")
		return
	}
	b.errorf(s.Pos, "raise: %s", RaisedText(s.Exc, func(e lang.Expr) string {
		v := b.expr(e)
		if x, ok := v.(string); ok {
			return x
		}
		if !isRuntime(v) && !isPoison(v) {
			return formatConst(v)
		}
		return exprText(e)
	}))
}

// RaisedText describes a raised exception as Python prints it: "ValueError:
// message" for an exception class called with one argument (formatted by
// str), "ValueError: ('a', 1)" with several, its name alone, or str of the
// expression.
func RaisedText(exc lang.Expr, str func(lang.Expr) string) string {
	switch e := exc.(type) {
	case nil:
		return "re-raise outside an except block"
	case *lang.Call:
		if n, ok := e.Fun.(*lang.Name); ok {
			var args []string
			for _, a := range e.Args {
				s := str(a)
				if _, isStr := a.(*lang.StringLit); isStr && len(e.Args) > 1 {
					s = "'" + s + "'"
				}
				args = append(args, s)
			}
			switch len(args) {
			case 0:
				return n.Name
			case 1:
				return n.Name + ": " + args[0]
			}
			return n.Name + ": (" + strings.Join(args, ", ") + ")"
		}
	case *lang.Name:
		return e.Name
	}
	return str(exc)
}

// assertStmt builds `assert cond, msg`: a compile-time condition is checked
// now; a run-time one (a bool scalar or tile; an int scalar is compared
// with 0) becomes an OpAssert, as cuTile's ct.assert_.
func (b *builder) assertStmt(s *lang.AssertStmt) {
	c := b.expr(s.Cond)
	var msg value = ""
	if s.Msg != nil {
		msg = b.expr(s.Msg)
	}
	if isPoison(c, msg) {
		return
	}
	if t, ok := truthy(c); ok && isConstVal(c) {
		if !t {
			text := "assertion failed"
			if m, ok := msg.(string); ok && m != "" {
				text += ": " + m
			} else if s.Msg != nil {
				text += ": " + formatConst(msg)
			}
			b.errorf(s.Pos, "%s", text)
		}
		return
	}
	v, ok := c.(*ir.Value)
	if !ok || !isRuntime(v) {
		b.errorf(s.Cond.Position(), "assert: condition must be a bool scalar or tile, got %s", describe(c))
		return
	}
	if _, isScalar := v.Type.(*ir.Scalar); isScalar {
		v = b.toBool(s.Cond.Position(), v)
	} else if v.Type.Elem() != ir.Bool {
		b.errorf(s.Cond.Position(), "assert: condition must be a bool tile, got %s (compare it, e.g. x != 0)", v.Type)
		return
	}
	var attrs ir.Attrs
	switch m := msg.(type) {
	case string:
		if m != "" {
			attrs.Set(ir.AttrKeyMessage, m)
		}
	default:
		if !isConstVal(m) {
			b.errorf(s.Msg.Position(), "assert: the message must be a compile-time value, got %s", describe(m))
			return
		}
		attrs.Set(ir.AttrKeyMessage, formatConst(m))
	}
	b.emitAttrs(s.Pos, ir.OpAssert, nil, attrs, v)
}

func readExpr(e lang.Expr, set nameSet) {
	switch e := e.(type) {
	case *lang.Name:
		set[e.Name] = true
	case *lang.Attr:
		readExpr(e.X, set)
	case *lang.Subscript:
		readExpr(e.X, set)
		readExpr(e.Index, set)
	case *lang.Call:
		readExpr(e.Fun, set)
		for _, a := range e.Args {
			readExpr(a, set)
		}
		for _, k := range e.Kwargs {
			readExpr(k.Value, set)
		}
	case *lang.Tuple:
		for _, x := range e.Elems {
			readExpr(x, set)
		}
	case *lang.BinaryExpr:
		readExpr(e.X, set)
		readExpr(e.Y, set)
	case *lang.UnaryExpr:
		readExpr(e.X, set)
	case *lang.CondExpr:
		readExpr(e.Cond, set)
		readExpr(e.X, set)
		readExpr(e.Y, set)
	}
}
