package ir_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tilec/tilec/ir"
)

// Every attribute the compiler reads or writes by a string literal
// (in.Attrs.Int("pending"), ...) is one that some op declares, in its
// row of the op table or as a lowered attribute: a misspelt key would
// otherwise read as zero and pass silently. Keys of kernel headers and
// of non-op attribute maps are listed where they are legitimately not an
// op's.
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
	read := regexp.MustCompile(`\bAttrs\.(?:Int|Str|Bool|Get|Set|Has)\("([a-z_0-9]+)"`)
	found := 0
	for _, dir := range []string{".", "build", "../lower", "../ptxgen", "../runtime"} {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for _, m := range read.FindAllSubmatch(src, -1) {
				found++
				if key := string(m[1]); !declared[key] {
					t.Errorf("%s: attribute %q is declared by no op (ir's op table or LoweredAttrs)", path, key)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if found < 50 {
		t.Fatalf("found %d attribute reads by string; the pattern no longer matches the code", found)
	}
}
