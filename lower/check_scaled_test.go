package lower_test

import (
	"strings"
	"testing"

	"github.com/tilec/tilec/lower"
)

// TestCheckScaled: a 2-D mma_scaled lowers on both targets (the scaled
// pass's float8 mmas; runtime/interp runs that rewrite against float64),
// a batched one and float8_e8m0fnu values outside loads, stores, moves and
// conversions are positioned refusals.
func TestCheckScaled(t *testing.T) {
	head := "import cuda.tile as ct\n\n@ct.kernel\n" +
		"def k(A: ct.Array[ct.float8_e4m3fn, (64, 64)], S: ct.Array[ct.float8_e8m0fnu, (64, 2)], C: ct.Array[ct.float32, (64, 64)]):\n" +
		"    a = ct.load(A, index=(0, 0), shape=(64, 64))\n" +
		"    s = ct.load(S, index=(0, 0), shape=(64, 2))\n"
	for _, tc := range []struct {
		name, body, want string // want "" to lower
	}{
		{"2-D", "    ct.store(C, index=(0, 0), tile=ct.mma_scaled(a, s, a, ct.permute(s, (1, 0)), ct.zeros((64, 64), dtype=ct.float32)))\n", ""},
		{"small", "    ct.store(C, index=(0, 0), tile=ct.mma_scaled(ct.extract(a, (0, 0), shape=(8, 64)), ct.extract(s, (0, 0), shape=(8, 2)), ct.extract(a, (0, 0), shape=(64, 4)), ct.extract(ct.permute(s, (1, 0)), (0, 0), shape=(2, 4)), ct.zeros((8, 4), dtype=ct.float32)))\n", ""},
		{"batched", "    ct.store(C, index=(0, 0), tile=ct.reshape(ct.mma_scaled(ct.reshape(a, (1, 64, 64)), ct.reshape(s, (1, 64, 2)), ct.reshape(a, (1, 64, 64)), ct.reshape(ct.permute(s, (1, 0)), (1, 2, 64)), ct.zeros((1, 64, 64), dtype=ct.float32)), (64, 64)))\n",
			"k.py:7:47: ptxgen TARGET: batched (3-D) mma_scaled is not supported on the GPU yet (2-D is)"},
		{"select", "    ct.store(S, index=(0, 0), tile=ct.where(ct.astype(s, ct.float32) > 1.0, s, s))\n",
			"k.py:7:36: ptxgen TARGET: select: float8_e8m0fnu (mma_scaled's scale factors) is not supported on the GPU yet"},
	} {
		for _, target := range []string{"sm_80", "sm_90a"} {
			t.Run(tc.name+"/"+target, func(t *testing.T) {
				f := buildSource(t, "k.py", head+tc.body, nil)
				_, err := lower.LowerVariants(f, lower.MustTarget(target), lower.Options{Verify: true})
				want := strings.ReplaceAll(tc.want, "TARGET", target)
				switch {
				case want == "" && err != nil:
					t.Fatalf("want no error, got %v", err)
				case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
					t.Fatalf("got %v, want %q", err, want)
				}
			})
		}
	}
}
