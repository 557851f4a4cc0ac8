package runtime

// This file checks a device backend's outputs against the interpreter, the
// reference semantics: Compare for two tensors, CheckAgainstInterpreter for a
// whole launch (all blocks for small outputs, a random sample of blocks for
// large ones). It needs no GPU and builds without the cuda tag.

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/tilec/tilec/ir"
)

// Tolerance is the pass threshold of a comparison: an element passes when
// |got - want| <= Rel*max|want| + Abs, where max|want| is taken over all
// compared elements of the tensor (not per element: per-element relative
// error is meaningless for the near-zero entries every random matmul has).
type Tolerance struct {
	Rel float64
	Abs float64
}

func (t Tolerance) String() string {
	if t.Abs == 0 {
		return fmt.Sprintf("rel %.0e", t.Rel)
	}
	return fmt.Sprintf("rel %.0e + abs %.0e", t.Rel, t.Abs)
}

// ToleranceFor is the default tolerance for an output of dtype d:
// f32 1e-5, tf32 1e-3, f16 and bf16 1e-2, f64 1e-9 (relative to max|want|);
// integers and bool must match exactly.
func ToleranceFor(d ir.DType) Tolerance {
	switch d {
	case ir.F16, ir.BF16:
		return Tolerance{Rel: 1e-2}
	case ir.TF32:
		return Tolerance{Rel: 1e-3}
	case ir.F32:
		return Tolerance{Rel: 1e-5}
	case ir.F64:
		return Tolerance{Rel: 1e-9}
	}
	return Tolerance{}
}

// KernelTolerance is the tolerance for an output of dtype out of kernel f:
// ToleranceFor(out), loosened to tf32's when f has an mma whose inputs are
// f32 or tf32 (tensor cores multiply those in tf32, and a device kernel may
// round its inputs differently from the interpreter).
func KernelTolerance(f *ir.Func, out ir.DType) Tolerance {
	tol := ToleranceFor(out)
	if f == nil || f.Body == nil || !out.IsFloat() {
		return tol
	}
	tf32 := false
	f.Body.Walk(func(in *ir.Instr) {
		if in.Op == ir.OpMMA && len(in.Args) > 0 && in.Args[0].Type != nil {
			if d := in.Args[0].Type.Elem(); d == ir.F32 || d == ir.TF32 {
				tf32 = true
			}
		}
	})
	if tf32 {
		t := ToleranceFor(ir.TF32)
		tol.Rel = math.Max(tol.Rel, t.Rel)
		tol.Abs = math.Max(tol.Abs, t.Abs)
	}
	return tol
}

// Report is the outcome of comparing a result tensor (got) with a reference
// (want), element by element over the logical shape.
//
// Elements where want is NaN are skipped (Skipped): that is how the sampled
// check marks elements the reference did not write. Elements where got is
// NaN and want is not are failures (NaN): output buffers are poisoned with
// NaN before a launch, so an element the kernel failed to write shows there.
type Report struct {
	Name  string // what was compared, e.g. the parameter name
	DType ir.DType
	Tol   Tolerance

	Compared int // elements compared
	Skipped  int // elements not compared (want is NaN, or not written by the sampled blocks)
	NaN      int // compared elements where got is NaN: unwritten, or a NaN the reference does not have
	Bad      int // compared elements outside the tolerance, the NaN ones included

	MaxAbs  float64 // max |got - want| over compared elements that are not NaN (+Inf if infinities differ)
	MaxWant float64 // max |want| over compared elements: the scale of MaxRel
	// MaxRel is MaxAbs / MaxWant: the error relative to the largest reference
	// value, not to each element's own (0 when MaxAbs is 0, +Inf when only
	// MaxWant is).
	MaxRel float64

	// Worst is the index of the worst element: the first NaN if there is
	// one, else the one with the largest error; nil if all match exactly.
	Worst               []int
	WorstGot, WorstWant float64

	// Problem is set when the tensors cannot be compared at all (shapes or
	// dtypes differ, or nothing was compared).
	Problem string
	Pass    bool
}

func (r *Report) String() string {
	var b strings.Builder
	status := "PASS"
	if !r.Pass {
		status = "FAIL"
	}
	name := r.Name
	if name == "" {
		name = "output"
	}
	fmt.Fprintf(&b, "%s %s %s: ", status, name, r.DType)
	if r.Problem != "" {
		b.WriteString(r.Problem)
		return b.String()
	}
	fmt.Fprintf(&b, "max abs err %.3g, max rel err %.3g (of max|want| %.3g; tol %s), %d elements compared",
		r.MaxAbs, r.MaxRel, r.MaxWant, r.Tol, r.Compared)
	if r.Skipped > 0 {
		fmt.Fprintf(&b, ", %d not checked", r.Skipped)
	}
	if r.NaN > 0 {
		fmt.Fprintf(&b, ", %d NaN (unwritten?)", r.NaN)
	}
	if r.Bad > 0 {
		fmt.Fprintf(&b, ", %d out of tolerance", r.Bad)
	}
	if r.Worst != nil && !r.Pass {
		fmt.Fprintf(&b, "; worst at %v: got %g, want %g", r.Worst, r.WorstGot, r.WorstWant)
	}
	return b.String()
}

// Compare compares got with want element by element (see Report). A zero
// tol means ToleranceFor(want.DType). Both tensors may be any strided views;
// their shapes and dtypes must be equal.
func Compare(got, want *Tensor, tol Tolerance) *Report {
	return compare(got, want, tol, nil)
}

// compare is Compare where written, if not nil, says which elements (by
// logical row-major position) the reference wrote; the others are skipped.
// Without it, elements where want is NaN are skipped.
func compare(got, want *Tensor, tol Tolerance, written []bool) *Report {
	if tol == (Tolerance{}) {
		tol = ToleranceFor(want.DType)
	}
	r := &Report{DType: want.DType, Tol: tol}
	if got.DType != want.DType {
		r.Problem = fmt.Sprintf("dtype %s, reference %s", got.DType, want.DType)
		return r
	}
	if !slices.Equal(got.Shape, want.Shape) {
		r.Problem = fmt.Sprintf("shape %v, reference %v", got.Shape, want.Shape)
		return r
	}
	if err := got.checkBounds(); err != nil {
		r.Problem = err.Error()
		return r
	}
	if err := want.checkBounds(); err != nil {
		r.Problem = "reference: " + err.Error()
		return r
	}
	isInt := !want.DType.IsFloat()
	value := func(t *Tensor, e int) float64 { return t.getFlat(e) }
	skip := func(i int, w float64) bool {
		if written != nil {
			return !written[i]
		}
		return w != w
	}

	// Pass 1: the scale, max |want| over compared elements.
	walk2(got, want, nil, func(i, eg, ew int) {
		w := value(want, ew)
		if skip(i, w) {
			return
		}
		if a := math.Abs(w); a > r.MaxWant && !math.IsInf(a, 0) {
			r.MaxWant = a
		}
	})
	limit := tol.Rel*r.MaxWant + tol.Abs

	// Pass 2: errors.
	worstErr := -1.0
	walk2(got, want, nil, func(i, eg, ew int) {
		var g, w, err float64
		if isInt {
			gi, wi := got.getFlatInt(eg), want.getFlatInt(ew)
			if written != nil && !written[i] {
				r.Skipped++
				return
			}
			g, w = float64(gi), float64(wi)
			if gi != wi {
				err = math.Abs(g - w)
				if err == 0 { // beyond float64's precision
					err = 1
				}
			}
		} else {
			g, w = value(got, eg), value(want, ew)
			if skip(i, w) {
				r.Skipped++
				return
			}
			switch {
			case g != g:
				err = math.NaN()
			case g == w: // also equal infinities
			default:
				err = math.Abs(g - w) // +Inf when one side is infinite
			}
		}
		r.Compared++
		if err != err {
			r.NaN++
			r.Bad++
			if r.NaN == 1 {
				r.Worst, r.WorstGot, r.WorstWant = logicalIndex(want.Shape, i), g, w
			}
			return
		}
		if err > r.MaxAbs {
			r.MaxAbs = err
		}
		if err > limit {
			r.Bad++
		}
		if r.NaN == 0 && err > 0 && err > worstErr {
			worstErr = err
			r.Worst, r.WorstGot, r.WorstWant = logicalIndex(want.Shape, i), g, w
		}
	})
	switch {
	case r.MaxAbs == 0:
		r.MaxRel = 0
	case r.MaxWant == 0:
		r.MaxRel = math.Inf(1)
	default:
		r.MaxRel = r.MaxAbs / r.MaxWant
	}
	if r.Compared == 0 && want.NumElements() > 0 {
		r.Problem = fmt.Sprintf("no element compared: the reference wrote none of the %d", want.NumElements())
		return r
	}
	r.Pass = r.Bad == 0
	return r
}

// walk2 calls fn for every logical element of a and b (equal shapes), in
// row-major order, with the element's position i and its indices into a's
// and b's Data. idx, if not nil, receives the logical index.
func walk2(a, b *Tensor, idx []int, fn func(i, ea, eb int)) {
	n := a.NumElements()
	if n == 0 {
		return
	}
	r := len(a.Shape)
	if idx == nil {
		idx = make([]int, r)
	}
	ea, eb := a.Offset, b.Offset
	for i := 0; ; i++ {
		fn(i, ea, eb)
		ax := r - 1
		for ; ax >= 0; ax-- {
			idx[ax]++
			ea += a.Strides[ax]
			eb += b.Strides[ax]
			if idx[ax] < a.Shape[ax] {
				break
			}
			ea -= idx[ax] * a.Strides[ax]
			eb -= idx[ax] * b.Strides[ax]
			idx[ax] = 0
		}
		if ax < 0 {
			return
		}
	}
}

// logicalIndex turns a row-major position into an index of shape.
func logicalIndex(shape []int, i int) []int {
	idx := make([]int, len(shape))
	for ax := len(shape) - 1; ax >= 0; ax-- {
		if shape[ax] > 0 {
			idx[ax] = i % shape[ax]
			i /= shape[ax]
		}
	}
	return idx
}

// StoredParams returns the indices of the array parameters that f stores
// into (its outputs), in parameter order.
func StoredParams(f *ir.Func) []int { return arrayParamsUsedBy(f, ir.OpStore) }

// arrayParamsUsedBy returns the indices of the array parameters that are
// the array operand (the first) of an op instruction.
func arrayParamsUsedBy(f *ir.Func, op ir.Op) []int {
	used := map[*ir.Value]bool{}
	if f.Body != nil {
		f.Body.Walk(func(in *ir.Instr) {
			if in.Op == op && len(in.Args) > 0 {
				used[in.Args[0]] = true
			}
		})
	}
	var out []int
	for i, p := range f.Params {
		if _, ok := p.Type.(*ir.Array); ok && p.Value != nil && used[p.Value] {
			out = append(out, i)
		}
	}
	return out
}

// PoisonOutputs fills every float array that f stores into with NaN, so
// that an element a launch fails to write shows up in Compare. Arrays that
// f also loads from keep their contents: an in-place kernel's output is its
// input too. Integer and bool outputs are left alone (they have no NaN),
// and so are nil entries of args (a caller's way to keep an array).
func PoisonOutputs(f *ir.Func, args []Arg) {
	loaded := map[int]bool{}
	for _, i := range arrayParamsUsedBy(f, ir.OpLoad) {
		loaded[i] = true
	}
	for _, i := range StoredParams(f) {
		if i < len(args) && !loaded[i] {
			if t, ok := args[i].(*Tensor); ok && t != nil && t.DType.IsFloat() {
				t.Fill(math.NaN())
			}
		}
	}
}

// CloneArgs returns a copy of args in which every tensor is a contiguous
// copy (Clone) and scalars are shared: keep one before a device launch,
// which writes its results into the argument tensors, to run the reference
// on the same inputs afterwards.
func CloneArgs(args []Arg) []Arg {
	out := make([]Arg, len(args))
	for i, a := range args {
		if t, ok := a.(*Tensor); ok && t != nil {
			out[i] = t.Clone()
		} else {
			out[i] = a
		}
	}
	return out
}

// SampleBlocks picks n distinct blocks of grid at random (seeded): always
// the first and the last block in linear order (x fastest), which hold the
// partial tiles of most kernels, then uniformly random others, sorted in
// linear order. It returns nil, meaning every block, when n >= the number
// of blocks or n <= 0.
func SampleBlocks(grid [3]int, n int, seed uint64) [][3]int {
	for i := range grid {
		if grid[i] <= 0 {
			grid[i] = 1
		}
	}
	total := grid[0] * grid[1] * grid[2]
	if n <= 0 || n >= total {
		return nil
	}
	rng := rand.New(rand.NewPCG(seed, 0x7469_6c65_63))
	pick := map[int]bool{0: true, total - 1: true}
	for len(pick) < n {
		pick[rng.IntN(total)] = true
	}
	ids := make([]int, 0, n)
	for id := range pick {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	out := make([][3]int, len(ids))
	for i, id := range ids {
		out[i] = [3]int{id % grid[0], id / grid[0] % grid[1], id / (grid[0] * grid[1])}
	}
	return out
}

// CheckOptions control CheckAgainstInterpreter.
type CheckOptions struct {
	// Grid is the grid override the device launch used (zero: the kernel's).
	Grid [3]int
	// FullLimit: when the outputs (the arrays the kernel stores into) have
	// at most this many elements in all, the interpreter runs every block;
	// otherwise a sample. 0 means 1024*1024.
	FullLimit int
	// SampleBlocks is the number of blocks the interpreter runs for large
	// outputs; fewer than 8 (0 included) means 8.
	SampleBlocks int
	// Seed picks the sample.
	Seed uint64
	// Tol overrides the tolerance; zero means KernelTolerance(f, dtype) for
	// each output.
	Tol Tolerance
	// Workers is the interpreter's goroutine count (0: GOMAXPROCS).
	Workers int
}

// CheckResult is the outcome of CheckAgainstInterpreter.
type CheckResult struct {
	Grid        [3]int
	TotalBlocks int
	// Blocks are the blocks the interpreter ran; nil when it ran all of them.
	Blocks [][3]int
	// Outputs has one report per array the kernel stores into, in parameter
	// order, named after the parameter.
	Outputs []*Report
	// Interp is the interpreter's run time.
	Interp time.Duration
	Pass   bool
}

func (c *CheckResult) String() string {
	var b strings.Builder
	if c.Blocks == nil {
		fmt.Fprintf(&b, "checked against the interpreter on all %d blocks (%s)", c.TotalBlocks, c.Interp.Round(time.Millisecond))
	} else {
		fmt.Fprintf(&b, "checked against the interpreter on %d sampled blocks of %d (%s)", len(c.Blocks), c.TotalBlocks,
			c.Interp.Round(time.Millisecond))
	}
	for _, r := range c.Outputs {
		b.WriteString("\n  ")
		b.WriteString(r.String())
	}
	return b.String()
}

// CheckAgainstInterpreter checks a device launch of k against the
// interpreter. inputs are the arguments as they were before the device
// launch (outputs poisoned; see PoisonOutputs and CloneArgs: the device
// backend writes its results into the tensors it was given), gpu the same
// argument list after it (only the arrays k stores into are read from it).
// inputs are not modified: the interpreter runs on copies.
//
// When the outputs have at most opts.FullLimit elements the interpreter
// runs every block and every element is compared. Otherwise it runs a random
// sample of blocks (SampleBlocks) on outputs poisoned with NaN, and only the
// elements it wrote are compared: for float outputs those that are no
// longer NaN, for integer and bool outputs those that come out the same
// from two runs with different poison values. An output that the kernel
// also loads from cannot be poisoned, so such a kernel is always checked on
// every block.
//
// The error is for launches that cannot be checked (bad arguments, an
// interpreter failure); a failed comparison is a result with Pass false.
func CheckAgainstInterpreter(k *Kernel, inputs, gpu []Arg, opts CheckOptions) (*CheckResult, error) {
	if len(gpu) != len(inputs) {
		return nil, fmt.Errorf("check: %d device arguments for %d inputs", len(gpu), len(inputs))
	}
	b, err := k.Bind(inputs, opts.Grid)
	if err != nil {
		return nil, err
	}
	k = b.Kernel // the specialization of a generic kernel
	f := k.Func
	outs := StoredParams(f)
	res := &CheckResult{Grid: b.Grid, TotalBlocks: b.NumBlocks(), Pass: true}
	if len(outs) == 0 {
		return res, nil
	}
	for _, i := range outs {
		if _, ok := gpu[i].(*Tensor); !ok || gpu[i].(*Tensor) == nil {
			return nil, fmt.Errorf("check: device argument %s is %T, not a tensor", f.Params[i].Name, gpu[i])
		}
	}

	full := opts.FullLimit
	if full <= 0 {
		full = 1024 * 1024
	}
	nout := 0
	for _, i := range outs {
		nout += b.Tensors[i].NumElements()
	}
	inout := false
	loaded := arrayParamsUsedBy(f, ir.OpLoad)
	for _, i := range outs {
		for _, j := range loaded {
			if i == j {
				inout = true
			}
		}
	}
	if nout > full && !inout {
		n := max(opts.SampleBlocks, 8)
		res.Blocks = SampleBlocks(b.Grid, n, opts.Seed)
	}
	lopts := LaunchOptions{Grid: opts.Grid, Blocks: res.Blocks, Workers: opts.Workers}
	start := time.Now()

	// run executes the interpreter on copies of inputs, with the outputs
	// filled with poison when sampling.
	run := func(poison float64) ([]Arg, error) {
		args := CloneArgs(inputs)
		if res.Blocks != nil {
			for _, i := range outs {
				args[i].(*Tensor).Fill(poison)
			}
		}
		if _, err := (CPU{}).Launch(k, args, lopts); err != nil {
			return nil, fmt.Errorf("interpreter: %w", err)
		}
		return args, nil
	}
	ref, err := run(math.NaN())
	if err != nil {
		return nil, err
	}
	// written[i] marks, per non-float output, the elements the sampled
	// blocks wrote: equal after runs with poison 0 and poison 1 (0 and 1
	// are also bool's only values).
	written := map[int][]bool{}
	if res.Blocks != nil {
		var ints []int
		for _, i := range outs {
			if !f.Params[i].Type.(*ir.Array).DType.IsFloat() {
				ints = append(ints, i)
			}
		}
		if len(ints) > 0 {
			r0, err := run(0)
			if err != nil {
				return nil, err
			}
			r1, err := run(1)
			if err != nil {
				return nil, err
			}
			for _, i := range ints {
				t0, t1 := r0[i].(*Tensor), r1[i].(*Tensor)
				w := make([]bool, t0.NumElements())
				walk2(t0, t1, nil, func(p, e0, e1 int) { w[p] = t0.getFlatInt(e0) == t1.getFlatInt(e1) })
				written[i] = w
				ref[i] = t0
			}
		}
	}
	res.Interp = time.Since(start)

	for _, i := range outs {
		want := ref[i].(*Tensor)
		tol := opts.Tol
		if tol == (Tolerance{}) {
			tol = KernelTolerance(f, want.DType)
		}
		r := compare(gpu[i].(*Tensor), want, tol, written[i])
		r.Name = f.Params[i].Name
		res.Outputs = append(res.Outputs, r)
		if !r.Pass {
			res.Pass = false
		}
	}
	return res, nil
}
