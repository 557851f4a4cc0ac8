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

// Pass is one step of the lowering pipeline.
type Pass struct {
	Name string
	// Doc says what the pass requires and what it guarantees.
	Doc string
	Run func(f *ir.Func, t Target) error
}

// Passes is the lowering pipeline, in order.
var Passes = []Pass{
	{
		Name: "fold",
		Doc: "requires: a verified kernel with constants baked in. guarantees: scalar arithmetic " +
			"on constants is folded, pure instructions without uses are removed.",
		Run: func(f *ir.Func, _ Target) error { return Fold(f) },
	},
	{
		Name: "check",
		Doc: "requires: fold. guarantees: every op, dtype and shape is one the target's code " +
			"generator handles, or a clear error naming the op and the target.",
		Run: Check,
	},
	{
		Name: "layout",
		Doc: "requires: check. guarantees: every tile-valued instruction has a layout attribute " +
			"(blocked, mma or smem), the kernel's return has num_warps; values joined by " +
			"elementwise ops and loops share one layout.",
		Run: AssignLayouts,
	},
	{
		Name: "smem",
		Doc: "requires: layout. guarantees: every smem load has smem (byte offset of stage 0), " +
			"stage_bytes, row_bytes and stages; the return has smem_bytes (total, 1024-aligned) " +
			"and, when a reduce across warps or a layout conversion needs it, scratch (its offset).",
		Run: AllocShared,
	},
	{
		Name: "pipeline",
		Doc: "requires: smem. guarantees: a for loop whose body loads mma operands into shared " +
			"memory has stages=S and its loads are issued S-1 iterations ahead with cp.async.",
		Run: Pipeline,
	},
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

// errorf makes a user-facing error about an unsupported construct.
func unsupported(t Target, format string, args ...any) error {
	return fmt.Errorf("ptxgen %s: %s", t, fmt.Sprintf(format, args...))
}
