package interp

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/ir/build"
	"github.com/tilec/tilec/runtime"
	"github.com/tilec/tilec/runtime/compile"
)

// seedKernel is the seed post's kernel as the post writes it: unannotated
// arrays, constants through an alias of ct.Constant[int], a helper calling
// ct.bid.
const seedKernel = `import cuda.tile as ct

ConstInt = ct.Constant[int]
GROUP_SIZE_M = 8


def swizzle_2d(M, N, tm, tn, GROUP_SIZE_M):
    bid = ct.bid(0)
    num_bid_m = ct.cdiv(M, tm)
    num_bid_n = ct.cdiv(N, tn)
    num_bid_in_group = GROUP_SIZE_M * num_bid_n
    group_id = bid // num_bid_in_group
    first_bid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_bid_m - first_bid_m, GROUP_SIZE_M)
    return first_bid_m + (bid % group_size_m), (bid % num_bid_in_group) // group_size_m


@ct.kernel
def matmul_kernel(A, B, C, tm: ConstInt, tn: ConstInt, tk: ConstInt):
    bidx, bidy = swizzle_2d(A.shape[0], B.shape[1], tm, tn, GROUP_SIZE_M)
    acc = ct.full((tm, tn), 0, dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        a = ct.load(A, index=(bidx, k), shape=(tm, tk), padding_mode=ct.PaddingMode.ZERO)
        b = ct.load(B, index=(k, bidy), shape=(tk, tn), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bidx, bidy), tile=ct.astype(acc, C.dtype))
`

// TestGenericKernel launches an unannotated kernel with two signatures (f16
// and f32, odd sizes): each is specialized once, cached, and correct
// against a float64 reference.
func TestGenericKernel(t *testing.T) {
	k, err := compile.Source("seed.py", []byte(seedKernel), compile.Options{Consts: map[string]string{"tm": "32", "tn": "16", "tk": "16"}})
	if err != nil {
		t.Fatal(err)
	}
	if !k.IsGeneric() || k.Func != nil || k.Name() != "matmul_kernel" {
		t.Fatalf("want a generic kernel named matmul_kernel, got generic=%v name=%s", k.IsGeneric(), k.Name())
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var specs []*runtime.Kernel
	for _, dt := range []ir.DType{ir.F16, ir.F32, ir.F16} {
		M, K, N := 70, 45, 33
		A := runtime.RandNormal(rng, dt, M, K)
		B := runtime.RandNormal(rng, dt, K, N)
		C := runtime.NewTensor(dt, M, N)
		grid := [3]int{((M + 31) / 32) * ((N + 15) / 16), 1, 1}
		if _, err := (CPU{}).Launch(k, []runtime.Arg{A, B, C}, runtime.LaunchOptions{Grid: grid}); err != nil {
			t.Fatalf("%s: %v", dt, err)
		}
		tol := tolFor(dt)
		if dt == ir.F32 {
			tol = tolFor(ir.TF32) // mma on f32 inputs rounds them to tf32
		}
		checkClose(t, "C "+dt.String(), C.Float64s(), refMatmul(A, B), tol)
		s, err := k.Specialize([]runtime.Arg{A, B, C})
		if err != nil {
			t.Fatal(err)
		}
		specs = append(specs, s)
		if got := s.Func.Params[0].Type.String(); !strings.Contains(got, dt.String()) {
			t.Errorf("specialization's A is %s, want %s", got, dt)
		}
	}
	if specs[0] != specs[2] || specs[0] == specs[1] {
		t.Errorf("specializations not cached per signature: f16 %p, f32 %p, f16 again %p", specs[0], specs[1], specs[2])
	}
	if _, err := (CPU{}).Launch(k, []runtime.Arg{runtime.NewTensor(ir.F32, 4, 4)}, runtime.LaunchOptions{Grid: [3]int{1, 1, 1}}); err == nil ||
		!strings.Contains(err.Error(), "matmul_kernel takes 3 arguments (A, B, C), got 1") {
		t.Errorf("wrong argument count: got %v", err)
	}
	if _, err := (CPU{}).Launch(k, []runtime.Arg{runtime.NewTensor(ir.F32, 4, 4), "x", runtime.NewTensor(ir.F32, 4, 4)}, runtime.LaunchOptions{Grid: [3]int{1, 1, 1}}); err == nil ||
		!strings.Contains(err.Error(), "argument B: want a *runtime.Tensor, a []*runtime.Tensor (a list of arrays) or a Go scalar, got string") {
		t.Errorf("bad argument: got %v", err)
	}
}

// TestGenericKernelArgs: compile.Options.Args give the signature up front
// (what tilec --arg does): the kernel is not generic.
func TestGenericKernelArgs(t *testing.T) {
	sig := func(s string) build.ArgSig {
		a, err := build.ParseArgSig(s)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	k, err := compile.Source("seed.py", []byte(seedKernel), compile.Options{
		Consts: map[string]string{"tm": "32", "tn": "16", "tk": "16"},
		Args:   map[string]build.ArgSig{"A": sig("bf16[M,K]"), "B": sig("bf16[K,N]"), "C": sig("bf16[M,N]")}})
	if err != nil {
		t.Fatal(err)
	}
	if k.IsGeneric() || k.Func.Params[2].Dims[1].Sym != "N" {
		t.Fatalf("want a kernel specialized on the given signature, got generic=%v", k.IsGeneric())
	}
}
