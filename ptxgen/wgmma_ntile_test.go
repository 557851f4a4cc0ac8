package ptxgen

import (
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
