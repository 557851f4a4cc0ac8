package lower_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/lower"
)

// TestAttentionWarpGrids checks the FlashAttention-2 split of
// testdata/kernels/attention.tile: both mmas (S = Q@K^T, tq x tkv, and O += P@V,
// tq x D) spread their rows over the same warps, so the row reductions stay
// in a warp and the row statistics reach both accumulators without moving
// between threads: the kernel needs no scratch at all.
func TestAttentionWarpGrids(t *testing.T) {
	for _, c := range []struct {
		consts map[string]string
		nwarps int
		grid   [2]int // both mmas
		regs   [2]int // per thread: S, O
	}{
		{map[string]string{"D": "64"}, 4, [2]int{4, 1}, [2]int{32, 32}},
		{map[string]string{"D": "128"}, 4, [2]int{4, 1}, [2]int{32, 64}},
		{map[string]string{"D": "256"}, 4, [2]int{4, 1}, [2]int{32, 128}},
		{map[string]string{"D": "256", "tkv": "32"}, 4, [2]int{4, 1}, [2]int{16, 128}},
		{map[string]string{"D": "128", "CAUSAL": "True"}, 4, [2]int{4, 1}, [2]int{32, 64}},
		// 128 query rows, 32 per warp, at D=64: 128 registers, in budget.
		{map[string]string{"D": "64", "tq": "128"}, 4, [2]int{4, 1}, [2]int{64, 64}},
		// 128 query rows on 4 warps would take 64+128 (D=128) or
		// 64+256 (D=256) accumulator registers per thread: 8 warps of 16
		// rows each.
		{map[string]string{"D": "128", "tq": "128"}, 8, [2]int{8, 1}, [2]int{32, 64}},
		{map[string]string{"D": "256", "tq": "128"}, 8, [2]int{8, 1}, [2]int{32, 128}},
		// 32 query rows: 2 warps of 16 rows.
		{map[string]string{"D": "128", "tq": "32"}, 2, [2]int{2, 1}, [2]int{32, 64}},
	} {
		t.Run(fmtConsts(c.consts), func(t *testing.T) {
			g, err := lower.LowerOpts(buildExample(t, "attention.tile", c.consts), lower.MustTarget("sm_80"), lower.Options{Verify: true, StopAfter: "smem"})
			if err != nil {
				t.Fatal(err)
			}
			if n := lower.NumWarps(g); n != c.nwarps {
				t.Errorf("num_warps = %d, want %d", n, c.nwarps)
			}
			var mmas []*lower.Layout
			g.Body.Walk(func(in *ir.Instr) {
				switch in.Op {
				case ir.OpMMA:
					l, err := lower.LayoutOf(in.Result())
					if err != nil {
						t.Fatal(err)
					}
					mmas = append(mmas, l)
				case ir.OpReduce:
					l, err := lower.LayoutOf(in.Args[0])
					if err != nil {
						t.Fatal(err)
					}
					if wb := lower.ReduceWarpBits(l, in.Attrs.Int("axis")); len(wb) > 0 {
						t.Errorf("reduce %s combines warps %v", in.Result(), wb)
					}
				}
			})
			if len(mmas) != 2 {
				t.Fatalf("%d mmas, want 2", len(mmas))
			}
			for i, l := range mmas {
				if l.Kind != "mma" || l.WarpsM() != c.grid[0] || l.WarpsN() != c.grid[1] {
					t.Errorf("mma %d (%v): %s grid %dx%d, want %dx%d", i, l.Shape, l.Kind, l.WarpsM(), l.WarpsN(), c.grid[0], c.grid[1])
				}
				if l.NumRegs() != c.regs[i] {
					t.Errorf("mma %d (%v): %d registers per thread, want %d", i, l.Shape, l.NumRegs(), c.regs[i])
				}
			}
			if off := lower.ScratchOffset(g); off >= 0 {
				t.Errorf("scratch region at %d, want none", off)
			}
		})
	}
}

// twoMMASrc has two accumulators of 32 rows that take 256 registers per
// thread on 2 warps of 16 rows each.
const twoMMASrc = `import cuda.tile as ct


@ct.kernel(grid=(1,))
def two(A: ct.Array[ct.float16, (M, K)], B: ct.Array[ct.float16, (K, N)],
        C: ct.Array[ct.float32, (M, N)], D: ct.Array[ct.float32, (M, N)]):
    a = ct.load(A, index=(0, 0), shape=(32, 16))
    b = ct.load(B, index=(0, 0), shape=(16, 256))
    ct.store(C, index=(0, 0), tile=ct.mma(a, b, ct.zeros((32, 256), dtype=ct.float32)))
    ct.store(D, index=(0, 0), tile=ct.mma(a, b, ct.full((32, 256), 1, dtype=ct.float32)))
`

// TestWarpsAlongN: when the rows cannot feed the warps that the register
// budget needs, the extra warps go along N.
func TestWarpsAlongN(t *testing.T) {
	g, err := lower.LowerOpts(buildSource(t, "two.tile", twoMMASrc, nil), lower.MustTarget("sm_80"), lower.Options{Verify: true, StopAfter: "smem"})
	if err != nil {
		t.Fatal(err)
	}
	if n := lower.NumWarps(g); n != 4 {
		t.Errorf("num_warps = %d, want 4", n)
	}
	n := 0
	g.Body.Walk(func(in *ir.Instr) {
		if in.Op == ir.OpMMA {
			n++
			l, err := lower.LayoutOf(in.Result())
			if err != nil || l.WarpsM() != 2 || l.WarpsN() != 2 || l.NumRegs() != 64 {
				t.Errorf("mma %s: layout %+v, %v; want 2x2 warps, 64 registers", in.Result(), l, err)
			}
		}
	})
	if n != 2 {
		t.Errorf("%d mmas, want 2", n)
	}
}

func fmtConsts(m map[string]string) string {
	var s []string
	for _, k := range []string{"D", "tq", "tkv", "CAUSAL"} {
		if v, ok := m[k]; ok {
			s = append(s, k+"="+v)
		}
	}
	return strings.Join(s, ",")
}

// TestAttentionRegisterBudget: accumulators that cannot fit even on the
// most warps are a user error at the mma, with a hint, not a kernel that
// spills.
func TestAttentionRegisterBudget(t *testing.T) {
	_, err := lower.Lower(buildExample(t, "attention.tile", map[string]string{"D": "256", "tkv": "512"}), lower.MustTarget("sm_80"))
	if err == nil {
		t.Fatal("D=256, tkv=512 lowered; want a register budget error")
	}
	for _, want := range []string{"attention.tile:", "ptxgen sm_80: the mma accumulators of this kernel need 192 registers per thread on 8 warps (at most 160)", "use smaller tiles"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
}

// TestRegisterMap checks the renumbering of registers between layouts that
// put every element in the same threads.
func TestRegisterMap(t *testing.T) {
	// A row statistic broadcast into S (64x64) and into O (64x128) on 4x1
	// warps: O's slice has one more (replicated) register bit.
	s := lower.MMALayout(64, 64, 4, 1).Project([]int{64, 1})
	o := lower.MMALayout(64, 128, 4, 1).Project([]int{64, 1})
	if lower.SameLayout(s, o) {
		t.Fatal("the S and O slices are the same layout; the test needs them to differ")
	}
	m, ok := lower.RegisterMap(s, o)
	if !ok || len(m) != o.NumRegs() {
		t.Fatalf("RegisterMap(S slice, O slice) = %v, %v; want a map of %d registers", m, ok, o.NumRegs())
	}
	for r, x := range m {
		if !slices.Equal(s.RegCoord(x), o.RegCoord(r)) {
			t.Errorf("O register %d (%v) read from S register %d (%v)", r, o.RegCoord(r), x, s.RegCoord(x))
		}
	}
	if m, ok := lower.RegisterMap(o, o); !ok || !identity(m) {
		t.Errorf("RegisterMap(l, l) = %v, %v; want the identity", m, ok)
	}
	// On 2x2 warps the rows sit in other warps: a real conversion.
	if _, ok := lower.RegisterMap(s, lower.MMALayout(64, 128, 2, 2).Project([]int{64, 1})); ok {
		t.Errorf("RegisterMap between 4x1 and 2x2 warp grids succeeded")
	}
}

func identity(m []int) bool {
	for r, x := range m {
		if r != x {
			return false
		}
	}
	return true
}
