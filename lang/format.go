package lang

import (
	"fmt"
	"strconv"
	"strings"
)

// FormatAST renders f as an indented tree, one node per line: the role of
// the node in its parent (when it has one), its kind, its line:col, then
// its names, literal values and operators, with the positions of inner
// tokens written name@line:col. The output is stable: it is what
// `tilec compile --emit ast` prints and what golden tests compare.
//
//	FuncDef 3:1 add name@3:5
//	  param: Param 3:9 a
//	  body: ReturnStmt 4:5
//	    value: BinaryExpr 4:12 "+" op@4:14
//	      x: Name 4:12 a
//	      y: Name 4:16 b
func FormatAST(f *File) string {
	w := &astWriter{}
	name := ""
	if f.Src != nil {
		name = " " + strconv.Quote(f.Src.Name)
	}
	w.line(0, "", "File%s", name)
	for _, im := range f.Imports {
		alias := ""
		if im.Alias != "" {
			alias = " as " + im.Alias
		}
		w.line(1, "", "Import %s %s%s", lc(im.Pos), im.Path, alias)
	}
	for _, g := range f.Globals {
		w.stmt(1, "global", g)
	}
	for _, fd := range f.Funcs {
		w.funcDef(1, fd)
	}
	for _, cd := range f.Classes {
		w.line(1, "", "ClassDef %s %s name@%s", lc(cd.Pos), cd.Name, lc(cd.NamePos))
		for _, b := range cd.Bases {
			w.expr(2, "base", b)
		}
		for _, a := range cd.Attrs {
			w.stmt(2, "attr", a)
		}
		for _, m := range cd.Methods {
			w.funcDef(2, m)
		}
	}
	return w.b.String()
}

type astWriter struct{ b strings.Builder }

func lc(p Pos) string { return fmt.Sprintf("%d:%d", p.Line, p.Col) }

func (w *astWriter) line(depth int, role, format string, args ...any) {
	w.b.WriteString(strings.Repeat("  ", depth))
	if role != "" {
		w.b.WriteString(role)
		w.b.WriteString(": ")
	}
	fmt.Fprintf(&w.b, format, args...)
	w.b.WriteByte('\n')
}

func (w *astWriter) funcDef(d int, fd *FuncDef) {
	w.line(d, "", "FuncDef %s %s name@%s", lc(fd.Pos), fd.Name, lc(fd.NamePos))
	for _, e := range fd.Decorators {
		w.expr(d+1, "decorator", e)
	}
	for _, p := range fd.Params {
		w.line(d+1, "param", "Param %s %s", lc(p.Pos), p.Name)
		if p.Annot != nil {
			w.expr(d+2, "annot", p.Annot)
		}
		if p.Default != nil {
			w.expr(d+2, "default", p.Default)
		}
	}
	w.stmts(d+1, "body", fd.Body)
}

func (w *astWriter) stmts(d int, role string, ss []Stmt) {
	for _, s := range ss {
		w.stmt(d, role, s)
	}
}

func (w *astWriter) stmt(d int, role string, s Stmt) {
	switch s := s.(type) {
	case *AssignStmt:
		w.line(d, role, "AssignStmt %s", lc(s.Pos))
		for _, t := range s.Targets {
			w.expr(d+1, "target", t)
		}
		if s.Annot != nil {
			w.expr(d+1, "annotation", s.Annot)
		}
		w.expr(d+1, "value", s.Value)
	case *AugAssignStmt:
		w.line(d, role, "AugAssignStmt %s %q", lc(s.Pos), s.Op+"=")
		w.expr(d+1, "target", s.Target)
		w.expr(d+1, "value", s.Value)
	case *ExprStmt:
		w.line(d, role, "ExprStmt %s", lc(s.Pos))
		w.expr(d+1, "x", s.X)
	case *ForStmt:
		w.line(d, role, "ForStmt %s", lc(s.Pos))
		w.expr(d+1, "target", s.Target)
		w.expr(d+1, "iter", s.Iter)
		w.stmts(d+1, "body", s.Body)
	case *IfStmt:
		w.line(d, role, "IfStmt %s", lc(s.Pos))
		w.expr(d+1, "cond", s.Cond)
		w.stmts(d+1, "then", s.Then)
		if s.Else != nil && len(s.Else) == 0 {
			w.line(d+1, "else", "(empty)")
		}
		w.stmts(d+1, "else", s.Else)
	case *ReturnStmt:
		w.line(d, role, "ReturnStmt %s", lc(s.Pos))
		if s.Value != nil {
			w.expr(d+1, "value", s.Value)
		}
	case *PassStmt:
		w.line(d, role, "PassStmt %s", lc(s.Pos))
	case *WhileStmt:
		w.line(d, role, "WhileStmt %s", lc(s.Pos))
		w.expr(d+1, "cond", s.Cond)
		w.stmts(d+1, "body", s.Body)
	case *WithStmt:
		w.line(d, role, "WithStmt %s", lc(s.Pos))
		for _, it := range s.Items {
			w.expr(d+1, "ctx", it.X)
			if it.As != "" {
				w.line(d+1, "as", "%s", it.As)
			}
		}
		w.stmts(d+1, "body", s.Body)
	case *BreakStmt:
		w.line(d, role, "BreakStmt %s", lc(s.Pos))
	case *ContinueStmt:
		w.line(d, role, "ContinueStmt %s", lc(s.Pos))
	case *RaiseStmt:
		w.line(d, role, "RaiseStmt %s", lc(s.Pos))
		if s.Exc != nil {
			w.expr(d+1, "exc", s.Exc)
		}
	case *AssertStmt:
		w.line(d, role, "AssertStmt %s", lc(s.Pos))
		w.expr(d+1, "cond", s.Cond)
		if s.Msg != nil {
			w.expr(d+1, "msg", s.Msg)
		}
	default:
		w.line(d, role, "%T", s)
	}
}

func (w *astWriter) expr(d int, role string, e Expr) {
	switch e := e.(type) {
	case *Name:
		w.line(d, role, "Name %s %s", lc(e.Pos), e.Name)
	case *Attr:
		w.line(d, role, "Attr %s .%s name@%s", lc(e.Pos), e.Name, lc(e.NamePos))
		w.expr(d+1, "x", e.X)
	case *Subscript:
		w.line(d, role, "Subscript %s", lc(e.Pos))
		w.expr(d+1, "x", e.X)
		w.expr(d+1, "index", e.Index)
	case *Call:
		w.line(d, role, "Call %s", lc(e.Pos))
		w.expr(d+1, "fun", e.Fun)
		for _, a := range e.Args {
			w.expr(d+1, "arg", a)
		}
		for _, k := range e.Kwargs {
			w.line(d+1, "kwarg", "Keyword %s %s", lc(k.Pos), k.Name)
			w.expr(d+2, "value", k.Value)
		}
	case *Tuple:
		w.line(d, role, "Tuple %s (%d)", lc(e.Pos), len(e.Elems))
		for _, x := range e.Elems {
			w.expr(d+1, "elem", x)
		}
	case *IntLit:
		w.line(d, role, "IntLit %s %d%s", lc(e.Pos), e.Value, text(e.Text, strconv.FormatInt(e.Value, 10)))
	case *FloatLit:
		v := strconv.FormatFloat(e.Value, 'g', -1, 64)
		w.line(d, role, "FloatLit %s %s%s", lc(e.Pos), v, text(e.Text, v))
	case *ImagLit:
		v := strconv.FormatFloat(e.Value, 'g', -1, 64) + "j"
		w.line(d, role, "ImagLit %s %s%s", lc(e.Pos), v, text(e.Text, v))
	case *BoolLit:
		v := "False"
		if e.Value {
			v = "True"
		}
		w.line(d, role, "BoolLit %s %s", lc(e.Pos), v)
	case *NoneLit:
		w.line(d, role, "NoneLit %s", lc(e.Pos))
	case *Slice:
		w.line(d, role, "Slice %s", lc(e.Pos))
		for _, b := range []struct {
			role string
			x    Expr
		}{{"lo", e.Lo}, {"hi", e.Hi}, {"step", e.Step}} {
			if b.x != nil {
				w.expr(d+1, b.role, b.x)
			}
		}
	case *ListComp:
		kind := "ListComp"
		if e.Gen {
			kind = "GenExp"
		}
		w.line(d, role, "%s %s", kind, lc(e.Pos))
		w.expr(d+1, "elem", e.Elem)
		w.compFor(d+1, e.Target, e.Iter, e.Cond)
	case *SetComp:
		w.line(d, role, "SetComp %s", lc(e.Pos))
		w.expr(d+1, "elem", e.Elem)
		w.compFor(d+1, e.Target, e.Iter, e.Cond)
	case *DictComp:
		w.line(d, role, "DictComp %s", lc(e.Pos))
		w.expr(d+1, "key", e.Key)
		w.expr(d+1, "value", e.Value)
		w.compFor(d+1, e.Target, e.Iter, e.Cond)
	case *Dict:
		w.line(d, role, "Dict %s (%d)", lc(e.Pos), len(e.Keys))
		for i, k := range e.Keys {
			w.expr(d+1, "key", k)
			w.expr(d+2, "value", e.Values[i])
		}
	case *Starred:
		w.line(d, role, "Starred %s", lc(e.Pos))
		w.expr(d+1, "x", e.X)
	case *Set:
		w.line(d, role, "Set %s (%d)", lc(e.Pos), len(e.Elems))
		for _, x := range e.Elems {
			w.expr(d+1, "elem", x)
		}
	case *Lambda:
		w.line(d, role, "Lambda %s", lc(e.Pos))
		for _, p := range e.Params {
			w.line(d+1, "param", "Param %s %s", lc(p.Pos), p.Name)
			if p.Default != nil {
				w.expr(d+2, "default", p.Default)
			}
		}
		w.expr(d+1, "body", e.Body)
	case *StringLit:
		w.line(d, role, "StringLit %s %q", lc(e.Pos), e.Value)
	case *BinaryExpr:
		w.line(d, role, "BinaryExpr %s %q op@%s", lc(e.Pos), e.Op, lc(e.OpPos))
		w.expr(d+1, "x", e.X)
		w.expr(d+1, "y", e.Y)
	case *UnaryExpr:
		w.line(d, role, "UnaryExpr %s %q", lc(e.Pos), e.Op)
		w.expr(d+1, "x", e.X)
	case *CondExpr:
		w.line(d, role, "CondExpr %s", lc(e.Pos))
		w.expr(d+1, "x", e.X)
		w.expr(d+1, "cond", e.Cond)
		w.expr(d+1, "y", e.Y)
	case nil:
		w.line(d, role, "<nil>")
	default:
		w.line(d, role, "%T", e)
	}
}

// compFor writes a comprehension's clause (cond may be nil).
func (w *astWriter) compFor(d int, target, iter, cond Expr) {
	w.expr(d, "target", target)
	w.expr(d, "iter", iter)
	if cond != nil {
		w.expr(d, "cond", cond)
	}
}

// text shows a literal's source text when it differs from its value.
func text(src, value string) string {
	if src == "" || src == value {
		return ""
	}
	return fmt.Sprintf(" (%s)", src)
}
