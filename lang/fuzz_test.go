package lang

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/tools/txtar"
)

// FuzzParse checks that Parse returns a file or an ErrorList on any input,
// never panics, and that every position it reports lies inside the file and
// agrees with its own offset.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/*/*.txtar")
	for _, file := range files {
		if ar, err := txtar.ParseFile(file); err == nil {
			if src := section(ar, "in.tile"); src != nil {
				f.Add(src)
			}
		}
	}
	f.Add(pythonBlock(f, "../docs/language.md"))
	if src, err := os.ReadFile("../testdata/kernels/matmul.tile"); err == nil {
		f.Add(src)
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		start := time.Now()
		file, err := Parse("f.tile", src)
		if d := time.Since(start); d > 5*time.Second { // generous: the fuzzing machines are shared
			t.Fatalf("Parse took %v", d)
		}
		if err != nil {
			var list ErrorList
			if !errors.As(err, &list) || len(list) == 0 {
				t.Fatalf("error is not a non-empty ErrorList: %v", err)
			}
			for _, e := range list {
				if strings.Contains(e.Msg, "internal error") {
					t.Fatalf("%v", e)
				}
				checkPos(t, src, e.Pos, "error "+e.Msg)
			}
			_ = list.Error()
			return
		}
		if file == nil || file.Src == nil {
			t.Fatal("nil file or Src without an error")
		}
		walkFile(file, func(n Node) {
			if _, ok := n.(*ellipsis); ok {
				t.Fatalf("'...' left in the AST:\n%s", FormatAST(file))
			}
			checkPos(t, src, n.Position(), FormatAST(file))
		})
		_ = FormatAST(file)
	})
}

// checkPos fails unless p is a valid position in src whose line and column
// match its offset (the end of the file is a valid position).
func checkPos(t *testing.T, src []byte, p Pos, what string) {
	t.Helper()
	if p.File != "f.tile" || p.Offset < 0 || p.Offset > len(src) || !p.IsValid() {
		t.Fatalf("bad position %+v for %s", p, what)
	}
	// A line ends at "\n", "\r\n" or a lone "\r", as Python reads source.
	line, lineStart := 1, 0
	for i := 0; i < p.Offset; i++ {
		if c := src[i]; c == '\n' || c == '\r' && (i+1 >= len(src) || src[i+1] != '\n') {
			line, lineStart = line+1, i+1
		}
	}
	col := p.Offset - lineStart + 1
	if line != p.Line || col != p.Col {
		t.Fatalf("position %+v: offset is at %d:%d, for %s", p, line, col, what)
	}
}

// walkFile calls fn for every node of f.
func walkFile(f *File, fn func(Node)) {
	var expr func(Expr)
	expr = func(e Expr) {
		if e == nil {
			return
		}
		fn(e)
		switch e := e.(type) {
		case *Attr:
			expr(e.X)
		case *Subscript:
			expr(e.X)
			expr(e.Index)
		case *Call:
			expr(e.Fun)
			for _, a := range e.Args {
				expr(a)
			}
			for _, k := range e.Kwargs {
				fn(k)
				expr(k.Value)
			}
		case *Tuple:
			for _, x := range e.Elems {
				expr(x)
			}
		case *BinaryExpr:
			expr(e.X)
			expr(e.Y)
		case *UnaryExpr:
			expr(e.X)
		case *CondExpr:
			expr(e.X)
			expr(e.Cond)
			expr(e.Y)
		case *ListComp:
			for _, x := range []Expr{e.Elem, e.Target, e.Iter, e.Cond} {
				expr(x)
			}
		case *SetComp:
			for _, x := range []Expr{e.Elem, e.Target, e.Iter, e.Cond} {
				expr(x)
			}
		case *DictComp:
			for _, x := range []Expr{e.Key, e.Value, e.Target, e.Iter, e.Cond} {
				expr(x)
			}
		case *Dict:
			for i, k := range e.Keys {
				expr(k)
				expr(e.Values[i])
			}
		case *Set:
			for _, x := range e.Elems {
				expr(x)
			}
		case *Starred:
			expr(e.X)
		case *Lambda:
			for _, p := range e.Params {
				expr(p.Default)
			}
			expr(e.Body)
		}
	}
	var stmts func([]Stmt)
	stmts = func(ss []Stmt) {
		for _, s := range ss {
			fn(s)
			switch s := s.(type) {
			case *AssignStmt:
				for _, t := range s.Targets {
					expr(t)
				}
				expr(s.Value)
			case *AugAssignStmt:
				expr(s.Target)
				expr(s.Value)
			case *ExprStmt:
				expr(s.X)
			case *ForStmt:
				expr(s.Target)
				expr(s.Iter)
				stmts(s.Body)
			case *IfStmt:
				expr(s.Cond)
				stmts(s.Then)
				stmts(s.Else)
			case *ReturnStmt:
				expr(s.Value)
			}
		}
	}
	for _, im := range f.Imports {
		fn(posNode(im.Pos))
	}
	def := func(fd *FuncDef) {
		fn(posNode(fd.Pos))
		fn(posNode(fd.NamePos))
		for _, d := range fd.Decorators {
			expr(d)
		}
		for _, p := range fd.Params {
			fn(posNode(p.Pos))
			expr(p.Annot)
			expr(p.Default)
		}
		stmts(fd.Body)
	}
	for _, fd := range f.Funcs {
		def(fd)
	}
	for _, cd := range f.Classes {
		fn(posNode(cd.Pos))
		fn(posNode(cd.NamePos))
		for _, b := range cd.Bases {
			expr(b)
		}
		for _, a := range cd.Attrs {
			stmts([]Stmt{a})
		}
		for _, m := range cd.Methods {
			def(m)
		}
	}
}

type posNode Pos

func (p posNode) Position() Pos { return Pos(p) }

func BenchmarkParseMatmul(b *testing.B) {
	ar, err := txtar.ParseFile("testdata/parse/matmul.txtar")
	if err != nil {
		b.Fatal(err)
	}
	src := section(ar, "in.tile")
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, err := Parse("matmul.tile", src); err != nil {
			b.Fatal(err)
		}
	}
}

// section returns the named section of ar, or nil.
func section(ar *txtar.Archive, name string) []byte {
	for _, f := range ar.Files {
		if f.Name == name {
			return f.Data
		}
	}
	return nil
}
