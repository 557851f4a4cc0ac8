package lower_test

import (
	"strings"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/lower"
)

// Two loops, one nested in the other, both pipelining their mma operand
// loads: the inner ring is filled while the outer one still holds tiles.
const nestedPipelinesSrc = `
import cuda.tile as ct

@ct.kernel(grid=(1,))
def nested(A: ct.Array[ct.float16, (M, K)], B: ct.Array[ct.float16, (K, N)],
           C: ct.Array[ct.float32, (M, N)]):
    acc = ct.zeros((64, 64), dtype=ct.float32)
    for i in range(2):
        a = ct.load(A, index=(0, i), shape=(64, 32))
        b = ct.load(B, index=(i, 0), shape=(32, 64))
        acc = ct.mma(a, b, acc)
        for k in range(ct.num_tiles(A, axis=1, shape=(64, 32))):
            a2 = ct.load(A, index=(0, k), shape=(64, 32))
            b2 = ct.load(B, index=(k, 0), shape=(32, 64))
            acc = ct.mma(a2, b2, acc)
    ct.store(C, index=(0, 0), tile=acc)
`

type ring struct {
	lo, hi int
	depth  int // loop nesting depth of the load
}

// TestNestedPipelinesDoNotShareRings checks that shared-memory rings of
// loops that are live at the same time are disjoint.
func TestNestedPipelinesDoNotShareRings(t *testing.T) {
	lf, err := lower.Lower(buildSource(t, "nested.tile", nestedPipelinesSrc, nil), lower.MustTarget("sm_80"))
	if err != nil {
		t.Fatal(err)
	}
	// A ring belongs to the loop whose body copies the next stage into it:
	// the deepest of its copies (the prologue is one level up).
	var rings []ring
	index := map[*ir.Instr]int{}
	lf.Body.Walk(func(in *ir.Instr) {
		if in.Op != ir.OpAsyncCopy {
			return
		}
		alloc := in.Args[len(in.Args)-1].Def.Args[0].Def
		if alloc.Attrs.Int("stages") < 2 {
			return
		}
		depth := 0
		for b := in.Block; b.Parent != nil; b = b.Parent.Block {
			depth++
		}
		i, ok := index[alloc]
		if !ok {
			lo := alloc.Attrs.Int("smem")
			i = len(rings)
			index[alloc] = i
			rings = append(rings, ring{lo, lo + alloc.Attrs.Int("stages")*alloc.Attrs.Int("stage_bytes"), 0})
		}
		rings[i].depth = max(rings[i].depth, depth)
	})
	var outer, inner []ring
	for _, r := range rings {
		if r.depth == 1 {
			outer = append(outer, r)
		} else {
			inner = append(inner, r)
		}
	}
	if len(outer) != 2 || len(inner) != 2 {
		t.Fatalf("pipelined loads: outer %v inner %v, want 2 each", outer, inner)
	}
	for _, o := range outer {
		for _, i := range inner {
			if o.lo < i.hi && i.lo < o.hi {
				t.Errorf("outer ring [%d, %d) overlaps inner ring [%d, %d)", o.lo, o.hi, i.lo, i.hi)
			}
		}
	}
}

// A register tile too large for the register file is a user error with a
// hint, not megabytes of PTX.
func TestRegisterBudget(t *testing.T) {
	src := `
import cuda.tile as ct

@ct.kernel(grid=(ct.cdiv(N, tile),))
def big(X: ct.Array[ct.float32, (N,)], tile: ct.Constant[int] = 1048576):
    ct.store(X, index=(ct.bid(0),), tile=ct.load(X, index=(ct.bid(0),), shape=(tile,)) + 1.0)
`
	_, err := lower.Lower(buildSource(t, "big.tile", src, nil), lower.MustTarget("sm_80"))
	want := "tile<1048576xf32> needs 2048 registers per thread (at most 512); use smaller tiles"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("err = %v, want %q", err, want)
	}
	small := buildSource(t, "big.tile", src, map[string]string{"tile": "1024"})
	if _, err := lower.Lower(small, lower.MustTarget("sm_80")); err != nil {
		t.Errorf("tile=1024: %v", err)
	}
}

// A flash-decode loop of 64x128 f16 K and V tiles (32 KiB a stage):
// without a hint the ring takes every stage one block's shared memory
// holds (Tuning.MaxStages, 4 on sm_90a); occupancy=2 shortens it so that
// two blocks fit an SM (3 stages); occupancy=8 cannot be met and keeps
// two stages rather than unpipelining the loop; a stages hint wins over
// the occupancy hint.
const decodeRingSrc = `
import cuda.tile as ct

@ct.kernel(grid=(1,)%s)
def ring(Q: ct.Array[ct.float16, (16, 128)], K: ct.Array[ct.float16, (S, 128)],
         V: ct.Array[ct.float16, (S, 128)], O: ct.Array[ct.float32, (128, 16)]):
    qt = ct.load(Q, index=(0, 0), shape=(16, 128)).transpose()
    acc = ct.zeros((128, 16), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=0, shape=(64, 128))):
        k = ct.load(K, index=(j, 0), shape=(64, 128))
        v = ct.load(V, index=(j, 0), shape=(64, 128))
        s = ct.mma(k, qt, ct.zeros((64, 16), dtype=ct.float32))
        acc = ct.mma(v.transpose(), s.astype(ct.float16), acc)
    ct.store(O, index=(0, 0), tile=acc)
`

func TestOccupancyHintBoundsTheRing(t *testing.T) {
	tg := lower.MustTarget("sm_90a")
	for _, c := range []struct {
		hints  string
		stages int
	}{
		{"", 4},
		{", occupancy=1", 4},
		{", occupancy=2", 3},
		{", occupancy=8", 2},
		{", occupancy=2, stages=4", 4},
	} {
		src := strings.Replace(decodeRingSrc, "%s", c.hints, 1)
		if strings.Contains(c.hints, "stages") {
			// The builder takes cuTile's hints only; tune sets stages.
			src = strings.Replace(src, ", stages=4", "", 1)
		}
		f := buildSource(t, "ring.tile", src, nil)
		if strings.Contains(c.hints, "stages") {
			f.Hints = append(f.Hints, ir.Const{Name: lower.StagesHint, Value: int64(4)})
		}
		lf, err := lower.Lower(f, tg)
		if err != nil {
			t.Fatalf("%q: %v", c.hints, err)
		}
		got := map[int]bool{}
		lf.Body.Walk(func(in *ir.Instr) {
			if in.Op == ir.OpSmemAlloc && in.Attrs.Int("stage_bytes") == 16384 {
				got[in.Attrs.Int("stages")] = true
			}
		})
		if len(got) != 1 || !got[c.stages] {
			t.Errorf("hints %q: K and V rings of %v stages, want %d", c.hints, got, c.stages)
		}
		if c.stages == 3 {
			// Two blocks of layout + 1 KiB alignment + 1 KiB for the driver.
			if need := 2 * (lower.SmemBytes(lf) + 2048); need > tg.SMSharedBytes() {
				t.Errorf("occupancy=2: two blocks need %d bytes, the SM has %d", need, tg.SMSharedBytes())
			}
		}
	}
}
