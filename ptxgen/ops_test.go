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
		{"warpspec/matmul_single.txtar",
			[]ir.Op{ir.OpMbarAlloc, ir.OpMbarWait, ir.OpMbarArrive, ir.OpMbarExpect, ir.OpTMALoad, ir.OpWGMMA, ir.OpWGMMAWait,
				ir.OpSetMaxRegs, ir.OpWarpID, ir.OpCTAID, ir.OpCTACount, ir.OpGridSize, ir.OpTMAStore, ir.OpTMAStoreWait, ir.OpFenceProxyAsync},
			[]string{
				`@%p\d+ mbarrier\.init\.shared::cta\.b64 \[%r\d+\+24\], 2;`, `fence\.mbarrier_init\.release\.cluster;`,
				`mbarrier\.try_wait\.parity\.shared::cta\.b64 %p\d+, \[%r\d+\], %r\d+;\n\s*@!%p\d+ bra \$L_mbar_wait_\d+;`,
				`@%p\d+ mbarrier\.arrive\.expect_tx\.shared::cta\.b64 _, \[%r\d+\], 49152;`,
				`@%p\d+ mbarrier\.arrive\.shared::cta\.b64 _, \[%r\d+\];`,
				// A: one 128x64 box; B: four 64x64 boxes (MN-major slabs).
				`cp\.async\.bulk\.tensor\.2d\.shared::cluster\.global\.tile\.mbarrier::complete_tx::bytes \[%r\d+\], \[%rd\d+, \{%r\d+, %r\d+\}\], \[%r\d+\];`,
				`\.param \.align 64 \.b8 p_A_tmap_128x64\[128\]`, `\.param \.align 64 \.b8 p_B_tmap_64x64\[128\]`, `\.param \.u32 p_grid2`,
				`cvta\.param\.u64 %rd\d+, %rd\d+;`,
				`wgmma\.fence\.sync\.aligned;`,
				`wgmma\.mma_async\.sync\.aligned\.m64n256k16\.f32\.f16\.f16 \{(%f\d+, ){127}%f\d+\}, %rd\d+, %rd\d+, %p\d+, 1, 1, 0, 1;`,
				`wgmma\.commit_group\.sync\.aligned;`, `wgmma\.wait_group\.sync\.aligned 1;`, `wgmma\.wait_group\.sync\.aligned 0;`,
				`setmaxnreg\.dec\.sync\.aligned\.u32 40;`, `setmaxnreg\.inc\.sync\.aligned\.u32 232;`, `\.maxnreg 168`, `\.reqntid 384, 1, 1`,
				`mov\.u32 %r\d+, %ctaid\.x;`, `mov\.u32 %r\d+, %nctaid\.x;`,
				`@%p\d+ cp\.async\.bulk\.wait_group\.read 0;\n\s*bar\.sync 1, 256;`,
				`fence\.proxy\.async\.shared::cta;\n\s*bar\.sync 1, 256;`,
				`@%p\d+ cp\.async\.bulk\.tensor\.2d\.global\.shared::cta\.tile\.bulk_group \[%rd\d+, \{%r\d+, %r\d+\}\], \[%r\d+\];`,
				`@%p\d+ cp\.async\.bulk\.commit_group;`, `@%p\d+ cp\.async\.bulk\.wait_group 0;`,
			},
			// No mma.sync, no cp.async, no register stores of the result, no local memory.
			[]string{`mma\.sync`, `ldmatrix`, `cp\.async\.cg`, `st\.global`, `ld\.local`}},
		{"warpspec/matmul.txtar",
			[]ir.Op{ir.OpTMALoadPair, ir.OpClusterRank, ir.OpClusterSync, ir.OpMbarArrive},
			[]string{
				`\.reqnctapercluster 2, 1, 1`, `mov\.u32 %r\d+, %cluster_ctarank;`,
				`barrier\.cluster\.arrive;\n\s*barrier\.cluster\.wait;`,
				// Both blocks' consumers free each stage: 2 warpgroups x 2 blocks.
				`@%p\d+ mbarrier\.init\.shared::cta\.b64 \[%r\d+\+24\], 4;`,
				`mapa\.shared::cluster\.u32 %r\d+, %r\d+, 1;\n\s*@%p\d+ mbarrier\.arrive\.shared::cluster\.b64 _, \[%r\d+\];`,
				// B by alternate slabs, A by half-height boxes, multicast to both.
				`@%p\d+ cp\.async\.bulk\.tensor\.2d\.shared::cluster\.global\.tile\.mbarrier::complete_tx::bytes\.multicast::cluster \[%r\d+\], \[%rd\d+, \{%r\d+, %r\d+\}\], \[%r\d+\], %h\d+;`,
				`mov\.b16 %h\d+, 3;`, `\.param \.align 64 \.b8 p_A_tmap_64x64\[128\]`,
				// Unshared, each block copies the whole tile itself.
				`@%p\d+ cp\.async\.bulk\.tensor\.2d\.shared::cluster\.global\.tile\.mbarrier::complete_tx::bytes \[%r\d+\], \[%rd\d+, \{%r\d+, %r\d+\}\], \[%r\d+\];`,
			},
			// A cluster-scope release on the consumers' path halves the speed.
			[]string{`release\.cluster\.shared::cluster`, `mma\.sync`, `ld\.local`}},
		{"warpspec/matmul_bt.txtar",
			[]ir.Op{ir.OpWGMMA},
			// B given as (N, K): K-major, trans-b 0; 64-row tiles: one consumer warpgroup.
			[]string{`wgmma\.mma_async\.sync\.aligned\.m64n64k16\.f32\.f16\.f16 \{(%f\d+, ){31}%f\d+\}, %rd\d+, %rd\d+, %p\d+, 1, 1, 0, 0;`, `\.reqntid 256, 1, 1`},
			[]string{`mma\.sync`, `ld\.local`}},
		{"warpspec/batched.txtar",
			[]ir.Op{ir.OpTMALoadPair, ir.OpTMAStore},
			// One matrix of a 3-D array: the batch is the map's third
			// coordinate, for the loads and for the result's TMA store.
			[]string{`cp\.async\.bulk\.tensor\.3d\.shared::cluster\.global\.tile\.mbarrier::complete_tx::bytes \[%r\d+\], \[%rd\d+, \{%r\d+, %r\d+, %r\d+\}\]`,
				`cp\.async\.bulk\.tensor\.3d\.shared::cluster\.global\.tile\.mbarrier::complete_tx::bytes\.multicast::cluster \[%r\d+\], \[%rd\d+, \{%r\d+, %r\d+, %r\d+\}\], \[%r\d+\], %h\d+;`,
				`@%p\d+ cp\.async\.bulk\.tensor\.3d\.global\.shared::cta\.tile\.bulk_group \[%rd\d+, \{%r\d+, %r\d+, %r\d+\}\], \[%r\d+\];`},
			[]string{`mma\.sync`, `ld\.local`, `st\.global`}},
		{"warpspec/attention.txtar",
			[]ir.Op{ir.OpWGMMA, ir.OpTMALoad, ir.OpMbarWait},
			[]string{
				// S = Q K^T: both from shared memory, the first k-step with scale-d false.
				`wgmma\.mma_async\.sync\.aligned\.m64n64k16\.f32\.f16\.f16 \{(%f\d+, ){31}%f\d+\}, %rd\d+, %rd\d+, %p\d+, 1, 1, 0, 0;`,
				`setp\.ne\.u32 %p\d+, %r\d+, %r\d+;`,
				// O += P V: P's fragments packed from registers, V MN-major.
				`mov\.b32 %r\d+, \{%h\d+, %h\d+\};`,
				`wgmma\.mma_async\.sync\.aligned\.m64n64k16\.f32\.f16\.f16 \{(%f\d+, ){31}%f\d+\}, \{%r\d+, %r\d+, %r\d+, %r\d+\}, %rd\d+, %p\d+, 1, 1, 1;`,
				`\.reqntid 256, 1, 1`,
			},
			// Row reductions stay in a warp: no barrier but the init's and the epilogue's named ones.
			[]string{`mma\.sync`, `ldmatrix`, `ld\.local`, `bar\.sync 0;(.|\n)*bar\.sync 0;`}},
		{"warpspec/attention_4d.txtar",
			[]ir.Op{ir.OpTMALoad, ir.OpWGMMA, ir.OpTMAStore},
			// One matrix of a (B, H, S, D) array: the batch and head are the
			// 4-D map's outer coordinates, {col, row, h, b}, for Q, K and V's
			// copies and O's TMA store.
			[]string{
				`cp\.async\.bulk\.tensor\.4d\.shared::cluster\.global\.tile\.mbarrier::complete_tx::bytes \[%r\d+\], \[%rd\d+, \{%r\d+, %r\d+, %r\d+, %r\d+\}\], \[%r\d+\];`,
				`\.param \.align 64 \.b8 p_Q_tmap_64x64\[128\]`, `\.param \.align 64 \.b8 p_K_tmap_64x64\[128\]`, `\.param \.align 64 \.b8 p_V_tmap_64x64\[128\]`,
				`\.param \.align 64 \.b8 p_O_tmap_64x64\[128\]`,
				`wgmma\.mma_async\.sync\.aligned\.m64n64k16\.f32\.f16\.f16 \{(%f\d+, ){31}%f\d+\}, \{%r\d+, %r\d+, %r\d+, %r\d+\}, %rd\d+, %p\d+, 1, 1, 1;`,
				`@%p\d+ cp\.async\.bulk\.tensor\.4d\.global\.shared::cta\.tile\.bulk_group \[%rd\d+, \{%r\d+, %r\d+, %r\d+, %r\d+\}\], \[%r\d+\];`,
			},
			// No 2-D or 3-D copies, no register stores of O.
			[]string{`cp\.async\.bulk\.tensor\.[23]d`, `st\.global`, `mma\.sync`, `ld\.local`}},
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
