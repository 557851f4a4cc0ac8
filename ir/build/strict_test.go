package build

import (
	"strings"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/lang"
)

// Strict mode reports each of tilec's extensions to cuTile 1.6 where it
// is, saying what cuTile takes instead; the same source builds without it.
func TestStrict(t *testing.T) {
	src := `import cuda.tile as ct


@ct.kernel(grid=(1,))
def k(X: ct.Array[ct.float32, (4, 8)], Y: ct.Array[ct.float32, (4, 1)], Z: ct.Array[ct.int32, (8,)]):
    x = ct.load(X, index=(0, 0), shape=(4, 8))
    s = x.sum(axis=1, keepdims=True)
    m = ct.max(x, axis=1, keepdims=True)
    ct.store(Y, index=(0, 0), tile=(s + m).reshape(4, 1))
    ct.store(Z, index=(0,), tile=ct.arange(8))
`
	file, err := lang.Parse("k.py", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := File(file, Options{}); err != nil {
		t.Fatalf("without Strict: %v", err)
	}
	_, err = File(file, Options{Strict: true})
	if err == nil {
		t.Fatal("Strict built the extensions")
	}
	msg := err.Error()
	for _, want := range []string{
		"k.py:4:12: @ct.kernel(grid=...) is a tilec extension, not cuTile 1.6 (--strict): cuTile gives the grid to ct.launch",
		"k.py:5:7: a ct.Array[dtype, shape] annotation is a tilec extension",
		"k.py:5:40: a ct.Array[dtype, shape] annotation",
		"k.py:5:73: a ct.Array[dtype, shape] annotation",
		"k.py:7:9: t.sum(...) is a tilec extension, not cuTile 1.6 (--strict): cuTile's Tile has no method sum; write ct.sum(t, ...)",
		"k.py:9:36: t.reshape with the dims unpacked is a tilec extension, not cuTile 1.6 (--strict): cuTile takes one tuple",
		"k.py:10:34: ct.arange without dtype= is a tilec extension, not cuTile 1.6 (--strict): cuTile requires it",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("no %q in:\n%s", want, msg)
		}
	}
	// ct.max(x, ...), the function form, is cuTile's own.
	if strings.Contains(msg, ":8:") {
		t.Errorf("ct.max reported:\n%s", msg)
	}

	// A helper inlined at two calls reports its extension once.
	src = `import cuda.tile as ct


def rowsum(x):
    return x.sum(axis=1, keepdims=True)


@ct.kernel
def k(X, Y):
    x = ct.load(X, index=(0, 0), shape=(4, 8))
    ct.store(Y, index=(0, 0), tile=rowsum(x) + rowsum(x * 2.0))
`
	file, err = lang.Parse("h.py", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	args := map[string]ArgSig{"X": {DType: ir.F32, Dims: []ir.Dim{{Size: 4}, {Size: 8}}}, "Y": {DType: ir.F32, Dims: []ir.Dim{{Size: 4}, {Size: 1}}}}
	_, err = File(file, Options{Args: args, Strict: true})
	if err == nil || strings.Count(err.Error(), "t.sum(...) is a tilec extension") != 1 {
		t.Errorf("helper called twice: %v", err)
	}
}
