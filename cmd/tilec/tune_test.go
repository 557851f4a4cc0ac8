package main

import (
	"bytes"
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/runtime/bench/benchtest"
)

// stagesMS times a kernel by its stages hint: 3 is fastest, the default
// (no hint) slowest.
func stagesMS(f *ir.Func) float64 {
	for _, h := range f.Hints {
		if h.Name == "stages" {
			return 0.1 * float64(1+h.Value.(int64)%3)
		}
	}
	return 0.5
}

// tilec tune over the ring depth on the fake device (sm_80: the shared
// memory holds 6 stages of the 128x256x32 tiles, so stages=8 is pruned),
// then tilec bench at a shape of the same class takes the cached winner's
// knob and says so.
func TestTuneKnobsRoundTrip(t *testing.T) {
	t.Setenv("TILEC_CACHE_DIR", t.TempDir())
	t.Setenv("TILEC_CACHE", "")
	withFakeDevice(t, &benchtest.Device{MS: stagesMS, TargetName: "sm_80"})
	var stdout, stderr bytes.Buffer
	err := cmdTune([]string{"../../testdata/kernels/matmul.tile", "-D", "tk=32", "--space", "stages=2,3,8",
		"--shape", "M=128,N=256,K=64", "--warmup", "1", "--iters", "5"}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("%v\n%s%s", err, stdout.String(), stderr.String())
	}
	out := stdout.String()
	for _, want := range []string{
		"space    stages=2,3,8 (--space): 3 candidates\n",
		"searched 4 candidates: 1 pruned at compile time, 0 failed, 0 wrong, 3 verified and timed",
		"stages=8: the shared-memory ring of this load (tile<128x32xf16>) holds only 6 stages",
		"winner   stages=3: 0.1000 ms, verified",
		"; 5.00x the defaults (stages=default (defaults): 0.5000 ms)",
		"cached   ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("tune output lacks %q:\n%s", want, out)
		}
	}

	stdout.Reset()
	err = cmdBench([]string{"../../testdata/kernels/matmul.tile", "-D", "tk=32", "--shape", "M=100,N=200,K=64",
		"--warmup", "1", "--iters", "20"}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if out := stdout.String(); !strings.Contains(out, "tuned constants from cache: stages=3 (5.00x the defaults at K=64,M=128,N=256)") ||
		!strings.Contains(out, " 0.1000 ") {
		t.Errorf("bench did not use the cached stages:\n%s", out)
	}
	stdout.Reset()
	if err := cmdBench([]string{"../../testdata/kernels/matmul.tile", "-D", "tk=32", "--shape", "M=100,N=200,K=64",
		"--warmup", "1", "--iters", "20", "--tuned=false"}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	if out := stdout.String(); strings.Contains(out, "tuned") || !strings.Contains(out, " 0.5000 ") {
		t.Errorf("--tuned=false:\n%s", out)
	}
}

// tilec tune shows the candidate being timed and an ETA on a terminal's
// stderr, one line rewritten in place and erased before each candidate's
// result line and at the end; elsewhere only the result lines.
func TestTuneProgress(t *testing.T) {
	t.Setenv("TILEC_CACHE_DIR", t.TempDir())
	t.Setenv("TILEC_CACHE", "")
	withFakeDevice(t, &benchtest.Device{MS: stagesMS, TargetName: "sm_80"})
	args := []string{"../../testdata/kernels/matmul.tile", "-D", "tk=32", "--space", "stages=2,3",
		"--shape", "M=128,N=256,K=64", "--warmup", "1", "--iters", "5", "--save=false"}
	var stdout, stderr bytes.Buffer
	if err := cmdTune(args, &stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if strings.Contains(stderr.String(), "tune: candidate") || strings.Contains(stderr.String(), "tune: compiled") || strings.Contains(stderr.String(), "\r") {
		t.Errorf("progress on a stderr that is not a terminal:\n%q", stderr.String())
	}
	if !strings.Contains(stderr.String(), "tune: [2/3] stages=3: 0.1000 ms") {
		t.Errorf("no result line per candidate:\n%q", stderr.String())
	}

	saved := isTerminal
	isTerminal = func(w io.Writer) bool { return w == &stderr }
	t.Cleanup(func() { isTerminal = saved })
	stdout.Reset()
	stderr.Reset()
	if err := cmdTune(args, &stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	got := stderr.String()
	// The parallel compiles (two here; the defaults are compiled with
	// the timing) show their progress too, erased before the summary.
	compiledLine := regexp.MustCompile(`^\r\033\[Ktune: compiled 1 of 2 \(stages=[23]\), [0-9.]+m?s elapsed, ETA at least [0-9.]+[mµn]?s\r\033\[Ktune: matmul: 3 candidates`)
	if !compiledLine.MatchString(got) {
		t.Errorf("no compile progress with an ETA, erased before the summary:\n%q", got)
	}
	for _, want := range []string{
		"\r\033[Ktune: candidate 1 of 3 (stages=2), ",
		"elapsed\r\033[Ktune: [1/3] stages=2: 0.3000 ms",
		"\r\033[Ktune: candidate 3 of 3 (stages=default (defaults)), ",
		" elapsed, ETA at least ",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("stderr lacks %q:\n%q", want, got)
		}
	}
	last := got[strings.LastIndex(got, "\r\033[K"):]
	if strings.Contains(got, "candidate 1 of 3 (stages=2), 0s elapsed, ETA") || !strings.HasPrefix(last, "\r\033[Ktune: [3/3]") {
		t.Errorf("an ETA before any candidate is timed, or the line left at the end:\n%q", got)
	}
}
