package kcache

// The disk cache of compiled kernels: what compile.PTXFor returns, stored
// under a content address so that a second process compiling the same
// kernel for the same target skips lower and ptxgen.
//
// Key: SHA-256 of the cache format, the tilec build (BuildVersion), the
// target value (name and Tuning, as the CUDA backend's in-memory key prints
// it) and the kernel's IR text (ir.Print of the specialized Func: its launch
// signature, baked constants and hints). Nothing else goes into lowering, so
// an entry can only be stale when tilec itself changed, and then its key
// changed too: a rebuilt tilec never reads another build's entries.
//
// Entry: one file, <key>.kernel, holding a header line (JSON: format, key,
// build, kernel name, target, variant, body length and SHA-256) and the
// body (JSON of ptxgen.Kernel, its General variant included). Writes go to a
// temporary file in the same directory and are renamed into place, so a
// reader in another process sees the old entry, the new one or none; a file
// that fails any check (truncated, corrupt, another format or build) is a
// miss, recompiled and overwritten, never an error. The directory is
// trimmed after each write: beyond MaxBytes, the least recently used
// entries (by mtime, which a hit refreshes) go first.

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/lower"
	"github.com/tilec/tilec/ptxgen"
	"github.com/tilec/tilec/runtime"
	"github.com/tilec/tilec/runtime/compile"
)

// Cache is a directory of compiled kernels. Its methods are safe for
// concurrent use, by goroutines and by processes sharing the directory. A
// nil *Cache is a cache that is off: CompilePTXFor compiles, Get
// misses, Put stores nothing.
type Cache struct {
	// Dir holds the entries; it is created on the first Put.
	Dir string
	// MaxBytes bounds the entries' total size (0: DefaultMaxBytes).
	MaxBytes int64
	// Version identifies the compiler that wrote the entries; "" means this
	// build's (BuildVersion). Tests set it to stand for another build.
	Version string
}

const (
	// kcacheFormat is the entry format; a change of the header or the body's
	// encoding bumps it.
	kcacheFormat = 1
	// kcacheExt names entry files; Clear and the trim touch nothing else
	// but their own temporary files, so a TILEC_CACHE_DIR pointed at a
	// directory of other files loses none of them.
	kcacheExt = ".kernel"
	// kcacheTmp prefixes temporary files, renamed into place when complete.
	kcacheTmp = runtime.AtomicTempPrefix
	// kcacheMaxEntry bounds what Get reads: a kernel's PTX is at most a few
	// MiB; anything bigger is not an entry of ours.
	kcacheMaxEntry = 64 << 20
)

// DefaultMaxBytes bounds a cache whose MaxBytes is 0.
const DefaultMaxBytes = 512 << 20

// kcacheHeader is an entry's first line.
type kcacheHeader struct {
	Format  int       `json:"format"`
	Key     string    `json:"key"`
	Build   string    `json:"build"`
	Kernel  string    `json:"kernel"`
	Target  string    `json:"target"`
	Variant string    `json:"variant,omitempty"`
	Created time.Time `json:"created"`
	Bytes   int       `json:"bytes"`  // body length
	Sum     string    `json:"sha256"` // hex SHA-256 of the body
}

// Dir is where the cache lives: $TILEC_CACHE_DIR, or tilec/kernels
// under the user's cache directory (os.UserCacheDir: $XDG_CACHE_HOME or
// ~/.cache on Linux).
func Dir() (string, error) {
	if d := os.Getenv("TILEC_CACHE_DIR"); d != "" {
		return d, nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no directory for the kernel cache (set TILEC_CACHE_DIR): %w", err)
	}
	return filepath.Join(d, "tilec", "kernels"), nil
}

// Enabled reports whether the environment leaves the cache on:
// TILEC_CACHE=off (or 0, false, no) turns it off.
func Enabled() bool {
	switch strings.ToLower(strings.TrimSpace(os.Getenv("TILEC_CACHE"))) {
	case "off", "0", "false", "no":
		return false
	}
	return true
}

// Open returns the cache the environment asks for (Dir,
// Enabled), or nil when it is off or there is no directory for
// it: compiling without a cache is never an error.
func Open() *Cache {
	if !Enabled() {
		return nil
	}
	dir, err := Dir()
	if err != nil {
		return nil
	}
	return &Cache{Dir: dir}
}

var buildVersion = sync.OnceValue(func() string {
	bi, _ := debug.ReadBuildInfo()
	return versionOf(bi, os.Executable)
})

// BuildVersion identifies this build of tilec for the kernel cache: the
// module version and a hash of the build information (Go version, build
// settings, dependencies) for a build of a tagged or committed, unmodified
// tree; otherwise (a devel build, modified sources, a test binary) "devel"
// and the SHA-256 of the executable, so that each rebuild is another
// version.
func BuildVersion() string { return buildVersion() }

func versionOf(bi *debug.BuildInfo, executable func() (string, error)) string {
	if bi != nil && releaseBuild(bi) {
		sum := sha256.Sum256([]byte(bi.String()))
		return bi.Main.Version + " " + hex.EncodeToString(sum[:8])
	}
	if exe, err := executable(); err == nil {
		if f, err := os.Open(exe); err == nil {
			defer f.Close()
			h := sha256.New()
			if _, err := io.Copy(h, f); err == nil {
				return "devel " + hex.EncodeToString(h.Sum(nil)[:16])
			}
		}
	}
	// No way to tell builds apart: a version of its own for this process,
	// so that the cache can be read back only by the process that wrote it.
	return fmt.Sprintf("devel pid %d %d", os.Getpid(), time.Now().UnixNano())
}

// releaseBuild reports whether bi names its sources exactly: a module
// version (not "(devel)"), no modified files, and every dependency at a
// version (none replaced by a directory).
func releaseBuild(bi *debug.BuildInfo) bool {
	v := bi.Main.Version
	if v == "" || v == "(devel)" || strings.Contains(v, "+dirty") {
		return false
	}
	for _, s := range bi.Settings {
		if s.Key == "vcs.modified" && s.Value == "true" {
			return false
		}
	}
	for _, d := range bi.Deps {
		if d.Replace != nil {
			d = d.Replace
		}
		if d.Version == "" || d.Version == "(devel)" {
			return false
		}
	}
	return true
}

func (c *Cache) version() string {
	if c.Version != "" {
		return c.Version
	}
	return BuildVersion()
}

func (c *Cache) maxBytes() int64 {
	if c.MaxBytes > 0 {
		return c.MaxBytes
	}
	return DefaultMaxBytes
}

// Key is the content address of f compiled for t by this cache's build.
func (c *Cache) Key(f *ir.Func, t *lower.Target) string {
	h := sha256.New()
	fmt.Fprintf(h, "tilec kernel cache %d\x00%s\x00%+v\x00", kcacheFormat, c.version(), *t)
	io.WriteString(h, ir.Print(f))
	return hex.EncodeToString(h.Sum(nil))
}

func (c *Cache) path(key string) string { return filepath.Join(c.Dir, key+kcacheExt) }

// CompilePTXFor is compile.PTXFor through the cache: an entry
// for f and t is returned as it was stored (hit true); otherwise f is
// compiled and the result stored. Errors are never cached, and a cache that
// cannot be read or written only costs the compilation.
func (c *Cache) CompilePTXFor(f *ir.Func, t *lower.Target) (pk *ptxgen.Kernel, hit bool, err error) {
	if c == nil {
		pk, err = compile.PTXFor(f, t)
		return pk, false, err
	}
	key := c.Key(f, t)
	if pk, ok := c.Get(key); ok {
		return pk, true, nil
	}
	pk, err = compile.PTXFor(f, t)
	if err != nil {
		return nil, false, err
	}
	_ = c.Put(key, pk) // best effort: the kernel is compiled either way
	return pk, false, nil
}

// Get returns the kernel stored under key, and refreshes the entry's mtime
// (the trim removes the least recently used first). A missing, unreadable
// or invalid entry is a miss.
func (c *Cache) Get(key string) (*ptxgen.Kernel, bool) {
	if c == nil {
		return nil, false
	}
	p := c.path(key)
	data, err := ReadLimited(p, kcacheMaxEntry)
	if err != nil {
		return nil, false
	}
	pk, err := decodeEntry(data, key, c.version())
	if err != nil {
		return nil, false
	}
	now := time.Now()
	_ = os.Chtimes(p, now, now)
	return pk, true
}

// ReadLimited reads the regular file path (OpenRegular) of at most limit
// bytes: a larger one is an error, read no further than the limit.
func ReadLimited(path string, limit int64) ([]byte, error) {
	f, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, errors.New("too large")
	}
	return data, nil
}

// OpenRegular opens path for reading if it is a regular file, not a link:
// a cache's reader must not block on a FIFO or read a link to /dev/zero
// without end, whatever was put in its directory.
func OpenRegular(path string) (*os.File, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	return os.Open(path)
}

// decodeEntry checks an entry's header against key and build and its body
// against the header, and decodes the kernel.
func decodeEntry(data []byte, key, build string) (*ptxgen.Kernel, error) {
	line, body, ok := bytes.Cut(data, []byte("\n"))
	if !ok {
		return nil, errors.New("no header")
	}
	var h kcacheHeader
	if err := json.Unmarshal(line, &h); err != nil {
		return nil, err
	}
	switch {
	case h.Format != kcacheFormat:
		return nil, fmt.Errorf("format %d", h.Format)
	case h.Key != key:
		return nil, errors.New("another key")
	case h.Build != build:
		return nil, errors.New("another build")
	case h.Bytes != len(body):
		return nil, fmt.Errorf("body of %d bytes, header says %d", len(body), h.Bytes)
	}
	if sum := sha256.Sum256(body); hex.EncodeToString(sum[:]) != h.Sum {
		return nil, errors.New("checksum mismatch")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	var pk ptxgen.Kernel
	if err := dec.Decode(&pk); err != nil {
		return nil, err
	}
	if err := checkCached(&pk); err != nil {
		return nil, err
	}
	return &pk, nil
}

// checkCached rejects a decoded kernel that no compilation returns.
func checkCached(pk *ptxgen.Kernel) error {
	if pk.Name == "" || pk.PTX == "" {
		return errors.New("no kernel")
	}
	if g := pk.General; g != nil {
		if pk.Variant != ptxgen.VariantFast || g.Variant != ptxgen.VariantGeneral || g.General != nil || g.PTX == "" {
			return errors.New("bad variants")
		}
	}
	return nil
}

// Put stores pk under key, atomically: the entry appears whole or not at
// all. Then the directory is trimmed to MaxBytes.
func (c *Cache) Put(key string, pk *ptxgen.Kernel) error {
	if c == nil {
		return nil
	}
	body, err := json.Marshal(pk)
	if err != nil {
		return err
	}
	if len(body) > kcacheMaxEntry-4096 {
		return fmt.Errorf("kernel cache: %s is %d bytes, more than an entry holds", pk.Name, len(body))
	}
	sum := sha256.Sum256(body)
	h := kcacheHeader{Format: kcacheFormat, Key: key, Build: c.version(), Kernel: pk.Name, Target: pk.Target,
		Variant: pk.Variant, Created: time.Now().UTC(), Bytes: len(body), Sum: hex.EncodeToString(sum[:])}
	line, err := json.Marshal(h)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return err
	}
	err = runtime.WriteFileAtomic(c.path(key), func(w io.Writer) error {
		_, err := w.Write(append(append(line, '\n'), body...))
		return err
	})
	if err != nil {
		return err
	}
	return c.Trim()
}

// Entry describes one entry (Cache.List).
type Entry struct {
	Key     string
	Kernel  string // the PTX .entry name; "" for an unreadable entry
	Target  string
	Variant string // "fast" when the entry holds both variants
	Bytes   int64  // the file's size
	Created time.Time
	Used    time.Time // the last write or hit (the file's mtime)
	// Current: written by this build; other builds' entries are never
	// read, and the trim removes them in time.
	Current bool
	// Err says why an entry is unreadable (it will be overwritten or
	// trimmed); nil for a good header.
	Err error
}

// List describes the entries, most recently used first. It reads only the
// headers.
func (c *Cache) List() ([]Entry, error) {
	files, err := c.files()
	if err != nil {
		return nil, err
	}
	build := c.version()
	var out []Entry
	for _, fi := range files {
		if !strings.HasSuffix(fi.Name(), kcacheExt) {
			continue
		}
		e := Entry{Key: strings.TrimSuffix(fi.Name(), kcacheExt), Bytes: fi.Size(), Used: fi.ModTime()}
		h, err := readHeader(filepath.Join(c.Dir, fi.Name()))
		switch {
		case err != nil:
			e.Err = err
		case h.Format != kcacheFormat:
			e.Err = fmt.Errorf("format %d, not %d", h.Format, kcacheFormat)
		default:
			e.Kernel, e.Target, e.Variant, e.Created = h.Kernel, h.Target, h.Variant, h.Created
			e.Current = h.Build == build && h.Key == e.Key
		}
		out = append(out, e)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Used.After(out[j].Used) })
	return out, nil
}

func readHeader(path string) (*kcacheHeader, error) {
	f, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	line, err := bufio.NewReaderSize(io.LimitReader(f, 64<<10), 4096).ReadSlice('\n')
	if err != nil {
		return nil, errors.New("no header line")
	}
	var h kcacheHeader
	if err := json.Unmarshal(line, &h); err != nil {
		return nil, errors.New("bad header")
	}
	return &h, nil
}

// files lists the directory's regular files; a missing directory is an
// empty cache.
func (c *Cache) files() ([]fs.FileInfo, error) {
	des, err := os.ReadDir(c.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []fs.FileInfo
	for _, de := range des {
		if !de.Type().IsRegular() {
			continue
		}
		if fi, err := de.Info(); err == nil { // gone meanwhile: another process trimmed it
			out = append(out, fi)
		}
	}
	return out, nil
}

// ownEntry reports whether the file name of the cache's directory is an
// entry that tilec wrote, of any format or build: its first line is a
// header naming the file's key. Clear and Trim remove nothing else, so a
// file of another program that happens to end in .kernel survives them.
func (c *Cache) ownEntry(name string) bool {
	key, isEntry := strings.CutSuffix(name, kcacheExt)
	if !isEntry {
		return false
	}
	h, err := readHeader(filepath.Join(c.Dir, name))
	return err == nil && h.Format > 0 && h.Key == key
}

// Clear removes every entry and temporary file of the cache (nothing else
// in its directory, not a .kernel file whose header is not tilec's) and
// returns how many entries and bytes it removed and the names of the
// .kernel files it left.
func (c *Cache) Clear() (n int, bytes int64, foreign []string, err error) {
	files, err := c.files()
	if err != nil {
		return 0, 0, nil, err
	}
	for _, fi := range files {
		name := fi.Name()
		isEntry := strings.HasSuffix(name, kcacheExt)
		if !isEntry && !strings.HasPrefix(name, kcacheTmp) {
			continue
		}
		if isEntry && !c.ownEntry(name) {
			foreign = append(foreign, name)
			continue
		}
		if err := os.Remove(filepath.Join(c.Dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return n, bytes, foreign, err
		}
		if isEntry {
			n++
			bytes += fi.Size()
		}
	}
	return n, bytes, foreign, nil
}

// Trim removes temporary files left by writers that died (older than an
// hour) and, when tilec's entries exceed MaxBytes, the least recently used ones
// until they fill at most three quarters of it (so that the next writes do
// not trim again at once).
func (c *Cache) Trim() error {
	files, err := c.files()
	if err != nil {
		return err
	}
	var entries []fs.FileInfo
	var total int64
	for _, fi := range files {
		switch name := fi.Name(); {
		case strings.HasPrefix(name, kcacheTmp):
			if time.Since(fi.ModTime()) > time.Hour {
				os.Remove(filepath.Join(c.Dir, name))
			}
		case strings.HasSuffix(name, kcacheExt):
			entries = append(entries, fi)
			total += fi.Size()
		}
	}
	max := c.maxBytes()
	if total <= max {
		return nil
	}
	// Over the limit: only tilec's entries count and may go (the headers
	// are read only now, so that a write under the limit reads none).
	own := entries[:0]
	total = 0
	for _, fi := range entries {
		if c.ownEntry(fi.Name()) {
			own = append(own, fi)
			total += fi.Size()
		}
	}
	entries = own
	sort.Slice(entries, func(i, j int) bool { return entries[i].ModTime().Before(entries[j].ModTime()) })
	for _, fi := range entries {
		if total <= max/4*3 {
			break
		}
		if err := os.Remove(filepath.Join(c.Dir, fi.Name())); err == nil || errors.Is(err, fs.ErrNotExist) {
			total -= fi.Size()
		}
	}
	return nil
}
