package build

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/lang"
)

// A bad -D value poisons its constant, and what depends on it (arrays of
// that dtype, their symbolic dims in the grid and the body, tiles of that
// shape carried through loops) stays silent: for every constant of every
// example kernel, a value of the wrong kind, and an int tile size that is
// not a power of two, give one error per kernel, the cause, never the
// follow-ons (`-D T=f99` printed two grid errors before its own).
func TestBadConstantIsTheOnlyError(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "kernels", "*.tile"))
	if err != nil || len(files) < 10 {
		t.Fatalf("%d example kernels: %v", len(files), err)
	}
	tried := 0
	for _, path := range files {
		base := filepath.Base(path)
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		m, err := compile(base, src, Options{})
		if err != nil {
			t.Fatalf("%s: %v", base, err)
		}
		for _, f := range m.Funcs {
			for _, c := range f.Consts {
				var bad []string
				switch c.Value.(type) {
				case ir.DType:
					bad = []string{"f99"}
				case int64:
					bad = []string{"abc", "48"}
				case float64:
					bad = []string{"small"}
				case bool:
					bad = []string{"maybe"}
				}
				for _, v := range bad {
					tried++
					_, err := compile(base, src, Options{Kernel: f.Name, Consts: map[string]string{c.Name: v}})
					if err == nil {
						continue // an int that is not a tile size (a group size) may take 48
					}
					var list lang.ErrorList
					if !errors.As(err, &list) {
						t.Fatalf("%s -D %s=%s: %v is not an error list", base, c.Name, v, err)
					}
					want := fmt.Sprintf("-D %s=%s: ", c.Name, v)
					if len(list) != 1 || v != "48" && !strings.Contains(list[0].Msg, want) {
						t.Errorf("%s kernel %s -D %s=%s: %d errors, want its one error (%q):\n%v", base, f.Name, c.Name, v, len(list), want, err)
					}
				}
			}
		}
	}
	if tried < 30 {
		t.Errorf("%d bad values tried, want at least 30", tried)
	}
}
