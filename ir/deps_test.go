package ir

import (
	"os/exec"
	"strings"
	"testing"
)

// TestIRDependencies keeps the layering of docs/architecture.md: the IR
// core imports neither the front end (lang) nor its own builder (ir/build),
// and neither it nor the builder imports the runtime, the backends or cgo.
func TestIRDependencies(t *testing.T) {
	backends := []string{
		"github.com/tilec/tilec/runtime",
		"github.com/tilec/tilec/lower",
		"github.com/tilec/tilec/ptxgen",
		"github.com/tilec/tilec/cmd",
		"runtime/cgo",
		"gorgonia.org/",
	}
	for _, tc := range []struct {
		pkg    string
		banned []string
	}{
		{".", append([]string{"github.com/tilec/tilec/lang", "github.com/tilec/tilec/ir/build"}, backends...)},
		{"./build", backends},
	} {
		out, err := exec.Command("go", "list", "-deps", tc.pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", tc.pkg, err, out)
		}
		for _, dep := range strings.Fields(string(out)) {
			for _, b := range tc.banned {
				if dep == b || strings.HasPrefix(dep, strings.TrimSuffix(b, "/")+"/") {
					t.Errorf("%s depends on %s", tc.pkg, dep)
				}
			}
		}
	}
}
