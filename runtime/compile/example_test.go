package compile_test

import (
	"fmt"
	"strings"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/runtime"
	"github.com/tilec/tilec/runtime/compile"
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

// Every user mistake comes back with its position, the source line and a
// caret; all errors of a file at once.
func ExampleSource_errors() {
	src := strings.Replace(saxpySource, "shape=(tile,))\n    y", "shape=(100,))\n    y", 1)
	_, err := compile.Source("saxpy.tile", []byte(src), compile.Options{
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

// PTX gives the PTX and launch ABI for a target without a GPU.
func ExamplePTX() {
	k, _ := compile.File("../../testdata/kernels/matmul.tile", compile.Options{})
	pk, err := compile.PTX(k.Func, "sm_80")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(pk.Name, pk.Block, strings.Contains(pk.PTX, "mma.sync.aligned.m16n8k16"))
	// Output:
	// matmul [256 1 1] true
}

// A plain cuTile kernel (unannotated parameters) is compiled per launch
// signature: specialize it, then take its PTX. Before Specialize it has
// no IR, and PTX says what to call instead of failing inside the compiler.
func ExamplePTX_specialize() {
	src := `
import cuda.tile as ct

@ct.kernel
def scale(X, Y, TILE: ct.Constant[int]):
    x = ct.load(X, index=(ct.bid(0),), shape=(TILE,))
    ct.store(Y, index=(ct.bid(0),), tile=x * 2.0)
`
	k, err := compile.Source("scale.py", []byte(src), compile.Options{Consts: map[string]string{"TILE": "128"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	if _, err := compile.PTX(k.Func, "sm_80"); err != nil {
		fmt.Println("before Specialize:", strings.SplitN(err.Error(), ";", 2)[0])
	}
	X, Y := runtime.NewTensor(ir.F32, 1000), runtime.NewTensor(ir.F32, 1000)
	s, err := k.Specialize([]runtime.Arg{X, Y})
	if err != nil {
		fmt.Println(err)
		return
	}
	pk, err := compile.PTX(s.Func, "sm_80")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(pk.Name, strings.Contains(pk.PTX, ".entry scale"))
	// Output:
	// before Specialize: compile: no kernel IR to compile: a kernel with unannotated parameters is compiled per launch signature
	// scale true
}
