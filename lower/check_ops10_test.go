package lower_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/tilec/tilec/lang"
	"github.com/tilec/tilec/lower"
)

// TestCheckRejectsInterpreterOnlyOps: each op that only the interpreter
// runs is a GPU error at its position, naming it.
func TestCheckRejectsInterpreterOnlyOps(t *testing.T) {
	const head = "import cuda.tile as ct\n\ndef add(a, b):\n    return a + b\n\n@ct.kernel\ndef k(A: ct.Array[ct.int32, (64, 64)]):\n    x = ct.load(A, index=(0, 0), shape=(16, 16))\n    i = ct.arange(16, dtype=ct.int32)\n"
	for _, tc := range []struct{ line, op string }{
		{"    ct.printf(\"%d\\n\", x)", "printf"},
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

// An atomic whose old values are used on a tile smaller than the block (a
// layout with copies in other warps) is a positioned error; a bf16 atomic
// add needs sm_90.
func TestCheckRejectsAtomics(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"import cuda.tile as ct\n\n@ct.kernel\ndef k(A: ct.Array[ct.int32, (64,)]):\n    i = ct.arange(32, dtype=ct.int32)\n    o = ct.atomic_add(A, i, i)\n    ct.scatter(A, i + 32, o)\n",
			"k.py:6:9: ptxgen sm_80: atomic_rmw: the old values of a tile of tile<32xi32> are not supported yet"},
		{"import cuda.tile as ct\n\n@ct.kernel\ndef k(A: ct.Array[ct.bfloat16, (64,)]):\n    i = ct.arange(64, dtype=ct.int32)\n    ct.atomic_add(A, i, ct.ones((64,), dtype=ct.bfloat16))\n",
			"k.py:6:5: ptxgen sm_80: atomic_rmw add of bf16 needs sm_90"},
	} {
		f := buildSource(t, "k.py", tc.src, nil)
		_, err := lower.LowerVariants(f, lower.MustTarget("sm_80"), lower.Options{Verify: true})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("got %v, want %q", err, tc.want)
		}
	}
}

// TestCheckReportsEveryInstruction: the check pass reports each instruction
// the target cannot run, sorted, not only the first; the same error of a
// helper inlined twice is given once.
func TestCheckReportsEveryInstruction(t *testing.T) {
	src := "import cuda.tile as ct\n\ndef show(x):\n    ct.printf(\"%f\\n\", x)\n\n@ct.kernel\ndef k(A: ct.Array[ct.float64, (64,)]):\n" +
		"    x = ct.load(A, index=(0,), shape=(16,))\n    show(x)\n    show(x)\n    ct.store(A, index=(0,), tile=ct.exp(x))\n    ct.store(A, index=(1,), tile=ct.sin(x))\n"
	f := buildSource(t, "k.py", src, nil)
	_, err := lower.LowerVariants(f, lower.MustTarget("sm_80"), lower.Options{Verify: true})
	var list lang.ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("want a lang.ErrorList, got %T: %v", err, err)
	}
	var got []string
	for _, e := range list {
		got = append(got, e.Pos.String()+": "+e.Msg)
	}
	want := []string{
		"k.py:4:5: ptxgen sm_80: printf is not supported on the GPU yet (the interpreter runs it)",
		"k.py:11:34: ptxgen sm_80: exp on f64 is not supported yet",
		"k.py:12:34: ptxgen sm_80: sin on f64 is not supported yet",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
