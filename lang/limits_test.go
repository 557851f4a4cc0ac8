package lang

import (
	"strconv"
	"strings"
	"testing"
)

// TestLimits checks the bounds that keep Parse's work small on hostile
// input: each gives an error, not a crash or a long run.
func TestLimits(t *testing.T) {
	for _, tc := range []struct {
		name, src, want string
	}{
		{"file size", strings.Repeat("#", MaxSourceSize+1), "f:1:1: file too large"},
		{"brackets", "def f():\n    x = " + strings.Repeat("(", 300) + "1" + strings.Repeat(")", 300) + "\n", "f:2:" + itoa(9+maxNesting) + ": expression nested too deeply"},
		{"unary", "def f():\n    x = " + strings.Repeat("-", 300) + "1\n", "f:2:" + itoa(9+maxNesting) + ": expression nested too deeply"},
		{"power", "def f():\n    x = 2" + strings.Repeat("**2", 300) + "\n", "expression nested too deeply"},
		{"chain", "def f():\n    x = 1" + strings.Repeat("+1", 1100) + "\n", "expression nested too deeply"},
		{"line", "def f():\n    x = 1" + strings.Repeat(",1", 3000) + "\n", "logical line too long"},
		{"indent", indented(120), "too many levels of indentation"},
		{"errors", strings.Repeat("$\n", 200), "f:20:1: invalid character '$' (U+0024)\n    $\n    ^\nand more than 30 more errors"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("f", []byte(tc.src))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %.300v, want %q", err, tc.want)
			}
			if l, ok := err.(ErrorList); ok && tc.name == "errors" {
				if last := l[len(l)-1]; last.Msg != tooManyErrors || last.Pos.Line != maxErrors+1 {
					t.Errorf("last error %v, want %q at line %d", last, tooManyErrors, maxErrors+1)
				}
			}
		})
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func indented(depth int) string {
	var b strings.Builder
	b.WriteString("def f(x):\n")
	for i := 1; i <= depth; i++ {
		b.WriteString(strings.Repeat(" ", i) + "if x:\n")
	}
	b.WriteString(strings.Repeat(" ", depth+1) + "pass\n")
	return b.String()
}
