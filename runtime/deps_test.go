package runtime

import (
	"os/exec"
	"strings"
	"testing"
)

// The layering of runtime's packages (docs/architecture.md): runtime (the
// tensors, the launch API and the interpreter) builds without a GPU driver,
// and cgo stays in the CUDA backend's driver layer. Checked with and
// without the build tag cuda, since the backend's real files carry it.

const module = "github.com/tilec/tilec/"

// goList runs go list with the tags over pkgs, giving one line per package
// in format.
func goList(t *testing.T, tags, format string, pkgs ...string) []string {
	t.Helper()
	args := append([]string{"list", "-tags", tags, "-f", format}, pkgs...)
	out, err := exec.Command("go", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.Split(strings.TrimSpace(string(out)), "\n")
}

// TestRuntimeDependencies: runtime, the launch API, depends on none of the
// packages above it (the compile pipeline, the interpreter, the check, the
// kernel cache, the CUDA backend and its driver layer), nor on the builder,
// lower, ptxgen or cgo; the interpreter runs IR without the pipeline; the
// pipeline, the interpreter and the check, which every build runs, reach
// neither cgo nor the CUDA backend; in either build.
func TestRuntimeDependencies(t *testing.T) {
	cuda := []string{module + "runtime/cuda", module + "runtime/cudadrv", "runtime/cgo", "gorgonia.org/"}
	for _, tc := range []struct {
		pkg    string
		banned []string
	}{
		{"runtime", append([]string{module + "runtime/compile", module + "runtime/kcache", module + "runtime/interp",
			module + "runtime/check", module + "ir/build", module + "lower", module + "ptxgen"}, cuda...)},
		{"runtime/compile", append([]string{module + "runtime/interp", module + "runtime/check", module + "runtime/kcache"}, cuda...)},
		{"runtime/kcache", cuda},
		{"runtime/interp", append([]string{module + "runtime/compile", module + "runtime/kcache", module + "runtime/check",
			module + "lower", module + "ptxgen"}, cuda...)},
		{"runtime/check", append([]string{module + "runtime/kcache"}, cuda...)},
	} {
		for _, tags := range []string{"", "cuda"} {
			for _, dep := range goList(t, tags, "{{join .Deps \"\\n\"}}", module+tc.pkg) {
				for _, b := range tc.banned {
					if dep == b || strings.HasPrefix(dep, strings.TrimSuffix(b, "/")+"/") {
						t.Errorf("%s (tags %q) depends on %s", tc.pkg, tags, dep)
					}
				}
			}
		}
	}
}

// TestOnlyTheCUDABackendUsesCgo: of the module's packages only
// runtime/cudadrv has cgo files or imports gorgonia.org/cu, and only
// runtime/cuda (and cmd/tilec, runtime/bench, runtime/host through it)
// reach it.
func TestOnlyTheCUDABackendUsesCgo(t *testing.T) {
	for _, line := range goList(t, "cuda", "{{.ImportPath}} {{len .CgoFiles}} {{join .Imports \" \"}}", module+"...") {
		f := strings.Fields(line)
		pkg, imports := f[0], f[2:]
		if pkg == module+"runtime/cudadrv" {
			continue
		}
		if f[1] != "0" {
			t.Errorf("%s has cgo files; only runtime/cudadrv may", pkg)
		}
		for _, imp := range imports {
			switch {
			case imp == "C", strings.HasPrefix(imp, "gorgonia.org/cu"):
				t.Errorf("%s imports %s; only runtime/cudadrv may", pkg, imp)
			case imp == module+"runtime/cudadrv" && pkg != module+"runtime/cuda":
				t.Errorf("%s imports runtime/cudadrv; only the CUDA backend (runtime/cuda) may", pkg)
			}
		}
	}
}
