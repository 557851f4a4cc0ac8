package interp

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/runtime"
	"github.com/tilec/tilec/runtime/compile"
)

// FuzzCompilePTX drives the whole compiler, source to PTX for both targets:
// any input must give a kernel or an error, never a panic or a hang. The
// seeds are the example kernels, so mutations stay close to real programs
// and reach lower and ptxgen, not only the parser.
func FuzzCompilePTX(f *testing.F) {
	paths, err := filepath.Glob("../../testdata/kernels/*.tile")
	if err != nil || len(paths) == 0 {
		f.Fatalf("no examples: %v", err)
	}
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(src), "")
		f.Add(string(src), "tm=64,tn=64,tk=32")
		f.Add(string(src), "T=bf16")
		f.Add(string(src), "T=f32")
		f.Add(string(src), "tm=64,tn=128,tk=128,CAUSAL=True")
	}
	// Array views and raw memory (element offsets, slices, tiled views).
	if src, err := os.ReadFile("../testdata/kernels/array_views.tile"); err == nil {
		f.Add(string(src), "tile=32")
	}
	f.Fuzz(func(t *testing.T, src, defs string) {
		consts := map[string]string{}
		for _, kv := range strings.Split(defs, ",") {
			if name, val, ok := strings.Cut(kv, "="); ok {
				consts[name] = val
			}
		}
		k, err := compile.Source("fuzz.tile", []byte(src), compile.Options{Consts: consts})
		if err != nil {
			return
		}
		// sm_90a: the warpspec pass (TMA, wgmma, persistent) on mutated
		// GEMM and attention kernels.
		for _, target := range []string{"sm_80", "sm_90a", "sm_120a"} {
			pk, err := compile.PTX(k.Func, target)
			if err != nil {
				continue
			}
			if !strings.Contains(pk.PTX, ".entry "+pk.Name) {
				t.Fatalf("%s: PTX has no .entry %s", target, pk.Name)
			}
		}
	})
}

// FuzzInterpret runs the interpreter on mutated kernels with small
// generated inputs: any input must give results or an error, never a panic,
// an interpreter bug (ExecError.Bug) or a hang. Each launch has a budget (a
// context deadline, which stops loops too); kernels with tiles above 2^16
// elements are skipped, since a single op on them may outlast any budget.
func FuzzInterpret(f *testing.F) {
	paths, err := filepath.Glob("../../testdata/kernels/*.tile")
	if err != nil || len(paths) == 0 {
		f.Fatalf("no examples: %v", err)
	}
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(src), "tm=16,tn=16,tk=16,tile=16,BLOCK=16", []byte{17, 33, 5, 9}, uint64(1))
		f.Add(string(src), "T=bf16", []byte{0, 1, 2, 3}, uint64(2))
	}
	if src, err := os.ReadFile("../testdata/kernels/array_views.tile"); err == nil {
		f.Add(string(src), "tile=16", []byte{9, 3}, uint64(4))
	}
	f.Add("import cuda.tile as ct\n@ct.kernel(grid=(2,))\ndef k(X: ct.Array[ct.int32, (N,)]):\n"+
		"    x = ct.load(X, index=(ct.bid(0),), shape=(4,))\n    ct.store(X, index=(ct.bid(0),), tile=x // x + x % 3 + x ** 2)\n",
		"", []byte{7}, uint64(3))
	f.Fuzz(func(t *testing.T, src, defs string, dims []byte, seed uint64) {
		consts := map[string]string{}
		for _, kv := range strings.Split(defs, ",") {
			if name, val, ok := strings.Cut(kv, "="); ok {
				consts[name] = val
			}
		}
		k, err := compile.Source("fuzz.tile", []byte(src), compile.Options{Consts: consts})
		if err != nil {
			return
		}
		big := false
		k.Func.Body.Walk(func(in *ir.Instr) {
			for _, r := range in.Results {
				if tt, ok := r.Type.(*ir.Tile); ok && numel(tt.Shape) > 1<<16 {
					big = true
				}
			}
		})
		if big {
			return
		}
		args, grid := fuzzArgs(k.Func, dims, seed)
		ctx, cancel := context.WithTimeout(context.Background(), 250*time.Millisecond)
		defer cancel()
		_, err = CPU{}.Launch(k, args, runtime.LaunchOptions{Grid: grid, Workers: 2, Context: ctx})
		var ee *ExecError
		if errors.As(err, &ee) && ee.Bug {
			t.Fatalf("interpreter bug: %v", err)
		}
	})
}

// fuzzArgs makes small arguments for f: symbolic dims from dims (0 to 40),
// random normal arrays, fixed scalars; an explicit grid when f has none.
func fuzzArgs(f *ir.Func, dims []byte, seed uint64) ([]runtime.Arg, [3]int) {
	rng := rand.New(rand.NewPCG(seed, 0))
	bound := map[string]int{}
	next := 0
	args := make([]runtime.Arg, len(f.Params))
	for i, p := range f.Params {
		switch pt := p.Type.(type) {
		case *ir.Array:
			shape := make([]int, len(p.Dims))
			for ax, d := range p.Dims {
				if d.Sym == "" {
					shape[ax] = int(min(d.Size, 1<<12))
					continue
				}
				if _, ok := bound[d.Sym]; !ok {
					v := 7
					if next < len(dims) {
						v = int(dims[next]) % 41
					}
					next++
					bound[d.Sym] = v
				}
				shape[ax] = bound[d.Sym]
			}
			args[i] = runtime.RandNormal(rng, pt.DType, shape...)
		case *ir.Scalar:
			switch {
			case pt.DType == ir.Bool:
				args[i] = true
			case pt.DType.IsInt():
				args[i] = int64(3)
			default:
				args[i] = 0.5
			}
		}
	}
	var grid [3]int
	if f.Grid == [3]*ir.HostExpr{} {
		grid = [3]int{2, 1, 1}
	}
	return args, grid
}
