package lower

// Which code path each lowered form of a kernel takes on a target, and,
// where that is not the fastest path the target has, why: the decisions of
// the variants and warpspec passes (and the fma path of kstep.go) as a
// value, so that `tilec compile --explain` can print them and tests can
// hold them. The passes record what they decided (Variant.Path); nothing
// here decides anything again.

import (
	"fmt"
	"io"
	"strings"

	"github.com/tilec/tilec/ir"
)

// Path is the code path a kernel's mmas take.
type Path string

// The paths, fastest first.
const (
	// PathWarpSpecialized: a TMA producer warpgroup and wgmma consumer
	// warpgroups around an mbarrier ring, persistent over the grid
	// (warpspec.go); sm_90a.
	PathWarpSpecialized Path = "warp-specialized persistent TMA + wgmma"
	// PathWarpSpecializedTiles: the same roles and ring over the tile loop
	// the kernel itself writes (cuTile's persistent pattern), launched on
	// the kernel's own grid; sm_90a.
	PathWarpSpecializedTiles Path = "warp-specialized TMA + wgmma over the kernel's tile loop"
	// PathPipelinedMMASync: mma.sync k-steps over a ring of cp.async
	// copies several stages deep (pipeline.go).
	PathPipelinedMMASync Path = "pipelined mma.sync"
	// PathMMASync: mma.sync on operands copied once (no ring).
	PathMMASync Path = "mma.sync"
	// PathFMA: an mma of f32 inputs as fma chains on the CUDA cores
	// (kstep.go's mma_fma).
	PathFMA Path = "CUDA-core fma"
	// PathNoMMA: the kernel has no mma; no tensor-core choice was made.
	PathNoMMA Path = "no mma"
)

// Fastest is the fastest path tilec has for kernels with an mma on t.
func (t *Target) Fastest() Path {
	if t.Emitted == WGMMA {
		return PathWarpSpecialized
	}
	return PathPipelinedMMASync
}

// Reason is why a kernel does not take a faster path: what decided it and
// where.
type Reason struct {
	Msg string
	// Pos is the op or loop that decided it; the zero Pos when the launch
	// or the target did (the general variant, say).
	Pos ir.Pos
}

func (r *Reason) String() string {
	if r.Pos.IsValid() {
		return r.Pos.String() + ": " + r.Msg
	}
	return r.Msg
}

// refuse is a Reason at in's position (none when in is nil).
func refuse(in *ir.Instr, format string, args ...any) *Reason {
	r := &Reason{Msg: fmt.Sprintf(format, args...)}
	if in != nil {
		r.Pos = in.Pos
	}
	return r
}

// PathChoice is the path one lowered form of a kernel takes.
type PathChoice struct {
	Path Path
	// Details are what the path applies beyond its name, in words: the
	// ring's depth, 2-CTA clusters, the TMA store.
	Details []string
	// Reasons say why the path is not the target's fastest, the deciding
	// one first; none when it is the fastest, or when the kernel has no mma.
	Reasons []*Reason
	// Missed are, on the target's fastest path, its options that the
	// kernel goes without (2-CTA clusters, the TMA store) and why.
	Missed []*Reason
}

// Short is the path with its details, on one line: what `tilec run`'s
// compiled line shows.
func (c *PathChoice) Short() string {
	if len(c.Details) == 0 {
		return string(c.Path)
	}
	return fmt.Sprintf("%s (%s)", c.Path, strings.Join(c.Details, ", "))
}

// choosePath reads the path that the passes gave lowered kernel f on t
// from the ops they left, and keeps the reasons they recorded when that
// path is not t's fastest. src is the kernel as it was before lowering,
// whose mmas have the positions to cite.
func choosePath(f, src *ir.Func, t *Target, reasons []*Reason) PathChoice {
	var c PathChoice
	var wgmma, mmaSync, fma bool
	stages, tmaStore := 0, false
	f.Body.Walk(func(in *ir.Instr) {
		switch in.Op {
		case ir.OpWGMMA:
			wgmma = true
		case ir.OpMMAStep:
			mmaSync = true
		case ir.OpMMAFMA:
			fma = true
		case ir.OpSmemAlloc:
			stages = max(stages, int(in.Attrs.Int(ir.AttrKeyStages)))
		case ir.OpTMAStore:
			tmaStore = true
		}
	})
	switch {
	case wgmma && f.Facts.Persistent:
		c.Path = PathWarpSpecialized
	case wgmma:
		c.Path = PathWarpSpecializedTiles
	case fma:
		// The operands' dtype decided it (kstep.go's exactF32), whatever
		// else the kernel is.
		c.Path = PathFMA
		for _, mma := range mmaOps(src) {
			if exactF32(mma) {
				reasons = []*Reason{refuse(mma, "the mma's inputs are f32, which cuTile multiplies exactly: fma chains on the CUDA cores (tf32 or 16-bit inputs take the tensor cores)")}
				break
			}
		}
	case mmaSync && stages > 1:
		c.Path = PathPipelinedMMASync
	case mmaSync:
		c.Path = PathMMASync
	default:
		return PathChoice{Path: PathNoMMA}
	}
	if stages > 1 {
		c.Details = append(c.Details, fmt.Sprintf("%d stages", stages))
	}
	if f.Facts.Cluster > 1 {
		c.Details = append(c.Details, fmt.Sprintf("%d-CTA clusters with TMA multicast", f.Facts.Cluster))
	}
	if tmaStore {
		c.Details = append(c.Details, "TMA store")
	}
	var kept []*Reason
	for _, r := range reasons {
		if r != nil {
			kept = append(kept, r)
		}
	}
	if c.Path != t.Fastest() && c.Path != PathWarpSpecializedTiles {
		c.Reasons = kept
	} else {
		c.Missed = kept
	}
	return c
}

// notPipelined says why no loop of f pipelines the copies of an mma's
// operands (the smem pass gave none of its loads a ring deeper than one),
// at the first mma: an mma outside a loop, operands not loaded in the
// mma's loop, or a ring that shared memory holds only one stage of.
func notPipelined(f *ir.Func, t *Target) *Reason {
	mmas := mmaOps(f)
	if len(mmas) == 0 {
		return nil
	}
	mma := mmas[0]
	loop := mma.Block.Parent
	if loop == nil || loop.Op != ir.OpFor {
		return refuse(mma, "the mma is not in a loop: its operands are copied once, with no ring to overlap the copies with the mma")
	}
	for _, a := range mma.Args[:2] {
		d := a.Def
		for d != nil && (d.Op == ir.OpPermute || d.Op == ir.OpReshape) {
			d = d.Args[0].Def // a view of the loaded tile (B transposed, a batched matrix)
		}
		if d != nil && d.Op == ir.OpLoad && d.Block == loop.Regions[0] && InSmem(d) {
			if d.Attrs.Int(ir.AttrKeyStages) <= 1 {
				return refuse(loop, "the mma operand tiles of this loop fit %s's shared memory (%d bytes) only once: no ring", t, t.KernelSharedBytes())
			}
			return nil
		}
	}
	return refuse(mma, "no operand of the mma is loaded in its loop (they are computed in registers or loaded before it): nothing to pipeline")
}

// noFastVariant says why the variants pass made no fast variant of f
// (fastArrays): no loop pipelines its copies, or a pipelined load pads
// with something other than zeros, which cp.async's and TMA's
// out-of-bounds fill cannot give.
func noFastVariant(f *ir.Func, t *Target) *Reason {
	if r := notPipelined(f, t); r != nil {
		return r
	}
	var r *Reason
	f.Body.Walk(func(in *ir.Instr) {
		if r == nil && in.Op == ir.OpLoad && InSmem(in) && in.Attrs.Int(ir.AttrKeyStages) > 1 && !zeroPad(in) {
			r = refuse(in, "this load pads with %s, not zeros: cp.async and TMA fill what lies out of bounds with zeros only", padOf(in))
		}
		if r == nil && in.Op == ir.OpLoad && InSmem(in) && ir.Sliced(in.Args[0]) {
			r = refuse(in, "this load's array is a slice (array_slice): its base is an element of the array, whose alignment the launch cannot check, so the kernel checks it itself")
		}
	})
	return r
}

// Explanation is the path each lowered form of one kernel takes on a
// target.
type Explanation struct {
	Kernel string
	Target *Target
	// Variants are the kernel's lowered forms as LowerVariants returns
	// them: the fast one and the general one, or the only one.
	Variants []*Variant
	// Params name the kernel's parameters (Variant.Aligned indexes them).
	Params []string
}

// Explain lowers f for t and says which path each of its forms takes and
// why: `tilec compile --explain`.
func Explain(f *ir.Func, t *Target) (*Explanation, error) {
	vs, err := LowerVariants(f, t, Options{})
	if err != nil {
		return nil, err
	}
	e := &Explanation{Kernel: f.Name, Target: t, Variants: vs}
	for _, p := range f.Params {
		e.Params = append(e.Params, p.Name)
	}
	return e, nil
}

// Path is the path of the kernel's form that aligned launches take (its
// only form, or the fast variant).
func (e *Explanation) Path() *PathChoice { return &e.Variants[0].Path }

// Format prints the explanation: for a kernel without mma that line
// alone; otherwise a line for the kernel, a line for each
// form (with the launches it serves when there are two), and below a form
// that is not the target's fastest the reasons ("because ..."), below one
// that is the options it goes without ("no ...: ..."), each with the
// source position that decided it.
func (e *Explanation) Format(w io.Writer) {
	if e.Path().Path == PathNoMMA {
		// No tensor-core choice was made: one line says so.
		fmt.Fprintf(w, "kernel %s on %s: %s\n", e.Kernel, e.Target, PathNoMMA)
		return
	}
	fmt.Fprintf(w, "kernel %s on %s (fastest path: %s)\n", e.Kernel, e.Target, e.Target.Fastest())
	for _, v := range e.Variants {
		fmt.Fprintf(w, "  %s: %s\n", e.variantName(v), v.Path.Short())
		for _, r := range v.Path.Reasons {
			fmt.Fprintf(w, "    because %s\n", r)
		}
		for _, r := range v.Path.Missed {
			fmt.Fprintf(w, "    %s\n", r)
		}
	}
}

// variantName says which launches a form serves.
func (e *Explanation) variantName(v *Variant) string {
	switch v.Name {
	case VariantFast:
		names := make([]string, len(v.Aligned))
		for i, p := range v.Aligned {
			names[i] = e.Params[p]
		}
		return fmt.Sprintf("fast variant (%s 16-byte aligned)", strings.Join(names, ", "))
	case VariantGeneral:
		return "general variant (any launch)"
	}
	return "every launch"
}
