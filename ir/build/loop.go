package build

// Loops. `for i in range(...)` becomes an OpFor whose carried values are
// the variables assigned in the body that were defined before the loop;
// `while cond:` becomes an OpWhile (its condition region reads the carried
// values). break and continue are not ops: each sets a flag variable
// (breakFlag, continueFlag: names no source can spell), the statements
// after one that may have set a flag run under `if not flag` (stmts adds
// the guard), and a break flag is carried and joins the loop's condition.
// A for loop with a break is therefore an OpWhile over its induction
// variable, so that it stops early.

import (
	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/lang"
)

// The flags of the innermost loop being built. Entering a loop saves the
// enclosing loop's flags and restores them after it.
const (
	breakFlag    = "$break"
	continueFlag = "$continue"
)

// loopExits reports whether list has a break or continue of the loop whose
// body it is (not of loops nested in it).
func loopExits(list []lang.Stmt) (brk, cont bool) {
	for _, s := range list {
		switch s := s.(type) {
		case *lang.BreakStmt:
			brk = true
		case *lang.ContinueStmt:
			cont = true
		case *lang.IfStmt:
			b1, c1 := loopExits(s.Then)
			b2, c2 := loopExits(s.Else)
			brk = brk || b1 || b2
			cont = cont || c1 || c2
		}
	}
	return brk, cont
}

// exitGuard returns the condition under which the statements after s still
// run (`not (flags s may set)`), or nil when s cannot break or continue.
func (b *builder) exitGuard(s lang.Stmt) lang.Expr {
	if b.fn.loops == 0 {
		return nil
	}
	brk, cont := loopExits([]lang.Stmt{s})
	pos := s.Position()
	var flags lang.Expr
	for _, f := range []struct {
		set  bool
		name string
	}{{brk, breakFlag}, {cont, continueFlag}} {
		if !f.set {
			continue
		}
		n := &lang.Name{Pos: pos, Name: f.name}
		if flags == nil {
			flags = n
		} else {
			flags = &lang.BinaryExpr{Pos: pos, OpPos: pos, Op: "or", X: flags, Y: n}
		}
	}
	if flags == nil {
		return nil
	}
	return &lang.UnaryExpr{Pos: pos, Op: "not", X: flags}
}

// savedFlags are the enclosing loop's flag bindings while a nested loop is
// built.
type savedFlags map[string]*binding

// enterLoop saves and unbinds the enclosing loop's flags, and binds this
// loop's break flag to False before it when its body has a break (so that
// the flag is carried).
func (b *builder) enterLoop(body []lang.Stmt, pos lang.Pos) (savedFlags, bool, bool) {
	saved := savedFlags{}
	for _, n := range []string{breakFlag, continueFlag} {
		if bd, ok := b.fn.scope[n]; ok {
			saved[n] = &bd
		} else {
			saved[n] = nil
		}
		delete(b.fn.scope, n)
	}
	brk, cont := loopExits(body)
	if brk {
		b.bind(breakFlag, false, pos)
	}
	return saved, brk, cont
}

// leaveLoop restores the enclosing loop's flags.
func (b *builder) leaveLoop(saved savedFlags) {
	for n, bd := range saved {
		if bd == nil {
			delete(b.fn.scope, n)
		} else {
			b.fn.scope[n] = *bd
		}
	}
}

// loopCarried picks the carried variables of a loop: assigned in the body,
// defined before, and read in the body (reads) or after it (live). Their
// initial values are materialized.
func (b *builder) loopCarried(pos lang.Pos, assigned []string, reads, live nameSet, skip string) ([]string, []*ir.Value) {
	var carried []string
	var inits []*ir.Value
	for _, n := range assigned {
		if n == skip {
			continue
		}
		bd, defined := b.fn.scope[n]
		if !defined {
			continue
		}
		if _, undef := bd.val.(undefVal); undef {
			continue
		}
		if !reads[n] && !live[n] {
			continue
		}
		var init *ir.Value
		switch x := bd.val.(type) {
		case *ir.Value:
			if isRuntime(x) {
				init = x
			}
		case int64, float64, bool:
			init = b.constant(bd.pos, x, weakDType(x))
		case poison:
			continue
		}
		if init != nil {
			init = b.promotedInit(pos, n, bd.val, init)
		}
		if init == nil {
			b.errorf(pos, "%s holds %s and is reassigned in the loop: only scalars and tiles can be loop-carried", n, describe(bd.val))
			b.bind(n, poison{}, bd.pos)
			continue
		}
		carried = append(carried, n)
		inits = append(inits, init)
	}
	return carried, inits
}

// loopBody builds a loop body into region body: binds the carried names
// to params, the continue flag to False, builds the statements and
// appends the yield of first's values (when first is not nil: built after
// the statements) and the carried values (which must keep their types).
func (b *builder) loopBody(body *ir.Block, stmts []lang.Stmt, carried []string, params []*ir.Value, bodyLive nameSet, pos lang.Pos, cont bool, first func() []*ir.Value) {
	outer := b.cur
	b.cur = body
	for i, n := range carried {
		b.bind(n, params[i], b.fn.scope[n].pos)
	}
	if cont {
		b.bind(continueFlag, false, pos)
	}
	b.stmts(stmts, bodyLive, false)
	var next []*ir.Value
	if first != nil {
		next = first()
	}
	for i, n := range carried {
		bd := b.fn.scope[n]
		v, ok := b.coerceTo(bd.val, params[i].Type, bd.pos)
		if !ok {
			if !isPoison(bd.val) {
				b.errorf(bd.pos, "loop-carried variable %s changes type in the loop: %s before, %s after", n, params[i].Type, describe(bd.val))
				b.wantPromotion(pos, n, params[i].Type, bd.val)
			}
			v = params[i]
		}
		next = append(next, v)
	}
	b.cur.Append(&ir.Instr{Op: ir.OpYield, Args: next, Pos: ir.Pos(pos)})
	b.cur = outer
}

// loopResults binds the carried names to the loop's results (from index
// first on) and marks the names first assigned in the body undefined.
func (b *builder) loopResults(in *ir.Instr, first int, carried, assigned []string, types []*ir.Value, pos lang.Pos) {
	for i, n := range carried {
		r := b.f.NewValue(types[i].Type)
		r.Def = in
		r.Index = first + i
		in.Results = append(in.Results, r)
		b.bind(n, r, b.fn.scope[n].pos)
	}
	isCarried := nameSet{}
	for _, n := range carried {
		isCarried[n] = true
	}
	for _, n := range assigned {
		// A name the body left poisoned (its error is out: an mma of an
		// accumulator whose shape was refused) stays poisoned, so that its
		// uses after the loop are not reported again.
		if !isCarried[n] && !isPoison(b.fn.scope[n].val) {
			b.bind(n, undefVal{msg: n + " is not defined on every path (it is assigned only inside a loop)"}, pos)
		}
	}
}

// liveIn is live plus the body's reads, the carried names and the flags.
func liveIn(live, reads nameSet, carried []string) nameSet {
	out := nameSet{breakFlag: true, continueFlag: true}
	for n := range live {
		out[n] = true
	}
	for n := range reads {
		out[n] = true
	}
	for _, n := range carried {
		out[n] = true
	}
	return out
}

// forStmt builds `for i in range(...)`: an OpFor, or an OpWhile over the
// induction variable when the body has a break.
func (b *builder) forStmt(s *lang.ForStmt, live nameSet) {
	target, ok := s.Target.(*lang.Name)
	if !ok {
		b.errorf(s.Target.Position(), "a for loop over range(...) has one loop variable, a name (unpacking an item needs ct.static_iter)")
		return
	}
	if b.reservedName(target.Name) {
		b.errorf(target.Pos, "cannot assign to %s: it is a builtin", target.Name)
		return
	}
	lo, hi, step, ok := b.rangeArgs(s)
	saved, brk, cont := b.enterLoop(s.Body, s.Pos)
	defer b.leaveLoop(saved)
	assigned := assignedList(s.Body)
	bodyReads := nameSet{breakFlag: brk}
	readList(s.Body, bodyReads)
	if !ok {
		// Build the body anyway for its errors, with the loop variable and
		// the variables assigned in it poisoned.
		b.bind(target.Name, poison{}, target.Pos)
		for _, n := range assigned {
			if _, defined := b.fn.scope[n]; defined {
				b.bind(n, poison{}, s.Pos)
			}
		}
		saved := b.cur
		in := &ir.Instr{Op: ir.OpFor, Pos: ir.Pos(s.Pos)}
		in.Block = b.cur
		b.cur = in.NewRegion()
		if cont {
			b.bind(continueFlag, false, s.Pos)
		}
		b.stmts(s.Body, nameSet{breakFlag: true, continueFlag: true}, false)
		b.cur = saved
		for _, n := range assigned {
			b.bind(n, poison{}, s.Pos)
		}
		return
	}

	// The induction variable's type: i32 unless a bound is i64.
	ivt := ir.I32
	for _, x := range []value{lo, hi, step} {
		if v, ok := x.(*ir.Value); ok && v.Type.Elem() == ir.I64 || weakDType(x) == ir.I64 {
			ivt = ir.I64
		}
	}
	bounds := []*ir.Value{b.intValue(s.Pos, lo, ivt), b.intValue(s.Pos, hi, ivt), b.intValue(s.Pos, step, ivt)}
	tileBounds := false
	for _, x := range bounds {
		if _, isTile := x.Type.(*ir.Tile); isTile {
			tileBounds = true
		}
	}
	// With a rank-0 tile start or step the induction variable is a
	// rank-0 tile too (start + k*step), as cuTile's loop variable is.
	_, tileStart := bounds[0].Type.(*ir.Tile)
	_, tileStep := bounds[2].Type.(*ir.Tile)
	if tileStep && !tileStart {
		bounds[0] = b.emit(s.Pos, ir.OpSplat, ir.TileOf(ivt), bounds[0])
	}
	carried, inits := b.loopCarried(s.Pos, assigned, bodyReads, live, target.Name)
	bodyLive := liveIn(live, bodyReads, carried)

	if brk || tileBounds {
		b.forBreak(s, target, bounds, step, carried, inits, assigned, bodyLive, cont)
		return
	}
	in := &ir.Instr{Op: ir.OpFor, Pos: ir.Pos(s.Pos), Args: append(bounds, inits...)}
	b.append(in)
	body := in.NewRegion()
	iv := b.f.AddBlockParam(body, ir.ScalarOf(ivt))
	params := make([]*ir.Value, len(carried))
	for i := range carried {
		params[i] = b.f.AddBlockParam(body, inits[i].Type)
	}
	b.bind(target.Name, iv, target.Pos)
	b.loopBody(body, s.Body, carried, params, bodyLive, s.Pos, cont, nil)
	b.loopResults(in, 0, carried, assigned, inits, s.Pos)
	b.bind(target.Name, undefVal{msg: "loop variable " + target.Name + " cannot be used after its loop"}, target.Pos)
}

// forBreak builds a for loop whose body has a break, or whose bounds hold
// a rank-0 tile (an OpFor's bounds are scalars), as an OpWhile that
// carries the induction variable first (a rank-0 tile when the start or
// step is one): the condition is `iv < hi` (`iv > hi` for a negative step,
// either by the step's sign at run time when it is not a constant; a
// rank-0 bool tile when a bound is a tile) and not the break flag, if any;
// the body's last step is iv + step.
//
// An i32 induction variable is carried in i64 (the body sees it converted
// back, exactly: it lies between the bounds): iv + step would wrap in i32
// near 2**31, and the test would then pass again (range(2**30, 2**31 - 1,
// 2**30) ran 101 times instead of once).
func (b *builder) forBreak(s *lang.ForStmt, target *lang.Name, bounds []*ir.Value, stepV value, carried []string, inits []*ir.Value, assigned []string, bodyLive nameSet, cont bool) {
	narrow := true
	for _, v := range bounds {
		narrow = narrow && v.Type.Elem() == ir.I32 // scalars or rank-0 tiles
	}
	if narrow {
		wide := make([]*ir.Value, len(bounds))
		for i, v := range bounds {
			wide[i] = b.convert(s.Pos, v, ir.I64)
		}
		bounds = wide
	}
	ivT := bounds[0].Type
	in := &ir.Instr{Op: ir.OpWhile, Pos: ir.Pos(s.Pos), Args: append([]*ir.Value{bounds[0]}, inits...)}
	b.append(in)
	condB, body := in.NewRegion(), in.NewRegion()
	cparams := []*ir.Value{b.f.AddBlockParam(condB, ivT)}
	bparams := []*ir.Value{b.f.AddBlockParam(body, ivT)}
	for _, x := range inits {
		cparams = append(cparams, b.f.AddBlockParam(condB, x.Type))
		bparams = append(bparams, b.f.AddBlockParam(body, x.Type))
	}

	// Condition region: the range test and not the break flag.
	outer := b.cur
	b.cur = condB
	for i, n := range carried {
		b.bind(n, cparams[1+i], b.fn.scope[n].pos)
	}
	iv, hi, step := cparams[0], bounds[1], bounds[2]
	var inRange value
	switch k := stepV.(type) {
	case int64:
		op := "<"
		if k < 0 {
			op = ">"
		}
		inRange = b.binop(s.Pos, op, iv, hi)
	default:
		zero := b.constant(s.Pos, int64(0), ivT.Elem())
		up := b.binop(s.Pos, "&", b.binop(s.Pos, ">", step, zero), b.binop(s.Pos, "<", iv, hi))
		down := b.binop(s.Pos, "&", b.binop(s.Pos, "<", step, zero), b.binop(s.Pos, ">", iv, hi))
		inRange = b.binop(s.Pos, "|", up, down)
	}
	cond := inRange
	if _, brk := b.fn.scope[breakFlag]; brk {
		notBroken := b.unop(s.Pos, "not", b.lookup(breakFlag, s.Pos))
		cond = b.binop(s.Pos, "&", inRange, notBroken)
	}
	c, _ := cond.(*ir.Value)
	if c == nil {
		c = b.constant(s.Pos, false, ir.Bool) // reported already
	}
	condB.Append(&ir.Instr{Op: ir.OpYield, Args: []*ir.Value{c}, Pos: ir.Pos(s.Pos)})
	b.cur = outer

	// Body: the statements, then the next induction variable.
	var ivBody value = bparams[0]
	if narrow {
		b.cur = body
		ivBody = b.convert(target.Pos, bparams[0], ir.I32)
		b.cur = outer
	}
	b.bind(target.Name, ivBody, target.Pos)
	b.loopBody(body, s.Body, carried, bparams[1:], bodyLive, s.Pos, cont, func() []*ir.Value {
		next, _ := b.binop(s.Pos, "+", bparams[0], step).(*ir.Value)
		if next == nil {
			next = bparams[0] // reported already
		}
		return []*ir.Value{next}
	})
	r := b.f.NewValue(ivT)
	r.Def = in
	in.Results = append(in.Results, r)
	b.loopResults(in, 1, carried, assigned, inits, s.Pos)
	b.bind(target.Name, undefVal{msg: "loop variable " + target.Name + " cannot be used after its loop"}, target.Pos)
}

// whileCondition builds the condition of `while cond:` in the current
// block (the loop's condition region): a compile-time bool (static), or a
// run-time bool, which is a scalar, or a rank-0 bool tile when cond is a
// rank-0 tile (`while ct.sum(t) > 0:`, as cuTile allows: a tile with one
// element is a condition; its value is the same in every thread, so the
// GPU's branch on it stays uniform). A break in the body joins the
// condition as `not broke and cond`.
func (b *builder) whileCondition(s *lang.WhileStmt, brk bool) (static, cv bool, cr *ir.Value, ok bool) {
	var notBroke value = true
	if brk {
		notBroke = b.expr(&lang.UnaryExpr{Pos: s.Pos, Op: "not", X: &lang.Name{Pos: s.Pos, Name: breakFlag}})
	}
	c := b.expr(s.Cond)
	pos := s.Cond.Position()
	if t, isTile, ok := b.tileCondition(pos, c, "while"); isTile {
		if !ok {
			return false, false, nil, false
		}
		var c value = t
		if brk {
			c = b.binop(pos, "&", notBroke, t)
		}
		r, isRun := c.(*ir.Value)
		return false, false, r, isRun
	}
	s1, v1, r1, ok1 := b.condition(s.Pos, notBroke, "while")
	s2, v2, r2, ok2 := b.condition(pos, c, "while")
	switch {
	case !ok1 || !ok2:
		return false, false, nil, false
	case s1 && !v1, s2 && !v2:
		return true, false, nil, true
	case s1:
		return s2, v2, r2, true
	case s2:
		return false, false, r1, true
	}
	return false, false, b.emitInferred(s.Pos, ir.OpAnd, nil, r1, r2), true
}

// tileCondition reads a condition that is a tile (isTile): cuTile's `if`,
// `while` and `x if c else y` take a rank-0 one (`if ct.sum(t) > 0:`),
// which becomes a rank-0 bool tile (a non-bool one compared with 0), the
// same in every thread of a block; a tile with more elements, one of shape
// (1,) included, is an error, as in cuTile.
func (b *builder) tileCondition(pos lang.Pos, c value, what string) (r *ir.Value, isTile, ok bool) {
	x, isVal := c.(*ir.Value)
	if !isVal {
		return nil, false, true
	}
	t, isTile := x.Type.(*ir.Tile)
	switch {
	case !isTile:
		return nil, false, true
	case t.Rank() > 0:
		b.errorf(pos, "%s: condition must be a scalar or a rank-0 tile (such as ct.sum(t) > 0), got %s", what, t)
		return nil, true, false
	case t.DType == ir.Bool:
		return x, true, true
	}
	r, ok = b.binop(pos, "!=", x, int64(0)).(*ir.Value)
	return r, true, ok
}

// whileStmt builds `while cond:` as an OpWhile. A condition that is False
// at compile time on entry builds nothing; one that stays True without a
// break never ends, an error.
func (b *builder) whileStmt(s *lang.WhileStmt, live nameSet) {
	saved, brk, cont := b.enterLoop(s.Body, s.Pos)
	defer b.leaveLoop(saved)
	assigned := assignedList(s.Body)
	bodyReads := nameSet{breakFlag: brk}
	readList(s.Body, bodyReads)
	readExpr(s.Cond, bodyReads)
	carried, inits := b.loopCarried(s.Pos, assigned, bodyReads, live, "")
	bodyLive := liveIn(live, bodyReads, carried)

	in := &ir.Instr{Op: ir.OpWhile, Pos: ir.Pos(s.Pos), Args: inits}
	in.Block = b.cur
	condB, body := in.NewRegion(), in.NewRegion()
	cparams := make([]*ir.Value, len(inits))
	bparams := make([]*ir.Value, len(inits))
	for i, x := range inits {
		cparams[i] = b.f.AddBlockParam(condB, x.Type)
	}
	for i, x := range inits {
		bparams[i] = b.f.AddBlockParam(body, x.Type)
	}

	// The condition, on the carried values; a break joins it.
	before := copyScope(b.fn.scope)
	outer := b.cur
	b.cur = condB
	for i, n := range carried {
		b.bind(n, cparams[i], b.fn.scope[n].pos)
	}
	static, cv, cr, ok := b.whileCondition(s, brk)
	b.cur = outer
	b.fn.scope = before
	switch {
	case ok && static && !cv:
		return // never runs
	case ok && static:
		b.errorf(s.Pos, "'while' with a condition that is always true never ends (it has no break)")
		ok = false
	}
	if !ok {
		// Build the body for its errors, with what it assigns poisoned.
		for _, n := range assigned {
			if _, defined := b.fn.scope[n]; defined {
				b.bind(n, poison{}, s.Pos)
			}
		}
		b.cur = body
		if cont {
			b.bind(continueFlag, false, s.Pos)
		}
		b.stmts(s.Body, bodyLive, false)
		b.cur = outer
		for _, n := range assigned {
			b.bind(n, poison{}, s.Pos)
		}
		return
	}
	condB.Append(&ir.Instr{Op: ir.OpYield, Args: []*ir.Value{cr}, Pos: ir.Pos(s.Pos)})
	in.Block = nil
	b.append(in)
	b.loopBody(body, s.Body, carried, bparams, bodyLive, s.Pos, cont, nil)
	b.loopResults(in, 0, carried, assigned, inits, s.Pos)
}
