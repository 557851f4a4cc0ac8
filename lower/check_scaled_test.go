package lower_test

import (
	"strings"
	"testing"

	"github.com/tilec/tilec/lower"
)

// TestCheckScaled: mma_scaled and every use of its float8_e8m0fnu scales
// are positioned refusals on both targets (ptxgen has no e8m0 code; before
// this check it emitted an invalid cvt for the conversion).
func TestCheckScaled(t *testing.T) {
	src := "import cuda.tile as ct\n\n@ct.kernel\n" +
		"def k(A: ct.Array[ct.float8_e4m3fn, (64, 64)], S: ct.Array[ct.float8_e8m0fnu, (64, 2)], C: ct.Array[ct.float32, (64, 64)]):\n" +
		"    a = ct.load(A, index=(0, 0), shape=(64, 64))\n" +
		"    s = ct.load(S, index=(0, 0), shape=(64, 2))\n" +
		"    ct.store(C, index=(0, 0), tile=ct.mma_scaled(a, s, a, ct.permute(s, (1, 0)), ct.zeros((64, 64), dtype=ct.float32)))\n"
	f := buildSource(t, "k.py", src, nil)
	for _, target := range []string{"sm_80", "sm_90a"} {
		_, err := lower.LowerVariants(f, lower.MustTarget(target), lower.Options{Verify: true})
		if err == nil {
			t.Fatalf("%s: mma_scaled lowered", target)
		}
		for _, want := range []string{
			"k.py:6:9: ptxgen " + target + ": load: float8_e8m0fnu (mma_scaled's scale factors) is not supported on the GPU yet",
			"k.py:7:36: ptxgen " + target + ": mma_scaled is not supported on the GPU yet (block-scaled mma runs on the interpreter: --backend cpu)",
		} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: got %v\nwant %q", target, err, want)
			}
		}
	}
}
