package kcache

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/lower"
	"github.com/tilec/tilec/ptxgen"
	"github.com/tilec/tilec/runtime/compile"
)

// exampleFunc compiles an example kernel with the given constants.
func exampleFunc(t *testing.T, file string, consts map[string]string) *ir.Func {
	t.Helper()
	k, err := compile.File(filepath.Join("..", "..", "testdata", "kernels", file), compile.Options{Consts: consts})
	if err != nil {
		t.Fatal(err)
	}
	if k.Func == nil {
		t.Fatalf("%s: generic kernel", file)
	}
	return k.Func
}

func testCache(t *testing.T) *Cache {
	return &Cache{Dir: filepath.Join(t.TempDir(), "kernels"), Version: "test build"}
}

func TestKernelCacheHitMiss(t *testing.T) {
	c := testCache(t)
	f := exampleFunc(t, "matmul.tile", map[string]string{"tm": "64"})
	tg := lower.MustTarget("sm_80")
	want, err := compile.PTXFor(f, tg)
	if err != nil {
		t.Fatal(err)
	}
	if want.General == nil {
		t.Fatal("matmul has no general variant: the test means to store both")
	}
	got, hit, err := c.CompilePTXFor(f, tg)
	if err != nil || hit {
		t.Fatalf("first compile: hit %v, err %v", hit, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatal("first compile differs from compile.PTXFor")
	}
	got, hit, err = c.CompilePTXFor(f, tg)
	if err != nil || !hit {
		t.Fatalf("second compile: hit %v, err %v", hit, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("cached kernel differs from compile.PTXFor:\n%+v\n%+v", got, want)
	}
	// Another Cache on the same directory (another process) reads
	// the same entry.
	c2 := &Cache{Dir: c.Dir, Version: c.Version}
	if got, ok := c2.Get(c.Key(f, tg)); !ok || !reflect.DeepEqual(got, want) {
		t.Fatalf("another cache on the directory: hit %v", ok)
	}

	es, err := c.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 1 {
		t.Fatalf("List: %d entries, want 1", len(es))
	}
	e := es[0]
	if e.Kernel != want.Name || e.Target != "sm_80" || e.Variant != "fast" || !e.Current || e.Err != nil ||
		e.Key != c.Key(f, tg) || e.Bytes < int64(len(want.PTX)+len(want.General.PTX)) {
		t.Errorf("List: %+v", e)
	}
	if es, _ := (&Cache{Dir: c.Dir, Version: "another build"}).List(); len(es) != 1 || es[0].Current {
		t.Errorf("List by another build: %+v, want one entry not current", es)
	}
}

// A hit returns what was stored without compiling: a kernel stored under
// f's key by hand comes back as it is.
func TestKernelCacheHitSkipsCompile(t *testing.T) {
	c := testCache(t)
	f := exampleFunc(t, "vector_add.tile", nil)
	tg := lower.MustTarget("sm_80")
	fake := &ptxgen.Kernel{Name: "from_the_cache", Target: "sm_80", PTX: "// not compiled\n", Block: [3]int{32, 1, 1},
		Params: []ptxgen.ParamSlot{{Kind: ptxgen.SlotPointer, Param: 0}}}
	if err := c.Put(c.Key(f, tg), fake); err != nil {
		t.Fatal(err)
	}
	got, hit, err := c.CompilePTXFor(f, tg)
	if err != nil || !hit || !reflect.DeepEqual(got, fake) {
		t.Fatalf("hit %v, err %v, kernel %+v", hit, err, got)
	}
}

func TestKernelCacheKey(t *testing.T) {
	c := testCache(t)
	sm80, sm90 := lower.MustTarget("sm_80"), lower.MustTarget("sm_90")
	f := exampleFunc(t, "matmul.tile", map[string]string{"tm": "64"})
	key := c.Key(f, sm80)
	if len(key) != 64 {
		t.Fatalf("key %q: want 64 hex digits", key)
	}
	// The same kernel built again has the same key.
	if k := c.Key(exampleFunc(t, "matmul.tile", map[string]string{"tm": "64"}), sm80); k != key {
		t.Errorf("the same kernel built twice: keys %s and %s", key, k)
	}
	tuned := *sm80
	tuned.Tuning.MaxStages = 2
	other := map[string]string{
		"constant tm=128":    c.Key(exampleFunc(t, "matmul.tile", map[string]string{"tm": "128"}), sm80),
		"dtype constant":     c.Key(exampleFunc(t, "matmul.tile", map[string]string{"tm": "64", "T": "bf16"}), sm80),
		"target sm_90":       c.Key(f, sm90),
		"tuning MaxStages=2": c.Key(f, &tuned),
		"another kernel":     c.Key(exampleFunc(t, "matmul_bt.tile", map[string]string{"tm": "64"}), sm80),
		"another build":      (&Cache{Version: "another build"}).Key(f, sm80),
	}
	seen := map[string]string{key: "the kernel"}
	for what, k := range other {
		if prev, dup := seen[k]; dup {
			t.Errorf("%s has the key of %s", what, prev)
		}
		seen[k] = what
	}
	// The IR text decides: a changed op is another key.
	g := exampleFunc(t, "vector_add.tile", nil)
	before := c.Key(g, sm80)
	changed := false
	g.Body.Walk(func(in *ir.Instr) {
		if !changed && in.Op == ir.OpAdd {
			in.Op = ir.OpSub
			changed = true
		}
	})
	if !changed {
		t.Fatal("vector_add has no add")
	}
	if c.Key(g, sm80) == before {
		t.Error("an add changed to a sub keeps the key")
	}
}

// corruptions turn a good entry into something Get must ignore.
var corruptions = map[string]func(entry []byte) []byte{
	"empty":        func([]byte) []byte { return nil },
	"garbage":      func([]byte) []byte { return []byte("\x00\x01 not an entry\n{}") },
	"header only":  func(e []byte) []byte { line, _, _ := bytes.Cut(e, []byte("\n")); return line },
	"truncated":    func(e []byte) []byte { return e[:len(e)*2/3] },
	"extra byte":   func(e []byte) []byte { return append(e, ' ') },
	"flipped byte": func(e []byte) []byte { e[len(e)-20] ^= 0x20; return e },
	"zeroed tail": func(e []byte) []byte {
		for i := len(e) / 2; i < len(e); i++ {
			e[i] = 0
		}
		return e
	},
	"format 2": func(e []byte) []byte {
		return bytes.Replace(e, []byte(`{"format":1,`), []byte(`{"format":2,`), 1)
	},
	"another build": func(e []byte) []byte {
		return bytes.Replace(e, []byte(`"build":"test build"`), []byte(`"build":"test buile"`), 1)
	},
}

func TestKernelCacheCorruptEntry(t *testing.T) {
	f := exampleFunc(t, "vector_add.tile", nil)
	tg := lower.MustTarget("sm_80")
	want, err := compile.PTXFor(f, tg)
	if err != nil {
		t.Fatal(err)
	}
	for name, corrupt := range corruptions {
		t.Run(name, func(t *testing.T) {
			c := testCache(t)
			key := c.Key(f, tg)
			if err := c.Put(key, want); err != nil {
				t.Fatal(err)
			}
			p := c.path(key)
			good, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, corrupt(bytes.Clone(good)), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, ok := c.Get(key); ok {
				t.Fatal("Get: a hit on a corrupt entry")
			}
			if _, err := c.List(); err != nil {
				t.Fatalf("List: %v", err)
			}
			got, hit, err := c.CompilePTXFor(f, tg)
			if err != nil || hit || !reflect.DeepEqual(got, want) {
				t.Fatalf("recompile: hit %v, err %v", hit, err)
			}
			if again, _ := os.ReadFile(p); !bytes.Equal(again[bytes.IndexByte(again, '\n'):], good[bytes.IndexByte(good, '\n'):]) {
				t.Fatal("the entry was not rewritten")
			}
			if _, hit, _ := c.CompilePTXFor(f, tg); !hit {
				t.Fatal("no hit after the rewrite")
			}
		})
	}
	// An entry copied under another key is not that key's entry.
	c := testCache(t)
	key := c.Key(f, tg)
	if err := c.Put(key, want); err != nil {
		t.Fatal(err)
	}
	other := strings.Repeat("0", 64)
	data, _ := os.ReadFile(c.path(key))
	os.WriteFile(c.path(other), data, 0o644)
	if _, ok := c.Get(other); ok {
		t.Error("an entry renamed to another key is a hit")
	}
}

func TestKernelCacheEnvironment(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TILEC_CACHE_DIR", dir)
	t.Setenv("TILEC_CACHE", "")
	if d, err := Dir(); err != nil || d != dir {
		t.Errorf("Dir: %q, %v; want %q", d, err, dir)
	}
	if c := Open(); c == nil || c.Dir != dir {
		t.Errorf("Open: %+v", c)
	}
	for _, off := range []string{"off", "OFF", "0", "false", "no"} {
		t.Setenv("TILEC_CACHE", off)
		if c := Open(); c != nil {
			t.Errorf("TILEC_CACHE=%s: cache %+v", off, c)
		}
	}
	t.Setenv("TILEC_CACHE_DIR", "")
	t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "xdg"))
	if d, err := Dir(); err != nil || d != filepath.Join(dir, "xdg", "tilec", "kernels") {
		t.Errorf("Dir under XDG_CACHE_HOME: %q, %v", d, err)
	}

	// A nil cache (off) compiles and stores nothing.
	var c *Cache
	f := exampleFunc(t, "vector_add.tile", nil)
	for range 2 {
		pk, hit, err := c.CompilePTXFor(f, lower.MustTarget("sm_80"))
		if err != nil || hit || pk == nil {
			t.Fatalf("nil cache: hit %v, err %v", hit, err)
		}
	}
	if err := c.Put("k", &ptxgen.Kernel{}); err != nil {
		t.Error(err)
	}
	// A directory that cannot be created costs only the compilation.
	file := filepath.Join(dir, "file")
	os.WriteFile(file, nil, 0o644)
	bad := &Cache{Dir: filepath.Join(file, "kernels"), Version: "test build"}
	if _, hit, err := bad.CompilePTXFor(f, lower.MustTarget("sm_80")); err != nil || hit {
		t.Fatalf("unwritable cache: hit %v, err %v", hit, err)
	}
}

// Writers and readers in parallel, on separate Cache values as
// separate processes would be: a reader sees a whole entry or none.
func TestKernelCacheConcurrent(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "kernels")
	f := exampleFunc(t, "matmul.tile", map[string]string{"tm": "64"})
	tg := lower.MustTarget("sm_80")
	want, err := compile.PTXFor(f, tg)
	if err != nil {
		t.Fatal(err)
	}
	key := (&Cache{Version: "test build"}).Key(f, tg)
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := &Cache{Dir: dir, Version: "test build"}
			for i := range 12 {
				if (w+i)%2 == 0 {
					if err := c.Put(key, want); err != nil {
						errs <- "Put: " + err.Error()
						return
					}
				} else if got, ok := c.Get(key); ok && !reflect.DeepEqual(got, want) {
					errs <- "Get returned another kernel"
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	des, _ := os.ReadDir(dir)
	if len(des) != 1 || des[0].Name() != key+".kernel" {
		var names []string
		for _, de := range des {
			names = append(names, de.Name())
		}
		t.Errorf("directory holds %v, want the one entry", names)
	}
}

func TestKernelCacheTrimAndClear(t *testing.T) {
	c := testCache(t)
	pk := &ptxgen.Kernel{Name: "k", Target: "sm_80", PTX: strings.Repeat("x", 10000)}
	var keys []string
	old := time.Now().Add(-time.Hour)
	for i := range 10 {
		key := strings.Repeat(string(rune('a'+i)), 64)
		keys = append(keys, key)
		if err := c.Put(key, pk); err != nil {
			t.Fatal(err)
		}
		mt := old.Add(time.Duration(i) * time.Minute) // keys[0] is the least recently used
		os.Chtimes(c.path(key), mt, mt)
	}
	fi, err := os.Stat(c.path(keys[0]))
	if err != nil {
		t.Fatal(err)
	}
	// A hit makes keys[0] the most recently used.
	if _, ok := c.Get(keys[0]); !ok {
		t.Fatal("no hit")
	}
	// A temporary file of a writer that died, and a file not ours.
	stale := filepath.Join(c.Dir, ".tmp-123")
	os.WriteFile(stale, []byte("partial"), 0o644)
	os.Chtimes(stale, old, old)
	foreign := filepath.Join(c.Dir, "notes.txt")
	os.WriteFile(foreign, []byte("mine"), 0o644)

	c.MaxBytes = 6 * fi.Size() // room for 6; the trim keeps 4.5 worth
	if err := c.Trim(); err != nil {
		t.Fatal(err)
	}
	present := func(key string) bool { _, err := os.Stat(c.path(key)); return err == nil }
	for i, key := range keys {
		// Kept: keys[0] (just used) and the 3 most recent of the others.
		if want := i == 0 || i >= 7; present(key) != want {
			t.Errorf("after the trim, entry %d present %v, want %v", i, present(key), want)
		}
	}
	if _, err := os.Stat(stale); err == nil {
		t.Error("the stale temporary file survived the trim")
	}
	var kept int64 // entry sizes differ by a byte or two: the header's time stamp
	for _, key := range keys {
		if fi, err := os.Stat(c.path(key)); err == nil {
			kept += fi.Size()
		}
	}
	n, size, _, err := c.Clear()
	if err != nil || n != 4 || size != kept {
		t.Errorf("Clear: %d entries, %d bytes, %v; want 4, %d", n, size, err, kept)
	}
	if es, err := c.List(); err != nil || len(es) != 0 {
		t.Errorf("List after Clear: %v, %v", es, err)
	}
	if _, err := os.Stat(foreign); err != nil {
		t.Error("Clear removed a file that is not the cache's")
	}
	// An empty or missing directory is an empty cache.
	missing := &Cache{Dir: filepath.Join(t.TempDir(), "none")}
	if es, err := missing.List(); err != nil || len(es) != 0 {
		t.Errorf("List of a missing directory: %v, %v", es, err)
	}
	if n, _, _, err := missing.Clear(); err != nil || n != 0 {
		t.Errorf("Clear of a missing directory: %d, %v", n, err)
	}
}

func TestBuildVersion(t *testing.T) {
	v := BuildVersion()
	if !strings.HasPrefix(v, "devel ") || v != BuildVersion() {
		t.Errorf("test binary: version %q, want a stable devel hash", v)
	}

	exe := filepath.Join(t.TempDir(), "tilec")
	os.WriteFile(exe, []byte("build one"), 0o755)
	executable := func() (string, error) { return exe, nil }
	v1 := versionOf(nil, executable)
	os.WriteFile(exe, []byte("build two"), 0o755)
	if v2 := versionOf(nil, executable); v2 == v1 || !strings.HasPrefix(v2, "devel ") {
		t.Errorf("rebuilt devel binary: %q then %q", v1, v2)
	}

	release := func(version string, settings ...debug.BuildSetting) *debug.BuildInfo {
		return &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/tilec/tilec", Version: version},
			Deps:     []*debug.Module{{Path: "gorgonia.org/cu", Version: "v0.9.6"}},
			Settings: settings}
	}
	rel := versionOf(release("v1.2.0"), executable)
	if !strings.HasPrefix(rel, "v1.2.0 ") {
		t.Errorf("release build: %q", rel)
	}
	if other := versionOf(release("v1.2.0", debug.BuildSetting{Key: "-tags", Value: "cuda"}), executable); other == rel {
		t.Error("other build settings, same version")
	}
	for _, bi := range []*debug.BuildInfo{
		release("(devel)"),
		release(""),
		release("v0.0.0-20261123120000-7ea5622abcde+dirty"),
		release("v0.0.0-20261123120000-7ea5622abcde", debug.BuildSetting{Key: "vcs.modified", Value: "true"}),
		func() *debug.BuildInfo {
			bi := release("v1.2.0")
			bi.Deps[0].Replace = &debug.Module{Path: "../cu"}
			return bi
		}(),
	} {
		if v := versionOf(bi, executable); !strings.HasPrefix(v, "devel ") {
			t.Errorf("%s: version %q, want the executable's hash", bi.Main.Version, v)
		}
	}
}

// Processes sharing a directory: this test binary, run again as writers
// and readers (kcacheChild), each with its own Cache.
func TestKernelCacheProcesses(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "kernels")
	var cmds []*exec.Cmd
	var outs []*bytes.Buffer
	for i := range 4 {
		cmd := exec.Command(exe, "-test.run=^TestKernelCacheChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), "TILEC_KCACHE_CHILD="+dir, fmt.Sprintf("TILEC_KCACHE_CHILD_ID=%d", i))
		out := new(bytes.Buffer)
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds, outs = append(cmds, cmd), append(outs, out)
	}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Errorf("child %d: %v\n%s", i, err, outs[i])
		}
	}
	c := &Cache{Dir: dir, Version: "test build"}
	es, err := c.List()
	if err != nil || len(es) != 2 {
		t.Fatalf("List: %d entries, %v; want 2", len(es), err)
	}
	for _, e := range es {
		if e.Err != nil || !e.Current {
			t.Errorf("entry %+v", e)
		}
	}
}

// TestKernelCacheChild is one process of TestKernelCacheProcesses; alone,
// it does nothing.
func TestKernelCacheChild(t *testing.T) {
	dir := os.Getenv("TILEC_KCACHE_CHILD")
	if dir == "" {
		return
	}
	c := &Cache{Dir: dir, Version: "test build"}
	tg := lower.MustTarget("sm_80")
	fs := []*ir.Func{exampleFunc(t, "matmul.tile", map[string]string{"tm": "64"}), exampleFunc(t, "vector_add.tile", nil)}
	var want []*ptxgen.Kernel
	for _, f := range fs {
		pk, err := compile.PTXFor(f, tg)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, pk)
	}
	id := os.Getenv("TILEC_KCACHE_CHILD_ID")
	for i := range 30 {
		j := i % 2
		if id == "0" && i%5 == 0 {
			c.Clear() // entries vanish under the others
		}
		got, _, err := c.CompilePTXFor(fs[j], tg)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want[j]) {
			t.Fatalf("process %s, round %d: the kernel differs from its compilation", id, i)
		}
	}
}
