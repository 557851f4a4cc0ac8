package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/runtime"
)

// benchRow is one size of a bench run; --json prints these.
type benchRow struct {
	M, N, K      int
	TilecMS      float64 `json:"tilec_ms"`
	TilecTFLOPS  float64 `json:"tilec_tflops"`
	CublasMS     float64 `json:"cublas_ms"`
	CublasTFLOPS float64 `json:"cublas_tflops"`
	Ratio        float64 `json:"ratio"`
	Check        string  `json:"check"`
}

func cmdBench(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	kernel := fs.String("kernel", "", "kernel to run (default: the file's only kernel)")
	sizes := fs.String("sizes", "1024,2048,4096,8192,16384", "square sizes M=N=K to time")
	target := fs.String("target", "", "GPU target (default: the best for the device)")
	warmup := fs.Int("warmup", 5, "untimed launches before timing")
	iters := fs.Int("iters", 30, "timed launches (the median is reported)")
	check := fs.Bool("check", true, "check each size against the interpreter on a sample of blocks before timing")
	asJSON := fs.Bool("json", false, "print the rows as JSON")
	consts := defines{}
	fs.Var(consts, "D", "bake a constant: -D name=value (repeatable)")
	srcPath, err := sourceArg(fs, args)
	if err != nil {
		return err
	}
	if *iters < 20 {
		return usagef("--iters must be at least 20 for a stable median")
	}
	var ns []int
	for _, s := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n <= 0 {
			return usagef("--sizes: %q is not a positive integer", s)
		}
		ns = append(ns, n)
	}
	f, err := loadKernel(srcPath, *kernel, consts, nil)
	if err != nil {
		return err
	}
	a, b, c, err := gemmOperands(f)
	if err != nil {
		return err
	}
	t, err := gpuTarget(*target)
	if err != nil {
		return err
	}
	gpu, err := runtime.NewCUDA(0)
	if err != nil {
		return err
	}
	gpu.Target = t
	if t, err = gpu.CompileTarget(); err != nil {
		return err
	}
	k := runtime.NewKernel(f)
	dt := f.Params[a].Type.Elem()

	var rows []benchRow
	if !*asJSON {
		fmt.Fprintf(stdout, "%s %s on %s, median of %d launches after %d warm-up\n", f.Name, dt, t, *iters, *warmup)
		fmt.Fprintf(stdout, "%7s %7s %7s | %10s %9s | %10s %9s | %6s | %s\n",
			"M", "N", "K", "tilec ms", "TFLOP/s", "cuBLAS ms", "TFLOP/s", "ratio", "check")
	}
	for _, n := range ns {
		row, err := benchSize(gpu, k, f, a, b, c, n, *warmup, *iters, *check)
		if err != nil {
			return fmt.Errorf("size %d: %w", n, err)
		}
		rows = append(rows, row)
		if !*asJSON {
			fmt.Fprintf(stdout, "%7d %7d %7d | %10.4f %9.1f | %10.4f %9.1f | %6.3f | %s\n",
				row.M, row.N, row.K, row.TilecMS, row.TilecTFLOPS, row.CublasMS, row.CublasTFLOPS, row.Ratio, row.Check)
		}
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rows)
	}
	return nil
}

// gemmOperands finds the arrays A (M, K), B (K, N) and C (M, N) that a
// matmul kernel declares, so that cuBLAS can run on the same buffers.
func gemmOperands(f *ir.Func) (a, b, c int, err error) {
	var arrays []int
	for i, p := range f.Params {
		if _, ok := p.Type.(*ir.Array); ok && len(p.Dims) == 2 {
			arrays = append(arrays, i)
		}
	}
	stored := map[int]bool{}
	for _, i := range runtime.StoredParams(f) {
		stored[i] = true
	}
	for _, ai := range arrays {
		for _, bi := range arrays {
			for _, ci := range arrays {
				A, B, C := f.Params[ai].Dims, f.Params[bi].Dims, f.Params[ci].Dims
				if ai == bi || bi == ci || ai == ci || !stored[ci] || stored[ai] || stored[bi] {
					continue
				}
				if A[1].Sym != "" && A[1] == B[0] && A[0] == C[0] && B[1] == C[1] && A[0].Sym != "" && B[1].Sym != "" {
					return ai, bi, ci, nil
				}
			}
		}
	}
	return 0, 0, 0, fmt.Errorf("bench compares with cuBLAS GEMM: %s needs arrays A (M, K), B (K, N) and an output C (M, N)", f.Name)
}

func benchSize(gpu *runtime.CUDA, k *runtime.Kernel, f *ir.Func, a, b, c, n, warmup, iters int, check bool) (benchRow, error) {
	row := benchRow{M: n, N: n, K: n, Check: "skipped"}
	rng := rand.New(rand.NewPCG(uint64(n), 0))
	args := make([]runtime.Arg, len(f.Params))
	for i, p := range f.Params {
		arr, ok := p.Type.(*ir.Array)
		if !ok {
			return row, fmt.Errorf("bench: scalar parameter %s is not supported", p.Name)
		}
		if len(p.Dims) != 2 {
			return row, fmt.Errorf("bench: array %s has rank %d; only the GEMM operands are supported", p.Name, len(p.Dims))
		}
		args[i] = runtime.RandNormal(rng, arr.DType, n, n)
	}
	runtime.PoisonOutputs(f, args)
	inputs := runtime.CloneArgs(args)
	p, err := gpu.Prepare(k, args, runtime.LaunchOptions{})
	if err != nil {
		return row, err
	}
	defer p.Free()
	if check {
		if err := p.Run(); err != nil {
			return row, err
		}
		if err := p.Download(); err != nil {
			return row, err
		}
		res, err := runtime.CheckAgainstInterpreter(k, inputs, args, runtime.CheckOptions{Seed: uint64(n)})
		if err != nil {
			return row, err
		}
		if !res.Pass {
			return row, fmt.Errorf("wrong result, not timed:\n%s", res)
		}
		blocks := "all blocks"
		if res.Blocks != nil {
			blocks = fmt.Sprintf("%d sampled blocks", len(res.Blocks))
		}
		row.Check = "ok (" + blocks + ")"
		if len(res.Outputs) > 0 {
			row.Check = fmt.Sprintf("ok (max rel err %.2g, %s)", res.Outputs[0].MaxRel, blocks)
		}
	}
	if row.TilecMS, err = p.Time(warmup, iters); err != nil {
		return row, err
	}
	names := [3]string{f.Params[a].Name, f.Params[b].Name, f.Params[c].Name}
	if row.CublasMS, err = p.TimeCublas(names[0], names[1], names[2], warmup, iters); err != nil {
		return row, err
	}
	row.TilecTFLOPS = runtime.TFLOPS(n, n, n, row.TilecMS)
	row.CublasTFLOPS = runtime.TFLOPS(n, n, n, row.CublasMS)
	row.Ratio = row.CublasMS / row.TilecMS
	return row, nil
}
