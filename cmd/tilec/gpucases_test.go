package main

// TestGPUCases: every kernel that scripts/gpu-check.sh runs on the GPU
// (the run and hopper rows of testdata/gpu/cases.txt) must compile to PTX
// for sm_80 and sm_90a here, where there is no GPU, so that a refusal or a
// compiler panic shows in CI and not first on the GPU machine. The kernels
// the GPU backend still refuses are listed in docs/language.md; the test
// holds that list to be exactly the set refused.

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/lower"
	"github.com/tilec/tilec/ptxgen"
	"github.com/tilec/tilec/runtime"
	"github.com/tilec/tilec/runtime/compile"
	"github.com/tilec/tilec/runtime/cuda"
	"github.com/tilec/tilec/runtime/host"
	"github.com/tilec/tilec/runtime/interp"
)

// gpuCase is one row of testdata/gpu/cases.txt.
type gpuCase struct {
	section, name, file string
	flags, sizes        []string // FLAGS (what is compiled) and SIZES (--shape, --grid)
	output              string   // planted only
	line                int
}

// readGPUCases parses the case file: SECTION|NAME|FILE|FLAGS|SIZES[|OUTPUT],
// # comments and blank lines skipped; the same rules as gpu-check.sh's
// load_cases, plus the checks bash does not make (unique names, the
// columns each section needs).
func readGPUCases(path string) ([]gpuCase, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var cases []gpuCase
	seen := map[string]int{}
	for i, line := range strings.Split(string(data), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "|")
		at := fmt.Sprintf("%s:%d", path, i+1)
		want := 5
		if f[0] == "planted" {
			want = 6
		}
		switch {
		case f[0] != "run" && f[0] != "hopper" && f[0] != "planted":
			return nil, fmt.Errorf("%s: unknown section %q", at, f[0])
		case len(f) != want:
			return nil, fmt.Errorf("%s: %s rows have %d fields, this one %d", at, f[0], want, len(f))
		case f[1] == "" || f[2] == "":
			return nil, fmt.Errorf("%s: a case needs a name and a file", at)
		case strings.TrimSpace(line) != line:
			// bash's read keeps the spaces; a stray one would change a flag.
			return nil, fmt.Errorf("%s: leading or trailing space", at)
		}
		if prev, dup := seen[f[1]]; dup {
			return nil, fmt.Errorf("%s: case %s already on line %d", at, f[1], prev)
		}
		seen[f[1]] = i + 1
		c := gpuCase{section: f[0], name: f[1], file: f[2], flags: strings.Fields(f[3]), sizes: strings.Fields(f[4]), line: i + 1}
		if len(f) == 6 {
			c.output = f[5]
		}
		cases = append(cases, c)
	}
	return cases, nil
}

// gpuCaseTargets are the targets every run and hopper case compiles for:
// the mma.sync code every supported GPU runs, and Hopper's TMA + wgmma.
var gpuCaseTargets = []string{"sm_80", "sm_90a"}

// gpuCaseDevices are what host code's torch.cuda queries see for each
// target: host functions pick their tiles from the device
// (examples/cutile/attention.py asks for capability (9, 0)), so each
// target gets the kernels a GPU of its kind would launch.
var gpuCaseDevices = map[string]cuda.DeviceFacts{
	"sm_80":  {Name: "NVIDIA A100 (TestGPUCases)", Major: 8, Minor: 0, SMs: 108, TotalBytes: 80 << 30},
	"sm_90a": {Name: "NVIDIA H100 (TestGPUCases)", Major: 9, Minor: 0, SMs: 132, TotalBytes: 80 << 30},
}

// gpuRefusal matches the GPU backend's refusals: lower's and ptxgen's
// "ptxgen TARGET: ... not supported (on the GPU) yet" and the
// "not implemented yet" of a path not written. Any other compile error is
// a bug in the case or the compiler.
var gpuRefusal = regexp.MustCompile(`not supported (on the GPU )?yet|is not implemented yet`)

// gpuCaseRefusedDoc is the docs/language.md section that lists the
// refused cases, one line each: "- `NAME` on TARGET: reason".
const gpuCaseRefusedDoc = "## Kernels the GPU backend refuses"

var gpuCaseRefusedLine = regexp.MustCompile("^- `([^`]+)` on (sm_[0-9a-z]+): (.+)$")

// gpuCaseJob is the work shared by the cases that compile the same
// kernels: a kernel file with the same flags (sizes do not change what is
// compiled), a host function with the same flags and sizes (it may pick
// its tiles from the sizes), or a script.
type gpuCaseJob struct {
	kind    string // "kernel", "entry" or "script"
	file    string
	flags   []string // kernel: tilec compile's flags; entry: FLAGS and SIZES
	cases   []string // the case names that share it
	refused map[string]string
}

func gpuCaseJobs(t *testing.T, root string, cases []gpuCase) []*gpuCaseJob {
	var jobs []*gpuCaseJob
	byKey := map[string]*gpuCaseJob{}
	for _, c := range cases {
		if c.section == "planted" {
			continue // the planted build runs kernels of run rows; nothing new to compile
		}
		j := &gpuCaseJob{file: c.file}
		switch {
		case slices.Contains(c.flags, "--entry"):
			j.kind, j.flags = "entry", append(slices.Clone(c.flags), c.sizes...)
		case len(c.flags) == 0 && len(c.sizes) == 0 && isScript(t, filepath.Join(root, c.file)):
			j.kind = "script"
		default:
			j.kind, j.flags = "kernel", c.flags
		}
		key := j.kind + "\x00" + j.file + "\x00" + strings.Join(j.flags, "\x00")
		if old, ok := byKey[key]; ok {
			old.cases = append(old.cases, c.name)
			continue
		}
		j.cases = []string{c.name}
		byKey[key] = j
		jobs = append(jobs, j)
	}
	return jobs
}

// isScript says whether tilec run FILE (no flags) runs the file's __main__
// block, as cmdRun decides.
func isScript(t *testing.T, path string) bool {
	prog, err := loadScript(path)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return prog != nil
}

// ptxCache compiles each specialized kernel once per target: the host
// functions of many cases launch the same kernels at different sizes.
type ptxCache struct {
	mu sync.Mutex
	m  map[string]*ptxEntry
}

type ptxEntry struct {
	once sync.Once
	pk   *ptxgen.Kernel
	err  error
}

func (c *ptxCache) compile(f *ir.Func, t *lower.Target) (*ptxgen.Kernel, error) {
	key := t.String() + "\x00" + ir.Print(f)
	c.mu.Lock()
	e, ok := c.m[key]
	if !ok {
		e = &ptxEntry{}
		c.m[key] = e
	}
	c.mu.Unlock()
	e.once.Do(func() { e.pk, e.err = compile.PTXFor(f, t) })
	return e.pk, e.err
}

// compiledPTX is one kernel's PTX for a target, for TILEC_GPU_CASES_PTX.
type compiledPTX struct {
	name          string // case_kernel
	fast, general string // general: "" for a kernel with one form
}

func TestGPUCases(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	cases, err := readGPUCases(filepath.Join(root, "testdata/gpu/cases.txt"))
	if err != nil {
		t.Fatal(err)
	}
	// Every example program runs as a script on the GPU: a new
	// examples/*.tile needs its script_ row (gpu-check took them from a
	// glob before the case file).
	scripts := map[string]bool{}
	for _, c := range cases {
		if c.section == "run" && strings.HasPrefix(c.name, "script_") {
			scripts[c.file] = true
		}
	}
	examples, _ := filepath.Glob(filepath.Join(root, "examples/*.tile"))
	for _, e := range examples {
		if rel, _ := filepath.Rel(root, e); !scripts[rel] {
			t.Errorf("%s has no script_ row in testdata/gpu/cases.txt", rel)
		}
	}
	for _, c := range cases {
		if _, err := os.Stat(filepath.Join(root, c.file)); err != nil {
			t.Errorf("case %s: %v", c.name, err)
		}
	}
	// The CLI path reads and writes the kernel cache; a test must not
	// fill the user's.
	t.Setenv("TILEC_CACHE", "off")
	ptxDir := os.Getenv("TILEC_GPU_CASES_PTX") // scripts/ptxas-check.sh assembles what lands here
	jobs := gpuCaseJobs(t, root, cases)
	cache := &ptxCache{m: map[string]*ptxEntry{}}
	var mu sync.Mutex
	refused := map[string]string{} // "NAME on TARGET" -> the refusal
	var dumped []compiledPTX
	t.Run("compile", func(t *testing.T) {
		for _, j := range jobs {
			for _, target := range gpuCaseTargets {
				t.Run(j.cases[0]+"/"+target, func(t *testing.T) {
					t.Parallel()
					tg, err := lower.LookupTarget(target)
					if err != nil {
						t.Fatal(err)
					}
					var out []compiledPTX
					var errs []error
					switch j.kind {
					case "kernel":
						out, errs = compileKernelCase(root, j, target, ptxDir != "")
					default:
						out, errs = compileHostCase(root, j, tg, cache)
					}
					mu.Lock()
					defer mu.Unlock()
					for _, err := range errs {
						if !gpuRefusal.MatchString(err.Error()) {
							t.Errorf("%s (cases %s): %v", j.file, strings.Join(j.cases, " "), err)
							continue
						}
						for _, name := range j.cases {
							refused[name+" on "+target] = firstLine(err.Error())
						}
					}
					dumped = append(dumped, out...)
				})
			}
		}
	})
	if t.Failed() {
		return
	}
	listed, err := readRefusedList(filepath.Join(root, "docs/language.md"))
	if err != nil {
		t.Fatal(err)
	}
	for k, why := range refused {
		if _, ok := listed[k]; !ok {
			t.Errorf("the GPU backend refuses %s (%s); list it in docs/language.md's %q", k, why, gpuCaseRefusedDoc)
		}
	}
	for k := range listed {
		if _, ok := refused[k]; !ok {
			t.Errorf("docs/language.md lists %s as refused, but it compiles: take it off the list", k)
		}
	}
	if ptxDir != "" {
		writeCasePTX(t, ptxDir, dumped)
	}
}

// compileKernelCase compiles a kernel row as `tilec compile FILE --emit ptx
// --target T FLAGS` (every kernel of the file unless FLAGS name one): the
// CLI that users and ptxas-check.sh run. withGeneral also prints the
// general variant (the same compile; only what is printed differs).
func compileKernelCase(root string, j *gpuCaseJob, target string, withGeneral bool) ([]compiledPTX, []error) {
	compile := func(variant string) (string, error) {
		var stdout, stderr bytes.Buffer
		args := append([]string{"compile", filepath.Join(root, j.file), "--emit", "ptx", "--target", target, "--variant", variant}, j.flags...)
		if rc := runCommand(args, &stdout, &stderr); rc != 0 {
			return "", fmt.Errorf("tilec %s: exit %d: %s", strings.Join(args, " "), rc, strings.TrimSpace(stderr.String()))
		}
		return stdout.String(), nil
	}
	fast, err := compile("fast")
	if err != nil {
		return nil, []error{err}
	}
	if !withGeneral {
		return nil, nil
	}
	general, err := compile("general")
	if err != nil {
		return nil, []error{err}
	}
	fasts, generals := splitPTX(fast), splitPTX(general)
	var out []compiledPTX
	for i, f := range fasts {
		c := compiledPTX{name: j.cases[0] + "_" + ptxKernelName(f), fast: f}
		if i < len(generals) && generals[i] != f {
			c.general = generals[i]
		}
		out = append(out, c)
	}
	return out, nil
}

// splitPTX splits tilec compile's output for a file of several kernels
// into one module per kernel (each its own .version, as ptxas needs).
func splitPTX(s string) []string {
	const head = "//\n// Generated by tilec for "
	var mods []string
	for {
		i := strings.Index(s[1:], head)
		if i < 0 {
			return append(mods, s)
		}
		mods = append(mods, s[:i+1])
		s = s[i+1:]
	}
}

var ptxEntryName = regexp.MustCompile(`(?m)^\.visible \.entry ([A-Za-z_0-9$]+)`)

func ptxKernelName(ptx string) string {
	if m := ptxEntryName.FindStringSubmatch(ptx); m != nil {
		return m[1]
	}
	return "kernel"
}

// compileHostCase runs a host function (--entry) or a script's __main__
// block with every ct.launch compiled for the target instead of run: the
// kernels a GPU of the target's kind would be given. A script's launches
// also run on the interpreter, since its own checks read their results;
// a host function's do not (their sizes are the GPU's, too large for the
// interpreter in a unit test), and no host function of the cases reads a
// kernel's output to decide what to launch next.
func compileHostCase(root string, j *gpuCaseJob, t *lower.Target, cache *ptxCache) ([]compiledPTX, []error) {
	path := filepath.Join(root, j.file)
	device := gpuCaseDevices[t.String()]
	var out []compiledPTX
	var errs []error
	seen := map[string]bool{}
	opts := host.Options{Stdout: io.Discard, Device: &device, Launch: func(l *host.Launch) error {
		k, err := l.Kernel.Specialize(l.Args)
		if err != nil {
			return err
		}
		pk, err := cache.compile(k.Func, t)
		if err != nil {
			// Keep going: the refusals of every launch are reported together.
			errs = append(errs, quoteSource(path, err))
		} else if !seen[pk.PTX] {
			seen[pk.PTX] = true
			c := compiledPTX{name: fmt.Sprintf("%s_%s", j.cases[0], k.Func.Name), fast: pk.PTX}
			if pk.General != nil && pk.General.PTX != pk.PTX {
				c.general = pk.General.PTX
			}
			out = append(out, c)
		}
		if j.kind == "script" {
			_, err := interp.CPU{}.Launch(k, l.Args, runtime.LaunchOptions{Grid: l.Grid})
			return err
		}
		return nil
	}}
	var err error
	switch j.kind {
	case "script":
		var prog *host.Program
		if prog, err = loadScript(path); err == nil {
			opts.Seed = 1
			err = prog.RunMain(opts)
		}
	case "entry":
		err = runHostCase(path, j.flags, opts)
	}
	if err != nil {
		errs = append(errs, err)
	}
	return out, errs
}

// runHostCase parses a row's flags as tilec run --entry does and runs the
// host function with opts.
func runHostCase(path string, flags []string, opts host.Options) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	entry := fs.String("entry", "", "")
	sigs, shapes, scalars := argSigs{}, keyValues{}, keyValues{}
	fs.Var(sigs, "arg", "")
	fs.Var(shapes, "shape", "")
	fs.Var(scalars, "scalar", "")
	if err := fs.Parse(flags); err != nil || fs.NArg() > 0 {
		return fmt.Errorf("flags %q: only --entry, --arg, --scalar and --shape go with a host function here (%v)", strings.Join(flags, " "), err)
	}
	src, err := readSource(path)
	if err != nil {
		return err
	}
	r := &entryRun{path: path, src: src, entry: *entry, sigs: sigs, shapes: shapes, scalars: scalars, seed: 1}
	prog, params, err := loadEntry(path, *entry)
	if err != nil {
		return err
	}
	args, _, err := r.entryArgs(params)
	if err != nil {
		return err
	}
	if _, err := prog.Run(*entry, args, opts); err != nil {
		return quoteSource(path, err)
	}
	return nil
}

// readRefusedList reads docs/language.md's list of refused cases: the
// lines "- `NAME` on TARGET: reason" of its refusals section.
func readRefusedList(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	listed := map[string]string{}
	in, found := false, false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "## ") {
			in = line == gpuCaseRefusedDoc
			found = found || in
			continue
		}
		if !in || !strings.HasPrefix(line, "- ") {
			continue
		}
		m := gpuCaseRefusedLine.FindStringSubmatch(line)
		if m == nil {
			return nil, fmt.Errorf("%s: %q is not \"- `NAME` on TARGET: reason\"", path, line)
		}
		listed[m[1]+" on "+m[2]] = m[3]
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if !found {
		return nil, errors.New(path + ": no section " + gpuCaseRefusedDoc)
	}
	return listed, nil
}

// writeCasePTX writes each distinct module once, as NAME.TARGET.ptx (and
// NAME.TARGET.general.ptx), for scripts/ptxas-check.sh; the target is in
// the name because ptxas is run with -arch of the target the PTX is for.
func writeCasePTX(t *testing.T, dir string, mods []compiledPTX) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// Stable: one job's modules (a script's launches, in launch order)
	// share a name and keep their order, so the files are the same from
	// run to run; a repeated name gets a count.
	sort.SliceStable(mods, func(a, b int) bool { return mods[a].name < mods[b].name })
	seen := map[string]bool{}
	used := map[string]int{}
	write := func(name, ptx string) {
		if ptx == "" || seen[ptx] {
			return
		}
		seen[ptx] = true
		target := ptxTarget.FindStringSubmatch(ptx)
		if target == nil {
			t.Fatalf("%s: no .target line", name)
		}
		key := name + "." + target[1]
		if n := used[key]; n > 0 {
			used[key]++
			name = fmt.Sprintf("%s_%d", name, n+1)
		} else {
			used[key] = 1
		}
		if err := os.WriteFile(filepath.Join(dir, name+"."+target[1]+".ptx"), []byte(ptx), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, m := range mods {
		write(m.name, m.fast)
		write(m.name+"_general", m.general)
	}
}

var ptxTarget = regexp.MustCompile(`(?m)^\.target (sm_[0-9a-z]+)`)

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
