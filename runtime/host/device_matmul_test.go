package host

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/runtime"
)

// Options.Matmul (a GPU backend's cuBLAS) computes the driver's float16
// and bfloat16 products, plain and batched; float32 ones and mixed dtypes
// keep the driver's own sums.
func TestDeviceMatmulHook(t *testing.T) {
	src := `import torch

if __name__ == "__main__":
    a = torch.ones(2, 3, dtype=torch.float16)
    b = torch.ones(3, 4, dtype=torch.float16)
    print((a @ b).shape, (a @ b)[0, 0].item())
    x = torch.ones(5, 2, 3, dtype=torch.bfloat16)
    y = torch.ones(5, 3, 4, dtype=torch.bfloat16)
    print(torch.matmul(x, y).shape)
    print((a.float() @ b.float())[0, 0].item())
`
	var calls []string
	hook := func(a, b *runtime.Tensor) (*runtime.Tensor, error) {
		calls = append(calls, a.DType.String())
		r := len(a.Shape)
		shape := append(append([]int{}, a.Shape[:r-1]...), b.Shape[r-1])
		out := runtime.NewTensor(a.DType, shape...)
		out.Fill(7) // not what the driver would compute: the hook's result is used
		return out, nil
	}
	var out bytes.Buffer
	if err := load(t, "m.py", []byte(src)).RunMain(Options{Stdout: &out, Matmul: hook}); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{"torch.Size([2, 4]) 7.0\n", "torch.Size([5, 2, 4])\n", "\n3.0\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("output %q lacks %q", got, want)
		}
	}
	if want := []string{ir.F16.String(), ir.F16.String(), ir.BF16.String()}; strings.Join(calls, ",") != strings.Join(want, ",") {
		t.Errorf("hook called for %v, want %v", calls, want)
	}
}
