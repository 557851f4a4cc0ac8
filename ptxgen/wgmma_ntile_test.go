package ptxgen

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tilec/tilec/lower"
)

// TestWGMMANTile32: a GEMM with B given as (K, N) and an N tile of 32
// takes wgmma m64n32k16 with B MN-major in one slab of 64-byte rows: the
// 64-byte swizzle (bits 62-63 = 2), a stride byte offset of 8 rows (512
// bytes), the leading byte offset of the slab (64 rows of K x 64 bytes),
// and each k-step 16 rows (1024 bytes, 64 in the descriptor's units)
// further; TMA copies boxes 32 columns wide. An N tile of 64 keeps the
// 128-byte swizzle's descriptor.
func TestWGMMANTile32(t *testing.T) {
	for _, tc := range []struct {
		tn         string
		must, not_ []string
	}{
		{"32", []string{
			`wgmma\.mma_async\.sync\.aligned\.m64n32k16\.f32\.f16\.f16 `,
			// 2<<62 | (512>>4)<<32 | (4096>>4)<<16, as a signed immediate.
			`or\.b64 %rd\d+, %rd\d+, -9223371899399045120;`,
			`add\.s64 %rd\d+, %rd\d+, 64;`,
			`cp\.async\.bulk\.tensor\.2d`,
			`p_B_tmap_64x32`, // boxes of 64 rows of K by 32 columns
		}, []string{`mma\.sync`, `-9223371899415822336;`}},
		{"64", []string{
			`wgmma\.mma_async\.sync\.aligned\.m64n64k16\.f32\.f16\.f16 `,
			// 1<<62 | (1024>>4)<<32 | (8192>>4)<<16.
			`or\.b64 %rd\d+, %rd\d+, 4611686293338849280;`,
		}, []string{`mma\.sync`}},
	} {
		t.Run("tn="+tc.tn, func(t *testing.T) {
			f := kernelOfFile(t, "../testdata/kernels/matmul.tile", "", map[string]string{"T": "f16", "tm": "64", "tn": tc.tn})
			_, k := lowerEmit(t, f, lower.MustTarget("sm_90a"))
			checkPTXHas(t, "PTX", k.PTX, tc.must, tc.not_)
		})
	}
}

// TestWGMMATransposedA: C^T = B^T A^T (examples/cutile/matmul.py's kernel
// for a few tokens) takes wgmma with A MN-major (trans-a 1: the (K, M)
// tile of B as loaded, one 64-column slab per warpgroup, the slab as the
// leading byte offset, a k-step 16 rows of 128 bytes) and B K-major (the
// (N, K) tile of A: trans-b 0), N the tokens (16).
func TestWGMMATransposedA(t *testing.T) {
	f := kernelOfFileArgs(t, "../examples/cutile/matmul.py", "matmul_swapped_kernel",
		map[string]string{"A": "f16[M,K]", "B": "f16[K,N]", "C": "f16[M,N]"}, map[string]string{"tm": "16", "tn": "64", "tk": "64"})
	_, k := lowerEmit(t, f, lower.MustTarget("sm_90a"))
	checkPTXHas(t, "sm_90a", k.PTX, []string{
		`wgmma\.mma_async\.sync\.aligned\.m64n16k16\.f32\.f16\.f16 \{(%f\d+, ){7}%f\d+\}, %rd\d+, %rd\d+, %p\d+, 1, 1, 1, 0;`,
		// A: 1<<62 | (1024>>4)<<32 | (8192>>4)<<16; its k-steps 2048 bytes.
		`or\.b64 %rd\d+, %rd\d+, 4611686293338849280;`,
		`add\.s64 %rd\d+, %rd\d+, 128;`,
	}, []string{`mma\.sync`, `, 1, 1, 0, 0;`})
	// The general variant multiplies the same transposes on mma.sync.
	checkPTXHas(t, "sm_90a general", k.General.PTX, []string{`mma\.sync\.aligned\.m16n8k16`}, []string{`wgmma`})
}

// A transposed A with B given as (K, N) (both operands MN-major) stays on
// mma.sync until the combination has run on a GPU.
func TestWGMMATransposedABothMNMajorRefused(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "k.py")
	src := `import cuda.tile as ct


@ct.kernel
def k(AT, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    acc = ct.full((tm, tn), 0, dtype=ct.float32)
    for k in range(ct.num_tiles(AT, axis=0, shape=(tk, tm))):
        a = ct.load(AT, index=(k, ct.bid(0)), shape=(tk, tm), padding_mode=ct.PaddingMode.ZERO)
        b = ct.load(B, index=(k, ct.bid(1)), shape=(tk, tn), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(ct.transpose(a), b, acc)
    ct.store(C, index=(ct.bid(0), ct.bid(1)), tile=acc.astype(C.dtype))
`
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	f := kernelOfFileArgs(t, path, "k", map[string]string{"AT": "f16[K,M]", "B": "f16[K,N]", "C": "f16[M,N]"},
		map[string]string{"tm": "64", "tn": "64", "tk": "64"})
	_, k := lowerEmit(t, f, lower.MustTarget("sm_90a"))
	checkPTXHas(t, "sm_90a", k.PTX, []string{`mma\.sync\.aligned\.m16n8k16`}, []string{`wgmma`})
}
