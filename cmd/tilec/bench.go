package main

// tilec bench: time any kernel over a sweep of shapes (package
// runtime/bench), with cuBLAS side by side for GEMM-shaped kernels.

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/runtime/bench"
	"github.com/tilec/tilec/runtime/tune"
)

// defaultSizes is the sweep of a bench given neither --sizes nor --shape:
// every symbolic dim but batch axes at each size.
const defaultSizes = "1024,2048,4096,8192,16384"

// stringList collects a repeatable flag's values.
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, " ") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

func cmdBench(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	kernel := fs.String("kernel", "", "kernel to run (default: the file's only kernel)")
	sizes := fs.String("sizes", "", "sizes to give every symbolic dim but batch axes, swept together (default "+defaultSizes+" when no --shape)")
	var shapes stringList
	fs.Var(&shapes, "shape", "shapes: --shape M=1024:16384:x2,N=4096 (ranges LO:HI[:xF|:+S], lists M=1,2,3, ties N=M; repeatable)")
	product := fs.Bool("product", false, "sweep the product of the swept dims' values (default: together, value i of each)")
	target := fs.String("target", "", "GPU target (default: the best for the device)")
	grid := fs.String("grid", "", "grid x[,y[,z]] of a kernel that declares none (the same at every shape)")
	warmup := fs.Int("warmup", 5, "untimed launches before timing")
	iters := fs.Int("iters", 30, "timed launches (the median is reported)")
	check := fs.Bool("check", true, "check each size against the interpreter on a sample of blocks before timing")
	asJSON := fs.Bool("json", false, "print the report as JSON (tilec plot reads it)")
	plotPath := fs.String("plot", "", "write a plot of TFLOP/s or GB/s against the shape (.png, .svg or .pdf)")
	tuned := fs.Bool("tuned", true, "use constants that tilec tune cached for this kernel, device and class of shapes")
	peakTFLOPS := fs.Float64("peak-tflops", 0, "the device's peak TFLOP/s for the kernel's mma dtype (default: the table of devices)")
	peakGBs := fs.Float64("peak-gbs", 0, "the device's memory bandwidth in GB/s (default: the table of devices)")
	consts, scalars := defines{}, keyValues{}
	fs.Var(consts, "D", "bake a constant: -D name=value (repeatable)")
	sigs := argSigs{}
	fs.Var(sigs, "arg", "signature of an unannotated parameter: --arg A=f16[M,K] (repeatable)")
	fs.Var(scalars, "scalar", "scalar arguments: --scalar eps=1e-5")
	srcPath, err := sourceArg(fs, args)
	if err != nil {
		return err
	}
	if *iters < 20 {
		return usagef("--iters must be at least 20 for a stable median")
	}
	if *warmup < 0 {
		return usagef("--warmup must not be negative")
	}
	if *plotPath != "" {
		if err := checkPlotPath(*plotPath); err != nil {
			return err
		}
	}
	f, err := loadKernel(srcPath, *kernel, consts, sigs)
	if err != nil {
		return err
	}
	explicitGrid, err := gridFlag(f, *grid, ", or time the host function that launches it with --entry FUNC")
	if err != nil {
		return err
	}
	sw, err := benchSweep(f, shapes, *sizes, *product)
	if err != nil {
		return err
	}
	t, err := gpuTarget(*target)
	if err != nil {
		return err
	}
	dev, err := bench.OpenCUDA(t)
	if err != nil {
		return fmt.Errorf("tilec bench: %v", err)
	}
	cfg := &bench.Config{Func: f, File: srcPath, Sweep: sw, Scalars: scalars, Grid: explicitGrid, Warmup: *warmup, Iters: *iters, Check: *check}
	if *peakTFLOPS > 0 || *peakGBs > 0 {
		p, _ := bench.LookupPeak(dev.Name(), dev.SM())
		p.Device, p.Source = dev.Name(), "given on the command line"
		if *peakTFLOPS > 0 {
			p.F16, p.TF32, p.F32 = *peakTFLOPS, *peakTFLOPS, *peakTFLOPS
		}
		if *peakGBs > 0 {
			p.GBs = *peakGBs
		}
		cfg.Peak = &p
	}
	// Tuned constants were chosen for the kernel's own grid, which --grid replaces.
	if *tuned && *grid == "" {
		cfg.Specialize = tunedSpecializer(dev, srcPath, *kernel, consts, sigs, f)
	}
	rep, err := bench.NewReport(dev, cfg)
	if err != nil {
		return err
	}
	if !*asJSON {
		bench.WriteHeader(stdout, rep)
		cfg.Row = func(r bench.Row) { bench.WriteRow(stdout, rep, r) }
	}
	rep, err = bench.Run(dev, cfg)
	if err != nil {
		return quoteSource(srcPath, err)
	}
	if *asJSON {
		if err := bench.WriteJSON(stdout, rep); err != nil {
			return err
		}
	}
	if *plotPath != "" {
		if err := bench.Plot(rep, *plotPath); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "tilec bench: wrote the plot to %s\n", *plotPath)
	}
	return nil
}

// benchSweep parses the sweep flags against the kernel's dims.
func benchSweep(f *ir.Func, shapes []string, sizes string, product bool) (*bench.Sweep, error) {
	dims := bench.SymDims(f)
	if len(shapes) == 0 && sizes == "" && len(dims) > 0 {
		sizes = defaultSizes
	}
	batch := bench.BatchDims(f)
	var sizeDims []string
	for _, d := range dims {
		if !batch[d] {
			sizeDims = append(sizeDims, d)
		}
	}
	sw, err := bench.ParseSweep(shapes, sizes, sizeDims, product)
	if err != nil {
		return nil, usagef("%v", err)
	}
	known := map[string]bool{}
	for _, d := range dims {
		known[d] = true
	}
	for _, pt := range sw.Points {
		for d := range pt {
			if !known[d] {
				return nil, usagef("--shape %s: %s has no symbolic dim %s (its dims: %s)", d, f.Name, d, strings.Join(dims, ", "))
			}
		}
	}
	return sw, nil
}

// tunedSpecializer returns the bench hook that applies cached tuning
// results per shape.
func tunedSpecializer(dev bench.Device, path, kernel string, consts defines, sigs argSigs, base *ir.Func) func(map[string]int64) (*ir.Func, string, error) {
	cache := tune.OpenCache()
	build := kernelBuilder(path, kernel, consts, sigs)
	return func(dims map[string]int64) (*ir.Func, string, error) {
		t, err := dev.Target()
		if err != nil {
			return nil, "", err
		}
		f, note := cache.Apply(build, base, dims, dev.Name(), t.Name)
		return f, note, nil
	}
}

// kernelBuilder builds the kernel of path with the user's constants and
// extra ones on top (the tuner's candidates, cached winners).
func kernelBuilder(path, kernel string, consts defines, sigs argSigs) tune.Build {
	return func(extra map[string]string) (*ir.Func, error) {
		all := map[string]string{}
		for k, v := range consts {
			all[k] = v
		}
		for k, v := range extra {
			all[k] = v
		}
		return loadKernel(path, kernel, all, sigs)
	}
}

func checkPlotPath(path string) error {
	for _, ext := range bench.PlotFormats {
		if strings.HasSuffix(strings.ToLower(path), "."+ext) {
			return nil
		}
	}
	return usagef("--plot %s: the extension names the format: .%s", path, strings.Join(bench.PlotFormats, ", ."))
}
