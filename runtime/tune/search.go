package tune

import (
	"errors"
	"fmt"
	"io"
	goruntime "runtime"
	"strings"
	"sync"
	"time"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/lower"
	"github.com/tilec/tilec/runtime"
	"github.com/tilec/tilec/runtime/bench"
	"github.com/tilec/tilec/runtime/check"
	"github.com/tilec/tilec/runtime/kcache"
)

// Config is one search.
type Config struct {
	// Build makes a candidate; Base is the kernel built with the user's
	// constants only (the defaults of the space's constants).
	Build Build
	Base  *ir.Func
	File  string
	Space Space
	// Dims are the shapes to tune at (every symbolic dim; see
	// bench.FillDims); Scalars the scalar arguments.
	Dims    map[string]int64
	Scalars map[string]string
	// Timing of each candidate: Warmup untimed launches, the median of
	// Iters; Seed seeds the inputs and the sample of checked blocks.
	Warmup, Iters int
	Seed          uint64
	// Jobs is how many candidates compile at once (0: GOMAXPROCS).
	Jobs int
	// Compile is the compile cache the device reads (so that what the
	// parallel compiles produce is not compiled again); nil compiles
	// without one.
	Compile *kcache.Cache
	// Progress receives a line per candidate (nil: none).
	Progress io.Writer
	// Point, when set, is called before candidate i of the n that are
	// checked and timed (those not pruned at compile time), for a
	// progress display of a search whose candidates take seconds each.
	Point func(i, n int, label string)
	// Compiled, when set, is called as each candidate's compile ends
	// (done of the n compiles have ended, the last being label's), one
	// call at a time, for a progress display of the parallel compiles.
	Compiled func(done, n int, label string)
}

// Candidate statuses.
const (
	Pruned = "pruned" // rejected untimed: the target's limits at compile time (shared memory, registers, tile shapes), or registers spilled after the JIT
	Failed = "failed" // compiled, but the device would not load or run it
	Wrong  = "wrong"  // ran, but its result differs from the interpreter's: not timed
	Timed  = "timed"  // verified and timed
)

// Candidate is one point of the space.
type Candidate struct {
	// Consts are its values of the space's constants and knobs.
	Consts map[string]string
	Label  string // tm=64 tn=128
	// Default marks the kernel's own constants (the speed-up's base).
	Default bool
	Status  string
	Reason  string // why pruned, failed or wrong
	MS      float64
	Check   string
	// TFLOPS and GBs are the problem's rates, as bench reports them: its
	// useful FLOPs (a GEMM's 2*M*N*K, not the mma work of padded tiles)
	// and its compulsory bytes (each array read and written once, not
	// the re-reads) over the time; 0: not countable.
	TFLOPS, GBs float64

	// Func is the candidate built (nil when pruned).
	Func *ir.Func
}

// Result is a finished search.
type Result struct {
	Kernel, File   string
	Device, Target string
	Space          Space
	Dims           map[string]int64
	// Candidates in the space's order; the defaults, when not in the
	// space, last.
	Candidates []*Candidate
	// Winner is the fastest verified candidate; Default the defaults'
	// (nil when they failed). Speedup = Default.MS / Winner.MS.
	Winner, Default *Candidate
	Speedup         float64
	Compile         time.Duration // the parallel compiles
}

// Count of candidates with a status.
func (r *Result) Count(status string) int {
	n := 0
	for _, c := range r.Candidates {
		if c.Status == status {
			n++
		}
	}
	return n
}

// Search compiles every candidate of the space (in parallel; those the
// target rejects are pruned), then on dev checks each against the
// interpreter on a sample of blocks and times the ones that pass.
func Search(dev bench.Device, cfg *Config) (*Result, error) {
	if err := cfg.Space.Check(); err != nil {
		return nil, err
	}
	target, err := dev.Target()
	if err != nil {
		return nil, err
	}
	base := cfg.Base
	res := &Result{Kernel: base.Name, File: cfg.File, Device: dev.Name(), Target: target.Name, Space: cfg.Space, Dims: cfg.Dims}
	baseKey := defaultKey(base)
	for _, consts := range cfg.Space.Candidates() {
		res.Candidates = append(res.Candidates, &Candidate{Consts: consts, Label: label(cfg.Space, consts)})
	}
	start := time.Now()
	compileAll(cfg, target, res.Candidates)
	res.Compile = time.Since(start)
	for _, c := range res.Candidates {
		if c.Func != nil && defaultKey(c.Func) == baseKey {
			c.Default = true
			res.Default = c
		}
	}
	if res.Default == nil {
		// The defaults are outside the space: time them too, for the
		// speed-up.
		d := &Candidate{Consts: map[string]string{}, Default: true}
		vals := ConstValues(base)
		for _, p := range cfg.Space {
			d.Consts[p.Name] = vals[p.Name]
			if isKnob(base, p.Name) {
				d.Consts[p.Name] = KnobDefault
			}
		}
		d.Label = label(cfg.Space, d.Consts) + " (defaults)"
		d.Func = base
		compileOne(cfg, target, d)
		res.Candidates = append(res.Candidates, d)
		res.Default = d
	}
	progress(cfg, "tune: %s: %d candidates, %d pruned at compile time (%s)", base.Name, len(res.Candidates),
		res.Count(Pruned), res.Compile.Round(time.Millisecond))

	args, err := bench.MakeArgs(base, cfg.Dims, cfg.Scalars, cfg.Seed, 3)
	if err != nil {
		return nil, err
	}
	check.PoisonOutputs(base, args)
	todo := len(res.Candidates) - res.Count(Pruned)
	done := 0
	for _, c := range res.Candidates {
		if c.Status == Pruned {
			continue
		}
		if cfg.Point != nil {
			cfg.Point(done, todo, c.Label)
		}
		done++
		measure(dev, cfg, c, args)
		switch c.Status {
		case Timed:
			extra := ""
			if c.TFLOPS > 0 {
				extra = fmt.Sprintf(", %.1f TFLOP/s", c.TFLOPS)
			} else if c.GBs > 0 {
				extra = fmt.Sprintf(", %.1f GB/s", c.GBs)
			}
			progress(cfg, "tune: [%d/%d] %s: %.4f ms%s", done, todo, c.Label, c.MS, extra)
		default:
			progress(cfg, "tune: [%d/%d] %s: %s: %s", done, todo, c.Label, c.Status, c.Reason)
		}
		if c.Status == Timed && (res.Winner == nil || c.MS < res.Winner.MS) {
			res.Winner = c
		}
	}
	if res.Default != nil && res.Default.Status != Timed {
		res.Default = nil
	}
	if res.Winner == nil {
		return res, fmt.Errorf("tune: no candidate of %s passed (%d pruned, %d failed, %d wrong)", base.Name,
			res.Count(Pruned), res.Count(Failed), res.Count(Wrong))
	}
	if res.Default != nil {
		res.Speedup = res.Default.MS / res.Winner.MS
	}
	return res, nil
}

func label(s Space, consts map[string]string) string {
	parts := make([]string, len(s))
	for i, p := range s {
		parts[i] = p.Name + "=" + consts[p.Name]
	}
	return strings.Join(parts, " ")
}

func progress(cfg *Config, format string, args ...any) {
	if cfg.Progress != nil {
		fmt.Fprintf(cfg.Progress, format+"\n", args...)
	}
}

// compileAll builds and compiles the candidates, cfg.Jobs at a time.
func compileAll(cfg *Config, target *lower.Target, cs []*Candidate) {
	jobs := cfg.Jobs
	if jobs <= 0 {
		jobs = goruntime.GOMAXPROCS(0)
	}
	work := make(chan *Candidate)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	for range min(jobs, len(cs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range work {
				compileOne(cfg, target, c)
				if cfg.Compiled != nil {
					mu.Lock()
					done++
					cfg.Compiled(done, len(cs), c.Label)
					mu.Unlock()
				}
			}
		}()
	}
	for _, c := range cs {
		work <- c
	}
	close(work)
	wg.Wait()
}

// compileOne builds c (unless built) and compiles it for target; a failure
// prunes it.
func compileOne(cfg *Config, target *lower.Target, c *Candidate) error {
	prune := func(err error) error {
		c.Status, c.Reason, c.Func = Pruned, firstLine(err.Error()), nil
		return err
	}
	if c.Func == nil {
		consts, knobValues := splitKnobs(cfg.Base, c.Consts)
		f, err := cfg.Build(consts)
		if err != nil {
			return prune(err)
		}
		if f, err = ApplyKnobs(f, knobValues); err != nil {
			return prune(err)
		}
		c.Func = f
	}
	if !SameParams(cfg.Base, c.Func) {
		return prune(errors.New("the constants change the kernel's parameters"))
	}
	pk, _, err := cfg.Compile.CompilePTXFor(c.Func, target)
	if err != nil {
		return prune(err)
	}
	if why := knobPruned(c.Consts, cfg.Base, c.Func, target, pk); why != "" {
		return prune(errors.New(why))
	}
	return nil
}

// defaultKey identifies what a candidate compiles from besides its body:
// its constants and hints. The candidate whose key is the base kernel's
// (the user's constants, no knob set) is the defaults.
func defaultKey(f *ir.Func) string {
	return bench.ConstsString(f) + "\x00" + fmt.Sprint(f.Hints)
}

// measure checks c on the device against the interpreter and times it.
func measure(dev bench.Device, cfg *Config, c *Candidate, args []runtime.Arg) {
	k := runtime.NewKernel(c.Func)
	// A candidate whose registers spill after the JIT (more than its
	// occupancy or tiles leave a thread) is pruned untimed: it loses, and
	// at 15x the winner's time (docs/perf.md) it is the search's slowest
	// part. The defaults are timed even so, for the speed-up.
	m, err := bench.Measure(dev, k, args, bench.MeasureOptions{Warmup: cfg.Warmup, Iters: cfg.Iters, Check: true, Seed: cfg.Seed,
		RejectSpills: !c.Default})
	var wrong *bench.WrongResultError
	var spill *bench.SpillError
	switch {
	case errors.As(err, &spill):
		c.Status, c.Reason = Pruned, fmt.Sprintf("spills: %d bytes of local memory a thread after the JIT", spill.Bytes)
		return
	case errors.As(err, &wrong):
		c.Status, c.Reason = Wrong, firstLine(wrong.Check.String())
		for _, o := range wrong.Check.Outputs {
			if !o.Pass {
				c.Reason = "differs from the interpreter: " + firstLine(o.String())
				break
			}
		}
		return
	case err != nil:
		c.Status, c.Reason = Failed, firstLine(err.Error())
		return
	}
	c.Status, c.MS, c.Check = Timed, m.MS, m.Check
	if b, err := k.Bind(args, [3]int{}); err == nil {
		if w, err := bench.Count(b); err == nil && m.MS > 0 {
			// Candidates differ in their tiles, so the mma work of the
			// padding and the re-reads differ too: rated by them, a
			// candidate with larger tiles than the problem would look
			// faster than it is.
			w.UsefulFLOPs = gemmFLOPs(c.Func, b)
			c.TFLOPS = w.Useful() / (m.MS * 1e-3) / 1e12
			c.GBs = w.CompulsoryBytes / (m.MS * 1e-3) / 1e9
		}
	}
}

// gemmFLOPs is the problem's work, 2 * (Bt *) M * N * K, of a kernel that
// bench recognizes as a GEMM or a batch of them (its arrays A, B and C);
// 0 for other kernels.
func gemmFLOPs(f *ir.Func, b *runtime.Binding) float64 {
	ai, bi, _, ok := bench.GEMMOperands(f)
	if !ok {
		if ai, bi, _, ok = bench.BatchedGEMMOperands(f); !ok {
			return 0
		}
	}
	A, B := b.Tensors[ai].Shape, b.Tensors[bi].Shape
	w := 2 * float64(B[len(B)-1]) // N
	for _, n := range A {         // (Bt,) M, K
		w *= float64(n)
	}
	return w
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// Entry is the cache entry of a finished search.
func (r *Result) Entry(base *ir.Func) *Entry {
	consts, knobValues := splitKnobs(base, r.Winner.Consts)
	e := &Entry{Kernel: r.Kernel, File: r.File, Signature: Signature(base), Space: r.Space.String(),
		ShapeClass: ShapeClass(r.Dims), Dims: r.Dims, Device: r.Device, Target: r.Target,
		Names: r.Space.Names(), Consts: consts, Knobs: knobValues, MS: r.Winner.MS, Created: time.Now().UTC()}
	if r.Default != nil {
		e.DefaultMS = r.Default.MS
	}
	return e
}
