package bench

// Benchmarks of host launch functions (tilec bench --entry): a cuTile
// program's kernels are unannotated and get their constants and grid from
// the host function that launches them (softmax.py's softmax(X) picks the
// tile from X's shape), so the benchmark runs that function and times the
// kernels it launches.
//
// Host tensors live on the host: each ct.launch uploads its arguments,
// runs, and copies them back, and the host code between launches (shape
// arithmetic, allocation, compiling a kernel the first time) takes far
// longer than a memory-bound kernel. None of that is timed. Each launch is
// timed on its own between CUDA events, with a cold L2 cache
// (Prepared.TimeCold), and a repetition's time is the sum of its
// launches' times: the kernels' GPU time, as torch's kernels are timed by
// do_bench. Kernels that would pass data to the next one through L2 are
// timed a little pessimistically.

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/tilec/tilec/runtime"
	"github.com/tilec/tilec/runtime/host"
)

// EntryConfig is a benchmark of a host launch function over a sweep of
// shapes.
type EntryConfig struct {
	// Program holds the host function Entry; File is its source, for the
	// report.
	Program *host.Program
	Entry   string
	File    string
	// Dims are the symbolic dims of the entry's array arguments, in order;
	// those the sweep leaves out take DefaultBatch (Batch) or DefaultDim.
	Dims  []string
	Batch map[string]bool
	Sweep *Sweep
	// Args makes the entry's arguments (by parameter name) at dims, which
	// binds every one of Dims; seed seeds the random data.
	Args func(dims map[string]int64, seed uint64) (map[string]any, error)
	// Warmup repetitions of the host function, then Iters timed ones (the
	// median is reported); before them, one run checked against the
	// interpreter launch by launch when Check is set.
	Warmup, Iters int
	Check         bool
	Workers       int
	// Peak overrides the device table (LookupPeak); nil uses the table.
	Peak *Peak
	// Start, when set, is called once with the report before the first
	// row, when the first shape has shown what the kernels are (the metric
	// is TFLOP/s when they have mma); Row with each row once measured.
	Start func(*Report)
	Row   func(Row)
	// Stdout receives the host code's print() of the checked run (nil:
	// discarded).
	Stdout io.Writer
}

// LaunchRow is one ct.launch of a host function's repetition.
type LaunchRow struct {
	Kernel string `json:"kernel"`
	// Consts are the constants the launch passed (`tm=16 TILE_N=512`).
	Consts string `json:"consts"`
	Grid   [3]int `json:"grid"`
	// MS is the launch's median over the timed repetitions.
	MS    float64 `json:"ms"`
	FLOPs float64 `json:"flops"`
	Bytes float64 `json:"bytes"`
	Check string  `json:"check"`
}

// RunEntry measures cfg's host function at every point of its sweep on dev.
func RunEntry(dev Device, cfg *EntryConfig) (*Report, error) {
	t, err := dev.Target()
	if err != nil {
		return nil, err
	}
	rep := &Report{Kernel: cfg.Entry, File: cfg.File, Entry: true, Device: dev.Name(), Target: t.Name,
		Metric: "gbs", Warmup: cfg.Warmup, Iters: cfg.Iters, Dims: cfg.Dims, Swept: reorder(cfg.Sweep.Swept, cfg.Dims),
		Peak: devicePeak(dev, cfg.Peak)}
	for i, pt := range cfg.Sweep.Points {
		dims := map[string]int64{}
		for _, d := range cfg.Dims {
			switch v, ok := pt[d]; {
			case ok:
				dims[d] = v
			case cfg.Batch[d]:
				dims[d] = DefaultBatch
			default:
				dims[d] = DefaultDim
			}
		}
		row, w, err := runEntryPoint(dev, cfg, rep, dims, uint64(i+1))
		if err != nil {
			if label := rep.Label(Row{Dims: dims}); label != "" {
				err = fmt.Errorf("%s: %w", label, err)
			}
			return rep, err
		}
		if i == 0 {
			if w.FLOPs > 0 {
				rep.Metric, rep.MMADType = "tflops", w.MMADType.String()
			}
			if cfg.Start != nil {
				cfg.Start(rep)
			}
		}
		rep.Rows = append(rep.Rows, row)
		if cfg.Row != nil {
			cfg.Row(row)
		}
	}
	return rep, nil
}

// runEntryPoint runs the host function once, every launch checked and its
// work counted, then times cfg.Warmup + cfg.Iters repetitions. It returns
// the row and the work of one repetition.
func runEntryPoint(dev Device, cfg *EntryConfig, rep *Report, dims map[string]int64, seed uint64) (Row, Work, error) {
	row := Row{Dims: dims}
	var total Work
	args, err := cfg.Args(dims, seed)
	if err != nil {
		return row, total, err
	}
	var notes []string
	countable := true
	worst := 0.0
	checkLaunch := func(l *host.Launch) error {
		b, err := l.Kernel.Bind(l.Args, l.Grid)
		if err != nil {
			return err
		}
		k := b.Kernel // the specialization of the generic kernel
		lr := LaunchRow{Kernel: l.Name, Consts: strings.Join(l.Consts, " "), Grid: b.Grid, Check: "skipped"}
		w, err := Count(b)
		switch {
		case err == nil:
			total.Add(w)
			lr.FLOPs, lr.Bytes = w.FLOPs, w.Bytes()
		case errors.Is(err, ErrNotCountable):
			countable = false
			notes = append(notes, fmt.Sprintf("%s: %v", l.Name, err))
		default:
			return err
		}
		var inputs []runtime.Arg
		if cfg.Check {
			inputs = runtime.CloneArgs(l.Args)
		}
		p, err := dev.Prepare(k, l.Args, l.Grid)
		if err != nil {
			return err
		}
		defer p.Free()
		if err := p.Run(); err != nil {
			return err
		}
		if err := p.Download(); err != nil {
			return err
		}
		if cfg.Check {
			res, err := runtime.CheckAgainstInterpreter(k, inputs, l.Args, runtime.CheckOptions{
				Grid: l.Grid, Seed: seed, Workers: cfg.Workers})
			if err != nil {
				return err
			}
			if !res.Pass {
				return &WrongResultError{res}
			}
			var rel float64
			lr.Check, rel = checkSummary(res)
			worst = max(worst, rel)
		}
		row.Launches = append(row.Launches, lr)
		return nil
	}
	if _, err := cfg.Program.Run(cfg.Entry, args, host.Options{Launch: checkLaunch, Stdout: cfg.Stdout}); err != nil {
		return row, total, err
	}
	n := len(row.Launches)
	if n == 0 {
		return row, total, fmt.Errorf("%s launched no kernel: nothing to time", cfg.Entry)
	}
	row.Grid = row.Launches[0].Grid
	row.Check = row.Launches[0].Check
	if n > 1 && cfg.Check {
		row.Check = fmt.Sprintf("ok (%d launches, max rel err %.2g)", n, worst)
	}

	// The timed repetitions: per launch, its milliseconds in each.
	times := make([][]float64, n)
	for r := range cfg.Warmup + cfg.Iters {
		j := 0
		timeLaunch := func(l *host.Launch) error {
			if j >= n || l.Name != row.Launches[j].Kernel {
				return fmt.Errorf("repetition %d launched %s as launch %d; the checked run launched %s",
					r+1, l.Name, j+1, launchNames(row.Launches))
			}
			p, err := dev.Prepare(l.Kernel, l.Args, l.Grid)
			if err != nil {
				return err
			}
			defer p.Free()
			ms, err := p.TimeCold()
			if err != nil {
				return err
			}
			if r >= cfg.Warmup {
				times[j] = append(times[j], ms)
			}
			j++
			// The next launch may read what this one stored.
			return p.Download()
		}
		if _, err := cfg.Program.Run(cfg.Entry, args, host.Options{Launch: timeLaunch}); err != nil {
			return row, total, err
		}
		if j != n {
			return row, total, fmt.Errorf("repetition %d launched %d kernels; the checked run launched %s", r+1, j, launchNames(row.Launches))
		}
	}
	reps := make([]float64, cfg.Iters)
	for j := range row.Launches {
		row.Launches[j].MS = Median(times[j])
		for r, ms := range times[j] {
			reps[r] += ms
		}
	}
	row.MS = Median(reps)
	if countable {
		if note := row.setWork(total, rep.Peak); note != "" {
			notes = append(notes, note)
		}
	}
	row.Note = strings.Join(notes, "; ")
	return row, total, nil
}

// launchNames lists the kernels of a repetition: "partial_kernel, reduce_kernel".
func launchNames(ls []LaunchRow) string {
	names := make([]string, len(ls))
	for i, l := range ls {
		names[i] = l.Kernel
	}
	return strings.Join(names, ", ")
}
