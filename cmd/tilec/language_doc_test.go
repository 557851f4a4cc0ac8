package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// docs/language.md opens with plain cuTile, as NVIDIA's samples write it
// (tilec's extended form comes after, as an addition), and that example
// runs as printed: the script's __main__ block, under --strict too (which
// refuses tilec's additions), and its host function. It is the doc's
// first ```py block; the first ```python block is the extended form's
// signature, which lang's TestParseReferenceExample parses.
func TestLanguageDocOpensWithPlainCuTile(t *testing.T) {
	doc, err := os.ReadFile("../../docs/language.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "```py\n")
	example, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatal("docs/language.md has no ```py example")
	}
	if strings.Contains(example, "ct.Array[") || strings.Contains(example, "@ct.kernel(grid=") {
		t.Errorf("docs/language.md's first example is tilec's extended form, not plain cuTile:\n%s", example)
	}
	path := filepath.Join(t.TempDir(), "vector_add.py")
	if err := os.WriteFile(path, []byte(example), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"run", path, "--strict"},
		{"run", path, "--entry", "vector_add", "--arg", "a=f32[N]", "--arg", "b=f32[N]"},
	} {
		var stdout, stderr bytes.Buffer
		if rc := runCommand(args, &stdout, &stderr); rc != 0 || !strings.Contains(stdout.String(), "launch   vector_add_kernel") {
			t.Errorf("tilec %s: exit %d\n%s%s", strings.Join(args, " "), rc, stdout.String(), stderr.String())
		}
	}
}

// The driver's torch subset in docs/language.md lists what the host layer
// does: the reductions it has by name (torch.max and torch.min over all
// elements, and their dim= forms returning (values, indices)), and F.gelu's
// erf and tanh forms (another approximate= is refused). Each case runs as
// the doc says.
func TestLanguageDocTorchSubset(t *testing.T) {
	doc, err := os.ReadFile("../../docs/language.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, listed := range []string{"amax amin max min argmax", "`F.silu/gelu`"} {
		if strings.Contains(string(doc), listed) {
			t.Errorf("docs/language.md lists %s, which the host subset refuses in part", listed)
		}
	}
	for expr, works := range map[string]bool{
		"x.max() + x.min() + torch.amax(x, dim=1) + x.amin(dim=0)": true,
		"torch.argmax(x, dim=1)":                                   true,
		"F.gelu(x)":                                                true,
		"torch.max(x) + torch.min(x)":                              true,
		"torch.min(x, dim=1)":                                      true,
		"x.max(dim=1).values + torch.max(x, 0)[0]":                 true,
		`F.gelu(x, approximate="tanh")`:                            true,
		`F.gelu(x, approximate="erf")`:                             false,
	} {
		src := "import cuda.tile as ct\nimport torch\nimport torch.nn.functional as F\n\nif __name__ == \"__main__\":\n" +
			"    x = torch.randn(4, 4)\n    r = " + expr + "\n    print(\"ok\")\n"
		path := filepath.Join(t.TempDir(), "s.py")
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		var stdout, stderr bytes.Buffer
		rc := runCommand([]string{"run", path}, &stdout, &stderr)
		if (rc == 0) != works {
			t.Errorf("%s: exit %d, want it to %s\n%s", expr, rc, map[bool]string{true: "work", false: "be refused"}[works], stderr.String())
		}
	}
}
