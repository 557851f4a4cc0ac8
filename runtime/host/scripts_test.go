package host

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tilec/tilec/runtime"
	"github.com/tilec/tilec/runtime/compile"
	"github.com/tilec/tilec/runtime/interp"
)

// The examples (examples/*.tile) are plain cuTile scripts: kernels, a host
// launch function, and a driver that makes inputs, launches, and checks
// the result against torch (the driver subset computes the reference in
// float64). Running a script on the interpreter is the test.

func exampleScripts(t *testing.T) []string {
	files, _ := filepath.Glob(filepath.Join("..", "..", "examples", "*.tile"))
	if len(files) < 10 {
		t.Fatalf("%d example scripts, want at least 10", len(files))
	}
	return files
}

func loadScript(t *testing.T, path string, src []byte) *Program {
	t.Helper()
	p := load(t, path, src)
	if !p.HasMain() {
		t.Fatalf("%s has no __main__ block", path)
	}
	return p
}

func TestExampleScripts(t *testing.T) {
	for _, path := range exampleScripts(t) {
		t.Run(filepath.Base(path), func(t *testing.T) { runCheckingScript(t, path) })
	}
}

// The spin-lock kernel of the GPU tests (rank-0 atomics: a lock, a
// ticket counter) runs and checks itself on the interpreter too.
func TestBlockLockScript(t *testing.T) {
	runCheckingScript(t, filepath.Join("..", "testdata", "kernels", "block_lock.py"))
}

// runCheckingScript runs a script whose driver checks its results and
// prints a line with "match", strictly, every kernel also lowered to sm_80.
func runCheckingScript(t *testing.T, path string) {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	launches := 0
	// Strict: the examples are plain cuTile 1.6, which the
	// builder checks (ir/build/strict.go) beside TestExamplesArePlainCuTile.
	opts := Options{Stdout: &out, Strict: true, Launch: func(l *Launch) error {
		launches++
		k, err := l.Kernel.Specialize(l.Args)
		if err != nil {
			return err
		}
		// Every kernel the driver launches also lowers to sm_80 PTX.
		if _, err := compile.PTX(k.Func, "sm_80"); err != nil {
			t.Errorf("%s: %v", l.Name, err)
		}
		_, err = interp.CPU{}.Launch(k, l.Args, runtime.LaunchOptions{Grid: l.Grid})
		return err
	}}
	if err := loadScript(t, path, src).RunMain(opts); err != nil {
		t.Fatal(err)
	}
	if launches == 0 || !strings.Contains(out.String(), "match") {
		t.Errorf("%d launches, printed %q", launches, out.String())
	}
}

// TestExampleScriptsCatchWrongKernels: a script's check fails when its
// kernel is wrong (one K tile skipped, the softmax's rescaling dropped,
// the causal mask off by one), so passing means something.
func TestExampleScriptsCatchWrongKernels(t *testing.T) {
	cases := []struct{ file, old, new string }{
		{"matmul.tile", "for k in range(num_tiles_k):", "for k in range(num_tiles_k - 1):"},
		{"softmax.tile", "l = l * ct.exp(m - m_new) +", "l = l +"},
		{"mha.tile", "cols[None, :] <= rows[:, None]", "cols[None, :] < rows[:, None] + 2"},
		{"layernorm.tile", "rstd = ct.rsqrt(sq / N + eps)", "rstd = ct.rsqrt(sq / (N - 1) + eps)"},
		{"reduction.tile", "ct.argmax(x, axis=1) + j * tn", "ct.argmax(x, axis=1)"},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			path := filepath.Join("..", "..", "examples", c.file)
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(src, []byte(c.old)) {
				t.Fatalf("%s no longer has %q", c.file, c.old)
			}
			src = bytes.Replace(src, []byte(c.old), []byte(c.new), 1)
			err = loadScript(t, path, src).RunMain(Options{})
			if err == nil || !strings.Contains(err.Error(), "Tensor-likes are not close") && !strings.Contains(err.Error(), "Tensor-likes are not equal") { // equal: an int result (rtol = atol = 0)
				t.Errorf("the wrong kernel gave %v", err)
			}
		})
	}
}

// extensionMethod matches the tile methods tilec has and cuTile 1.6 does not
// (t.sum(...), t.max(...), ...): a kernel using them would not run under cuTile.
var extensionMethod = regexp.MustCompile(`([\w\)\]])\.(sum|max|min|argmax|argmin|expand_dims|broadcast_to)\(`)

// TestExamplesArePlainCuTile: the kernels of examples/ (everything above a
// script's __main__ block) use none of tilec's extensions: no ct.Array
// annotations, no declared grids, no tile methods cuTile lacks, ct.arange
// with its dtype (required in cuTile 1.6), and infinities as math.inf
// rather than float("inf").
func TestExamplesArePlainCuTile(t *testing.T) {
	files := exampleScripts(t)
	more, _ := filepath.Glob(filepath.Join("..", "..", "examples", "cutile", "*.py"))
	files = append(append(files, more...), filepath.Join("..", "..", "examples", "seed_matmul.py"))
	arange := regexp.MustCompile(`ct\.arange\([^()]*\)`)
	for _, path := range files {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		kernels, _, _ := strings.Cut(string(src), "\nif __name__ ==")
		for i, line := range strings.Split(kernels, "\n") {
			code, _, _ := strings.Cut(line, "#")
			for _, m := range extensionMethod.FindAllStringSubmatch(code, -1) {
				if !strings.HasSuffix(strings.TrimSpace(code[:strings.Index(code, m[0])+1]), "ct") {
					t.Errorf("%s:%d: .%s( is a tilec extension, not a cuTile Tile method: %s", path, i+1, m[2], strings.TrimSpace(line))
				}
			}
			for _, m := range arange.FindAllString(code, -1) {
				if !strings.Contains(m, "dtype=") {
					t.Errorf("%s:%d: %s without dtype= (required in cuTile 1.6)", path, i+1, m)
				}
			}
			if strings.Contains(code, "ct.Array[") || strings.Contains(code, "@ct.kernel(grid=") || strings.Contains(code, "float(\"") {
				t.Errorf("%s:%d: a tilec extension: %s", path, i+1, strings.TrimSpace(line))
			}
		}
	}
}
