package runtime_test

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/runtime"
	"github.com/tilec/tilec/runtime/interp"
)

const saxpySource = `
import cuda.tile as ct

@ct.kernel(grid=(ct.cdiv(N, tile),))
def saxpy(X: ct.Array[ct.float32, (N,)], Y: ct.Array[ct.float32, (N,)], a: float,
          tile: ct.Constant[int] = 256):
    x = ct.load(X, index=(ct.bid(0),), shape=(tile,))
    y = ct.load(Y, index=(ct.bid(0),), shape=(tile,))
    ct.store(Y, index=(ct.bid(0),), tile=a * x + y)
`

// Compile a kernel from source with a constant baked in, and run it on the
// CPU interpreter. A GPU build runs the same kernel with runtime.NewCUDA(0).
func Example() {
	k, err := runtime.Compile("saxpy.tile", []byte(saxpySource), runtime.CompileOptions{
		Consts: map[string]string{"tile": "128"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	X := runtime.FromFloat64(ir.F32, []int{3}, []float64{1, 2, 3})
	Y := runtime.FromFloat64(ir.F32, []int{3}, []float64{10, 20, 30})
	res, err := interp.CPU{}.Launch(k, []runtime.Arg{X, Y, 2.0}, runtime.LaunchOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("grid", res.Grid, "N =", res.Dims["N"])
	fmt.Println(Y.Float64s())
	// Output:
	// grid [1 1 1] N = 3
	// [12 24 36]
}

// Every user mistake comes back with its position, the source line and a
// caret; all errors of a file at once.
func ExampleCompile_errors() {
	src := strings.Replace(saxpySource, "shape=(tile,))\n    y", "shape=(100,))\n    y", 1)
	_, err := runtime.Compile("saxpy.tile", []byte(src), runtime.CompileOptions{
		Consts: map[string]string{"tile": "96"},
	})
	fmt.Println(err)
	// Output:
	// saxpy.tile:7:47: tile dimension 100 is not a power of two
	//         x = ct.load(X, index=(ct.bid(0),), shape=(100,))
	//                                                   ^
	// saxpy.tile:8:47: tile dimension 96 is not a power of two (constant tile=96)
	//         y = ct.load(Y, index=(ct.bid(0),), shape=(tile,))
	//                                                   ^
}

// Launch arguments are checked against the declared shapes before anything runs.
func ExampleKernel_Bind() {
	k, _ := runtime.CompileFile("../testdata/kernels/matmul.tile", runtime.CompileOptions{})
	rng := rand.New(rand.NewPCG(1, 2))
	A := runtime.RandNormal(rng, ir.F16, 256, 512)
	B := runtime.RandNormal(rng, ir.F16, 256, 128)
	C := runtime.NewTensor(ir.F16, 256, 128)
	_, err := interp.CPU{}.Launch(k, []runtime.Arg{A, B, C}, runtime.LaunchOptions{})
	fmt.Println(err)
	// Output:
	// argument B: dimension K is 256 but A gives 512
}

// CompilePTX gives the PTX and launch ABI for a target without a GPU.
func ExampleCompilePTX() {
	k, _ := runtime.CompileFile("../testdata/kernels/matmul.tile", runtime.CompileOptions{})
	pk, err := runtime.CompilePTX(k.Func, "sm_80")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(pk.Name, pk.Block, strings.Contains(pk.PTX, "mma.sync.aligned.m16n8k16"))
	// Output:
	// matmul [256 1 1] true
}
