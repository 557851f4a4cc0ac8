package lang

import (
	"regexp"
	"strings"
	"testing"
)

// Tabs in indentation follow Python 3: a block indented with tabs, or with
// tabs and spaces the same way on every line, parses; indentation whose
// meaning depends on the tab size (the same width with tabs as 8 columns
// but not as 1, or deeper in one measure only) is Python's TabError. The
// outcomes and lines are CPython 3.11's (compile() of each source).
func TestTabIndentation(t *testing.T) {
	cases := []struct {
		src  string
		want string // "" (parses) or the first error's line and message
	}{
		{"def f(x):\n\treturn x\n", ""},
		{"def f(x):\n\tif x:\n\t\treturn x\n\treturn 0\n", ""},
		{"def f(x):\n\tif x:\n\t        return x\n\treturn 0\n", ""},
		{"def f(x):\n  \tif x:\n  \t\treturn x\n  \treturn 0\n", ""},
		{"def f(x):\n\tif x:\n\t\ty = 1\n\f\treturn 0\n", ""},
		{"def f(x):\n\tif x:\n\t\ty = (1,\n  \t 2)\n\treturn 0\n", ""},
		{"def f(x):\n\ty = 1\n        return y\n", "t.py:3:9: inconsistent use of tabs and spaces in indentation"},
		{"def f(x):\n        y = 1\n\treturn y\n", "t.py:3:2: inconsistent use of tabs and spaces in indentation"},
		{"def f(x):\n\tif x:\n\t\ty = 1\n\t        return y\n", "t.py:4:10: inconsistent use of tabs and spaces in indentation"},
		{"def f(x):\n    if x:\n\ty = 1\n    return 0\n", "t.py:3:2: inconsistent use of tabs and spaces in indentation"},
		{"def f(x):\n\tif x:\n\t\ty = 1\n        return 0\n", "t.py:4:9: inconsistent use of tabs and spaces in indentation"},
		{"def f(x):\n\tif x:\n\t\ty = 1\n    return 0\n", "t.py:4:5: unindent does not match any outer indentation level"},
	}
	positions := regexp.MustCompile(`[0-9]+:[0-9]+`)
	for _, tc := range cases {
		f, err := Parse("t.py", []byte(tc.src))
		if tc.want != "" {
			if err == nil || !strings.HasPrefix(err.Error(), tc.want+"\n") {
				t.Errorf("%q: %v, want %q", tc.src, err, tc.want)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.src, err)
			continue
		}
		// The same program with each indentation written as spaces
		// (Python's expandtabs(8)) has the same AST but for columns.
		lines := strings.Split(tc.src, "\n")
		for i, l := range lines {
			rest := strings.TrimLeft(l, " \t\f")
			col := 0
			for _, c := range l[:len(l)-len(rest)] {
				switch c {
				case ' ':
					col++
				case '\t':
					col = col/8*8 + 8
				case '\f':
					col = 0
				}
			}
			lines[i] = strings.Repeat(" ", col) + rest
		}
		g, err := Parse("t.py", []byte(strings.Join(lines, "\n")))
		if err != nil {
			t.Fatalf("%q with spaces: %v", tc.src, err)
		}
		if got, want := positions.ReplaceAllString(FormatAST(f), ""), positions.ReplaceAllString(FormatAST(g), ""); got != want {
			t.Errorf("%q: AST\n%s\nwith spaces\n%s", tc.src, got, want)
		}
	}
}
