package host

import (
	"math"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/runtime"
)

// The kernels of issue 12 that users run most (examples/cutile): softmax,
// layernorm and rmsnorm on both paths (a whole row in one tile, and the
// looped form that max_tile forces), attention over (B, H, S, D) at D = 64
// and 128 with and without causal masking, and the split-K GEMM with the
// split chosen, given, and 1. Sizes are not multiples of the tiles; every
// reference is float64, written here from the definitions.

func softmaxRef(t map[string]*runtime.Tensor) [][]float64 {
	return [][]float64{rows(t["X"], func(_ int, x []float64) []float64 { return softmaxRow(x) })}
}

// softmaxRow is exp(x - max) / sum(exp(x - max)) of one row.
func softmaxRow(x []float64) []float64 {
	mx := math.Inf(-1)
	for _, v := range x {
		mx = math.Max(mx, v)
	}
	s := 0.0
	out := make([]float64, len(x))
	for j, v := range x {
		out[j] = math.Exp(v - mx)
		s += out[j]
	}
	for j := range out {
		out[j] /= s
	}
	return out
}

func layernormRef(t map[string]*runtime.Tensor) [][]float64 {
	w, b := vec(t["W"]), vec(t["Bias"])
	var means, rstds []float64
	y := rows(t["X"], func(_ int, x []float64) []float64 {
		m, v := meanVar(x)
		r := 1 / math.Sqrt(v+1e-5)
		means, rstds = append(means, m), append(rstds, r)
		out := make([]float64, len(x))
		for j := range x {
			out[j] = (x[j]-m)*r*w[j] + b[j]
		}
		return out
	})
	return [][]float64{y, means, rstds}
}

func rmsnormRef(t map[string]*runtime.Tensor) [][]float64 {
	w := vec(t["W"])
	return [][]float64{rows(t["X"], func(_ int, x []float64) []float64 {
		ss := 0.0
		for _, v := range x {
			ss += v * v
		}
		r := 1 / math.Sqrt(ss/float64(len(x))+1e-6)
		out := make([]float64, len(x))
		for j := range x {
			out[j] = x[j] * r * w[j]
		}
		return out
	})}
}

// attentionRef is softmax(Q K^T / sqrt(D)) V per (batch, head) of (B, H, S, D) arrays.
func attentionRef(t map[string]*runtime.Tensor, causal bool) []float64 {
	Q, K, V := t["Q"], t["K"], t["V"]
	B, H, S, D := Q.Shape[0], Q.Shape[1], Q.Shape[2], Q.Shape[3]
	var out []float64
	for b := range B {
		for h := range H {
			for i := range S {
				p := make([]float64, S)
				mx := math.Inf(-1)
				for j := range S {
					p[j] = math.Inf(-1)
					if causal && j > i {
						continue
					}
					s := 0.0
					for d := range D {
						s += Q.At(b, h, i, d) * K.At(b, h, j, d)
					}
					p[j] = s / math.Sqrt(float64(D))
					mx = math.Max(mx, p[j])
				}
				sum := 0.0
				for j := range p {
					p[j] = math.Exp(p[j] - mx)
					sum += p[j]
				}
				for d := range D {
					o := 0.0
					for j := range S {
						o += p[j] * V.At(b, h, j, d)
					}
					out = append(out, o/sum)
				}
			}
		}
	}
	return out
}

func rowInputs(dt ir.DType, m, n int, names ...string) []exampleInput {
	ins := []exampleInput{in("X", dt, m, n)}
	for _, name := range names {
		ins = append(ins, in(name, dt, n))
	}
	return ins
}

func qkv(dt ir.DType, b, h, s, d int) []exampleInput {
	return []exampleInput{in("Q", dt, b, h, s, d), in("K", dt, b, h, s, d), in("V", dt, b, h, s, d)}
}

func gemmRef(t map[string]*runtime.Tensor) [][]float64 {
	return [][]float64{matmulRef(t["A"], t["B"], 1)}
}

var examples12 = func() []exampleCase {
	var cs []exampleCase
	loop := map[string]any{"max_tile": int64(64)} // rows of 300 take the looped kernels
	for _, sc := range []map[string]any{nil, loop} {
		// f32: one tile per row (TILE_N = 512, 16 or 8 rows a block) and looped; f16 in and out.
		cs = append(cs,
			exampleCase{file: "softmax.py", entry: "softmax", inputs: rowInputs(ir.F32, 37, 300), scalars: sc,
				ref: softmaxRef, atol: 1e-6, rtol: 1e-4},
			exampleCase{file: "softmax.py", entry: "softmax", inputs: rowInputs(ir.F16, 37, 300), scalars: sc,
				ref: softmaxRef, atol: 1e-5, rtol: 2e-3},
			exampleCase{file: "layernorm.py", entry: "layernorm", inputs: rowInputs(ir.F32, 37, 300, "W", "Bias"), scalars: sc,
				ref: layernormRef, atol: 1e-4, rtol: 1e-4},
			exampleCase{file: "layernorm.py", entry: "layernorm", inputs: rowInputs(ir.F16, 37, 300, "W", "Bias"), scalars: sc,
				ref: layernormRef, atol: 2e-3, rtol: 2e-3},
			exampleCase{file: "rmsnorm.py", entry: "rmsnorm", inputs: rowInputs(ir.F32, 37, 300, "W"), scalars: sc,
				ref: rmsnormRef, atol: 1e-4, rtol: 1e-4},
			exampleCase{file: "rmsnorm.py", entry: "rmsnorm", inputs: rowInputs(ir.BF16, 37, 300, "W"), scalars: sc,
				ref: rmsnormRef, atol: 2e-2, rtol: 1e-2},
		)
	}
	// A single column, a row of exactly one power of two, and rows longer than one tile of the loop.
	cs = append(cs,
		exampleCase{file: "softmax.py", entry: "softmax", inputs: rowInputs(ir.F32, 5, 1), ref: softmaxRef, atol: 1e-6, rtol: 1e-5},
		exampleCase{file: "softmax.py", entry: "softmax", inputs: rowInputs(ir.F32, 3, 1024), ref: softmaxRef, atol: 1e-6, rtol: 1e-4},
		exampleCase{file: "layernorm.py", entry: "layernorm", inputs: rowInputs(ir.F32, 3, 5000, "W", "Bias"),
			scalars: map[string]any{"max_tile": int64(1024)}, ref: layernormRef, atol: 1e-4, rtol: 1e-4},
	)
	// The timing entries (gpu-check's refs section) return the last launch's result.
	cs = append(cs,
		exampleCase{file: "softmax.py", entry: "bench_softmax", inputs: rowInputs(ir.F16, 9, 70),
			scalars: map[string]any{"reps": int64(2)}, ref: softmaxRef, atol: 1e-5, rtol: 2e-3},
		exampleCase{file: "layernorm.py", entry: "bench_layernorm", inputs: rowInputs(ir.F16, 9, 70, "W", "Bias"),
			scalars: map[string]any{"reps": int64(2)},
			ref:     func(t map[string]*runtime.Tensor) [][]float64 { return layernormRef(t)[:1] }, atol: 2e-3, rtol: 2e-3},
		exampleCase{file: "rmsnorm.py", entry: "bench_rmsnorm", inputs: rowInputs(ir.F16, 9, 70, "W"),
			scalars: map[string]any{"reps": int64(2)}, ref: rmsnormRef, atol: 2e-3, rtol: 2e-3},
	)
	// Attention: S = 200 is 1 5/8 query blocks of 128 and 3 1/8 key tiles of 64; S = 64 one of each.
	for _, c := range []struct {
		dt         ir.DType
		b, h, s, d int
		causal     bool
		extra      map[string]any
	}{
		{ir.F16, 2, 3, 200, 64, false, nil},
		{ir.F16, 2, 3, 200, 64, true, nil},
		{ir.BF16, 1, 2, 130, 128, false, nil},
		{ir.BF16, 1, 2, 130, 128, true, nil},
		{ir.F16, 1, 2, 64, 64, true, nil},
		// Odd S (the sizes gpu-check's hopper section runs on the wgmma
		// path): 333 is 2 3/5 query blocks and 5 13/64 key tiles, 1000 is
		// 7 13/16 query blocks and 15 5/8 key tiles.
		{ir.F16, 1, 2, 333, 64, false, nil},
		{ir.F16, 1, 2, 333, 64, true, nil},
		{ir.BF16, 1, 2, 333, 128, false, nil},
		{ir.BF16, 1, 2, 333, 128, true, nil},
		{ir.BF16, 1, 1, 1000, 64, false, nil},
		{ir.F16, 1, 1, 1000, 64, true, nil},
		{ir.BF16, 1, 1, 1000, 128, true, nil},
		// Other tiles: tq < tkv (the diagonal spans part of a key tile) and tq > tkv.
		{ir.F16, 1, 2, 150, 64, true, map[string]any{"tq": int64(32), "tkv": int64(64)}},
		{ir.F16, 1, 2, 150, 64, true, map[string]any{"tq": int64(64), "tkv": int64(16)}},
	} {
		sc := map[string]any{"causal": c.causal}
		for k, v := range c.extra {
			sc[k] = v
		}
		causal := c.causal
		cs = append(cs, exampleCase{file: "attention.py", entry: "attention", inputs: qkv(c.dt, c.b, c.h, c.s, c.d), scalars: sc,
			ref:  func(t map[string]*runtime.Tensor) [][]float64 { return [][]float64{attentionRef(t, causal)} },
			atol: 1e-2, rtol: 1e-2})
	}
	cs = append(cs, exampleCase{file: "attention.py", entry: "bench_attention", inputs: qkv(ir.F16, 1, 1, 70, 64),
		scalars: map[string]any{"causal": true, "reps": int64(2)},
		ref:     func(t map[string]*runtime.Tensor) [][]float64 { return [][]float64{attentionRef(t, true)} },
		atol:    1e-2, rtol: 1e-2})
	// Split-K: K = 600 is 10 steps of 64; SPLIT chosen (2 for 2 tiles), 3 given (ranges of 4, 4 and 2
	// steps), and 1 (num_sms = 1: the single-launch kernel); float32 inputs through tfloat32.
	gemm := []exampleInput{in("A", ir.F16, 130, 600), in("B", ir.F16, 600, 100)}
	for _, sc := range []map[string]any{nil, {"split": int64(3)}, {"num_sms": int64(1)}, {"split": int64(16)}} {
		cs = append(cs, exampleCase{file: "split_k_matmul.py", entry: "split_k_matmul", inputs: gemm, scalars: sc,
			ref: gemmRef, atol: 2e-2, rtol: 2e-3})
	}
	cs = append(cs,
		exampleCase{file: "split_k_matmul.py", entry: "split_k_matmul", inputs: []exampleInput{in("A", ir.F32, 70, 300), in("B", ir.F32, 300, 50)},
			ref: gemmRef, atol: 5e-2, rtol: 5e-3},
		exampleCase{file: "split_k_matmul.py", entry: "bench_split_k_matmul", inputs: []exampleInput{in("A", ir.F16, 60, 520), in("B", ir.F16, 520, 40)},
			scalars: map[string]any{"reps": int64(2)}, ref: gemmRef, atol: 2e-2, rtol: 2e-3},
	)
	return cs
}()

func init() { exampleCases = append(exampleCases, examples12...) }
