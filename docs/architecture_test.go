package docs

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/tilec/tilec/"

// pictureHelpers are the packages the picture of architecture.md leaves
// out: test harnesses and fakes, and a generator run by hand.
var pictureHelpers = map[string]bool{
	"docs": true, "lang/golden": true, "runtime/bench/benchtest": true,
	"runtime/internal/irtest": true, "ptxgen/internal/writeptx": true,
}

// TestArchitecturePicture keeps docs/architecture.md's picture of the
// packages true: it lists every package but the helpers, each once, and
// each imports only packages below it, in the default build and in the
// cuda build.
func TestArchitecturePicture(t *testing.T) {
	src, err := os.ReadFile("architecture.md") // the test runs in docs/
	if err != nil {
		t.Fatal(err)
	}
	text := string(src)
	i := strings.Index(text, "Each package imports only packages below it in this picture")
	if i < 0 {
		t.Fatal("architecture.md: the picture's heading line is gone")
	}
	start := strings.Index(text[i:], "```\n")
	if start < 0 {
		t.Fatal("architecture.md: no code block after the picture's heading line")
	}
	block := text[i+start+4:]
	block = block[:strings.Index(block, "```")]
	level := map[string]int{} // package -> line in the picture (0 at the top)
	for n, line := range strings.Split(strings.TrimSpace(block), "\n") {
		pkg := strings.Fields(line)[0]
		if _, dup := level[pkg]; dup {
			t.Errorf("the picture lists %s twice", pkg)
		}
		level[pkg] = n
	}
	for _, tags := range []string{"", "cuda"} {
		cmd := exec.Command("go", "list", "-tags", tags, "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./...")
		cmd.Dir = ".."
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go list -tags %q: %v\n%s", tags, err, out)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			f := strings.Fields(line)
			pkg := strings.TrimPrefix(f[0], module)
			if pictureHelpers[pkg] {
				continue
			}
			at, ok := level[pkg]
			if !ok {
				t.Errorf("package %s is not in architecture.md's picture", pkg)
				continue
			}
			for _, imp := range f[1:] {
				dep, ok := strings.CutPrefix(imp, module)
				if !ok {
					continue
				}
				if dl, ok := level[dep]; !ok || dl <= at {
					t.Errorf("-tags %q: %s imports %s, which the picture does not put below it", tags, pkg, dep)
				}
			}
		}
	}
	if len(level) < 15 {
		t.Errorf("the picture lists %d packages", len(level))
	}
}
