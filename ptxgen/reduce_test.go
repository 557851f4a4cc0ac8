package ptxgen

import (
	"os"
	"testing"

	"github.com/tilec/tilec/ir/build"
	"github.com/tilec/tilec/lang"
	"github.com/tilec/tilec/lower"
)

// TestReducePatterns compiles the reduction kernels (examples and
// testdata/reduce_kinds.tile, which was checked on an H100 against the
// interpreter) and checks the shape of the code: shuffles for lane bits,
// shared scratch and barriers for warp bits and layout conversions.
func TestReducePatterns(t *testing.T) {
	src, err := os.ReadFile("testdata/reduce_kinds.tile")
	if err != nil {
		t.Fatal(err)
	}
	af, err := lang.Parse("reduce_kinds.tile", src)
	if err != nil {
		t.Fatal(err)
	}
	for _, T := range []string{"f32", "f16", "bf16"} {
		m, err := build.File(af, build.Options{Consts: map[string]string{"T": T}})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range m.Funcs {
			g, err := lower.LowerOpts(f, lower.MustTarget("sm_80"), lower.Options{Verify: true})
			if err != nil {
				t.Fatalf("%s %s: %v", f.Name, T, err)
			}
			k, err := EmitKernel(g, lower.MustTarget("sm_80"))
			if err != nil {
				t.Fatalf("%s %s: %v", f.Name, T, err)
			}
			// max and min ignore NaN (cuTile's default): plain max.f32/min.f32.
			want := []string{`shfl\.sync\.bfly\.b32`, `bar\.sync 0`, `st\.shared\.`, `setp\.nan\.f32`}
			if f.Name == "cols" {
				want = append(want, `max\.f32`)
			} else {
				want = append(want, `min\.f32`, `add\.s32`)
			}
			if count(k.PTX, `\.NaN\.`) != 0 {
				t.Errorf("%s %s: a NaN-propagating min/max without propagate_nan", f.Name, T)
			}
			for _, w := range want {
				if count(k.PTX, w) == 0 {
					t.Errorf("%s %s: no %s", f.Name, T, w)
				}
			}
			if lower.ScratchOffset(g) < 0 || k.SharedBytes == 0 {
				t.Errorf("%s %s: no scratch", f.Name, T)
			}
		}
	}
	// softmax's row statistics stay in registers: no scratch, no barrier.
	_, g, k := compileExample(t, "softmax.tile", nil, lower.MustTarget("sm_80"))
	if lower.ScratchOffset(g) >= 0 || count(k.PTX, `bar\.sync`) != 0 || count(k.PTX, `shfl\.sync\.bfly`) == 0 {
		t.Errorf("softmax: scratch %d, %d bar.sync", lower.ScratchOffset(g), count(k.PTX, `bar\.sync`))
	}
	// argmax combines (value, index) pairs.
	_, _, k = compileExample(t, "reduction.tile", map[string]string{"tm": "1", "tn": "1024"}, lower.MustTarget("sm_80"))
	for _, w := range []string{`setp\.lt\.s32`, `selp\.b32`, `bar\.sync 0`, `ld\.shared\.b32`} {
		if count(k.PTX, w) == 0 {
			t.Errorf("row_reduce tm=1: no %s", w)
		}
	}
}

// Each reduction across warps places a warp's partial results at
// warp * (its own result count): reduce_widths.tile's (8, 128) and (8, 16)
// column sums need offsets of 128 and 16 results. Sharing one offset
// register between them (it was cached by the warp bits alone) wrote the
// second reduction's partials where it did not read them.
func TestReduceWarpOffsetsPerWidth(t *testing.T) {
	checkPatterns(t, "reduce_widths.tile", nil, []string{
		`mad\.lo\.u32 %r\d+, %r\d+, 128, `, `mad\.lo\.u32 %r\d+, %r\d+, 256, `,
		`mad\.lo\.u32 %r\d+, %r\d+, 16, `, `mad\.lo\.u32 %r\d+, %r\d+, 32, `,
	}, []string{`ld\.local`})
}

// propagate_nan=True takes PTX's .NaN forms (f16 through f32); without it
// min and max are the plain instructions, which ignore NaN.
func TestPropagateNaNPatterns(t *testing.T) {
	checkPatterns(t, "nan_rules.tile", nil, []string{
		`max\.NaN\.f32`, `min\.NaN\.f32`, `max\.f32`, `min\.f32`, `setp\.nan\.f32`,
	}, []string{`ld\.local`})
}
