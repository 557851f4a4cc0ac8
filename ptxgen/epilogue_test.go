package ptxgen

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/lower"
)

// fastLoop is the text of the first (cp.async) copy of the main loop.
func fastLoop(t *testing.T, ptx string) string {
	t.Helper()
	m := regexp.MustCompile(`(?s)\n(\$L_loop_\d+):\n(.*?)bra\.uni (\$L_loop_\d+);`).FindStringSubmatch(ptx)
	if m == nil || m[1] != m[3] {
		t.Fatal("no loop")
	}
	return m[2]
}

func TestStagedEpilogue(t *testing.T) {
	for _, c := range []struct {
		file   string
		consts map[string]string
	}{
		{"matmul.tile", nil},
		{"matmul.tile", map[string]string{"T": "bfloat16"}},
		{"matmul.tile", map[string]string{"T": "tfloat32", "tk": "32"}},
		{"matmul_bias_relu.tile", nil},
		{"matmul_bt.tile", nil},
	} {
		_, _, k := compileExample(t, c.file, c.consts, lower.MustTarget("sm_80"))
		tail := k.PTX[strings.LastIndex(k.PTX, "cp.async.wait_group 0;"):]
		// Fragments into shared memory, 16-byte chunks back, 16-byte
		// global stores under the alignment flag, element-wise otherwise.
		for _, want := range []string{`st\.shared\.v2\.(b16|f32|b32)`, `ld\.shared\.v4\.b32`, `@%p\d+ st\.global\.v4\.b32`, `@%p\d+ st\.global\.(b16|f32|b32) `} {
			if count(tail, want) == 0 {
				t.Errorf("%s %v: epilogue has no %s", c.file, c.consts, want)
			}
		}
		if n := count(tail, `st\.global\.v2`); n != 0 {
			t.Errorf("%s %v: %d fragment-wise global stores", c.file, c.consts, n)
		}
	}
	tg := lower.MustTarget("sm_80")
	tg.Tuning.StagedEpilogue = false
	_, _, k := compileExample(t, "matmul.tile", nil, tg)
	if count(k.PTX, `st\.global\.v2\.b16`) == 0 || count(k.PTX, `ld\.shared\.v4`) != 0 {
		t.Errorf("StagedEpilogue=false: epilogue still staged")
	}
}

func TestSpreadCopies(t *testing.T) {
	// The seed kernel's next-stage copies (A: 4 chunks per thread, B: 8)
	// go after k-steps 0, 1 and 2 (4 each).
	shape := func(loop string) string {
		var b strings.Builder
		for _, l := range strings.Split(loop, "\n") {
			switch {
			case strings.Contains(l, "mma.sync"):
				b.WriteByte('m')
			case strings.Contains(l, "cp.async.cg"):
				b.WriteByte('c')
			case strings.Contains(l, "commit_group"):
				b.WriteByte('C')
			case strings.Contains(l, "bar.sync"):
				b.WriteByte('B')
			}
		}
		return regexp.MustCompile(`m+`).ReplaceAllString(regexp.MustCompile(`c+`).ReplaceAllString(b.String(), "c"), "m")
	}
	// With EarlyStageWait (v8) the barrier comes before the last k-step's
	// A fragments and A's copies (the last part) follow it.
	for _, c := range []struct {
		early, spread bool
		want          string
	}{
		{true, true, "mcmcBmcCm"},
		{true, false, "mcmBmcCm"},
		{false, true, "mcmcmcCBm"},
		{false, false, "mcCmBm"},
	} {
		tg := lower.MustTarget("sm_90")
		tg.Tuning.EarlyStageWait, tg.Tuning.SpreadCopies = c.early, c.spread
		_, _, k := compileExample(t, "matmul.tile", nil, tg)
		if got := shape(fastLoop(t, k.PTX)); got != c.want {
			t.Errorf("EarlyStageWait=%v SpreadCopies=%v: fast loop shape %s, want %s", c.early, c.spread, got, c.want)
		}
	}
}

func TestSmemCopyPadding(t *testing.T) {
	// mma operands with a non-zero padding mode take the element-wise copy
	// (cp.async zero-fills), which must fill the padding value, not zero.
	f := buildFile(t, filepath.Join("..", "testdata", "kernels", "matmul.tile"), map[string]string{"T": "tfloat32", "tm": "64", "tn": "64", "tk": "32", "GROUP_SIZE_M": "8"})
	for _, in := range f.Body.Instrs {
		for _, r := range in.Regions {
			for _, x := range r.Instrs {
				if x.Op == ir.OpLoad {
					x.Attrs.Set("pad", ir.PadNaN)
				}
			}
		}
	}
	g, err := lower.Lower(f, lower.MustTarget("sm_80"))
	if err != nil {
		t.Fatal(err)
	}
	k, err := EmitKernel(g, lower.MustTarget("sm_80"))
	if err != nil {
		t.Fatal(err)
	}
	if n := count(k.PTX, `mov\.f32 %f\d+, 0f7FC00000;`); n == 0 {
		t.Errorf("no NaN padding register")
	}
	if n := count(k.PTX, `mov\.f32 %f\d+, 0f00000000;\s+@%p\d+ ld\.global`); n != 0 {
		t.Errorf("%d element copies padded with zero", n)
	}
}
