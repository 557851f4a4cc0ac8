package lower

// The kernel's performance hints (@ct.kernel(num_ctas=, occupancy=,
// opt_level=, num_worker_warps=), ct.ByTarget values, and the load and
// store hints latency, allow_tma, check_bounds): which the back end acts
// on for a target, and a note for each one it does not. A hint is never an
// error (cuTile's contract: hints do not change results).
//
// Acted on: occupancy (ptxgen's .minnctapersm, and the smem pass shortens
// pipelined rings, down to two stages, so that that many blocks' shared
// memory fits an SM; except on the sm_90a persistent kernels, which run
// one block per SM by design) and
// allow_tma=False (the load stays off the TMA path: findWGMMALoop and
// findAttnLoop refuse it).
//
// One kernel hint is tilec's, not cuTile's: stages, the depth of every
// pipelined loop's shared-memory ring. The source cannot write it (the
// builder takes cuTile's four names only); `tilec tune` sets it on a
// candidate (runtime/tune's knobs) and the cached winner carries it, so it
// is part of the IR text that keys both caches. Unlike cuTile's hints it is
// a demand: a ring that cannot hold that many stages is an error, which
// prunes the candidate.

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
		if in.Attrs.Get(ir.AttrKeyLatency) != nil {
			seen["latency: not applied: copies are scheduled by the pipeline's stages"] = true
		}
		if b, ok := in.Attrs.Get(ir.AttrKeyCheckBounds).(bool); ok && !b {
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
	b, ok := ld.Attrs.Get(ir.AttrKeyAllowTMA).(bool)
	return !ok || b
}

// StagesHint names the kernel hint that sets the ring depth (Stages).
const StagesHint = "stages"

// MaxStagesHint bounds the stages hint: deeper rings than this never pay
// (the copies of 32 k-steps ahead are already in flight).
const MaxStagesHint = 32

// Stages is the ring depth the kernel's stages hint asks for on t, or 0
// when it has none (the target's Tuning.MaxStages bounds the rings).
func Stages(f *ir.Func, t *Target) int {
	if v, ok := Hint(f, t, StagesHint); ok {
		if n, ok := v.(int64); ok && n >= 2 && n <= MaxStagesHint {
			return int(n)
		}
	}
	return 0
}

// checkStages makes the stages hint a demand: lowered with
// Tuning.MaxStages = s (t here), every ring of every variant must hold s
// stages, and the kernel must have one. A ring the shared memory cut
// shorter would make the kernel the same as a shallower candidate's, timed
// twice under two names.
func checkStages(f *ir.Func, t *Target, vs []*Variant) error {
	s := Stages(f, t)
	if s == 0 {
		return nil
	}
	rings := 0
	var short *ir.Instr
	for _, v := range vs {
		v.Func.Body.Walk(func(in *ir.Instr) {
			if in.Op != ir.OpSmemAlloc {
				return
			}
			n := in.Attrs.Int(ir.AttrKeyStages)
			if n <= 1 {
				return
			}
			rings++
			if n < s && (short == nil || n < short.Attrs.Int(ir.AttrKeyStages)) {
				short = in
			}
		})
	}
	if rings == 0 {
		return unsupportedPos(t, f.Pos, "stages=%d: kernel %s has no pipelined loop: there is no shared-memory ring to deepen", s, f.Name)
	}
	if short != nil {
		return unsupportedAt(t, short, "stages=%d: the shared-memory ring of this load (%s) holds only %d stages within the %d bytes a block may use; use fewer stages or smaller tiles",
			s, short.Result().Type, short.Attrs.Int(ir.AttrKeyStages), t.KernelSharedBytes())
	}
	return nil
}
