package lang

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tilec/tilec/lang/golden"
)

// TestGolden parses the `in.tile` section of every archive under
// testdata/parse and testdata/errors and compares the result with its `ast`
// section (FormatAST) or its `errors` section (one `file:line:col: message`
// line per error). Run `go test ./lang -update` to rewrite them.
func TestGolden(t *testing.T) {
	for _, dir := range []string{"parse", "errors"} {
		golden.Run(t, filepath.Join("testdata", dir), func(t *testing.T, a *golden.Archive) {
			src := []byte(a.MustSection(t, "in.tile"))
			name, other, got := "ast", "errors", ""
			f, perr := Parse("in.tile", src)
			if perr != nil {
				name, other, got = "errors", "ast", errorLines(perr)
			} else {
				got = FormatAST(f)
			}
			if (dir == "errors") != (perr != nil) {
				t.Errorf("want errors: %v; got:\n%s", dir == "errors", got)
			}
			a.Remove(t, other)
			a.Check(t, name, got)
		})
	}
}

// errorLines renders an ErrorList as `file:line:col: message` lines.
func errorLines(err error) string {
	var list ErrorList
	if !errors.As(err, &list) {
		return "not an ErrorList: " + err.Error() + "\n"
	}
	var b strings.Builder
	for _, e := range list {
		b.WriteString(e.Pos.String() + ": " + e.Msg + "\n")
	}
	return b.String()
}

// TestGrammarEBNF pins participle's rendering of the grammar.
func TestGrammarEBNF(t *testing.T) {
	// A change shows as a diff: review it and run with -update.
	golden.CheckFile(t, filepath.Join("testdata", "grammar.ebnf"), grammar.String()+"\n")
}

// TestErrorRendering checks the full rendering of an error: position,
// message, the source line and a caret under the column.
func TestErrorRendering(t *testing.T) {
	_, err := Parse("k.tile", []byte("def f(x):\n    for i in range(4)\n        pass\n"))
	want := "k.tile:2:22: expected ':' after for header\n        for i in range(4)\n                         ^"
	if err == nil || err.Error() != want {
		t.Errorf("got:\n%v\nwant:\n%s", err, want)
	}
}

// TestParseReferenceExample parses the example at the top of the language
// reference (its body is `...`).
func TestParseReferenceExample(t *testing.T) {
	src := pythonBlock(t, "../docs/language.md")
	f, err := Parse("language.md", src)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Imports) != 1 || f.Imports[0].Path != "cuda.tile" || f.Imports[0].Alias != "ct" {
		t.Errorf("imports: %+v", f.Imports)
	}
	if len(f.Funcs) != 1 || f.Funcs[0].Name != "matmul" || len(f.Funcs[0].Params) != 7 {
		t.Fatalf("funcs: %s", FormatAST(f))
	}
	if _, ok := f.Funcs[0].Body[0].(*PassStmt); !ok {
		t.Errorf("body: %s", FormatAST(f))
	}
}

// pythonBlock returns the first ```python block of a markdown file.
func pythonBlock(t testing.TB, file string) []byte {
	md, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := bytes.Cut(md, []byte("```python\n"))
	block, _, ok2 := bytes.Cut(rest, []byte("```"))
	if !ok || !ok2 {
		t.Fatalf("no python block in %s", file)
	}
	return block
}

// TestMainBlock: a script's `if __name__ == "__main__":` block is read as
// the body of a def named __main__ at the source's own positions; its
// syntax errors are kept apart (MainErr) so that the kernels still parse.
func TestMainBlock(t *testing.T) {
	const kernel = "import cuda.tile as ct\n\n\ndef k(x):\n    return x\n\n\n"
	f, err := Parse("s.py", []byte(kernel+"if __name__ == \"__main__\":\n    a = k(1)\n    print(a)\n"))
	if err != nil {
		t.Fatal(err)
	}
	if f.MainErr != nil || f.Main == nil || f.Main.Name != "__main__" || len(f.Main.Body) != 2 {
		t.Fatalf("Main %+v, MainErr %v", f.Main, f.MainErr)
	}
	if p := f.Main.Body[0].Position(); p.Line != 9 || p.Col != 5 {
		t.Errorf("first statement at %d:%d, want 9:5", p.Line, p.Col)
	}
	if len(f.Funcs) != 1 || f.Funcs[0].Name != "k" {
		t.Errorf("the main block is not a function of the file: %d funcs", len(f.Funcs))
	}

	f, err = Parse("s.py", []byte(kernel+"if \"__main__\" == __name__:\n    d = {1: 2}\n    e = 3 +\n    f = 4\n"))
	if err != nil {
		t.Fatalf("an error in the main block stopped the kernels: %v", err)
	}
	if f.Main != nil || f.MainErr == nil || !strings.Contains(f.MainErr.Error(), "s.py:10:12:") {
		t.Fatalf("Main %v, MainErr %v: want a positioned error at 10:12", f.Main, f.MainErr)
	}

	_, err = Parse("s.py", []byte("def k(x):\n    return x +\n\n\nif __name__ == \"__main__\":\n    k(1)\n"))
	if err == nil || !strings.Contains(err.Error(), "s.py:2:") {
		t.Errorf("a kernel's syntax error with a good main block: %v", err)
	}
}

// TestParseProgramDefersHostErrors: ParseProgram keeps the errors of host
// code (defs without @ct.kernel, classes) apart, by name, so that the
// kernels of a program whose host code uses Python tilec lacks still
// parse; Parse reports them all; a kernel's own errors stay fatal.
func TestParseProgramDefersHostErrors(t *testing.T) {
	src := `import cuda.tile as ct


@ct.kernel
def k(x):
    ct.store(x, index=(0,), tile=ct.load(x, index=(0,), shape=(4,)))


class Fn(torch.autograd.Function):
    pass


@dataclass
class Point:
    x: int = 0


def host(x):
    f = {y: y for y in x}
    g = yield f
    try:
        return f(x)


def fft(n):
    return 2j * n
`
	if _, err := Parse("p.py", []byte(src)); err == nil {
		t.Fatal("Parse accepted a class, yield and try")
	}
	f, err := ParseProgram("p.py", []byte(src))
	if err != nil {
		t.Fatalf("ParseProgram: %v", err)
	}
	if len(f.Funcs) != 2 || f.Funcs[0].Name != "k" || f.Funcs[1].Name != "fft" {
		t.Errorf("functions: %d, want the kernel k and fft", len(f.Funcs))
	}
	// A class that parses is host code: its Deferred entry says so, for
	// a kernel that uses it; one with errors keeps them.
	var host *HostOnlyError
	if e := f.Deferred["Fn"]; !errors.As(e, &host) || host.Pos.Line != 9 || len(f.Classes) != 1 || f.Classes[0].Name != "Fn" {
		t.Errorf("Fn: %v, %d classes", e, len(f.Classes))
	}
	if e := f.Deferred["Point"]; e == nil || !strings.Contains(e.Error(), "p.py:13:1: class decorators are not supported") {
		t.Errorf("Point: %v", e)
	}
	if e := f.Deferred["host"]; e == nil || !strings.Contains(e.Error(), "p.py:20:9: 'yield'") || !strings.Contains(e.Error(), "p.py:21:5: 'try'") {
		t.Errorf("host: %v", e)
	}
	if _, ok := f.Deferred["fft"]; ok || len(f.Funcs) != 2 {
		t.Errorf("fft (an imaginary literal): deferred, or %d functions", len(f.Funcs))
	}
	bad := strings.Replace(src, "tile=ct.load(x, index=(0,), shape=(4,)))", "tile=)", 1)
	if _, err := ParseProgram("p.py", []byte(bad)); err == nil || !strings.Contains(err.Error(), "p.py:6:") {
		t.Errorf("a kernel's syntax error: %v", err)
	}
}
