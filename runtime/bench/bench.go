package bench

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/runtime"
	"github.com/tilec/tilec/runtime/check"
)

// Config is one benchmark: a kernel over a sweep of shapes.
type Config struct {
	// Func is the kernel as built with the user's constants.
	Func *ir.Func
	// File is its source, for the report.
	File string
	// Sweep gives the shapes (dims it leaves out take their defaults).
	Sweep *Sweep
	// Scalars are the values of scalar parameters, as text.
	Scalars map[string]string
	// Grid is the launch grid of a kernel that declares none (zero: the
	// kernel's own grid at each shape).
	Grid [3]int
	// Specialize, when set, returns the kernel to run at the dims of a
	// point (tuned constants) and a note saying so; nil f keeps Func.
	Specialize func(dims map[string]int64) (f *ir.Func, note string, err error)
	// Measurement settings; Seed 0 seeds each shape by its index.
	Warmup, Iters int
	Check         bool
	Workers       int
	// Peak overrides the device table (LookupPeak); nil uses the table.
	Peak *Peak
	// Row, when set, is called with each row as soon as it is measured
	// (to print a table as it fills).
	Row func(Row)
	// Point, when set, is called before each point of the sweep is
	// measured: its index, the number of points and its dims (to show
	// progress through a sweep whose shapes take seconds each).
	Point func(i, n int, dims map[string]int64)
}

// Report is a benchmark's result: what --json prints and `tilec plot` reads.
type Report struct {
	// Kernel is the kernel's name, or the host function's when Entry is
	// set (tilec bench --entry: each row times the kernels it launches).
	Kernel string `json:"kernel"`
	Entry  bool   `json:"entry,omitempty"`
	File   string `json:"file,omitempty"`
	Consts string `json:"consts"`
	Device string `json:"device"`
	Target string `json:"target"`
	// Peak is the device's (nil: not in the table).
	Peak *Peak `json:"peak,omitempty"`
	// MMADType is the mma operands' dtype ("" without mma); DType the
	// element type of the (first launch's) first array, what a plot's
	// title names when there is no mma.
	MMADType string `json:"mma_dtype,omitempty"`
	DType    string `json:"dtype,omitempty"`
	// Metric is what the kernel is judged by: "tflops" for kernels with
	// mma, "gbs" for the others.
	Metric string `json:"metric"`
	// Baseline names the library timed side by side ("cuBLAS"), if any.
	Baseline string `json:"baseline,omitempty"`
	// BaselineOp is the library call: "gemm" (cublasGemmEx) for a GEMM,
	// "gemm_strided_batched" (cublasGemmStridedBatchedEx, one call over
	// the batch) for a batched GEMM. BaselineDims are the dims whose
	// product, times 2, is the baseline's work: M, N, K, with the batch
	// dim first for a batched GEMM. A host function's (Entry) has a
	// baseline when a shape's repetition was one GEMM launch; its dims
	// are named by the --arg signatures (a dim that none names: its size).
	BaselineOp   string   `json:"baseline_op,omitempty"`
	BaselineDims []string `json:"baseline_dims,omitempty"`
	Warmup       int      `json:"warmup"`
	Iters        int      `json:"iters"`
	// Dims are the kernel's symbolic dims; Swept those that vary.
	Dims  []string `json:"dims"`
	Swept []string `json:"swept"`
	Rows  []Row    `json:"rows"`
}

// Row is one shape of a benchmark.
type Row struct {
	Dims map[string]int64 `json:"dims"`
	// Consts are the constants the kernel ran with (tuned ones included).
	Consts string  `json:"consts"`
	Grid   [3]int  `json:"grid"`
	MS     float64 `json:"tilec_ms"`
	// FLOPs is the problem's work: 2*M*N*K of a GEMM (2*Bt*M*N*K batched),
	// whatever the tiles; for other kernels with mma, the mma work
	// (Work.FLOPs). MMAFLOPs is the mma work the tensor cores did, padding
	// of tiles larger than the problem included, when it differs.
	FLOPs    float64 `json:"flops"`
	MMAFLOPs float64 `json:"mma_flops,omitempty"`
	// Bytes is the compulsory traffic (Work.CompulsoryBytes: each array
	// read once, written once); TrafficBytes every load and store, re-reads
	// included (Work.Bytes).
	Bytes        float64 `json:"bytes"`
	TrafficBytes float64 `json:"traffic_bytes"`
	// TFLOPS is FLOPs per second, MMATFLOPS MMAFLOPs per second (0: the
	// same work); GBs is Bytes per second, the roofline's figure; 0 when
	// not countable.
	TFLOPS    float64 `json:"tilec_tflops"`
	MMATFLOPS float64 `json:"mma_tflops,omitempty"`
	GBs       float64 `json:"tilec_gbs"`
	// ArrayBytes is the size of the arrays touched.
	ArrayBytes float64 `json:"array_bytes"`
	// PeakTFLOPS and PeakGBs are fractions of the device's peaks (0: unknown).
	PeakTFLOPS float64 `json:"peak_tflops_frac,omitempty"`
	PeakGBs    float64 `json:"peak_gbs_frac,omitempty"`
	// The baseline (cuBLAS) on the same buffers (its TFLOP/s are 2*M*N*K
	// of the GEMM's shape, 2*Bt*M*N*K of a batched GEMM's), and Ratio = its time / tilec's (above 1: tilec
	// is faster).
	CublasMS     float64 `json:"cublas_ms,omitempty"`
	CublasTFLOPS float64 `json:"cublas_tflops,omitempty"`
	Ratio        float64 `json:"ratio,omitempty"`
	Check        string  `json:"check"`
	// Launches are a host function's launches of one repetition (Report.Entry),
	// in order; MS is the median of their sums.
	Launches []LaunchRow `json:"launches,omitempty"`
	// Note says what else the reader needs: tuned constants, a work count
	// that was sampled or impossible, a baseline that failed.
	Note string `json:"note,omitempty"`
}

// Label names the row's shape by the report's swept dims.
func (r *Report) Label(row Row) string {
	if l := PointLabel(r.Swept, row.Dims); l != "" {
		return l
	}
	return PointLabel(r.Dims, row.Dims)
}

// Value is the row's figure in the report's metric, and the baseline's.
func (r *Report) Value(row Row) (tilec, baseline float64) {
	if r.Metric == "tflops" {
		return row.TFLOPS, row.CublasTFLOPS
	}
	return row.GBs, 0
}

// NewReport describes the benchmark of cfg on dev before any row.
func NewReport(dev Device, cfg *Config) (*Report, error) {
	f := cfg.Func
	t, err := dev.Target()
	if err != nil {
		return nil, err
	}
	r := &Report{Kernel: f.Name, File: cfg.File, Consts: ConstsString(f), Device: dev.Name(), Target: t.Name,
		Metric: "gbs", Warmup: cfg.Warmup, Iters: cfg.Iters, Dims: SymDims(f), Swept: cfg.Sweep.Swept}
	r.DType = arrayDType(f)
	f.Body.Walk(func(in *ir.Instr) {
		if in.Op == ir.OpMMA && r.MMADType == "" {
			r.MMADType = in.Args[0].Type.Elem().String()
			r.Metric = "tflops"
		}
	})
	if g, ok := findGEMM(f, declaredDims(f)); ok {
		r.Baseline, r.BaselineOp = "cuBLAS", g.op()
		// (Bt,) M, N, K first, as GEMMs are named.
		r.BaselineDims = g.dims(f)
		r.Dims = reorder(r.Dims, r.BaselineDims)
	}
	r.Swept = reorder(r.Swept, r.Dims)
	r.Peak = devicePeak(dev, cfg.Peak)
	return r, nil
}

// arrayDType is the element type of f's first array parameter ("": none).
func arrayDType(f *ir.Func) string {
	for _, p := range f.Params {
		if at, ok := p.Type.(*ir.Array); ok {
			return at.DType.String()
		}
	}
	return ""
}

// gemmShape is a GEMM-shaped kernel's A, B and C (parameter indexes),
// plain or batched.
type gemmShape struct {
	a, b, c int
	batched bool
}

// findGEMM finds the operands of a plain GEMM, else of a batched one, in
// f's parameters with their dims related as same says: declaredDims for a
// kernel file, launchDims for a host function's launch.
func findGEMM(f *ir.Func, same sameDim) (gemmShape, bool) {
	if a, b, c, ok := gemmOperands(f, 2, same); ok {
		return gemmShape{a, b, c, false}, true
	}
	if a, b, c, ok := gemmOperands(f, 3, same); ok {
		return gemmShape{a, b, c, true}, true
	}
	return gemmShape{}, false
}

// names are the parameter names of A, B and C, as the baselines take them.
func (g gemmShape) names(f *ir.Func) [3]string {
	return [3]string{f.Params[g.a].Name, f.Params[g.b].Name, f.Params[g.c].Name}
}

// flops is the GEMM's work, 2 * (Bt *) M * N * K, from the bound shapes of
// A and B.
func (g gemmShape) flops(A, B []int) float64 {
	w := 2 * float64(B[len(B)-1])
	for _, n := range A {
		w *= float64(n)
	}
	return w
}

func (g gemmShape) op() string {
	if g.batched {
		return "gemm_strided_batched"
	}
	return "gemm"
}

// dims are the names of the GEMM's (Bt,) M, N and K.
func (g gemmShape) dims(f *ir.Func) []string {
	A, B := f.Params[g.a].Dims, f.Params[g.b].Dims
	var out []string
	if g.batched {
		out = append(out, A[0].Sym)
		A, B = A[1:], B[1:]
	}
	return append(out, A[0].Sym, B[1].Sym, A[1].Sym)
}

// devicePeak is a copy of override, or else the device table's entry for
// dev (nil: not in the table).
func devicePeak(dev Device, override *Peak) *Peak {
	if override != nil {
		p := *override
		return &p
	}
	if p, ok := LookupPeak(dev.Name(), dev.SM()); ok {
		return &p
	}
	return nil
}

// Run measures cfg's kernel at every point of its sweep on dev.
func Run(dev Device, cfg *Config) (*Report, error) {
	rep, err := NewReport(dev, cfg)
	if err != nil {
		return nil, err
	}
	for i, pt := range cfg.Sweep.Points {
		if cfg.Point != nil {
			cfg.Point(i, len(cfg.Sweep.Points), FillDims(cfg.Func, pt))
		}
		row, err := runPoint(dev, cfg, rep, pt, uint64(i+1))
		if err != nil {
			return rep, fmt.Errorf("%s: %w", rep.Label(Row{Dims: FillDims(cfg.Func, pt)}), err)
		}
		rep.Rows = append(rep.Rows, row)
		if cfg.Row != nil {
			cfg.Row(row)
		}
	}
	return rep, nil
}

func runPoint(dev Device, cfg *Config, rep *Report, pt map[string]int64, seed uint64) (Row, error) {
	f := cfg.Func
	dims := FillDims(f, pt)
	row := Row{Dims: dims}
	var notes []string
	if cfg.Specialize != nil {
		g, note, err := cfg.Specialize(dims)
		if err != nil {
			return row, err
		}
		if g != nil {
			f = g
		}
		if note != "" {
			notes = append(notes, note)
		}
	}
	row.Consts = ConstsString(f)
	copies := int64(2) // the interpreter's inputs and the device's copy
	if cfg.Check {
		copies = 3
	}
	args, err := MakeArgs(f, dims, cfg.Scalars, seed, copies)
	if err != nil {
		return row, err
	}
	check.PoisonOutputs(f, args)
	k := runtime.NewKernel(f)
	b, err := k.Bind(args, cfg.Grid)
	if err != nil {
		return row, err
	}
	row.Grid = b.Grid
	w, werr := Count(b)
	opts := MeasureOptions{Warmup: cfg.Warmup, Iters: cfg.Iters, Check: cfg.Check, Seed: seed, Workers: cfg.Workers, Grid: cfg.Grid}
	gemmFLOPs := 0.0
	if g, ok := findGEMM(f, declaredDims(f)); ok {
		names := g.names(f)
		opts.GEMM, opts.BatchedGEMM = &names, g.batched
		gemmFLOPs = g.flops(b.Tensors[g.a].Shape, b.Tensors[g.b].Shape)
		w.UsefulFLOPs = gemmFLOPs
	}
	m, err := Measure(dev, k, args, opts)
	if err != nil {
		return row, err
	}
	row.MS, row.Check = m.MS, m.Check
	switch {
	case werr != nil && errors.Is(werr, ErrNotCountable):
		notes = append(notes, werr.Error())
	case werr != nil:
		return row, werr
	default:
		if note := row.setWork(w, rep.Peak); note != "" {
			notes = append(notes, note)
		}
	}
	if m.BaselineErr != nil {
		notes = append(notes, m.BaselineErr.Error())
	}
	if m.BaselineMS > 0 {
		row.CublasMS = m.BaselineMS
		row.CublasTFLOPS = gemmFLOPs / (m.BaselineMS * 1e-3) / 1e12
		row.Ratio = m.BaselineMS / row.MS
	}
	row.Note = strings.Join(notes, "; ")
	return row, nil
}

// setWork fills the row's work and its rates from w and the row's time,
// and the rates' fractions of peak (nil: unknown). It returns a note when
// the work was counted on a sample of the blocks, and one that gives the
// mma rate when padding made the tensor cores do more than the problem.
func (row *Row) setWork(w Work, peak *Peak) (note string) {
	row.FLOPs, row.Bytes, row.TrafficBytes, row.ArrayBytes = w.Useful(), w.CompulsoryBytes, w.Bytes(), w.ArrayBytes
	if w.FLOPs != row.FLOPs {
		row.MMAFLOPs = w.FLOPs
	}
	var notes []string
	if !w.Exact() {
		notes = append(notes, fmt.Sprintf("work counted on %d of %d blocks", w.Counted, w.Blocks))
	}
	if row.MS > 0 {
		row.TFLOPS = row.FLOPs / (row.MS * 1e-3) / 1e12
		row.GBs = row.Bytes / (row.MS * 1e-3) / 1e9
		if row.MMAFLOPs > 0 {
			row.MMATFLOPS = row.MMAFLOPs / (row.MS * 1e-3) / 1e12
		}
	}
	// Past 1% the padding is worth saying: a 16-row GEMM in 128-row tiles
	// does 8 times the problem's work.
	if row.FLOPs > 0 && row.MMAFLOPs > 1.01*row.FLOPs {
		notes = append(notes, fmt.Sprintf("mma work with tile padding %.3g TFLOP/s (%.1fx the problem's)",
			row.MMATFLOPS, row.MMAFLOPs/row.FLOPs))
	}
	note = strings.Join(notes, "; ")
	if peak != nil {
		if pk := peak.TFLOPS(w.MMADType); pk > 0 && row.FLOPs > 0 {
			row.PeakTFLOPS = row.TFLOPS / pk
		}
		if peak.GBs > 0 {
			row.PeakGBs = row.GBs / peak.GBs
		}
	}
	return note
}

// reorder returns names with those of first in first's order ahead of the
// others.
func reorder(names, first []string) []string {
	out := []string{}
	in := map[string]bool{}
	for _, n := range names {
		in[n] = true
	}
	for _, n := range first {
		if in[n] {
			out = append(out, n)
			delete(in, n)
		}
	}
	for _, n := range names {
		if in[n] {
			out = append(out, n)
		}
	}
	return out
}

// ConstsString prints a kernel's constants as `tilec run` does: T=f16 tm=128.
func ConstsString(f *ir.Func) string {
	if len(f.Consts) == 0 {
		return "(none)"
	}
	parts := make([]string, len(f.Consts))
	for i, c := range f.Consts {
		parts[i] = fmt.Sprintf("%s=%v", c.Name, c.Value)
	}
	return strings.Join(parts, " ")
}

// DimsString prints dims sorted by name: K=512 M=512 N=512.
func DimsString(dims map[string]int64) string {
	keys := make([]string, 0, len(dims))
	for k := range dims {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%d", k, dims[k])
	}
	return strings.Join(parts, " ")
}
