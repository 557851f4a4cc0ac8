package host

import (
	"errors"
	"strings"
	"testing"

	"github.com/tilec/tilec/lang"
)

// fuzzClasses are the classes of FuzzScript's prelude: an autograd
// Function and a plain class, for the fuzzed driver to use.
const fuzzClasses = `class Sq(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        ctx.k = 2
        return x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return ctx.k * x * g


class Box:
    size = 2

    def __init__(self, v):
        self.v = v

    def get(self):
        return self.v

    @classmethod
    def make(cls, v):
        return cls(v)`

// FuzzScript runs arbitrary __main__ blocks (after a fixed prelude with a
// kernel, a host function and classes) through the driver subset: any input is a
// result or a positioned error, never a panic; launches are refused (the
// interpreter's own fuzzer covers kernels) and tensors are kept small.
func FuzzScript(f *testing.F) {
	for _, seed := range []string{
		"x = torch.randn(3, 4)\nprint(x @ x.T)",
		"a = torch.arange(6).reshape(2, 3)\nprint(a.sum(dim=1), a.argmax(dim=1))",
		"torch.testing.assert_close(torch.ones(2), torch.ones(2) * 1.001)",
		"import argparse\np = argparse.ArgumentParser()\np.add_argument('--n', type=int, default=3)\nprint(p.parse_args().n)",
		"x = torch.randn(2, 3, 8, 16)\nprint(F.scaled_dot_product_attention(x, x, x, is_causal=True).shape)",
		"n = 0\nwhile n < 10:\n    n += 1\n    if n == 5:\n        break\nprint(n is None, f\"{n:>4}\" \"!\")",
		"with torch.no_grad():\n    y = torch.softmax(torch.randn(4, 4), dim=-1)\nprint(y)",
		"print(add(torch.ones(4), torch.ones(4)))",
		"x = torch.zeros(4, 5)\nx[1:3, ::2] = 1\nx[x > 0] += torch.arange(6) * 1.0\nx[[0, 3], -1] = x[1, :2]\nprint(x, torch.max(x, dim=1))",
		"e = torch.arange(9) % 4\nprint(torch.argsort(e, stable=True), torch.bincount(e), F.one_hot(e).sum(dim=(0, 1)))",
		"d = dict(a=1)\nd[(2, 'b')] = torch.float16\ns = set((1, 2))\ns.add(1.0)\nfor k, v in d.items():\n    print(k, v, len(s))",
		"d = {'a': 1, (2, 'b'): {1, 2}}\nsq = {k: k * k for k in range(4) if k not in (1,)}\nprint(2 in sq, 'a' in d, 3 in range(0, 9, 3), 'b' in 'abc', {x % 2 for x in sq})",
		"n = 3\nf = lambda a, b=n: a * b + n\nn = 4\nprint(f(2), tuple(sorted((3, 1, 2), key=lambda v: -v)), max((1, -5), key=abs), (lambda: lambda: 1)()())",
		"cfgs = [{'T': 4}, {'T': 8}]\nr = ct.tune.exhaustive_search(cfgs, None, lambda c: (1,), k, lambda c: (torch.ones(8), torch.zeros(8), c['T']), quiet=True)\nprint(r.best.config)",
		"x = torch.randn(4, requires_grad=True)\ny = Sq.apply(x)\ny.backward(torch.ones(4), retain_graph=True)\nprint(x.grad, y.requires_grad)\nx.grad = None\nz = F.layer_norm(y, (4,))\nz.backward(torch.ones(4))\nprint(x.grad.sum().item())",
		"z = torch.exp(1j * torch.arange(4))\nr = torch.view_as_real(z)\nr[0, 1] = 2.0\nprint(torch.fft.fft(z, n=6, norm='ortho').dtype, (1+2j)**0.5, z.imag, -z * 2j)\ntorch.testing.assert_close(z, torch.view_as_complex(r.contiguous()))",
		"b = Box(3)\nb.v += 1\nBox.size = b.get()\nprint(b.get(), Box(1).size, b, Box.make(2).v, {b: 1}[b])",
		"x = torch.rand(4, 64).reshape(4, 2, 32)\ns = torch.max(x.abs(), dim=-1, keepdims=True)[0]\ns = torch.pow(2.0, torch.ceil(torch.log2(torch.clamp(s / torch.finfo(torch.float8_e4m3fn).max, min=1e-12))))\nq = (x / s).to(torch.float8_e4m3fn)\ne = s.to(torch.float8_e8m0fnu).squeeze(-1)\nprint(torch.repeat_interleave(e, 32, dim=1).to(torch.float32) * q.reshape(4, 64).float())",
	} {
		f.Add(seed)
	}
	old := maxScriptElements
	maxScriptElements = 1 << 16
	defer func() { maxScriptElements = old }()
	const prelude = "import cuda.tile as ct\nimport torch\nimport torch.nn.functional as F\n\n\n@ct.kernel\ndef k(a, b, T: ct.Constant[int]):\n    ct.store(b, index=(0,), tile=ct.load(a, index=(0,), shape=(T,)))\n\n\ndef add(a, b):\n    c = torch.empty_like(a)\n    ct.launch(torch.cuda.current_stream(), (1, 1, 1), k, (a, c, 4))\n    return c + b\n\n\n" + fuzzClasses + "\n\nif __name__ == \"__main__\":\n"
	f.Fuzz(func(t *testing.T, body string) {
		if len(body) > 4096 {
			return
		}
		var b strings.Builder
		for _, line := range strings.Split(body, "\n") {
			b.WriteString("    " + line + "\n")
		}
		file, err := lang.ParseProgram("s.py", []byte(prelude+b.String()))
		if err != nil {
			return
		}
		p, err := Load(file)
		if err != nil {
			return
		}
		if !p.HasMain() {
			return
		}
		err = p.RunMain(Options{Launch: func(*Launch) error { return errors.New("no launches in the fuzzer") }})
		if err != nil && strings.Contains(err.Error(), "internal error") {
			t.Fatalf("%q: %v", body, err)
		}
	})
}
