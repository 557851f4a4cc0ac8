package lower

// Warp grids of the mma accumulators (part of the layout pass).
//
// Every mma of a kernel runs on all of the block's warps, so all of them
// share one warp count; each gets its own grid (warps along M x warps
// along N) that fits its accumulator's shape. Two rules:
//
//   - One accumulator (the matmul family: one mma, or several updating the
//     same value): the grid ChooseMMAWarps picks for its shape. The GEMM
//     kernels' warp tiles (2x4 warps of 64x64 for 128x256) are tuned
//     around it, so this rule must not move.
//   - Several accumulators (attention: S = Q@K^T, then O += P@V with P
//     computed from S): every accumulator splits its rows over the warps,
//     as FlashAttention-2 does, so that warp w owns the same 16*k rows of
//     each. Then a reduction along a row (softmax's max and sum over the
//     keys) combines registers and lanes of one warp, with no shared
//     memory or barrier; a row statistic broadcasts into any accumulator
//     from the registers of the thread that holds the row (RegisterMap);
//     and the rows of P that a warp reads back for P@V are the rows it
//     wrote. The warp count is 4, or fewer when an accumulator has fewer
//     than 64 rows, doubled while the accumulators take more than
//     mmaRegBudget registers per thread and the target allows more warps
//     (Tuning.MaxMMAWarps). Past 16 rows per warp the extra warps go along
//     N, and row reductions cross warps through shared memory: slower,
//     still exact.
//     Accumulators of different row counts (no attention has them) are
//     spread the same way; where their layouts meet, values are converted
//     through shared memory.

import "github.com/tilec/tilec/ir"

// mmaRegBudget bounds the f32 accumulator registers per thread of a kernel
// with several mma accumulators, which are live together in its loop
// (attention's S and O). The rest of a 255-register thread holds the
// softmax values (S's exponentials and their 16-bit copy for the staged P
// tile), row statistics, the operand fragments of two k-steps and
// addresses. With ptxas 11.8 for sm_80, attention at the limit (D=256,
// tkv=64: O 128 + S 32) takes 255 registers and spills 40 to 100 bytes; at
// 144 (D=256, tkv=32) it takes 231 and does not spill; D=128 (96) takes 168.
const mmaRegBudget = 160

// accumulator is one class of mma results: the mmas that update one value.
type accumulator struct {
	root *ir.Value // the union-find root of the results
	m, n int
	mma  *ir.Instr // the first mma, where errors point
}

// chooseMMAGrids picks the warp grid of each accumulator (by class root)
// and the block's warp count.
func chooseMMAGrids(t *Target, accs []accumulator) (map[*ir.Value][2]int, int, error) {
	grids := map[*ir.Value][2]int{}
	if len(accs) == 0 {
		return grids, 0, nil // elementwiseWarps decides
	}
	if len(accs) == 1 {
		a := accs[0]
		wm, wn := ChooseMMAWarps(a.m, a.n, t.Tuning.MaxMMAWarps)
		grids[a.root] = [2]int{wm, wn}
		return grids, wm * wn, nil
	}
	w := 4
	for _, a := range accs {
		w = min(w, max(a.m/16, 1))
	}
	regs := func(w int) int {
		n := 0
		for _, a := range accs {
			n += a.m * a.n / (32 * w)
		}
		return n
	}
	fits := func(w int) bool {
		for _, a := range accs {
			if w > (a.m/16)*(a.n/8) { // less than one m16n8 tile per warp
				return false
			}
		}
		return true
	}
	for regs(w) > mmaRegBudget && 2*w <= t.Tuning.MaxMMAWarps && fits(2*w) {
		w *= 2
	}
	if n := regs(w); n > mmaRegBudget {
		big := accs[0]
		for _, a := range accs {
			if a.m*a.n > big.m*big.n {
				big = a
			}
		}
		return nil, 0, unsupportedAt(t, big.mma,
			"the mma accumulators of this kernel need %d registers per thread on %d warps (at most %d); "+
				"use smaller tiles (for attention, fewer query rows or keys per block)", n, w, mmaRegBudget)
	}
	for _, a := range accs {
		wm := min(w, a.m/16)
		grids[a.root] = [2]int{wm, w / wm}
	}
	return grids, w, nil
}

// Warps of a kernel without mma (elementwiseWarps): enough that each
// thread holds about elemsPerThread elements of the kernel's largest tile,
// between 4 and 16. A row kernel that keeps an 8192-element row in one
// tile then has 16 warps of 16 elements each (two 16-byte accesses of a
// 16-bit row per thread) instead of 4 of 64: a quarter of the registers,
// so that blocks overlap their loads, as Triton's softmax tutorial picks
// 8 or 16 warps for rows of 2048 to 8192.
const elemsPerThread = 16

func elementwiseWarps(f *ir.Func) int {
	largest := 0
	f.Body.Walk(func(in *ir.Instr) {
		for _, r := range in.Results {
			if t, ok := r.Type.(*ir.Tile); ok {
				largest = max(largest, t.NumElements())
			}
		}
	})
	w := 4
	for w < 16 && largest >= 2*w*32*elemsPerThread {
		w *= 2
	}
	return w
}
