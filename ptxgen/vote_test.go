package ptxgen

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/lower"
)

// rescaleBlock matches the code of lower's rescale rewrite in PTX: the
// per-row scales compared with 1, their and, the warp's vote, the branch
// that skips the multiplications, and what it skips up to its label.
var rescaleBlock = regexp.MustCompile(`((?:\tsetp\.eq\.f32 %p\d+, %f\d+, %f\d+;\n)+)((?:\tand\.pred %p\d+, %p\d+, %p\d+;\n)*)` +
	`\tvote\.sync\.all\.pred (%p\d+), %p\d+, -1;\n\t@(%p\d+) bra\.uni (\$L_endif_\d+);\n((?:\t[^\n]*\n)*?)(\$L_endif_\d+):`)

var inPlaceMul = regexp.MustCompile(`^\tmul\.rn\.f32 (%f\d+), (%f\d+), %f\d+;$`)

// TestRowRescalePTX: attention's acc * alpha, rewritten by lower's rescale
// pass into vote_all and an if, comes out on sm_80 (mma.sync) and sm_90a
// (warp-specialized wgmma) as one vote.sync.all.pred over the and of a
// setp.eq per scale register (two rows a thread: tq=64 over 4 warps), and
// a bra.uni on the vote past multiplications of the accumulator in place:
// D*tq/128 registers a thread, each once, and nothing else in the skipped
// code (no copies, no branch of an empty arm).
func TestRowRescalePTX(t *testing.T) {
	for _, target := range []string{"sm_80", "sm_90a"} {
		for _, D := range []int{64, 128} {
			t.Run(fmt.Sprintf("%s,D=%d", target, D), func(t *testing.T) {
				_, g, k := compileExample(t, "attention.tile", map[string]string{"D": fmt.Sprint(D)}, lower.MustTarget(target))
				votes := 0
				g.Body.Walk(func(in *ir.Instr) {
					if in.Op == ir.OpVoteAll {
						votes++
					}
				})
				if votes != 1 {
					t.Errorf("%d vote_all in the lowered kernel, want 1", votes)
				}
				if target == "sm_90a" && count(k.PTX, `wgmma\.mma_async`) == 0 {
					t.Errorf("no wgmma: the rescale is not on the warp-specialized path")
				}
				m := rescaleBlock.FindAllStringSubmatch(k.PTX, -1)
				if len(m) != 1 {
					t.Fatalf("%d rescale blocks, want 1", len(m))
				}
				setps, ands, vote, guard, dest, skipped, label := m[0][1], m[0][2], m[0][3], m[0][4], m[0][5], m[0][6], m[0][7]
				if n := strings.Count(setps, "setp"); n != 2 || strings.Count(ands, "and.pred") != n-1 {
					t.Errorf("%d setp.eq and %d and.pred, want 2 and 1:\n%s%s", n, strings.Count(ands, "and.pred"), setps, ands)
				}
				if vote != guard || dest != label {
					t.Errorf("the branch on %s to %s does not skip to its own label %s on the vote %s", guard, dest, label, vote)
				}
				lines := strings.Split(strings.TrimSuffix(skipped, "\n"), "\n")
				if want := D * 64 / 128; len(lines) != want {
					t.Errorf("%d skipped instructions, want %d multiplications", len(lines), want)
				}
				seen := map[string]bool{}
				for _, l := range lines {
					mm := inPlaceMul.FindStringSubmatch(l)
					if mm == nil || mm[1] != mm[2] || seen[mm[1]] {
						t.Errorf("skipped %q, want one in-place mul.rn.f32 per accumulator register", l)
						break
					}
					seen[mm[1]] = true
				}
			})
		}
	}
}
