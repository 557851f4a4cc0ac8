package check

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
	"github.com/tilec/tilec/runtime"
	"github.com/tilec/tilec/runtime/interp"
)

// Tolerance bounds each compared float element: it passes when
//
//	|got - want| <= ULPs*ulp(out, max(|got|, |want|)) + Rel*scale + Abs
//
// where ulp is the spacing of the output dtype's values there (the output's
// own rounding: two correct results may round to neighbours) and scale is
// the element's magnitude when the check knows it (the computation redone
// on the inputs' absolute values, see magnitude.go: sum_k |a_ik||b_kj| for
// an mma), else the largest |want| of the tensor. Integers and bools must
// match exactly.
type Tolerance struct {
	Rel  float64
	Abs  float64
	ULPs float64
}

func (t Tolerance) String() string {
	var parts []string
	if t.ULPs != 0 {
		parts = append(parts, fmt.Sprintf("%g ulp", t.ULPs))
	}
	if t.Rel != 0 || t.Abs == 0 && t.ULPs == 0 {
		parts = append(parts, fmt.Sprintf("%.2g x scale", t.Rel))
	}
	if t.Abs != 0 {
		parts = append(parts, fmt.Sprintf("%.0e", t.Abs))
	}
	return strings.Join(parts, " + ")
}

// ToleranceFor is the tolerance for an output of dtype d when the scale is
// the output's largest |want|: f32 1e-5, tf32 1e-3, f16 and bf16 1e-2, f64
// 1e-9, fp8 e4m3 2^-3 and e5m2 2^-2; integers and bool must match exactly.
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
	case ir.F8E4M3, ir.F8E5M2:
		return Tolerance{Rel: 2 * unitRoundoff(d)}
	}
	return Tolerance{}
}

// KernelTolerance is the tolerance for an output of dtype out of kernel f
// when the scale is the output's largest |want| (kernels whose error the
// magnitude run cannot bound: exp, division, ...): ToleranceFor(out),
// loosened to tf32's when f has an mma whose inputs are f32 or tf32, and
// to two units of a 16-bit mma input's dtype: the approximate values a
// kernel computes before such an mma (attention's exp2 probabilities) are
// rounded to that dtype, where one GPU-side ulp of f32 may become one of
// f16 (decode attention's f32 partial outputs were 8e-5 of their largest
// value off on the H100).
func KernelTolerance(f *ir.Func, out ir.DType) Tolerance {
	tol := ToleranceFor(out)
	if f == nil || f.Body == nil || !out.IsFloat() {
		return tol
	}
	tf32 := false
	f.Body.Walk(func(in *ir.Instr) {
		if in.Op == ir.OpMMA && len(in.Args) > 0 && in.Args[0].Type != nil {
			switch d := in.Args[0].Type.Elem(); d {
			case ir.F32, ir.TF32:
				tf32 = true
			case ir.F16, ir.BF16:
				tol.Rel = math.Max(tol.Rel, 2*unitRoundoff(d))
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

// Per-element bounds where the check knows each element's magnitude: the
// output's rounding (outputULPs) plus boundULPs units of the kernel's
// arithmetic (kernelRoundoff) times the magnitude. Sixteen units cover a
// fused multiply-add against a separate multiply and add, another order of
// a tile's partial sums and the tensor cores' accumulation, with room; an
// error past them is a wrong value, not rounding.
const (
	outputULPs = 2
	boundULPs  = 16
)

// tensorCoreSteps bounds how many tensor-core instructions accumulate into
// one element of f's outputs: the deepest sum any of its mmas can run (at
// most the largest extent of a float input array, the K of a GEMM) over
// the k of one instruction (16 for 16-bit inputs, 8 for tf32, 32 for
// float8). Each instruction rounds its sum into the f32 accumulator once,
// and the tensor cores round toward zero there, so the errors add up
// instead of cancelling: on the H100 a split-K partial sum of 8192
// products came out 17 units (of the magnitude) off the interpreter's,
// past the 16 the bound had, on correct code. Each step earns one unit.
// Zero for kernels without a tensor-core mma (f32 inputs run exact fma
// chains on the CUDA cores); integer mmas (int8, uint8) add nothing: their
// int32 sums are exact and wrap alike on both sides, and integer outputs
// compare exactly (ToleranceFor). The largest extent is an upper bound of
// K (an M or N larger than K loosens the bound by their ratio), and each
// step is a unit of f32, the accumulator's, not of the kernel's narrowest
// dtype.
//
// A float8 mma with use_fast_acc (ir's fast_acc) that the device summed
// in the tensor cores' reduced-precision accumulator (fast: float8 wgmma)
// earns fastAccUnits a step instead.
func tensorCoreSteps(f *ir.Func, args []runtime.Arg, fast bool) int {
	type mma struct{ k, units int }
	var mmas []mma
	f.Body.Walk(func(in *ir.Instr) {
		if in.Op != ir.OpMMA || !isFloatValue(in.Args[0]) {
			return
		}
		if d := in.Args[0].Type.Elem(); d != ir.F32 { // f32: exact fma chains, no tensor cores
			u := 1
			if fast && in.Attrs.Bool(ir.AttrKeyFastAcc) {
				u = fastAccUnits
			}
			mmas = append(mmas, mma{ir.MMAKStep(d), u})
		}
	})
	if len(mmas) == 0 {
		return 0
	}
	depth := 0
	for _, a := range args {
		for _, t := range runtime.ArgTensors(a) {
			if t.DType.IsFloat() {
				for _, n := range t.Shape {
					depth = max(depth, n)
				}
			}
		}
	}
	steps := 0
	for _, m := range mmas {
		steps = max(steps, (depth+m.k-1)/m.k*m.units)
	}
	return steps
}

// fastAccUnits is what one step of a use_fast_acc float8 mma earns, in
// units of f32 (2^-24 of the magnitude): 2^-16. Hopper's float8 wgmma keeps
// about 14 bits of its running sum (DeepSeek-V3's report); on the H100 a
// 1024-deep sum of e4m3 products (32 steps) came out up to 2^-14 of its
// magnitude off the exact float32 sum, which 32 steps of 2^-16 hold 8
// times over, and truncation errors that grow with the steps stay as far
// inside. A wrong operand (a layout, a swizzle, a tile index) is off by
// the magnitude itself. They are granted only where the device ran float8
// wgmma (CheckOptions.Float8FastSums); known looseness: they grow with
// the largest extent, so for a deep GEMM a small part of K lost (one
// k-tile in 64) can pass; emulating the reduced accumulator in the
// interpreter would close that.
const fastAccUnits = 1 << 8

// Report is the outcome of comparing a result tensor (got) with a reference
// (want), element by element over the logical shape.
//
// Output buffers are poisoned before a launch (Poison: a NaN with a payload
// no arithmetic makes, or 0xA5 bytes for integers), so an element that one
// side wrote and the other did not shows as poison on one side only
// (Unwritten, Extra). NaN and infinities must sit at the same positions on
// both sides. In a sampled check, elements the reference's sampled blocks
// did not write (poison in want) are not compared (Skipped).
type Report struct {
	Name  string // what was compared, e.g. the parameter name
	DType ir.DType
	Tol   Tolerance
	// Scale says what the Rel term of Tol multiplies: each element's own
	// magnitude, or the largest |want| (and why).
	Scale string
	// Atomic notes an output that atomics update: how the order of their
	// updates is allowed for.
	Atomic string

	Compared  int // elements compared
	Skipped   int // elements not compared (not written by the sampled blocks)
	Unwritten int // elements the reference wrote and the device left poisoned
	Extra     int // elements the device wrote where the reference wrote nothing
	NaN       int // elements where one side is NaN and the other is not
	Inf       int // elements where one side is infinite and the other differs
	Neither   int // elements neither side wrote (poison on both)
	Bad       int // compared elements that fail, all of the above included

	MaxAbs  float64 // max |got - want| over compared finite elements
	MaxWant float64 // max |want| over compared finite elements
	// MaxRel is MaxAbs / MaxWant: the error relative to the largest reference
	// value, not to each element's own (0 when MaxAbs is 0, +Inf when only
	// MaxWant is).
	MaxRel float64
	// Ratio is the largest error over its element's bound (below 1 passes;
	// +Inf for an element that must match exactly and does not).
	Ratio float64

	// Worst is the index of the worst element: the first failing one of a
	// kind that cannot be measured (poison, NaN, infinity) if any, else the
	// one with the largest Ratio; nil if all match exactly.
	Worst               []int
	WorstGot, WorstWant float64
	WorstBound          float64
	worstKind           string

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
	fmt.Fprintf(&b, "%d elements compared", r.Compared)
	if r.DType.IsFloat() {
		fmt.Fprintf(&b, ", worst error %.2g of its bound; max abs err %.3g (max|want| %.3g); bound %s, scale %s",
			r.Ratio, r.MaxAbs, r.MaxWant, r.Tol, r.Scale)
	} else {
		b.WriteString(", exact")
	}
	if r.Atomic != "" {
		fmt.Fprintf(&b, "; %s", r.Atomic)
	}
	if r.Skipped > 0 {
		fmt.Fprintf(&b, "; %d not checked (not written by the sampled blocks)", r.Skipped)
	}
	if r.Neither > 0 {
		fmt.Fprintf(&b, "; %d written by neither", r.Neither)
	}
	for _, c := range []struct {
		n    int
		what string
	}{{r.Unwritten, "left unwritten by the device"}, {r.Extra, "written by the device only"},
		{r.NaN, "NaN on one side only"}, {r.Inf, "infinite on one side only"}} {
		if c.n > 0 {
			fmt.Fprintf(&b, "; %d %s", c.n, c.what)
		}
	}
	if r.Bad > 0 {
		fmt.Fprintf(&b, "; %d fail", r.Bad)
	}
	if r.Worst != nil && !r.Pass {
		fmt.Fprintf(&b, "; worst at %v: got %s, want %s", r.Worst, r.fmtValue(r.WorstGot, r.worstKind == "unwritten"),
			r.fmtValue(r.WorstWant, r.worstKind == "extra"))
		if r.worstKind == "" && r.DType.IsFloat() {
			fmt.Fprintf(&b, " (bound %.3g)", r.WorstBound)
		}
	}
	return b.String()
}

func (r *Report) fmtValue(x float64, poison bool) string {
	if poison {
		return "poison (unwritten)"
	}
	return fmt.Sprintf("%g", x)
}

// Compare compares got with want element by element (see Report), every
// element, with the largest |want| as the scale. A zero tol means
// ToleranceFor(want.DType). Both tensors may be any strided views; their
// shapes and dtypes must be equal.
func Compare(got, want *runtime.Tensor, tol Tolerance) *Report {
	return compare(got, want, tol, compareOptions{})
}

// compareOptions are compare's inputs beyond the two tensors.
type compareOptions struct {
	// sampled: elements that are poison in want were not written by the
	// sampled blocks and are skipped.
	sampled bool
	// scale, when not nil, is each element's magnitude (same shape as want);
	// otherwise the largest |want| is every element's scale.
	scale *runtime.Tensor
}

// compare is Compare with options.
func compare(got, want *runtime.Tensor, tol Tolerance, o compareOptions) *Report {
	if tol == (Tolerance{}) {
		tol = ToleranceFor(want.DType)
	}
	r := &Report{DType: want.DType, Tol: tol, Scale: "max|want|"}
	if got.DType != want.DType {
		r.Problem = fmt.Sprintf("dtype %s, reference %s", got.DType, want.DType)
		return r
	}
	if !slices.Equal(got.Shape, want.Shape) {
		r.Problem = fmt.Sprintf("shape %v, reference %v", got.Shape, want.Shape)
		return r
	}
	if err := got.CheckBounds(); err != nil {
		r.Problem = err.Error()
		return r
	}
	if err := want.CheckBounds(); err != nil {
		r.Problem = "reference: " + err.Error()
		return r
	}
	if o.scale != nil {
		r.Scale = "per element"
		if !slices.Equal(o.scale.Shape, want.Shape) {
			r.Problem = fmt.Sprintf("scale shape %v, reference %v", o.scale.Shape, want.Shape)
			return r
		}
	}
	isInt := !want.DType.IsFloat()
	var scaleAt []int // Data index of each logical element in o.scale
	if o.scale != nil {
		scaleAt = make([]int, 0, want.NumElements())
		o.scale.ForEachElem(func(e int) { scaleAt = append(scaleAt, e) })
	}

	// Pass 1: the largest |want| over compared finite elements.
	walk2(got, want, nil, func(i, eg, ew int) {
		if want.IsPoisonAt(ew) || isInt {
			return
		}
		if a := math.Abs(want.ElemAt(ew)); a > r.MaxWant && !math.IsInf(a, 0) {
			r.MaxWant = a
		}
	})

	// Pass 2: each element against its bound.
	// fail counts a failing element that cannot be measured against a
	// bound (poison, NaN, infinity, integers); the first one is the worst.
	fail := func(i int, kind string, g, w float64) {
		r.Bad++
		r.Ratio = math.Inf(1)
		if r.worstKind == "" {
			r.Worst, r.WorstGot, r.WorstWant, r.worstKind = runtime.Unravel(i, want.Shape), g, w, kind
		}
	}
	walk2(got, want, nil, func(i, eg, ew int) {
		gp, wp := got.IsPoisonAt(eg), want.IsPoisonAt(ew)
		if wp && o.sampled {
			r.Skipped++
			return
		}
		r.Compared++
		switch {
		case gp && wp:
			r.Neither++
			return
		case gp:
			r.Unwritten++
			fail(i, "unwritten", math.NaN(), want.ElemAt(ew))
			return
		case wp:
			r.Extra++
			fail(i, "extra", got.ElemAt(eg), math.NaN())
			return
		}
		if isInt {
			gi, wi := got.ElemIntAt(eg), want.ElemIntAt(ew)
			if gi != wi {
				err := math.Abs(float64(gi) - float64(wi))
				if err == 0 { // beyond float64's precision
					err = 1
				}
				r.MaxAbs = max(r.MaxAbs, err)
				fail(i, "exact", float64(gi), float64(wi))
			}
			return
		}
		g, w := got.ElemAt(eg), want.ElemAt(ew)
		switch {
		case g != g || w != w:
			if g != g && w != w {
				return
			}
			r.NaN++
			fail(i, "nan", g, w)
			return
		case math.IsInf(g, 0) || math.IsInf(w, 0):
			if g != w {
				r.Inf++
				fail(i, "inf", g, w)
			}
			return
		}
		err := math.Abs(g - w)
		r.MaxAbs = max(r.MaxAbs, err)
		if err == 0 {
			return
		}
		scale := r.MaxWant
		if scaleAt != nil {
			scale = math.Abs(o.scale.ElemAt(scaleAt[i]))
			if scale != scale { // the magnitude run wrote nothing here: no bound
				scale = math.Inf(1)
			}
		}
		bound := tol.ULPs*ulpOf(want.DType, math.Max(math.Abs(g), math.Abs(w))) + tol.Rel*scale + tol.Abs
		ratio := math.Inf(1)
		if bound > 0 {
			ratio = err / bound
		}
		if ratio > 1 {
			r.Bad++
		}
		if ratio > r.Ratio {
			r.Ratio = ratio
			if r.worstKind == "" {
				r.Worst, r.WorstGot, r.WorstWant, r.WorstBound = runtime.Unravel(i, want.Shape), g, w, bound
			}
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
func walk2(a, b *runtime.Tensor, idx []int, fn func(i, ea, eb int)) {
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

// Unpoison copies into the elements of t that still hold the poison
// pattern the elements of orig (same shape), undoing Poison where a launch
// wrote nothing, and returns how many it copied.
func Unpoison(t, orig *runtime.Tensor) int {
	n := 0
	bs := t.DType.Bytes()
	walk2(t, orig, nil, func(_, et, eo int) {
		if t.IsPoisonAt(et) {
			copy(t.Data[et*bs:(et+1)*bs], orig.Data[eo*bs:(eo+1)*bs])
			n++
		}
	})
	return n
}

// PoisonOutputs fills every array that f only writes (ir.ParamAccess:
// stored or scattered into, never loaded, gathered or updated atomically)
// with the poison pattern, so that an element a launch fails to write
// shows up in the check (Report.Unwritten), in a summary and in a file
// written from it. Arrays f also reads keep their contents: an in-place or
// atomic kernel's output is its input too. nil entries of args (a caller's
// way to keep an array) are left alone.
func PoisonOutputs(f *ir.Func, args []runtime.Arg) {
	for i, a := range ir.ParamAccess(f) {
		if a.WriteOnly() && i < len(args) {
			for _, t := range runtime.ArgTensors(args[i]) {
				if t != nil {
					t.Poison()
				}
			}
		}
	}
}

// PoisonFloatOutputs is PoisonOutputs for a launch inside a host program,
// whose later code sees what the kernel left in its outputs: it poisons the
// float arrays f only writes (except fp8 e4m3fn and e8m0fnu, whose only
// NaN a kernel may write; and arrays that share storage with another argument) and
// returns a function that puts the old contents back where the launch
// wrote nothing. Float poison is a NaN no arithmetic makes, so that undoing
// it is exact.
func PoisonFloatOutputs(f *ir.Func, args []runtime.Arg) (restore func()) {
	var ts, origs []*runtime.Tensor
	for i, a := range ir.ParamAccess(f) {
		if !a.WriteOnly() || i >= len(args) {
			continue
		}
		for _, t := range runtime.ArgTensors(args[i]) {
			if t == nil || !t.DType.IsFloat() || t.DType == ir.F8E4M3 || t.DType == ir.F8E8M0 || len(t.Data) == 0 || sharesStorage(t, args) {
				continue
			}
			ts, origs = append(ts, t), append(origs, t.Clone())
			t.Poison()
		}
	}
	return func() {
		for i, t := range ts {
			Unpoison(t, origs[i])
		}
	}
}

// sharesStorage reports whether t's storage is also that of another
// tensor of args (a list's other items included).
func sharesStorage(t *runtime.Tensor, args []runtime.Arg) bool {
	for _, a := range args {
		for _, u := range runtime.ArgTensors(a) {
			if u != t && u != nil && len(u.Data) > 0 && &u.Data[0] == &t.Data[0] {
				return true
			}
		}
	}
	return false
}

// CloneArgs returns a copy of args in which every tensor is a contiguous
// copy (Clone) and scalars are shared: keep one before a device launch,
// which writes its results into the argument tensors, to run the reference
// on the same inputs afterwards.
func CloneArgs(args []runtime.Arg) []runtime.Arg {
	out := make([]runtime.Arg, len(args))
	for i, a := range args {
		switch x := a.(type) {
		case *runtime.Tensor:
			if x != nil {
				out[i] = x.Clone()
			} else {
				out[i] = a
			}
		case []*runtime.Tensor:
			l := make([]*runtime.Tensor, len(x))
			for j, t := range x {
				if t != nil {
					l[j] = t.Clone()
				}
			}
			out[i] = l
		default:
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
	// FullLimit: when the outputs (the arrays the kernel may write) have
	// at most this many elements in all, the interpreter runs every block;
	// otherwise a sample. 0 means 1024*1024.
	FullLimit int
	// SampleBlocks is the number of blocks the interpreter runs for large
	// outputs; fewer than 8 (0 included) means 8.
	SampleBlocks int
	// Seed picks the sample.
	Seed uint64
	// Tol overrides the tolerance of every float output, with the largest
	// |want| as the scale; zero means per-element bounds (see Tolerance).
	Tol Tolerance
	// Workers is the interpreter's goroutine count (0: GOMAXPROCS).
	Workers int
	// Float8FastSums says the device summed float8 mma products in the
	// tensor cores' reduced-precision accumulator (runtime.LaunchResult's,
	// ptxgen.Kernel.Float8FastSums: float8 wgmma under use_fast_acc): only
	// then do those mmas' steps earn fastAccUnits. Elsewhere (mma.sync) a
	// float8 mma sums in float32, use_fast_acc or not.
	Float8FastSums bool
}

// CheckResult is the outcome of CheckAgainstInterpreter.
type CheckResult struct {
	Grid        [3]int
	TotalBlocks int
	// Blocks are the blocks the interpreter ran; nil when it ran all of them.
	Blocks [][3]int
	// Outputs has one report per array the kernel may write, in parameter
	// order, named after the parameter.
	Outputs []*Report
	// Interp is the interpreter's run time (the reference and the magnitude
	// run that bounds its elements).
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
	if len(c.Outputs) == 0 {
		b.WriteString(": the kernel writes no array")
	}
	for _, r := range c.Outputs {
		b.WriteString("\n  ")
		b.WriteString(r.String())
	}
	return b.String()
}

// CheckAgainstInterpreter checks a device launch of k against the
// interpreter. inputs are the arguments as they were before the device
// launch (outputs poisoned: see PoisonOutputs and CloneArgs; the device
// backend writes its results into the tensors it was given), gpu the same
// argument list after it (only the arrays k may write are read from it).
// inputs are not modified: the interpreter runs on copies.
//
// Every array k may write is compared (ir.ParamAccess: stores, scatters,
// atomics). When they have at most opts.FullLimit elements the interpreter
// runs every block and every element is compared; otherwise it runs a
// random sample of blocks (SampleBlocks) on outputs poisoned afresh, and
// the elements it wrote are compared. An output that the kernel also reads
// (in place, or updated atomically by all blocks) cannot be sampled, so such
// a kernel is always checked on every block.
//
// Each float element is bounded by its own magnitude where the kernel is
// polynomial in its float inputs (magnitudeKernel: the interpreter runs the
// kernel a second time on the inputs' absolute values), else by the
// output's largest value; an output updated by float atomics also allows
// any order of the blocks' updates (a unit of the output's precision times
// the magnitude per block). The error is for launches that cannot be
// checked (bad arguments, an interpreter failure); a failed comparison is
// a result with Pass false.
func CheckAgainstInterpreter(k *runtime.Kernel, inputs, gpu []runtime.Arg, opts CheckOptions) (*CheckResult, error) {
	if len(gpu) != len(inputs) {
		return nil, fmt.Errorf("check: %d device arguments for %d inputs", len(gpu), len(inputs))
	}
	b, err := k.Bind(inputs, opts.Grid)
	if err != nil {
		return nil, err
	}
	k = b.Kernel // the specialization of a generic kernel
	f := k.Func
	access := ir.ParamAccess(f)
	outs := ir.WrittenParams(f)
	res := &CheckResult{Grid: b.Grid, TotalBlocks: b.NumBlocks(), Pass: true}
	if len(outs) == 0 {
		return res, nil
	}
	for _, i := range outs {
		if len(runtime.ArgTensors(gpu[i])) != len(runtime.ArgTensors(inputs[i])) || len(runtime.ArgTensors(gpu[i])) == 0 {
			return nil, fmt.Errorf("check: device argument %s is %T, not a tensor or a list like its input", f.Params[i].Name, gpu[i])
		}
	}

	full := opts.FullLimit
	if full <= 0 {
		full = 1024 * 1024
	}
	nout, read := 0, false
	for _, i := range outs {
		for _, t := range runtime.ArgTensors(inputs[i]) {
			nout += t.NumElements()
		}
		read = read || access[i].Reads()
	}
	if nout > full && !read {
		n := max(opts.SampleBlocks, 8)
		res.Blocks = SampleBlocks(b.Grid, n, opts.Seed)
	}
	lopts := runtime.LaunchOptions{Grid: b.Grid, Blocks: res.Blocks, Workers: opts.Workers}
	start := time.Now()

	// run executes kernel g on args (copies), with the write-only outputs
	// poisoned afresh when sampling: what the sampled blocks did not write
	// then reads as poison and is skipped.
	run := func(g *runtime.Kernel, args []runtime.Arg) ([]runtime.Arg, error) {
		if res.Blocks != nil {
			for _, i := range outs {
				for _, t := range runtime.ArgTensors(args[i]) {
					t.Poison()
				}
			}
		}
		if _, err := (interp.CPU{}).Launch(g, args, lopts); err != nil {
			return nil, fmt.Errorf("interpreter: %w", err)
		}
		return args, nil
	}
	ref, err := run(k, CloneArgs(inputs))
	if err != nil {
		return nil, err
	}

	// The magnitude run, for float outputs when no tolerance is forced.
	var mag []runtime.Arg
	scaleNote := ""
	floatOut := false
	for _, i := range outs {
		floatOut = floatOut || f.Params[i].Type.Elem().IsFloat()
	}
	if floatOut && opts.Tol == (Tolerance{}) {
		g, why := magnitudeKernel(f)
		if g != nil {
			if mag, err = run(runtime.NewKernel(g), absArgs(inputs)); err != nil {
				mag, why = nil, err.Error()
			}
		}
		if mag == nil {
			scaleNote = "max|want| (" + why + ")"
		}
	}
	res.Interp = time.Since(start)

	u := kernelRoundoff(f)
	steps := tensorCoreSteps(f, inputs, opts.Float8FastSums)
	for _, i := range outs {
		wants := runtime.ArgTensors(ref[i])
		names := runtime.ArgTensorNames(f.Params[i].Name, ref[i])
		for j, want := range wants {
			tol := opts.Tol
			co := compareOptions{sampled: res.Blocks != nil}
			atomic := ""
			if tol == (Tolerance{}) && want.DType.IsFloat() {
				if mag != nil {
					co.scale = runtime.ArgTensors(mag[i])[j]
					// The steps' roundings are the f32 accumulator's, whatever
					// narrower dtype the kernel's other arithmetic runs in.
					tol = Tolerance{ULPs: outputULPs, Rel: boundULPs*u + float64(steps)*unitRoundoff(ir.F32)}
				} else {
					tol = KernelTolerance(f, want.DType)
					tol.ULPs = outputULPs
				}
				if access[i]&ir.GlobalAtomic != 0 {
					// Each block's atomic update rounds to the output's dtype; in
					// another order the partial sums differ by up to a unit of
					// it times the magnitude, once per update.
					tol.Rel += float64(res.TotalBlocks) * unitRoundoff(want.DType)
					atomic = fmt.Sprintf("atomic: any order of up to %d block updates (%d units of %s)", res.TotalBlocks,
						res.TotalBlocks, want.DType)
				}
			}
			r := compare(runtime.ArgTensors(gpu[i])[j], want, tol, co)
			r.Name = names[j]
			r.Atomic = atomic
			if co.scale != nil {
				r.Scale = "per element (the kernel on |inputs|)"
			} else if scaleNote != "" && r.Problem == "" && want.DType.IsFloat() {
				r.Scale = scaleNote
			}
			res.Outputs = append(res.Outputs, r)
			if !r.Pass {
				res.Pass = false
			}
		}
	}
	return res, nil
}
