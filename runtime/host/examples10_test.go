package host

import (
	"math/bits"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/runtime"
)

// The issue-10 acceptance programs of examples/cutile (gather, scatter,
// atomics, cumsum, bitwise hashing, cat/extract), with references written
// here independently of the kernels: exact where the kernel is exact.
var examples10 = []exampleCase{
	{file: "gather_add2d.py", entry: "gather_add2d", inputs: []exampleInput{in("A", ir.F32, 70, 130), in("B", ir.F32, 70, 130)},
		ref: func(t map[string]*runtime.Tensor) [][]float64 {
			a, b := vec(t["A"]), vec(t["B"])
			out := make([]float64, len(a))
			for i := range a {
				out[i] = float64(float32(a[i]) + float32(b[i]))
			}
			return [][]float64{out}
		}},
	{file: "permute_scatter.py", entry: "permute_scatter", inputs: []exampleInput{in("X", ir.F32, 3001)},
		ref: func(t map[string]*runtime.Tensor) [][]float64 {
			x := vec(t["X"])
			out := make([]float64, len(x))
			for i := range x {
				out[i*7919%len(x)] = x[i]
			}
			return [][]float64{out}
		}},
	{file: "atomic_split_k.py", entry: "atomic_split_k", inputs: []exampleInput{in("A", ir.F16, 130, 300), in("B", ir.F16, 300, 100)},
		ref:  func(t map[string]*runtime.Tensor) [][]float64 { return [][]float64{matmulRef(t["A"], t["B"], 1)} },
		atol: 1e-3, rtol: 1e-4},
	// Four splits: the blocks of one output tile add into it atomically.
	{file: "atomic_split_k.py", entry: "atomic_split_k", inputs: []exampleInput{in("A", ir.F16, 130, 300), in("B", ir.F16, 300, 100)},
		scalars: map[string]any{"split": int64(4)},
		ref:     func(t map[string]*runtime.Tensor) [][]float64 { return [][]float64{matmulRef(t["A"], t["B"], 1)} },
		atol:    1e-3, rtol: 1e-4},
	{file: "moe_align.py", entry: "moe_align", inputs: []exampleInput{in("topk_ids", ir.I32, 100)},
		ref: func(t map[string]*runtime.Tensor) [][]float64 {
			return moeAlignRef(vec(t["topk_ids"]), 8, 16, 16)
		}},
	{file: "dropout.py", entry: "dropout", inputs: []exampleInput{in("X", ir.F32, 3001)},
		ref: func(t map[string]*runtime.Tensor) [][]float64 {
			x := vec(t["X"])
			out := make([]float64, len(x))
			scale := float32(1.0 / (1.0 - 0.25))
			for i := range x {
				if int(hash32(uint32(i)^1234)&0xffffff) >= int(0.25*(1<<24)) {
					out[i] = float64(float32(x[i]) * scale)
				}
			}
			return [][]float64{out}
		}},
	{file: "hadamard.py", entry: "hadamard", inputs: []exampleInput{in("X", ir.F32, 37, 16)},
		ref: func(t map[string]*runtime.Tensor) [][]float64 {
			return [][]float64{rows(t["X"], func(_ int, x []float64) []float64 {
				y := make([]float64, len(x))
				for k := range y {
					for j, v := range x {
						if bits.OnesCount(uint(j&k))%2 == 0 {
							y[k] += v
						} else {
							y[k] -= v
						}
					}
				}
				return y
			})}
		}, atol: 1e-5, rtol: 1e-6},
}

func init() { exampleCases = append(exampleCases, examples10...) }

// hash32 is the dropout example's integer mix (murmur-style finalizer).
func hash32(h uint32) uint32 {
	h ^= h >> 16
	h *= 0x7feb352d
	h ^= h >> 15
	h *= 0x846ca68b
	return h ^ h>>16
}

// moeAlignRef groups the tokens by expert id (mod experts), pads each group
// to a multiple of block: the sorted token ids (n in padding slots), the
// expert of each block (0 past the total) and the total.
func moeAlignRef(ids []float64, experts, block, maxBlocks int) [][]float64 {
	n := len(ids)
	e := make([]int, n)
	counts := make([]int, experts)
	for i, v := range ids {
		e[i] = ((int(v) % experts) + experts) % experts
		counts[e[i]]++
	}
	starts := make([]int, experts)
	total := 0
	for x := range experts {
		starts[x] = total
		total += (counts[x] + block - 1) / block * block
	}
	sorted := make([]float64, maxBlocks*block)
	for j := range sorted {
		sorted[j] = float64(n)
	}
	next := append([]int(nil), starts...)
	for i := range n {
		sorted[next[e[i]]] = float64(i)
		next[e[i]]++
	}
	owner := make([]float64, maxBlocks)
	for b := range maxBlocks {
		if b*block < total {
			for x := range experts {
				if b*block >= starts[x] && b*block < starts[x]+(counts[x]+block-1)/block*block {
					owner[b] = float64(x)
				}
			}
		}
	}
	return [][]float64{sorted, owner, {float64(total)}}
}
