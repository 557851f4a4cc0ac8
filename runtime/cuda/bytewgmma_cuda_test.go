//go:build cuda

package cuda

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/runtime"
	"github.com/tilec/tilec/runtime/compile"
)

// TestCUDAByteWGMMAPatterns runs the float8 and int8 GEMMs with B given as (N, K)
// (wgmma on sm_90a) on inputs whose products name their operands: A the
// identity and B[n][k] = n mod 16 or k mod 16 (exact in e4m3 and int8), so C = B^T
// shows which row of B and which k each output element read, and the
// reverse with B the identity. A wrong descriptor, swizzle, tensor map or
// tile index shows as a pattern (wrong elements per 16x16 block), not as
// noise: this is how a block id read inside the k-loop was found, which
// the persistent loop had left as the hardware's. The f16 kernel of
// testdata/kernels/matmul_bt.tile is the control. (The random cases are
// gpu-check's.)
func TestCUDAByteWGMMAPatterns(t *testing.T) {
	c := testGPU(t)
	for _, cfg := range []struct {
		file, tm, tn, tk string
		in, out          ir.DType
	}{
		{"../../testdata/kernels/matmul_bt.tile", "64", "64", "32", ir.F16, ir.F16},
		{"../testdata/kernels/float8_matmul.tile", "64", "64", "64", ir.F8E4M3, ir.BF16},
		{"../testdata/kernels/float8_matmul.tile", "64", "128", "64", ir.F8E4M3, ir.BF16},
		{"../testdata/kernels/float8_matmul.tile", "128", "64", "64", ir.F8E4M3, ir.BF16},
		{"../testdata/kernels/float8_matmul.tile", "64", "64", "128", ir.F8E4M3, ir.BF16},
		{"../testdata/kernels/float8_matmul.tile", "128", "256", "128", ir.F8E4M3, ir.BF16},
		{"../testdata/kernels/int8_matmul.tile", "64", "64", "64", ir.I8, ir.I32},
		{"../testdata/kernels/int8_matmul.tile", "128", "256", "128", ir.I8, ir.I32},
	} {
		tk := cfg.tm + "x" + cfg.tn + "x" + cfg.tk
		opts := compile.Options{Consts: map[string]string{"tm": cfg.tm, "tn": cfg.tn, "tk": cfg.tk}}
		switch cfg.in {
		case ir.F16:
			opts.Consts["T"] = "f16"
		case ir.I8:
			opts.Kernel = "int8_matmul_bt" // C starts from C's values: zeros here
		default:
			opts.Kernel = "float8_matmul_bt"
			opts.Consts["FAST"] = "True" // use_fast_acc: float8 wgmma
		}
		k, err := compile.File(filepath.Join(cfg.file), opts)
		if err != nil {
			t.Fatal(err)
		}
		logInfo(t, c, k)
		const n = 256
		for _, tc := range []struct {
			name string
			a, b func(i, j int) float64
			want func(m, n int) float64
		}{
			{"A=I B=row", eye, func(i, j int) float64 { return float64(i % 16) }, func(m, n int) float64 { return float64(n % 16) }},
			{"A=I B=k", eye, func(i, j int) float64 { return float64(j % 16) }, func(m, n int) float64 { return float64(m % 16) }},
			{"A=row B=I", func(i, j int) float64 { return float64(i % 16) }, eye, func(m, n int) float64 { return float64(m % 16) }},
			{"A=k B=I", func(i, j int) float64 { return float64(j % 16) }, eye, func(m, n int) float64 { return float64(n % 16) }},
		} {
			A := runtime.NewTensor(cfg.in, n, n)
			B := runtime.NewTensor(cfg.in, n, n)
			C := runtime.NewTensor(cfg.out, n, n)
			for i := 0; i < n; i++ {
				for j := 0; j < n; j++ {
					A.Set(tc.a(i, j), i, j)
					B.Set(tc.b(i, j), i, j)
				}
			}
			res, err := c.Launch(k, []runtime.Arg{A, B, C}, runtime.LaunchOptions{})
			if info, err := c.CompileInfo(k); err == nil && !strings.Contains(info.Summary(), "wgmma") {
				t.Errorf("%s: not on wgmma: %s", tk, info.Summary())
			}
			if err != nil {
				t.Fatal(err)
			}
			dims, strides, box, _ := tensorMapGeometry(B, [2]int{64, 64})
			t.Logf("%s %s: grid %v; B's map: dims %v strides %v box %v; B %v strides %v, %d bytes", tk, tc.name, res.Grid, dims, strides, box, B.Shape, B.Strides, len(B.Data))
			bad := 0
			var sb strings.Builder
			for m := 0; m < n; m++ {
				for j := 0; j < n; j++ {
					if C.At(m, j) != tc.want(m, j) {
						bad++
					}
				}
			}
			if bad > 0 {
				// Wrong elements per 16x16 block, and the values of the
				// first wrong block's first row.
				fr, fc := -1, -1
				for bm := 0; bm < n/16; bm++ {
					for bn := 0; bn < n/16; bn++ {
						w := 0
						for m := bm * 16; m < bm*16+16; m++ {
							for j := bn * 16; j < bn*16+16; j++ {
								if C.At(m, j) != tc.want(m, j) {
									w++
								}
							}
						}
						if w > 0 && fr < 0 {
							fr, fc = bm*16, bn*16
						}
						fmt.Fprintf(&sb, "%4d", w)
					}
					sb.WriteString("\n")
				}
				for m := fr; m < fr+4; m++ {
					fmt.Fprintf(&sb, "C[%d, %d:%d] =", m, fc, fc+16)
					for j := fc; j < fc+16; j++ {
						fmt.Fprintf(&sb, " %g", C.At(m, j))
					}
					sb.WriteString("\n")
				}
				t.Errorf("tk=%s %s: %d of %d wrong; per 16x16 block:\n%s", tk, tc.name, bad, n*n, sb.String())
			}
		}
	}
}

func eye(i, j int) float64 {
	if i == j {
		return 1
	}
	return 0
}
