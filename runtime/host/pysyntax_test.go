package host

import (
	"strings"
	"testing"
)

// TestDisplaysAndMembership: dict and set displays and comprehensions,
// and `in`/`not in` on each container, as Python evaluates them (the
// expected values follow Python's rules: 1, 1.0 and True are one key, a
// display keeps the first spelling of a key and the last value, a range
// tests membership by arithmetic, a string by substring).
func TestDisplaysAndMembership(t *testing.T) {
	expectScripts(t, []scriptCase{
		{"print({}, {1: 'a', 'b': (2, 3)}, {1, 2.0, 'x'}, len({}))", "{} {1: 'a', 'b': (2, 3)} {1, 2.0, 'x'} 0"},
		{"print({1: 'a', 1.0: 'b', True: 'c'}, {1, 1.0, True, 2})", "{1: 'c'} {1, 2}"},
		{"print({k: k * k for k in range(5) if k % 2 == 0}, {k % 3 for k in range(7)})", "{0: 0, 2: 4, 4: 16} {0, 1, 2}"},
		{"d = {'a': 1}\ne = {v: k for k, v in d.items()}\nprint(e)", "{1: 'a'}"},
		{"k = 5\nd = {k: k for k in (1, 2)}\nprint(d, k)", "{1: 1, 2: 2} 5"},
		{"d = {'a': 1, 'b': 2}\nprint('a' in d, 1 in d, 'c' not in d, 2 in {1, 2}, 2.0 in {1, 2}, 3 not in {1, 2})", "True False True True True True"},
		{"print(2 in (1, 2), 2.0 in [1, 2], (1, 2) in [(1, 2)], None in (0, None), 1 in (True,), 'x' in ())", "True True True True True False"},
		{"print('ell' in 'hello', '' in 'a', 'z' not in 'hello')", "True True True"},
		{"print(3 in range(0, 10, 3), 4 in range(0, 10, 3), 9 in range(0, 10, 3), 10 in range(10), -1 in range(10))", "True False True False False"},
		{"print(-4 in range(0, -10, -2), -5 in range(0, -10, -2), 0 in range(0, -10, -2), -10 in range(0, -10, -2))", "True False True False"},
		{"print(2.0 in range(3), 2.5 in range(3), 'a' in range(3), 5 in range(5, 1))", "True False False False"},
		{"print(1 in x[0] + 3.5, 9 in x)", "True False"},
		{"print(1 < 2 in (2,), 0 in (1,) == False)", "True False"},
		{"d = {'k': 0}\nd['k'] += 1\nd['j'] = {1}\nprint(d, 1 in d['j'])", "{'k': 1, 'j': {1}} True"},
		{"print(1 in 5)", "error: TypeError: argument of type int 5 is not iterable"},
		{"print(1 in 'abc')", "error: TypeError: 'in <string>' requires string as left operand, not int 1"},
		{"print({(1, 2): 'a', {1}: 2})", "error: TypeError: unhashable type: 'set'"},
		{"print({1} in {(1,)})", "error: TypeError: unhashable type: 'set'"},
	})
}

// TestLambdas: lambdas are values that close over the names of the frame
// that made them, read when they run (late binding), with defaults
// evaluated when they are made; they are passed to host functions and
// builtins (sorted's and max's key) and called there.
func TestLambdas(t *testing.T) {
	expectScripts(t, []scriptCase{
		{"n = 10\nf = lambda a, b=1: a + b + n\nn = 20\nprint(f(1), f(1, 2), f(b=5, a=0))", "22 23 25"},
		{"m = 1\ng = lambda v=m: v\nm = 2\nprint(g(), g(7), m)", "1 7 2"},
		{"add = lambda a: lambda b: a + b\nprint(add(2)(3), (lambda: 'x')())", "5 x"},
		{"fs = [lambda: i for i in range(3)]\nprint(tuple([f() for f in fs]))", "(2, 2, 2)"},
		{"fs = [lambda j=i: j for i in range(3)]\nprint(tuple([f() for f in fs]))", "(0, 1, 2)"},
		{"print(tuple(sorted((3, 1, 2))), tuple(sorted([3, 1, 2], key=lambda v: -v)), tuple(sorted('bca', reverse=True)))", "(1, 2, 3) (3, 2, 1) ('c', 'b', 'a')"},
		// Stable, also reversed: equal keys keep their order.
		{"p = (('b', 2), ('a', 2), ('c', 1), ('d', 2))\nprint(tuple(sorted(p, key=lambda t: t[1])))\nprint(tuple(sorted(p, key=lambda t: t[1], reverse=True)))",
			"(('c', 1), ('b', 2), ('a', 2), ('d', 2))\n(('b', 2), ('a', 2), ('d', 2), ('c', 1))"},
		{"print(max((1, -5, 3), key=abs), min([(2, 'b'), (1, 'z')], key=lambda t: t[1]), max(4, 9), min('b', 'a'))", "-5 (2, 'b') 9 a"},
		{"d = {'x': 3, 'y': 1}\nprint(tuple(sorted(d, key=lambda k: d[k])), sorted(d.items(), key=lambda kv: kv[1])[0])", "('y', 'x') ('y', 1)"},
		{"print(tuple(enumerate('ab', start=1)), tuple(zip((1, 2, 3), 'ab')), any((0, '', 3)), all(()), sum((1, 2.5)), sum((), 10))", "((1, 'a'), (2, 'b')) ((1, 'a'), (2, 'b')) True True 3.5 10"},
		// Generator expressions: all their items, in order (as a list).
		{"print(max(len(str(v)) for v in (1, 22, 333)), sum(v * v for v in range(4)), all(v > 0 for v in (1, 2)), tuple((c for c in 'ab')))", "3 14 True ('a', 'b')"},
		{"print(min((v for v in (3, 1, 2) if v != 1), key=lambda v: -v), sorted(k for k in {'b': 1, 'a': 2})[0])", "3 a"},
		{"f = lambda a: a\nprint(f(1, 2))", "error: <lambda> takes 1 arguments, got 2"},
		{"f = lambda a: a\nprint(f())", "error: <lambda> is missing argument a"},
		{"print(tuple(sorted((1, 'a'))))", "error: unsupported operand"},
	})
}

// TestLambdaClosuresInHostFunctions: a lambda made in a host function
// reads that function's names (its parameters and locals), after the
// function has returned too; a host function calls a function it is
// given; module-level dicts made with {} keep what host functions put in
// them (TileGym's `_group_gemm_tune_cache: dict = {}`).
func TestLambdaClosuresInHostFunctions(t *testing.T) {
	src := `import cuda.tile as ct

_tune_cache: dict = {}
_plain = {}
SQUARES = {i: i * i for i in range(4)}


def scaler(k):
    base = 100
    return lambda v: v * k + base


def apply_all(f, xs):
    return tuple([f(v) for v in xs])


def cached(key, make):
    if key not in _tune_cache:
        _tune_cache[key] = make()
    _plain[key] = len(_tune_cache)
    return _tune_cache[key]


if __name__ == "__main__":
    s = scaler(3)
    print(apply_all(s, (1, 2)), apply_all(lambda v: -v, range(3)) if False else apply_all(lambda v: -v, (0, 1)))
    calls = []
    print(cached("a", lambda: 7), cached("a", lambda: 8), cached("b", lambda: 9))
    print(_tune_cache, _plain, 3 in SQUARES, SQUARES[3])
`
	var out strings.Builder
	if err := load(t, "closures.py", []byte(src)).RunMain(Options{Stdout: &out}); err != nil {
		t.Fatal(err)
	}
	want := "(103, 106) (0, -1)\n7 7 9\n{'a': 7, 'b': 9} {'a': 1, 'b': 2} True 9\n"
	if out.String() != want {
		t.Errorf("printed %q, want %q", out.String(), want)
	}
}

// TestExhaustiveSearch: ct.tune.exhaustive_search on the interpreter takes
// the configs in order and returns the first that compiles and runs (a
// config whose launch fails is a failure, as cuTile records it), with
// its grid, arguments and hints from the lambdas it is given; nothing is
// timed (mean_us is NaN, num_samples 0), and a note on stderr says so.
// replace_hints keeps the kernel (hints change speed only), with a note.
func TestExhaustiveSearch(t *testing.T) {
	src := `import cuda.tile as ct
from cuda.tile.tune import exhaustive_search
from types import SimpleNamespace
import torch


@ct.kernel
def scale(X, Y, T: ct.Constant[int]):
    b = ct.bid(0)
    ct.store(Y, index=(b,), tile=ct.load(X, index=(b,), shape=(T,)) * 2.0)


if __name__ == "__main__":
    x = torch.arange(8, dtype=torch.float32)
    space = [SimpleNamespace(T=3), SimpleNamespace(T=4), SimpleNamespace(T=2)]
    outs = {}
    r = exhaustive_search(space, torch.cuda.current_stream(),
                          grid_fn=lambda cfg: (8 // cfg.T, 1, 1),
                          kernel=scale,
                          args_fn=lambda cfg: (x, outs.setdefault(cfg.T, torch.zeros(8)), cfg.T),
                          hints_fn=lambda cfg: {"occupancy": 1})
    print(r.best.config, r.best.num_samples, r.best.mean_us != r.best.mean_us, len(r.successes), len(r.failures))
    print(r.failures[0][0], tuple(outs.keys()), outs[4].sum().item())
    k = scale.replace_hints(occupancy=2)
    y = torch.zeros(8)
    ct.launch(torch.cuda.current_stream(), (2,), k, (x, y, 4))
    print(y.sum().item(), r.best == r.successes[0])
    r2 = ct.tune.exhaustive_search([SimpleNamespace(T=8)], None, lambda c: (1,), scale, lambda c: (x, torch.zeros(8), c.T), quiet=True)
    print(r2.best.config.T)
`
	var out, errs strings.Builder
	if err := load(t, "tune.py", []byte(src)).RunMain(Options{Stdout: &out, Stderr: &errs}); err != nil {
		t.Fatal(err)
	}
	// T=3 is not a power of two, which a tile's shape must be: its build
	// fails (after its args_fn made outs[3]), and T=4 is the first config
	// that runs; T=2 is never tried.
	want := "namespace(T=4) 0 True 1 1\nnamespace(T=3) (3, 4) 56.0\n56.0 True\n8\n"
	if out.String() != want {
		t.Errorf("printed %q, want %q", out.String(), want)
	}
	notes := errs.String()
	for _, w := range []string{
		"note: tune.py:17:9: ct.tune.exhaustive_search: tilec times no configs in host code; it took config 2 of 3, the first that compiled and ran: namespace(T=4)\n",
		"note: tune.py:24:9: scale.replace_hints(occupancy=2): tilec builds scale with its decorator's hints",
	} {
		if !strings.Contains(notes, w) {
			t.Errorf("stderr %q lacks %q", notes, w)
		}
	}
	if strings.Count(notes, "\n") != 2 {
		t.Errorf("stderr has %d lines, want 2 (quiet=True prints none): %q", strings.Count(notes, "\n"), notes)
	}

	bad := strings.Replace(src, "[SimpleNamespace(T=3), SimpleNamespace(T=4), SimpleNamespace(T=2)]", "[SimpleNamespace(T=3)]", 1)
	err := load(t, "tune.py", []byte(bad)).RunMain(Options{Stdout: &out, Stderr: &errs})
	if err == nil || !strings.Contains(err.Error(), "tune.py:17:9: ct.tune.exhaustive_search") && !strings.Contains(err.Error(), "none of the 1 configs ran; the first, namespace(T=3), failed") {
		t.Errorf("a search whose configs all fail: %v", err)
	}
	empty := strings.Replace(src, "[SimpleNamespace(T=3), SimpleNamespace(T=4), SimpleNamespace(T=2)]", "[]", 1)
	if err := load(t, "tune.py", []byte(empty)).RunMain(Options{Stdout: &out, Stderr: &errs}); err == nil || !strings.Contains(err.Error(), "ValueError: Search space is empty.") {
		t.Errorf("an empty search space: %v", err)
	}
}
