package ptxgen

import (
	"fmt"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/lower"
)

const int8MatmulFile = "../runtime/testdata/kernels/int8_matmul.tile"

// TestInt8MMAPTX: int8 and uint8 GEMMs take mma.sync m16n8k32 with an
// .s32 accumulator, .s8/.u8 operands as the inputs' dtypes say, on sm_80
// and on sm_90a (wgmma where B is given as (N, K)), without .satfinite
// (the sums wrap as the
// interpreter's do), at the target's own PTX ISA version; operands are
// read by ldmatrix where they are K-contiguous and by byte loads where
// they are not, as float8's.
func TestInt8MMAPTX(t *testing.T) {
	for _, tc := range []struct {
		kernel, target string
		consts         map[string]string
		must, mustNot  []string
	}{
		{"int8_matmul", "sm_80", nil,
			[]string{`\.version 7\.0\n\.target sm_80`, `mma\.sync\.aligned\.m16n8k32\.row\.col\.s32\.s8\.s8\.s32 `, `ldmatrix\.sync\.aligned\.m8n8\.x4\.shared\.b16`, `ld\.shared\.u8`},
			[]string{`satfinite`, `ld\.local`, `m16n8k16`, `ldmatrix[^;]*\.trans`, `\.f32`}},
		{"int8_matmul", "sm_90a", map[string]string{"TA": "u8", "TB": "i8"},
			[]string{`\.version 8\.0\n\.target sm_90a`, `mma\.sync\.aligned\.m16n8k32\.row\.col\.s32\.u8\.s8\.s32 `},
			[]string{`wgmma`, `satfinite`, `ld\.local`}},
		{"int8_matmul_bt", "sm_80", map[string]string{"TB": "u8"},
			[]string{`mma\.sync\.aligned\.m16n8k32\.row\.col\.s32\.s8\.u8\.s32 `, `ldmatrix\.sync\.aligned\.m8n8\.x4\.shared\.b16`},
			[]string{`ld\.shared\.u8`, `satfinite`, `ldmatrix[^;]*\.trans`}},
		// B as (N, K): both operands K-major, which wgmma takes for int8
		// (k32, an .s32 accumulator, no scale operands); mixed s8 x u8 is
		// PTX 8.4.
		{"int8_matmul_bt", "sm_90a", nil,
			[]string{`\.version 8\.0\n\.target sm_90a`, `wgmma\.mma_async\.sync\.aligned\.m64n64k32\.s32\.s8\.s8 \{(%r\d+, ){31}%r\d+\}, %rd\d+, %rd\d+, %p\d+;`},
			[]string{`mma\.sync`, `satfinite`, `ld\.local`, `\.f32`}},
		{"int8_matmul_bt", "sm_90a", map[string]string{"TB": "u8"},
			[]string{`\.version 8\.4\n\.target sm_90a`, `wgmma\.mma_async\.sync\.aligned\.m64n64k32\.s32\.s8\.u8 `},
			[]string{`mma\.sync`, `satfinite`}},
		// The padded one-byte operands are staged with byte stores (32-bit
		// stores of their registers were misaligned on the H100).
		{"int8_matmul_small", "sm_80", nil,
			[]string{`mma\.sync\.aligned\.m16n8k32\.row\.col\.s32\.s8\.u8\.s32 `, `mma\.sync\.aligned\.m16n8k32\.row\.col\.s32\.s8\.s8\.s32 `, `st\.shared\.s8 `, `st\.shared\.u8 `},
			[]string{`satfinite`, `ld\.local`}},
	} {
		t.Run(fmt.Sprintf("%s/%s/%v", tc.kernel, tc.target, tc.consts), func(t *testing.T) {
			f := kernelOfFile(t, int8MatmulFile, tc.kernel, tc.consts)
			_, k := lowerEmit(t, f, lower.MustTarget(tc.target))
			checkPTXHas(t, "PTX", k.PTX, tc.must, tc.mustNot)
		})
	}
}

// TestInt8FragmentLoads runs the frag_loads of int8_matmul.tile's lowered
// kernels (B as (K, N) and as (N, K)) lane by lane against the m16n8k32
// fragment layout, as TestFloat8FragmentLoads does for float8.
func TestInt8FragmentLoads(t *testing.T) {
	for _, tc := range []struct {
		kernel, target string
		tm, tn, tk     int
	}{
		{"int8_matmul", "sm_80", 64, 64, 64},
		{"int8_matmul_bt", "sm_80", 64, 64, 64},
		{"int8_matmul", "sm_90a", 128, 128, 128},
		{"int8_matmul_bt", "sm_90a", 128, 64, 32},
	} {
		t.Run(fmt.Sprintf("%s/%s/%dx%dx%d", tc.kernel, tc.target, tc.tm, tc.tn, tc.tk), func(t *testing.T) {
			consts := map[string]string{"tm": fmt.Sprint(tc.tm), "tn": fmt.Sprint(tc.tn), "tk": fmt.Sprint(tc.tk)}
			tg := lower.MustTarget(tc.target)
			vs, err := lower.LowerVariants(kernelOfFile(t, int8MatmulFile, tc.kernel, consts), tg, lower.Options{Verify: true})
			if err != nil {
				t.Fatal(err)
			}
			g := vs[0].Func
			n := 0
			g.Body.Walk(func(in *ir.Instr) {
				if in.Op == ir.OpFragLoad {
					n++
					checkByteFragLoad(t, g, tg, in)
				}
			})
			if n == 0 {
				t.Fatal("no frag_load")
			}
		})
	}
}
