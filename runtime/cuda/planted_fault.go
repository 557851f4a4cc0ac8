//go:build cuda && plantfault

package cuda

import (
	"fmt"
	"os"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/runtime"
)

// A test build (go build -tags cuda,plantfault) whose CUDA launches come
// back with one element wrong: the middle element of the first array the
// kernel scatters into (else of the first array it writes) gets 1 added.
// gpu-check runs such a build on a scatter kernel and expects the check
// against the interpreter to fail; it proves the check compares scatter
// outputs on the GPU.
func init() {
	plantedFault = func(f *ir.Func, args []runtime.Arg) {
		target := -1
		f.Body.Walk(func(in *ir.Instr) {
			if in.Op == ir.OpScatter && target < 0 {
				target = f.ParamIndex(in.Args[0])
			}
		})
		if target < 0 {
			if w := ir.WrittenParams(f); len(w) > 0 {
				target = w[0]
			}
		}
		if target < 0 || target >= len(args) {
			return
		}
		ts := runtime.ArgTensors(args[target]) // a list's first array
		if len(ts) == 0 || ts[0] == nil || ts[0].NumElements() == 0 {
			return
		}
		t := ts[0]
		idx := runtime.Unravel(t.NumElements()/2, t.Shape)
		if t.DType.IsFloat() {
			t.Set(t.At(idx...)+1, idx...)
		} else {
			t.SetInt(t.AtInt(idx...)+1, idx...)
		}
		fmt.Fprintf(os.Stderr, "plantfault: %s: %s%v changed by 1 after the launch\n", f.Name, f.Params[target].Name, idx)
	}
}
