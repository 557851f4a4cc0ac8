package ptxgen

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/ir/build"
	"github.com/tilec/tilec/lang"
	"github.com/tilec/tilec/lower"
)

// TestFloat8MMAPTX: float8 GEMMs take mma.sync m16n8k32 on sm_89 and
// sm_90a (wgmma where B is given as (N, K): it reads one-byte operands
// K-major only), with the
// module at PTX ISA 8.4 (what ptxas asks for fp8 mma) and operands read
// by ldmatrix where they are K-contiguous ((M, K) A, (N, K) B) and by
// byte loads where they are not ((K, N) B). Kernels without a float8 mma
// keep the target's .version. sm_80 has no float8 mma: two f16 m16n8k16
// per k-step of 32 on the converted fragments.
func TestFloat8MMAPTX(t *testing.T) {
	for _, tc := range []struct {
		kernel, target, tb string
		must, mustNot      []string
	}{
		{"float8_matmul", "sm_90a", "float8_e4m3fn",
			[]string{`\.version 8\.4\n\.target sm_90a`, `mma\.sync\.aligned\.m16n8k32\.row\.col\.f32\.e4m3\.e4m3\.f32`, `ldmatrix\.sync\.aligned\.m8n8\.x4\.shared\.b16`, `ld\.shared\.u8`},
			[]string{`wgmma`, `ld\.local`, `m16n8k16`, `ldmatrix[^;]*\.trans`}},
		{"float8_matmul", "sm_89", "float8_e5m2",
			[]string{`\.version 8\.4\n\.target sm_89`, `mma\.sync\.aligned\.m16n8k32\.row\.col\.f32\.e4m3\.e5m2\.f32`},
			[]string{`m16n8k16`, `ldmatrix[^;]*\.trans`}},
		{"float8_matmul", "sm_80", "float8_e4m3fn",
			[]string{`\.version 7\.0\n\.target sm_80`, `mma\.sync\.aligned\.m16n8k16\.row\.col\.f32\.f16\.f16\.f32`, `ldmatrix\.sync\.aligned\.m8n8\.x4\.shared\.b16`, `ld\.shared\.u8`},
			[]string{`m16n8k32`, `e4m3`, `ld\.local`}},
		{"float8_matmul_at", "sm_90a", "float8_e4m3fn",
			[]string{`mma\.sync\.aligned\.m16n8k32\.row\.col\.f32\.e5m2\.e4m3\.f32`, `ld\.shared\.u8`},
			[]string{`wgmma`, `ldmatrix`, `ld\.local`}},
		// B given as (N, K) and use_fast_acc: both operands K-major, which
		// is what wgmma takes for one-byte types: k32 steps, no transpose
		// operands, the 64-byte swizzle for 64-byte rows of K; PTX 8.0 has
		// it (the fast variant's module; the general one keeps mma.sync at
		// 8.4). Without use_fast_acc: mma.sync (float32 sums).
		{"float8_matmul_bt", "sm_90a", "float8_e4m3fn",
			[]string{`\.version 8\.4\n\.target sm_90a`, `mma\.sync\.aligned\.m16n8k32\.row\.col\.f32\.e4m3\.e4m3\.f32`, `ldmatrix\.sync\.aligned\.m8n8\.x4\.shared\.b16`},
			[]string{`wgmma`, `ld\.shared\.u8`, `ldmatrix[^;]*\.trans`}},
		{"float8_matmul_bt", "sm_90a", "float8_e5m2 fast",
			[]string{`\.version 8\.0\n\.target sm_90a`, `wgmma\.mma_async\.sync\.aligned\.m64n64k32\.f32\.e4m3\.e5m2 \{(%f\d+, ){31}%f\d+\}, %rd\d+, %rd\d+, %p\d+, 1, 1;`, `cp\.async\.bulk\.tensor\.2d`},
			[]string{`mma\.sync`, `ld\.shared`, `ldmatrix`, `k16`}},
	} {
		t.Run(tc.kernel+"/"+tc.target+"/"+tc.tb, func(t *testing.T) {
			consts := map[string]string{"TB": tc.tb}
			if tb, ok := strings.CutSuffix(tc.tb, " fast"); ok {
				consts = map[string]string{"TB": tb, "FAST": "True"}
			}
			f := float8MatmulKernel(t, tc.kernel, consts)
			_, k := lowerEmit(t, f, lower.MustTarget(tc.target))
			checkPTXHas(t, "PTX", k.PTX, tc.must, tc.mustNot)
		})
	}
	// A kernel with float8 but no float8 mma keeps sm_89's ISA version.
	f := buildFile(t, "../runtime/testdata/kernels/float8_convert.tile", nil)
	if _, k := lowerEmit(t, f, lower.MustTarget("sm_89")); !regexp.MustCompile(`\.version 7\.8\n`).MatchString(k.PTX) {
		t.Errorf("float8_convert on sm_89: want .version 7.8")
	}
}

// float8MatmulKernel builds a kernel of runtime/testdata/kernels/float8_matmul.tile.
func float8MatmulKernel(t *testing.T, kernel string, consts map[string]string) *ir.Func {
	t.Helper()
	return kernelOfFile(t, "../runtime/testdata/kernels/float8_matmul.tile", kernel, consts)
}

// kernelOfFile builds the named kernel of the file at path.
func kernelOfFile(t *testing.T, path, kernel string, consts map[string]string) *ir.Func {
	t.Helper()
	return kernelOfFileArgs(t, path, kernel, nil, consts)
}

// kernelOfFileArgs builds the named kernel of the file at path, its
// unannotated parameters given by args (name -> signature, as --arg).
func kernelOfFileArgs(t *testing.T, path, kernel string, args, consts map[string]string) *ir.Func {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	af, err := lang.Parse(filepath.Base(path), src)
	if err != nil {
		t.Fatal(err)
	}
	sigs := map[string]build.ArgSig{}
	for name, s := range args {
		if sigs[name], err = build.ParseArgSig(s); err != nil {
			t.Fatal(err)
		}
	}
	m, err := build.File(af, build.Options{Kernel: kernel, Args: sigs, Consts: consts})
	if err != nil {
		t.Fatal(err)
	}
	return m.Funcs[0]
}

// Kernel.Float8FastSums is true exactly for kernels that sum float8
// products on wgmma (use_fast_acc, sm_90a): the GPU check's looser bound
// for reduced-precision sums applies to them only.
func TestFloat8FastSums(t *testing.T) {
	for _, tc := range []struct {
		target, fast string
		want         bool
	}{
		{"sm_90a", "True", true},
		{"sm_90a", "False", false},
		{"sm_89", "True", false}, // mma.sync: float32 sums
	} {
		f := float8MatmulKernel(t, "float8_matmul_bt", map[string]string{"FAST": tc.fast})
		_, k := lowerEmit(t, f, lower.MustTarget(tc.target))
		if got := k.Float8FastSums(); got != tc.want {
			t.Errorf("%s, use_fast_acc=%s: Float8FastSums %v, want %v", tc.target, tc.fast, got, tc.want)
		}
		if k.General != nil && k.General.Float8FastSums() {
			t.Errorf("%s, use_fast_acc=%s: the general variant (mma.sync) reports reduced-precision sums", tc.target, tc.fast)
		}
	}
	_, k := lowerEmit(t, kernelOfFile(t, "../testdata/kernels/matmul_bt.tile", "matmul_bt", map[string]string{"T": "f16"}), lower.MustTarget("sm_90a"))
	if k.Float8FastSums() {
		t.Error("an f16 GEMM reports float8 reduced-precision sums")
	}
}
