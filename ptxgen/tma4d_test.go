package ptxgen

import (
	"regexp"
	"strconv"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/lower"
)

// TestTMALoad4DCoordinates: a tma_load of one matrix of a (B, H, S, D)
// array gives the 4-D map's coordinates innermost first, {col, row, h,
// b}, the leading indices (b, h) as they are (the map's boxes are one
// element deep along those axes); a 3-D array's batch index comes third.
func TestTMALoad4DCoordinates(t *testing.T) {
	for _, c := range []struct {
		rank              int
		dims, idx, coords string
	}{
		{4, "?x?x?x?", "%2, %3, %1, %1", `\{%r\d+, %r\d+, HREG, BREG\}`},
		{3, "?x?x?", "%2, %1, %1", `\{%r\d+, %r\d+, BREG\}`},
	} {
		// %2 (5) is the batch, %3 (7) the head.
		text := "kernel @k(%0 A: array<" + c.dims + "xf16>, %1 n: i32) lowered(num_warps=4, smem_bytes=8200) {\n" +
			"%2 = const {value=5} : i32\n%3 = const {value=7} : i32\n" +
			"%4 = smem_alloc {layout=smem, row_bytes=128, slab_bytes=8192, smem=0, stage_bytes=8192, stages=1} : tile<64x64xf16>\n" +
			"%5 = mbar_alloc {count=1, smem=8192, stages=1} : i32\n" +
			"barrier\n" +
			"%6 = smem_slot %4, %1 {layout=smem} : tile<64x64xf16>\n" +
			"tma_load %0[" + c.idx + "], %6, %5, %1\n" +
			"return\n}\n"
		f, err := ir.ParseFunc(text)
		if err != nil {
			t.Fatalf("%s: %v", c.dims, err)
		}
		if err := ir.Verify(f); err != nil {
			t.Fatalf("%s: %v", c.dims, err)
		}
		k, err := EmitKernel(f, lower.MustTarget("sm_90a"))
		if err != nil {
			t.Fatalf("%s: %v", c.dims, err)
		}
		reg := func(v int) string {
			m := regexp.MustCompile(`mov\.b32 (%r\d+), ` + strconv.Itoa(v) + `;`).FindStringSubmatch(k.PTX)
			if m == nil {
				t.Fatalf("%s: no register holds %d:\n%s", c.dims, v, k.PTX)
			}
			return regexp.QuoteMeta(m[1])
		}
		pat := regexp.MustCompile(`HREG|BREG`).ReplaceAllStringFunc(c.coords, func(s string) string {
			if s == "HREG" {
				return reg(7)
			}
			return reg(5)
		})
		if !regexp.MustCompile(`cp\.async\.bulk\.tensor\.` + strconv.Itoa(len(c.idx)/4+1) + `d\.shared::cluster\.global\.tile\.mbarrier::complete_tx::bytes \[%r\d+\], \[%rd\d+, ` + pat + `\]`).MatchString(k.PTX) {
			t.Errorf("array<%sxf16>: no copy with coordinates %s:\n%s", c.dims, pat, k.PTX)
		}
	}
}
