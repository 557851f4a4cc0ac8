package host

import "testing"

// TestTorchSize: x.shape and x.size() are torch.Size: printed (print,
// str, f-strings, inside a tuple) as torch prints them, torch.Size([2, 3]),
// and a tuple for everything else: indexing, slicing (a Size), len,
// unpacking, ==, + and * (a Size), iteration, `in`, a dict key, a shape
// argument. x.stride() stays a plain tuple.
func TestTorchSize(t *testing.T) {
	expectScripts(t, []scriptCase{
		{"print(x.shape)", "torch.Size([2, 3])"},
		{"print(str(x.shape), f\"{x.shape}\", f\"{x.shape!r}\", x.size(), (x.shape, x.dtype))",
			"torch.Size([2, 3]) torch.Size([2, 3]) torch.Size([2, 3]) torch.Size([2, 3]) (torch.Size([2, 3]), torch.float32)"},
		{"print(x.sum().shape, torch.ones(5000000).shape)", "torch.Size([]) torch.Size([5000000])"},
		{"print(x.shape[0], x.shape[-1], len(x.shape), x.shape[1:], x.shape[::-1], x.size(1))", "2 3 2 torch.Size([3]) torch.Size([3, 2]) 3"},
		{"m, n = x.shape\nprint(m, n, x.shape == (2, 3), (2, 3) == x.shape, x.shape != (3, 2), x.shape == x.size())", "2 3 True True True True"},
		{"print(x.shape + (4,), x.shape * 2, tuple(x.shape), tuple(x.shape) == x.shape)", "torch.Size([2, 3, 4]) torch.Size([2, 3, 2, 3]) (2, 3) True"},
		{"print(max(x.shape), sum(x.shape), 3 in x.shape, 4 in x.shape, [d * 2 for d in x.shape][1], {x.shape: 1}[(2, 3)])", "3 5 True False 6 1"},
		{"print(torch.zeros(x.shape).shape, torch.ones(*x.shape).shape, x.reshape(x.shape[::-1]).shape, x.view(x.size()).shape)",
			"torch.Size([2, 3]) torch.Size([2, 3]) torch.Size([3, 2]) torch.Size([2, 3])"},
		{"print(x.stride(), x.T.stride())", "(3, 1) (1, 3)"},
		{"if x.shape:\n    print(len(x.shape))", "2"},
		{"s = x.shape\ns[0] = 1", "error: a torch.Size of 2 does not support item assignment"},
	})
}
