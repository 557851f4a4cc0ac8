package tune

// Knobs are the compile choices a search varies besides the kernel's
// constants: the ring depth of pipelined loops and the occupancy hint.
// Each is a kernel hint in the IR (ir.Func.Hints), so that a candidate is
// an *ir.Func like any other: its IR text, which keys the kernel cache and
// the CUDA backend's, differs from its neighbours', and a cached winner is
// rebuilt by setting the same hints (ApplyKnobs) on the kernel built with
// its constants. A kernel's own constant of a knob's name keeps the name:
// the space varies the constant.

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/lower"
	"github.com/tilec/tilec/ptxgen"
)

// KnobDefault is the value of a knob that leaves the choice to the
// compiler: no stages hint (the target's Tuning.MaxStages, cut to what
// the shared memory holds), the kernel's own occupancy hint or none.
const KnobDefault = "default"

// knob is one tunable hint; its values are ints from min to max, or
// KnobDefault.
type knob struct {
	name     string
	min, max int64
}

// knobs is the table of tunable hints.
var knobs = []knob{
	// lower.Stages: every ring of the kernel takes this depth; a ring
	// the shared memory cannot hold that deep prunes the candidate.
	{name: lower.StagesHint, min: 2, max: lower.MaxStagesHint},
	// lower.Occupancy: ptxgen's .minnctapersm, so that ptxas limits the
	// registers to let this many blocks share an SM.
	{name: "occupancy", min: 1, max: 64},
}

// notKnobs are cuTile's other kernel hints, which a search cannot vary:
// the back end does not act on them, so every value would time the same
// kernel.
var notKnobs = map[string]string{
	"num_ctas":         "tilec does not honour the num_ctas hint: it launches no thread-block clusters for it (the sm_90a GEMM kernels' 2-block clusters are the target's Tuning.ClusterPairs, not a per-kernel choice)",
	"opt_level":        "tilec does not honour the opt_level hint: the driver's JIT runs at its default level",
	"num_worker_warps": "tilec does not honour the num_worker_warps hint: the warp counts come from the tiles",
}

// KnobNames lists the knobs a space may name besides constants.
func KnobNames() []string {
	out := make([]string, len(knobs))
	for i, k := range knobs {
		out[i] = k.name
	}
	return out
}

func lookupKnob(name string) (knob, bool) {
	for _, k := range knobs {
		if k.name == name {
			return k, true
		}
	}
	return knob{}, false
}

func hasConst(f *ir.Func, name string) bool {
	for _, c := range f.Consts {
		if c.Name == name {
			return true
		}
	}
	return false
}

// isKnob reports whether name, in a space for base, is a knob: one of the
// table's and not a constant of base.
func isKnob(base *ir.Func, name string) bool {
	_, ok := lookupKnob(name)
	return ok && !hasConst(base, name)
}

// checkValue reports a value the knob cannot take.
func (k knob) checkValue(v string) error {
	if v == KnobDefault {
		return nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < k.min || n > k.max {
		return fmt.Errorf("%s=%s: want an int from %d to %d, or %s", k.name, v, k.min, k.max, KnobDefault)
	}
	return nil
}

// splitKnobs divides a candidate's values into base's constants and its
// knobs.
func splitKnobs(base *ir.Func, values map[string]string) (consts, knobValues map[string]string) {
	consts, knobValues = map[string]string{}, map[string]string{}
	for n, v := range values {
		if isKnob(base, n) {
			knobValues[n] = v
		} else {
			consts[n] = v
		}
	}
	return consts, knobValues
}

// ApplyKnobs returns a copy of f with the knobs set as its hints (a value
// of KnobDefault leaves that hint as f has it); f itself is unchanged. An
// unknown knob or a bad value is an error.
func ApplyKnobs(f *ir.Func, values map[string]string) (*ir.Func, error) {
	if len(values) == 0 {
		return f, nil
	}
	g := lower.Clone(f)
	names := make([]string, 0, len(values))
	for n := range values {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		k, ok := lookupKnob(n)
		if !ok {
			return nil, fmt.Errorf("%s is not a tuning knob (knobs: %s)", n, strings.Join(KnobNames(), ", "))
		}
		v := values[n]
		if err := k.checkValue(v); err != nil {
			return nil, err
		}
		if v == KnobDefault {
			continue
		}
		x, _ := strconv.ParseInt(v, 10, 64)
		// The knob replaces the plain hint and every ct.ByTarget entry of
		// it, which Hint would otherwise prefer.
		g.Hints = slices.DeleteFunc(g.Hints, func(h ir.Const) bool {
			return h.Name == n || strings.HasPrefix(h.Name, n+":")
		})
		g.Hints = append(g.Hints, ir.Const{Name: n, Value: x})
	}
	return g, nil
}

// knobPruned says why a compiled candidate would time the same kernel as
// another, or cannot run as asked, though it compiled; "" when it is
// fine. An occupancy above 1 is not applied to sm_90a persistent kernels
// (one block per SM), and cannot hold where that many blocks' shared
// memory exceeds the SM's.
func knobPruned(values map[string]string, base *ir.Func, f *ir.Func, t *lower.Target, pk *ptxgen.Kernel) string {
	if v, ok := values["occupancy"]; ok && v != KnobDefault && isKnob(base, "occupancy") {
		n := lower.Occupancy(f, t)
		// A persistent kernel already runs one block per SM: occupancy=1
		// is what it does (timed, so that a space's other knobs still
		// vary), a larger one cannot be applied.
		if pk.Persistent && n > 1 {
			return fmt.Sprintf("occupancy=%d: not applied: this %s kernel is persistent, one block per SM", n, t)
		}
		if need := n * (pk.SharedBytes + 1024); n > 1 && need > t.SMSharedBytes() {
			return fmt.Sprintf("occupancy=%d: %d blocks of %d bytes of shared memory (and 1 KiB each for the driver) do not fit the %d bytes of an SM",
				n, n, pk.SharedBytes, t.SMSharedBytes())
		}
	}
	return ""
}
