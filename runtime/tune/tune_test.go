package tune_test

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/runtime/bench"
	"github.com/tilec/tilec/runtime/bench/benchtest"
	"github.com/tilec/tilec/runtime/compile"
	"github.com/tilec/tilec/runtime/tune"
)

// builder returns the Build of an example with the user's constants user.
func builder(path string, user map[string]string) tune.Build {
	return func(consts map[string]string) (*ir.Func, error) {
		all := map[string]string{}
		for k, v := range user {
			all[k] = v
		}
		for k, v := range consts {
			all[k] = v
		}
		k, err := compile.File(path, compile.Options{Consts: all})
		if err != nil {
			return nil, err
		}
		return k.Func, nil
	}
}

func mustBuild(t *testing.T, b tune.Build) *ir.Func {
	t.Helper()
	f, err := b(nil)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestParseSpace(t *testing.T) {
	s, err := tune.ParseSpace([]string{"tm=64,128,256", "tn=64,64,128 tk=32"})
	if err != nil {
		t.Fatal(err)
	}
	if s.String() != "tm=64,128,256 tn=64,128 tk=32" || s.Size() != 6 {
		t.Errorf("space %s, size %d", s, s.Size())
	}
	cs := s.Candidates()
	if len(cs) != 6 || cs[0]["tm"] != "64" || cs[1]["tn"] != "128" || cs[5]["tm"] != "256" {
		t.Errorf("candidates %v", cs)
	}
	for _, bad := range []string{"tm", "tm=", "tm=1 tm=2", "=4"} {
		if _, err := tune.ParseSpace([]string{bad}); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	if _, err := tune.ParseSpace([]string{"a=1,2,3,4,5,6,7,8,9 b=1,2,3,4,5,6,7,8 c=1,2,3,4,5,6,7,8 d=1,2,3,4,5,6,7,8"}); err == nil {
		t.Error("a space of 4096+ candidates: no error")
	}
}

func TestFromSource(t *testing.T) {
	s, err := tune.FromSource([]byte("import cuda.tile as ct\n# tilec: tune tm=64,128 tn=64\n  # tilec: tune tk=32,64\nx = 1\n"))
	if err != nil || s.String() != "tm=64,128 tn=64 tk=32,64" {
		t.Errorf("space %v, %v", s, err)
	}
	if s, err := tune.FromSource([]byte("# a comment\n")); s != nil || err != nil {
		t.Errorf("no block: %v %v", s, err)
	}
	if _, err := tune.FromSource([]byte("# tilec: tune tm\n")); err == nil {
		t.Error("bad block: no error")
	}
	over, _ := tune.ParseSpace([]string{"tn=128 GROUP_SIZE_M=4,8"})
	if got := s.Override(over).String(); got != "tm=64,128 tn=128 tk=32,64 GROUP_SIZE_M=4,8" {
		t.Errorf("override: %s", got)
	}
}

func TestDefaultSpace(t *testing.T) {
	b := builder("../../testdata/kernels/matmul.tile", nil)
	s, err := tune.DefaultSpace(b, mustBuild(t, b), nil)
	if err != nil || s.String() != "tm=64,128,256 tn=128,256,512 tk=32,64,128 GROUP_SIZE_M=4,8,16" {
		t.Errorf("matmul: %v %v", s, err)
	}
	// -D fixes a constant; D sizes attention's arrays: neither is tuned.
	b = builder("../../testdata/kernels/attention.tile", map[string]string{"tq": "64"})
	s, err = tune.DefaultSpace(b, mustBuild(t, b), map[string]string{"tq": "64"})
	if err != nil || s.String() != "tkv=32,64,128" {
		t.Errorf("attention: %v %v", s, err)
	}
	base := mustBuild(t, b)
	if err := s.CheckNames(base, map[string]string{"tkv": "32"}); err == nil || !strings.Contains(err.Error(), "fixed by -D") {
		t.Errorf("CheckNames: %v", err)
	}
	bad, _ := tune.ParseSpace([]string{"tx=1"})
	if err := bad.CheckNames(base, nil); err == nil || !strings.Contains(err.Error(), "has no constant tx") {
		t.Errorf("CheckNames: %v", err)
	}
}

// fakeMS times a matmul candidate by its tiles: 64x64 is fastest.
func fakeMS(f *ir.Func) float64 {
	v := tune.ConstValues(f)
	tm, _ := strconv.Atoi(v["tm"])
	tn, _ := strconv.Atoi(v["tn"])
	return 1 + float64(abs(tm-64)+abs(tn-64))/64
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// A search on the fake device: one candidate pruned at compile time (its
// 512x512 accumulator needs more registers than a thread has), one wrong (not timed),
// the winner the fastest of the rest; its speed-up over the defaults.
func TestSearch(t *testing.T) {
	b := builder("../../testdata/kernels/matmul.tile", map[string]string{"tk": "32"})
	base := mustBuild(t, b)
	space, _ := tune.ParseSpace([]string{"tm=32,64,512 tn=64,512"})
	dev := &benchtest.Device{MS: fakeMS, Corrupt: func(f *ir.Func) bool {
		v := tune.ConstValues(f)
		return v["tm"] == "32" && v["tn"] == "512"
	}}
	var prog bytes.Buffer
	dims := bench.FillDims(base, map[string]int64{"M": 128, "N": 128, "K": 64})
	res, err := tune.Search(dev, &tune.Config{Build: b, Base: base, Space: space, Dims: dims,
		Warmup: 1, Iters: 20, Seed: 1, Progress: &prog})
	if err != nil {
		t.Fatal(err)
	}
	// The defaults (tm=128, tn=256) are outside the space: timed last.
	if n := len(res.Candidates); n != 7 {
		t.Fatalf("%d candidates", n)
	}
	status := map[string]string{}
	for _, c := range res.Candidates {
		status[c.Label] = c.Status
	}
	want := map[string]string{
		"tm=32 tn=64": tune.Timed, "tm=32 tn=512": tune.Wrong, "tm=64 tn=64": tune.Timed,
		"tm=64 tn=512": tune.Timed, "tm=512 tn=64": tune.Timed, "tm=512 tn=512": tune.Pruned,
		"tm=128 tn=256 (defaults)": tune.Timed,
	}
	for l, s := range want {
		if status[l] != s {
			t.Errorf("%s: %s, want %s", l, status[l], s)
		}
	}
	if res.Winner.Label != "tm=64 tn=64" || res.Default == nil || res.Speedup != fakeMS(res.Default.Func) {
		t.Errorf("winner %s, speed-up %g", res.Winner.Label, res.Speedup)
	}
	out := prog.String()
	for _, w := range []string{
		"tune: matmul: 7 candidates, 1 pruned at compile time",
		"tune: [2/6] tm=32 tn=512: wrong: differs from the interpreter",
		"tune: [3/6] tm=64 tn=64: 1.0000 ms",
	} {
		if !strings.Contains(out, w) {
			t.Errorf("progress lacks %q:\n%s", w, out)
		}
	}
	for _, c := range res.Candidates {
		if c.Status == tune.Pruned && !strings.Contains(c.Reason, "registers per thread") {
			t.Errorf("pruned for %q", c.Reason)
		}
	}

	// The winner goes to the cache; Apply finds it for the same kernel,
	// device and class of shapes, and not for others.
	cache := &tune.Cache{Dir: t.TempDir(), Version: "test"}
	path, err := cache.Put(res.Entry(base))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(path, cache.Dir) {
		t.Errorf("entry at %s", path)
	}
	near := bench.FillDims(base, map[string]int64{"M": 100, "N": 128, "K": 33})
	f, note := cache.Apply(b, base, near, dev.Name(), "sm_90")
	if f == nil || tune.ConstValues(f)["tm"] != "64" || tune.ConstValues(f)["tk"] != "32" {
		t.Fatalf("Apply: %v %q", f, note)
	}
	if !strings.HasPrefix(note, "tuned constants from cache: tm=64 tn=64 (") {
		t.Errorf("note %q", note)
	}
	for _, miss := range []func() (*ir.Func, string){
		func() (*ir.Func, string) { // another class of shapes
			return cache.Apply(b, base, bench.FillDims(base, map[string]int64{"M": 4096, "N": 128, "K": 64}), dev.Name(), "sm_90")
		},
		func() (*ir.Func, string) { return cache.Apply(b, base, dims, "NVIDIA A100-SXM4-80GB", "sm_90") },
		func() (*ir.Func, string) { return cache.Apply(b, base, dims, dev.Name(), "sm_80") },
		func() (*ir.Func, string) { // another kernel signature (-D T=bf16)
			bb := builder("../../testdata/kernels/matmul.tile", map[string]string{"tk": "32", "T": "bf16"})
			return cache.Apply(bb, mustBuild(t, bb), dims, dev.Name(), "sm_90")
		},
		func() (*ir.Func, string) { // another build of tilec
			return (&tune.Cache{Dir: cache.Dir, Version: "other"}).Apply(b, base, dims, dev.Name(), "sm_90")
		},
	} {
		if f, note := miss(); f != nil || note != "" {
			t.Errorf("hit: %q", note)
		}
	}

	// A later search with another space wins the lookup.
	e := res.Entry(base)
	e.Space, e.Consts = "tm=32", map[string]string{"tm": "32", "tn": "64"}
	time.Sleep(10 * time.Millisecond)
	if _, err := cache.Put(e); err != nil {
		t.Fatal(err)
	}
	if f, _ := cache.Apply(b, base, dims, dev.Name(), "sm_90"); f == nil || tune.ConstValues(f)["tm"] != "32" {
		t.Errorf("the newest entry was not used")
	}
	list, err := cache.List()
	if err != nil || len(list) != 2 || !list[0].Current {
		t.Errorf("list %v %v", list, err)
	}
	if n, err := cache.Clear(); n != 2 || err != nil {
		t.Errorf("clear: %d %v", n, err)
	}
	if ents, _ := os.ReadDir(cache.Dir); len(ents) != 0 {
		t.Errorf("left after clear: %v", ents)
	}
}

func TestShapeClass(t *testing.T) {
	if got := tune.ShapeClass(map[string]int64{"N": 1025, "M": 1000, "K": 1}); got != "K<=1 M<=1024 N<=2048" {
		t.Errorf("class %q", got)
	}
}

// TestSpaceSizeSaturates: 16 constants of 16 values are 2^64 candidates,
// which a wrapped product counted as 0; the size saturates and the bound
// holds, for a parsed space and for one merged from the source's block and
// --space (each part under the bound, the whole over it).
func TestSpaceSizeSaturates(t *testing.T) {
	vals := "=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16"
	var items []string
	for i := range 16 {
		items = append(items, "c"+strconv.Itoa(i)+vals)
	}
	_, err := tune.ParseSpace([]string{strings.Join(items, " ")})
	if err == nil || !strings.Contains(err.Error(), "more than 4096") {
		t.Errorf("16 knobs of 16 values: %v", err)
	}
	big := tune.Space{}
	for i := range 16 {
		big = append(big, tune.Param{Name: "c" + strconv.Itoa(i), Values: strings.Split(vals[1:], ",")})
	}
	if n := big.Size(); n != math.MaxInt {
		t.Errorf("Size of 16^16 candidates = %d, want math.MaxInt", n)
	}
	src, err := tune.FromSource([]byte("# tilec: tune a=1,2,3,4,5,6,7,8 b=1,2,3,4,5,6,7,8 c=1,2,3,4,5,6,7,8 d=1,2,3,4,5,6,7,8\n"))
	if err != nil || src.Size() != 4096 {
		t.Fatalf("the source's block: %v, %v", src, err)
	}
	flag, err := tune.ParseSpace([]string{"e=" + vals[1:]})
	if err != nil {
		t.Fatal(err)
	}
	merged := src.Override(flag)
	if err := merged.Check(); err == nil || !strings.Contains(err.Error(), "65536 candidates, more than 4096") {
		t.Errorf("the merged space: %v", err)
	}
	if _, err := tune.Search(nil, &tune.Config{Space: merged}); err == nil || !strings.Contains(err.Error(), "more than 4096") {
		t.Errorf("Search of the merged space: %v", err)
	}
	if err := (tune.Space{}).Check(); err != nil {
		t.Errorf("the empty space: %v", err)
	}
}

// TestSearchRatesTheProblem: a candidate's TFLOP/s and GB/s are the
// problem's useful work (2*M*N*K of a 16x256x64 GEMM, not the mma work of
// its 32- or 64-row tiles) and its compulsory bytes (A once, though each
// of the four blocks reads it) over the time, so that larger tiles do not
// look faster; Point sees each timed candidate before it runs.
func TestSearchRatesTheProblem(t *testing.T) {
	b := builder("../../testdata/kernels/matmul.tile", map[string]string{"tk": "32"})
	base := mustBuild(t, b)
	space, _ := tune.ParseSpace([]string{"tm=32,64 tn=64"})
	const ms = 0.5
	dev := &benchtest.Device{MS: func(*ir.Func) float64 { return ms }}
	dims := bench.FillDims(base, map[string]int64{"M": 16, "N": 256, "K": 64})
	var points []string
	res, err := tune.Search(dev, &tune.Config{Build: b, Base: base, Space: space, Dims: dims, Warmup: 1, Iters: 5, Seed: 1,
		Point: func(i, n int, label string) { points = append(points, fmt.Sprintf("%d/%d %s", i, n, label)) }})
	if err != nil {
		t.Fatal(err)
	}
	const flops = 2 * 16 * 256 * 64
	const bytes = (16*64 + 64*256 + 16*256) * 2
	for _, c := range res.Candidates {
		if c.Status != tune.Timed {
			t.Errorf("%s: %s %s", c.Label, c.Status, c.Reason)
			continue
		}
		if want := flops / (ms * 1e-3) / 1e12; math.Abs(c.TFLOPS-want) > 1e-12 {
			t.Errorf("%s: %g TFLOP/s, want the problem's %g", c.Label, c.TFLOPS, want)
		}
		if want := bytes / (ms * 1e-3) / 1e9; math.Abs(c.GBs-want) > 1e-9 {
			t.Errorf("%s: %g GB/s, want the compulsory %g", c.Label, c.GBs, want)
		}
	}
	if want := []string{"0/3 tm=32 tn=64", "1/3 tm=64 tn=64", "2/3 tm=128 tn=256 (defaults)"}; !slices.Equal(points, want) {
		t.Errorf("Point calls %q, want %q", points, want)
	}
}
