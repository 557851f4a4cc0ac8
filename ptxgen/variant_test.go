package ptxgen

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/tilec/tilec/lower"
)

func TestAligned16(t *testing.T) {
	for _, c := range []struct {
		a    ArrayArg
		want bool
	}{
		{ArrayArg{Addr: 1 << 20, ElemBytes: 2, Strides: []int64{4096, 1}}, true},
		{ArrayArg{Addr: 1<<20 + 2, ElemBytes: 2, Strides: []int64{4096, 1}}, false}, // offset view
		{ArrayArg{Addr: 1 << 20, ElemBytes: 2, Strides: []int64{999, 1}}, false},    // K=999 rows
		{ArrayArg{Addr: 1 << 20, ElemBytes: 2, Strides: []int64{1, 4096}}, false},   // transposed
		{ArrayArg{Addr: 1 << 20, ElemBytes: 4, Strides: []int64{4, 1}}, true},
		{ArrayArg{Addr: 1 << 20, ElemBytes: 2, Strides: []int64{8 * 64, 8, 1}}, true},
		{ArrayArg{Addr: 1 << 20, ElemBytes: 2, Strides: []int64{3, 8, 1}}, false},
		{ArrayArg{Addr: 0, ElemBytes: 2, Strides: nil}, false},
	} {
		if got := c.a.Aligned16(); got != c.want {
			t.Errorf("%+v: Aligned16 = %v, want %v", c.a, got, c.want)
		}
	}
}

// TestVariants checks that the matmul family compiles to a fast variant
// with only the cp.async copy loop and a general one with only the
// element-wise loop, with the same launch ABI, and that other kernels keep
// one variant.
func TestVariants(t *testing.T) {
	for _, c := range []struct {
		file   string
		consts map[string]string
	}{
		{"matmul.tile", nil},
		{"matmul.tile", map[string]string{"T": "tf32"}},
		{"matmul_bt.tile", map[string]string{"tm": "128", "tn": "256", "tk": "64"}},
		{"matmul_bias_relu.tile", nil},
		{"batched_matmul.tile", nil},
	} {
		// sm_90: Hopper's shared memory holds the f32 tiles' ring.
		tg := lower.MustTarget("sm_90")
		_, _, k := compileExample(t, c.file, c.consts, tg)
		gen := k.General
		if k.Variant != VariantFast || gen == nil || gen.Variant != VariantGeneral {
			t.Fatalf("%s %v: variant %q, general %v", c.file, c.consts, k.Variant, gen != nil)
		}
		if len(k.FastArrays) != 2 || k.FastArrays[0] != 0 || k.FastArrays[1] != 1 {
			t.Errorf("%s: FastArrays %v, want [0 1] (A and B)", c.file, k.FastArrays)
		}
		if gen.Name != k.Name || gen.Block != k.Block || gen.SharedBytes != k.SharedBytes || len(gen.Params) != len(k.Params) {
			t.Errorf("%s: the variants' launch ABIs differ", c.file)
		}
		if nf, ng := strings.Count(k.PTX, "ld.global"), strings.Count(gen.PTX, "ld.global"); nf*10 > ng {
			t.Errorf("%s: fast variant has %d ld.global (general %d): element-wise copies?", c.file, nf, ng)
		}
		for _, bad := range []string{"slowloop", "cpslow"} {
			if strings.Contains(k.PTX, bad) {
				t.Errorf("%s: fast variant has %s", c.file, bad)
			}
		}
		if !strings.Contains(k.PTX, "cp.async.cg") || !strings.Contains(k.PTX, "mma.sync") {
			t.Errorf("%s: fast variant lacks cp.async.cg or mma.sync", c.file)
		}
		for _, bad := range []string{"slowloop", "cp.async.cg"} {
			if strings.Contains(gen.PTX, bad) {
				t.Errorf("%s: general variant has %s", c.file, bad)
			}
		}
		if !strings.Contains(gen.PTX, "ld.global") {
			t.Errorf("%s: general variant has no element-wise copy", c.file)
		}
		aligned := ArrayArg{Addr: 256, ElemBytes: 2, Strides: []int64{64, 1}}
		odd := ArrayArg{Addr: 256, ElemBytes: 2, Strides: []int64{999, 1}}
		if !k.FastPathOK([]ArrayArg{aligned, aligned, odd}) || k.ForLaunch([]ArrayArg{aligned, aligned, odd}) != k {
			t.Errorf("%s: aligned A and B (unaligned C) refused", c.file)
		}
		if k.FastPathOK([]ArrayArg{aligned, odd, aligned}) || k.ForLaunch([]ArrayArg{odd, aligned}) != gen {
			t.Errorf("%s: unaligned B accepted", c.file)
		}
		if !gen.FastPathOK(nil) {
			t.Errorf("%s: general variant refused a launch", c.file)
		}
	}
	// No pipelined shared-memory copies: one variant.
	_, k := lowerEmit(t, buildFile(t, filepath.Join("testdata", "copy.tile"), nil), lower.MustTarget("sm_80"))
	if k.Variant != "" || k.General != nil || !k.FastPathOK(nil) {
		t.Errorf("copy kernel: variant %q, general %v", k.Variant, k.General != nil)
	}
}
