package ptxgen

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/lang/golden"
	"github.com/tilec/tilec/lower"
)

// TestOpEmitters emits the GPU-level ops from lowered IR text (the outputs
// of lower's per-pass archives, finished with the passes after theirs) and
// checks, per op, the PTX instructions it must and must not produce.
func TestOpEmitters(t *testing.T) {
	for _, c := range []struct {
		archive   string // under lower/testdata/passes
		ops       []ir.Op
		must, not []string
	}{
		{"pipeline/matmul_fast.txtar",
			[]ir.Op{ir.OpSmemAlloc, ir.OpSmemSlot, ir.OpAsyncCopy, ir.OpAsyncCommit, ir.OpAsyncWait, ir.OpBarrier, ir.OpFragLoad, ir.OpMMAStep},
			[]string{`cp\.async\.cg\.shared\.global \[%r\d+\], \[%rd\d+\], 16, %r\d+;`, `cp\.async\.commit_group;`, `cp\.async\.wait_group 0;`, `cp\.async\.wait_group 1;`,
				`bar\.sync 0;`, `ldmatrix\.sync\.aligned\.m8n8\.x4\.shared\.b16`, `ldmatrix\.sync\.aligned\.m8n8\.x4\.trans\.shared\.b16`, `mma\.sync\.aligned\.m16n8k16\.row\.col\.f32\.f16\.f16\.f32`},
			// path=vector: no element-wise copy, no run-time branch between the two.
			[]string{`\$L_cpslow`, `st\.shared\.b16`, `ld\.local`}},
		{"pipeline/matmul.txtar",
			[]ir.Op{ir.OpAsyncCopy},
			// path=auto: both copies under a uniform branch on the alignment.
			[]string{`cp\.async\.cg\.shared\.global`, `\$L_cpslow_\d+:`, `@%p\d+ ld\.global\.b16`, `st\.shared\.b16`},
			[]string{`ld\.local`}},
		{"mma/single.txtar",
			[]ir.Op{ir.OpFragLoad, ir.OpMMAStep},
			[]string{`ldmatrix`, `mma\.sync\.aligned\.m16n8k16`},
			[]string{`ld\.local`}},
		{"pipeline/staged_operand.txtar",
			[]ir.Op{ir.OpSmemStage},
			// Swizzled form: element pairs stored as b32 between two barriers.
			[]string{`bar\.sync 0;\n(\s*[^\n]*\n)*?\s*st\.shared\.b32`, `ldmatrix`},
			[]string{`ld\.local`}},
		{"epilogue/staged.txtar",
			[]ir.Op{ir.OpSmemStage},
			// Pitched form: fragment pairs in, 16-byte chunks out.
			[]string{`st\.shared\.v2\.b16`, `ld\.shared\.v4\.b32`, `@%p\d+ st\.global\.v4\.b32`},
			[]string{`ld\.local`}},
	} {
		t.Run(c.archive, func(t *testing.T) {
			path := filepath.Join("..", "lower", "testdata", "passes", c.archive)
			a := golden.Read(t, path)
			g, err := ir.ParseFunc(a.MustSection(t, "out"))
			if err != nil {
				t.Fatal(err)
			}
			tg := lower.MustTarget("sm_80")
			if s, ok := a.Section("target"); ok {
				tg = lower.MustTarget(strings.TrimSpace(s))
			}
			// The passes after the archive's, so that ptxgen gets a whole schedule.
			pass := strings.Split(c.archive, "/")[0]
			after := false
			for _, p := range lower.Passes {
				if after && p.Name != "variants" {
					if _, err := p.Apply(g, tg); err != nil {
						t.Fatalf("%s: %v", p.Name, err)
					}
				}
				after = after || p.Name == pass
			}
			var ops []ir.Op
			g.Body.Walk(func(in *ir.Instr) { ops = append(ops, in.Op) })
			for _, op := range c.ops {
				if !slices.Contains(ops, op) {
					t.Errorf("the IR has no %s", op)
				}
			}
			k, err := EmitKernel(g, tg)
			if err != nil {
				t.Fatal(err)
			}
			for _, pat := range c.must {
				if !regexp.MustCompile(pat).MatchString(k.PTX) {
					t.Errorf("no %s", pat)
				}
			}
			for _, pat := range c.not {
				if regexp.MustCompile(pat).MatchString(k.PTX) {
					t.Errorf("has %s", pat)
				}
			}
		})
	}
}

// convert_layout goes through the scratch region: a barrier, the stores of
// the source layout, a barrier, the loads of the target layout.
func TestConvertLayoutEmitter(t *testing.T) {
	f := buildFile(t, filepath.Join("testdata", "reduce_kinds.tile"), map[string]string{"T": "f32"})
	g, k := lowerEmit(t, f, lower.MustTarget("sm_80"))
	n := 0
	g.Body.Walk(func(in *ir.Instr) {
		if in.Op == ir.OpConvertLayout {
			n++
		}
	})
	if n == 0 {
		t.Fatalf("%s has no convert_layout", f.Name)
	}
	if !regexp.MustCompile(`bar\.sync 0;\n(\s*[^\n]*\n)*?\s*st\.shared\.f32[^\n]*\n(\s*[^\n]*\n)*?\s*bar\.sync 0;\n(\s*[^\n]*\n)*?\s*ld\.shared\.f32`).MatchString(k.PTX) {
		t.Errorf("no barrier, shared stores, barrier, shared loads")
	}
}
