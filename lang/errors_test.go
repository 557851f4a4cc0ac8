package lang

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestErrorListCap: past MaxShownErrors, the rendering counts the rest
// instead of listing them.
func TestErrorListCap(t *testing.T) {
	var l ErrorList
	for i := 1; i <= MaxShownErrors+3; i++ {
		l.Add(&Error{Pos: Pos{File: "f", Line: i, Col: 1}, Msg: fmt.Sprintf("e%d", i)})
	}
	s := l.Error()
	if !strings.Contains(s, fmt.Sprintf("f:%d:1: e%d", MaxShownErrors, MaxShownErrors)) ||
		strings.Contains(s, fmt.Sprintf("e%d", MaxShownErrors+1)) || !strings.HasSuffix(s, "\nand 3 more errors") {
		t.Errorf("rendering:\n%s", s)
	}
	if s := l[:MaxShownErrors].Error(); strings.Contains(s, "more") {
		t.Errorf("a list of exactly MaxShownErrors says there are more:\n%s", s)
	}
}

// TestJoinErrors: the errors of several phases come back as one sorted list
// without duplicates; an error that is not about the source is kept as it is.
func TestJoinErrors(t *testing.T) {
	a := &Error{Pos: Pos{File: "f", Line: 3, Col: 1}, Msg: "a"}
	b := &Error{Pos: Pos{File: "f", Line: 1, Col: 1}, Msg: "b"}
	err := JoinErrors(ErrorList{a}, nil, ErrorList{b, a})
	var l ErrorList
	if !errors.As(err, &l) || len(l) != 2 || l[0] != b || l[1] != a {
		t.Errorf("got %v", err)
	}
	if JoinErrors(nil, nil) != nil {
		t.Error("no errors should join to nil")
	}
	io := errors.New("read failed")
	if JoinErrors(ErrorList{a}, io) != io {
		t.Error("a non-source error should be returned as it is")
	}
}

// TestQuoteList: Quote fills in the source line of every error of a list
// (the GPU check returns several).
func TestQuoteList(t *testing.T) {
	src := &Source{Name: "f", Text: "x = 1\ny = 2\n"}
	err := src.Quote(ErrorList{{Pos: Pos{File: "f", Line: 1, Col: 1}, Msg: "a"}, {Pos: Pos{File: "f", Line: 2, Col: 5}, Msg: "b"}})
	want := "f:1:1: a\n    x = 1\n    ^\nf:2:5: b\n    y = 2\n        ^"
	if err.Error() != want {
		t.Errorf("got\n%s\nwant\n%s", err, want)
	}
}

// TestParseKeepsGoodItems: a file with a syntax error still gives the items
// that parsed, and Broken names what the others define.
func TestParseKeepsGoodItems(t *testing.T) {
	src := "import cuda.tile as ct\nimport numpy as np $\nConstInt = ct.Constant[int]]\nA, B = 1, *\n\n@ct.kernel\ndef bad(x):\n    return x +\n\ndef good(x):\n    return x\n"
	f, err := Parse("f.py", []byte(src))
	if err == nil || f == nil {
		t.Fatalf("want a file and errors, got %v, %v", f, err)
	}
	if len(f.Funcs) != 1 || f.Funcs[0].Name != "good" || len(f.Imports) != 1 {
		t.Errorf("kept %d funcs, %d imports", len(f.Funcs), len(f.Imports))
	}
	for _, n := range []string{"np", "ConstInt", "A", "B", "bad"} {
		if _, ok := f.Broken[n]; !ok {
			t.Errorf("%s not in Broken %v", n, f.Broken)
		}
	}
	if f.BrokenUnknown {
		t.Error("BrokenUnknown set, but every broken item's names are known")
	}
	if f, _ := Parse("f.py", []byte("1 +\n")); !f.BrokenUnknown {
		t.Error("a mangled top-level expression should set BrokenUnknown")
	}
}
