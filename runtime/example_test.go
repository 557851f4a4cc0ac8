package runtime_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/runtime"
	"github.com/tilec/tilec/runtime/compile"
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
// CPU interpreter (runtime/interp). A GPU build runs the same kernel with
// cuda.New(0) (runtime/cuda).
func Example() {
	k, err := compile.Source("saxpy.tile", []byte(saxpySource), compile.Options{
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

// Launch arguments are checked against the declared shapes before anything runs.
func ExampleKernel_Bind() {
	k, _ := compile.File("../testdata/kernels/matmul.tile", compile.Options{})
	rng := rand.New(rand.NewPCG(1, 2))
	A := runtime.RandNormal(rng, ir.F16, 256, 512)
	B := runtime.RandNormal(rng, ir.F16, 256, 128)
	C := runtime.NewTensor(ir.F16, 256, 128)
	_, err := interp.CPU{}.Launch(k, []runtime.Arg{A, B, C}, runtime.LaunchOptions{})
	fmt.Println(err)
	// Output:
	// argument B: dimension K is 256 but A gives 512
}
