package lower

// Pass variants.
// Requires: smem (loads feeding mma have layout smem and their stages).
// Guarantees: a kernel whose loops pipeline zero-padded shared-tile loads
// is split in two variants (LowerVariants): "fast", whose copies of those
// tiles are 16-byte cp.async only (valid for launches where every array of
// Variant.Aligned is 16-byte aligned with 16-byte rows: ptxgen's
// ArrayArg.Aligned16), and "general", valid for every launch, whose
// pipelined copies are element-wise. Compiled apart, each gets the
// register allocation of its own loop (docs/perf.md, v7). The return
// records which one a function is (attribute variant); other kernels are
// one function without it.

import (
	"slices"
	"sort"

	"github.com/tilec/tilec/ir"
)

// Kernel variants (ir.KernelFacts.Variant).
const (
	VariantFast    = "fast"
	VariantGeneral = "general"
)

// Variant is one lowered form of a kernel and the launches it is valid for.
type Variant struct {
	Func *ir.Func
	// Name is VariantFast, VariantGeneral or "" (the kernel's only form).
	Name string
	// Aligned are the indices into Func.Params of the arrays that must be
	// 16-byte aligned with 16-byte rows for a launch of this variant;
	// empty: every launch.
	Aligned []int
	// Path is the code path this form takes and why it is not the
	// target's fastest (explain.go), from the reasons the variants and
	// warpspec passes recorded on their way.
	Path    PathChoice
	reasons []*Reason
}

// fastArrays reports whether f gets a fast variant: it has pipelined
// shared-memory loads, all of them zero-padded (cp.async zero-fills).
// arrays are the parameter indices of the arrays of every zero-padded
// shared-memory load, which the fast variant copies with cp.async only.
func fastArrays(f *ir.Func) (arrays []int, ok bool) {
	index := map[*ir.Value]int{}
	for i, p := range f.Params {
		index[p.Value] = i
	}
	seen := map[int]bool{}
	piped, allZero, sliced := false, true, false
	f.Body.Walk(func(in *ir.Instr) {
		if in.Op != ir.OpLoad || !InSmem(in) {
			return
		}
		// A slice's base is an element of its array: the launch's check
		// of the array's alignment does not cover it, so its copies stay
		// on the general path, which checks alignment in the kernel.
		sliced = sliced || ir.Sliced(in.Args[0])
		if l := in.Block.Parent; in.Attrs.Int(ir.AttrKeyStages) > 1 && l != nil && l.Op == ir.OpFor {
			piped = true
			if !zeroPad(in) {
				allZero = false
			}
		}
		// An array of a list counts as its list: the launcher checks
		// every array of it (ptxgen.ArrayArg.Elems).
		if i, ok := index[ir.ArrayRoot(in.Args[0])]; ok && zeroPad(in) && !seen[i] {
			seen[i] = true
			arrays = append(arrays, i)
		}
	})
	if !piped || !allZero || sliced {
		return nil, false
	}
	sort.Ints(arrays)
	return arrays, true
}

// splitVariants is the variants pass: f itself when it has one form, or
// its fast and general variants (copies of f).
func splitVariants(f *ir.Func, t *Target) []*Variant {
	arrays, ok := fastArrays(f)
	if !ok {
		return []*Variant{{Func: f, reasons: []*Reason{noFastVariant(f, t)}}}
	}
	var tmaStore *ir.Instr
	if lp, _ := findWGMMALoop(f, t); lp != nil {
		tmaStore = lp.store
	} else if al, _ := findAttnLoop(f, t); al != nil {
		tmaStore = al.store
	}
	if tmaStore != nil {
		// The sm_90a fast variant also stores its result with TMA.
		if i := f.ParamIndex(tmaStore.Args[0]); i >= 0 && !slices.Contains(arrays, i) {
			arrays = append(arrays, i)
			sort.Ints(arrays)
		}
	}
	fast, gen := f, Clone(f)
	for _, v := range []struct {
		f    *ir.Func
		name string
	}{{fast, VariantFast}, {gen, VariantGeneral}} {
		v.f.Facts.Variant = v.name
	}
	return []*Variant{{Func: fast, Name: VariantFast, Aligned: arrays}, {Func: gen, Name: VariantGeneral}}
}
