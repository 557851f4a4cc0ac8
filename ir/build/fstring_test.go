package build

import (
	"testing"

	"github.com/tilec/tilec/lang"
)

// TestFStringsLikePython formats compile-time f-strings with conversions
// (!r, !s, !a), nested replacement fields in format specs, string specs and
// float repr; want is what Python 3 prints for the same definitions
// (python3 -c 'w = 8; ...; print(repr(f"..."))').
func TestFStringsLikePython(t *testing.T) {
	const defs = `import cuda.tile as ct
w = 8
p = 3
n = 42
x = 3.14159
s = "tile"
q = "it's"
dq = 'say "hi"'
both = "it's \"x\""
u = "héllo"
tab = "a\tb\n"
big = 1e16
mid = 1e15
small = 0.00001
tiny = 0.0001
one = 1.0
neg = -2.5
t = True
`
	for _, tc := range []struct{ src, want string }{
		{`f"{x!r}"`, `3.14159`},
		{`f"{x!s}"`, `3.14159`},
		{`f"{x!a}"`, `3.14159`},
		{`f"{n!r}"`, `42`},
		{`f"{s!r}"`, `'tile'`},
		{`f"{s!s}"`, `tile`},
		{`f"{q!r}"`, `"it's"`},
		{`f"{dq!r}"`, `'say "hi"'`},
		{`f"{both!r}"`, `'it\'s "x"'`},
		{`f"{u!r}"`, `'héllo'`},
		{`f"{u!a}"`, `'h\xe9llo'`},
		{`f"{tab!r}"`, `'a\tb\n'`},
		{`f"{s!r:>10}"`, `    'tile'`},
		{`f"{s!r:*^11}"`, `**'tile'***`},
		{`f"{n!r:>6}"`, `    42`},
		{`f"{t!r}"`, `True`},
		{`f"{t!s:<7}|"`, `True   |`},
		{`f"{x:{w}.{p}f}"`, `   3.142`},
		{`f"{x:>{w}}"`, ` 3.14159`},
		{`f"{n:0{w}d}"`, `00000042`},
		{`f"{s:*<{w}}"`, `tile****`},
		{`f"{s:.{p}}"`, `til`},
		{`f"{s:^{w}}|"`, `  tile  |`},
		{`f"{neg:+{w}.{p}e}"`, `-2.500e+00`},
		{`f"[{x:{w}}]"`, `[ 3.14159]`},
		{`f"{x:.{p}}"`, `3.14`},
		{`f"{big}"`, `1e+16`},
		{`f"{mid}"`, `1000000000000000.0`},
		{`f"{small}"`, `1e-05`},
		{`f"{tiny}"`, `0.0001`},
		{`f"{one}"`, `1.0`},
		{`f"{neg!r}"`, `-2.5`},
		{`f"{s:{w}}|"`, `tile    |`},
		{`f"{s}{n!r}{x:{p}.1f}"`, `tile423.1`},
	} {
		src := defs + "S = " + tc.src + "\n"
		f, err := lang.Parse("f.py", []byte(src))
		if err != nil {
			t.Errorf("%s: %v", tc.src, err)
			continue
		}
		b := &builder{file: f, src: f.Src}
		b.collectModule()
		if len(b.errs) > 0 {
			t.Errorf("%s: %v", tc.src, b.errs)
			continue
		}
		if got, _ := b.globals["S"].(string); got != tc.want {
			t.Errorf("%s = %q, want %q", tc.src, got, tc.want)
		}
	}
}
