package ptxgen

import (
	"regexp"
	"strings"
	"testing"

	"github.com/tilec/tilec/lower"
)

// The f32 B tile (64 x 256: 4 rows per pass of 256 threads, half the
// swizzle period) is copied in the regular form with two shared bases,
// not chunk by chunk with per-chunk 64-bit offsets kept across the loop
// (those made the tf32 fast loop spill; docs/perf.md, v6).
func TestRegularCopyHalfPeriod(t *testing.T) {
	_, _, k := compileExample(t, "matmul.tile", map[string]string{"T": "tfloat32"}, lower.MustTarget("sm_90"))
	if n := strings.Count(k.PTX, "cvt.u64.u32"); n > 16 {
		t.Errorf("%d cvt.u64.u32 in the f32 matmul: per-chunk copy offsets are back", n)
	}
	if n := strings.Count(k.PTX, "cp.async.cg.shared.global"); n != 48 {
		t.Errorf("%d cp.async in the f32 matmul, want 48 (2 stages x (8 A + 16 B chunks))", n)
	}
}

// The element-wise copy has a unit-stride form addressing the elements of
// a chunk with immediate offsets, and a general form under a uniform
// branch; no per-element stride offset is hoisted out of the loop.
func TestSlowCopyForms(t *testing.T) {
	_, _, fast := compileExample(t, "matmul.tile", nil, lower.MustTarget("sm_80"))
	k := fast.General // the element-wise copies
	if !strings.Contains(k.PTX, "$L_cpgen_") {
		t.Error("no general-stride form of the element-wise copy")
	}
	imm := regexp.MustCompile(`ld\.global\.b16 %h\d+, \[%rd\d+\+14\]`)
	if n := len(imm.FindAllString(k.PTX, -1)); n == 0 {
		t.Error("unit-stride element-wise copy does not use immediate offsets")
	}
	// v5 hoisted i*stride*2 for i = 1..7 per array: mul.lo.s64 by 2..14.
	hoisted := regexp.MustCompile(`mul\.lo\.s64 %rd\d+, %rd\d+, (4|6|8|10|12|14);`)
	if n := len(hoisted.FindAllString(k.PTX, -1)); n != 0 {
		t.Errorf("%d per-element stride offsets computed", n)
	}
}
