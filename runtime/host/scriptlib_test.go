package host

import (
	"math"
	"strings"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/lang"
	"github.com/tilec/tilec/runtime"
)

const argparseScript = `import argparse
import torch

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="demo", formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--correctness-check", action="store_true", help="check")
    parser.add_argument("--size", "-n", type=int, default=128)
    parser.add_argument("--scale", type=float, default=1.5)
    parser.add_argument("--mode", choices=("fast", "slow"), default="fast")
    parser.add_argument("--no-warmup", dest="warmup", action="store_false")
    args = parser.parse_args()
    check, size, scale, mode, warmup = args.correctness_check, args.size, args.scale, args.mode, args.warmup
    cap = torch.cuda.get_device_capability()
    sms = torch.cuda.get_device_properties("cuda").multi_processor_count
    torch.set_float32_matmul_precision("high")
    prec = torch.get_float32_matmul_precision()
`

// TestScriptArgparse: parse_args reads Options.Argv as argparse does for
// the subset (flags with values, store_true/store_false, types, choices,
// defaults), and torch.cuda reports Options.Device.
func TestScriptArgparse(t *testing.T) {
	p := load(t, "a.py", []byte(argparseScript))
	vars, err := p.runMain(Options{Argv: []string{"--correctness-check", "-n", "300", "--scale=2.5", "--no-warmup"},
		Device: &Device{Name: "H100", Major: 9, Minor: 0, SMs: 132}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"check": true, "size": int64(300), "scale": 2.5, "mode": "fast", "warmup": false,
		"sms": int64(132), "prec": "high"}
	for k, w := range want {
		if vars[k] != w {
			t.Errorf("%s = %#v, want %#v", k, vars[k], w)
		}
	}
	if c, ok := vars["cap"].(Tuple); !ok || len(c) != 2 || c[0] != int64(9) || c[1] != int64(0) {
		t.Errorf("capability %v", vars["cap"])
	}
	vars, err = p.runMain(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if vars["check"] != false || vars["size"] != int64(128) || vars["warmup"] != true {
		t.Errorf("defaults: %v %v %v", vars["check"], vars["size"], vars["warmup"])
	}
	if c := vars["cap"].(Tuple); c[0] != int64(8) {
		t.Errorf("the interpreter's capability %v, want 8.0", c)
	}
	for _, c := range []struct {
		argv []string
		want string
	}{
		{[]string{"--bogus"}, "unrecognized arguments: --bogus"},
		{[]string{"--size", "ten"}, "argument --size/-n: invalid int value: 'ten'"},
		{[]string{"--mode", "medium"}, "argument --mode: invalid choice: 'medium'"},
		{[]string{"--size"}, "argument --size: expected one argument"},
		{[]string{"extra"}, "unrecognized arguments: extra"},
	} {
		_, err := p.runMain(Options{Argv: c.argv})
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "a.py:11:") {
			t.Errorf("%v: got %v, want %q at parse_args", c.argv, err, c.want)
		}
	}
}

// TestIsComparisons: `is` / `is not` in host code (identity: None, the
// same tensor) and in kernels (compile-time values: a dtype, a constant),
// and float tensors of whole numbers print as torch prints them.
func TestIsComparisons(t *testing.T) {
	src := `import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]


@ct.kernel
def k(X, Y, T: ConstInt):
    x = ct.load(X, index=(ct.bid(0),), shape=(T,))
    if X.dtype is ct.float32:
        x = x + 1
    if T is not 4:
        x = x * 10
    ct.store(Y, index=(ct.bid(0),), tile=x)


def run(X, out=None):
    if out is None:
        out = torch.empty_like(X)
    ct.launch(torch.cuda.current_stream(), (1, 1, 1), k, (X, out, 4))
    return out


if __name__ == "__main__":
    X = torch.arange(4, dtype=torch.float32)
    a = run(X)
    b = run(X.half())
    same, none, nn = X is X, X is None, None is not None
    print(a, b)
`
	var out strings.Builder
	vars, err := load(t, "is.py", []byte(src)).runMain(Options{Stdout: &out})
	if err != nil {
		t.Fatal(err)
	}
	if vars["same"] != true || vars["none"] != false || vars["nn"] != false {
		t.Errorf("is: %v %v %v", vars["same"], vars["none"], vars["nn"])
	}
	want := "tensor([1., 2., 3., 4.]) tensor([0., 1., 2., 3.], dtype=torch.float16)\n"
	if out.String() != want {
		t.Errorf("printed %q, want %q", out.String(), want)
	}
}

// TestScriptContextsAndImports: with statements over the contexts host
// code knows, from-imports of torch's functions, SDPA with enable_gqa
// (key/value heads repeated), and a kernel's flush_to_zero and
// rounding_mode=APPROX (the sample FMHA's): exp2 of -140 is a subnormal,
// flushed to zero only when asked.
func TestScriptContextsAndImports(t *testing.T) {
	src := `import cuda.tile as ct
from cuda.tile import RoundingMode as RMd
import torch
from torch.nn.functional import scaled_dot_product_attention
from torch.nn.attention import sdpa_kernel, SDPBackend

ConstInt = ct.Constant[int]


@ct.kernel
def k(X, Y, Z, T: ConstInt):
    x = ct.load(X, index=(0,), shape=(T,))
    ct.store(Y, index=(0,), tile=ct.exp2(x, flush_to_zero=True))
    ct.store(Z, index=(0,), tile=ct.truediv(ct.exp2(x), 2.0, flush_to_zero=False, rounding_mode=RMd.APPROX))


if __name__ == "__main__":
    q = torch.randn(1, 4, 8, 16)
    kv = torch.randn(1, 2, 8, 16)
    with sdpa_kernel(SDPBackend.FLASH_ATTENTION), torch.no_grad() as ctx:
        r = scaled_dot_product_attention(q, kv, kv, enable_gqa=True)
    X = torch.full((4,), -140.0)
    Y = torch.empty_like(X)
    Z = torch.empty_like(X)
    ct.launch(torch.cuda.current_stream(), (1, 1, 1), k, (X, Y, Z, 4))
    y, z = Y.sum().item(), Z.sum().item()
`
	vars, err := load(t, "c.py", []byte(src)).runMain(Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := vars["r"].(*runtime.Tensor)
	if len(r.Shape) != 4 || r.Shape[1] != 4 {
		t.Errorf("gqa result %v", r.Shape)
	}
	if vars["y"] != 0.0 {
		t.Errorf("exp2(-140) with flush_to_zero: %v, want 0", vars["y"])
	}
	if z, _ := vars["z"].(float64); z != 4*math.Ldexp(1, -141) {
		t.Errorf("exp2(-140)/2 without flush: %v, want %v", z, 4*math.Ldexp(1, -141))
	}
	// repeatHeads: head h of the result is head h/2 of the input.
	in := &evaluator{prog: load(t, "x.py", []byte("x = 1\n"))}
	kt := runtime.NewTensor(ir.F32, 1, 2, 1, 1)
	kt.Set(5, 0, 0, 0, 0)
	kt.Set(7, 0, 1, 0, 0)
	rep := in.repeatHeads(lang.Pos{}, "sdpa", runtime.NewTensor(ir.F32, 1, 4, 1, 1), kt)
	if got := values(rep); len(got) != 4 || got[0] != 5 || got[1] != 5 || got[2] != 7 || got[3] != 7 {
		t.Errorf("repeatHeads: %v", got)
	}
	// A kernel may not use with.
	bad := strings.Replace(src, "    x = ct.load(X, index=(0,), shape=(T,))\n", "    with torch.no_grad():\n        pass\n    x = ct.load(X, index=(0,), shape=(T,))\n", 1)
	if _, err := load(t, "c.py", []byte(bad)).runMain(Options{}); err == nil || !strings.Contains(err.Error(), "'with' statements are not supported in kernels") {
		t.Errorf("with in a kernel: %v", err)
	}
}

// TestScriptArgparseHelp: -h and --help print the help as Python's
// argparse lays it out (the expected text is python3.11's output for the
// same parser) and stop the script without an error, as sys.exit(0).
func TestScriptArgparseHelp(t *testing.T) {
	const script = `import argparse

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Vector add on the GPU: adds two random vectors and checks the sum against torch.", epilog="Run with --correctness-check on a GPU.")
    parser.add_argument("--correctness-check", action="store_true", help="check the result against torch")
    parser.add_argument("--size", "-n", type=int, default=128, help="elements per vector (default %(default)s)")
    parser.add_argument("--scale", type=float, default=1.5)
    parser.add_argument("--mode", choices=("fast", "slow"), default="fast", help="which path")
    parser.add_argument("--no-warmup", dest="warmup", action="store_false", help="skip the warm-up launch that compiles the kernel before the timed launches start, a long help text")
    parser.add_argument("out", help="output file")
    args = parser.parse_args()
    after = 1
`
	const want = `usage: tilec run FILE -- [-h] [--correctness-check] [--size SIZE]
                         [--scale SCALE] [--mode {fast,slow}] [--no-warmup]
                         out

Vector add on the GPU: adds two random vectors and checks the sum against
torch.

positional arguments:
  out                   output file

options:
  -h, --help            show this help message and exit
  --correctness-check   check the result against torch
  --size SIZE, -n SIZE  elements per vector (default 128)
  --scale SCALE
  --mode {fast,slow}    which path
  --no-warmup           skip the warm-up launch that compiles the kernel
                        before the timed launches start, a long help text

Run with --correctness-check on a GPU.
`
	p := load(t, "a.py", []byte(script))
	// -h wins over a bad value after it and a missing positional.
	for _, argv := range [][]string{{"-h"}, {"--help"}, {"--size", "3", "--help", "--size", "ten"}} {
		var out strings.Builder
		vars, err := p.runMain(Options{Argv: argv, Stdout: &out})
		if err != nil {
			t.Fatalf("%v: %v", argv, err)
		}
		if out.String() != want {
			t.Errorf("%v: help\n%s\nwant\n%s", argv, out.String(), want)
		}
		if _, ran := vars["after"]; ran {
			t.Errorf("%v: the script went on after the help", argv)
		}
	}
	// ArgumentDefaultsHelpFormatter appends each option's default;
	// add_help=False has no -h (it is an unrecognized argument then).
	const defaults = `import argparse

if __name__ == "__main__":
    parser = argparse.ArgumentParser(formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--n", type=int, default=512, help="elements")
    parser.add_argument("--check", action="store_true", help="compare with torch")
    parser.parse_args()
`
	var out strings.Builder
	if _, err := load(t, "b.py", []byte(defaults)).runMain(Options{Argv: []string{"-h"}, Stdout: &out}); err != nil {
		t.Fatal(err)
	}
	const wantDefaults = `usage: tilec run FILE -- [-h] [--n N] [--check]

options:
  -h, --help  show this help message and exit
  --n N       elements (default: 512)
  --check     compare with torch (default: False)
`
	if out.String() != wantDefaults {
		t.Errorf("ArgumentDefaultsHelpFormatter: help\n%s\nwant\n%s", out.String(), wantDefaults)
	}
	noHelp := strings.Replace(defaults, "formatter_class=argparse.ArgumentDefaultsHelpFormatter", "add_help=False", 1)
	_, err := load(t, "c.py", []byte(noHelp)).runMain(Options{Argv: []string{"-h"}})
	if err == nil || !strings.Contains(err.Error(), "usage: tilec run FILE -- [--n N] [--check]\nunrecognized arguments: -h") {
		t.Errorf("add_help=False -h: got %v, want unrecognized arguments", err)
	}
}
