package ptxgen

import (
	"fmt"
	"testing"

	"github.com/tilec/tilec/lower"
)

// TestAttentionPatterns compiles testdata/kernels/attention.tile at head dims 64,
// 128 and 256 (with the tkv the example recommends for 256), f16 and bf16,
// causal and not, and checks the FlashAttention-2 shape of the code: 4
// warps, each running a quarter of both mmas (S = Q@K^T and O += P@V,
// D*tkv/128 m16n8k16 instructions each per warp); the row max and sum
// combined by shuffles; no scratch region, so no reduction or layout
// conversion goes through shared memory (each warp owns whole rows: the
// 2x2 grid this kernel had at D=64 before needed scratch); and nothing
// spilled to local memory.
func TestAttentionPatterns(t *testing.T) {
	for _, D := range []int{64, 128, 256} {
		for _, T := range []string{"f16", "bf16"} {
			for _, causal := range []string{"False", "True"} {
				tkv := 64
				if D == 256 {
					tkv = 32
				}
				consts := map[string]string{"D": fmt.Sprint(D), "T": T, "CAUSAL": causal, "tkv": fmt.Sprint(tkv)}
				name := fmt.Sprintf("D=%d,T=%s,CAUSAL=%s", D, T, causal)
				t.Run(name, func(t *testing.T) {
					_, g, k := compileExample(t, "attention.tile", consts, lower.MustTarget("sm_80"))
					ptx := k.PTX
					if k.Block != [3]int{128, 1, 1} || k.General == nil {
						t.Errorf("block %v, want 4 warps; general variant %v", k.Block, k.General != nil)
					}
					// The fast variant's loop: two mmas of D*tkv/128
					// instructions each.
					mma := `mma\.sync\.aligned\.m16n8k16\.row\.col\.f32\.` + T + `\.` + T + `\.f32`
					want := 2 * D * tkv / 128
					if n := count(ptx, mma); n != want {
						t.Errorf("%d %s, want %d", n, mma, want)
					}
					if n := count(ptx, `mma\.sync`); n != want {
						t.Errorf("%d mma.sync in all, want %d", n, want)
					}
					// exp2 with flush_to_zero is one ex2.approx.ftz; acc * alpha
					// multiplies O in place, skipped by a warp whose row
					// maxima all held (every alpha exactly 1; lower's
					// rescale pass, TestRowRescalePTX).
					for _, want := range []string{`ex2\.approx\.ftz\.f32`, `vote\.sync\.all\.pred %p\d+, %p\d+, -1;\n\s*@%p\d+ bra\.uni \$L_endif_\d+;\n\s*mul\.rn\.f32 (%f\d+), (%f\d+)`} {
						if count(ptx, want) == 0 {
							t.Errorf("no %s", want)
						}
					}
					for _, want := range []string{`shfl\.sync\.bfly\.b32`, `ex2\.approx`, `ldmatrix\.sync\.aligned\.m8n8\.x4\.shared\.b16`, `cp\.async\.wait_group`} {
						if count(ptx, want) == 0 {
							t.Errorf("no %s", want)
						}
					}
					for _, bad := range []string{`ld\.local`, `st\.local`} {
						if n := count(ptx, bad); n != 0 {
							t.Errorf("%d %s", n, bad)
						}
					}
					if off := lower.ScratchOffset(g); off >= 0 {
						t.Errorf("scratch region at %d: some reduction or conversion crosses warps", off)
					}
				})
			}
		}
	}
}
