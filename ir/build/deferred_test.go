package build

import (
	"strings"
	"testing"

	"github.com/tilec/tilec/lang"
)

// A cuTile program's host code may use Python tilec lacks (read by
// lang.ParseProgram): its kernels still build, unless a kernel calls into
// that code, which then reports the host item's errors; a kernel that uses
// a module imported for host code is told so.
func TestDeferredHostCode(t *testing.T) {
	const prog = `import argparse
import cuda.tile as ct


def helper(x):
    f = yield y
    return f(x)


@ct.kernel(grid=(1,))
def k(X: ct.Array[ct.float32, (4,)]):
    ct.store(X, index=(0,), tile=ct.load(X, index=(0,), shape=(4,)) * 2)


def host(x):
    p = argparse.ArgumentParser()
    return [i for i in range(3)]
`
	f, err := lang.ParseProgram("p.py", []byte(prog))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := File(f, Options{}); err != nil {
		t.Fatalf("the kernel of a program with host-only Python: %v", err)
	}
	for _, c := range []struct{ body, want string }{
		{"ct.store(X, index=(0,), tile=helper(ct.load(X, index=(0,), shape=(4,))))", "p.py:6:9: 'yield' is not supported"},
		{"ct.store(X, index=(0,), tile=ct.load(X, index=(0,), shape=(4,)) * argparse.x)", "argparse is the module argparse, imported for host code (line 1)"},
	} {
		src := strings.Replace(prog, "ct.store(X, index=(0,), tile=ct.load(X, index=(0,), shape=(4,)) * 2)", c.body, 1)
		f, err := lang.ParseProgram("p.py", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := File(f, Options{}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.body, err, c.want)
		}
	}
}
