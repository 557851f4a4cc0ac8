package lower

import (
	"fmt"
	"io"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/lang"
)

// Pass is one step of the lowering pipeline. What it requires and what it
// guarantees is stated at the top of the file that implements it.
type Pass struct {
	Name string
	Run  func(f *ir.Func, t *Target) error
	// split, on the variants pass only, replaces the kernel by its
	// variants; the passes after it run on each.
	split func(f *ir.Func, t *Target) []*Variant
	// explain, on the warpspec pass only, is Run that also says why the
	// kernel keeps a slower path, or goes without options of the fast one
	// (Variant.Path).
	explain func(f *ir.Func, t *Target) []*Reason
}

// Passes is the lowering pipeline, in order; each pass requires the ones
// before it.
var Passes = []Pass{
	// fold.go: constant integer scalar arithmetic and dead pure code go
	// first, so that check and layout see the kernel that will run.
	{Name: "fold", Run: func(f *ir.Func, _ *Target) error { return Fold(f) }},
	// mma_scaled.go: a 2-D block-scaled mma runs as one float8 mma per
	// scale block, scaled into the accumulator.
	{Name: "scaled", Run: ExpandScaled},
	// mmapad.go: an mma tile smaller than the instruction's runs as the
	// smallest one, on zero-padded operands.
	{Name: "pad", Run: PadMMA},
	// check.go: reject what ptxgen cannot emit for the target, as a user
	// error, before any decision is recorded.
	{Name: "check", Run: Check},
	// assign.go: a layout attribute on every tile-valued instruction
	// (blocked, mma, slice or smem; staged register mma operands); then
	// check.go's register budget per tile.
	{Name: "layout", Run: func(f *ir.Func, t *Target) error {
		if err := AssignLayouts(f, t); err != nil {
			return err
		}
		return checkRegisterBudget(f, t)
	}},
	// convert.go: convert_layout ops where an operand's layout is not the
	// one its user needs.
	{Name: "convert", Run: ConvertLayouts},
	// smem.go: shared-memory offsets of mma operand tiles, their ring
	// depths, and the scratch region of reductions and layout conversions.
	{Name: "smem", Run: AllocShared},
	// variants.go: a fast (cp.async only) and a general variant of
	// kernels that pipeline zero-padded tiles.
	{Name: "variants", split: splitVariants},
	// warpspec.go: on sm_90a, the fast variant of a GEMM-family kernel
	// becomes a persistent kernel of a TMA producer warpgroup and wgmma
	// consumer warpgroups around an mbarrier ring.
	{Name: "warpspec", Run: WarpSpecialize, explain: warpSpecialize},
	// pipeline.go: shared-tile loads become rings, async copies, commits,
	// waits and barriers; pipelined loops get their prologue, carried ring
	// slots and the k-steps of their mma with the next stage's copies
	// between them.
	{Name: "pipeline", Run: Pipeline},
	// kstep.go: every other mma becomes frag_load / mma_step k-steps
	// (one mma_fma for float32 inputs).
	{Name: "mma", Run: DecomposeMMA},
	// epilogue.go: stores of mma tiles through shared memory (16-byte
	// chunks of rows), with the waits and barriers around.
	{Name: "epilogue", Run: StagedEpilogue},
	// barriers.go: barriers where the scratch region's exchanges and
	// rank-0 atomics need them, from the ops' effects: the block's, or
	// inside a warp-specialized role the role's named barrier.
	{Name: "barriers", Run: InsertBarriers},
	// rescale.go: a loop-carried mma accumulator scaled by a few
	// registers' broadcast (online softmax's acc * alpha) is multiplied
	// only in warps where some scale is not 1: cmp, vote_all and an if.
	// Last, so that no loop matcher above sees its if.
	{Name: "rescale", Run: RowRescale},
}

// Apply runs the pass on f alone: f itself after the pass, or for the
// variants pass, the variants it makes of f.
func (p *Pass) Apply(f *ir.Func, t *Target) ([]*Variant, error) {
	if p.split != nil {
		return p.split(f, t), nil
	}
	if err := p.Run(f, t); err != nil {
		return nil, err
	}
	return []*Variant{{Func: f}}, nil
}

// Options control Lower.
type Options struct {
	// Verify runs ir.Verify after every pass (tests set it).
	Verify bool
	// DumpAfter names a pass after which the IR is printed to Dump ("all" for every pass).
	DumpAfter string
	Dump      io.Writer
	// StopAfter names a pass after which lowering stops ("": run them all):
	// tests of a pass look at the IR it left.
	StopAfter string
}

// Lower runs the pipeline on a copy of f and returns the lowered copy that
// is valid for every launch (the general variant, where there are two).
func Lower(f *ir.Func, t *Target) (*ir.Func, error) {
	return LowerOpts(f, t, Options{})
}

// LowerWithDump is Lower that prints the IR after the pass named dumpAfter
// (or after every pass for "all") to w: `tilec compile --dump-after=PASS`.
func LowerWithDump(f *ir.Func, t *Target, dumpAfter string, w io.Writer) (*ir.Func, error) {
	return LowerOpts(f, t, Options{DumpAfter: dumpAfter, Dump: w})
}

// LowerOpts is Lower with options.
func LowerOpts(f *ir.Func, t *Target, o Options) (*ir.Func, error) {
	vs, err := LowerVariants(f, t, o)
	if err != nil {
		return nil, err
	}
	return vs[len(vs)-1].Func, nil
}

// LowerVariants runs the pipeline on a copy of f and returns its variants:
// the fast one first and the general one last, or the kernel's only form.
func LowerVariants(f *ir.Func, t *Target, o Options) ([]*Variant, error) {
	if t == nil {
		return nil, fmt.Errorf("lower: no target")
	}
	if o.DumpAfter != "" && o.DumpAfter != "all" && PassByName(o.DumpAfter) == nil {
		return nil, fmt.Errorf("lower: no pass named %q", o.DumpAfter)
	}
	if s := Stages(f, t); s > 0 {
		// The tuner's ring depth replaces the target's bound for this
		// kernel alone; the hint is in the IR, so every cache key has it.
		tc := *t
		tc.Tuning.MaxStages = s
		t = &tc
	}
	vs := []*Variant{{Func: Clone(f)}}
	for _, p := range Passes {
		if p.split != nil {
			vs = p.split(vs[0].Func, t)
		}
		for _, v := range vs {
			g := v.Func
			if p.explain != nil {
				v.reasons = append(v.reasons, p.explain(g, t)...)
			} else if p.Run != nil {
				if err := p.Run(g, t); err != nil {
					return nil, err
				}
			}
			g.Renumber()
			if o.Verify {
				if err := verify(g); err != nil {
					return nil, fmt.Errorf("lower: IR invalid after pass %s: %v", p.Name, err)
				}
			}
			if o.Dump != nil && (o.DumpAfter == p.Name || o.DumpAfter == "all") {
				fmt.Fprintf(o.Dump, "// after %s%s\n%s", p.Name, variantNote(v), ir.Print(g))
			}
		}
		if p.Name == o.StopAfter {
			return vs, nil
		}
	}
	if err := checkStages(f, t, vs); err != nil {
		return nil, err
	}
	for _, v := range vs {
		v.Path = choosePath(v.Func, f, t, v.reasons)
	}
	return vs, nil
}

// variantNote names a variant in dumps.
func variantNote(v *Variant) string {
	if v.Name == "" {
		return ""
	}
	return ", variant " + v.Name
}

// PassNames lists the passes in order.
func PassNames() []string {
	names := make([]string, len(Passes))
	for i, p := range Passes {
		names[i] = p.Name
	}
	return names
}

// PassByName returns the pass with that name, or nil.
func PassByName(name string) *Pass {
	for i := range Passes {
		if Passes[i].Name == name {
			return &Passes[i]
		}
	}
	return nil
}

// unsupported makes a user-facing error about a construct ptxgen cannot
// emit yet, with the same "ptxgen TARGET:" prefix as ptxgen's own errors.
func unsupported(t *Target, format string, args ...any) error {
	return fmt.Errorf("ptxgen %s: %s", t, fmt.Sprintf(format, args...))
}

// unsupportedAt is unsupported at the source position of in: a *lang.Error
// (file:line:col; the caller that holds the source adds the line and the
// caret), or a plain error when in has no position (IR parsed from text).
func unsupportedAt(t *Target, in *ir.Instr, format string, args ...any) error {
	return unsupportedPos(t, in.Pos, format, args...)
}

func unsupportedPos(t *Target, pos ir.Pos, format string, args ...any) error {
	if pos.Line == 0 {
		return unsupported(t, format, args...)
	}
	return &lang.Error{Pos: lang.Pos(pos), Msg: fmt.Sprintf("ptxgen %s: %s", t, fmt.Sprintf(format, args...))}
}
