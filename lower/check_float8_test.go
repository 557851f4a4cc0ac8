package lower_test

import (
	"strings"
	"testing"

	"github.com/tilec/tilec/lower"
)

// float8Kernel is a kernel with body lines over a float8_e4m3fn tile x
// (A), a float8_e5m2 tile y (B) and a float32 array C; kernelLine is the
// line of its first body line.
func float8Kernel(body string) string {
	return "import cuda.tile as ct\n\n@ct.kernel\n" +
		"def k(A: ct.Array[ct.float8_e4m3fn, (64, 64)], B: ct.Array[ct.float8_e5m2, (64, 64)], C: ct.Array[ct.float32, (64, 64)]):\n" +
		"    x = ct.load(A, index=(0, 0), shape=(32, 32))\n" +
		"    y = ct.load(B, index=(0, 0), shape=(32, 32))\n" + body
}

// TestCheckFloat8: float8 loads, stores, conversions and the exactly
// rounded arithmetic lower; what the GPU does not run is a positioned
// error naming it.
func TestCheckFloat8(t *testing.T) {
	for _, tc := range []struct {
		name, target, body string
		want               string // "" to lower
	}{
		{"convert", "sm_80", "    z = ct.astype(ct.astype(x, ct.float32) * 2.0, ct.float8_e5m2)\n    ct.store(B, index=(0, 1), tile=ct.maximum(z * y - y, y / z))\n    ct.store(C, index=(0, 0), tile=ct.astype(ct.where(x > ct.astype(y, ct.float8_e4m3fn), x, -x), ct.float32))\n", ""},
		{"exp", "sm_80", "    ct.store(A, index=(0, 1), tile=ct.exp(x))\n",
			"k.py:7:36: ptxgen sm_80: exp: dtype f8e4m3 is not supported on the GPU yet"},
		{"constant", "sm_80", "    ct.store(A, index=(0, 1), tile=x * 2.0)\n",
			"ptxgen sm_80: a f8e4m3 constant is not supported on the GPU yet"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := buildSource(t, "k.py", float8Kernel(tc.body), nil)
			_, err := lower.LowerVariants(f, lower.MustTarget(tc.target), lower.Options{Verify: true})
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("want no error, got %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("got %v, want %q", err, tc.want)
			case tc.want != "" && !strings.Contains(err.Error(), "k.py:7:"):
				t.Fatalf("error not at the line: %v", err)
			}
		})
	}
}
