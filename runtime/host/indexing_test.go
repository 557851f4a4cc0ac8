package host

import (
	"strconv"
	"strings"
	"testing"
)

// scriptCase is a driver body (after the prelude's x, a 2x3 float32
// tensor of -2.5..2.5) and what torch prints for it, or the error torch
// raises (want starting with "error: ", at the body's last line).
type scriptCase struct{ body, want string }

func expectScripts(t *testing.T, cases []scriptCase) {
	t.Helper()
	for _, c := range cases {
		got, err := printed(t, c.body)
		if msg, isErr := strings.CutPrefix(c.want, "error: "); isErr {
			line := "num.py:" + strconv.Itoa(7+strings.Count(strings.TrimSpace(c.body), "\n")+1) + ":"
			if err == nil || !strings.Contains(err.Error(), msg) || !strings.Contains(err.Error(), line) {
				t.Errorf("%s:\nprinted %q, err %v; want an error at %s containing %q", c.body, got, err, line, msg)
			}
			continue
		}
		if err != nil || got != c.want+"\n" {
			t.Errorf("%s:\nprinted %q, err %v; want %q", c.body, got, err, c.want)
		}
	}
}

// TestTensorAssignment: x[idx] = v and x[idx] op= v write into x's
// elements as torch's do: ints and slices, tensors of indices, masks, a
// number or a tensor broadcast to what the index selects, converted to
// x's dtype (integers exactly).
func TestTensorAssignment(t *testing.T) {
	expectScripts(t, []scriptCase{
		{"x[0] = 7\nprint(x.reshape(-1))", "tensor([7.0000, 7.0000, 7.0000, 0.5000, 1.5000, 2.5000])"},
		{"x[1, 1:] = torch.arange(2) * 10\nprint(x.reshape(-1))", "tensor([-2.5000, -1.5000, -0.5000,  0.5000,  0.0000, 10.0000])"},
		{"x[:, -1] = 0\nprint(x.reshape(-1))", "tensor([-2.5000, -1.5000,  0.0000,  0.5000,  1.5000,  0.0000])"},
		{"x[:, ::2] = torch.ones(2, 1) * 4\nprint(x.reshape(-1))", "tensor([ 4.0000, -1.5000,  4.0000,  4.0000,  1.5000,  4.0000])"},
		// A row read by x[1] or by iteration is a view: writing into it
		// writes into x.
		{"y = x[1]\ny[0] = 9\nprint(x[1])", "tensor([9.0000, 1.5000, 2.5000])"},
		{"for r in x:\n    r[2] = -1\nprint(x[:, 2])", "tensor([-1., -1.])"},
		// Augmented assignment updates a tensor in place, through every
		// name for it.
		{"y = x\ny += 1\nprint(x[0])", "tensor([-1.5000, -0.5000,  0.5000])"},
		{"x[0] += 1\nx[:, 1] *= 2\nprint(x.reshape(-1))", "tensor([-1.5000, -1.0000,  0.5000,  0.5000,  3.0000,  2.5000])"},
		{"n = torch.zeros(3, dtype=torch.int64)\nn[1:] = 2**53 + 1\nprint(n)", "tensor([               0, 9007199254740993, 9007199254740993])"},
		{"n = torch.zeros(3, dtype=torch.int32)\nn[0] = 2.9\nn[1] = -2.9\nprint(n)", "tensor([ 2, -2,  0], dtype=torch.int32)"},
		{"print((x / 10).long(), (x / 10).bool(), (x * 2).int()[1])", "tensor([[0, 0, 0],\n        [0, 0, 0]]) tensor([[True, True, True],\n        [True, True, True]]) tensor([1, 3, 5], dtype=torch.int32)"},
		// Masks and index tensors.
		{"x[x > 0] = 0\nprint(x.reshape(-1))", "tensor([-2.5000, -1.5000, -0.5000,  0.0000,  0.0000,  0.0000])"},
		{"x[x < 0] = torch.arange(3) + 0.0\nprint(x.reshape(-1))", "tensor([0.0000, 1.0000, 2.0000, 0.5000, 1.5000, 2.5000])"},
		{"x[torch.arange(2), torch.arange(2) + 1] = 5\nprint(x.reshape(-1))", "tensor([-2.5000,  5.0000, -0.5000,  0.5000,  1.5000,  5.0000])"},
		{"x[[1, 0]] = x[0]\nprint(x.reshape(-1))", "tensor([-2.5000, -1.5000, -0.5000, -2.5000, -1.5000, -0.5000])"},
		// Errors as torch raises them.
		{"x[0] = torch.ones(2)", "error: shape mismatch: value tensor of shape [2] cannot be broadcast to indexing result of shape [3]"},
		{"x[2] = 1", "error: index 2 is out of bounds for dimension 0 with size 2"},
		{"x[torch.arange(3)] = 1", "error: index 2 is out of bounds for dimension 0 with size 2"},
		{"x[torch.ones(3) > 0] = 1", "error: the shape of the mask [3] at index 0 does not match the shape of the indexed tensor [2 3] at index 0"},
		{"n = torch.zeros(3, dtype=torch.int64)\nn /= 2", "error: result type float32 can't be cast to the desired output type int64"},
		{"y = x[0]\ny += x", "error: output with shape [3] doesn't match the broadcast shape [2 3]"},
		{"s = x.shape\ns[0] = 1", "error: a torch.Size of 2 does not support item assignment"},
		{"x[::-1] = 1", "error: step must be greater than zero"},
	})
}

// TestTensorIndexing: reading x[idx] as torch does: None adds an axis;
// with index tensors, ints select first, and the broadcast index shape
// stands where the advanced indices stand when they are adjacent, else in
// front; a mask picks its true elements, row-major.
func TestTensorIndexing(t *testing.T) {
	const z = "z = torch.arange(24).reshape(2, 3, 4)\n"
	expectScripts(t, []scriptCase{
		{"print(x[None].shape, x[:, None].shape, x[1, None, 2].shape)", "torch.Size([1, 2, 3]) torch.Size([2, 1, 3]) torch.Size([1])"},
		{"print(x[x > 0])", "tensor([0.5000, 1.5000, 2.5000])"},
		{"print(x[torch.ones(2) > 0].shape)", "torch.Size([2, 3])"},
		{z + "print(z[0, :, [1, 2]].reshape(-1))", "tensor([ 1,  2,  5,  6,  9, 10])"},
		{z + "print(z[[0, 1], :, [1, 2]].reshape(-1), z[[0, 1], :, [1, 2]].shape)", "tensor([ 1,  5,  9, 14, 18, 22]) torch.Size([2, 3])"},
		{z + "print(z[:, [0, 2], [1, 3]].reshape(-1), z[:, [0, 2], [1, 3]].shape)", "tensor([ 1, 11, 13, 23]) torch.Size([2, 2])"},
		{z + "print(z[torch.arange(2).reshape(2, 1), 0, torch.arange(3) - 1].reshape(-1))", "tensor([ 3,  0,  1, 15, 12, 13])"},
		// An index tensor's result is a copy: writing into it leaves z.
		{z + "c = z[[0]]\nc[0, 0, 0] = 100\nprint(z[0, 0, 0].item())", "0"},
		// A 0-d integer tensor is an int where one is wanted (torch's
		// __index__): an index, a slice bound, a shape, a range.
		{z + "i = torch.arange(3)[1]\nprint(z[i, i].shape, z[0, :i].shape, torch.zeros(i * 2).shape)\nfor j in range(i + 1):\n    print(j)", "torch.Size([4]) torch.Size([1, 4]) torch.Size([2])\n0\n1"},
	})
}

// TestScriptIndexOps: the torch index computations of routing code (the
// MoE sample's token sort) against hand-computed results.
func TestScriptIndexOps(t *testing.T) {
	const ids = "e = torch.arange(8) * 5 % 3\n" // 0 2 1 0 2 1 0 2
	expectScripts(t, []scriptCase{
		{ids + "print(e, torch.argsort(e, stable=True))", "tensor([0, 2, 1, 0, 2, 1, 0, 2]) tensor([0, 3, 6, 2, 5, 1, 4, 7])"},
		{ids + "print(e.argsort(descending=True, stable=True))", "tensor([1, 4, 7, 2, 5, 0, 3, 6])"},
		{"print(torch.argsort(torch.where(x > 1, float('nan'), -x), dim=1))", "tensor([[2, 1, 0],\n        [0, 1, 2]])"},
		// torch takes NaN as larger than any number: first when descending.
		{"print(torch.argsort(torch.tensor([3.0, float('nan'), 1.0, 2.0]), descending=True))", "tensor([1, 0, 3, 2])"},
		{ids + "print(torch.bincount(e), e.bincount(minlength=5))", "tensor([3, 2, 3]) tensor([3, 2, 3, 0, 0])"},
		{ids + "print(F.one_hot(e[:3], num_classes=4).reshape(-1))", "tensor([1, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0])"},
		{ids + "print(F.one_hot(e[:2]).shape)", "torch.Size([2, 3])"},
		{"print((x > 0).nonzero().reshape(-1), torch.nonzero(x < -1).shape)", "tensor([1, 0, 1, 1, 1, 2]) torch.Size([2, 2])"},
		{"r, c = torch.where(x.abs() < 1)\nprint(r, c)", "tensor([0, 1]) tensor([2, 0])"},
		{"a, b = x.chunk(2, dim=-1)\nprint(a.shape, b.shape, b.reshape(-1))", "torch.Size([2, 2]) torch.Size([2, 1]) tensor([-0.5000,  2.5000])"},
		{"print(len(torch.arange(5).chunk(3)), torch.arange(5).chunk(3)[2])", "3 tensor([4])"},
		{"y = torch.zeros(3, 2)\ny.index_add_(0, torch.arange(4) % 2 * 2, torch.ones(4, 2))\nprint(y.reshape(-1))", "tensor([2., 2., 0., 0., 2., 2.])"},
		{"y = torch.zeros(2, 3)\ny.index_add_(1, torch.arange(2), x[:, :2], alpha=2)\nprint(y.reshape(-1))", "tensor([-5., -3.,  0.,  1.,  3.,  0.])"},
		{"v = torch.arange(3) + 1.0\nprint(torch.ones(2, 3) @ v, (v[:2] @ torch.ones(2, 3)).shape, torch.matmul(v, v))", "tensor([6., 6.]) torch.Size([3]) tensor(14.)"},
		{"print(torch.ones(2, 3, 4).sum(dim=(-1, 0)), x.amax(dim=(0, 1), keepdim=True).shape)", "tensor([8., 8., 8.]) torch.Size([1, 1])"},
		{"print(torch.bincount(torch.arange(3) - 1))", "error: torch.bincount: the input holds -1: only non-negative ints are counted"},
		{"print(F.one_hot(torch.arange(3), num_classes=2))", "error: one_hot: class values must be from 0 to 1, got 2"},
		{"print(x.sum(dim=(0, -2)))", "error: sum: dim 0 appears multiple times in the list of dims"},
	})
}

// TestGeluTanh: F.gelu(approximate="tanh") is torch's tanh form, not the
// exact erf form (0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) against
// 0.5 x (1 + erf(x / sqrt(2))), rounded to float32).
func TestGeluTanh(t *testing.T) {
	expectScripts(t, []scriptCase{
		{"g = F.gelu(torch.arange(3) - 1.0, approximate='tanh')\nprint(g[0].item() == -0.15880800783634186, g[2].item() == 0.8411920070648193)", "True True"},
		{"g = F.gelu(torch.arange(3) - 1.0)\nprint(g[0].item() == -0.15865525603294373, g[2].item() == 0.8413447737693787)", "True True"},
		{"print(F.gelu(x, approximate='fast'))", "error: approximate is 'none' or 'tanh', got \"fast\""},
	})
}
