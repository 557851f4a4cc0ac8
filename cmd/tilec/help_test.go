package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tilec/tilec/runtime/cuda"
)

// TestHelpExamplesRun runs every example of `tilec --help` and of each
// command's --help as printed, from a directory that has the repository's
// examples/ and testdata/ (files the examples write land there, not in the
// checkout). An example passes when it exits 0, or, for bench and tune in a
// build without CUDA, when it stops only because timing needs a GPU: its
// arguments were all accepted. plot's examples need bench's report and are
// left out.
func TestHelpExamplesRun(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, d := range []string{"examples", "testdata"} {
		if err := os.Symlink(filepath.Join(root, d), filepath.Join(dir, d)); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	t.Setenv("TILEC_CACHE_DIR", filepath.Join(dir, "cache"))

	examples := helpExamples(usage)
	for name, h := range commandHelps {
		if len(h.examples) < 2 || len(h.examples) > 3 {
			t.Errorf("tilec %s --help shows %d examples; show two or three", name, len(h.examples))
		}
		if name != "plot" {
			examples = append(examples, h.examples...)
		}
	}
	for _, ex := range examples {
		args, err := splitCommand(ex)
		if err != nil || len(args) < 2 || args[0] != "tilec" {
			t.Errorf("example %q: not a tilec command line (%v)", ex, err)
			continue
		}
		timed := args[1] == "bench" || args[1] == "tune"
		if timed && cuda.Available {
			continue // on a GPU they would time for minutes; gpu-check runs bench and tune
		}
		var stdout, stderr bytes.Buffer
		rc := runCommand(args[1:], &stdout, &stderr)
		needsGPU := timed && rc == 1 && strings.Contains(stderr.String(), "timing kernels needs a GPU")
		if rc != 0 && !needsGPU {
			t.Errorf("example %q: exit status %d\n%s", ex, rc, stderr.String())
		}
	}
}

// helpExamples returns the command lines under the "Examples" heading of a
// help text.
func helpExamples(help string) []string {
	_, after, ok := strings.Cut(help, "\nExamples")
	if !ok {
		return nil
	}
	var out []string
	for _, line := range strings.Split(after, "\n")[1:] {
		c, ok := strings.CutPrefix(line, "  ")
		if !ok || strings.TrimSpace(c) == "" {
			break
		}
		out = append(out, c)
	}
	return out
}

// splitCommand splits a command line as a shell would for the examples'
// needs: words apart at spaces, double quotes kept together and removed.
func splitCommand(line string) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord, quoted := false, false
	for _, r := range line {
		switch {
		case r == '"':
			quoted, inWord = !quoted, true
		case r == ' ' && !quoted:
			if inWord {
				words = append(words, w.String())
				w.Reset()
			}
			inWord = false
		default:
			w.WriteRune(r)
			inWord = true
		}
	}
	if quoted {
		return nil, os.ErrInvalid
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, nil
}
