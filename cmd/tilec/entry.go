package main

// tilec run FILE --entry FUNC: run a cuTile program's host launch function
// (the seed post's cutile_matmul(A, B)) as written. Its tensor parameters
// get seeded random inputs of the signatures given with --arg (or .npy
// files with --in), its other parameters --scalar values or their
// defaults; every ct.launch runs on the chosen backend and, on a GPU, is
// checked against the interpreter as a plain `tilec run` is.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tilec/tilec/ir/build"
	"github.com/tilec/tilec/lang"
	"github.com/tilec/tilec/runtime"
	"github.com/tilec/tilec/runtime/check"
	"github.com/tilec/tilec/runtime/cuda"
	"github.com/tilec/tilec/runtime/host"
	"github.com/tilec/tilec/runtime/npy"
)

// entryRun is what `tilec run --entry` needs from the command line.
type entryRun struct {
	path, entry          string
	src                  *source // path's text, read once
	sigs                 argSigs
	shapes, scalars, ins keyValues
	outs                 keyValues
	seed                 int64
	backend              runtime.Backend
	argv                 []string // a script's own arguments (after --)
	workers              int
	timeout              time.Duration
	progress             string // --progress, as a kernel's run takes it ("": off)
	stdout, stderr       io.Writer
	strict               bool // the launched kernels built in strict mode (--strict)
}

// entryConflicts rejects the flags that choose what a host function
// chooses itself: the kernel (--kernel), its grid and constants.
func entryConflicts(kernel, grid string, consts defines) error {
	switch {
	case kernel != "":
		return usagef("--entry and --kernel: the host function chooses the kernels it launches")
	case grid != "":
		return usagef("--entry and --grid: the host function gives each launch its grid")
	case len(consts) > 0:
		return usagef("--entry and -D: the host function passes the constants to ct.launch")
	}
	return nil
}

// loadEntry loads the program of path and the parameters of its host
// function entry.
func loadEntry(path, entry string) (*host.Program, []host.Param, error) {
	s, err := readSource(path)
	if err != nil {
		return nil, nil, err
	}
	return s.entry(entry)
}

// entry is loadEntry on a source already read.
func (s *source) entry(entry string) (*host.Program, []host.Param, error) {
	file, err := s.parse()
	if err != nil {
		return nil, nil, err
	}
	prog, err := host.Load(file)
	if err != nil {
		return nil, nil, err
	}
	params, err := prog.Entry(entry)
	if err != nil {
		return nil, nil, err
	}
	return prog, params, nil
}

// returnsValue reports whether the host function entry of the file may
// return a value: whether its body has a return statement with one. A
// function the file does not define itself (or does not parse) may.
func (s *source) returnsValue(entry string) bool {
	f := s.def(entry)
	return f == nil || bodyReturnsValue(f.Body)
}

// def is the file's own def of name (nil if it has none, or does not
// parse).
func (s *source) def(name string) *lang.FuncDef {
	if s == nil {
		return nil
	}
	file, err := s.parse()
	if err != nil {
		return nil
	}
	for _, f := range file.Funcs {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// scalarAnnotations are the host function's parameters annotated with a
// Python scalar type (`eps: float`, `n: int`, `causal: bool`, `name:
// str`), by name: their --scalar values are read as that type.
func (s *source) scalarAnnotations(entry string) map[string]string {
	out := map[string]string{}
	if f := s.def(entry); f != nil {
		for _, p := range f.Params {
			if n, ok := p.Annot.(*lang.Name); ok {
				switch n.Name {
				case "float", "int", "bool", "str":
					out[p.Name] = n.Name
				}
			}
		}
	}
	return out
}

// parseAnnotatedScalar reads a --scalar value as the Python type its
// parameter is annotated with, as float(), int() and a bool literal would:
// text that is not one is a usage error before the run, not a string that
// reaches a ct.launch.
func parseAnnotatedScalar(typ, s string) (any, error) {
	switch typ {
	case "float":
		if f, ok := parseFloatValue(strings.ReplaceAll(s, "_", "")); ok {
			return f, nil
		}
		return nil, fmt.Errorf("want a float (1.5, 1e-5, inf, nan)")
	case "int":
		n, err := strconv.ParseInt(strings.ReplaceAll(s, "_", ""), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("want an int")
		}
		return n, nil
	case "bool":
		switch s {
		case "True", "true":
			return true, nil
		case "False", "false":
			return false, nil
		}
		return nil, fmt.Errorf("want True or False")
	}
	return s, nil
}

// bodyReturnsValue reports whether statements hold a `return e`, in any
// block (a nested def's returns are its own).
func bodyReturnsValue(body []lang.Stmt) bool {
	for _, st := range body {
		switch st := st.(type) {
		case *lang.ReturnStmt:
			if st.Value != nil {
				return true
			}
		case *lang.IfStmt:
			if bodyReturnsValue(st.Then) || bodyReturnsValue(st.Else) {
				return true
			}
		case *lang.ForStmt:
			if bodyReturnsValue(st.Body) {
				return true
			}
		case *lang.WhileStmt:
			if bodyReturnsValue(st.Body) {
				return true
			}
		case *lang.WithStmt:
			if bodyReturnsValue(st.Body) {
				return true
			}
		}
	}
	return false
}

// loadScript returns the program of a script with a __main__ block (nil
// for a file without one).
func loadScript(path string) (*host.Program, error) {
	s, err := readSource(path)
	if err != nil {
		return nil, err
	}
	return s.script()
}

// script is loadScript on a source already read. Errors of the file's
// kernels are not reported here: they surface when the driver launches
// one, as they would in cuTile.
func (s *source) script() (*host.Program, error) {
	file, err := s.parse()
	if file == nil || (file.Main == nil && file.MainErr == nil) {
		return nil, nil // not a script: the kernel path reports what is wrong
	}
	if err != nil {
		return nil, err
	}
	return host.Load(file)
}

// whatToRun is the error for `tilec run FILE` of a file without a
// __main__ block whose kernels cannot run by themselves: several kernels,
// or one whose unannotated parameters take their types from a launch. The
// builder's errors would name every such parameter and constant; what the
// user needs is the two ways to run the file and the names to give them.
// nil when the file's one kernel could run alone (its build errors are the
// news then).
func (s *source) whatToRun() error {
	file, _ := s.parse()
	if file == nil {
		return nil
	}
	var kernels, hosts []string
	for _, def := range file.Funcs {
		if isKernelDef(def) {
			kernels = append(kernels, def.Name)
		} else {
			hosts = append(hosts, def.Name)
		}
	}
	why := ""
	switch {
	case len(kernels) > 1 && len(hosts) == 0:
		return nil // the build's error names the kernels and --kernel
	case len(kernels) > 1:
		why = fmt.Sprintf("it has %d kernels", len(kernels))
	case len(kernels) == 1:
		_, params, err := build.KernelLaunchParams(file, "")
		if err != nil {
			return nil
		}
		for _, p := range params {
			if p.Typed {
				why = fmt.Sprintf("kernel %s takes its parameters' types from a launch", kernels[0])
				break
			}
		}
	}
	if why == "" {
		return nil
	}
	msg := fmt.Sprintf("%s has no __main__ block and %s: say what to run", s.path, why)
	if len(hosts) > 0 {
		msg += fmt.Sprintf("\n  --entry NAME   a host function (a plain def), its inputs by --arg, --in, --scalar: %s", strings.Join(hosts, ", "))
	}
	msg += fmt.Sprintf("\n  --kernel NAME  a kernel, its inputs by --arg, --in, --shape, --scalar, constants by -D, and --grid: %s", strings.Join(kernels, ", "))
	return usagef("%s", msg)
}

// isKernelDef reports whether def is decorated as a kernel (@ct.kernel,
// @ct.kernel(...), @cuda.tile.kernel): enough to name the choices in a
// hint; which module ct is stays the builder's business.
func isKernelDef(def *lang.FuncDef) bool {
	for _, d := range def.Decorators {
		if c, ok := d.(*lang.Call); ok {
			d = c.Fun
		}
		switch d := d.(type) {
		case *lang.Attr:
			if d.Name == "kernel" {
				return true
			}
		case *lang.Name:
			if d.Name == "kernel" {
				return true
			}
		}
	}
	return false
}

func runEntry(r *entryRun) error {
	prog, params, err := r.src.entry(r.entry)
	if err != nil {
		return err
	}
	args, inputs, err := r.entryArgs(params)
	if err != nil {
		return err
	}
	// Every --out is checked before the first launch: a tensor parameter,
	// or the result (result.0, result.1 ... of a tuple, which only the run
	// can tell apart), and a path that can be written.
	returns := r.src.returnsValue(r.entry)
	for name := range r.outs {
		_, isTensor := args[name].(*runtime.Tensor)
		isResult := name == "result" || strings.HasPrefix(name, "result.")
		if !isTensor && !isResult {
			return usagef("--out %s: neither a tensor parameter of %s nor a tensor it returns (result, or result.0, result.1 ... of a tuple)", name, r.entry)
		}
		if !isTensor && !returns {
			return usagef("--out %s: %s returns nothing (no return statement with a value); --out names its result or a tensor parameter", name, r.entry)
		}
	}
	if err := checkOutPaths(r.outs); err != nil {
		return err
	}
	fmt.Fprintf(r.stdout, "entry    %s (%s)\n", r.entry, r.path)
	for _, line := range inputs {
		fmt.Fprintf(r.stdout, "input    %s\n", line)
	}
	fmt.Fprintf(r.stdout, "backend  %s\n", r.backend.Name())
	start := time.Now()
	result, err := prog.Run(r.entry, args, r.hostOptions())
	if err != nil {
		return r.src.quote(err)
	}
	fmt.Fprintf(r.stdout, "time     %s\n", time.Since(start).Round(time.Microsecond))
	results := map[string]*runtime.Tensor{}
	printResult(r.stdout, "result", result, results)
	for name, t := range args {
		if t, ok := t.(*runtime.Tensor); ok {
			results[name] = t
		}
	}
	names := make([]string, 0, len(r.outs))
	for name := range r.outs {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		t, ok := results[name]
		if !ok {
			return usagef("--out %s: neither a tensor parameter of %s nor a tensor it returns (result, or result.0, result.1 ... of a tuple)", name, r.entry)
		}
		if err := writeOut(name, r.outs[name], t); err != nil {
			return err
		}
		fmt.Fprintf(r.stdout, "wrote    %s to %s\n", name, r.outs[name])
	}
	return nil
}

// runScript runs a script's `if __name__ == "__main__":` block (tilec run
// FILE with no --entry or --kernel): its inputs, launches and checks, as
// python3 FILE would under cuTile.
func runScript(r *entryRun, prog *host.Program) error {
	fmt.Fprintf(r.stdout, "script   %s (its __main__ block)\n", r.path)
	fmt.Fprintf(r.stdout, "backend  %s\n", r.backend.Name())
	start := time.Now()
	opts := r.hostOptions()
	opts.Seed = uint64(r.seed) // torch.randn's inputs, until the script calls torch.manual_seed
	opts.Argv = r.argv
	if err := prog.RunMain(opts); err != nil {
		return r.src.quote(err)
	}
	fmt.Fprintf(r.stdout, "time     %s\n", time.Since(start).Round(time.Microsecond))
	return nil
}

// hostOptions runs each ct.launch of host code on the backend, printing
// it, and on a GPU checks it against the interpreter.
func (r *entryRun) hostOptions() host.Options {
	gpu := r.backend.Name() != "cpu"
	// Host code's torch.cuda queries see the GPU it runs on (the
	// interpreter's own facts otherwise).
	var device *host.Device
	var matmul func(a, b *runtime.Tensor) (*runtime.Tensor, error)
	if cuda, ok := r.backend.(*cuda.GPU); ok {
		f := cuda.Facts()
		device = &f
		// torch's float16/bfloat16 `A @ B` on the GPU, as under cuTile.
		matmul = cuda.Matmul
	}
	// --timeout bounds the whole run: host code's own work and every launch
	// after it share one deadline.
	var deadline time.Time
	if r.timeout > 0 {
		deadline = time.Now().Add(r.timeout)
	}
	return host.Options{Stdout: r.stdout, Device: device, Matmul: matmul, Strict: r.strict, Deadline: deadline, Launch: func(l *host.Launch) error {
		k, err := l.Kernel.Specialize(l.Args)
		if err != nil {
			return err
		}
		var before []runtime.Arg
		if gpu {
			// The float outputs are poisoned for the device, so that the
			// check sees an element it fails to write, and given back
			// where the kernel writes nothing once the check has passed.
			restore := check.PoisonFloatOutputs(k.Func, l.Args)
			defer restore()
			before = check.CloneArgs(l.Args) // the interpreter checks the device against these
		}
		lo := runtime.LaunchOptions{Grid: l.Grid, Workers: r.workers}
		if !deadline.IsZero() {
			ctx, cancel := context.WithDeadline(context.Background(), deadline)
			defer cancel()
			lo.Context = ctx
		}
		endProgress := func() {}
		if r.progress != "" {
			if endProgress, err = progressReporter(&lo, r.progress, r.stderr); err != nil {
				return err
			}
		}
		res, err := r.backend.Launch(k, l.Args, lo)
		endProgress()
		if err != nil {
			return err
		}
		for _, w := range res.Warnings {
			fmt.Fprintln(r.stderr, r.src.quote(&lang.Error{Pos: w.Pos, Msg: w.Message()}))
		}
		consts := strings.Join(l.Consts, " ")
		if consts == "" {
			consts = "(no constants)"
		}
		fmt.Fprintf(r.stdout, "launch   %s at %d:%d: %s, grid (%d, %d, %d) = %d blocks, %s\n", l.Name, l.Pos.Line, l.Pos.Col,
			consts, l.Grid[0], l.Grid[1], l.Grid[2], l.Grid[0]*l.Grid[1]*l.Grid[2], res.Elapsed.Round(time.Microsecond))
		if cuda, ok := r.backend.(*cuda.GPU); ok {
			if info, err := cuda.CompileInfo(k); err == nil {
				fmt.Fprintf(r.stdout, "compiled %s\n", info.Summary())
			}
		}
		if gpu {
			return checkDevice(r.stdout, k, before, l.Args, l.Grid, r.seed, r.workers, res)
		}
		return nil
	}}
}

// printResult prints the entry's result: tensors summarized, tuples by element.
func printResult(w io.Writer, name string, v any, into map[string]*runtime.Tensor) {
	switch v := v.(type) {
	case *runtime.Tensor:
		into[name] = v
		line, _ := summarize(v)
		fmt.Fprintf(w, "%-8s %s\n", name, line)
	case host.Tuple:
		for i, x := range v {
			printResult(w, fmt.Sprintf("%s.%d", name, i), x, into)
		}
	case nil:
		fmt.Fprintf(w, "%-8s None\n", name)
	default:
		fmt.Fprintf(w, "%-8s %v\n", name, v)
	}
}

// checkFlags checks the inputs given on the command line against the
// entry's parameters: every one named exists, given once, and every
// parameter without a default has a value.
func (r *entryRun) checkFlags(params []host.Param) error {
	byName := map[string]bool{}
	for _, p := range params {
		byName[p.Name] = true
	}
	for _, flagSet := range []struct {
		flag string
		m    map[string]string
	}{{"--scalar", r.scalars}, {"--in", r.ins}} {
		for name := range flagSet.m {
			if !byName[name] {
				return usagef("%s %s: %s has no parameter %s", flagSet.flag, name, r.entry, name)
			}
		}
	}
	for name := range r.sigs {
		if !byName[name] {
			return usagef("--arg %s: %s has no parameter %s", name, r.entry, name)
		}
	}
	var missing []string
	for _, p := range params {
		sig, hasSig := r.sigs[p.Name]
		_, hasIn := r.ins[p.Name]
		_, hasScalar := r.scalars[p.Name]
		switch {
		case hasIn && hasSig:
			return usagef("--in %s and --arg %s: give one", p.Name, p.Name)
		case (hasIn || hasSig) && hasScalar:
			return usagef("--scalar %s: %s is given as an array too", p.Name, p.Name)
		case hasSig && !sig.IsArray() && !sig.IsList():
			return usagef("--arg %s=%s: the entry's scalar parameters take --scalar %s=VALUE", p.Name, sig, p.Name)
		case !hasIn && !hasSig && !hasScalar && !p.HasDefault:
			missing = append(missing, p.Name)
		}
	}
	if len(missing) > 0 {
		return usagef("%s needs a value for %s: give a tensor's signature (--arg %s=f16[M,K]), a .npy file (--in %s=a.npy) or a scalar (--scalar %s=1)",
			r.entry, strings.Join(missing, ", "), missing[0], missing[0], missing[0])
	}
	return nil
}

// sigDims are the symbolic dims of the entry's --arg signatures in the
// order of its parameters, and those of them that only lead arrays of rank
// 3 or more (batch axes, which default to defaultBatch).
func (r *entryRun) sigDims(params []host.Param) (dims []string, batch map[string]bool) {
	batch, other := map[string]bool{}, map[string]bool{}
	for _, p := range params {
		sig, ok := r.sigs[p.Name]
		if !ok {
			continue
		}
		arrays := []build.ArgSig{sig}
		if sig.IsList() {
			arrays = sig.Elems
		}
		for _, a := range arrays {
			for ax, d := range a.Dims {
				if d.Sym == "" {
					continue
				}
				if !batch[d.Sym] && !other[d.Sym] {
					dims = append(dims, d.Sym)
				}
				if len(a.Dims) >= 3 && ax < len(a.Dims)-2 {
					batch[d.Sym] = true
				} else {
					other[d.Sym] = true
				}
			}
		}
	}
	for d := range other {
		delete(batch, d)
	}
	return dims, batch
}

// entryArgs makes the entry's arguments: tensors of the --arg signatures
// (random, seeded) or from --in files, scalars from --scalar; parameters
// with defaults may be left out. It returns a line per input for the report.
func (r *entryRun) entryArgs(params []host.Param) (map[string]any, []string, error) {
	if err := r.checkFlags(params); err != nil {
		return nil, nil, err
	}
	dims, batch := r.sigDims(params)
	known := map[string]bool{}
	for _, d := range dims {
		known[d] = true
	}
	bound := map[string]int64{}
	for name, v := range r.shapes {
		if !known[name] {
			return nil, nil, usagef("--shape %s: no --arg signature has a dim %s", name, name)
		}
		n, err := parseDim(v)
		if err != nil {
			return nil, nil, usagef("--shape %s=%s: %v", name, v, err)
		}
		bound[name] = n
	}
	// The scalars first: a value its annotation refuses is a usage error
	// before any array is made.
	annotated := r.src.scalarAnnotations(r.entry)
	scalarValues := map[string]any{}
	for name, sv := range r.scalars {
		typ, ok := annotated[name]
		if !ok {
			scalarValues[name] = parseHostScalar(sv)
			continue
		}
		v, err := parseAnnotatedScalar(typ, sv)
		if err != nil {
			return nil, nil, usagef("--scalar %s=%s: %s is annotated %s: %v", name, sv, name, typ, err)
		}
		scalarValues[name] = v
	}
	// Every generated array's shape, and their total against the host's
	// memory, before the first is allocated and filled: arrays that fit
	// one by one but not together were refused only after the others'
	// (minutes of) random fill.
	shapes := map[string][][]int{}
	var total int64
	var sizes []string
	for _, p := range params {
		sig, hasSig := r.sigs[p.Name]
		if _, hasIn := r.ins[p.Name]; hasIn || !hasSig {
			continue
		}
		arrays := []build.ArgSig{sig}
		if sig.IsList() {
			arrays = sig.Elems
		}
		for _, a := range arrays {
			if err := runtime.CheckFixedDims(a.Dims); err != nil {
				return nil, nil, fmt.Errorf("tilec: %s: %v", p.Name, err)
			}
			shape := make([]int, len(a.Dims))
			for ax, d := range a.Dims {
				if d.Sym == "" {
					shape[ax] = int(d.Size)
					continue
				}
				if _, ok := bound[d.Sym]; !ok {
					if batch[d.Sym] {
						bound[d.Sym] = defaultBatch
					} else {
						bound[d.Sym] = defaultDim
					}
				}
				shape[ax] = int(bound[d.Sym])
			}
			n, err := runtime.ShapeBytes(a.DType, shape)
			if err != nil {
				return nil, nil, fmt.Errorf("tilec: %s: %v", p.Name, err)
			}
			sizes = append(sizes, fmt.Sprintf("%s %s %v %d", p.Name, a.DType, shape, n))
			if total += n; total < 0 {
				return nil, nil, fmt.Errorf("tilec: the arrays' total size in bytes overflows 64 bits (%s)", strings.Join(sizes, ", "))
			}
			shapes[p.Name] = append(shapes[p.Name], shape)
		}
	}
	if limit := runtime.HostMemory(); limit > 0 && total > limit {
		return nil, nil, fmt.Errorf("tilec: the arrays need %s of host memory (%s), more than the %s available",
			runtime.FormatBytes(total), strings.Join(sizes, ", "), runtime.FormatBytes(limit))
	}
	rng := rand.New(rand.NewPCG(uint64(r.seed), 0))
	args := map[string]any{}
	var lines []string
	for _, p := range params {
		sig, hasSig := r.sigs[p.Name]
		path, hasIn := r.ins[p.Name]
		sv, hasScalar := r.scalars[p.Name]
		switch {
		case hasIn:
			t, err := npy.ReadFile(path)
			if err != nil {
				return nil, nil, fmt.Errorf("--in %s: %v", p.Name, err)
			}
			args[p.Name] = t
			lines = append(lines, fmt.Sprintf("%s: %s %v from %s", p.Name, t.DType, t.Shape, path))
		case hasSig:
			// A list's arrays are a host list (a tuple in host code).
			arrays, isList := []build.ArgSig{sig}, sig.IsList()
			if isList {
				arrays = sig.Elems
			}
			var list host.Tuple
			for j, a := range arrays {
				t, err := runtime.AllocTensor(a.DType, shapes[p.Name][j]...)
				if err != nil {
					return nil, nil, fmt.Errorf("tilec: %s: %v", p.Name, err)
				}
				t.FillRandNormal(rng)
				if !isList {
					args[p.Name] = t
					lines = append(lines, fmt.Sprintf("%s: %s %v (%s)", p.Name, t.DType, t.Shape, sig))
					continue
				}
				list = append(list, t)
				lines = append(lines, fmt.Sprintf("%s[%d]: %s %v (%s)", p.Name, j, t.DType, t.Shape, a))
			}
			if isList {
				args[p.Name] = list
			}
		case hasScalar:
			args[p.Name] = scalarValues[p.Name]
			lines = append(lines, fmt.Sprintf("%s = %s", p.Name, sv))
		}
	}
	return args, lines, nil
}

// parseFloatValue reads a float as Python's float() does: nan and inf in
// any case, and a literal beyond float64's range as an infinity (1e400)
// or zero (1e-400), not an error.
func parseFloatValue(s string) (float64, bool) {
	f, err := strconv.ParseFloat(s, 64)
	if err == nil || errors.Is(err, strconv.ErrRange) {
		return f, true
	}
	return 0, false
}

// parseHostScalar reads a --scalar value for a host function: an int, a
// float, True/False, None, or else the string itself.
func parseHostScalar(s string) any {
	if n, err := strconv.ParseInt(s, 0, 64); err == nil {
		return n
	}
	if f, ok := parseFloatValue(s); ok {
		return f
	}
	switch s {
	case "True", "true":
		return true
	case "False", "false":
		return false
	case "None":
		return nil
	}
	return s
}
