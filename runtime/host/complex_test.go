package host

import (
	"bytes"
	"math"
	"math/cmplx"
	"strings"
	"testing"
)

// TestComplexScalars: Python's complex numbers, printed as CPython prints
// them (the expected line is CPython 3's output for the same prints).
func TestComplexScalars(t *testing.T) {
	src := `if __name__ == "__main__":
    print((1+2j)*(3-1j), 1j**2, 2j, -0j, (1.5-0.25j)/2, -2j*3.5, 1e20j, (0.1+0.2j))
    print(1j == 1j, (1+0j) == 1, 2j != 2, abs(3+4j), bool(0j))
    d = {1: "one", 2j: "i"}
    print(d[1 + 0j], d[2j], 1.0 + 0j in d, 3j in d)
`
	var out bytes.Buffer
	if err := load(t, "c.py", []byte(src)).RunMain(Options{Stdout: &out}); err != nil {
		t.Fatal(err)
	}
	want := "(5+5j) (-1+0j) 2j (-0-0j) (0.75-0.125j) -7j 1e+20j (0.1+0.2j)\nTrue True True 5.0 False\none i True False\n"
	if out.String() != want {
		t.Errorf("got\n%swant\n%s", out.String(), want)
	}
}

func complexVar(t *testing.T, vars map[string]any, name string) []complex128 {
	t.Helper()
	c, ok := vars[name].(*cTensor)
	if !ok {
		t.Fatalf("%s is %s, not a complex tensor", name, describe(vars[name]))
	}
	return c.parts()
}

func complexClose(t *testing.T, what string, got, want []complex128, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range got {
		if cmplx.Abs(got[i]-want[i]) > tol {
			t.Errorf("%s[%d] = %v, want %v", what, i, got[i], want[i])
		}
	}
}

// TestFFTClosedForms: torch.fft.fft against transforms known in closed
// form: a tone exp(2 pi i 3 j / 8) is 8 at k = 3 and 0 elsewhere; a delta
// transforms to ones; four ones padded to n = 8 give the geometric sums
// (1 - w^(4k)) / (1 - w^k), w = exp(-2 pi i / 8); norm="ortho" scales by
// 1/sqrt(n); dim= picks the axis. complex128 throughout, so the
// tolerance is float64's.
func TestFFTClosedForms(t *testing.T) {
	src := `import math
import torch

if __name__ == "__main__":
    j = torch.arange(8, dtype=torch.float64)
    tone = torch.exp(2j * math.pi * 3 * j / 8)
    f_tone = torch.fft.fft(tone)
    delta = torch.view_as_complex(torch.zeros(8, 2, dtype=torch.float64))
    torch.view_as_real(delta)[0, 0] = 1.0
    f_delta = torch.fft.fft(delta, norm="ortho")
    ones = torch.ones(4, dtype=torch.float64) + 0j
    f_pad = torch.fft.fft(ones, n=8)
    rows = torch.view_as_complex(torch.stack([tone.real, tone.imag], dim=-1).reshape(2, 4, 2).contiguous())
    f_cols = torch.fft.fft(rows, dim=0)
    dtypes = (tone.dtype, f_tone.dtype, torch.fft.fft(torch.ones(4)).dtype)
`
	vars, err := load(t, "f.py", []byte(src)).runMain(Options{})
	if err != nil {
		t.Fatal(err)
	}
	tone := make([]complex128, 8)
	want := make([]complex128, 8)
	want[3] = 8
	for j := range tone {
		tone[j] = cmplx.Exp(complex(0, 2*math.Pi*3*float64(j)/8))
	}
	complexClose(t, "fft(tone)", complexVar(t, vars, "f_tone"), want, 1e-12)
	ortho := make([]complex128, 8)
	for k := range ortho {
		ortho[k] = complex(1/math.Sqrt(8), 0)
	}
	complexClose(t, "fft(delta, norm=ortho)", complexVar(t, vars, "f_delta"), ortho, 1e-12)
	pad := make([]complex128, 8)
	for k := range pad {
		w := cmplx.Exp(complex(0, -2*math.Pi*float64(k)/8))
		if k == 0 {
			pad[k] = 4
		} else {
			pad[k] = (1 - cmplx.Pow(w, 4)) / (1 - w)
		}
	}
	complexClose(t, "fft(ones(4), n=8)", complexVar(t, vars, "f_pad"), pad, 1e-12)
	// Along dim 0 of the 2x4 rows: a 2-point transform of each column.
	cols := make([]complex128, 8)
	for i := range 4 {
		cols[i], cols[4+i] = tone[i]+tone[4+i], tone[i]-tone[4+i]
	}
	complexClose(t, "fft(rows, dim=0)", complexVar(t, vars, "f_cols"), cols, 1e-12)
	if got := (&evaluator{}).str(vars["dtypes"]); got != "(torch.complex128, torch.complex128, torch.complex64)" {
		t.Errorf("dtypes %s", got)
	}
}

// TestComplexViews: view_as_real and view_as_complex share their
// elements both ways, as torch's views do, and .real/.imag are views too;
// a complex64 tensor's parts are float32.
func TestComplexViews(t *testing.T) {
	src := `import torch

if __name__ == "__main__":
    r = torch.zeros(3, 2)
    z = torch.view_as_complex(r)
    r[1, 1] = 2.5
    torch.view_as_real(z)[2, 0] = -1.0
    z.imag[0] = 7.0
    both = z * (1 + 1j)
    info = (z.dtype, z.real.dtype, z.shape, both.dtype, (z * torch.ones(3, dtype=torch.float64)).dtype)
`
	vars, err := load(t, "v.py", []byte(src)).runMain(Options{})
	if err != nil {
		t.Fatal(err)
	}
	complexClose(t, "z", complexVar(t, vars, "z"), []complex128{7i, 2.5i, -1}, 0)
	complexClose(t, "z * (1+1j)", complexVar(t, vars, "both"), []complex128{-7 + 7i, -2.5 + 2.5i, -1 - 1i}, 0)
	if got := (&evaluator{}).str(vars["info"]); got != "(torch.complex64, torch.float32, torch.Size([3]), torch.complex64, torch.complex128)" {
		t.Errorf("info %s", got)
	}
}

// TestComplexErrors: what complex tensors refuse, each positioned.
func TestComplexErrors(t *testing.T) {
	for _, c := range []struct{ main, want string }{
		{"torch.view_as_complex(torch.zeros(3, 3))", "c.py:4:27: torch.view_as_complex: Tensor must have a last dimension of size 2"},
		{"torch.view_as_complex(torch.zeros(2, 4).T)", "Tensor must have a last dimension with stride 1"},
		{"torch.testing.assert_close(torch.view_as_complex(torch.zeros(2, 2)), torch.zeros(2))", "compares two complex tensors"},
		{"torch.testing.assert_close(torch.view_as_complex(torch.ones(2, 2)), torch.view_as_complex(torch.zeros(2, 2)))", "c.py:4:5: Tensor-likes are not close!\n\nMismatched elements: 2 / 2 (100.0%)\nGreatest absolute difference: 1.4142135623730951 at index (0,)"},
		{"print(torch.view_as_complex(torch.ones(2, 2)) == 1)", "comparing complex tensors is not part of the host subset"},
		{"print(1j / 0)", "c.py:4:14: ZeroDivisionError: complex division by zero"},
	} {
		src := "import torch\n\nif __name__ == \"__main__\":\n    " + c.main + "\n"
		_, err := load(t, "c.py", []byte(src)).runMain(Options{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s\ngot  %v\nwant %s", c.main, err, c.want)
		}
	}
}
