package lower

// The kernel's performance hints (@ct.kernel(num_ctas=, occupancy=,
// opt_level=, num_worker_warps=), ct.ByTarget values, and the load and
// store hints latency, allow_tma, check_bounds): which the back end acts
// on for a target, and a note for each one it does not. A hint is never an
// error (cuTile's contract: hints do not change results).
//
// Acted on: occupancy (ptxgen's .minnctapersm, except on the sm_90a
// persistent kernels, which run one block per SM by design) and
// allow_tma=False (the load stays off the TMA path: findWGMMALoop and
// findAttnLoop refuse it).

import (
	"fmt"
	"sort"

	"github.com/tilec/tilec/ir"
)

// Hint returns the value of kernel hint name for target t: the ByTarget
// entry for t's architecture (cuTile's keys are "sm_<major><minor>", so
// sm_90 also serves sm_90a), else its default, else the plain hint; ok is
// false when the kernel has none.
func Hint(f *ir.Func, t *Target, name string) (v any, ok bool) {
	byName := map[string]any{}
	for _, h := range f.Hints {
		byName[h.Name] = h.Value
	}
	arch := fmt.Sprintf("sm_%d", t.CC)
	for _, key := range []string{name + ":" + t.Name, name + ":" + arch, name + ":default", name} {
		if v, ok := byName[key]; ok {
			return v, true
		}
	}
	return nil, false
}

// Occupancy is the occupancy hint for t (blocks per SM), or 0.
func Occupancy(f *ir.Func, t *Target) int {
	if v, ok := Hint(f, t, "occupancy"); ok {
		if n, ok := v.(int64); ok && n > 0 && n <= 64 {
			return int(n)
		}
	}
	return 0
}

// HintNotes lists the hints of kernel f (lowered or not: the hints are
// the same) that target t's code does not act on, one sentence each, in a
// stable order; persistent says whether the code for t is a persistent
// sm_90a kernel (ptxgen.Kernel.Persistent of its first variant).
func HintNotes(f *ir.Func, t *Target, persistent bool) []string {
	var notes []string
	if Occupancy(f, t) > 0 && persistent {
		notes = append(notes, "occupancy: not applied: this sm_90a kernel is persistent, one block per SM")
	}
	if v, ok := Hint(f, t, "num_ctas"); ok {
		if n, _ := v.(int64); n > 1 {
			notes = append(notes, fmt.Sprintf("num_ctas=%d: not applied: tilec launches no thread-block clusters yet", n))
		}
	}
	if _, ok := Hint(f, t, "opt_level"); ok {
		notes = append(notes, "opt_level: not applied: the driver's JIT runs at its default level")
	}
	if _, ok := Hint(f, t, "num_worker_warps"); ok {
		notes = append(notes, "num_worker_warps: not applied: the warp counts come from the tiles (and on sm_90a the producer warpgroup)")
	}
	seen := map[string]bool{}
	f.Body.Walk(func(in *ir.Instr) {
		if in.Op != ir.OpLoad && in.Op != ir.OpStore {
			return
		}
		if in.Attrs.Get("latency") != nil {
			seen["latency: not applied: copies are scheduled by the pipeline's stages"] = true
		}
		if b, ok := in.Attrs.Get("check_bounds").(bool); ok && !b {
			seen["check_bounds=False: not applied: bounds are always checked (the result is the same)"] = true
		}
	})
	var mem []string
	for n := range seen {
		mem = append(mem, n)
	}
	sort.Strings(mem)
	return append(notes, mem...)
}

// tmaAllowed reports whether a load may go through TMA (its allow_tma
// hint is not False).
func tmaAllowed(ld *ir.Instr) bool {
	b, ok := ld.Attrs.Get("allow_tma").(bool)
	return !ok || b
}
