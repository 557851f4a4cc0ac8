package lang

import (
	"strconv"
	"strings"
)

// This file converts the grammar structs into the AST and reports the
// errors that the grammar deliberately accepts so that the message can be
// precise: chained comparisons, bad assignment targets, misplaced imports
// and defs, out-of-range literals.

// maxExprDepth bounds the depth of an expression tree (left-associative
// chains such as a+b+c+... are not bounded by the lexer's nesting limit) so
// that every recursive pass over the AST stays shallow.
const maxExprDepth = 1000

// convFile adds a chunk's top-level items to f.
func (p *parser) convFile(f *File, g *gFile) {
	for _, s := range g.Stmts {
		switch {
		case s.Decorated != nil && s.Decorated.Class != nil:
			f.Classes = append(f.Classes, p.convClass(s.Decorated.Class, s.Decorated.Decorators))
		case s.Class != nil:
			f.Classes = append(f.Classes, p.convClass(s.Class, nil))
		case s.Decorated != nil:
			f.Funcs = append(f.Funcs, p.convDef(s.Decorated.Def, s.Decorated.Decorators))
		case s.Def != nil:
			f.Funcs = append(f.Funcs, p.convDef(s.Def, nil))
		case s.Simple != nil:
			for _, ss := range s.Simple.Stmts {
				switch {
				case ss.From != nil && len(ss.From.Dots) == 0 && len(ss.From.Module) == 0:
					p.errorf(toPos(ss.Pos), "from needs a module: from m import x, or from . import x")
				case ss.Import != nil || ss.From != nil:
					f.Imports = append(f.Imports, convImport(ss)...)
				case isDocString(ss):
				case ss.Expr != nil && (ss.Expr.Assign != nil || ss.Expr.Annot != nil):
					// A module-level annotation without a value binds
					// nothing (it is a *PassStmt).
					if a, ok := p.exprStmt(ss.Expr).(*AssignStmt); ok {
						f.Globals = append(f.Globals, a)
					}
				default:
					p.errorf(toPos(ss.Pos), "only imports, assignments and function definitions are allowed at top level")
				}
			}
		default:
			p.errorf(toPos(s.Pos), "only imports, assignments and function definitions are allowed at top level")
		}
	}
}

// convImport flattens `import a, b as c` and `from m import x as y` (which
// imports the module m.x) into one Import per name, positioned at the name.
func convImport(ss *gSmallStmt) []*Import {
	var out []*Import
	if ss.Import != nil {
		for _, n := range ss.Import.Names {
			out = append(out, &Import{Pos: toPos(n.Pos), Path: strings.Join(n.Path, "."), Alias: n.Alias})
		}
		return out
	}
	// A relative import's path starts with its dots: `from .utils import
	// f` is ".utils.f", `from . import m` is ".m".
	dots := strings.Join(ss.From.Dots, "")
	mod := dots + strings.Join(ss.From.Module, ".")
	for _, n := range ss.From.Names {
		path := mod + "." + n.Name
		if len(ss.From.Module) == 0 {
			path = dots + n.Name
		}
		out = append(out, &Import{Pos: toPos(n.Pos), Path: path, Alias: n.Alias, From: true})
	}
	return out
}

// isDocString reports whether a statement is a lone string literal, which
// has no effect: docstrings are accepted anywhere and dropped.
func isDocString(ss *gSmallStmt) bool {
	if ss.Expr == nil || ss.Expr.AugOp != "" || ss.Expr.Assign != nil || ss.Expr.Annot != nil {
		return false
	}
	l := ss.Expr.X
	if len(l.Elems) != 1 || l.Trailing {
		return false
	}
	a := atomOf(l.Elems[0])
	return a != nil && a.Strings != nil
}

// atomOf returns the atom that a test consists of, if it is nothing more.
func atomOf(t *gTest) *gAtom {
	if t.Lambda != nil || t.Cond != nil || len(t.X.Rest) > 0 || len(t.X.X.Prefixes) > 0 {
		return nil
	}
	pw := t.X.X.X
	if pw.Exp != nil || len(pw.X.Trailers) > 0 {
		return nil
	}
	return pw.X.X
}

func (p *parser) convDef(g *gFuncDef, decos []*gDecorator) *FuncDef {
	fd := &FuncDef{Pos: toPos(g.Pos), NamePos: toPos(g.Name.Pos), Name: g.Name.Name}
	for _, d := range decos {
		fd.Decorators = append(fd.Decorators, p.expr(d.X))
	}
	for _, gp := range g.Params {
		prm := &Param{Pos: toPos(gp.Pos), Name: gp.Name}
		if gp.Annot != nil {
			prm.Annot = p.expr(gp.Annot)
		}
		if gp.Default != nil {
			prm.Default = p.expr(gp.Default)
		}
		fd.Params = append(fd.Params, prm)
	}
	p.checkParams(fd.Params)
	// The return annotation (`-> T`) is accepted and ignored.
	fd.Body = p.suite(g.Body)
	return fd
}

// convClass converts a top-level class. What host code runs of a class
// is its methods and class attributes; the rest is refused here, each
// at its place: decorators on the class, keyword or starred bases, more
// than one base, method decorators other than @staticmethod and
// @classmethod, nested classes and other statements in the body.
func (p *parser) convClass(g *gClassDef, decos []*gDecorator) *ClassDef {
	cd := &ClassDef{Pos: toPos(g.Pos), NamePos: toPos(g.Name.Pos), Name: g.Name.Name}
	for _, d := range decos {
		p.errorf(toPos(d.Pos), "class decorators are not supported")
	}
	for i, a := range g.Bases {
		switch {
		case a.Keyword != "":
			p.errorf(toPos(a.Pos), "class keywords (%s=) are not supported", a.Keyword)
		case a.Star:
			p.errorf(toPos(a.Pos), "starred bases are not supported")
		case a.Comp != nil:
			p.errorf(toPos(a.Comp.Pos), "a generator expression cannot be a base class")
		case i > 0:
			p.errorf(toPos(a.Pos), "multiple inheritance is not supported: a class has at most one base")
		default:
			cd.Bases = append(cd.Bases, p.expr(a.Value))
		}
	}
	var body []*gStmt
	if g.Body.Simple != nil {
		body = []*gStmt{{Pos: g.Body.Simple.Stmts[0].Pos, Simple: g.Body.Simple}}
	} else {
		body = g.Body.Block
	}
	for _, s := range body {
		switch {
		case s.Class != nil || s.Decorated != nil && s.Decorated.Class != nil:
			p.errorf(toPos(s.Pos), "nested classes are not supported")
		case s.Def != nil:
			cd.Methods = append(cd.Methods, p.convDef(s.Def, nil))
		case s.Decorated != nil:
			for i, d := range s.Decorated.Decorators {
				n := atomOf(d.X)
				switch {
				case i > 0:
					p.errorf(toPos(d.Pos), "a method takes one decorator (@staticmethod or @classmethod)")
				case n == nil || (n.Name != "staticmethod" && n.Name != "classmethod"):
					p.errorf(toPos(d.X.Pos), "method decorators other than @staticmethod and @classmethod are not supported")
				}
			}
			cd.Methods = append(cd.Methods, p.convDef(s.Decorated.Def, s.Decorated.Decorators))
		case s.Simple != nil:
			for _, ss := range s.Simple.Stmts {
				switch {
				case ss.Pass, isDocString(ss):
				case ss.Expr != nil && (ss.Expr.Assign != nil || ss.Expr.Annot != nil):
					switch a := p.exprStmt(ss.Expr).(type) {
					case *AssignStmt:
						for _, t := range a.Targets {
							if bad := nonNameTarget(t); bad != nil {
								p.errorf(bad.Position(), "a class attribute must be a name")
							}
						}
						cd.Attrs = append(cd.Attrs, a)
					}
				case ss.Expr != nil && ss.Expr.AugOp == "" && isEllipsis(ss.Expr.X):
				default:
					p.errorf(toPos(ss.Pos), "a class body holds only methods and attribute assignments")
				}
			}
		default:
			p.errorf(toPos(s.Pos), "a class body holds only methods and attribute assignments")
		}
	}
	return cd
}

// isEllipsis reports whether a statement's expression is a lone `...`.
func isEllipsis(l *gTestList) bool {
	if len(l.Elems) != 1 || l.Trailing {
		return false
	}
	a := atomOf(l.Elems[0])
	return a != nil && a.Ellipsis
}

// checkParams reports what Python refuses in a parameter list: a name
// twice, and a parameter without a default after one with a default.
func (p *parser) checkParams(params []*Param) {
	seen := map[string]bool{}
	sawDefault := false
	for _, prm := range params {
		if seen[prm.Name] {
			p.errorf(prm.Pos, "duplicate parameter '%s'", prm.Name)
		}
		seen[prm.Name] = true
		if prm.Default != nil {
			sawDefault = true
		} else if sawDefault {
			p.errorf(prm.Pos, "parameter without a default follows a parameter with a default")
		}
	}
}

func (p *parser) suite(g *gSuite) []Stmt {
	if g.Simple != nil {
		return p.simpleStmt(g.Simple)
	}
	var out []Stmt
	for _, s := range g.Block {
		out = append(out, p.stmt(s)...)
	}
	return out
}

func (p *parser) stmt(s *gStmt) []Stmt {
	switch {
	case s.Class != nil || s.Decorated != nil && s.Decorated.Class != nil:
		p.errorf(toPos(s.Pos), "class definitions are only supported at top level")
		return nil
	case s.Decorated != nil || s.Def != nil:
		p.errorf(toPos(s.Pos), "nested function definitions are not supported")
		return nil
	case s.For != nil:
		return []Stmt{p.forStmt(s.For)}
	case s.While != nil:
		return []Stmt{&WhileStmt{Pos: toPos(s.While.Pos), Cond: p.expr(s.While.Cond), Body: p.suite(s.While.Body)}}
	case s.With != nil:
		w := &WithStmt{Pos: toPos(s.With.Pos)}
		for _, it := range s.With.Items {
			w.Items = append(w.Items, WithItem{X: p.expr(it.X), As: it.As, AsPos: toPos(it.AsPos)})
		}
		w.Body = p.suite(s.With.Body)
		return []Stmt{w}
	case s.If != nil:
		return []Stmt{p.ifStmt(s.If)}
	}
	return p.simpleStmt(s.Simple)
}

func (p *parser) forStmt(g *gFor) Stmt {
	fs := &ForStmt{Pos: toPos(g.Pos)}
	// `for i, x in ...` unpacks each item: ct.static_iter's items may be
	// tuples (enumerate), and host loops iterate over tuples.
	fs.Target = p.targetList(g.Target)
	if bad := nonNameTarget(fs.Target); bad != nil {
		p.errorf(bad.Position(), "for loop target must be a name or a tuple of names")
	}
	fs.Iter = p.testList(g.Iter)
	fs.Body = p.suite(g.Body)
	return fs
}

// targetList converts a for loop's or a comprehension's target: one
// expression, or a Tuple of several (or of one with a trailing comma).
func (p *parser) targetList(g *gTargetList) Expr {
	conv := func(t *gTarget) Expr {
		b := &gBinary{X: t.X}
		for _, r := range t.Rest {
			b.Rest = append(b.Rest, &gBinOp{Pos: r.Pos, Op: r.Op, Y: r.Y})
		}
		return p.binary(b)
	}
	if len(g.Elems) == 1 && !g.Trailing {
		return conv(g.Elems[0])
	}
	t := &Tuple{Pos: toPos(g.Pos)}
	for _, e := range g.Elems {
		t.Elems = append(t.Elems, conv(e))
	}
	return t
}

// nonNameTarget returns the first part of a for loop's target that is not a
// name or a (nested) tuple of names, or nil.
func nonNameTarget(e Expr) Expr {
	switch e := e.(type) {
	case *Name:
		return nil
	case *Tuple:
		for _, x := range e.Elems {
			if bad := nonNameTarget(x); bad != nil {
				return bad
			}
		}
		return nil
	}
	return e
}

func (p *parser) ifStmt(g *gIf) Stmt {
	var els []Stmt
	if g.Else != nil {
		els = p.suite(g.Else)
		if els == nil {
			els = []Stmt{}
		}
	}
	for i := len(g.Elifs) - 1; i >= 0; i-- {
		e := g.Elifs[i]
		els = []Stmt{&IfStmt{Pos: toPos(e.Pos), Cond: p.expr(e.Cond), Then: p.suite(e.Body), Else: els}}
	}
	return &IfStmt{Pos: toPos(g.Pos), Cond: p.expr(g.Cond), Then: p.suite(g.Then), Else: els}
}

func (p *parser) simpleStmt(g *gSimpleStmt) []Stmt {
	var out []Stmt
	for _, ss := range g.Stmts {
		pos := toPos(ss.Pos)
		switch {
		case ss.Pass:
			out = append(out, &PassStmt{Pos: pos})
		case ss.Break:
			out = append(out, &BreakStmt{Pos: pos})
		case ss.Continue:
			out = append(out, &ContinueStmt{Pos: pos})
		case ss.Assert != nil:
			as := &AssertStmt{Pos: pos, Cond: p.expr(ss.Assert.Cond)}
			if ss.Assert.Msg != nil {
				as.Msg = p.expr(ss.Assert.Msg)
			}
			out = append(out, as)
		case ss.Raise != nil:
			rs := &RaiseStmt{Pos: pos}
			if ss.Raise.Exc != nil {
				rs.Exc = p.expr(ss.Raise.Exc)
			}
			out = append(out, rs)
		case ss.Return != nil:
			rs := &ReturnStmt{Pos: pos}
			if ss.Return.Value != nil {
				rs.Value = p.testList(ss.Return.Value)
			}
			out = append(out, rs)
		case ss.Import != nil || ss.From != nil:
			p.errorf(pos, "imports are only allowed at top level")
		case isDocString(ss):
		default:
			if s := p.exprStmt(ss.Expr); s != nil {
				out = append(out, s)
			}
		}
	}
	return out
}

func (p *parser) exprStmt(g *gExprStmt) Stmt {
	pos := toPos(g.Pos)
	switch {
	case g.AugOp != "":
		op := strings.TrimSuffix(g.AugOp, "=")
		target := p.testList(g.X)
		switch target.(type) {
		case *Name, *Subscript, *Attr: // x[i] += v, x.a += v: host code's; kernels refuse them (ir/build)
		default:
			p.errorf(target.Position(), "illegal target for augmented assignment")
		}
		return &AugAssignStmt{Pos: pos, Target: target, Op: op, Value: p.testList(g.AugValue)}
	case g.Annot != nil:
		// `x: T = v` is `x = v` with its annotation kept; Python evaluates
		// neither the annotation of a local nor, without a value, binds
		// the name: `x: T` alone is a pass.
		if len(g.X.Elems) != 1 || g.X.Trailing {
			p.errorf(toPos(g.X.Pos), "only a single target can be annotated")
			return &PassStmt{Pos: pos}
		}
		target := p.expr(g.X.Elems[0])
		if _, isTuple := target.(*Tuple); isTuple {
			p.errorf(target.Position(), "only a single target can be annotated")
			return &PassStmt{Pos: pos}
		}
		p.checkTarget(target)
		annot := p.expr(g.Annot.Type)
		if g.Annot.Value == nil {
			return &PassStmt{Pos: pos}
		}
		return &AssignStmt{Pos: pos, Targets: []Expr{target}, Value: p.testList(g.Annot.Value), Annot: annot}
	case g.Assign != nil:
		if len(g.Assign) > 1 {
			p.errorf(toPos(g.Assign[1].Pos), "chained assignment is not supported")
		}
		var targets []Expr
		if len(g.X.Elems) == 1 && !g.X.Trailing {
			t := p.expr(g.X.Elems[0])
			if tup, ok := t.(*Tuple); ok && len(tup.Elems) > 1 {
				targets = tup.Elems // (a, b) = ... unpacks like a, b = ...; (a,) = ... stays a one-item tuple target
			} else {
				targets = []Expr{t}
			}
		} else if len(g.X.Elems) == 1 {
			targets = []Expr{&Tuple{Pos: toPos(g.X.Pos), Elems: []Expr{p.expr(g.X.Elems[0])}}}
		} else {
			for _, e := range g.X.Elems {
				targets = append(targets, p.expr(e))
			}
		}
		for _, t := range targets {
			p.checkTarget(t)
		}
		return &AssignStmt{Pos: pos, Targets: targets, Value: p.testList(g.Assign[0].X)}
	}
	x := p.testListAllowEllipsis(g.X)
	if e, ok := x.(*ellipsis); ok {
		return &PassStmt{Pos: e.Pos}
	}
	return &ExprStmt{Pos: pos, X: x}
}

// checkTarget reports an expression that cannot be assigned to.
func (p *parser) checkTarget(t Expr) {
	what := ""
	switch t := t.(type) {
	case *Name, *Subscript, *Attr: // x[i] = v, x.a = v: host code's tensors and objects; kernels refuse them (ir/build)
		return
	case *Tuple:
		if len(t.Elems) == 0 {
			what = "()"
		}
		for _, e := range t.Elems {
			p.checkTarget(e)
		}
		if what == "" {
			return
		}
	case *Call:
		what = "function call"
	case *IntLit, *FloatLit, *StringLit:
		what = "literal"
	case *BoolLit:
		what = strconv.FormatBool(t.Value)
		what = strings.ToUpper(what[:1]) + what[1:]
	case *NoneLit:
		what = "None"
	default:
		what = "expression"
	}
	p.errorf(t.Position(), "cannot assign to %s", what)
}

// ellipsis is `...`: only a statement of its own (a placeholder body, as
// in the language reference), where it means pass. It never leaves the
// package.
type ellipsis struct{ Pos Pos }

func (e *ellipsis) Position() Pos { return e.Pos }
func (*ellipsis) expr()           {}

// testList converts a testList: several elements or a trailing comma make
// a Tuple positioned at the first element.
func (p *parser) testList(g *gTestList) Expr {
	x := p.testListAllowEllipsis(g)
	if _, ok := x.(*ellipsis); ok {
		p.check(x)
	}
	return x
}

func (p *parser) testListAllowEllipsis(g *gTestList) Expr {
	if len(g.Elems) == 1 && !g.Trailing {
		e := p.test(g.Elems[0])
		if _, ok := e.(*ellipsis); ok {
			return e
		}
		p.check(e)
		return e
	}
	t := &Tuple{Pos: toPos(g.Pos)}
	for _, e := range g.Elems {
		t.Elems = append(t.Elems, p.test(e))
	}
	p.check(t)
	return t
}

// subList converts a subscript's index: like testList, with full slices.
func (p *parser) subList(g *gSubList) Expr {
	sub := func(s *gSub) Expr {
		if !s.Colon {
			if s.X == nil {
				p.errorf(toPos(s.Pos), "expected an index")
				return &Slice{Pos: toPos(s.Pos)}
			}
			return p.expr(s.X)
		}
		sl := &Slice{Pos: toPos(s.Pos)}
		if s.X != nil {
			sl.Lo = p.expr(s.X)
		}
		if s.Hi != nil {
			sl.Hi = p.expr(s.Hi)
		}
		if s.Step != nil && s.Step.X != nil {
			sl.Step = p.expr(s.Step.X)
		}
		return sl
	}
	if len(g.Elems) == 1 && !g.Trailing {
		return sub(g.Elems[0])
	}
	t := &Tuple{Pos: toPos(g.Pos)}
	for _, e := range g.Elems {
		t.Elems = append(t.Elems, sub(e))
	}
	return t
}

// expr converts a single test and checks it.
func (p *parser) expr(g *gTest) Expr {
	e := p.test(g)
	p.check(e)
	return e
}

// check reports `...` inside an expression and expressions nested too
// deeply; its own recursion is bounded by maxExprDepth.
func (p *parser) check(e Expr) {
	var walk func(e Expr, depth int) bool
	walk = func(e Expr, depth int) bool {
		if depth > maxExprDepth {
			p.errorf(e.Position(), "expression nested too deeply")
			return false
		}
		ok := true
		sub := func(xs ...Expr) {
			for _, x := range xs {
				if ok && x != nil {
					ok = walk(x, depth+1)
				}
			}
		}
		switch e := e.(type) {
		case *ellipsis:
			p.errorf(e.Pos, "'...' is only allowed as a statement")
		case *Attr:
			sub(e.X)
		case *Subscript:
			sub(e.X, e.Index)
		case *Call:
			sub(e.Fun)
			sub(e.Args...)
			for _, k := range e.Kwargs {
				sub(k.Value)
			}
		case *Tuple:
			sub(e.Elems...)
		case *BinaryExpr:
			sub(e.X, e.Y)
		case *UnaryExpr:
			sub(e.X)
		case *CondExpr:
			sub(e.X, e.Cond, e.Y)
		case *Slice:
			sub(e.Lo, e.Hi, e.Step)
		case *ListComp:
			sub(e.Elem, e.Target, e.Iter, e.Cond)
		case *SetComp:
			sub(e.Elem, e.Target, e.Iter, e.Cond)
		case *DictComp:
			sub(e.Key, e.Value, e.Target, e.Iter, e.Cond)
		case *Dict:
			sub(e.Keys...)
			sub(e.Values...)
		case *Set:
			sub(e.Elems...)
		case *Starred:
			sub(e.X)
		case *Lambda:
			for _, prm := range e.Params {
				sub(prm.Default)
			}
			sub(e.Body)
		}
		return ok
	}
	walk(e, 0)
}

func (p *parser) test(g *gTest) Expr {
	if g.Lambda != nil {
		return p.lambda(g.Lambda)
	}
	x := p.binary(g.X)
	if g.Cond == nil {
		return x
	}
	return &CondExpr{Pos: p.start(x), X: x, Cond: p.binary(g.Cond), Y: p.test(g.Else)}
}

// lambda converts `lambda params: body`.
func (p *parser) lambda(g *gLambda) Expr {
	l := &Lambda{Pos: toPos(g.Pos)}
	for _, gp := range g.Params {
		prm := &Param{Pos: toPos(gp.Pos), Name: gp.Name}
		if gp.Default != nil {
			prm.Default = p.test(gp.Default)
		}
		l.Params = append(l.Params, prm)
	}
	p.checkParams(l.Params)
	l.Body = p.test(g.Body)
	return l
}

func (p *parser) binaryExpr(x Expr, op string, opPos Pos, y Expr) Expr {
	switch op { // the grammar's two tokens, captured together
	case "isnot":
		op = "is not"
	case "notin":
		op = "not in"
	}
	return &BinaryExpr{Pos: p.start(x), OpPos: opPos, Op: op, X: x, Y: y}
}

// start is where the source text of x begins: its position, or the
// opening parenthesis around it. A node that starts with x (a BinaryExpr,
// Call, Attr, Subscript or CondExpr) is positioned there, so that in
// `(a + b) * c` the product starts at the '('.
func (p *parser) start(x Expr) Pos {
	if pos, ok := p.parens[x]; ok {
		return pos
	}
	return x.Position()
}

// Precedences of the binary operators and of the prefix operators, loosest
// first; ** is handled by the grammar (power), conditional expressions by
// test.
const (
	precOr = 1 + iota
	precAnd
	precNot
	precCmp
	precBitOr
	precBitXor
	precBitAnd
	precShift
	precArith
	precTerm
	precUnary
)

var binPrec = map[string]int{
	"or": precOr, "and": precAnd,
	"==": precCmp, "!=": precCmp, "<": precCmp, "<=": precCmp, ">": precCmp, ">=": precCmp,
	"is": precCmp, "isnot": precCmp, "in": precCmp, "notin": precCmp,
	"|": precBitOr, "^": precBitXor, "&": precBitAnd, "<<": precShift, ">>": precShift,
	"+": precArith, "-": precArith, "*": precTerm, "/": precTerm, "//": precTerm, "%": precTerm, "@": precTerm,
}

// climber groups a flat `operand { op operand }` sequence by precedence.
// k is the index of the current operand (and of the next operator), pre
// the next unconsumed prefix of that operand.
type climber struct {
	p        *parser
	operands []*gOperand
	ops      []*gBinOp
	k, pre   int
}

func (p *parser) binary(g *gBinary) Expr {
	c := &climber{p: p, operands: []*gOperand{g.X}, ops: g.Rest}
	for _, r := range g.Rest {
		c.operands = append(c.operands, r.Y)
	}
	return c.expr(0)
}

// expr parses operators binding at least as tightly as minPrec; all are
// left-associative, and comparisons do not chain.
func (c *climber) expr(minPrec int) Expr {
	lhs := c.unary(minPrec)
	prevCmp := false
	for c.k < len(c.ops) {
		op := c.ops[c.k]
		prec := binPrec[op.Op]
		if prec < minPrec {
			break
		}
		c.k++
		rhs := c.expr(prec + 1)
		if prec == precCmp && prevCmp {
			// a < b < c is (a < b) and (b < c), as in Python (b is
			// evaluated twice; kernel expressions have no side effects).
			prev := lhs.(*BinaryExpr)
			last := prev
			for last.Op == "and" {
				last = last.Y.(*BinaryExpr)
			}
			cmp := c.p.binaryExpr(last.Y, op.Op, toPos(op.Pos), rhs)
			lhs = &BinaryExpr{Pos: lhs.Position(), OpPos: toPos(op.Pos), Op: "and", X: lhs, Y: cmp}
			continue
		}
		prevCmp = prec == precCmp
		lhs = c.p.binaryExpr(lhs, op.Op, toPos(op.Pos), rhs)
	}
	return lhs
}

// unary parses the current operand's remaining prefixes and its power.
// `not` takes a comparison as operand and is allowed only where an
// expression of its precedence may start (`a and not b`, not `a + not b`).
func (c *climber) unary(minPrec int) Expr {
	o := c.operands[c.k]
	if c.pre < len(o.Prefixes) {
		pf := o.Prefixes[c.pre]
		c.pre++
		if pf.Op == "not" {
			if minPrec > precNot && !(c.pre > 1 && o.Prefixes[c.pre-2].Op == "not") {
				c.p.errorf(toPos(pf.Pos), "'not' cannot follow an operator here; add parentheses")
			}
			return &UnaryExpr{Pos: toPos(pf.Pos), Op: "not", X: c.expr(precCmp)}
		}
		return &UnaryExpr{Pos: toPos(pf.Pos), Op: pf.Op, X: c.unary(precUnary)}
	}
	c.pre = 0
	return c.p.power(o.X)
}

func (p *parser) power(g *gPower) Expr {
	x := p.primary(g.X)
	if e := g.Exp; e != nil {
		c := &climber{p: p, operands: []*gOperand{e.Y}}
		x = p.binaryExpr(x, "**", toPos(e.Pos), c.unary(precUnary))
	}
	return x
}

func (p *parser) primary(g *gPrimary) Expr {
	x := p.atom(g.X)
	for _, t := range g.Trailers {
		start := p.start(x)
		switch {
		case t.Call:
			c := &Call{Pos: start, Fun: x}
			seen := map[string]bool{}
			for _, a := range t.Args {
				v := p.test(a.Value)
				if a.Comp != nil {
					// f(x for x in xs): a generator, the call's only argument.
					if len(t.Args) != 1 || a.Star || a.Keyword != "" {
						p.errorf(toPos(a.Pos), "a generator expression as an argument must be the only one (else parenthesize it)")
					}
					lc := &ListComp{Pos: toPos(a.Pos), Gen: true, Elem: v}
					lc.Target, lc.Iter, lc.Cond = p.compFor(a.Comp)
					v = lc
				}
				if a.Keyword == "" {
					if len(c.Kwargs) > 0 {
						p.errorf(v.Position(), "positional argument follows keyword argument")
					}
					if a.Star {
						v = &Starred{Pos: toPos(a.Pos), X: v}
					}
					c.Args = append(c.Args, v)
					continue
				}
				if seen[a.Keyword] {
					p.errorf(toPos(a.Pos), "keyword argument repeated: '%s'", a.Keyword)
				}
				seen[a.Keyword] = true
				c.Kwargs = append(c.Kwargs, &Keyword{Pos: toPos(a.Pos), Name: a.Keyword, Value: v})
			}
			x = c
		case t.Index != nil:
			x = &Subscript{Pos: start, X: x, Index: p.subList(t.Index)}
		default:
			x = &Attr{Pos: start, X: x, Name: t.Attr.Name, NamePos: toPos(t.Attr.Pos)}
		}
	}
	return x
}

func (p *parser) atom(g *gAtom) Expr {
	pos := toPos(g.Pos)
	switch {
	case g.Paren && g.PComp != nil:
		if g.Inner == nil || len(g.Inner.Elems) != 1 || g.Inner.Trailing {
			p.errorf(pos, "a generator expression has one element expression")
			return &Tuple{Pos: pos}
		}
		lc := &ListComp{Pos: pos, Gen: true, Elem: p.test(g.Inner.Elems[0])}
		lc.Target, lc.Iter, lc.Cond = p.compFor(g.PComp)
		return lc
	case g.Paren:
		if g.Inner == nil {
			return &Tuple{Pos: pos}
		}
		if len(g.Inner.Elems) == 1 && !g.Inner.Trailing {
			x := p.test(g.Inner.Elems[0])
			if p.parens == nil {
				p.parens = map[Expr]Pos{}
			}
			p.parens[x] = pos
			return x
		}
		t := &Tuple{Pos: pos}
		for _, e := range g.Inner.Elems {
			t.Elems = append(t.Elems, p.test(e))
		}
		return t
	case g.List && g.Comp != nil:
		if g.Items == nil || len(g.Items.Elems) != 1 || g.Items.Trailing {
			p.errorf(pos, "a list comprehension has one element expression")
			return &Tuple{Pos: pos}
		}
		lc := &ListComp{Pos: pos, Elem: p.test(g.Items.Elems[0])}
		lc.Target, lc.Iter, lc.Cond = p.compFor(g.Comp)
		return lc
	case g.Brace:
		return p.braces(pos, g)
	case g.List:
		// A list literal is read as a tuple: the language has no mutable
		// sequences, and [a, b] is how Python code often spells a shape.
		t := &Tuple{Pos: pos}
		if g.Items != nil {
			for _, e := range g.Items.Elems {
				t.Elems = append(t.Elems, p.test(e))
			}
		}
		return t
	case g.Name != "":
		return &Name{Pos: pos, Name: g.Name}
	case g.Int != "":
		return p.intLit(pos, g.Int)
	case g.Float != "":
		if last := g.Float[len(g.Float)-1]; last == 'j' || last == 'J' {
			v, err := strconv.ParseFloat(strings.ReplaceAll(g.Float[:len(g.Float)-1], "_", ""), 64)
			if err != nil && (v > 1 || v < -1) {
				p.errorf(pos, "imaginary literal %s out of range", g.Float)
			}
			return &ImagLit{Pos: pos, Value: v, Text: g.Float}
		}
		v, err := strconv.ParseFloat(strings.ReplaceAll(g.Float, "_", ""), 64)
		if err != nil && (v > 1 || v < -1) {
			p.errorf(pos, "float literal %s out of range", g.Float)
		}
		return &FloatLit{Pos: pos, Value: v, Text: g.Float}
	case g.Strings != nil:
		var b strings.Builder
		for _, s := range g.Strings {
			b.WriteString(unquote(s))
		}
		return &StringLit{Pos: pos, Value: b.String()}
	case g.True:
		return &BoolLit{Pos: pos, Value: true}
	case g.False:
		return &BoolLit{Pos: pos, Value: false}
	case g.None:
		return &NoneLit{Pos: pos}
	}
	return &ellipsis{Pos: pos}
}

// compFor converts a comprehension's `for target in iter [if cond]`
// (cond nil when absent).
func (p *parser) compFor(g *gCompFor) (target, iter, cond Expr) {
	target = p.targetList(g.Target)
	if bad := nonNameTarget(target); bad != nil {
		p.errorf(bad.Position(), "comprehension target must be a name or a tuple of names")
	}
	iter = p.binary(g.Iter)
	if g.Cond != nil {
		cond = p.binary(g.Cond)
	}
	return target, iter, cond
}

// braces converts a brace display: `{}` and `{k: v, ...}` are dicts,
// `{a, ...}` a set, and either may be a comprehension of one entry. The
// first entry decides, as in Python; a mix is an error at the entry that
// differs.
func (p *parser) braces(pos Pos, g *gAtom) Expr {
	isDict := len(g.Entries) == 0 || g.Entries[0].Value != nil
	for _, e := range g.Entries[min(1, len(g.Entries)):] {
		if (e.Value != nil) != isDict {
			if isDict {
				p.errorf(toPos(e.Pos), "a dict's entries are key: value (this one has no ':')")
			} else {
				p.errorf(toPos(e.Pos), "a set's items have no ':' (the first item made this a set)")
			}
		}
	}
	if g.BComp != nil {
		if len(g.Entries) != 1 || g.BTrail {
			p.errorf(pos, "a comprehension has one element expression")
			return &Dict{Pos: pos}
		}
		target, iter, cond := p.compFor(g.BComp)
		e := g.Entries[0]
		if isDict {
			return &DictComp{Pos: pos, Key: p.test(e.Key), Value: p.test(e.Value), Target: target, Iter: iter, Cond: cond}
		}
		return &SetComp{Pos: pos, Elem: p.test(e.Key), Target: target, Iter: iter, Cond: cond}
	}
	if isDict {
		d := &Dict{Pos: pos}
		for _, e := range g.Entries {
			d.Keys = append(d.Keys, p.test(e.Key))
			if e.Value != nil {
				d.Values = append(d.Values, p.test(e.Value))
			} else {
				d.Values = append(d.Values, &NoneLit{Pos: toPos(e.Pos)})
			}
		}
		return d
	}
	s := &Set{Pos: pos}
	for _, e := range g.Entries {
		s.Elems = append(s.Elems, p.test(e.Key))
	}
	return s
}

func (p *parser) intLit(pos Pos, text string) Expr {
	digits := strings.ReplaceAll(text, "_", "")
	base := 10
	if len(digits) > 1 && digits[0] == '0' {
		switch digits[1] {
		case 'x', 'X':
			base = 16
		case 'o', 'O':
			base = 8
		case 'b', 'B':
			base = 2
		}
		if base != 10 {
			digits = digits[2:]
		} else {
			// 000 is 0; other leading zeros were rejected by the lexer.
			if digits = strings.TrimLeft(digits, "0"); digits == "" {
				digits = "0"
			}
		}
	}
	v, err := strconv.ParseInt(digits, base, 64)
	if err != nil {
		p.errorf(pos, "integer literal %s does not fit in 64 bits", text)
	}
	return &IntLit{Pos: pos, Value: v, Text: text}
}

// unquote decodes a string token: quotes stripped, the common escapes
// decoded, and any other backslash kept as written (as Python does).
func unquote(tok string) string {
	if tok != "" && (tok[0] == 'r' || tok[0] == 'R') {
		// A raw string (r"..."): only the quotes go.
		tok = tok[1:]
		q := 1
		if len(tok) >= 6 && (strings.HasPrefix(tok, `"""`) || strings.HasPrefix(tok, `'''`)) {
			q = 3
		}
		return tok[q : len(tok)-q]
	}
	q := 1
	if len(tok) >= 6 && (strings.HasPrefix(tok, `"""`) || strings.HasPrefix(tok, `'''`)) {
		q = 3
	}
	s := tok[q : len(tok)-q]
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch e := s[i]; e {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case '0':
			b.WriteByte(0)
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'v':
			b.WriteByte('\v')
		case '\\', '\'', '"':
			b.WriteByte(e)
		case '\n':
		case 'x':
			if i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
				n, _ := strconv.ParseUint(s[i+1:i+3], 16, 8)
				b.WriteByte(byte(n))
				i += 2
			} else {
				b.WriteString(`\x`)
			}
		default:
			b.WriteByte('\\')
			b.WriteByte(e)
		}
	}
	return b.String()
}
