package lower_test

import (
	"strings"
	"testing"

	"github.com/tilec/tilec/lower"
)

// TestCheckRejectsInterpreterOnlyOps: each op that only the interpreter
// runs is a GPU error at its position, naming it.
func TestCheckRejectsInterpreterOnlyOps(t *testing.T) {
	const head = "import cuda.tile as ct\n\ndef add(a, b):\n    return a + b\n\n@ct.kernel\ndef k(A: ct.Array[ct.int32, (64, 64)]):\n    x = ct.load(A, index=(0, 0), shape=(16, 16))\n    i = ct.arange(16, dtype=ct.int32)\n"
	for _, tc := range []struct{ line, op string }{
		{"    ct.store(A, index=(0, 0), tile=ct.gather(A, (i[:, None], i[None, :])))", "gather"},
		{"    ct.scatter(A, (i[:, None], i[None, :]), x)", "scatter"},
		{"    ct.store(A, index=(0, 0), tile=ct.atomic_add(A, (i[:, None], i[None, :]), x))", "atomic_rmw"},
		{"    ct.store(A, index=(0, 0), tile=ct.atomic_cas(A, (i[:, None], i[None, :]), x, x))", "atomic_cas"},
		{"    ct.store(A, index=(0, 0), tile=ct.reduce(x, 1, add, 0, keepdims=True))", "reduce_fn"},
		{"    ct.store(A, index=(0, 0), tile=ct.scan(x, 1, add, 0))", "scan_fn"},
		{"    ct.printf(\"%d\\n\", x)", "printf"},
		{"    ct.assert_(x > 0)", "assert"},
		{"    ct.store(A, index=(0, 0), tile=ct.reshape(ct.unpack_from_bytes(ct.pack_to_bytes(x), ct.int32), (16, 16)))", "pack_bytes"},
	} {
		src := head + tc.line + "\n"
		f := buildSource(t, "k.py", src, nil)
		_, err := lower.LowerVariants(f, lower.MustTarget("sm_80"), lower.Options{Verify: true})
		if err == nil || !strings.Contains(err.Error(), "k.py:10:") || !strings.Contains(err.Error(), "ptxgen sm_80: "+tc.op) || !strings.Contains(err.Error(), "not supported on the GPU yet") {
			t.Errorf("%s: got %v", tc.op, err)
		}
	}
}
