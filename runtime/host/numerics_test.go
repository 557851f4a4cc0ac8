package host

import (
	"strings"
	"testing"

	"github.com/tilec/tilec/runtime"
)

// printed runs the driver prelude plus lines as a script and returns what
// it printed.
func printed(t *testing.T, lines string) (string, error) {
	t.Helper()
	var body strings.Builder
	for _, l := range strings.Split(strings.TrimSpace(lines), "\n") {
		body.WriteString("    " + strings.TrimRight(l, " \t") + "\n")
	}
	var out strings.Builder
	err := load(t, "num.py", []byte("import math\n"+driverPrelude+body.String())).RunMain(Options{Stdout: &out})
	return out.String(), err
}

// numericCase is a host expression and what Python prints for it, or the
// error Python raises (want starting with "error: ").
type numericCase struct{ expr, want string }

func expectPrinted(t *testing.T, cases []numericCase) {
	t.Helper()
	scripts := make([]scriptCase, len(cases))
	for i, c := range cases {
		scripts[i] = scriptCase{"print(" + c.expr + ")", c.want}
	}
	expectScripts(t, scripts)
}

// TestScalarNumericsArePython: host code's numbers follow CPython: the
// sign of a zero remainder, float floor division derived from fmod,
// exact comparisons of ints with floats, and errors where Python raises.
func TestScalarNumericsArePython(t *testing.T) {
	expectPrinted(t, []numericCase{
		{"-3.0 % 0.5", "0.0"},
		{"3.0 % -0.5", "-0.0"},
		{"5 % float('inf')", "5.0"},
		{"-5 % float('inf')", "inf"},
		{"-5.0 // float('inf')", "-1.0"},
		{"5.0 // float('inf')", "0.0"},
		{"-7 // 2, -7 % 2, 7 % -2", "-4 1 -1"},
		{"(-2**62 * 2) % -1", "0"},
		{"2**53 + 1 == 2.0**53", "False"},
		{"2**53 + 1 > 2.0**53", "True"},
		{"(2**62 - 1) + 2**62 < 2.0**63", "True"},
		{"float('nan') != float('nan'), 1 < float('nan'), float('nan') == 1", "True False False"},
		{"-1 < float('-inf'), 3 == 3.0, 3 < 3.5, -3 > -3.5", "False True True True"},
		{"math.exp(1000)", "error: OverflowError: math.exp(1000.0): math range error"},
		{"math.exp(float('inf')), math.exp(-1000)", "inf 0.0"},
		{"10.0 ** 400", "error: OverflowError"},
		{"7 // 0", "error: ZeroDivisionError: integer division or modulo by zero"},
		{"7 % 0", "error: ZeroDivisionError"},
		{"7.0 % 0", "error: ZeroDivisionError: float modulo by zero"},
		{"(-2**62 * 2) // -1", "error: integer overflow"},
		{"1 << 63", "error: integer overflow"},
		{"-8 >> 100", "-1"},
	})
}

// TestIntegerTensorsAreExact: integer tensors compute in their dtype, not
// through float64: int64 values beyond 2^53 stay exact through arithmetic,
// comparisons, reductions, copies, printing and item(); int8 wraps as
// torch's does; // and % by zero raise as torch's do on integers.
func TestIntegerTensorsAreExact(t *testing.T) {
	const big = "torch.full((3,), 2**53, dtype=torch.int64)"
	expectPrinted(t, []numericCase{
		{big + " + 1", "tensor([9007199254740993, 9007199254740993, 9007199254740993])"},
		{"(" + big + " + 1)[1].item()", "9007199254740993"},
		{big + " + 1 == " + big, "tensor([False, False, False])"},
		{"(" + big + " + torch.arange(3)).sum().item()", "27021597764222979"},
		{"(" + big + " + torch.arange(3)).amax().item(), (" + big + " - torch.arange(3)).argmax().item()", "9007199254740994 0"},
		{"torch.cat([" + big + " + 1, " + big + " + 3]).reshape(2, 3).T.contiguous()[2]", "tensor([9007199254740993, 9007199254740995])"},
		{"torch.where(torch.arange(3) > 0, " + big + " + 1, 0)", "tensor([               0, 9007199254740993, 9007199254740993])"},
		{"torch.maximum(" + big + " + 1, " + big + ")", "tensor([9007199254740993, 9007199254740993, 9007199254740993])"},
		{"(" + big + " + 1).to(torch.int32)", "tensor([1, 1, 1], dtype=torch.int32)"},
		{"torch.full((2,), 100, dtype=torch.int8) + torch.full((2,), 100, dtype=torch.int8)", "tensor([-56, -56], dtype=torch.int8)"},
		{"torch.arange(5, dtype=torch.int32) // 2", "tensor([0, 0, 1, 1, 2], dtype=torch.int32)"},
		{"torch.arange(5, dtype=torch.int32) - 7 % 3", "tensor([-1,  0,  1,  2,  3], dtype=torch.int32)"},
		{"(torch.arange(5) - 2) % 3", "tensor([1, 2, 0, 1, 2])"},
		{"torch.arange(5, dtype=torch.int32) // 0", "error: ZeroDivisionError: integer division by zero"},
		{"torch.arange(5) % torch.zeros(5, dtype=torch.int64)", "error: ZeroDivisionError: integer modulo by zero"},
		{"torch.arange(3) ** -1", "error: negative integer powers"},
		{"torch.full((1,), -3.0) % 0.5, torch.full((1,), 5.0) % float('inf'), torch.full((1,), -5.0) // float('inf')", "tensor([-0.]) tensor([5.]) tensor([-1.])"},
		{"torch.full((1,), 1.0) // 0", "tensor([inf])"},
		{"torch.abs(-" + big + " - 1), (" + big + " - 2**54).relu(), (torch.arange(3, dtype=torch.int32) - 1).abs()",
			"tensor([9007199254740993, 9007199254740993, 9007199254740993]) tensor([0, 0, 0]) tensor([1, 0, 1], dtype=torch.int32)"},
		{"-(" + big + " + 1)", "tensor([-9007199254740993, -9007199254740993, -9007199254740993])"},
	})
}

// TestTensorShapeErrors: a dim out of range raises as torch's does (squeeze
// included); a squeeze of a dim whose size is not 1 leaves it; a result
// too large is an error before anything of its size is allocated.
func TestTensorShapeErrors(t *testing.T) {
	expectPrinted(t, []numericCase{
		{"torch.ones(4, 4).squeeze(-3)", "error: squeeze: dim -3 is out of range for a tensor of rank 2 (dims are -2 to 1)"},
		{"torch.ones(4, 4).squeeze(2)", "error: squeeze: dim 2 is out of range"},
		{"torch.ones(4, 4).squeeze(0).shape", "torch.Size([4, 4])"},
		{"torch.ones(4, 1).squeeze(-1).shape", "torch.Size([4])"},
		{"torch.ones(4, 1).sum(dim=-3)", "error: sum: dim -3 is out of range for a tensor of rank 2 (dims are -2 to 1)"},
		// Sizes are checked before operands are broadcast or gathered:
		// 2.5e9 elements would be 20 GB of float64.
		{"torch.ones(50000, 1) + torch.ones(1, 50000)", "error: [50000 50000] is more than the 268435456 elements"},
		{"torch.where(torch.ones(50000, 1) > 0, torch.ones(1, 50000), 0.0)", "error: more than the 268435456 elements"},
		{"torch.cat([torch.ones(1 << 20)] * 300)", "error: torch.cat: [314572800] is more than"},
		{"torch.arange(1 << 40)", "error: torch.arange: 1099511627776 is more than"},
		{"F.scaled_dot_product_attention(torch.ones(1, 4096, 1, 16), torch.ones(1, 1, 16384, 16), torch.ones(1, 1, 16384, 16), enable_gqa=True)",
			"error: [1 4096 16384 16] is more than the 268435456 elements"},
	})
}

// TestFormatWidthBounded: an f-string width or precision beyond what host
// code pads is a positioned error, not Go's "%!(NOVERB)" text.
func TestFormatWidthBounded(t *testing.T) {
	expectPrinted(t, []numericCase{
		{`f"{7:100000000}"`, `error: f-string: format spec "100000000": a width or precision of 100000000 is more than tilec pads to (1000000)`},
		{`f"{1.5:.100000000f}"`, "error: a width or precision of 100000000"},
		{`f"{7:099999999999999999999}"`, "error: a width or precision of 099999999999999999999"},
		{`f"[{7:>5}|{2.5:08.3f}]"`, "[    7|0002.500]"},
	})
}

// TestTorchMaxMin: torch.max(x) and torch.min(x), listed in
// docs/language.md, reduce the whole tensor; with a dim they return the
// named tuple (values, indices), as torch's return_types.
func TestTorchMaxMin(t *testing.T) {
	expectPrinted(t, []numericCase{
		{"torch.max(x), torch.min(x)", "tensor(2.5000) tensor(-2.5000)"},
		{"torch.max(torch.full((2,), 2**53, dtype=torch.int64) + torch.arange(2))", "tensor(9007199254740993)"},
		{"torch.max(x, dim=1)", "torch.return_types.max(\nvalues=tensor([-0.5000,  2.5000]),\nindices=tensor([2, 2]))"},
		{"torch.min(x, dim=0).indices, torch.min(x, 1, keepdim=True).values.shape", "tensor([0, 0, 0]) torch.Size([2, 1])"},
		{"x.max(dim=-1)[0], len(x.min(dim=1))", "tensor([-0.5000,  2.5000]) 2"},
		// The first of equal maxima, the first NaN (which wins, as in torch).
		{"torch.max(torch.ones(2, 3), dim=1).indices", "tensor([0, 0])"},
		{"torch.max(torch.where(x == 1.5, float('nan'), x), dim=1)", "torch.return_types.max(\nvalues=tensor([-0.5000,     nan]),\nindices=tensor([2, 1]))"},
		{"torch.max(x, dim=2)", "error: max: dim 2 is out of range"},
		{"torch.max(x, dim=1).value", "error: torch.return_types.max has no attribute value (it has values, indices)"},
	})
}

// TestCopiesCheckHostMemory: a copy (clone, a transposed tensor's reshape,
// contiguous) that the host has no room for is a positioned error, not
// Tensor.Clone's panic.
// The launch lowers the memory limit between the allocation and the copy.
func TestCopiesCheckHostMemory(t *testing.T) {
	const src = `import cuda.tile as ct
import torch


@ct.kernel
def k(a):
    pass


if __name__ == "__main__":
    x = torch.ones(64, 64)
    ct.launch(torch.cuda.current_stream(), (1, 1, 1), k, (x,))
    for y in (x.clone(), x.T.reshape(4096), x.T.contiguous()):
        print(y.shape)
`
	old := runtime.HostMemoryLimit
	defer func() { runtime.HostMemoryLimit = old }()
	for _, line := range []string{"x.clone()", "x.T.reshape(4096)", "x.T.contiguous()"} {
		s := strings.Replace(src, "for y in (x.clone(), x.T.reshape(4096), x.T.contiguous()):", "for y in ("+line+",):", 1)
		runtime.HostMemoryLimit = 0
		err := load(t, "copy.py", []byte(s)).RunMain(Options{Launch: func(*Launch) error {
			runtime.HostMemoryLimit = 1024 // less than x's 16 KiB
			return nil
		}})
		if err == nil || !strings.Contains(err.Error(), "copy.py:13:") || !strings.Contains(err.Error(), "more than the host memory available") {
			t.Errorf("%s under a 1 KiB limit: %v", line, err)
		}
	}
}
