package host

import (
	"strings"
	"testing"
)

// printed runs the driver prelude plus lines as a script and returns what
// it printed.
func printed(t *testing.T, lines string) (string, error) {
	t.Helper()
	var body strings.Builder
	for _, l := range strings.Split(strings.TrimSpace(lines), "\n") {
		body.WriteString("    " + strings.TrimRight(l, " \t") + "\n")
	}
	var out strings.Builder
	err := load(t, "num.py", []byte("import math\n"+driverPrelude+body.String())).RunMain(Options{Stdout: &out})
	return out.String(), err
}

// numericCase is a host expression and what Python prints for it, or the
// error Python raises (want starting with "error: ").
type numericCase struct{ expr, want string }

func expectPrinted(t *testing.T, cases []numericCase) {
	t.Helper()
	for _, c := range cases {
		got, err := printed(t, "print("+c.expr+")")
		if msg, isErr := strings.CutPrefix(c.want, "error: "); isErr {
			if err == nil || !strings.Contains(err.Error(), msg) || !strings.Contains(err.Error(), "num.py:8:") {
				t.Errorf("%s: printed %q, err %v; want an error at num.py:8 containing %q", c.expr, got, err, msg)
			}
			continue
		}
		if err != nil || got != c.want+"\n" {
			t.Errorf("%s: printed %q, err %v; want %q", c.expr, got, err, c.want)
		}
	}
}

// TestScalarNumericsArePython: host code's numbers follow CPython: the
// sign of a zero remainder, float floor division derived from fmod,
// exact comparisons of ints with floats, and errors where Python raises.
func TestScalarNumericsArePython(t *testing.T) {
	expectPrinted(t, []numericCase{
		{"-3.0 % 0.5", "0.0"},
		{"3.0 % -0.5", "-0.0"},
		{"5 % float('inf')", "5.0"},
		{"-5 % float('inf')", "inf"},
		{"-5.0 // float('inf')", "-1.0"},
		{"5.0 // float('inf')", "0.0"},
		{"-7 // 2, -7 % 2, 7 % -2", "-4 1 -1"},
		{"(-2**62 * 2) % -1", "0"},
		{"2**53 + 1 == 2.0**53", "False"},
		{"2**53 + 1 > 2.0**53", "True"},
		{"(2**62 - 1) + 2**62 < 2.0**63", "True"},
		{"float('nan') != float('nan'), 1 < float('nan'), float('nan') == 1", "True False False"},
		{"-1 < float('-inf'), 3 == 3.0, 3 < 3.5, -3 > -3.5", "False True True True"},
		{"math.exp(1000)", "error: OverflowError: math.exp(1000.0): math range error"},
		{"math.exp(float('inf')), math.exp(-1000)", "inf 0.0"},
		{"10.0 ** 400", "error: OverflowError"},
		{"7 // 0", "error: ZeroDivisionError: integer division or modulo by zero"},
		{"7 % 0", "error: ZeroDivisionError"},
		{"7.0 % 0", "error: ZeroDivisionError: float modulo by zero"},
		{"(-2**62 * 2) // -1", "error: integer overflow"},
		{"1 << 63", "error: integer overflow"},
		{"-8 >> 100", "-1"},
	})
}
