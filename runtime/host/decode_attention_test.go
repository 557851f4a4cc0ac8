package host

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/runtime"
)

// examples/cutile/decode_attention.py (flash-decode: one query token per
// sequence, grouped-query KV caches, split-KV with a combine) through its
// host function. S = 333 is 5 13/64 key tiles of 64 and S = 1000 15 5/8,
// so the last tile of the last split is masked; groups of 4 query heads
// per KV head (H = 8 over 2), 3 (H = 12 over 4) and 1 (H = H_kv), each
// padded to a tile of 16 rows; splits chosen by the host (from the
// interpreter's SM count), 1, 3 (uneven: 6, 6 and 4 tiles at S = 1000,
// which the combine pads to 4) and more than there are key tiles (the host
// caps them, one tile each).

// decodeAttentionRef is softmax(q k^T / sqrt(D)) v for each query head of
// q (B, H, D), whose keys and values are those of KV head h / (H / H_kv)
// in k and v (B, H_kv, S, D), in float64.
func decodeAttentionRef(t map[string]*runtime.Tensor) [][]float64 {
	q, k, v := t["q"], t["k"], t["v"]
	B, H, D := q.Shape[0], q.Shape[1], q.Shape[2]
	Hkv, S := k.Shape[1], k.Shape[2]
	group := H / Hkv
	var out []float64
	for b := range B {
		for h := range H {
			kh := h / group
			scores := make([]float64, S)
			for j := range S {
				for d := range D {
					scores[j] += q.At(b, h, d) * k.At(b, kh, j, d)
				}
				scores[j] /= math.Sqrt(float64(D))
			}
			p := softmaxRow(scores)
			for d := range D {
				o := 0.0
				for j := range S {
					o += p[j] * v.At(b, kh, j, d)
				}
				out = append(out, o)
			}
		}
	}
	return [][]float64{out}
}

func decodeInputs(dt ir.DType, b, h, hkv, s, d int) []exampleInput {
	return []exampleInput{in("q", dt, b, h, d), in("k", dt, b, hkv, s, d), in("v", dt, b, hkv, s, d)}
}

var decodeAttentionCases = func() []exampleCase {
	var cs []exampleCase
	for _, c := range []struct {
		dt              ir.DType
		b, h, hkv, s, d int
		splits          int64 // 0: the host chooses
		atol, rtol      float64
	}{
		{ir.F16, 2, 8, 2, 333, 64, 0, 1e-3, 5e-3},
		{ir.BF16, 2, 8, 2, 333, 128, 0, 4e-3, 1e-2},
		{ir.F16, 2, 8, 2, 1000, 128, 3, 1e-3, 5e-3},
		{ir.BF16, 2, 8, 2, 1000, 64, 1, 4e-3, 1e-2},
		{ir.F16, 2, 4, 4, 1000, 64, 0, 1e-3, 5e-3},
		{ir.BF16, 2, 2, 2, 333, 128, 3, 4e-3, 1e-2},
		{ir.F16, 2, 12, 4, 333, 128, 100, 1e-3, 5e-3},
		{ir.BF16, 2, 12, 4, 1000, 64, 0, 4e-3, 1e-2},
	} {
		var sc map[string]any
		if c.splits != 0 {
			sc = map[string]any{"num_splits": c.splits}
		}
		cs = append(cs, exampleCase{file: "decode_attention.py", entry: "decode_attention",
			inputs: decodeInputs(c.dt, c.b, c.h, c.hkv, c.s, c.d), scalars: sc,
			ref: decodeAttentionRef, atol: c.atol, rtol: c.rtol})
	}
	// The timing entry returns the last launch's result.
	cs = append(cs, exampleCase{file: "decode_attention.py", entry: "bench_decode_attention",
		inputs: decodeInputs(ir.F16, 1, 4, 2, 200, 64), scalars: map[string]any{"reps": int64(2)},
		ref: decodeAttentionRef, atol: 1e-3, rtol: 5e-3})
	return cs
}()

func init() { exampleCases = append(exampleCases, decodeAttentionCases...) }

// TestDecodeAttentionScript: the example's __main__ block checks the host
// function against torch (softmax(q k^T * scale) v in float32) at the
// chosen split, 1 and 3; every kernel it launches also lowers to sm_80.
func TestDecodeAttentionScript(t *testing.T) {
	runCheckingScript(t, filepath.Join("..", "..", "examples", "cutile", "decode_attention.py"))
}

// TestDecodeAttentionScriptCatchesWrongKernels: the __main__ block's check
// fails when a kernel is wrong (the combine's rescaling by exp2(m_i - m)
// dropped; the last key tile unmasked), so passing it means something.
func TestDecodeAttentionScriptCatchesWrongKernels(t *testing.T) {
	path := filepath.Join("..", "..", "examples", "cutile", "decode_attention.py")
	for _, c := range []struct{ old, new string }{
		{"w = ct.exp2(m_s - ct.max(m_s, axis=0, keepdims=True))", "w = ct.exp2(m_s - m_s)"},
		{"scores = ct.where((keys < S)[:, None], scores, -math.inf)", "scores = scores"},
	} {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(src, []byte(c.old)) {
			t.Fatalf("decode_attention.py no longer has %q", c.old)
		}
		src = bytes.Replace(src, []byte(c.old), []byte(c.new), 1)
		err = loadScript(t, path, src).RunMain(Options{})
		if err == nil || !strings.Contains(err.Error(), "Tensor-likes are not close") {
			t.Errorf("with %q the script gave %v", c.new, err)
		}
	}
}
