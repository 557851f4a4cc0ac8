package bench

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/runtime"
	"github.com/tilec/tilec/runtime/check"
)

// Default sizes of the symbolic dims a shape leaves out (as `tilec run`):
// leading (batch) axes of arrays of rank 3 or more get DefaultBatch, the
// others DefaultDim.
const (
	DefaultDim   = 512
	DefaultBatch = 4
)

// BatchDims are the symbolic dims that appear only as leading axes of
// arrays of rank 3 or more (a batch of matrices): sweeps of "sizes" leave
// them at DefaultBatch.
func BatchDims(f *ir.Func) map[string]bool {
	batch, other := map[string]bool{}, map[string]bool{}
	for _, p := range f.Params {
		for ax, d := range p.Dims {
			if d.Sym == "" {
				continue
			}
			if len(p.Dims) >= 3 && ax < len(p.Dims)-2 {
				batch[d.Sym] = true
			} else {
				other[d.Sym] = true
			}
		}
	}
	for s := range other {
		delete(batch, s)
	}
	return batch
}

// SymDims are the kernel's symbolic dims in order of first appearance.
func SymDims(f *ir.Func) []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range f.Params {
		for _, d := range p.Dims {
			if d.Sym != "" && !seen[d.Sym] {
				seen[d.Sym] = true
				out = append(out, d.Sym)
			}
		}
	}
	return out
}

// FillDims returns dims with every symbolic dim of f that it leaves out set
// to its default.
func FillDims(f *ir.Func, dims map[string]int64) map[string]int64 {
	out := map[string]int64{}
	batch := BatchDims(f)
	for _, s := range SymDims(f) {
		if v, ok := dims[s]; ok {
			out[s] = v
		} else if batch[s] {
			out[s] = DefaultBatch
		} else {
			out[s] = DefaultDim
		}
	}
	return out
}

// MakeArgs builds launch arguments for f: arrays of the shapes dims give
// (every symbolic dim must be bound), filled with seeded normal random
// data, and the scalars from their text values. The arrays' total size is
// checked against the host's memory (copies: how many host copies of each
// the caller keeps) before anything is allocated.
func MakeArgs(f *ir.Func, dims map[string]int64, scalars map[string]string, seed uint64, copies int64) ([]runtime.Arg, error) {
	shapes := make([][]int, len(f.Params))
	var total int64
	for i, p := range f.Params {
		at, ok := p.Type.(*ir.Array)
		if !ok {
			continue
		}
		if err := runtime.CheckFixedDims(p.Dims); err != nil {
			return nil, fmt.Errorf("%s: %v", p.Name, err)
		}
		shape := make([]int, len(p.Dims))
		for ax, d := range p.Dims {
			if d.Sym == "" {
				shape[ax] = int(d.Size)
				continue
			}
			n, ok := dims[d.Sym]
			if !ok {
				return nil, fmt.Errorf("no size for dim %s of %s", d.Sym, p.Name)
			}
			if n < 0 || n > math.MaxInt32 {
				return nil, fmt.Errorf("%s=%d: array dims are i32 in kernels (0 to %d)", d.Sym, n, math.MaxInt32)
			}
			shape[ax] = int(n)
		}
		n, err := runtime.ShapeBytes(at.DType, shape)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", p.Name, err)
		}
		if total += n; total < 0 {
			return nil, fmt.Errorf("the arrays' total size overflows")
		}
		shapes[i] = shape
	}
	if limit := runtime.HostMemory(); limit > 0 && total*copies > limit {
		return nil, fmt.Errorf("the arrays need %s of host memory (%d copies), more than the %s available",
			runtime.FormatBytes(total*copies), copies, runtime.FormatBytes(limit))
	}
	rng := rand.New(rand.NewPCG(seed, 0))
	args := make([]runtime.Arg, len(f.Params))
	for i, p := range f.Params {
		switch pt := p.Type.(type) {
		case *ir.Array:
			t, err := runtime.AllocTensor(pt.DType, shapes[i]...)
			if err != nil {
				return nil, fmt.Errorf("%s: %v", p.Name, err)
			}
			t.FillRandNormal(rng)
			args[i] = t
		case *ir.Scalar:
			s, ok := scalars[p.Name]
			if !ok {
				return nil, fmt.Errorf("%s needs a value for scalar parameter %s: --scalar %s=...", f.Name, p.Name, p.Name)
			}
			v, err := parseScalar(pt.DType, s)
			if err != nil {
				return nil, fmt.Errorf("--scalar %s=%s: %v", p.Name, s, err)
			}
			args[i] = v
		}
	}
	return args, nil
}

func parseScalar(d ir.DType, s string) (runtime.Arg, error) {
	switch {
	case d == ir.Bool:
		return strconv.ParseBool(strings.ToLower(s))
	case d.IsInt():
		return strconv.ParseInt(s, 0, 64)
	default:
		return strconv.ParseFloat(s, 64)
	}
}

// MeasureOptions control Measure.
type MeasureOptions struct {
	// Warmup untimed launches, then Iters timed ones (the median is
	// reported).
	Warmup, Iters int
	// Check runs the kernel once and compares its outputs with the
	// interpreter's (every block for small outputs, SampleBlocks sampled
	// blocks above; 0: 8) before anything is timed.
	Check        bool
	SampleBlocks int
	Seed         uint64
	Workers      int
	// Grid overrides the kernel's declared grid (zero: its own), for
	// kernels that declare none (tilec bench --grid).
	Grid [3]int
	// GEMM names the arrays A, B and C of a GEMM-shaped kernel: the
	// baseline (cuBLAS) is timed on the same buffers when the device can.
	GEMM *[3]string
	// BatchedGEMM says GEMM's arrays are 3-D, a batch of products along
	// their leading axis: the baseline is the device's batched GEMM
	// (BatchedGEMMBaseline), never the plain one.
	BatchedGEMM bool
	// RejectSpills stops Measure with a *SpillError, before anything runs,
	// when the device's compiler gave the kernel local memory (registers
	// spilled): tilec tune's candidates, whose constants and occupancy
	// can ask for more registers than a thread gets.
	RejectSpills bool
}

// Measurement is one kernel timed at one shape.
type Measurement struct {
	Times []float64 // every timed launch, ms
	MS    float64   // their median
	// Check describes the comparison with the interpreter ("skipped" when
	// not asked for).
	Check string
	// BaselineMS is the baseline's median (0: none timed); BaselineErr
	// says why a baseline the device offers could not be timed.
	BaselineMS  float64
	BaselineErr error
}

// WrongResultError is Measure's error when the device's result differs
// from the interpreter's: the kernel was not timed.
type WrongResultError struct{ Check *check.CheckResult }

func (e *WrongResultError) Error() string {
	return "wrong result, not timed: " + firstLines(e.Check.String(), 4)
}

func firstLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = append(lines[:n], "...")
	}
	return strings.Join(lines, "\n")
}

// checkSummary describes a passed check for a report ("ok (max rel err
// 1e-07, all blocks)") and returns its largest relative error.
func checkSummary(res *check.CheckResult) (string, float64) {
	blocks := "all blocks"
	if res.Blocks != nil {
		blocks = fmt.Sprintf("%d sampled blocks", len(res.Blocks))
	}
	if len(res.Outputs) == 0 {
		return "ok (" + blocks + ")", 0
	}
	worst := 0.0
	for _, r := range res.Outputs {
		worst = max(worst, r.MaxRel)
	}
	return fmt.Sprintf("ok (max rel err %.2g, %s)", worst, blocks), worst
}

// measureRounds is how many alternating rounds of tilec and baseline
// launches Measure times when there is a baseline.
const measureRounds = 3

// Measure runs k on dev with args: once, checked against the interpreter
// (opts.Check), then timed. args are the launch arguments with their
// outputs poisoned (PoisonOutputs); they are not modified (the device gets
// copies).
// FastSums is a Prepared that says whether its launches sum float8 mma
// products in the tensor cores' reduced-precision accumulator (float8
// wgmma): the check's bound for them (check.CheckOptions.Float8FastSums).
type FastSums interface {
	Float8FastSums() bool
}

// float8FastSums is p's FastSums answer, false for a device that has none.
func float8FastSums(p Prepared) bool {
	s, ok := p.(FastSums)
	return ok && s.Float8FastSums()
}

// LocalMemory is a Prepared whose device compiler reports the kernel's
// local memory a thread (CUDA's CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES after
// the JIT: spilled registers; tilec's kernels have no local arrays).
type LocalMemory interface {
	LocalBytes() int
}

// SpillError is Measure's answer, with RejectSpills, for a kernel whose
// registers spilled to local memory.
type SpillError struct {
	Kernel string
	Bytes  int
}

func (e *SpillError) Error() string {
	return fmt.Sprintf("%s spills: %d bytes of local memory a thread after the JIT", e.Kernel, e.Bytes)
}

func Measure(dev Device, k *runtime.Kernel, args []runtime.Arg, opts MeasureOptions) (*Measurement, error) {
	m := &Measurement{Check: "skipped"}
	devArgs := check.CloneArgs(args)
	p, err := dev.Prepare(k, devArgs, opts.Grid)
	if err != nil {
		return nil, err
	}
	defer p.Free()
	if opts.RejectSpills {
		if l, ok := p.(LocalMemory); ok && l.LocalBytes() > 0 {
			return nil, &SpillError{Kernel: k.Name(), Bytes: l.LocalBytes()}
		}
	}
	if opts.Check {
		if err := p.Run(); err != nil {
			return nil, err
		}
		if err := p.Download(); err != nil {
			return nil, err
		}
		res, err := check.CheckAgainstInterpreter(k, args, devArgs, check.CheckOptions{
			Grid: opts.Grid, Seed: opts.Seed, SampleBlocks: opts.SampleBlocks, Workers: opts.Workers,
			Float8FastSums: float8FastSums(p)})
		if err != nil {
			return nil, err
		}
		if !res.Pass {
			return nil, &WrongResultError{res}
		}
		m.Check, _ = checkSummary(res)
	}
	var timeBase func(a, b, c string, warmup, iters int) (float64, error)
	if opts.GEMM != nil {
		base, err := gemmBaselineOf(p, opts.BatchedGEMM)
		if err != nil {
			m.BaselineErr = err
		}
		if base != nil {
			timeBase = base.times
		}
	}
	hasBase := timeBase != nil
	// With a baseline, tilec and the baseline alternate in rounds, so that
	// the GPU's clock and thermal drift over the seconds of a run reach
	// both alike (docs/perf.md: cuBLAS alone moved 666-757 TFLOP/s at 8192
	// between calls): tilec's median over all its launches, the
	// baseline's the median of its rounds' medians.
	rounds := 1
	if hasBase {
		rounds = measureRounds
	}
	var base []float64
	for r := 0; r < rounds; r++ {
		warm := opts.Warmup
		if r > 0 {
			warm = min(opts.Warmup, 2)
		}
		iters := max(opts.Iters/rounds, 1)
		ts, err := p.Times(warm, iters)
		if err != nil {
			return nil, err
		}
		m.Times = append(m.Times, ts...)
		if hasBase && m.BaselineErr == nil {
			n := opts.GEMM
			ms, err := timeBase(n[0], n[1], n[2], warm, iters)
			if err != nil {
				m.BaselineErr = fmt.Errorf("cuBLAS: %w", err)
				continue
			}
			base = append(base, ms)
		}
	}
	m.MS = Median(m.Times)
	if m.BaselineErr == nil && len(base) > 0 {
		m.BaselineMS = Median(base)
	}
	return m, nil
}

// gemmBaseline is a device's GEMM baseline (cuBLAS) on a Prepared's
// buffers, timed in either of the ways its launches are: times as
// Prepared.Times (Measure), cold as Prepared.TimeCold (RunEntry).
type gemmBaseline struct {
	times func(a, b, c string, warmup, iters int) (float64, error)
	cold  func(a, b, c string) (float64, error)
}

// gemmBaselineOf is p's baseline for a GEMM (a batched one when batched):
// nil when the device has none, with an error when the kernel is a
// batched GEMM and the device only offers the plain one (the row's note
// then says why its baseline is missing).
func gemmBaselineOf(p Prepared, batched bool) (*gemmBaseline, error) {
	if batched {
		if g, ok := p.(BatchedGEMMBaseline); ok {
			return &gemmBaseline{g.TimeCublasBatched, g.TimeCublasBatchedCold}, nil
		}
		if _, ok := p.(GEMMBaseline); ok {
			return nil, errors.New("cuBLAS: this device times plain GEMMs only, not the batched GEMM this kernel computes")
		}
		return nil, nil
	}
	if g, ok := p.(GEMMBaseline); ok {
		return &gemmBaseline{g.TimeCublas, g.TimeCublasCold}, nil
	}
	return nil, nil
}

// GEMMOperands finds the arrays A (M, K), B (K, N) and an output C (M, N)
// of a matmul-shaped kernel (2-D arrays; A and B only read, C stored), so
// that a GEMM library can run on the same buffers. ok is false for other
// kernels.
func GEMMOperands(f *ir.Func) (a, b, c int, ok bool) {
	return gemmOperands(f, 2, declaredDims(f))
}

// BatchedGEMMOperands finds the arrays A (Bt, M, K), B (Bt, K, N) and an
// output C (Bt, M, N) of a batched-matmul-shaped kernel (3-D arrays with
// the same leading dim; A and B only read, C stored), so that a batched
// GEMM library call can run on the same buffers. ok is false for other
// kernels, 2-D GEMMs included.
func BatchedGEMMOperands(f *ir.Func) (a, b, c int, ok bool) {
	return gemmOperands(f, 3, declaredDims(f))
}

// sameDim says whether axis i of f's parameter p and axis j of parameter q
// are one dim of a GEMM (M, N, K or the batch).
type sameDim func(p, i, q, j int) bool

// declaredDims is sameDim for a kernel file: the axes are one dim when the
// kernel declares them with the same symbol. The dims must be symbolic, as
// a benchmark sweeps them and a report names them (Report.BaselineDims).
func declaredDims(f *ir.Func) sameDim {
	return func(p, i, q, j int) bool {
		x, y := f.Params[p].Dims[i], f.Params[q].Dims[j]
		return x.Sym != "" && x == y
	}
}

// gemmOperands finds A, B and C of rank 2 (a GEMM) or 3 (a batch of them
// along the leading axis, which must be the same dim in all three), with
// their dims related as same says.
func gemmOperands(f *ir.Func, rank int, same sameDim) (a, b, c int, ok bool) {
	var arrays []int
	for i, p := range f.Params {
		if _, isArr := p.Type.(*ir.Array); isArr && len(p.Dims) == rank {
			arrays = append(arrays, i)
		}
	}
	stored := map[int]bool{}
	for _, i := range ir.WrittenParams(f) {
		stored[i] = true
	}
	// The matrix axes: o, o+1 after the batch axis (o = 1) if any.
	o := rank - 2
	for _, ai := range arrays {
		for _, bi := range arrays {
			for _, ci := range arrays {
				if ai == bi || bi == ci || ai == ci || !stored[ci] || stored[ai] || stored[bi] {
					continue
				}
				if rank == 3 && !(same(ai, 0, bi, 0) && same(ai, 0, ci, 0)) {
					continue
				}
				// K of A and B, M of A and C, N of B and C.
				if same(ai, o+1, bi, o) && same(ai, o, ci, o) && same(bi, o+1, ci, o+1) {
					return ai, bi, ci, true
				}
			}
		}
	}
	return 0, 0, 0, false
}
