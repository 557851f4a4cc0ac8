package ir_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/tilec/tilec/ir"
)

// Every attribute the compiler reads or writes is named by one of ir's
// AttrKey constants, never a string literal (in.Attrs.Int("pending"), or
// a key given to lower's op maker: s.op(ir.OpAsyncWait, nil, nil,
// "pending", ...); opLiteralsLeft lists the files not converted yet), and
// every such constant names an attribute that some op declares, in its
// row of the op table or as a lowered attribute: a misspelt key would
// otherwise read as zero and pass silently. The kernel header's keys
// (kernel.go) are the facts', not an op's, and are exempt unless an op
// declares them too.
func TestAttrKeysAreDeclared(t *testing.T) {
	declared := map[string]bool{}
	for op := ir.Op(1); op < ir.NumOps; op++ {
		for _, s := range op.Info().Attrs {
			declared[s.Name] = true
		}
	}
	for _, la := range ir.LoweredAttrs {
		declared[la.Name] = true
	}

	// The constants.
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi fs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
	if err != nil {
		t.Fatal(err)
	}
	keys := 0
	for _, pkg := range pkgs {
		for name, file := range pkg.Files {
			for _, d := range file.Decls {
				g, ok := d.(*ast.GenDecl)
				if !ok || g.Tok != token.CONST {
					continue
				}
				for _, spec := range g.Specs {
					vs := spec.(*ast.ValueSpec)
					for i, id := range vs.Names {
						if !strings.HasPrefix(id.Name, "AttrKey") || i >= len(vs.Values) {
							continue
						}
						lit, ok := vs.Values[i].(*ast.BasicLit)
						if !ok {
							continue
						}
						keys++
						key, _ := strconv.Unquote(lit.Value)
						if !declared[key] && filepath.Base(name) != "kernel.go" {
							t.Errorf("%s: %s = %q is declared by no op (ir's op table or LoweredAttrs)", fset.Position(id.Pos()), id.Name, key)
						}
					}
				}
			}
		}
	}

	// The reads and writes.
	literal := regexp.MustCompile(`\b(?:[aA]ttrs\.(?:Int|Ints|Str|Bool|Get|Set|Has)|IntAttr|StrAttr|BoolAttr|AttrOf)\("([a-z_0-9]+)"`)
	byConst := regexp.MustCompile(`\b(?:[aA]ttrs\.(?:Int|Ints|Str|Bool|Get|Set|Has)|IntAttr|StrAttr|BoolAttr|AttrOf)\((?:ir\.)?AttrKey[A-Za-z]+`)
	// lower's op makers (seq.op(op, args, type, key, value, ...)) take
	// key-value pairs.
	opLiteral := regexp.MustCompile(`\.op\(ir\.Op[A-Za-z]+,[^\n]*?, "([a-z_0-9]+)", `)
	found := 0
	for _, dir := range []string{".", "build", "../lower", "../ptxgen", "../runtime"} {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && path != dir && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for _, m := range literal.FindAllSubmatch(src, -1) {
				t.Errorf("%s: attribute %q read or written by a string literal; use its AttrKey constant", path, m[1])
			}
			if !opLiteralsLeft[filepath.ToSlash(path)] {
				for _, m := range opLiteral.FindAllSubmatch(src, -1) {
					t.Errorf("%s: attribute %q given to an op maker by a string literal; use its AttrKey constant", path, m[1])
				}
			}
			found += len(byConst.FindAll(src, -1))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if keys < 40 || found < 100 {
		t.Fatalf("found %d AttrKey constants and %d attribute reads by them; the patterns no longer match the code", keys, found)
	}
}

// opLiteralsLeft are the files whose op makers still name attribute keys
// by string literals (none now).
var opLiteralsLeft = map[string]bool{}
