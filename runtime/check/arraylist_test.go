package check

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/runtime"
	"github.com/tilec/tilec/runtime/compile"
	"github.com/tilec/tilec/runtime/interp"
)

// A kernel that writes into a list of arrays: every array of the list is
// poisoned (written only), compared on its own and reported by item, and
// a wrong element in one of them fails the check under that item's name.
func TestCheckListOutputs(t *testing.T) {
	src := `import cuda.tile as ct

@ct.kernel
def scale_groups(Xs, Ys):
    for g in range(len(Xs)):
        X = Xs[g]
        for i in range(ct.num_tiles(X, 0, (16,))):
            x = ct.load(X, (i,), shape=(16,))
            ct.store(Ys[g], (i,), tile=x * 3.0)
`
	k, err := compile.Source("k.py", []byte(src), compile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	xs := []*runtime.Tensor{runtime.RandNormal(rng, ir.F32, 40), runtime.RandNormal(rng, ir.F32, 7)}
	ys := []*runtime.Tensor{runtime.NewTensor(ir.F32, 40), runtime.NewTensor(ir.F32, 7)}
	args := []runtime.Arg{xs, ys}
	s, err := k.Specialize(args)
	if err != nil {
		t.Fatal(err)
	}
	PoisonOutputs(s.Func, args)
	if !ys[1].IsPoisonAt(3) || xs[1].IsPoisonAt(3) {
		t.Fatal("the written list was not poisoned, or the read one was")
	}
	inputs := CloneArgs(args)
	if &inputs[1].([]*runtime.Tensor)[0].Data[0] == &ys[0].Data[0] {
		t.Fatal("CloneArgs shares a list's storage")
	}
	// The "device" is the interpreter here; then one element goes wrong.
	if _, err := interp.Launch(k, args, runtime.LaunchOptions{Grid: [3]int{1, 1, 1}}); err != nil {
		t.Fatal(err)
	}
	res, err := CheckAgainstInterpreter(k, inputs, args, CheckOptions{Grid: [3]int{1, 1, 1}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Pass || len(res.Outputs) != 2 || res.Outputs[0].Name != "Ys[0]" || res.Outputs[1].Name != "Ys[1]" {
		t.Fatalf("pass %v, outputs %v", res.Pass, res.Outputs)
	}
	ys[1].Set(ys[1].At(5)+1, 5)
	res, err = CheckAgainstInterpreter(k, inputs, args, CheckOptions{Grid: [3]int{1, 1, 1}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Pass || !res.Outputs[0].Pass || res.Outputs[1].Pass {
		t.Errorf("a wrong Ys[1][5] passed: %+v %+v", res.Outputs[0], res.Outputs[1])
	}
	if !strings.Contains(res.Outputs[1].Scale, "per element") {
		t.Errorf("Ys[1] bound by %q, want the per-element magnitude", res.Outputs[1].Scale)
	}
}
