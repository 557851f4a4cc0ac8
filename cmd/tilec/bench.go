package main

// tilec bench: time any kernel over a sweep of shapes (package
// runtime/bench), with cuBLAS side by side for GEMM-shaped kernels (its
// strided-batched GEMM for batched matmuls), and for host functions whose
// repetition is one such launch.

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

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

// openBenchDevice opens the device bench times on (a fake in tests).
var openBenchDevice = bench.OpenCUDA

func cmdBench(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("bench", stdout, stderr)
	kernel := fs.String("kernel", "", "kernel to run (default: the file's only kernel)")
	entry := fs.String("entry", "", "time the kernels that the file's host launch function of this name launches (each launch checked, then timed on the GPU alone; cuBLAS beside a repetition that is one GEMM launch)")
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
	figure := fs.String("figure", "rate", "what --plot draws: rate (TFLOP/s or GB/s: tilec, the baseline, the peak) or ratio (tilec's speed over the baseline's)")
	tuned := fs.Bool("tuned", true, "use constants that tilec tune cached for this kernel, device and class of shapes")
	peakTFLOPS := fs.Float64("peak-tflops", 0, "the device's peak TFLOP/s for the kernel's mma dtype (default: the table of devices)")
	peakGBs := fs.Float64("peak-gbs", 0, "the device's memory bandwidth in GB/s (default: the table of devices)")
	consts, scalars := defines{}, keyValues{}
	fs.Var(consts, "D", "bake a constant: -D name=value (repeatable)")
	sigs := argSigs{}
	fs.Var(sigs, "arg", "signature of an unannotated parameter: --arg A=f16[M,K] (repeatable)")
	fs.Var(scalars, "scalar", "scalar arguments (of the kernel, or of the --entry function): --scalar eps=1e-5")
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
	if err := checkLaunchCounts(*warmup, *iters); err != nil {
		return err
	}
	for _, p := range []struct {
		flag string
		v    float64
	}{{"--peak-tflops", *peakTFLOPS}, {"--peak-gbs", *peakGBs}} {
		// 0 is the flag's default: the table's peak.
		if p.v != 0 && !(p.v > 0 && p.v < bench.MaxFigure) {
			return usagef("%s %g: want a rate above 0 and below %g", p.flag, p.v, bench.MaxFigure)
		}
	}
	if err := checkFigure(*figure); err != nil {
		return err
	}
	if *plotPath != "" {
		if err := checkPlotPath(*plotPath); err != nil {
			return err
		}
		if err := checkPlotWritable(*plotPath); err != nil {
			return err
		}
	}
	src, err := readSource(srcPath)
	if err != nil {
		return err
	}
	if *entry != "" {
		if err := entryConflicts(*kernel, *grid, consts); err != nil {
			return err
		}
		r := &entryRun{path: srcPath, src: src, entry: *entry, sigs: sigs, scalars: scalars, stderr: stderr}
		return benchEntry(r, shapes, *sizes, *product, &benchRun{
			target: *target, warmup: *warmup, iters: *iters, check: *check, asJSON: *asJSON, plotPath: *plotPath, figure: *figure,
			peakTFLOPS: *peakTFLOPS, peakGBs: *peakGBs, stdout: stdout, stderr: stderr})
	}
	f, err := src.kernel(*kernel, consts, sigs, false)
	if err != nil {
		return err
	}
	explicitGrid, err := gridFlag(f, *grid, ", or time the host function that launches it with --entry FUNC")
	if err != nil {
		return err
	}
	dims := bench.SymDims(f)
	sw, err := benchSweep(dims, bench.BatchDims(f), shapes, *sizes, *product, func(d string) error {
		return usagef("--shape %s: %s has no symbolic dim %s (its dims: %s)", d, f.Name, d, strings.Join(dims, ", "))
	})
	if err != nil {
		return err
	}
	t, err := gpuTarget(*target)
	if err != nil {
		return err
	}
	dev, err := openBenchDevice(t)
	if err != nil {
		return fmt.Errorf("tilec bench: %v", err)
	}
	cfg := &bench.Config{Func: f, File: srcPath, Sweep: sw, Scalars: scalars, Grid: explicitGrid, Warmup: *warmup, Iters: *iters, Check: *check,
		Peak: peakOverride(dev, *peakTFLOPS, *peakGBs)}
	// Tuned constants were chosen for the kernel's own grid, which --grid replaces.
	if *tuned && *grid == "" {
		cfg.Specialize = tunedSpecializer(dev, src, *kernel, consts, sigs, f)
	}
	rep, err := bench.NewReport(dev, cfg)
	if err != nil {
		return err
	}
	progress := newStepProgress(stderr, "bench: shape")
	defer progress.clear()
	cfg.Point = func(i, n int, dims map[string]int64) { progress.step(i, n, bench.DimsString(dims)) }
	cfg.Row = func(r bench.Row) { progress.clear() }
	if !*asJSON {
		bench.WriteHeader(stdout, rep)
		cfg.Row = func(r bench.Row) { progress.clear(); bench.WriteRow(stdout, rep, r) }
	}
	rep, err = bench.Run(dev, cfg)
	if err != nil {
		return src.quote(err)
	}
	return writeBenchReport(rep, *asJSON, *plotPath, *figure, stdout, stderr)
}

// writeBenchReport prints the report as JSON (the table was printed row by
// row otherwise) and draws the plot asked for.
func writeBenchReport(rep *bench.Report, asJSON bool, plotPath, figure string, stdout, stderr io.Writer) error {
	if asJSON {
		if err := bench.WriteJSON(stdout, rep); err != nil {
			return err
		}
	}
	if plotPath != "" {
		if err := bench.PlotFigure(rep, plotPath, figure); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "tilec bench: wrote the plot to %s\n", plotPath)
	}
	return nil
}

// peakOverride is the device's peak with the figures given on the command
// line (--peak-tflops, --peak-gbs; 0: not given) in place of the table's,
// or nil when none is given.
func peakOverride(dev bench.Device, tflops, gbs float64) *bench.Peak {
	if tflops <= 0 && gbs <= 0 {
		return nil
	}
	p, _ := bench.LookupPeak(dev.Name(), dev.SM())
	p.Device, p.Source = dev.Name(), "given on the command line"
	if tflops > 0 {
		p.F16, p.TF32, p.F32 = tflops, tflops, tflops
	}
	if gbs > 0 {
		p.GBs = gbs
	}
	return &p
}

// benchRun is what both kinds of bench (a kernel, a host function) take
// from the command line besides what they time.
type benchRun struct {
	target              string
	warmup, iters       int
	check, asJSON       bool
	plotPath, figure    string
	peakTFLOPS, peakGBs float64
	stdout, stderr      io.Writer
}

// benchEntry times the kernels that a host launch function launches
// (bench.RunEntry) over the sweep of the --arg signatures' dims. Every
// flag is checked before the device is opened.
func benchEntry(r *entryRun, shapes []string, sizes string, product bool, b *benchRun) error {
	prog, params, err := r.src.entry(r.entry)
	if err != nil {
		return err
	}
	if err := r.checkFlags(params); err != nil {
		return err
	}
	dims, batch := r.sigDims(params)
	sw, err := benchSweep(dims, batch, shapes, sizes, product, func(d string) error {
		if len(dims) == 0 {
			return usagef("--shape %s: no --arg signature of %s has symbolic dims", d, r.entry)
		}
		return usagef("--shape %s: no --arg signature of %s has a dim %s (their dims: %s)", d, r.entry, d, strings.Join(dims, ", "))
	})
	if err != nil {
		return err
	}
	t, err := gpuTarget(b.target)
	if err != nil {
		return err
	}
	dev, err := openBenchDevice(t)
	if err != nil {
		return fmt.Errorf("tilec bench: %v", err)
	}
	// The signatures name the axes, so that a GEMM launch's M, N and K are
	// known apart at M=N=K too (bench's launchDims).
	argDims := map[string][]string{}
	for name, sig := range r.sigs {
		for _, d := range sig.Dims {
			argDims[name] = append(argDims[name], d.Sym)
		}
	}
	cfg := &bench.EntryConfig{Program: prog, Entry: r.entry, File: r.path, Dims: dims, Batch: batch, ArgDims: argDims, Sweep: sw,
		Warmup: b.warmup, Iters: b.iters, Check: b.check, Peak: peakOverride(dev, b.peakTFLOPS, b.peakGBs),
		Stdout: b.stderr, // the host code's print(), apart from the table or JSON
		Args: func(dims map[string]int64, seed uint64) (map[string]any, error) {
			pt := *r
			pt.seed = int64(seed)
			pt.shapes = keyValues{}
			for d, n := range dims {
				pt.shapes[d] = strconv.FormatInt(n, 10)
			}
			args, _, err := pt.entryArgs(params)
			return args, err
		}}
	progress := newStepProgress(b.stderr, "bench: shape")
	defer progress.clear()
	cfg.Point = func(i, n int, dims map[string]int64) { progress.step(i, n, bench.DimsString(dims)) }
	cfg.Row = func(bench.Row) { progress.clear() }
	if !b.asJSON {
		var rep *bench.Report
		cfg.Start = func(r *bench.Report) { rep = r; progress.clear(); bench.WriteHeader(b.stdout, r) }
		cfg.Row = func(row bench.Row) { progress.clear(); bench.WriteRow(b.stdout, rep, row) }
	}
	rep, err := bench.RunEntry(dev, cfg)
	if err != nil {
		return r.src.quote(err)
	}
	return writeBenchReport(rep, b.asJSON, b.plotPath, b.figure, b.stdout, b.stderr)
}

// benchSweep parses the sweep flags (--shape, --sizes, --product) for the
// symbolic dims dims, of which --sizes leaves batch at their defaults;
// unknown is the error for a dim not among them.
func benchSweep(dims []string, batch map[string]bool, shapes []string, sizes string, product bool, unknown func(dim string) error) (*bench.Sweep, error) {
	if len(shapes) == 0 && sizes == "" && len(dims) > 0 {
		sizes = defaultSizes
	}
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
	for _, pt := range sw.Points {
		for d := range pt {
			if !slices.Contains(dims, d) {
				return nil, unknown(d)
			}
		}
	}
	return sw, nil
}

// tunedSpecializer returns the bench hook that applies cached tuning
// results per shape.
func tunedSpecializer(dev bench.Device, src *source, kernel string, consts defines, sigs argSigs, base *ir.Func) func(map[string]int64) (*ir.Func, string, error) {
	cache := tune.OpenCache()
	build := src.kernelBuilder(kernel, consts, sigs)
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
// extra ones on top (the tuner's candidates, cached winners), reading path
// once, at the first build.
func kernelBuilder(path, kernel string, consts defines, sigs argSigs) tune.Build {
	read := sync.OnceValues(func() (*source, error) { return readSource(path) })
	return func(extra map[string]string) (*ir.Func, error) {
		src, err := read()
		if err != nil {
			return nil, err
		}
		return src.kernelBuilder(kernel, consts, sigs)(extra)
	}
}

// kernelBuilder is the package's kernelBuilder on a source already read.
func (s *source) kernelBuilder(kernel string, consts defines, sigs argSigs) tune.Build {
	return func(extra map[string]string) (*ir.Func, error) {
		all := map[string]string{}
		for k, v := range consts {
			all[k] = v
		}
		for k, v := range extra {
			all[k] = v
		}
		return s.kernel(kernel, all, sigs, false)
	}
}

// checkFigure checks --figure against bench.PlotFigures.
func checkFigure(figure string) error {
	if !slices.Contains(bench.PlotFigures, figure) {
		return usagef("--figure %s: the figures are %s", figure, strings.Join(bench.PlotFigures, ", "))
	}
	return nil
}

func checkPlotPath(path string) error {
	for _, ext := range bench.PlotFormats {
		if strings.HasSuffix(strings.ToLower(path), "."+ext) {
			return nil
		}
	}
	return usagef("--plot %s: the extension names the format: .%s", path, strings.Join(bench.PlotFormats, ", ."))
}

// checkPlotWritable checks, before the benchmark starts, that the plot
// can be written at path: a plot refused after a sweep of minutes loses
// the sweep. Its directory must exist and take a new file (the plot is
// written to a temporary file there and renamed), path must not be a
// directory, and for a PDF TMPDIR must take one too (gonum's PDF backend
// writes its own temporary file there).
func checkPlotWritable(path string) error {
	real := path // a link is written through: its file's directory counts
	if r, err := filepath.EvalSymlinks(path); err == nil {
		real = r
	}
	if st, err := os.Stat(real); err == nil && st.IsDir() {
		return usagef("--plot %s: %s is a directory; name a .%s file in it", path, path, strings.Join(bench.PlotFormats, ", ."))
	}
	dir := filepath.Dir(real)
	if st, err := os.Stat(dir); err != nil {
		return usagef("--plot %s: no directory %s to write in", path, dir)
	} else if !st.IsDir() {
		return usagef("--plot %s: %s is not a directory", path, dir)
	}
	if err := probeDir(dir); err != nil {
		return usagef("--plot %s: cannot write in %s: %v", path, dir, err)
	}
	if strings.EqualFold(filepath.Ext(path), ".pdf") {
		if err := probeDir(os.TempDir()); err != nil {
			return usagef("--plot %s: the PDF backend needs a writable TMPDIR: %v", path, err)
		}
	}
	return nil
}

// probeDir creates and removes an empty file in dir.
func probeDir(dir string) error {
	f, err := os.CreateTemp(dir, ".tilec-plot-*")
	if err != nil {
		return err
	}
	f.Close()
	return os.Remove(f.Name())
}

// maxLaunches bounds --iters and --warmup of bench and tune: a median of
// more says nothing new, and 2e9 launches are hours and a slice of their
// times larger than the host's memory.
const maxLaunches = 100000

// checkLaunchCounts bounds the launches per shape or candidate.
func checkLaunchCounts(warmup, iters int) error {
	if iters > maxLaunches {
		return usagef("--iters %d: at most %d timed launches", iters, maxLaunches)
	}
	if warmup > maxLaunches {
		return usagef("--warmup %d: at most %d launches", warmup, maxLaunches)
	}
	return nil
}
