package ptxgen

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/lower"
)

// GEMMs whose epilogue reduces across the accumulator's rows (column sums,
// the largest magnitude of a tile, a softmax down the columns) take the warp-specialized wgmma path on
// sm_90a, and their exchanges synchronize the consumer warpgroups only:
// named barrier 2 of 128 threads per consumer warpgroup, both before the
// exchange (the barriers pass, for the tile loop's back edge) and between
// its writes and reads (the reduce's own). The whole block's bar.sync 0
// would deadlock there (the producer warpgroup never arrives): none after
// the split into roles (the first setmaxnreg), and no other barrier there
// but the TMA store's staging one (id 1). The scratch region lies past the
// ring and its mbarriers.
func TestRoleExchangesUseTheConsumersBarrier(t *testing.T) {
	named := regexp.MustCompile(`bar\.sync (\d+)(?:, (\d+))?;`)
	for _, file := range []string{"matmul_colsum.tile", "matmul_amax.tile", "matmul_softmax_cols.tile"} {
		for _, tiles := range [][3]string{{"64", "64", "32"}, {"64", "128", "64"}, {"128", "128", "64"}, {"128", "256", "64"}} {
			for _, dt := range []string{"f16", "bf16"} {
				name := fmt.Sprintf("%s %sx%sx%s %s", file, tiles[0], tiles[1], tiles[2], dt)
				_, g, k := compileExample(t, file, map[string]string{"T": dt, "tm": tiles[0], "tn": tiles[1], "tk": tiles[2]}, lower.MustTarget("sm_90a"))
				consumers := atoi(tiles[0]) / 64
				if !strings.Contains(k.PTX, "wgmma.mma_async") || g.Facts.BlockThreads != 128*(consumers+1) {
					t.Errorf("%s: %d threads a block, want the warp-specialized wgmma path", name, g.Facts.BlockThreads)
					continue
				}
				threads := fmt.Sprint(128 * consumers)
				split := strings.Index(k.PTX, "setmaxnreg")
				if split < 0 {
					t.Fatalf("%s: no setmaxnreg", name)
				}
				roles := 0
				for _, m := range named.FindAllStringSubmatch(k.PTX[split:], -1) {
					switch {
					case m[1] == "2" && m[2] == threads:
						roles++
					case m[1] == "1" && m[2] == threads:
					default:
						t.Errorf("%s: %s inside the roles, want bar.sync 2, %s", name, m[0], threads)
					}
				}
				if roles < 2 {
					t.Errorf("%s: %d bar.sync 2, %s (want the barrier before the exchange and the exchange's own)", name, roles, threads)
				}
				need := 0 // the largest exchange's scratch bytes
				g.Body.Walk(func(in *ir.Instr) {
					if n, err := lower.ScratchBytes(in); err == nil {
						need = max(need, n)
					}
				})
				if off := lower.ScratchOffset(g); off < 0 || need == 0 || off+need > k.SharedBytes || off < ringEnd(g) {
					t.Errorf("%s: scratch of %d bytes at %d of %d bytes of shared memory", name, need, off, k.SharedBytes)
				}
			}
		}
	}
}

// ringEnd is the end of the shared memory that g's rings and mbarriers
// take (smem_alloc and mbar_alloc: offset + stages x bytes).
func ringEnd(g *ir.Func) int {
	end := 0
	g.Body.Walk(func(in *ir.Instr) {
		switch in.Op {
		case ir.OpSmemAlloc:
			end = max(end, in.IntAttr(ir.AttrKeySmem)+in.IntAttr(ir.AttrKeyStages)*in.IntAttr(ir.AttrKeyStageBytes))
		case ir.OpMbarAlloc:
			end = max(end, in.IntAttr(ir.AttrKeySmem)+in.IntAttr(ir.AttrKeyStages)*8)
		}
	})
	return end
}

func atoi(s string) int {
	var n int
	fmt.Sscan(s, &n)
	return n
}
