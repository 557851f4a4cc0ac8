package host

import (
	"math"
	"strings"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/runtime"
)

// The driver subset (a script's `if __name__ == "__main__":` block): each
// torch operation on small tensors whose values are worked out here by
// hand or by a direct float64 formula, independent of tensors.go.

const driverPrelude = `import cuda.tile as ct
import torch
import torch.nn.functional as F

if __name__ == "__main__":
    x = torch.arange(6, dtype=torch.float32).reshape(2, 3) - 2.5
`

// xRows is the prelude's x: [[-2.5, -1.5, -0.5], [0.5, 1.5, 2.5]].
var xRows = [][]float64{{-2.5, -1.5, -0.5}, {0.5, 1.5, 2.5}}

// runDriver runs the prelude plus lines as a script and returns its
// variables.
func runDriver(t *testing.T, lines string) (map[string]any, error) {
	t.Helper()
	var body strings.Builder
	for _, l := range strings.Split(strings.TrimSpace(lines), "\n") {
		body.WriteString("    " + strings.TrimRight(l, " \t") + "\n")
	}
	p := load(t, "drv.py", []byte(driverPrelude+body.String()))
	if !p.HasMain() {
		t.Fatal("HasMain: false for a script with a main block")
	}
	return p.runMain(Options{})
}

func flat(rows [][]float64) []float64 {
	var out []float64
	for _, r := range rows {
		out = append(out, r...)
	}
	return out
}

func mapRows(f func([]float64) []float64) []float64 {
	var out []float64
	for _, r := range xRows {
		out = append(out, f(r)...)
	}
	return out
}

func TestDriverOps(t *testing.T) {
	layerNorm := func(r []float64) []float64 {
		mean := (r[0] + r[1] + r[2]) / 3
		v := 0.0
		for _, x := range r {
			v += (x - mean) * (x - mean)
		}
		v /= 3
		out := make([]float64, 3)
		for i, x := range r {
			out[i] = (x - mean) / math.Sqrt(v+1e-5)
		}
		return out
	}
	rmsNorm := func(r []float64) []float64 {
		ms := (r[0]*r[0] + r[1]*r[1] + r[2]*r[2]) / 3
		out := make([]float64, 3)
		for i, x := range r {
			out[i] = x / math.Sqrt(ms+1e-6)
		}
		return out
	}
	// attention(causal) over the rows of x as queries, keys and values.
	attention := func(causal bool) []float64 {
		var out []float64
		for i, q := range xRows {
			var s []float64
			for j, k := range xRows {
				if causal && j > i {
					continue
				}
				s = append(s, (q[0]*k[0]+q[1]*k[1]+q[2]*k[2])/math.Sqrt(3))
			}
			p := softmaxRow(s)
			o := make([]float64, 3)
			for j := range p {
				for c := range o {
					o[c] += p[j] * xRows[j][c]
				}
			}
			out = append(out, o...)
		}
		return out
	}
	cases := []struct {
		line  string
		dt    ir.DType
		shape []int
		want  []float64
	}{
		{"r = x * 2 + torch.arange(3, dtype=torch.float32)", ir.F32, []int{2, 3}, []float64{-5, -2, 1, 1, 4, 7}},
		{"r = x + torch.arange(2, dtype=torch.float32).unsqueeze(1)", ir.F32, []int{2, 3}, []float64{-2.5, -1.5, -0.5, 1.5, 2.5, 3.5}},
		{"r = -x[0] if False else -x", ir.F32, []int{2, 3}, []float64{2.5, 1.5, 0.5, -0.5, -1.5, -2.5}},
		{"r = x.half() + 1", ir.F16, []int{2, 3}, []float64{-1.5, -0.5, 0.5, 1.5, 2.5, 3.5}},
		{"r = x.half() + x", ir.F32, []int{2, 3}, []float64{-5, -3, -1, 1, 3, 5}},
		{"r = torch.arange(3) * 1.5", ir.F32, []int{3}, []float64{0, 1.5, 3}},
		{"r = torch.arange(3) * 2", ir.I64, []int{3}, []float64{0, 2, 4}},
		{"r = torch.arange(3) / 2", ir.F32, []int{3}, []float64{0, 0.5, 1}},
		{"r = (x * 0 + 1.0001).half()", ir.F16, []int{2, 3}, []float64{1, 1, 1, 1, 1, 1}},
		{"r = x ** 2", ir.F32, []int{2, 3}, []float64{6.25, 2.25, 0.25, 0.25, 2.25, 6.25}},
		{"r = x @ x.T", ir.F32, []int{2, 2}, []float64{8.75, -4.75, -4.75, 8.75}},
		{"r = torch.matmul(x.unsqueeze(0), x.T.unsqueeze(0))", ir.F32, []int{1, 2, 2}, []float64{8.75, -4.75, -4.75, 8.75}},
		{"r = x.sum(dim=1)", ir.F32, []int{2}, []float64{-4.5, 4.5}},
		{"r = x.sum(dim=1, keepdim=True)", ir.F32, []int{2, 1}, []float64{-4.5, 4.5}},
		{"r = x.amax(dim=0)", ir.F32, []int{3}, []float64{0.5, 1.5, 2.5}},
		{"r = torch.amin(x, dim=1)", ir.F32, []int{2}, []float64{-2.5, 0.5}},
		{"r = x.argmax(dim=1)", ir.I64, []int{2}, []float64{2, 2}},
		{"r = x.argmax(dim=1).to(torch.int32)", ir.I32, []int{2}, []float64{2, 2}},
		{"r = x.mean()", ir.F32, []int{}, []float64{0}},
		{"r = torch.where(x > 0, x, 0.1 * x)", ir.F32, []int{2, 3}, []float64{-0.25, -0.15, -0.05, 0.5, 1.5, 2.5}},
		{"r = torch.maximum(x, torch.zeros(3))", ir.F32, []int{2, 3}, []float64{0, 0, 0, 0.5, 1.5, 2.5}},
		{"r = torch.relu(x) + x.abs()", ir.F32, []int{2, 3}, []float64{2.5, 1.5, 0.5, 1, 3, 5}},
		{"r = torch.softmax(x, dim=1)", ir.F32, []int{2, 3}, mapRows(softmaxRow)},
		{"r = x.softmax(dim=-1)", ir.F32, []int{2, 3}, mapRows(softmaxRow)},
		{"r = F.layer_norm(x, (3,))", ir.F32, []int{2, 3}, mapRows(layerNorm)},
		{"r = F.layer_norm(x, (3,), torch.ones(3) * 2, torch.ones(3))", ir.F32, []int{2, 3}, mapRows(func(r []float64) []float64 {
			out := layerNorm(r)
			for i := range out {
				out[i] = 2*out[i] + 1
			}
			return out
		})},
		{"r = F.rms_norm(x, (3,), eps=1e-6)", ir.F32, []int{2, 3}, mapRows(rmsNorm)},
		{"r = F.scaled_dot_product_attention(x, x, x)", ir.F32, []int{2, 3}, attention(false)},
		{"r = F.scaled_dot_product_attention(x.unsqueeze(0), x.unsqueeze(0), x.unsqueeze(0), is_causal=True)", ir.F32, []int{1, 2, 3}, attention(true)},
		// float32 matmuls accumulate in float32, k ascending, as torch on a
		// GPU: 1 + 2^-25 rounds to 1, then - 1 gives 0 (float64: 2^-25).
		{"r = ((torch.arange(3) == 0).float() - (torch.arange(3) == 2).float() + (torch.arange(3) == 1).float() * 2.9802322387695312e-08).unsqueeze(0) @ torch.ones(3, 1) * 33554432", ir.F32, []int{1, 1}, []float64{0}},
		{"r = ((torch.arange(3) == 0).double() - (torch.arange(3) == 2).double() + (torch.arange(3) == 1).double() * 2.9802322387695312e-08).unsqueeze(0) @ torch.ones(3, 1).double() * 33554432", ir.F64, []int{1, 1}, []float64{1}},
		{"r = torch.arange(6) // 4", ir.I64, []int{6}, []float64{0, 0, 0, 0, 1, 1}},
		{"r = (torch.arange(6) - 3) % 4", ir.I64, []int{6}, []float64{1, 2, 3, 0, 1, 2}},
		{"r = (torch.arange(6) | 1) ^ 2", ir.I64, []int{6}, []float64{3, 3, 1, 1, 7, 7}},
		{"r = (torch.arange(4) << 2) >> 1", ir.I64, []int{4}, []float64{0, 2, 4, 6}},
		{"r = torch.sigmoid(x)", ir.F32, []int{2, 3}, mapRows(func(r []float64) []float64 {
			out := make([]float64, len(r))
			for i, v := range r {
				out[i] = 1 / (1 + math.Exp(-v))
			}
			return out
		})},
	}
	for _, c := range cases {
		t.Run(c.line, func(t *testing.T) {
			vars, err := runDriver(t, c.line)
			if err != nil {
				t.Fatal(err)
			}
			r, ok := vars["r"].(*runtime.Tensor)
			if !ok {
				t.Fatalf("r is %T, want a tensor", vars["r"])
			}
			if r.DType != c.dt || len(r.Shape) != len(c.shape) {
				t.Fatalf("r: %s %v, want %s %v", r.DType, r.Shape, c.dt, c.shape)
			}
			for i := range c.shape {
				if r.Shape[i] != c.shape[i] {
					t.Fatalf("r: shape %v, want %v", r.Shape, c.shape)
				}
			}
			got := values(r)
			tol := 1e-6
			if c.dt == ir.F16 {
				tol = 1e-3
			}
			for i := range c.want {
				if math.Abs(got[i]-c.want[i]) > tol*(1+math.Abs(c.want[i])) {
					t.Fatalf("r[%d] = %g, want %g (all: %v)", i, got[i], c.want[i], got)
				}
			}
		})
	}
}

// TestDriverRandom: torch.manual_seed makes randn reproducible; dtypes
// and ranges are the asked ones.
func TestDriverRandom(t *testing.T) {
	vars, err := runDriver(t, `torch.manual_seed(3)
a = torch.randn(1000, dtype=torch.float16, device="cuda")
torch.manual_seed(3)
b = torch.randn(1000, dtype=torch.float16)
c = torch.rand(10, 20)`)
	if err != nil {
		t.Fatal(err)
	}
	a, b, c := vars["a"].(*runtime.Tensor), vars["b"].(*runtime.Tensor), vars["c"].(*runtime.Tensor)
	if a.DType != ir.F16 || c.DType != ir.F32 || len(c.Shape) != 2 || c.Shape[0] != 10 || c.Shape[1] != 20 {
		t.Fatalf("a %s, c %s %v", a.DType, c.DType, c.Shape)
	}
	av, bv := values(a), values(b)
	mean, sq := 0.0, 0.0
	for i := range av {
		if av[i] != bv[i] {
			t.Fatalf("element %d: %g after the same seed, then %g", i, av[i], bv[i])
		}
		mean += av[i]
		sq += av[i] * av[i]
	}
	mean /= 1000
	if sd := math.Sqrt(sq/1000 - mean*mean); math.Abs(mean) > 0.15 || sd < 0.85 || sd > 1.15 {
		t.Errorf("randn: mean %g, sd %g", mean, sd)
	}
	for _, v := range values(c) {
		if v < 0 || v >= 1 {
			t.Fatalf("rand gave %g", v)
		}
	}
}

// TestDriverAssertClose: torch.testing.assert_close passes within the
// dtype's default tolerances and fails with torch's report otherwise.
func TestDriverAssertClose(t *testing.T) {
	if _, err := runDriver(t, `torch.testing.assert_close(x, x + 1e-7)
torch.testing.assert_close(x.half(), (x + 1e-4).half())
torch.testing.assert_close(x, x + 0.01, rtol=0, atol=0.02)`); err != nil {
		t.Fatal(err)
	}
	cases := []driverError{
		{"torch.testing.assert_close(x, x + (x > 2).float())", `drv.py:7:5: Tensor-likes are not close!

Mismatched elements: 1 / 6 (16.7%)
Greatest absolute difference: 1.0 at index (1, 2) (up to 1e-05 allowed)
Greatest relative difference: 0.2857142857142857 at index (1, 2) (up to 1.3e-06 allowed)`},
		{"torch.testing.assert_close(x, x.half())", "the dtypes differ: torch.float32 and torch.float16"},
		{"torch.testing.assert_close(x, x.T)", "the shapes differ: [2 3] and [3 2]"},
		{"torch.testing.assert_close(x, x * 2, msg='doubled')", "drv.py:7:5: doubled"},
		{"torch.testing.assert_close(x, x, rtol=0.1)", "give both rtol and atol"},
		// Infinities are close only to themselves, NaN only to NaN with equal_nan
		// (5 against +Inf passed when inf > inf was the test).
		{"torch.testing.assert_close(torch.ones(4) * 5, torch.ones(4) / 0)", "Mismatched elements: 4 / 4"},
		{"torch.testing.assert_close(torch.ones(4) / 0, -torch.ones(4) / 0)", "Mismatched elements: 4 / 4"},
		{"torch.testing.assert_close(x * float('nan'), x * float('nan'))", "Mismatched elements: 6 / 6"},
		{"assert torch.allclose(torch.ones(2) * 5, torch.ones(2) / 0)", "drv.py:7:"},
		{"assert torch.allclose(x * float('nan'), x * float('nan'))", "drv.py:7:"},
		{"r = torch.allclose(x, x, rtol='a')", "rtol is a number"},
		// torch's diagnostics, not only its verdict: matched elements count
		// 0, NaN is the greatest difference (5 against inf is inf / inf),
		// ints print their absolute difference as an int, and rtol = atol
		// = 0 is "not equal" without tolerances.
		{"torch.testing.assert_close(torch.ones(4) * 5, torch.ones(4) / 0)", `Mismatched elements: 4 / 4 (100.0%)
Greatest absolute difference: inf at index (0,) (up to 1e-05 allowed)
Greatest relative difference: nan at index (0,) (up to 1.3e-06 allowed)`},
		{"torch.testing.assert_close(torch.tensor([1.0, 2.0, 3.0]), torch.tensor([1.0, 2.5, float('nan')]))", `Mismatched elements: 2 / 3 (66.7%)
Greatest absolute difference: nan at index (2,) (up to 1e-05 allowed)
Greatest relative difference: nan at index (2,) (up to 1.3e-06 allowed)`},
		{"torch.testing.assert_close(torch.tensor([1e-6, 2.0, 3.0]), torch.tensor([0.0, 2.5, 3.0]))", `Mismatched elements: 1 / 3 (33.3%)
Greatest absolute difference: 0.5 at index (1,) (up to 1e-05 allowed)
Greatest relative difference: 0.2 at index (1,) (up to 1.3e-06 allowed)`},
		{"torch.testing.assert_close(torch.tensor([1, 2, 3]), torch.tensor([1, 4, 0]))", `Tensor-likes are not equal!

Mismatched elements: 2 / 3 (66.7%)
Greatest absolute difference: 3 at index (2,)
Greatest relative difference: inf at index (2,)`},
		{"torch.testing.assert_close(x, x + 1, rtol=0, atol=0)", `Tensor-likes are not equal!

Mismatched elements: 6 / 6 (100.0%)
Greatest absolute difference: 1.0 at index (0, 0)
Greatest relative difference: 2.0 at index (0, 1)`},
	}
	expectDriverErrors(t, cases)
	if _, err := runDriver(t, `torch.testing.assert_close(torch.ones(2) / 0, torch.ones(2) / 0)
torch.testing.assert_close(x * float('nan'), x * float('nan'), equal_nan=True)
assert torch.allclose(x * float('nan'), x * float('nan'), equal_nan=True)
assert torch.allclose(torch.ones(2) / 0, torch.ones(2) / 0)`); err != nil {
		t.Fatal(err)
	}
}

// TestDriverErrors: what the driver subset does not have is a positioned
// error naming it, never a panic.
func TestDriverErrors(t *testing.T) {
	cases := []driverError{
		{"r = torch.cumsum(x, dim=0)", "drv.py:7:15: torch.cumsum is not part of the host subset"},
		{"r = x + torch.arange(4)", "drv.py:7:11: the shapes [2 3] and [4] do not broadcast"},
		{"r = x @ x", "drv.py:7:11: @: shapes [2 3] and [2 3] cannot be multiplied"},
		{"r = x.reshape(4, 2)", "shape [4 2] is invalid for a tensor of 6 elements"},
		{"r = torch.randn(3, dtype=torch.int32)", "dtype= is a float dtype"},
		{"r = x.sum(dim=2)", "drv.py:7:9: sum: dim 2 is out of range for a tensor of rank 2"},
		{"r = F.scaled_dot_product_attention(x, x, x, attn_mask=x)", "attn_mask is not part of the driver subset"},
		{"r = torch.randn(1 << 20, 1 << 20)", "elements a driver's tensor may have"},
	}
	expectDriverErrors(t, cases)
}

// TestDriverPrint: print shows tensors as torch does.
func TestDriverPrint(t *testing.T) {
	p := load(t, "drv.py", []byte(driverPrelude+`    print(x)
    print(x.half()[0] if False else x.half())
    print(x.argmax(dim=1), tuple(x.shape))
`))
	var out strings.Builder
	if err := p.RunMain(Options{Stdout: &out}); err != nil {
		t.Fatal(err)
	}
	want := `tensor([[-2.5000, -1.5000, -0.5000],
        [ 0.5000,  1.5000,  2.5000]])
tensor([[-2.5000, -1.5000, -0.5000],
        [ 0.5000,  1.5000,  2.5000]], dtype=torch.float16)
tensor([2, 2]) (2, 3)
`
	if out.String() != want {
		t.Errorf("printed\n%s\nwant\n%s", out.String(), want)
	}
}

// TestDriverLoops: while with break and continue, break out of a for,
// and the bitwise augmented assignments, as Python runs them.
func TestDriverLoops(t *testing.T) {
	vars, err := runDriver(t, `n = 0
total = 0
while True:
    n += 1
    if n % 2 == 0:
        continue
    if n > 9:
        break
    total += n
for i in range(10):
    if i == 3:
        break
m = 37
m |= m >> 1
m &= 0x3c
m ^= 1
m <<= 2
m >>= 1`)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{"total": 25, "n": 11, "i": 3, "m": ((((37 | 18) & 0x3c) ^ 1) << 2) >> 1}
	for k, w := range want {
		if vars[k] != w {
			t.Errorf("%s = %v, want %d", k, vars[k], w)
		}
	}
	if _, err := runDriver(t, "while True:\n    n = 1"); err == nil || !strings.Contains(err.Error(), "ran more than") {
		t.Errorf("an endless while: %v", err)
	}
	if _, err := runDriver(t, "r = x & 1"); err == nil || !strings.Contains(err.Error(), "takes integer or bool tensors") {
		t.Errorf("& on a float tensor: %v", err)
	}
}

// TestDriverMatmulPrecision: torch.set_float32_matmul_precision("high")
// makes float32 matmuls round their inputs to tf32 (10-bit mantissas), as
// torch does on a GPU; "highest" keeps them.
func TestDriverMatmulPrecision(t *testing.T) {
	for _, c := range []struct {
		prec string
		want float64
	}{{"highest", 1}, {"high", 0}} {
		vars, err := runDriver(t, `torch.set_float32_matmul_precision("`+c.prec+`")
a = torch.ones(1, 1) * 1.000244140625
r = ((a @ torch.ones(1, 1)) - 1) * 4096`)
		if err != nil {
			t.Fatal(err)
		}
		if got := values(vars["r"].(*runtime.Tensor))[0]; got != c.want {
			t.Errorf("precision %s: (1 + 2^-12) @ 1 gives 1 + %g * 2^-12, want %g", c.prec, got, c.want)
		}
	}
}

// TestDriverIndexingAndLists: tensors indexed by ints and slices (copies),
// tuples sliced, list comprehensions (tuples), torch.stack / cat and
// randperm, as Python and torch give them.
func TestDriverIndexingAndLists(t *testing.T) {
	vars, err := runDriver(t, `a = x[1]
b = x[:, 1:]
c = x[-1, ::2]
d = x[0, 2]
s = (4, 5, 6, 7)[1:3]
s2 = (4, 5, 6, 7)[::-2]
sq = [i * i for i in range(5) if i % 2 == 0]
rows = [r.sum() for r in x]
st = torch.stack([x[0], x[1]], dim=1)
ct2 = torch.cat([x, x[:1]], dim=0)
torch.manual_seed(1)
p = torch.randperm(10)
p2 = [int(v.item()) for v in p]`)
	if err != nil {
		t.Fatal(err)
	}
	check := func(name string, shape []int, want []float64) {
		t.Helper()
		r, ok := vars[name].(*runtime.Tensor)
		if !ok {
			t.Fatalf("%s is %T", name, vars[name])
		}
		if len(r.Shape) != len(shape) {
			t.Fatalf("%s: shape %v, want %v", name, r.Shape, shape)
		}
		for i := range shape {
			if r.Shape[i] != shape[i] {
				t.Fatalf("%s: shape %v, want %v", name, r.Shape, shape)
			}
		}
		got := values(r)
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("%s = %v, want %v", name, got, want)
			}
		}
	}
	check("a", []int{3}, []float64{0.5, 1.5, 2.5})
	check("b", []int{2, 2}, []float64{-1.5, -0.5, 1.5, 2.5})
	check("c", []int{2}, []float64{0.5, 2.5})
	check("d", []int{}, []float64{-0.5})
	check("st", []int{3, 2}, []float64{-2.5, 0.5, -1.5, 1.5, -0.5, 2.5})
	check("ct2", []int{3, 3}, []float64{-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, -2.5, -1.5, -0.5})
	if s := vars["s"].(Tuple); len(s) != 2 || s[0] != int64(5) || s[1] != int64(6) {
		t.Errorf("s = %v", s)
	}
	if s := vars["s2"].(Tuple); len(s) != 2 || s[0] != int64(7) || s[1] != int64(5) {
		t.Errorf("s2 = %v", s)
	}
	if s := vars["sq"].(Tuple); len(s) != 3 || s[0] != int64(0) || s[1] != int64(4) || s[2] != int64(16) {
		t.Errorf("sq = %v", s)
	}
	if r := vars["rows"].(Tuple); len(r) != 2 || values(r[0].(*runtime.Tensor))[0] != -4.5 || values(r[1].(*runtime.Tensor))[0] != 4.5 {
		t.Errorf("rows = %v", r)
	}
	seen := map[int64]bool{}
	for _, v := range vars["p2"].(Tuple) {
		seen[v.(int64)] = true
	}
	if len(seen) != 10 || !seen[0] || !seen[9] {
		t.Errorf("randperm(10) = %v", vars["p2"])
	}
	expectDriverErrors(t, []driverError{
		{"r = x[2]", "index 2 is out of bounds for dimension 0 with size 2"},
		{"r = x[0, 0, 0]", "too many indices for a tensor of dimension 2"},
		{"r = (1, 2)[::0]", "slice step cannot be zero"},
		{"r = torch.cat([x, x.T])", "sizes must match except in dimension 0"},
	})
}

// driverError is a driver line and (part of) the error it must give.
type driverError struct{ line, want string }

func expectDriverErrors(t *testing.T, cases []driverError) {
	t.Helper()
	for _, c := range cases {
		if _, err := runDriver(t, c.line); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error containing %q", c.line, err, c.want)
		}
	}
}
