package lower

import (
	"fmt"
	"io"

	"github.com/tilec/tilec/ir"
)

// Target is a GPU architecture name as PTX spells it.
type Target string

const (
	// SM80 is the mma.sync + ldmatrix + cp.async path: Ampere, and it runs
	// on Hopper and consumer Blackwell too.
	SM80 Target = "sm_80"
	// SM120a is consumer Blackwell (RTX 50); it uses the sm_80 code path.
	SM120a Target = "sm_120a"
)

// Valid reports whether ptxgen can emit code for t.
func (t Target) Valid() bool { return t == SM80 || t == SM120a }

// Pass is one step of the lowering pipeline. What it requires and what it
// guarantees is stated at the top of the file that implements it.
type Pass struct {
	Name string
	Run  func(f *ir.Func, t Target) error
}

// Passes is the lowering pipeline, in order; each pass requires the ones
// before it.
var Passes = []Pass{
	// fold.go: constant integer scalar arithmetic and dead pure code go
	// first, so that check and layout see the kernel that will run.
	{Name: "fold", Run: func(f *ir.Func, _ Target) error { return Fold(f) }},
	// check.go: reject what ptxgen cannot emit for the target, as a user
	// error, before any decision is recorded.
	{Name: "check", Run: Check},
	// assign.go: a layout attribute on every tile-valued instruction
	// (blocked, mma, slice or smem; staged register mma operands); then
	// check.go's register budget per tile.
	{Name: "layout", Run: func(f *ir.Func, t Target) error {
		if err := AssignLayouts(f, t); err != nil {
			return err
		}
		return checkRegisterBudget(f, t)
	}},
	// smem.go: shared-memory offsets of mma operand tiles, their ring
	// depths, and the scratch region of reductions and layout conversions.
	{Name: "smem", Run: AllocShared},
	// smem.go: mark loops whose mma operand loads are issued ahead.
	{Name: "pipeline", Run: Pipeline},
}

// Options control Lower.
type Options struct {
	// Verify runs ir.Verify after every pass (tests set it).
	Verify bool
	// DumpAfter names a pass after which the IR is printed to Dump ("all" for every pass).
	DumpAfter string
	Dump      io.Writer
}

// Lower runs the pipeline on a copy of f and returns the lowered copy.
func Lower(f *ir.Func, t Target) (*ir.Func, error) {
	return LowerOpts(f, t, Options{})
}

// LowerWithDump is Lower that prints the IR after the pass named dumpAfter
// (or after every pass for "all") to w: `tilec compile --dump-after=PASS`.
func LowerWithDump(f *ir.Func, t Target, dumpAfter string, w io.Writer) (*ir.Func, error) {
	return LowerOpts(f, t, Options{DumpAfter: dumpAfter, Dump: w})
}

// LowerOpts is Lower with options.
func LowerOpts(f *ir.Func, t Target, o Options) (*ir.Func, error) {
	if !t.Valid() {
		return nil, fmt.Errorf("lower: unknown target %q (want sm_80 or sm_120a)", t)
	}
	if o.DumpAfter != "" && o.DumpAfter != "all" && PassByName(o.DumpAfter) == nil {
		return nil, fmt.Errorf("lower: no pass named %q", o.DumpAfter)
	}
	g := Clone(f)
	for _, p := range Passes {
		if err := p.Run(g, t); err != nil {
			return nil, err
		}
		g.Renumber()
		if o.Verify {
			if err := verify(g); err != nil {
				return nil, fmt.Errorf("lower: IR invalid after pass %s: %v", p.Name, err)
			}
		}
		if o.Dump != nil && (o.DumpAfter == p.Name || o.DumpAfter == "all") {
			fmt.Fprintf(o.Dump, "// after %s\n%s", p.Name, ir.Print(g))
		}
	}
	return g, nil
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
func unsupported(t Target, format string, args ...any) error {
	return fmt.Errorf("ptxgen %s: %s", t, fmt.Sprintf(format, args...))
}
