package host

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tilec/tilec/runtime"
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
		t.Run(filepath.Base(path), func(t *testing.T) {
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			launches := 0
			opts := Options{Stdout: &out, Launch: func(l *Launch) error {
				launches++
				k, err := l.Kernel.Specialize(l.Args)
				if err != nil {
					return err
				}
				// Every kernel the driver launches also lowers to sm_80 PTX.
				if _, err := runtime.CompilePTX(k.Func, "sm_80"); err != nil {
					t.Errorf("%s: %v", l.Name, err)
				}
				_, err = runtime.CPU{}.Launch(k, l.Args, runtime.LaunchOptions{Grid: l.Grid})
				return err
			}}
			if err := loadScript(t, path, src).RunMain(opts); err != nil {
				t.Fatal(err)
			}
			if launches == 0 || !strings.Contains(out.String(), "match") {
				t.Errorf("%d launches, printed %q", launches, out.String())
			}
		})
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
			if err == nil || !strings.Contains(err.Error(), "Tensor-likes are not close") {
				t.Errorf("the wrong kernel gave %v", err)
			}
		})
	}
}
