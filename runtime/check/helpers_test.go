package check

import (
	"strings"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/runtime"
)

// poisonBytes is one element of d's poison pattern (runtime's Tensor.Poison).
func poisonBytes(d ir.DType) []byte {
	t := runtime.NewTensor(d, 1)
	t.Poison()
	return t.Data
}

// checkOutputsOf poisons k's outputs among args, checks which ones were
// poisoned (poisoned, per parameter: the write-only ones), runs k on the
// interpreter as a device would, and checks that the comparison with the
// interpreter covers the outputs named by names (in order) and passes. It
// returns the inputs and the result for the caller's further checks.
func checkOutputsOf(t *testing.T, k *runtime.Kernel, args []runtime.Arg, poisoned []bool, names string) ([]runtime.Arg, *CheckResult) {
	t.Helper()
	PoisonOutputs(k.Func, args)
	for i, want := range poisoned {
		if got := args[i].(*runtime.Tensor).CountPoison() > 0; got != want {
			t.Errorf("%s poisoned: %v, want %v", k.Func.Params[i].Name, got, want)
		}
	}
	inputs := CloneArgs(args)
	fakeDevice(t, k, args)
	res, err := CheckAgainstInterpreter(k, inputs, args, CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range res.Outputs {
		got = append(got, o.Name)
	}
	if g := strings.Join(got, " "); g != names {
		t.Errorf("compared %q, want %q", g, names)
	}
	if !res.Pass {
		t.Fatalf("the interpreter against itself:\n%s", res)
	}
	return inputs, res
}
