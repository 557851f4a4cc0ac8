package host

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/tilec/tilec/runtime"
)

// The gradients that backward accumulates are checked against float64
// references computed here, independently of autograd.go: central
// finite differences of the scalar sum(dy * f(inputs)), and closed forms.

// refLayerNorm is F.layer_norm over rows of n, from its definition.
func refLayerNorm(x, w, b []float64, n int, eps float64) []float64 {
	out := make([]float64, len(x))
	for r := 0; r < len(x); r += n {
		mean, v := 0.0, 0.0
		for _, e := range x[r : r+n] {
			mean += e / float64(n)
		}
		for _, e := range x[r : r+n] {
			v += (e - mean) * (e - mean) / float64(n)
		}
		for j, e := range x[r : r+n] {
			out[r+j] = (e-mean)/math.Sqrt(v+eps)*w[j] + b[j]
		}
	}
	return out
}

// finiteDiff is d loss / d xs[i] for every i, by central differences.
func finiteDiff(xs []float64, loss func() float64) []float64 {
	const h = 1e-6
	g := make([]float64, len(xs))
	for i := range xs {
		keep := xs[i]
		xs[i] = keep + h
		up := loss()
		xs[i] = keep - h
		down := loss()
		xs[i] = keep
		g[i] = (up - down) / (2 * h)
	}
	return g
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

func closeTo(t *testing.T, what string, got, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range got {
		if math.Abs(got[i]-want[i]) > tol*(1+math.Abs(want[i])) {
			t.Errorf("%s[%d] = %.12g, want %.12g", what, i, got[i], want[i])
		}
	}
}

func tensorVar(t *testing.T, vars map[string]any, name string) []float64 {
	t.Helper()
	v, ok := vars[name].(*runtime.Tensor)
	if !ok {
		t.Fatalf("%s is %s, not a tensor", name, describe(vars[name]))
	}
	return values(v)
}

// TestLayerNormBackward: F.layer_norm's gradients for x, weight and bias
// (float64 tensors, so nothing is rounded) agree with finite differences
// of sum(dy * layer_norm(x, w, b)).
func TestLayerNormBackward(t *testing.T) {
	src := `import torch
import torch.nn.functional as F

if __name__ == "__main__":
    torch.manual_seed(7)
    x = (3.0 * torch.randn(4, 6, dtype=torch.float64) + 1.5).requires_grad_()
    w = torch.randn(6, dtype=torch.float64, requires_grad=True)
    b = torch.randn(6, dtype=torch.float64, requires_grad=True)
    dy = torch.randn(4, 6, dtype=torch.float64)
    y = F.layer_norm(x, w.shape, w, b, 1e-5)
    y.backward(dy)
    gx, gw, gb = x.grad, w.grad, b.grad
`
	vars, err := load(t, "ln.py", []byte(src)).runMain(Options{})
	if err != nil {
		t.Fatal(err)
	}
	x, w, b, dy := tensorVar(t, vars, "x"), tensorVar(t, vars, "w"), tensorVar(t, vars, "b"), tensorVar(t, vars, "dy")
	loss := func() float64 { return dot(dy, refLayerNorm(x, w, b, 6, 1e-5)) }
	closeTo(t, "x.grad", tensorVar(t, vars, "gx"), finiteDiff(x, loss), 1e-6)
	closeTo(t, "w.grad", tensorVar(t, vars, "gw"), finiteDiff(w, loss), 1e-6)
	closeTo(t, "b.grad", tensorVar(t, vars, "gb"), finiteDiff(b, loss), 1e-6)
}

// TestFunctionApplyGradients: torch.autograd.Function subclasses on the
// tape: a leaf used twice by one apply gets both gradients; a non-leaf
// output used twice (a diamond) sums its gradients before its own
// backward runs; a Function's output through F.layer_norm; backward
// twice with retain_graph accumulates; x.grad = None starts again; a
// non-tensor argument takes None.
func TestFunctionApplyGradients(t *testing.T) {
	src := `import torch
import torch.nn.functional as F


class Mul(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a * b

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        return g * b, g * a


class Cube(torch.autograd.Function):
    calls = 0

    @staticmethod
    def forward(ctx, x, scale):
        ctx.save_for_backward(x)
        ctx.scale = scale
        return scale * x * x * x

    @staticmethod
    def backward(ctx, g):
        Cube.calls += 1
        (x,) = ctx.saved_tensors
        return 3.0 * ctx.scale * x * x * g, None


if __name__ == "__main__":
    torch.manual_seed(11)
    x = torch.randn(8, dtype=torch.float64, requires_grad=True)
    dy = torch.randn(8, dtype=torch.float64)

    sq = Mul.apply(x, x)
    sq.backward(dy)
    g_square = x.grad.clone()
    x.grad = None

    y = Cube.apply(x, 1.0)
    z = Mul.apply(y, y)
    z.backward(dy)
    g_diamond = x.grad.clone()
    cube_calls = Cube.calls
    x.grad = None

    w = torch.randn(8, dtype=torch.float64, requires_grad=True)
    b = torch.randn(8, dtype=torch.float64, requires_grad=True)
    u = F.layer_norm(Cube.apply(x, 0.5), (8,), w, b, 1e-5)
    u.backward(dy, retain_graph=True)
    g_ln = x.grad.clone()
    u.backward(dy)
    g_ln_twice = x.grad.clone()
`
	vars, err := load(t, "fn.py", []byte(src)).runMain(Options{})
	if err != nil {
		t.Fatal(err)
	}
	x, dy := tensorVar(t, vars, "x"), tensorVar(t, vars, "dy")
	sq, diamond := make([]float64, len(x)), make([]float64, len(x))
	for i, v := range x {
		sq[i] = 2 * v * dy[i]                   // d(x*x)
		diamond[i] = 6 * math.Pow(v, 5) * dy[i] // d((x^3)^2)
	}
	closeTo(t, "Mul.apply(x, x)", tensorVar(t, vars, "g_square"), sq, 1e-12)
	closeTo(t, "Mul.apply(y, y), y = Cube.apply(x)", tensorVar(t, vars, "g_diamond"), diamond, 1e-12)
	if c := vars["cube_calls"]; c != int64(1) {
		t.Errorf("Cube.backward ran %v times in the diamond, want once", c)
	}
	w, b := tensorVar(t, vars, "w"), tensorVar(t, vars, "b")
	loss := func() float64 {
		c := make([]float64, len(x))
		for i, v := range x {
			c[i] = 0.5 * v * v * v
		}
		return dot(dy, refLayerNorm(c, w, b, 8, 1e-5))
	}
	fd := finiteDiff(x, loss)
	closeTo(t, "layer_norm(Cube.apply(x))", tensorVar(t, vars, "g_ln"), fd, 1e-6)
	for i := range fd {
		fd[i] *= 2
	}
	closeTo(t, "two backwards", tensorVar(t, vars, "g_ln_twice"), fd, 1e-6)
}

// TestAutogradDtypes: a bfloat16 leaf takes its gradient in bfloat16
// (the Function's backward returns float32), and a float32 gradient is
// the float64 value rounded once.
func TestAutogradDtypes(t *testing.T) {
	src := `import torch


class Twice(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return (g * 2).float()


if __name__ == "__main__":
    x = torch.tensor([1.0, 2.0, 3.0], dtype=torch.bfloat16, requires_grad=True)
    y = Twice.apply(x)
    y.backward(torch.tensor([0.1, 0.2, 0.3], dtype=torch.bfloat16))
    g = x.grad
`
	vars, err := load(t, "dt.py", []byte(src)).runMain(Options{})
	if err != nil {
		t.Fatal(err)
	}
	g := vars["g"].(*runtime.Tensor)
	if g.DType.String() != "bf16" {
		t.Errorf("x.grad is %s, want bf16", g.DType)
	}
	// 0.1 in bf16 is 0.10009765625; twice that is exact in bf16.
	closeTo(t, "x.grad", values(g), []float64{0.2001953125, 0.400390625, 0.6015625}, 0)
}

// TestAutogradErrors: what autograd refuses, each a positioned error.
func TestAutogradErrors(t *testing.T) {
	head := "import torch\nimport torch.nn.functional as F\n\n\nclass Id(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, x, k):\n        return x.clone()\n\n    @staticmethod\n    def backward(ctx, g):\n        return BACK\n\n\nif __name__ == \"__main__\":\n    x = torch.ones(3, requires_grad=True)\n"
	cases := []struct{ back, main, want string }{
		{"g, None", "    y = x * 2\n    y.backward(torch.ones(3))\n",
			"e.py:17:11: backward through the operator * is not part of the host subset"},
		{"g, None", "    y = Id.apply(x, 1)\n    y.backward(torch.ones(3))\n    y.backward(torch.ones(3))\n",
			"e.py:19:5: Trying to backward through the graph a second time"},
		{"g", "    y = Id.apply(x, 1)\n    y.backward(torch.ones(3))\n",
			"e.py:18:5: function IdBackward returned an incorrect number of gradients (expected 2, got 1)"},
		{"g, g", "    y = Id.apply(x, 1)\n    y.backward(torch.ones(3))\n",
			"e.py:18:5: function IdBackward returned a gradient different than None at position 2, but the corresponding forward input was not a Variable"},
		{"g.reshape(3, 1), None", "    y = Id.apply(x, 1)\n    y.backward(torch.ones(3))\n",
			"e.py:18:5: Function IdBackward returned an invalid gradient at index 0 - got [3 1] but expected shape compatible with [3]"},
		{"g, None", "    y = Id.apply(x, 1)\n    y.backward(torch.ones(4))\n",
			"e.py:18:16: Mismatch in shape: grad_output[0] has a shape of torch.Size([4]) and output[0] has a shape of torch.Size([3])"},
		{"g, None", "    y = Id.apply(x, 1)\n    y.backward()\n",
			"e.py:18:5: grad can be implicitly created only for scalar outputs"},
		{"g, None", "    x += 1\n", "e.py:17:5: a leaf Variable that requires grad is being used in an in-place operation"},
		{"g, None", "    x.grad = torch.ones(4)\n", "e.py:17:7: assigned grad has data of a different size"},
		{"g, None", "    torch.ones(3).backward(torch.ones(3))\n", "e.py:17:5: element 0 of tensors does not require grad and does not have a grad_fn"},
		{"g, None", "    with torch.no_grad():\n        y = Id.apply(x, 1)\n    y.backward(torch.ones(3))\n",
			"e.py:19:5: element 0 of tensors does not require grad"},
		{"g, None", "    Id(x, 1)\n", "e.py:17:5: an autograd Function is not instantiated: call Id.apply(...)"},
		{"g, None", "    torch.ones(3, dtype=torch.int32).requires_grad_()\n", "e.py:17:5: only tensors of floating point dtype can require gradients, not int32"},
	}
	for _, c := range cases {
		src := strings.Replace(head, "BACK", c.back, 1) + c.main
		_, err := load(t, "e.py", []byte(src)).runMain(Options{})
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "^") {
			t.Errorf("%s\ngot  %v\nwant %s", c.main, err, c.want)
		}
	}
}

// TestGradModeAfterRecoveredError: a Function's forward that fails inside
// a config exhaustive_search recovers from leaves grad mode as it was.
func TestGradModeAfterRecoveredError(t *testing.T) {
	src := `import cuda.tile as ct
import torch


@ct.kernel
def k(a, b, T: ct.Constant[int]):
    ct.store(b, index=(0,), tile=ct.load(a, index=(0,), shape=(T,)))


class Only8(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, t):
        assert t == 8, "only 8"
        return x.clone()

    @staticmethod
    def backward(ctx, g):
        return g, None


if __name__ == "__main__":
    x = torch.ones(8, requires_grad=True)
    cfgs = [{"T": 4}, {"T": 8}]
    r = ct.tune.exhaustive_search(cfgs, None, lambda c: (1,), k, lambda c: (Only8.apply(x, c["T"]), torch.zeros(8), c["T"]), quiet=True)
    failed = len(r.failures)
    y = Only8.apply(x, 8)
    recorded = y.requires_grad
`
	vars, err := load(t, "g.py", []byte(src)).runMain(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if vars["failed"] != int64(1) || vars["recorded"] != true {
		t.Errorf("failed configs %v, y.requires_grad %v; want 1, True", vars["failed"], vars["recorded"])
	}
}

// TestAutogradRepr: print shows requires_grad=True on a leaf and the
// grad_fn of a recorded operation, as torch prints them.
func TestAutogradRepr(t *testing.T) {
	src := `import torch
import torch.nn.functional as F


class Id(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.clone()

    @staticmethod
    def backward(ctx, g):
        return g


if __name__ == "__main__":
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    w = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    print(x, w)
    print(Id.apply(x), F.layer_norm(x, (2,)), x.detach())
`
	var out bytes.Buffer
	if err := load(t, "r.py", []byte(src)).RunMain(Options{Stdout: &out}); err != nil {
		t.Fatal(err)
	}
	want := "tensor([1., 2.], requires_grad=True) tensor([1., 2.], dtype=torch.float64, requires_grad=True)\n" +
		"tensor([1., 2.], grad_fn=<IdBackward>) tensor([-1.0000,  1.0000], grad_fn=<NativeLayerNormBackward0>) tensor([1., 2.])\n"
	if out.String() != want {
		t.Errorf("got\n%swant\n%s", out.String(), want)
	}
}
