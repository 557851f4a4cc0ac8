package host

import (
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/ir/build"
	"github.com/tilec/tilec/lang"
	"github.com/tilec/tilec/lang/golden"
	"github.com/tilec/tilec/runtime"
	"github.com/tilec/tilec/runtime/interp"
)

func load(t *testing.T, name string, src []byte) *Program {
	t.Helper()
	f, err := lang.Parse(name, src)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Load(f)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// refMatmul is C = A @ B in float64, rounded to C's dtype by the caller.
func refMatmul(A, B *runtime.Tensor) []float64 {
	M, K, N := A.Shape[0], A.Shape[1], B.Shape[1]
	out := make([]float64, M*N)
	for i := range M {
		for j := range N {
			s := 0.0
			for k := range K {
				s += A.At(i, k) * B.At(k, j)
			}
			out[i*N+j] = s
		}
	}
	return out
}

// TestSeedMatmul runs the seed post's program as written (kernel and host
// function) at odd sizes in both of its tile configurations and checks C
// against a float64 reference.
func TestSeedMatmul(t *testing.T) {
	path := filepath.Join("..", "..", "examples", "seed_matmul.py")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	p := load(t, path, src)
	for _, tc := range []struct {
		dt      ir.DType
		m, k, n int
		grid    [3]int
		consts  string
		tol     float64
	}{
		{ir.F16, 130, 70, 260, [3]int{4, 1, 1}, "tm=128 tn=256 tk=64", 2e-2},
		{ir.F32, 33, 65, 70, [3]int{6, 1, 1}, "tm=32 tn=32 tk=32", 1e-4},
	} {
		rng := rand.New(rand.NewPCG(1, uint64(tc.m)))
		A := runtime.RandNormal(rng, tc.dt, tc.m, tc.k)
		B := runtime.RandNormal(rng, tc.dt, tc.k, tc.n)
		var launches []*Launch
		res, err := p.Run("cutile_matmul", map[string]any{"A": A, "B": B}, Options{Launch: func(l *Launch) error {
			launches = append(launches, l)
			_, err := interp.CPU{}.Launch(l.Kernel, l.Args, runtime.LaunchOptions{Grid: l.Grid})
			return err
		}})
		if err != nil {
			t.Fatal(err)
		}
		if len(launches) != 1 || launches[0].Grid != tc.grid || strings.Join(launches[0].Consts, " ") != tc.consts {
			t.Fatalf("%s: launches %+v", tc.dt, launches)
		}
		C, ok := res.(*runtime.Tensor)
		if !ok || C.DType != tc.dt || C.Shape[0] != tc.m || C.Shape[1] != tc.n {
			t.Fatalf("%s: result %v", tc.dt, res)
		}
		want := refMatmul(A, B)
		for i, got := range C.Float64s() {
			if d := math.Abs(got - want[i]); !(d <= tc.tol*(1+math.Abs(want[i]))) {
				t.Fatalf("%s: C[%d] = %g, want %g", tc.dt, i, got, want[i])
			}
		}
	}
}

// TestHostValues covers the host subset's arithmetic, queries and
// allocation through a function's result.
func TestHostValues(t *testing.T) {
	src := `import cuda.tile as ct
import math
import numpy as np
import torch
from math import ceil

BLOCK = 128
PAIR = (3, 4)

def helper(x, y=2):
    return x * y

def f(A, flag: bool = False):
    m, n = A.shape
    a = (m + 1) // 2, -7 // 2, -7 % 3, 7 / 2, 2 ** 10, 2 ** -1, ceil(m / 3), math.floor(2.5)
    b = ct.cdiv(m, 4), min(m, n, 3), max(PAIR), abs(-3), int(2.9), float(3) + float("-inf") * 0 if False else float(3), len(A.shape), A.ndim
    c = A.dtype.itemsize, A.itemsize, torch.float16.itemsize, np.float64.itemsize, A.size(0), A.size(-1), A.numel()
    d = A.dtype == torch.float32, A.dtype == ct.float32, 1 < m <= 5, not flag, flag or 5, m if flag else n
    s = 0
    for i in range(3):
        s += i
    for x in PAIR:
        s += x
    if m > 10:
        s = -1
    elif m > 3:
        s = s * 100
    else:
        s = 0
    e = torch.empty_like(A).shape, np.zeros((2, 3), dtype=np.int32).dtype, torch.empty(2, 3).dtype, np.empty(4).dtype
    T = A.T
    g = T.shape, T.stride(), A.t().contiguous().stride(), A.transpose(0, 1).shape, A.permute(1, 0).shape
    return a, b, c, d, s, e, g, helper(BLOCK), helper(1, y=3), BLOCK * 1 << 2
`
	p := load(t, "v.py", []byte(src))
	A := runtime.NewTensor(ir.F32, 5, 6)
	res, err := p.Run("f", map[string]any{"A": A}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := (&evaluator{}).str(res)
	want := "((3, -4, 2, 3.5, 1024, 0.5, 2, 2), (2, 3, 4, 3, 2, 3.0, 2, 2), (4, 4, 2, 8, 5, 6, 30), (True, True, True, True, 5, 6), 1000, (torch.Size([5, 6]), torch.int32, torch.float32, torch.float64), (torch.Size([6, 5]), (1, 6), (5, 1), torch.Size([6, 5]), torch.Size([6, 5])), 256, 3, 512)"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// TestHostErrors runs the archives in testdata/errors: -- in.py --, an
// optional -- args -- (NAME=f32[2,3] lines) and the expected -- errors --.
// The entry is the function named run.
func TestHostErrors(t *testing.T) {
	golden.Run(t, filepath.Join("testdata", "errors"), func(t *testing.T, a *golden.Archive) {
		src, _ := a.Section("in.py")
		argText, _ := a.Section("args")
		f, err := lang.Parse("in.py", []byte(src))
		if err != nil {
			a.Check(t, "errors", err.Error()+"\n")
			return
		}
		p, err := Load(f)
		if err != nil {
			t.Fatal(err)
		}
		args := map[string]any{}
		for _, line := range strings.Split(argText, "\n") {
			if line = strings.TrimSpace(line); line == "" {
				continue
			}
			name, sig, _ := strings.Cut(line, "=")
			s, err := build.ParseArgSig(sig)
			if err != nil {
				t.Fatal(err)
			}
			shape := make([]int, len(s.Dims))
			for i, d := range s.Dims {
				shape[i] = int(d.Size)
			}
			args[name] = runtime.NewTensor(s.DType, shape...)
		}
		_, err = p.Run("run", args, Options{})
		if err == nil {
			t.Fatal("ran without errors")
		}
		var pe *lang.Error
		var pl lang.ErrorList
		if !errors.As(err, &pe) && !errors.As(err, &pl) {
			t.Errorf("error without a position: %v", err)
		}
		if !strings.Contains(err.Error(), "^") {
			t.Errorf("error without a caret: %v", err)
		}
		a.Check(t, "errors", err.Error()+"\n")
	})
}
