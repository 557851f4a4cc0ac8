package host

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestProgramModules: a program's own modules, beside its file, are loaded
// when a name imported from them is first used (`from utils.bench import
// f`, a package directory; `from .helpers import g`, relative), and their
// functions run in their own module's globals: a function given to them
// (the program's, a lambda) runs in the program's. A kernel of a module
// launches from it. torch.cuda.Event times host work as wall-clock
// milliseconds between two record() calls. A missing name is Python's
// ImportError at the import; a module's error is positioned in its file.
func TestProgramModules(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) {
		t.Helper()
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("utils/bench.py", `import torch
from math import ceil

SCALE = 10


def timed(f, args):
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    start.record()
    r = f(*args)
    end.record()
    torch.cuda.synchronize()
    return r * SCALE, start.elapsed_time(end) >= 0.0


def broken():
    return undefined_name + 1
`)
	write("helpers.py", `import cuda.tile as ct
import torch


@ct.kernel
def twice(x, y, T: ct.Constant[int]):
    i = ct.bid(0)
    ct.store(y, index=(i,), tile=ct.load(x, index=(i,), shape=(T,)) * 2.0)


def double(x):
    y = torch.empty_like(x)
    ct.launch(torch.cuda.current_stream(), (x.shape[0] // 4,), twice, (x, y, 4))
    return y
`)
	main := `import torch
from utils.bench import timed, SCALE, broken
from .helpers import double

SCALE_HERE = 3


def add(a, b):
    return a + b + SCALE_HERE


if __name__ == "__main__":
    print(timed(add, (1, 2)), timed(lambda v: v * SCALE_HERE, [2]), SCALE)
    x = torch.arange(8, dtype=torch.float32)
    print(double(x).sum().item())
    broken()
`
	write("prog.py", main)
	var out strings.Builder
	err := load(t, filepath.Join(dir, "prog.py"), []byte(main)).RunMain(Options{Stdout: &out})
	if want := "(60, True) (60, True) 10\n56.0\n"; out.String() != want {
		t.Errorf("printed %q, want %q", out.String(), want)
	}
	if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "utils", "bench.py")+":18:12: name undefined_name is not defined") {
		t.Errorf("an error in a module: %v", err)
	}

	missing := strings.ReplaceAll(main, "double", "triple")
	write("prog.py", missing)
	err = load(t, filepath.Join(dir, "prog.py"), []byte(missing)).RunMain(Options{Stdout: &out})
	if err == nil || !strings.Contains(err.Error(), "prog.py:3:22: ImportError: cannot import name triple") {
		t.Errorf("a name a module does not have: %v", err)
	}
}
