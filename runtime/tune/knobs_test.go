package tune_test

import (
	"strings"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/lower"
	"github.com/tilec/tilec/runtime"
	"github.com/tilec/tilec/runtime/bench"
	"github.com/tilec/tilec/runtime/bench/benchtest"
	"github.com/tilec/tilec/runtime/compile"
	"github.com/tilec/tilec/runtime/kcache"
	"github.com/tilec/tilec/runtime/tune"
)

// hint is f's value of a kernel hint, or 0.
func hint(f *ir.Func, name string) int64 {
	for _, h := range f.Hints {
		if h.Name == name {
			return h.Value.(int64)
		}
	}
	return 0
}

// Knob names and values are checked against the kernel before anything
// compiles; num_ctas, which the back end does not honour, is refused.
func TestKnobSpaceErrors(t *testing.T) {
	b := builder("../../testdata/kernels/matmul.tile", nil)
	base := mustBuild(t, b)
	for space, want := range map[string]string{
		"stages=2,3":          "",
		"stages=default,4":    "",
		"occupancy=1,2 tm=64": "",
		"stages=1":            "stages=1: want an int from 2 to 32, or default",
		"stages=3,x":          "stages=x: want an int from 2 to 32, or default",
		"occupancy=0":         "occupancy=0: want an int from 1 to 64, or default",
		"num_ctas=1,2":        "num_ctas cannot be tuned: tilec does not honour the num_ctas hint",
		"opt_level=3":         "opt_level cannot be tuned",
		"stage=2,3":           "matmul has no constant stage (its constants: T, tm, tn, tk, GROUP_SIZE_M; knobs: stages, occupancy)",
	} {
		s, err := tune.ParseSpace([]string{space})
		if err != nil {
			t.Fatal(err)
		}
		err = s.CheckNames(base, nil)
		switch {
		case want == "" && err != nil:
			t.Errorf("%s: %v", space, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("%s: %v, want %q", space, err, want)
		}
	}
	if _, err := tune.ApplyKnobs(base, map[string]string{"num_ctas": "2"}); err == nil ||
		!strings.Contains(err.Error(), "num_ctas is not a tuning knob (knobs: stages, occupancy)") {
		t.Errorf("ApplyKnobs num_ctas: %v", err)
	}
}

// ApplyKnobs sets the hints that lowering and ptxgen act on: the ring
// depth in the lowered IR, .minnctapersm in the PTX; the kernel cache's
// key changes with them.
func TestApplyKnobs(t *testing.T) {
	base := mustBuild(t, builder("../../testdata/kernels/matmul.tile", map[string]string{"tk": "32"}))
	f, err := tune.ApplyKnobs(base, map[string]string{"stages": "2", "occupancy": "3"})
	if err != nil {
		t.Fatal(err)
	}
	if len(base.Hints) != 0 || hint(f, "stages") != 2 || hint(f, "occupancy") != 3 {
		t.Fatalf("hints: base %v, applied %v", base.Hints, f.Hints)
	}
	lowered, err := lower.Lower(f, lower.MustTarget("sm_80"))
	if err != nil {
		t.Fatal(err)
	}
	if txt := ir.Print(lowered); !strings.Contains(txt, "stages=2}") || strings.Contains(txt, "stages=4") {
		t.Errorf("lowered IR without 2-stage rings:\n%s", txt)
	}
	pk, err := compile.PTX(f, "sm_80")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(pk.PTX, "\n.minnctapersm 3\n") {
		t.Errorf("PTX lacks .minnctapersm 3")
	}
	pb, err := compile.PTX(base, "sm_80")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(pb.PTX, ".minnctapersm") {
		t.Errorf("the base kernel's PTX has .minnctapersm")
	}
	kc := &kcache.Cache{Dir: t.TempDir(), Version: "test"}
	if kc.Key(f, lower.MustTarget("sm_80")) == kc.Key(base, lower.MustTarget("sm_80")) {
		t.Error("the kernel cache key ignores the knobs")
	}
	// default leaves a hint as the kernel has it.
	g, err := tune.ApplyKnobs(f, map[string]string{"stages": "default", "occupancy": "1"})
	if err != nil || hint(g, "stages") != 2 || hint(g, "occupancy") != 1 || len(g.Hints) != 2 {
		t.Errorf("default: %v %v", g.Hints, err)
	}
}

// knobMS times a candidate by its hints: 3 stages and no occupancy hint
// are fastest.
func knobMS(f *ir.Func) float64 {
	ms := 1.0
	if s := hint(f, "stages"); s != 3 {
		ms += 0.5
	}
	if hint(f, "occupancy") != 0 {
		ms += 0.25
	}
	return ms
}

// A search over knobs on sm_80: rings deeper than the shared memory holds
// and occupancies whose blocks' shared memory exceeds an SM's are pruned;
// the winner's knobs go to the cache and come back with Apply.
func TestSearchKnobs(t *testing.T) {
	b := builder("../../testdata/kernels/matmul.tile", map[string]string{"tk": "32"})
	base := mustBuild(t, b)
	space, _ := tune.ParseSpace([]string{"stages=2,3,8 occupancy=default,3"})
	if err := space.CheckNames(base, nil); err != nil {
		t.Fatal(err)
	}
	dev := &benchtest.Device{MS: knobMS, TargetName: "sm_80"}
	dims := bench.FillDims(base, map[string]int64{"M": 128, "N": 256, "K": 64})
	res, err := tune.Search(dev, &tune.Config{Build: b, Base: base, Space: space, Dims: dims, Warmup: 1, Iters: 20, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, c := range res.Candidates {
		got[c.Label] = c.Status + ": " + c.Reason
	}
	for l, want := range map[string]string{
		"stages=2 occupancy=default":                  "timed: ",
		"stages=2 occupancy=3":                        "timed: ",
		"stages=3 occupancy=default":                  "timed: ",
		"stages=3 occupancy=3":                        "pruned: occupancy=3: 3 blocks of ",
		"stages=8 occupancy=default":                  "pruned: ",
		"stages=8 occupancy=3":                        "pruned: ",
		"stages=default occupancy=default (defaults)": "timed: ",
	} {
		if !strings.HasPrefix(got[l], want) {
			t.Errorf("%s: %q, want %q...", l, got[l], want)
		}
	}
	if r := got["stages=8 occupancy=default"]; !strings.Contains(r, "stages=8: the shared-memory ring of this load (tile<") ||
		!strings.Contains(r, "holds only 6 stages") {
		t.Errorf("stages=8: %s", r)
	}
	if len(res.Candidates) != 7 || res.Winner.Label != "stages=3 occupancy=default" || res.Speedup != 1.5 {
		t.Fatalf("%d candidates, winner %s, speed-up %g", len(res.Candidates), res.Winner.Label, res.Speedup)
	}

	cache := &tune.Cache{Dir: t.TempDir(), Version: "test"}
	e := res.Entry(base)
	if len(e.Consts) != 0 || e.Knobs["stages"] != "3" || e.Knobs["occupancy"] != "default" {
		t.Errorf("entry consts %v knobs %v", e.Consts, e.Knobs)
	}
	if _, err := cache.Put(e); err != nil {
		t.Fatal(err)
	}
	f, note := cache.Apply(b, base, dims, dev.Name(), "sm_80")
	if f == nil || hint(f, "stages") != 3 || hint(f, "occupancy") != 0 {
		t.Fatalf("Apply: %v %q", f, note)
	}
	if !strings.HasPrefix(note, "tuned constants from cache: stages=3 occupancy=default (1.50x the defaults at ") {
		t.Errorf("note %q", note)
	}
}

// On sm_90a the matmul is a persistent kernel, one block per SM: an
// occupancy above 1 would not be applied, so it is pruned, not timed as if
// it were; occupancy=1 is what the kernel does and is timed (H100: a space
// of occupancy=1,2 beside tile sizes and stages had every candidate pruned
// before).
func TestSearchOccupancyPersistent(t *testing.T) {
	res := searchMatmul(t, nil, "occupancy=1,2", &benchtest.Device{MS: knobMS, TargetName: "sm_90a"})
	for _, c := range res.Candidates {
		switch c.Consts["occupancy"] {
		case "1": // what a persistent kernel runs anyway: timed
			if c.Status != tune.Timed {
				t.Errorf("occupancy=1 on sm_90a: %s: %s", c.Status, c.Reason)
			}
		case "2":
			if c.Status != tune.Pruned || c.Reason != "occupancy=2: not applied: this sm_90a kernel is persistent, one block per SM" {
				t.Errorf("occupancy=2 on sm_90a: %s: %s", c.Status, c.Reason)
			}
		}
	}
	if res.Winner == nil || !res.Winner.Default {
		t.Errorf("winner %v", res.Winner)
	}
}

// A candidate whose registers spill after the JIT (here: occupancy=2 on
// sm_80, as 128x256 tiles did on the H100, 15x slower) is pruned untimed,
// with the spill in its reason; the defaults are timed even when they
// spill, so that the speed-up has its base.
func TestSearchPrunesSpills(t *testing.T) {
	spills := func(f *ir.Func) int {
		if hint(f, "occupancy") == 2 {
			return 96
		}
		return 0
	}
	tk32 := map[string]string{"tk": "32"}
	const space = "stages=2 occupancy=default,2"
	res := searchMatmul(t, tk32, space, &benchtest.Device{MS: knobMS, TargetName: "sm_80", Spills: spills})
	for _, c := range res.Candidates {
		switch c.Consts["occupancy"] {
		case "2":
			if c.Status != tune.Pruned || c.Reason != "spills: 96 bytes of local memory a thread after the JIT" {
				t.Errorf("occupancy=2: %s: %s", c.Status, c.Reason)
			}
		default:
			if c.Status != tune.Timed {
				t.Errorf("%s: %s: %s", c.Label, c.Status, c.Reason)
			}
		}
	}
	// The defaults spilling too: still timed, and the winner.
	res = searchMatmul(t, tk32, space, &benchtest.Device{MS: knobMS, TargetName: "sm_80", Spills: func(*ir.Func) int { return 8 }})
	if res.Winner == nil || !res.Winner.Default || res.Count(tune.Pruned) != 2 {
		t.Errorf("winner %v, %d pruned", res.Winner, res.Count(tune.Pruned))
	}
}

// The Go API: Cache.CompileFile builds the kernel with the cached winner's
// constants and knobs for the launch's shapes, and the plain kernel when
// the cache has nothing for them.
func TestCompileFileTuned(t *testing.T) {
	const path = "../../testdata/kernels/matmul.tile"
	opts := compile.Options{Consts: map[string]string{"tk": "32"}}
	b := builder(path, opts.Consts)
	base := mustBuild(t, b)
	space, _ := tune.ParseSpace([]string{"tm=64,128 stages=2,3"})
	dev := &benchtest.Device{MS: func(f *ir.Func) float64 {
		return fakeMS(f) + knobMS(f)
	}, TargetName: "sm_80"}
	dims := bench.FillDims(base, map[string]int64{"M": 128, "N": 256, "K": 64})
	res, err := tune.Search(dev, &tune.Config{Build: b, Base: base, Space: space, Dims: dims, Warmup: 1, Iters: 20, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	cache := &tune.Cache{Dir: t.TempDir(), Version: "test"}
	if _, err := cache.Put(res.Entry(base)); err != nil {
		t.Fatal(err)
	}

	args := func(m, n, k int) []runtime.Arg {
		return []runtime.Arg{runtime.NewTensor(ir.F16, m, k), runtime.NewTensor(ir.F16, k, n), runtime.NewTensor(ir.F16, m, n)}
	}
	k, note, err := cache.CompileFile(dev, path, opts, args(100, 200, 40))
	if err != nil {
		t.Fatal(err)
	}
	v := tune.ConstValues(k.Func)
	if v["tm"] != "64" || v["tk"] != "32" || hint(k.Func, "stages") != 3 ||
		!strings.HasPrefix(note, "tuned constants from cache: tm=64 stages=3 (") {
		t.Fatalf("tuned kernel: %v %v %q", v, k.Func.Hints, note)
	}
	// It launches like any kernel (here on the fake device's interpreter).
	p, err := dev.Prepare(k, args(100, 200, 40), [3]int{})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Run(); err != nil {
		t.Fatal(err)
	}

	// Another class of shapes, no cache, another device: the kernel as
	// opts build it.
	for _, c := range []struct {
		cache *tune.Cache
		dev   *benchtest.Device
		args  []runtime.Arg
	}{
		{cache, dev, args(1000, 200, 40)},
		{nil, dev, args(100, 200, 40)},
		{cache, &benchtest.Device{MS: knobMS, TargetName: "sm_90"}, args(100, 200, 40)},
	} {
		k, note, err := c.cache.CompileFile(c.dev, path, opts, c.args)
		if err != nil || note != "" || tune.ConstValues(k.Func)["tm"] != "128" || len(k.Func.Hints) != 0 {
			t.Errorf("untuned: %v %q %v", k, note, err)
		}
	}
	if _, _, err := cache.CompileFile(dev, path, opts, args(100, 200, 40)[:2]); err == nil {
		t.Error("two arguments for three parameters: no error")
	}
	_, _, err = cache.CompileFile(dev, "../../examples/cutile/vector_add.py", compile.Options{}, nil)
	if err == nil || !strings.Contains(err.Error(), "give compile.Options.Args the signatures it was tuned with") {
		t.Errorf("generic kernel: %v", err)
	}
}

// searchMatmul searches space (one --space text) for testdata's matmul
// with consts baked in, at M=128 N=256 K=64 on dev.
func searchMatmul(t *testing.T, consts map[string]string, space string, dev *benchtest.Device) *tune.Result {
	t.Helper()
	b := builder("../../testdata/kernels/matmul.tile", consts)
	base := mustBuild(t, b)
	sp, err := tune.ParseSpace([]string{space})
	if err != nil {
		t.Fatal(err)
	}
	dims := bench.FillDims(base, map[string]int64{"M": 128, "N": 256, "K": 64})
	res, err := tune.Search(dev, &tune.Config{Build: b, Base: base, Space: sp, Dims: dims, Warmup: 1, Iters: 20, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	return res
}
