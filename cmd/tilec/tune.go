package main

// tilec tune: search a space of a kernel's constants and knobs (stages,
// occupancy) on the GPU (package runtime/tune) and cache the winner for
// tilec run and tilec bench.

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/runtime/bench"
	"github.com/tilec/tilec/runtime/compile"
	"github.com/tilec/tilec/runtime/cuda"
	"github.com/tilec/tilec/runtime/kcache"
	"github.com/tilec/tilec/runtime/tune"
)

func cmdTune(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("tune", stdout, stderr)
	kernel := fs.String("kernel", "", "kernel to tune (default: the file's only kernel)")
	var spaces, shapes stringList
	fs.Var(&spaces, "space", "constants and knobs to search: --space tm=64,128,256 --space \"stages=2,3,4 occupancy=1,2\" (repeatable; default: the source's '# tilec: tune' block, else the kernel's power-of-two int constants at half, the default and twice it)")
	fs.Var(&shapes, "shape", "the shape to tune at: --shape M=4096,N=4096,K=4096 (dims left out: 512, batch axes 4)")
	target := fs.String("target", "", "GPU target (default: the best for the device)")
	warmup := fs.Int("warmup", 3, "untimed launches of each candidate before timing")
	iters := fs.Int("iters", 20, "timed launches of each candidate (the median is compared)")
	jobs := fs.Int("jobs", 0, "candidates compiled at once (0: one per CPU)")
	save := fs.Bool("save", true, "cache the winner for tilec run and tilec bench")
	consts, scalars := defines{}, keyValues{}
	fs.Var(consts, "D", "fix a constant: -D name=value (repeatable; not searched)")
	sigs := argSigs{}
	fs.Var(sigs, "arg", "signature of an unannotated parameter: --arg A=f16[M,K] (repeatable)")
	fs.Var(scalars, "scalar", "scalar arguments: --scalar eps=1e-5")
	srcPath, err := sourceArg(fs, args)
	if err != nil {
		return err
	}
	if *iters < 5 || *warmup < 0 {
		return usagef("--iters must be at least 5 and --warmup not negative")
	}
	if err := checkLaunchCounts(*warmup, *iters); err != nil {
		return err
	}
	base, err := loadKernel(srcPath, *kernel, consts, sigs, false)
	if err != nil {
		return err
	}
	build := kernelBuilder(srcPath, *kernel, consts, sigs)

	// The space: the source's block, then --space over it; else the default.
	src, err := compile.ReadSource(srcPath)
	if err != nil {
		return err
	}
	space, err := tune.FromSource(src)
	if err != nil {
		return fmt.Errorf("%s: %v", srcPath, err)
	}
	flagSpace, err := tune.ParseSpace(spaces)
	if err != nil {
		return usagef("--space: %v", err)
	}
	origin := "--space"
	switch {
	case len(space) == 0 && len(flagSpace) == 0:
		if space, err = tune.DefaultSpace(build, base, consts); err != nil {
			return err
		}
		origin = "default: the kernel's power-of-two int constants"
	case len(flagSpace) == 0:
		origin = "the source's '# tilec: tune' block"
	case len(space) > 0:
		origin = "the source's '# tilec: tune' block and --space"
	}
	space = space.Override(flagSpace)
	if err := space.Check(); err != nil {
		return usagef("--space: %v (%s)", err, origin)
	}
	if err := space.CheckNames(base, consts); err != nil {
		return usagef("--space: %v", err)
	}
	sw, err := bench.ParseSweep(shapes, "", nil, false)
	if err != nil {
		return usagef("%v", err)
	}
	if len(sw.Points) != 1 {
		return usagef("--shape: tune runs at one shape (a class of shapes: each dim rounded up to a power of two), not %d", len(sw.Points))
	}
	for d := range sw.Points[0] {
		if !contains(bench.SymDims(base), d) {
			return usagef("--shape %s: %s has no symbolic dim %s", d, base.Name, d)
		}
	}
	dims := bench.FillDims(base, sw.Points[0])
	fmt.Fprintf(stdout, "tune     %s (%s) %s\n", base.Name, srcPath, bench.ConstsString(base))
	fmt.Fprintf(stdout, "space    %s (%s): %d candidates\n", space, origin, space.Size())
	fmt.Fprintf(stdout, "shapes   %s (class %s)\n", bench.DimsString(dims), tune.ShapeClass(dims))

	t, err := gpuTarget(*target)
	if err != nil {
		return err
	}
	dev, err := openBenchDevice(t)
	if err != nil {
		return fmt.Errorf("tilec tune: %v", err)
	}
	// On a terminal, a line rewritten in place shows the compiles done
	// (they run in parallel) and then the candidate being timed, each
	// with an ETA; each candidate's result line erases it first.
	compiling := newStepProgress(stderr, "tune: compiled")
	compiled := func(done, n int, label string) {
		if done == n {
			compiling.clear() // before the compile phase's summary line
			return
		}
		compiling.ended(done, n, label)
	}
	progress := newStepProgress(stderr, "tune: candidate")
	point := func(i, n int, label string) {
		if i == 0 {
			// The ETA is from the timed candidates only: the parallel
			// compiles before them take their own time.
			progress.start = time.Now()
		}
		progress.step(i, n, label)
	}
	res, err := tune.Search(dev, &tune.Config{Build: build, Base: base, File: srcPath, Space: space, Dims: dims,
		Scalars: scalars, Warmup: *warmup, Iters: *iters, Seed: 1, Jobs: *jobs,
		Compile: kcache.Open(), Progress: clearingWriter{progress, stderr}, Point: point, Compiled: compiled})
	compiling.clear()
	progress.clear()
	if res != nil {
		writeTuneResult(stdout, res)
	}
	if err != nil {
		return err
	}
	if !*save {
		return nil
	}
	path, err := tune.OpenCache().Put(res.Entry(base))
	if err != nil {
		fmt.Fprintf(stdout, "cache    not saved: %v\n", err)
		return nil
	}
	fmt.Fprintf(stdout, "cached   %s\n         tilec run and tilec bench use it for %s on %s (%s) at shapes of class %s\n",
		path, base.Name, res.Device, res.Target, tune.ShapeClass(dims))
	return nil
}

// clearingWriter erases a progress line before each write to w, so that
// the line never runs into other output.
type clearingWriter struct {
	p *stepProgress
	w io.Writer
}

func (c clearingWriter) Write(b []byte) (int, error) {
	c.p.clear()
	return c.w.Write(b)
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}

// writeTuneResult prints every candidate (time, rate, against the
// defaults, status) and the winner.
func writeTuneResult(w io.Writer, r *tune.Result) {
	fmt.Fprintf(w, "device   %s, %s\n", r.Device, r.Target)
	fmt.Fprintf(w, "searched %d candidates: %d pruned at compile time, %d failed, %d wrong, %d verified and timed (compiled in %s)\n",
		len(r.Candidates), r.Count(tune.Pruned), r.Count(tune.Failed), r.Count(tune.Wrong), r.Count(tune.Timed),
		r.Compile.Round(1e6))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CANDIDATE\tMS\tRATE\tVS DEFAULTS\tSTATUS")
	for _, c := range r.Candidates {
		ms, rate, vs := "-", "-", "-"
		if c.Status == tune.Timed {
			ms = fmt.Sprintf("%.4f", c.MS)
			if c.TFLOPS > 0 {
				rate = fmt.Sprintf("%.1f TFLOP/s", c.TFLOPS)
			} else if c.GBs > 0 {
				rate = fmt.Sprintf("%.1f GB/s", c.GBs)
			}
			if r.Default != nil {
				vs = fmt.Sprintf("%.2fx", r.Default.MS/c.MS)
			}
		}
		status := c.Status
		if c.Reason != "" {
			status += ": " + c.Reason
		}
		if c == r.Winner {
			status += " (winner)"
		}
		label := c.Label
		if c.Default && !strings.HasSuffix(label, "(defaults)") {
			label += " (defaults)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", label, ms, rate, vs, status)
	}
	tw.Flush()
	if r.Winner == nil {
		return
	}
	fmt.Fprintf(w, "winner   %s: %.4f ms, verified (%s)", r.Winner.Label, r.Winner.MS, r.Winner.Check)
	if r.Default != nil {
		fmt.Fprintf(w, "; %.2fx the defaults (%s: %.4f ms)", r.Speedup, r.Default.Label, r.Default.MS)
	} else {
		fmt.Fprintf(w, "; the defaults did not run")
	}
	fmt.Fprintln(w)
}

// applyTuned looks up the cached tuning result for f (built with the
// user's constants) at dims on gpu and returns the kernel built with the
// winner's constants (nil: none) and the note that says so.
func applyTuned(gpu *cuda.GPU, path, kernel string, consts defines, sigs argSigs, f *ir.Func, dims map[string]int64) (*ir.Func, string, error) {
	dev := bench.CUDADevice(gpu)
	t, err := dev.Target()
	if err != nil {
		return nil, "", err
	}
	all := bench.FillDims(f, dims)
	g, note := tune.OpenCache().Apply(kernelBuilder(path, kernel, consts, sigs), f, all, dev.Name(), t.Name)
	return g, note, nil
}
