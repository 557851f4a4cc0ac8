package lower_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/lang"
	"github.com/tilec/tilec/lower"
)

func TestTargetTable(t *testing.T) {
	want := []string{"sm_80", "sm_86", "sm_89", "sm_90", "sm_90a", "sm_100a", "sm_120a"}
	if got := lower.TargetNames(); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("TargetNames() = %v, want %v", got, want)
	}
	for _, c := range []struct {
		name              string
		smem              int
		ptx               string
		wgmma, tcgen, tma bool
		mmaImplemented    bool
	}{
		{"sm_80", 166912, "7.0", false, false, false, true},
		{"sm_86", 101376, "7.1", false, false, false, true},
		{"sm_89", 101376, "7.8", false, false, false, true},
		{"sm_90", 232448, "7.8", false, false, true, true},
		{"sm_90a", 232448, "8.0", true, false, true, true},
		{"sm_100a", 232448, "8.6", false, true, true, false},
		{"sm_120a", 101376, "8.7", false, false, true, true},
	} {
		tg, err := lower.LookupTarget(c.name)
		if err != nil {
			t.Fatal(err)
		}
		if tg.SharedBytes != c.smem || tg.PTXVersion != c.ptx || tg.Has(lower.WGMMA) != c.wgmma ||
			tg.Has(lower.TCGen05) != c.tcgen || tg.TMA != c.tma || tg.MMAImplemented() != c.mmaImplemented ||
			!tg.Has(lower.MMASync) || tg.RegsPerThread != 255 || tg.Tuning.MaxStages != 4 {
			t.Errorf("%s: %+v", c.name, tg)
		}
	}
	for _, bad := range []string{"", "sm_75", "sm_999", "SM_80", "sm_90 "} {
		_, err := lower.LookupTarget(bad)
		if err == nil || !strings.Contains(err.Error(), "sm_80, sm_86") {
			t.Errorf("LookupTarget(%q): err = %v, want the list of targets", bad, err)
		}
	}
}

// A target is a value: changing one copy's tuning changes no other.
func TestTargetCopiesAreIndependent(t *testing.T) {
	a := lower.MustTarget("sm_80")
	a.Tuning.MaxStages = 1
	a.MMA[0] = lower.TCGen05
	if b := lower.MustTarget("sm_80"); b.Tuning.MaxStages != 4 || b.MMA[0] != lower.MMASync {
		t.Errorf("a change to one copy reached the table: %+v", b)
	}
}

func TestBestTarget(t *testing.T) {
	for cc, want := range map[int]string{
		80: "sm_80", 86: "sm_86", 87: "sm_86", 89: "sm_89",
		90:  "sm_90a", // the wgmma path (warpspec.go)
		100: "sm_90",  // sm_100a's tcgen05 path does not exist yet; sm_90 code runs there
		120: "sm_120a",
	} {
		tg, err := lower.BestTarget(cc)
		if err != nil || tg.Name != want {
			t.Errorf("BestTarget(%d) = %v, %v; want %s", cc, tg, err, want)
		}
		if err == nil && !tg.RunsOn(cc) {
			t.Errorf("BestTarget(%d) = %s, which does not run there", cc, tg)
		}
	}
	if _, err := lower.BestTarget(75); err == nil || !strings.Contains(err.Error(), "8.0 or later") {
		t.Errorf("BestTarget(75): err = %v", err)
	}
	for _, c := range []struct {
		target string
		cc     int
		runs   bool
	}{
		{"sm_80", 90, true}, {"sm_90", 80, false}, {"sm_90a", 90, true}, {"sm_90a", 100, false},
		{"sm_120a", 120, true}, {"sm_120a", 90, false}, {"sm_86", 120, true},
	} {
		if got := lower.MustTarget(c.target).RunsOn(c.cc); got != c.runs {
			t.Errorf("%s.RunsOn(%d) = %v", c.target, c.cc, got)
		}
	}
}

// The seed matmul's ring (48 KiB a stage at 128x256x64 f16) is as deep as
// each target's shared memory allows: 4 stages on Hopper, 3 on A100, 2 on
// the 99 KiB parts; the tuning bound caps it.
func TestStagesFitTheTarget(t *testing.T) {
	f := buildExample(t, "matmul.tile", nil)
	for _, c := range []struct {
		target    string
		maxStages int
		want      int
	}{
		{"sm_90", 0, 4}, {"sm_80", 0, 3}, {"sm_86", 0, 2}, {"sm_89", 0, 2}, {"sm_120a", 0, 2},
		{"sm_90", 2, 2}, {"sm_80", 6, 3},
	} {
		tg := lower.MustTarget(c.target)
		if c.maxStages != 0 {
			tg.Tuning.MaxStages = c.maxStages
		}
		g, err := lower.LowerOpts(f, tg, lower.Options{Verify: true})
		if err != nil {
			t.Fatalf("%s: %v", c.target, err)
		}
		stages := -1
		g.Body.Walk(func(in *ir.Instr) {
			if in.Op == ir.OpSmemAlloc {
				stages = in.Attrs.Int("stages")
			}
		})
		if stages != c.want {
			t.Errorf("%s (MaxStages %d): stages = %d, want %d", c.target, c.maxStages, stages, c.want)
		}
		if b := lower.SmemBytes(g); b > tg.KernelSharedBytes() {
			t.Errorf("%s: smem_bytes %d over the target's %d", c.target, b, tg.KernelSharedBytes())
		}
	}
}

// Tiles that do not fit even one stage are a positioned error that names
// the tiles and the limit.
func TestTilesTooLargeForTarget(t *testing.T) {
	f := buildExample(t, "matmul.tile", map[string]string{"T": "tfloat32", "tk": "128"}) // 64 + 128 KiB a stage
	_, err := lower.Lower(f, lower.MustTarget("sm_86"))
	var le *lang.Error
	if !errors.As(err, &le) {
		t.Fatalf("err = %v (%T), want a *lang.Error", err, err)
	}
	for _, want := range []string{"ptxgen sm_86:", "tile<128x128xtf32>, tile<128x256xtf32>", "100352 per block", "use smaller tiles"} {
		if !strings.Contains(le.Msg, want) {
			t.Errorf("message %q lacks %q", le.Msg, want)
		}
	}
	if le.Pos.File != "matmul.tile" || le.Pos.Line == 0 {
		t.Errorf("position %v, want the load in matmul.tile", le.Pos)
	}
	// One 192 KiB copy fits in Hopper's 227 KiB: not pipelined, but it runs.
	if _, err := lower.Lower(f, lower.MustTarget("sm_90")); err != nil {
		t.Errorf("sm_90: %v", err)
	}
}

// An mma on a target whose mma family has no emitter yet is a positioned
// error that names the family and a target that works; kernels without mma
// compile for it.
func TestMMANotImplemented(t *testing.T) {
	for _, c := range []struct{ target, family, alt string }{
		{"sm_100a", "tcgen05", "sm_90"},
	} {
		_, err := lower.Lower(buildExample(t, "matmul.tile", nil), lower.MustTarget(c.target))
		var le *lang.Error
		if !errors.As(err, &le) || le.Pos.Line == 0 ||
			!strings.Contains(le.Msg, "mma through "+c.family+" is not implemented yet; --target "+c.alt) {
			t.Errorf("%s: err = %v", c.target, err)
		}
		if _, err := lower.Lower(buildExample(t, "softmax.tile", nil), lower.MustTarget(c.target)); err != nil {
			t.Errorf("%s: softmax: %v", c.target, err)
		}
	}
}
