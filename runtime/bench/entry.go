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
//
// cuBLAS is the baseline when a repetition is one launch of a GEMM-shaped
// kernel (findGEMM, the rule of kernel files; launchDims relates the dims
// of cuTile's unannotated parameters): the same GEMM on that launch's
// device buffers, timed as the launch is (an L2 clear, then CUDA events
// around the one call: GEMMBaseline.TimeCublasCold), right after it in
// every repetition. So the two alternate call by call, as the kernel
// path's rounds alternate, and neither gets the warm L2 or the
// back-to-back calls that the other lacks: Measure's warm, back-to-back
// cuBLAS beside tilec's cold launches would flatter cuBLAS, most at the
// sizes whose operands fit in L2.

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/runtime"
	"github.com/tilec/tilec/runtime/check"
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
	// ArgDims name the axes of the entry's array parameters as their
	// signatures do (A: M, K; "" for a fixed size), so that a launch's
	// GEMM dims are told apart by name where their sizes coincide
	// (launchDims); nil leaves every axis to be matched by size.
	ArgDims map[string][]string
	Sweep   *Sweep
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
	// Point is Config.Point: called before each point is measured.
	Point func(i, n int, dims map[string]int64)
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
	MS float64 `json:"ms"`
	// FLOPs and Bytes are the launch's useful work and compulsory bytes,
	// as Row's.
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
		if cfg.Point != nil {
			cfg.Point(i, len(cfg.Sweep.Points), dims)
		}
		row, w, g, err := runEntryPoint(dev, cfg, rep, dims, uint64(i+1))
		if err != nil {
			if label := rep.Label(Row{Dims: dims}); label != "" {
				err = fmt.Errorf("%s: %w", label, err)
			}
			return rep, err
		}
		if g != nil && rep.BaselineOp == "" {
			rep.BaselineOp, rep.BaselineDims = g.shape.op(), g.dims
		}
		if i == 0 {
			if w.FLOPs > 0 {
				rep.Metric, rep.MMADType = "tflops", w.MMADType.String()
			}
			// The table has cuBLAS's columns when the kernels do mma or
			// the first shape has a GEMM: a sweep of split_k_matmul
			// launches two kernels at small shapes (a "-" and a note) and
			// one GEMM at large ones.
			if w.FLOPs > 0 || g != nil {
				rep.Baseline = "cuBLAS"
			}
			if g != nil {
				// (Bt,) M, N, K first, as the kernel path orders them.
				rep.Dims = reorder(rep.Dims, g.dims)
				rep.Swept = reorder(rep.Swept, rep.Dims)
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
	// The report (--json) names a baseline only if one was timed.
	if rep.BaselineOp == "" {
		rep.Baseline = ""
	}
	return rep, nil
}

// runEntryPoint runs the host function once, every launch checked and its
// work counted, then times cfg.Warmup + cfg.Iters repetitions (and the
// cuBLAS baseline with them when a repetition is one GEMM launch). It
// returns the row, the work of one repetition and its GEMM (nil: none).
func runEntryPoint(dev Device, cfg *EntryConfig, rep *Report, dims map[string]int64, seed uint64) (Row, Work, *entryGEMM, error) {
	row := Row{Dims: dims}
	var total Work
	args, err := cfg.Args(dims, seed)
	if err != nil {
		return row, total, nil, err
	}
	var notes []string
	countable := true
	worst := 0.0
	var gemm *entryGEMM
	var gemmWhy string // why a lone launch is no GEMM
	checkLaunch := func(l *host.Launch) error {
		b, err := l.Kernel.Bind(l.Args, l.Grid)
		if err != nil {
			return err
		}
		k := b.Kernel // the specialization of the generic kernel
		if rep.DType == "" {
			rep.DType = arrayDType(k.Func)
		}
		g := launchGEMM(l, k.Func, args, cfg, dims)
		if len(row.Launches) == 0 {
			gemm = g
			if gemm == nil {
				gemmWhy = fmt.Sprintf("%s is not GEMM-shaped (A (M, K) and B (K, N) read, C (M, N) stored, or a batch of them)", l.Name)
			}
		}
		lr := LaunchRow{Kernel: l.Name, Consts: strings.Join(l.Consts, " "), Grid: b.Grid, Check: "skipped"}
		w, err := Count(b)
		switch {
		case err == nil:
			if g != nil {
				w.UsefulFLOPs = g.flops
			}
			total.Add(w)
			lr.FLOPs, lr.Bytes = w.Useful(), w.CompulsoryBytes
		case errors.Is(err, ErrNotCountable):
			countable = false
			notes = append(notes, fmt.Sprintf("%s: %v", l.Name, err))
		default:
			return err
		}
		var inputs []runtime.Arg
		if cfg.Check {
			// Poisoned for the check, given back where nothing was written.
			restore := check.PoisonFloatOutputs(k.Func, l.Args)
			defer restore()
			inputs = check.CloneArgs(l.Args)
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
			res, err := check.CheckAgainstInterpreter(k, inputs, l.Args, check.CheckOptions{
				Grid: l.Grid, Seed: seed, Workers: cfg.Workers, Float8FastSums: float8FastSums(p)})
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
	if _, err := cfg.Program.Run(cfg.Entry, args, host.Options{Launch: checkLaunch, Stdout: cfg.Stdout, Device: hostDevice(dev)}); err != nil {
		return row, total, nil, err
	}
	n := len(row.Launches)
	if n == 0 {
		return row, total, nil, fmt.Errorf("%s launched no kernel: nothing to time", cfg.Entry)
	}
	switch {
	case n > 1:
		gemm = nil
		notes = append(notes, fmt.Sprintf("no cuBLAS baseline: %s launches %d kernels (%s), not one GEMM",
			cfg.Entry, n, launchNames(row.Launches)))
	case gemm == nil:
		notes = append(notes, "no cuBLAS baseline: "+gemmWhy)
	}
	row.Grid = row.Launches[0].Grid
	row.Check = row.Launches[0].Check
	if n > 1 && cfg.Check {
		row.Check = fmt.Sprintf("ok (%d launches, max rel err %.2g)", n, worst)
	}

	// The timed repetitions: per launch, its milliseconds in each; the
	// baseline's after the launch of a one-GEMM repetition.
	times := make([][]float64, n)
	var baseTimes []float64
	var baseErr error
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
			if err := p.Download(); err != nil {
				return err
			}
			if gemm == nil || baseErr != nil {
				return nil
			}
			// cuBLAS overwrites C on the device only: the host has
			// tilec's result.
			base, err := gemmBaselineOf(p, gemm.shape.batched)
			if base == nil {
				baseErr = err // nil: the device has no baseline
				gemm = nil
				return nil
			}
			bms, err := base.cold(gemm.names[0], gemm.names[1], gemm.names[2])
			switch {
			case err != nil:
				baseErr = fmt.Errorf("cuBLAS: %w", err)
			case r >= cfg.Warmup:
				baseTimes = append(baseTimes, bms)
			}
			return nil
		}
		if _, err := cfg.Program.Run(cfg.Entry, args, host.Options{Launch: timeLaunch, Device: hostDevice(dev)}); err != nil {
			return row, total, nil, err
		}
		if j != n {
			return row, total, nil, fmt.Errorf("repetition %d launched %d kernels; the checked run launched %s", r+1, j, launchNames(row.Launches))
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
	if baseErr != nil {
		notes = append(notes, baseErr.Error())
	} else if len(baseTimes) > 0 {
		row.CublasMS = Median(baseTimes)
		row.CublasTFLOPS = gemm.flops / (row.CublasMS * 1e-3) / 1e12
		row.Ratio = row.CublasMS / row.MS
	}
	row.Note = strings.Join(notes, "; ")
	if baseErr != nil || len(baseTimes) == 0 {
		gemm = nil
	}
	return row, total, gemm, nil
}

// launchNames lists the kernels of a repetition: "partial_kernel, reduce_kernel".
func launchNames(ls []LaunchRow) string {
	names := make([]string, len(ls))
	for i, l := range ls {
		names[i] = l.Kernel
	}
	return strings.Join(names, ", ")
}

// entryGEMM is the GEMM of a host function's repetition that is one launch
// of a GEMM-shaped kernel: what its cuBLAS baseline runs on.
type entryGEMM struct {
	shape gemmShape
	// names are the kernel's parameters A, B and C; dims the GEMM's (Bt,)
	// M, N and K as the report names them; flops its work, 2*(Bt*)M*N*K.
	names [3]string
	dims  []string
	flops float64
}

// launchGEMM classifies a host function's launch of kernel f (bound to
// l.Args) as a kernel file is classified (findGEMM), or returns nil. A
// kernel with declared dims relates them as a kernel file does; cuTile's
// unannotated parameters (a specialization names every axis apart: A_0,
// A_1) by the entry's signatures (launchDims).
func launchGEMM(l *host.Launch, f *ir.Func, args map[string]any, cfg *EntryConfig, dims map[string]int64) *entryGEMM {
	named := map[*runtime.Tensor][]string{}
	for name, v := range args {
		if t, ok := v.(*runtime.Tensor); ok && len(cfg.ArgDims[name]) == t.Rank() {
			named[t] = cfg.ArgDims[name]
		}
	}
	same := launchDims(l.Args, named)
	if !l.Kernel.IsGeneric() {
		same = declaredDims(f)
	}
	g, ok := findGEMM(f, same)
	if !ok {
		return nil
	}
	A, B := l.Args[g.a].(*runtime.Tensor), l.Args[g.b].(*runtime.Tensor)
	return &entryGEMM{shape: g, names: g.names(f), dims: g.launchDimNames(l.Args, named, cfg.Dims, dims),
		flops: g.flops(A.Shape, B.Shape)}
}

// launchDims is sameDim for a launch of a kernel with unannotated
// parameters: two axes are one dim when the entry's signatures give them
// one symbol (both arrays are the entry's own arguments: --arg A=f16[M,K]
// --arg B=f16[K,N]), else when their sizes are equal (C, which the host
// code makes). The names keep a square shape's M, N and K apart: a kernel
// that reads B as (N, K), as matmul_bt does, is no GEMM at M=N=K either.
func launchDims(args []runtime.Arg, named map[*runtime.Tensor][]string) sameDim {
	return func(p, i, q, j int) bool {
		tp, ok1 := args[p].(*runtime.Tensor)
		tq, ok2 := args[q].(*runtime.Tensor)
		if !ok1 || !ok2 {
			return false
		}
		if x, y := axisName(named, tp, i), axisName(named, tq, j); x != "" && y != "" {
			return x == y
		}
		return tp.Shape[i] == tq.Shape[j]
	}
}

// axisName is the signature's symbol for axis i of t ("" when t is not an
// argument of the entry or the axis has a fixed size).
func axisName(named map[*runtime.Tensor][]string, t *runtime.Tensor, i int) string {
	if n := named[t]; n != nil {
		return n[i]
	}
	return ""
}

// launchDimNames names the GEMM's (Bt,) M, N and K for the report: the
// symbol an operand's signature gives the dim, else the first of the
// entry's dims (order) of its size at this shape, else the size itself.
func (g gemmShape) launchDimNames(args []runtime.Arg, named map[*runtime.Tensor][]string, order []string, dims map[string]int64) []string {
	type axis struct{ param, ax int }
	o := 0
	var want [][]axis
	if g.batched {
		o = 1
		want = append(want, []axis{{g.a, 0}, {g.b, 0}, {g.c, 0}})
	}
	want = append(want,
		[]axis{{g.a, o}, {g.c, o}},         // M
		[]axis{{g.b, o + 1}, {g.c, o + 1}}, // N
		[]axis{{g.a, o + 1}, {g.b, o}})     // K
	out := make([]string, len(want))
	for i, axes := range want {
		for _, x := range axes {
			if n := axisName(named, args[x.param].(*runtime.Tensor), x.ax); n != "" {
				out[i] = n
				break
			}
		}
		if out[i] != "" {
			continue
		}
		size := int64(args[axes[0].param].(*runtime.Tensor).Shape[axes[0].ax])
		out[i] = strconv.FormatInt(size, 10)
		for _, d := range order {
			if dims[d] == size {
				out[i] = d
				break
			}
		}
	}
	return out
}
