package lang

import (
	"strings"
	"testing"
)

// TestLineEndings: a file with old Mac line endings (a lone '\r', which
// Python reads as a newline) or Windows ones ("\r\n", one newline) parses
// to the same AST as with '\n', at the same line and column positions.
func TestLineEndings(t *testing.T) {
	const src = "import cuda.tile as ct\n\n\n@ct.kernel\ndef k(X, TILE: ct.Constant[int]):\n    x = ct.load(X, index=(ct.bid(0),), shape=(TILE,))\n    ct.store(X, index=(ct.bid(0),), tile=x + \\\n        1)\n"
	f, err := Parse("k.py", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := FormatAST(f)
	for _, eol := range []string{"\r", "\r\n"} {
		g, err := Parse("k.py", []byte(strings.ReplaceAll(src, "\n", eol)))
		if err != nil {
			t.Errorf("%q: %v", eol, err)
			continue
		}
		if got := FormatAST(g); got != want {
			t.Errorf("%q: AST\n%s\nwant\n%s", eol, got, want)
		}
		st := g.Funcs[0].Body[1]
		if p := st.Position(); p.Line != 7 || p.Col != 5 {
			t.Errorf("%q: the store at %d:%d, want 7:5", eol, p.Line, p.Col)
		}
	}
}

// TestLineEndingsErrorPosition: an error in a file with lone '\r' line
// endings names its line and column and quotes that line, not the whole
// file as one line.
func TestLineEndingsErrorPosition(t *testing.T) {
	for _, eol := range []string{"\r", "\r\n", "\n"} {
		src := strings.ReplaceAll("def f(x):\n    for i in range(4)\n        pass\n", "\n", eol)
		_, err := Parse("k.tile", []byte(src))
		want := "k.tile:2:22: expected ':' after for header\n        for i in range(4)\n                         ^"
		if err == nil || err.Error() != want {
			t.Errorf("%q: got:\n%v\nwant:\n%s", eol, err, want)
		}
	}
	s := &Source{Text: "a\rb\r\nc\nd\r"}
	for n, want := range []string{"", "a", "b", "c", "d", ""} {
		if got := s.Line(n); got != want {
			t.Errorf("Line(%d) = %q, want %q", n, got, want)
		}
	}
}
