package build

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/lang"
	"github.com/tilec/tilec/lang/golden"
)

// Build tests read txtar archives:
//
//	testdata/build/NAME.txtar    -- example -- (a file under testdata/kernels/) or -- in.tile --,
//	                             optional -- flags --, and -- ir -- (ir.PrintModule's output)
//	testdata/errors/NAME.txtar   -- in.tile --, optional -- flags --, and -- errors --
//	                             (one `file:line:col: message` per error, sorted)
//
// Flags are lines `-D name=value`, `-arg name=f16[M,K]` and `-kernel name`. `go test ./ir/build -update`
// rewrites the -- ir -- and -- errors -- sections (review the diffs).

// buildCase is one archive's input.
type buildCase struct {
	name string // file name for positions
	src  []byte
	opts Options
}

func readBuildCase(t *testing.T, a *golden.Archive) buildCase {
	t.Helper()
	ex, _ := a.Section("example")
	in, _ := a.Section("in.tile")
	flags, _ := a.Section("flags")
	var c buildCase
	switch {
	case ex != "":
		name := strings.TrimSpace(ex)
		src, err := os.ReadFile(filepath.Join("..", "..", "testdata", "kernels", name))
		if err != nil {
			t.Fatal(err)
		}
		c.name, c.src = name, src
	case in != "":
		c.name, c.src = "in.tile", []byte(in)
	default:
		t.Fatal("archive has neither -- example -- nor -- in.tile --")
	}
	opts, err := parseBuildFlags(flags)
	if err != nil {
		t.Fatal(err)
	}
	c.opts = opts
	return c
}

// parseBuildFlags reads `-D name=value` and `-kernel name` lines.
func parseBuildFlags(text string) (Options, error) {
	var opts Options
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "-D"):
			kv := strings.TrimSpace(strings.TrimPrefix(line, "-D"))
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				return opts, fmt.Errorf("bad flag %q", line)
			}
			if opts.Consts == nil {
				opts.Consts = map[string]string{}
			}
			opts.Consts[k] = v
		case strings.HasPrefix(line, "-arg "):
			k, v, ok := strings.Cut(strings.TrimSpace(strings.TrimPrefix(line, "-arg ")), "=")
			sig, err := ParseArgSig(v)
			if !ok || err != nil {
				return opts, fmt.Errorf("bad flag %q: %v", line, err)
			}
			if opts.Args == nil {
				opts.Args = map[string]ArgSig{}
			}
			opts.Args[k] = sig
		case strings.HasPrefix(line, "-kernel "):
			opts.Kernel = strings.TrimSpace(strings.TrimPrefix(line, "-kernel "))
		default:
			return opts, fmt.Errorf("bad flag %q", line)
		}
	}
	return opts, nil
}

// compile parses and builds a source file.
func compile(name string, src []byte, opts Options) (*ir.Module, error) {
	f, err := lang.Parse(name, src)
	if err != nil {
		return nil, AfterParseErrors(f, err, opts)
	}
	return File(f, opts)
}

// errorLines renders an error list as `file:line:col: message` lines.
func errorLines(err error) string {
	var list lang.ErrorList
	if !errors.As(err, &list) {
		return "not an ErrorList: " + err.Error() + "\n"
	}
	var b strings.Builder
	for _, e := range list {
		fmt.Fprintf(&b, "%s: %s\n", e.Pos, e.Msg)
	}
	return b.String()
}

func TestBuildGoldens(t *testing.T) {
	golden.Run(t, filepath.Join("testdata", "build"), func(t *testing.T, a *golden.Archive) {
		c := readBuildCase(t, a)
		m, err := compile(c.name, c.src, c.opts)
		if err != nil {
			t.Fatalf("build failed:\n%v", err)
		}
		got := ir.PrintModule(m)
		a.Check(t, "ir", got)
		// The printed IR parses back to the same text.
		m2, err := ir.Parse(got)
		if err != nil {
			t.Fatalf("Parse(Print(build)): %v", err)
		}
		if diff := cmp.Diff(got, ir.PrintModule(m2)); diff != "" {
			t.Errorf("Print(Parse(Print(build))) differs:\n%s", diff)
		}
	})
}

// TestBuildExamples checks that every example has a golden archive (or,
// with -update, creates one).
func TestBuildExamples(t *testing.T) {
	examples, err := filepath.Glob(filepath.Join("..", "..", "testdata", "kernels", "*.tile"))
	if err != nil {
		t.Fatal(err)
	}
	if len(examples) < 10 {
		t.Errorf("%d examples, want at least 10", len(examples))
	}
	for _, ex := range examples {
		base := filepath.Base(ex)
		src, err := os.ReadFile(ex)
		if err != nil {
			t.Fatal(err)
		}
		m, err := compile(base, src, Options{})
		if err != nil {
			t.Errorf("%s:\n%v", base, err)
			continue
		}
		path := filepath.Join("testdata", "build", strings.TrimSuffix(base, ".tile")+".txtar")
		if _, err := os.Stat(path); err == nil {
			continue
		}
		if !golden.Update() {
			t.Errorf("%s has no golden archive %s (run go test ./ir/build -update)", base, path)
			continue
		}
		a := golden.Read(t, path)
		a.Comment = []byte("Golden IR of testdata/kernels/" + base + ".\n")
		a.Check(t, "example", base+"\n")
		a.Check(t, "ir", ir.PrintModule(m))
	}
}

func TestBuildErrors(t *testing.T) {
	dir := filepath.Join("testdata", "errors")
	if n := len(golden.List(t, dir)); n < 30 {
		t.Errorf("%d error cases, want at least 30", n)
	}
	golden.Run(t, dir, func(t *testing.T, a *golden.Archive) {
		c := readBuildCase(t, a)
		_, err := compile(c.name, c.src, c.opts)
		if err == nil {
			t.Fatal("built without errors")
		}
		a.Check(t, "errors", errorLines(err))
		// Every error quotes its line with a caret.
		var list lang.ErrorList
		errors.As(err, &list)
		for _, e := range list {
			if !strings.Contains(e.Error(), "^") {
				t.Errorf("error without caret: %q", e.Error())
			}
		}
	})
}

// TestBuildErrorsSorted checks that errors come sorted by position.
func TestBuildErrorsSorted(t *testing.T) {
	src := `import cuda.tile as ct

@ct.kernel
def k(A: ct.Array[ct.float32, (N,)]):
    x = undefined_b
    y = ct.load(A, index=(0,), shape=(100,))
    z = undefined_a
`
	_, err := compile("s.tile", []byte(src), Options{})
	var list lang.ErrorList
	if !errors.As(err, &list) || len(list) != 3 {
		t.Fatalf("want 3 errors, got %v", err)
	}
	if !sort.SliceIsSorted(list, func(i, j int) bool { return list[i].Pos.Line < list[j].Pos.Line }) {
		t.Errorf("errors not sorted:\n%v", err)
	}
}

// TestBuildConstOverrides covers -D parsing per declared kind.
func TestBuildConstOverrides(t *testing.T) {
	src := `import cuda.tile as ct

@ct.kernel
def k(A: ct.Array[T, (N,)], T: ct.Constant[ct.DType] = ct.float32, n: ct.Constant[int] = 64,
      f: ct.Constant[float] = 1.0, b: ct.Constant[bool] = False):
    ct.store(A, index=(0,), tile=ct.full((n,), f, dtype=T))
`
	for _, tc := range []struct {
		consts map[string]string
		want   []ir.Const
	}{
		{nil, []ir.Const{{Name: "T", Value: ir.F32}, {Name: "n", Value: int64(64)}, {Name: "f", Value: 1.0}, {Name: "b", Value: false}}},
		{map[string]string{"T": "f16", "n": "0x20", "f": "-2.5", "b": "True"},
			[]ir.Const{{Name: "T", Value: ir.F16}, {Name: "n", Value: int64(32)}, {Name: "f", Value: -2.5}, {Name: "b", Value: true}}},
		{map[string]string{"T": "bfloat16", "b": "false", "f": "3"},
			[]ir.Const{{Name: "T", Value: ir.BF16}, {Name: "n", Value: int64(64)}, {Name: "f", Value: 3.0}, {Name: "b", Value: false}}},
	} {
		m, err := compile("k.tile", []byte(src), Options{Consts: tc.consts})
		if err != nil {
			t.Fatalf("%v: %v", tc.consts, err)
		}
		if diff := cmp.Diff(tc.want, m.Funcs[0].Consts); diff != "" {
			t.Errorf("%v: consts differ:\n%s", tc.consts, diff)
		}
	}
}

// TestBuildKernelSelection builds one kernel of a file by name.
func TestBuildKernelSelection(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "testdata", "kernels", "reduction.tile"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := compile("reduction.tile", src, Options{Kernel: "col_max"})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Funcs) != 1 || m.Funcs[0].Name != "col_max" {
		t.Errorf("got %d kernels", len(m.Funcs))
	}
	if _, err := compile("reduction.tile", src, Options{Kernel: "nope"}); err == nil {
		t.Error("unknown kernel: no error")
	}
}

// TestBuildNeverPanicsOnHandBuiltAST feeds ASTs the parser would not make.
func TestBuildNeverPanicsOnHandBuiltAST(t *testing.T) {
	pos := lang.Pos{File: "h.tile", Line: 1, Col: 1}
	file := &lang.File{
		Src: &lang.Source{Name: "h.tile", Text: "x\n"},
		Funcs: []*lang.FuncDef{{
			Pos: pos, NamePos: pos, Name: "k",
			Decorators: []lang.Expr{&lang.Attr{Pos: pos, X: &lang.Name{Pos: pos, Name: "ct"}, Name: "kernel"}},
			Body: []lang.Stmt{
				&lang.ExprStmt{Pos: pos, X: &lang.Tuple{Pos: pos}},
				&lang.AssignStmt{Pos: pos, Targets: []lang.Expr{&lang.IntLit{Pos: pos, Value: 1}}, Value: &lang.IntLit{Pos: pos}},
				&lang.ForStmt{Pos: pos, Target: &lang.Name{Pos: pos, Name: "i"}, Iter: &lang.Name{Pos: pos, Name: "range"}},
			},
		}},
	}
	if _, err := File(file, Options{}); err == nil {
		t.Error("no error")
	}
}

func BenchmarkBuildMatmul(b *testing.B) {
	src, err := os.ReadFile(filepath.Join("..", "..", "testdata", "kernels", "matmul.tile"))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := compile("matmul.tile", src, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBuildMatmulASTToIR is the builder alone, from a parsed file.
func BenchmarkBuildMatmulASTToIR(b *testing.B) {
	src, err := os.ReadFile(filepath.Join("..", "..", "testdata", "kernels", "matmul.tile"))
	if err != nil {
		b.Fatal(err)
	}
	file, err := lang.Parse("matmul.tile", src)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := File(file, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

func FuzzBuild(f *testing.F) {
	examples, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "kernels", "*.tile"))
	for _, ex := range examples {
		if src, err := os.ReadFile(ex); err == nil {
			f.Add(string(src))
		}
	}
	cases, _ := filepath.Glob(filepath.Join("testdata", "errors", "*.txtar"))
	for _, path := range cases {
		if a, err := txtar.ParseFile(path); err == nil {
			for _, file := range a.Files {
				if file.Name == "in.tile" {
					f.Add(string(file.Data))
				}
			}
		}
	}
	f.Fuzz(func(t *testing.T, src string) {
		file, err := lang.Parse("fuzz.tile", []byte(src))
		if err != nil {
			return
		}
		m, err := File(file, Options{})
		if err != nil {
			var list lang.ErrorList
			if !errors.As(err, &list) || len(list) == 0 {
				t.Fatalf("error is not a non-empty ErrorList: %v", err)
			}
			for _, e := range list {
				if strings.Contains(e.Msg, "internal compiler error") {
					t.Fatalf("internal error:\n%v", e)
				}
			}
			return
		}
		for _, fn := range m.Funcs {
			if err := ir.Verify(fn); err != nil {
				t.Fatalf("built IR fails verification: %v", err)
			}
		}
		// Strict mode adds errors, never a panic or a different IR.
		if _, err := File(file, Options{Strict: true}); err != nil {
			var list lang.ErrorList
			if !errors.As(err, &list) || len(list) == 0 {
				t.Fatalf("strict: error is not a non-empty ErrorList: %v", err)
			}
		}
	})
}
