package main

import (
	"os"
	"strings"
	"testing"
)

// quickstartEnd is the heading after README's quickstart: what comes
// before it (the two commands, install, a first kernel and the three ways
// to run it) is what a newcomer types first.
const quickstartEnd = "## The Go API"

// TestQuickstartIsREADMEs keeps testdata/script/quickstart.txtar walking
// README's quickstart exactly as printed: every command of it is an exec
// line of the script (`go run ./cmd/tilec` being the script's tilec), or is
// named in a "# not run: " line that says why a test cannot run it. A
// command edited in README without the script, or the reverse, fails here.
func TestQuickstartIsREADMEs(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	script, err := os.ReadFile("testdata/script/quickstart.txtar")
	if err != nil {
		t.Fatal(err)
	}
	cmds := quickstartCommands(string(readme))
	if len(cmds) < 4 {
		t.Fatalf("README's quickstart (before %q) has %d commands; the test no longer finds them", quickstartEnd, len(cmds))
	}
	execs, notRun := map[string]bool{}, map[string]bool{}
	for _, line := range strings.Split(string(script), "\n") {
		line = strings.TrimSpace(line)
		if c, ok := strings.CutPrefix(line, "# not run: "); ok {
			c, _, _ = strings.Cut(c, "  (")
			notRun[c] = true
		} else if c, ok := strings.CutPrefix(strings.TrimPrefix(line, "! "), "exec "); ok {
			execs[c] = true
		}
	}
	inREADME := map[string]bool{}
	for _, c := range cmds {
		run := strings.Replace(c, "go run ./cmd/tilec ", "tilec ", 1)
		inREADME[run], inREADME[c] = true, true
		if !execs[run] && !notRun[c] {
			t.Errorf("README's quickstart command is not in testdata/script/quickstart.txtar (as exec %s, or a \"# not run: \" line):\n\t%s", run, c)
		}
	}
	for c := range execs {
		if !inREADME[c] {
			t.Errorf("quickstart.txtar runs a command README's quickstart does not print:\n\t%s", c)
		}
	}
	for c := range notRun {
		if !inREADME[c] {
			t.Errorf("quickstart.txtar names a command README's quickstart does not print:\n\t%s", c)
		}
	}
}

// quickstartCommands returns the commands README prints before
// quickstartEnd: the lines of indented blocks, and the "$ " lines of fenced
// ones (the rest of a fenced block is output, or source).
func quickstartCommands(readme string) []string {
	before, _, _ := strings.Cut(readme, "\n"+quickstartEnd)
	var cmds []string
	fenced, prevBlank, prevCode := false, true, false
	for _, line := range strings.Split(before, "\n") {
		blank := strings.TrimSpace(line) == ""
		trimmed := strings.TrimSpace(line)
		code := false
		switch {
		case strings.HasPrefix(trimmed, "```"):
			fenced = !fenced
		case fenced:
			if c, ok := strings.CutPrefix(trimmed, "$ "); ok {
				cmds = append(cmds, c)
			}
		case strings.HasPrefix(line, "    ") && !blank && (prevBlank || prevCode):
			cmds = append(cmds, trimmed)
			code = true
		}
		prevBlank, prevCode = blank, code
	}
	return cmds
}
