package lower_test

import (
	"strings"
	"testing"

	"github.com/tilec/tilec/lower"
)

// float8Kernel is a kernel with body lines over a float8_e4m3fn tile x
// (A), a float8_e5m2 tile y (B) and a float32 array C; kernelLine is the
// line of its first body line.
func float8Kernel(body string) string {
	return "import cuda.tile as ct\n\n@ct.kernel\n" +
		"def k(A: ct.Array[ct.float8_e4m3fn, (64, 64)], B: ct.Array[ct.float8_e5m2, (64, 64)], C: ct.Array[ct.float32, (64, 64)]):\n" +
		"    x = ct.load(A, index=(0, 0), shape=(32, 32))\n" +
		"    y = ct.load(B, index=(0, 0), shape=(32, 32))\n" + body
}

// TestCheckFloat8: float8 loads, stores, gathers, constants, conversions,
// the exactly rounded arithmetic and mma into f32 lower (sm_80 too); what
// the GPU does not run is a positioned error naming it.
func TestCheckFloat8(t *testing.T) {
	for _, tc := range []struct {
		name, target, body string
		want               string // "" to lower
	}{
		{"convert", "sm_80", "    z = ct.astype(ct.astype(x, ct.float32) * 2.0, ct.float8_e5m2)\n    ct.store(B, index=(0, 1), tile=ct.maximum(z * y - y, y / z))\n    ct.store(C, index=(0, 0), tile=ct.astype(ct.where(x > ct.astype(y, ct.float8_e4m3fn), x, -x), ct.float32))\n", ""},
		{"mma sm_89", "sm_89", "    ct.store(C, index=(0, 0), tile=ct.mma(x, y, ct.zeros((32, 32), dtype=ct.float32)))\n", ""},
		{"mma sm_90a", "sm_90a", "    ct.store(C, index=(0, 0), tile=ct.mma(x, y, ct.zeros((32, 32), dtype=ct.float32)))\n", ""},
		{"mma sm_80", "sm_80", "    ct.store(C, index=(0, 0), tile=ct.mma(x, y, ct.zeros((32, 32), dtype=ct.float32)))\n", ""},
		{"mma into f16", "sm_90a", "    ct.store(C, index=(0, 0), tile=ct.astype(ct.mma(x, y, ct.zeros((32, 32), dtype=ct.float16)), ct.float32))\n",
			"k.py:7:46: ptxgen sm_90a: mma f8e4m3 x f8e5m2 -> f16 is not supported on the GPU yet (float8 inputs accumulate in f32 there)"},
		{"exp", "sm_80", "    ct.store(A, index=(0, 1), tile=ct.exp(x))\n",
			"k.py:7:36: ptxgen sm_80: exp: dtype f8e4m3 is not supported on the GPU yet"},
		{"scatter", "sm_80", "    ct.scatter(B, (ct.arange(32, dtype=ct.int32), ct.arange(32, dtype=ct.int32)), ct.astype(ct.sum(ct.astype(x, ct.float32), axis=1), ct.float8_e5m2))\n", ""},
		{"gather", "sm_80", "    g = ct.gather(A, (ct.arange(32, dtype=ct.int32), ct.arange(32, dtype=ct.int32)))\n    ct.store(C, index=(0, 0), tile=ct.astype(ct.reshape(g, (32, 1)), ct.float32))\n", ""},
		{"constant", "sm_80", "    ct.store(A, index=(0, 1), tile=x * 2.0)\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := buildSource(t, "k.py", float8Kernel(tc.body), nil)
			_, err := lower.LowerVariants(f, lower.MustTarget(tc.target), lower.Options{Verify: true})
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("want no error, got %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("got %v, want %q", err, tc.want)
			case tc.want != "" && !strings.Contains(err.Error(), "k.py:7:"):
				t.Fatalf("error not at the line: %v", err)
			}
		})
	}
}

// TestExplainFloat8MMA: on sm_90a a float8 GEMM with B given as (K, N)
// takes pipelined mma.sync, and --explain says why not wgmma (it reads
// one-byte operands K-major only; B as (N, K) takes it).
func TestExplainFloat8MMA(t *testing.T) {
	src := "import cuda.tile as ct\n\n@ct.kernel(grid=(ct.cdiv(M, 64), ct.cdiv(N, 64)))\n" +
		"def k(A: ct.Array[ct.float8_e4m3fn, (M, K)], B: ct.Array[ct.float8_e4m3fn, (K, N)], C: ct.Array[ct.float32, (M, N)]):\n" +
		"    acc = ct.full((64, 64), 0, dtype=ct.float32)\n" +
		"    for k in range(ct.num_tiles(A, axis=1, shape=(64, 64))):\n" +
		"        a = ct.load(A, index=(ct.bid(0), k), shape=(64, 64), padding_mode=ct.PaddingMode.ZERO)\n" +
		"        b = ct.load(B, index=(k, ct.bid(1)), shape=(64, 64), padding_mode=ct.PaddingMode.ZERO)\n" +
		"        acc = ct.mma(a, b, acc)\n" +
		"    ct.store(C, index=(ct.bid(0), ct.bid(1)), tile=acc)\n"
	e, err := lower.Explain(buildSource(t, "k.py", src, nil), lower.MustTarget("sm_90a"))
	if err != nil {
		t.Fatal(err)
	}
	c := e.Path()
	if c.Path != lower.PathPipelinedMMASync {
		t.Errorf("path %q, want %q", c.Path, lower.PathPipelinedMMASync)
	}
	want := "k.py:9:15: B is (K, N): wgmma reads one-byte (float8, int8) operands K-major only"
	if len(c.Reasons) == 0 || !strings.HasPrefix(c.Reasons[0].String(), want) {
		t.Errorf("reasons %v, want the first to start %q", c.Reasons, want)
	}
}
