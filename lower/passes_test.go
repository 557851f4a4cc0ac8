package lower_test

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/lang/golden"
	"github.com/tilec/tilec/lower"
)

// TestPasses runs each pass alone on IR text: every archive under
// testdata/passes/<pass>/ has an `in` section (IR text as ir.Print prints
// it), an optional `target` section (a target name; sm_80 if absent), an
// optional `tuning` section (lines Field=value setting the target's
// lower.Tuning fields, bools and ints), and
// either an `out` section (the IR after that one pass, printed) or an
// `error` section (a substring of the pass's error). The input must verify,
// and so must the output. `go test ./lower -update` rewrites `out`.
//
// A case's `in` is usually `tilec compile FILE --emit lowered --dump-after
// PREV` of the pass before, without its `// after PREV` line.
func TestPasses(t *testing.T) {
	root := filepath.Join("testdata", "passes")
	dirs, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if !slices.Contains(lower.PassNames(), d.Name()) {
			t.Errorf("testdata/passes/%s names no pass (passes: %v)", d.Name(), lower.PassNames())
		}
	}
	for _, name := range lower.PassNames() {
		t.Run(name, func(t *testing.T) {
			pass := lower.PassByName(name)
			golden.Run(t, filepath.Join(root, name), func(t *testing.T, a *golden.Archive) {
				tname := "sm_80"
				if s, ok := a.Section("target"); ok {
					tname = strings.TrimSpace(s)
				}
				target, err := lower.LookupTarget(tname)
				if err != nil {
					t.Fatal(err)
				}
				if s, ok := a.Section("tuning"); ok {
					setTuning(t, &target.Tuning, s)
				}
				f, err := ir.ParseFunc(a.MustSection(t, "in"))
				if err != nil {
					t.Fatalf("Parse(in): %v", err)
				}
				if err := ir.Verify(f); err != nil {
					t.Fatalf("Verify(in): %v", err)
				}
				vs, err := pass.Apply(f, target)
				if want, ok := a.Section("error"); ok {
					if _, also := a.Section("out"); also {
						t.Fatal("archive has both -- out -- and -- error --")
					}
					want = strings.TrimSpace(want)
					if err == nil || !strings.Contains(err.Error(), want) {
						t.Errorf("%s: err = %v, want one containing %q", name, err, want)
					}
					return
				}
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				// One output per variant (the variants pass makes two), each
				// after a "// variant NAME" line when it has a name.
				var got strings.Builder
				for _, v := range vs {
					v.Func.Renumber()
					if err := ir.Verify(v.Func); err != nil {
						t.Fatalf("Verify after %s: %v\n%s", name, err, ir.Print(v.Func))
					}
					text := ir.Print(v.Func)
					// The output is itself IR text that parses back unchanged.
					g, err := ir.ParseFunc(text)
					if err != nil {
						t.Fatalf("Parse(out): %v", err)
					}
					if again := ir.Print(g); again != text {
						t.Errorf("Print(Parse(out)) differs from out")
					}
					if v.Name != "" {
						got.WriteString("// variant " + v.Name + "\n")
					}
					got.WriteString(text)
				}
				a.Check(t, "out", got.String())
			})
		})
	}
}

// setTuning sets the fields of tu named in text's Field=value lines.
func setTuning(t *testing.T, tu *lower.Tuning, text string) {
	t.Helper()
	v := reflect.ValueOf(tu).Elem()
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		name, val, ok := strings.Cut(strings.TrimSpace(line), "=")
		f := v.FieldByName(name)
		if !ok || !f.IsValid() {
			t.Fatalf("tuning line %q: want Field=value with a lower.Tuning field", line)
		}
		switch f.Kind() {
		case reflect.Bool:
			b, err := strconv.ParseBool(val)
			if err != nil {
				t.Fatalf("tuning line %q: %v", line, err)
			}
			f.SetBool(b)
		case reflect.Int:
			n, err := strconv.Atoi(val)
			if err != nil {
				t.Fatalf("tuning line %q: %v", line, err)
			}
			f.SetInt(int64(n))
		default:
			t.Fatalf("tuning line %q: field of kind %s", line, f.Kind())
		}
	}
}
