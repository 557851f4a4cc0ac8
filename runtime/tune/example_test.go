package tune_test

import (
	"fmt"
	"log"
	"math/rand/v2"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/runtime"
	"github.com/tilec/tilec/runtime/bench"
	"github.com/tilec/tilec/runtime/compile"
	"github.com/tilec/tilec/runtime/cuda"
	"github.com/tilec/tilec/runtime/tune"
)

// Launch a kernel on the GPU with the constants and knobs that
// `tilec tune testdata/kernels/matmul.tile --shape M=4096,N=4096,K=4096 --space
// "tm=64,128 stages=3,4"` cached for this device and class of shapes, as
// `tilec run` does (the kernel as the options build it when nothing was
// cached). Needs a cuda build and a GPU.
func ExampleCache_CompileFile() {
	gpu, err := cuda.New(0)
	if err != nil {
		log.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	args := []runtime.Arg{
		runtime.RandNormal(rng, ir.F16, 4096, 4096),
		runtime.RandNormal(rng, ir.F16, 4096, 4096),
		runtime.NewTensor(ir.F16, 4096, 4096),
	}
	k, note, err := tune.OpenCache().CompileFile(bench.CUDADevice(gpu), "testdata/kernels/matmul.tile", compile.Options{}, args)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(note) // tuned constants from cache: tm=128 stages=3 (1.04x the defaults at K=4096,M=4096,N=4096)
	if _, err := gpu.Launch(k, args, runtime.LaunchOptions{}); err != nil {
		log.Fatal(err)
	}
}
