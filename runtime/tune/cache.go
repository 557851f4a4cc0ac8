package tune

// The disk cache of tuning results, beside the kernel cache: the directory
// "tuned" inside kcache.Dir (the kernel cache's Clear and trim
// touch only its own files, not this directory). One JSON file per result,
// named
//
//	<what>-<space>.json
//
// where <what> is a hash of the cache format, the tilec build
// (kcache.BuildVersion), the device name, the target, the kernel's
// signature (Signature: its IR as built with the user's constants, so the
// source, the launch signature and every constant not tuned) and the shape
// class (ShapeClass), and <space> a hash of the search space. Tuning again
// with the same space replaces the file; with another space adds one.
// `tilec run` and `tilec bench` look up <what> and take the newest file:
// the last tuning of that kernel for that device and class of shapes,
// whatever space it searched.

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/runtime"
	"github.com/tilec/tilec/runtime/bench"
	"github.com/tilec/tilec/runtime/compile"
	"github.com/tilec/tilec/runtime/kcache"
)

// cacheFormat is the entry format; bump it when Entry changes meaning
// (2: the knobs apart from the constants).
const cacheFormat = 2

// Entry is one tuning result.
type Entry struct {
	Format     int    `json:"format"`
	Kernel     string `json:"kernel"`
	File       string `json:"file,omitempty"`
	Signature  string `json:"signature"`
	Space      string `json:"space"`
	ShapeClass string `json:"shape_class"`
	// Dims are the shapes it was tuned at.
	Dims   map[string]int64 `json:"dims"`
	Device string           `json:"device"`
	Target string           `json:"target"`
	Build  string           `json:"build"`
	// Consts and Knobs are the winner's values of the space's constants
	// and knobs (stages, occupancy: ApplyKnobs); Names are both, in the
	// space's order.
	Names  []string          `json:"names"`
	Consts map[string]string `json:"consts"`
	Knobs  map[string]string `json:"knobs,omitempty"`
	// MS is the winner's median time; DefaultMS the defaults'.
	MS        float64   `json:"ms"`
	DefaultMS float64   `json:"default_ms"`
	Created   time.Time `json:"created"`
}

// ConstsString prints the winner's constants and knobs: tm=64 tn=128
// stages=3.
func (e *Entry) ConstsString() string {
	parts := make([]string, len(e.Names))
	for i, n := range e.Names {
		v, ok := e.Consts[n]
		if !ok {
			v = e.Knobs[n]
		}
		parts[i] = n + "=" + v
	}
	return strings.Join(parts, " ")
}

// Cache is a directory of tuning results. A nil *Cache is off: Lookup
// misses, Put stores nothing.
type Cache struct {
	Dir string
	// Version identifies the tilec build; "" means this one
	// (kcache.BuildVersion). Tests set it.
	Version string
}

// CacheDir is the "tuned" directory inside the kernel cache's.
func CacheDir() (string, error) {
	d, err := kcache.Dir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "tuned"), nil
}

// OpenCache returns the cache the environment names (nil when
// TILEC_CACHE=off or there is no cache directory).
func OpenCache() *Cache {
	if !kcache.Enabled() {
		return nil
	}
	d, err := CacheDir()
	if err != nil {
		return nil
	}
	return &Cache{Dir: d}
}

func (c *Cache) version() string {
	if c.Version != "" {
		return c.Version
	}
	return kcache.BuildVersion()
}

// Signature identifies a kernel as built with the user's constants (not
// the tuned ones): its IR text holds the launch signature, every constant
// and the body.
func Signature(f *ir.Func) string {
	sum := sha256.Sum256([]byte(ir.Print(f)))
	return hex.EncodeToString(sum[:])
}

// ShapeClass buckets the symbolic dims: each rounded up to a power of two
// (M=1000 and M=1024 are one class, M=1025 the next), so that a result
// tuned at one size is used at the sizes near it.
func ShapeClass(dims map[string]int64) string {
	keys := make([]string, 0, len(dims))
	for k := range dims {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		c := int64(1)
		for c < dims[k] && c < 1<<40 {
			c *= 2
		}
		parts[i] = fmt.Sprintf("%s<=%d", k, c)
	}
	return strings.Join(parts, " ")
}

func hash16(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:32]
}

// what is the file-name prefix of the results for one kernel, device and
// shape class.
func (c *Cache) what(signature, device, target, class string) string {
	return hash16(fmt.Sprint(cacheFormat), c.version(), device, target, signature, class)
}

// Put stores e (its Build and Format are set here) and returns the file.
func (c *Cache) Put(e *Entry) (string, error) {
	if c == nil {
		return "", errors.New("the tuning cache is off (TILEC_CACHE=off)")
	}
	e.Format, e.Build = cacheFormat, c.version()
	data, err := json.MarshalIndent(e, "", "  ")
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(c.Dir, c.what(e.Signature, e.Device, e.Target, e.ShapeClass)+"-"+hash16(e.Space)[:12]+".json")
	err = runtime.WriteFileAtomic(path, func(w io.Writer) error {
		_, err := w.Write(append(data, '\n'))
		return err
	})
	if err != nil {
		return "", err
	}
	return path, nil
}

// Lookup returns the newest result for the kernel with this signature on
// the device and target at shapes of this class; ok is false when there is
// none (or it is unreadable, or another build's).
func (c *Cache) Lookup(signature, device, target, class string) (*Entry, bool) {
	if c == nil {
		return nil, false
	}
	files, _ := filepath.Glob(filepath.Join(c.Dir, c.what(signature, device, target, class)+"-*.json"))
	var best *Entry
	var bestTime time.Time
	for _, f := range files {
		fi, err := os.Stat(f)
		if err != nil {
			continue
		}
		e, err := readEntry(f)
		if err != nil || e.Build != c.version() || e.Signature != signature || e.Device != device ||
			e.Target != target || e.ShapeClass != class {
			continue
		}
		if best == nil || fi.ModTime().After(bestTime) {
			best, bestTime = e, fi.ModTime()
		}
	}
	return best, best != nil
}

func readEntry(path string) (*Entry, error) {
	e, err := readAnyEntry(path)
	if err != nil {
		return nil, err
	}
	if e.Format != cacheFormat || len(e.Names) == 0 {
		return nil, fmt.Errorf("%s: not a tuning result of format %d", path, cacheFormat)
	}
	return e, nil
}

// maxEntryBytes bounds a result file a reader reads: Put writes a few
// kilobytes.
const maxEntryBytes = 1 << 20

// readAnyEntry reads a result file of any format: a regular file (not a
// FIFO or a link to /dev/zero, which would not end) of bounded size.
func readAnyEntry(path string) (*Entry, error) {
	data, err := kcache.ReadLimited(path, maxEntryBytes)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	var e Entry
	if err := json.Unmarshal(data, &e); err != nil {
		return nil, err
	}
	return &e, nil
}

// List reads every result in the cache (unreadable files are skipped),
// newest first; Current says whether this build wrote it.
func (c *Cache) List() ([]ListedEntry, error) {
	if c == nil {
		return nil, nil
	}
	des, err := os.ReadDir(c.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []ListedEntry
	for _, de := range des {
		if !strings.HasSuffix(de.Name(), ".json") || !de.Type().IsRegular() {
			continue
		}
		p := filepath.Join(c.Dir, de.Name())
		e, err := readEntry(p)
		if err != nil {
			continue
		}
		out = append(out, ListedEntry{Entry: e, Path: p, Current: e.Build == c.version()})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Created.After(out[j].Created) })
	return out, nil
}

// ListedEntry is a result found by List.
type ListedEntry struct {
	*Entry
	Path    string
	Current bool
}

// Clear removes every result (and temporary file) and says how many
// results it removed. A .json file that is not a tuning result of some
// format (no format and signature) is another program's and stays.
func (c *Cache) Clear() (int, error) {
	if c == nil {
		return 0, nil
	}
	des, err := os.ReadDir(c.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	n := 0
	for _, de := range des {
		name := de.Name()
		if !de.Type().IsRegular() || !(strings.HasSuffix(name, ".json") || strings.HasPrefix(name, runtime.AtomicTempPrefix)) {
			continue
		}
		if strings.HasSuffix(name, ".json") {
			if e, err := readAnyEntry(filepath.Join(c.Dir, name)); err != nil || e.Format <= 0 || e.Signature == "" {
				continue
			}
		}
		if err := os.Remove(filepath.Join(c.Dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return n, err
		}
		if strings.HasSuffix(name, ".json") {
			n++
		}
	}
	return n, nil
}

// Apply looks up the tuning result for base (the kernel built with the
// user's constants) at dims on the device and target, and builds the
// kernel with the winner's constants and knobs. It returns nil (and no
// note) when there is none; note says what was applied ("tuned constants
// from cache: tm=64 tn=128 stages=3 (1.31x the defaults)"). A result whose
// build fails or changes the kernel's parameters is ignored, with a note
// saying so.
func (c *Cache) Apply(build Build, base *ir.Func, dims map[string]int64, device, target string) (*ir.Func, string) {
	e, ok := c.Lookup(Signature(base), device, target, ShapeClass(dims))
	if !ok {
		return nil, ""
	}
	f, err := build(e.Consts)
	if err == nil {
		f, err = ApplyKnobs(f, e.Knobs)
	}
	if err != nil {
		return nil, fmt.Sprintf("tuned constants from cache not used (%s): %v", e.ConstsString(), err)
	}
	if !SameParams(base, f) {
		return nil, fmt.Sprintf("tuned constants from cache not used (%s): they change the kernel's parameters", e.ConstsString())
	}
	note := "tuned constants from cache: " + e.ConstsString()
	if e.DefaultMS > 0 && e.MS > 0 {
		note += fmt.Sprintf(" (%.2fx the defaults at %s)", e.DefaultMS/e.MS, dimsString(e.Dims))
	}
	return f, note
}

func dimsString(dims map[string]int64) string {
	keys := make([]string, 0, len(dims))
	for k := range dims {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%d", k, dims[k])
	}
	return strings.Join(parts, ",")
}

// CompileFile is compile.File with the tuning cached for the kernel
// on dev at the shapes of args: the kernel built with the winner's
// constants and knobs, as `tilec run` and `tilec bench` launch it, or the
// kernel as opts build it when there is no result (or c is nil: the cache
// is off). note says what was applied, or why a result was not ("" when
// there was none). The lookup keys on the kernel as opts build it, so
// opts must be what tilec tune was given: the same -D constants (Consts)
// and, for a kernel with unannotated parameters, the same --arg
// signatures (Args); args are the launch's arguments, whose shapes pick the
// class. For the CUDA backend, dev is bench.CUDADevice(gpu).
func (c *Cache) CompileFile(dev bench.Device, path string, opts compile.Options, args []runtime.Arg) (k *runtime.Kernel, note string, err error) {
	k, err = compile.File(path, opts)
	if err != nil {
		return nil, "", err
	}
	if c == nil {
		return k, "", nil
	}
	if k.IsGeneric() {
		return nil, "", fmt.Errorf("%s: kernel %s has parameters without types: give compile.Options.Args the signatures it was tuned with (tilec tune --arg)", path, k.Name())
	}
	b, err := k.Bind(args, [3]int{})
	if err != nil {
		return nil, "", err
	}
	t, err := dev.Target()
	if err != nil {
		return nil, "", err
	}
	build := func(consts map[string]string) (*ir.Func, error) {
		o := opts
		o.Consts = map[string]string{}
		for n, v := range opts.Consts {
			o.Consts[n] = v
		}
		for n, v := range consts {
			o.Consts[n] = v
		}
		g, err := compile.File(path, o)
		if err != nil {
			return nil, err
		}
		return g.Func, nil
	}
	f, note := c.Apply(build, k.Func, b.Dims, dev.Name(), t.Name)
	if f == nil {
		return k, note, nil
	}
	return runtime.NewKernel(f), note, nil
}
