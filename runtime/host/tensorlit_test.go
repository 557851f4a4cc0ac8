package host

import "testing"

// TestTorchTensorLiteral: torch.tensor(data, dtype=) infers torch's dtype
// (bool, int64, float32), keeps int64 exact, and refuses ragged lists as
// torch does.
func TestTorchTensorLiteral(t *testing.T) {
	expectScripts(t, []scriptCase{
		{"print(torch.tensor(1.0), torch.tensor(3), torch.tensor(True), torch.tensor([[1, 2], [3, 4]]).shape)", "tensor(1.) tensor(3) tensor(True) torch.Size([2, 2])"},
		{"print(torch.tensor([1, 2.5]).dtype, torch.tensor([], dtype=torch.int32).shape, torch.tensor([[1], [2]], dtype=torch.float16).dtype)", "torch.float32 torch.Size([0]) torch.float16"},
		{"print(torch.tensor([True, False]), torch.tensor([2**53 + 1]), torch.tensor([0.5, 0], dtype=torch.bool))", "tensor([ True, False]) tensor([9007199254740993]) tensor([ True, False])"},
		{"print(torch.tensor([[1, 2], [3]]))", "error: torch.tensor: expected a list of length 2 at dim 1 (got 1)"},
		{"print(torch.tensor([1, 'a']))", "error: torch.tensor takes numbers, bools and nested lists of them, got \"a\""},
	})
}

// TestScaledMM: torch._scaled_mm (the float8 GEMM of BatchMatMul.py's
// reference) is (a @ b) * scale_a * scale_b in out_dtype; the operands
// here are exact in float8_e4m3fn, so the product is exact.
func TestScaledMM(t *testing.T) {
	const ab = "a = (torch.arange(6).reshape(2, 3) * 0.5).to(torch.float8_e4m3fn)\nb = (torch.arange(6).reshape(3, 2) - 2.0).to(torch.float8_e4m3fn)\n"
	expectScripts(t, []scriptCase{
		// a = [[0, .5, 1], [1.5, 2, 2.5]], b = [[-2, -1], [0, 1], [2, 3]]:
		// a @ b = [[2, 3.5], [2, 8]], times 2 * 0.5.
		{ab + "c = torch._scaled_mm(a, b, scale_a=torch.tensor(2.0), scale_b=torch.tensor(0.5), out_dtype=torch.float32)\nprint(c, c.dtype)", "tensor([[2.0000, 3.5000],\n        [2.0000, 8.0000]]) torch.float32"},
		{ab + "print(torch._scaled_mm(a, b, scale_a=torch.tensor(1.0), scale_b=torch.tensor(1.0)).dtype)", "torch.float8_e4m3fn"},
		{ab + "print(torch._scaled_mm(a, b, torch.tensor(1.0), torch.tensor(1.0), bias=torch.ones(2)))", "error: torch._scaled_mm: bias= is not part of the host subset"},
	})
}
