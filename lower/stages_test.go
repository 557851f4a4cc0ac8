package lower_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/lang"
	"github.com/tilec/tilec/lower"
)

// withStages is f with the tuner's stages hint.
func withStages(f *ir.Func, s int64) *ir.Func {
	g := lower.Clone(f)
	g.Hints = append(g.Hints, ir.Const{Name: lower.StagesHint, Value: s})
	return g
}

// ringDepths lists the stages attribute of every ring (smem_alloc with
// more than one stage) of every variant.
func ringDepths(t *testing.T, f *ir.Func, target string) []int {
	t.Helper()
	vs, err := lower.LowerVariants(f, lower.MustTarget(target), lower.Options{Verify: true})
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, v := range vs {
		v.Func.Body.Walk(func(in *ir.Instr) {
			if n := in.Attrs.Int(ir.AttrKeyStages); in.Op == ir.OpSmemAlloc && n > 1 {
				out = append(out, n)
			}
		})
	}
	return out
}

// The stages hint sets the depth of every ring, on the mma.sync path
// (sm_80, whose shared memory holds 3 stages of the seed's tiles) and on
// the sm_90a warp-specialized one (4 by default).
func TestStagesHint(t *testing.T) {
	f := buildExample(t, "matmul.tile", nil)
	for _, c := range []struct {
		target string
		stages int64
		want   int
	}{
		{"sm_80", 0, 3}, {"sm_80", 2, 2}, {"sm_80", 3, 3},
		{"sm_90a", 0, 4}, {"sm_90a", 2, 2}, {"sm_90a", 3, 3},
	} {
		g := f
		if c.stages > 0 {
			g = withStages(f, c.stages)
		}
		got := ringDepths(t, g, c.target)
		if len(got) == 0 {
			t.Fatalf("%s stages=%d: no ring", c.target, c.stages)
		}
		for _, n := range got {
			if n != c.want {
				t.Errorf("%s stages=%d: rings %v, want all %d", c.target, c.stages, got, c.want)
				break
			}
		}
	}
	if len(f.Hints) != 0 {
		t.Errorf("the caller's kernel gained hints: %v", f.Hints)
	}
}

// A ring the shared memory cannot hold at the depth asked for, and a
// kernel without a ring, are positioned errors (the tuner prunes them).
func TestStagesHintErrors(t *testing.T) {
	f := buildExample(t, "matmul.tile", nil)
	_, err := lower.LowerVariants(withStages(f, 4), lower.MustTarget("sm_80"), lower.Options{})
	var pos *lang.Error
	if !errors.As(err, &pos) || !strings.Contains(err.Error(), "stages=4: the shared-memory ring of this load (tile<") ||
		!strings.Contains(err.Error(), "holds only 3 stages") {
		t.Errorf("sm_80 stages=4: %v", err)
	}
	v := buildExample(t, "vector_add.tile", nil)
	_, err = lower.LowerVariants(withStages(v, 2), lower.MustTarget("sm_80"), lower.Options{})
	if err == nil || !strings.Contains(err.Error(), "stages=2: kernel vector_add has no pipelined loop") {
		t.Errorf("vector_add stages=2: %v", err)
	}
}
