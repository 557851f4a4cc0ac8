package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/ir/build"
	"github.com/tilec/tilec/lang"
	"github.com/tilec/tilec/runtime"
	"github.com/tilec/tilec/runtime/check"
	"github.com/tilec/tilec/runtime/cuda"
	"github.com/tilec/tilec/runtime/npy"
)

// defaultDim is the size given to a symbolic dim that --shape leaves out:
// large enough to span several tiles of the default matmul, small enough for
// the interpreter to finish in seconds on two cores. Leading (batch) axes of
// arrays of rank 3 or more default to defaultBatch.
const (
	defaultDim   = 512
	defaultBatch = 4
)

func cmdRun(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("run", stdout, stderr)
	kernel := fs.String("kernel", "", "kernel to run (default: the file's only kernel)")
	entry := fs.String("entry", "", "run the file's host launch function of this name (its ct.launch calls run the kernels)")
	seed := fs.Int64("seed", 1, "seed of the random inputs")
	backendName := fs.String("backend", defaultBackend(), "where to run: cpu or cuda")
	target := fs.String("target", "", "GPU target for --backend cuda (default: the best for the device)")
	workers := fs.Int("workers", 0, "goroutines for the CPU interpreter (0: all cores)")
	grid := fs.String("grid", "", "explicit grid x[,y[,z]] (kernels without a declared grid)")
	timeout := fs.Duration("timeout", 0, "stop the CPU interpreter after this long (e.g. 30s; 0: no limit)")
	progress := fs.String("progress", "auto", "progress of CPU launches (a kernel's, a host function's, a script's) on stderr: auto (when stderr is a terminal), off, or an interval such as 500ms")
	tuned := fs.Bool("tuned", true, "with --backend cuda, use constants that tilec tune cached for this kernel, device and class of shapes")
	strict := fs.Bool("strict", false, "make tilec's extensions to cuTile 1.6 errors in the kernels (t.sum(), ct.Array[...] annotations, @ct.kernel(grid=), ...)")
	consts, shapes, scalars, ins, outs := defines{}, keyValues{}, keyValues{}, keyValues{}, keyValues{}
	fs.Var(consts, "D", "bake a constant: -D name=value (repeatable)")
	sigs := argSigs{}
	fs.Var(sigs, "arg", "signature of an unannotated parameter: --arg A=f16[M,K], --arg x=f32, or a list of arrays --arg As=[f16[M0,K],f16[M1,K]] (repeatable)")
	fs.Var(shapes, "shape", "symbolic dims: --shape M=1024,N=512,K=256")
	fs.Var(scalars, "scalar", "scalar arguments: --scalar eps=1e-5")
	fs.Var(ins, "in", "read an input from .npy: --in A=a.npy (an unannotated parameter takes the file's dtype and rank)")
	fs.Var(outs, "out", "write an array after the run to .npy: --out C=c.npy (checked before the run; an existing file is replaced only once the new one is whole)")
	// Arguments after -- are the script's own (its argparse reads them).
	var scriptArgs []string
	if i := slices.Index(args, "--"); i >= 0 {
		args, scriptArgs = args[:i], args[i+1:]
	}
	srcPath, err := sourceArg(fs, args)
	if err != nil {
		return err
	}
	if _, err := gpuTarget(*target); err != nil {
		return err
	}
	src, err := readSource(srcPath)
	if err != nil {
		return err
	}
	// --progress is checked before any launch, whichever way the file runs.
	if _, err := progressReporter(&runtime.LaunchOptions{}, *progress, io.Discard); err != nil {
		return err
	}
	if *entry != "" {
		if err := entryConflicts(*kernel, *grid, consts); err != nil {
			return err
		}
		if *timeout < 0 {
			return usagef("--timeout %s: want a positive duration", *timeout)
		}
		backend, err := openBackend(*backendName, *target, *workers)
		if err != nil {
			return err
		}
		return runEntry(&entryRun{path: srcPath, src: src, entry: *entry, sigs: sigs, shapes: shapes, scalars: scalars,
			ins: ins, outs: outs, seed: *seed, backend: backend, workers: *workers, timeout: *timeout, progress: *progress,
			stdout: stdout, stderr: stderr, strict: *strict})
	}
	if *kernel == "" && len(sigs) == 0 {
		prog, err := src.script()
		if err != nil {
			return err
		}
		if prog != nil {
			var given []string
			fs.Visit(func(fl *flag.Flag) {
				switch fl.Name {
				case "backend", "target", "workers", "timeout", "progress", "seed", "strict":
				default:
					given = append(given, "--"+fl.Name)
				}
			})
			if len(given) > 0 {
				verb := "applies"
				if len(given) > 1 {
					verb = "apply"
				}
				return usagef("%s runs its __main__ block, which makes its own inputs and launches: %s %s to a kernel (--kernel) or a host function (--entry)", srcPath, strings.Join(given, ", "), verb)
			}
			if *timeout < 0 {
				return usagef("--timeout %s: want a positive duration", *timeout)
			}
			backend, err := openBackend(*backendName, *target, *workers)
			if err != nil {
				return err
			}
			return runScript(&entryRun{path: srcPath, src: src, seed: *seed, backend: backend, workers: *workers, timeout: *timeout,
				progress: *progress, stdout: stdout, stderr: stderr, argv: scriptArgs, strict: *strict}, prog)
		}
	}
	if len(scriptArgs) > 0 {
		return usagef("arguments after -- (%s) are a script's own: they apply when tilec run FILE runs its __main__ block", strings.Join(scriptArgs, " "))
	}
	// --in files are read before the kernel is built: an unannotated
	// parameter takes its signature from its file, as a host function's
	// launch gives it (one input rule for --kernel and --entry).
	inFiles, err := readInputs(ins)
	if err != nil {
		return err
	}
	sigs, err = src.inputSigs(*kernel, sigs, inFiles)
	if err != nil {
		return err
	}
	f, err := src.kernel(*kernel, consts, sigs, *strict)
	// Until the user names a kernel or starts giving its inputs, the
	// choices are news; after, the build's errors are.
	if err != nil && *kernel == "" && len(sigs) == 0 && len(ins) == 0 {
		if hint := src.whatToRun(); hint != nil {
			return hint
		}
	}
	if err != nil {
		return err
	}
	explicitGrid, err := gridFlag(f, *grid, "")
	if err != nil {
		return err
	}
	for name := range outs {
		i := paramIndex(f, name)
		if i < 0 {
			return usagef("--out %s: %s has no parameter %s", name, f.Name, name)
		}
		if _, ok := f.Params[i].Type.(*ir.Array); !ok {
			return usagef("--out %s: %s is not an array (--out writes one array: a list's arrays are summarized)", name, name)
		}
	}
	if err := checkOutPaths(outs); err != nil {
		return err
	}
	backend, err := openBackend(*backendName, *target, *workers)
	if err != nil {
		return err
	}
	copies := int64(1)
	if backend.Name() != "cpu" {
		copies = 2 // the interpreter's check keeps the inputs
	}
	kargs, dims, err := makeArgs(f, sigs, shapes, scalars, inFiles, *seed, copies)
	if err != nil {
		return err
	}
	tunedNote := ""
	if gpu, ok := backend.(*cuda.GPU); ok && *tuned && *grid == "" {
		var g *ir.Func
		if g, tunedNote, err = applyTuned(gpu, srcPath, *kernel, consts, sigs, f, dims); err != nil {
			return err
		}
		if g != nil {
			f = g
		}
	}
	k := runtime.NewKernel(f)
	// Every array the kernel only writes (stores, scatters) is poisoned, so
	// that an element no block writes shows as unwritten in the summary,
	// in --out files and in the device check; arrays read with --in are
	// the user's data and are kept.
	poison := append([]runtime.Arg{}, kargs...)
	for name := range ins {
		poison[paramIndex(f, name)] = nil
	}
	check.PoisonOutputs(f, poison)
	var inputs []runtime.Arg
	if backend.Name() != "cpu" {
		inputs = check.CloneArgs(kargs) // the interpreter checks the device against these
	}
	start := time.Now()
	opts := runtime.LaunchOptions{Grid: explicitGrid, Workers: *workers}
	if *timeout < 0 {
		return usagef("--timeout %s: want a positive duration", *timeout)
	}
	if *timeout > 0 {
		ctx, cancel := context.WithTimeout(context.Background(), *timeout)
		defer cancel()
		opts.Context = ctx
	}
	endProgress, err := progressReporter(&opts, *progress, stderr)
	if err != nil {
		return err
	}
	res, err := backend.Launch(k, kargs, opts)
	endProgress()
	if errors.Is(err, context.DeadlineExceeded) && *timeout > 0 {
		return fmt.Errorf("tilec: --timeout %s: %v", *timeout, err)
	}
	if err != nil {
		return src.quote(err)
	}
	wall := time.Since(start)
	for _, w := range res.Warnings {
		if w.Pos.IsValid() {
			fmt.Fprintln(stderr, src.quote(&lang.Error{Pos: w.Pos, Msg: w.Message()}))
		} else {
			fmt.Fprintln(stderr, w)
		}
	}

	fmt.Fprintf(stdout, "kernel   %s (%s)\n", f.Name, srcPath)
	if tunedNote != "" {
		fmt.Fprintln(stdout, tunedNote)
	}
	fmt.Fprintf(stdout, "consts   %s\n", constsString(f))
	fmt.Fprintf(stdout, "shapes   %s\n", dimsString(dims, res.Dims))
	fmt.Fprintf(stdout, "grid     (%d, %d, %d) = %d blocks\n", res.Grid[0], res.Grid[1], res.Grid[2], res.Grid[0]*res.Grid[1]*res.Grid[2])
	fmt.Fprintf(stdout, "backend  %s\n", backend.Name())
	if gpu, ok := backend.(*cuda.GPU); ok {
		if info, err := gpu.CompileInfo(k); err == nil {
			fmt.Fprintf(stdout, "device   %s\n", info.Device)
			fmt.Fprintf(stdout, "compiled %s\n", info.Summary())
			for _, n := range info.HintNotes {
				fmt.Fprintf(stdout, "note     hint %s\n", n)
			}
		}
	}
	fmt.Fprintf(stdout, "time     %s (kernel %s)\n", wall.Round(time.Microsecond), res.Elapsed.Round(time.Microsecond))
	for _, i := range ir.WrittenParams(f) {
		names := runtime.ArgTensorNames(f.Params[i].Name, kargs[i])
		for j, t := range runtime.ArgTensors(kargs[i]) {
			line, unwritten := summarize(t)
			fmt.Fprintf(stdout, "output   %s: %s\n", names[j], line)
			if unwritten > 0 {
				// Exit 0 with a count in the summary is easy to miss; a grid
				// too small for the output is the usual cause.
				fmt.Fprintf(stderr, "tilec: warning: %s: %d of %d elements were not written by any block (they hold the poison the run filled %s with): does the grid (%d, %d, %d) cover it?\n",
					names[j], unwritten, t.NumElements(), names[j], res.Grid[0], res.Grid[1], res.Grid[2])
			}
		}
	}
	if inputs != nil {
		if err := checkDevice(stdout, k, inputs, kargs, explicitGrid, *seed, *workers, res); err != nil {
			return err
		}
	}
	names := make([]string, 0, len(outs))
	for name := range outs {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if err := writeOut(name, outs[name], kargs[paramIndex(f, name)].(*runtime.Tensor)); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote    %s to %s\n", name, outs[name])
	}
	return nil
}

// readInputs reads the --in files, by parameter name.
func readInputs(ins keyValues) (map[string]*runtime.Tensor, error) {
	out := map[string]*runtime.Tensor{}
	for name, path := range ins {
		t, err := npy.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("--in %s: %v", name, err)
		}
		out[name] = t
	}
	return out, nil
}

// inputSigs adds to sigs the signature that each --in file gives an
// unannotated parameter of the kernel without an --arg: the file's dtype
// and rank, its dims named param_axis (X_0, X_1) and bound by the file,
// as compile's Specialize names a launch argument's. Anything it cannot
// tell (no such kernel, several) is left for the build to report.
func (s *source) inputSigs(kernel string, sigs argSigs, inputs map[string]*runtime.Tensor) (argSigs, error) {
	if len(inputs) == 0 {
		return sigs, nil
	}
	file, err := s.parse()
	if file == nil || err != nil {
		return sigs, nil
	}
	_, params, err := build.KernelLaunchParams(file, kernel)
	if err != nil {
		return sigs, nil
	}
	out := argSigs{}
	for name, sig := range sigs {
		out[name] = sig
	}
	for _, p := range params {
		t, given := inputs[p.Name]
		if _, hasSig := sigs[p.Name]; !p.Typed || hasSig || !given {
			continue
		}
		if t.Rank() == 0 {
			return nil, usagef("--in %s: the file holds a 0-d array; kernels take arrays of rank 1 or more (give a scalar with --scalar %s=VALUE)", p.Name, p.Name)
		}
		dims := make([]ir.Dim, t.Rank())
		for ax := range dims {
			dims[ax] = ir.Dim{Sym: fmt.Sprintf("%s_%d", p.Name, ax)}
		}
		out[p.Name] = build.ArgSig{DType: t.DType, Dims: dims}
	}
	return out, nil
}

// makeArgs builds the launch arguments: arrays read from --in files
// (inputs) or filled with seeded normal random data of the declared shapes,
// scalars from --scalar.
//
// copies is how many host copies of each array the run keeps (2 when a
// device's results are checked against the interpreter's).
//
// A list-of-arrays parameter's arrays take their dims from its --arg
// signature (sigs): [f16[M0,K],f16[M1,K]] makes two arrays, their
// symbols bound by --shape like any other.
func makeArgs(f *ir.Func, sigs argSigs, shapes, scalars keyValues, ins map[string]*runtime.Tensor, seed int64, copies int64) ([]runtime.Arg, map[string]int64, error) {
	for name := range ins {
		if paramIndex(f, name) < 0 {
			return nil, nil, usagef("--in %s: %s has no parameter %s", name, f.Name, name)
		}
	}
	for name := range scalars {
		i := paramIndex(f, name)
		if i < 0 {
			return nil, nil, usagef("--scalar %s: %s has no parameter %s", name, f.Name, name)
		}
		if _, ok := f.Params[i].Type.(*ir.Array); ok {
			return nil, nil, usagef("--scalar %s: %s is an array; use --in %s=FILE.npy, or --shape for its dims", name, name, name)
		}
	}
	dims := map[string]int64{}
	known := map[string]bool{}
	for _, p := range f.Params {
		for _, d := range paramDims(p, sigs) {
			if d.Sym != "" {
				known[d.Sym] = true
			}
		}
	}
	for name, v := range shapes {
		if !known[name] {
			return nil, nil, usagef("--shape %s: %s has no symbolic dim %s", name, f.Name, name)
		}
		n, err := parseDim(v)
		if err != nil {
			return nil, nil, usagef("--shape %s=%s: %v", name, v, err)
		}
		dims[name] = n
	}
	// Inputs read from files bind their dims first, so that the random
	// arrays agree with them.
	args := make([]runtime.Arg, len(f.Params))
	for i, p := range f.Params {
		t, ok := ins[p.Name]
		if !ok {
			continue
		}
		arr, isArray := p.Type.(*ir.Array)
		if _, isList := p.Type.(*ir.ArrayList); isList {
			return nil, nil, usagef("--in %s: %s is a list of arrays, which --in cannot read; its --arg signature gives its arrays' dims", p.Name, p.Name)
		}
		if !isArray {
			return nil, nil, usagef("--in %s: %s is a scalar; use --scalar", p.Name, p.Name)
		}
		var err error
		if t.DType != arr.DType {
			t, err = npy.Convert(t, arr.DType, p.Name)
			if err != nil {
				return nil, nil, fmt.Errorf("--in %s: %v", p.Name, err)
			}
		}
		if len(t.Shape) == len(p.Dims) {
			for ax, d := range p.Dims {
				if _, set := dims[d.Sym]; d.Sym != "" && !set {
					dims[d.Sym] = int64(t.Shape[ax])
				}
			}
		}
		args[i] = t
	}
	// The shapes of the generated arrays, all checked before any is
	// allocated: a dim that kernels cannot index (over i32), a size that
	// overflows, and their total against the host's memory.
	arrShapes := make([][][]int, len(f.Params)) // per parameter, its arrays' shapes (a list's several)
	var total int64
	var sizes []string
	for i, p := range f.Params {
		var elems [][]ir.Dim
		var names []string
		switch p.Type.(type) {
		case *ir.Array:
			elems, names = [][]ir.Dim{p.Dims}, []string{p.Name}
		case *ir.ArrayList:
			for j, e := range sigs[p.Name].Elems {
				elems, names = append(elems, e.Dims), append(names, fmt.Sprintf("%s[%d]", p.Name, j))
			}
		}
		if args[i] != nil {
			continue
		}
		for j, pdims := range elems {
			if err := runtime.CheckFixedDims(pdims); err != nil {
				return nil, nil, fmt.Errorf("tilec: %s: %v", names[j], err)
			}
			shape := make([]int, len(pdims))
			for ax, d := range pdims {
				if d.Sym == "" {
					shape[ax] = int(d.Size)
					continue
				}
				if _, ok := dims[d.Sym]; !ok {
					if len(pdims) >= 3 && ax < len(pdims)-2 {
						dims[d.Sym] = defaultBatch
					} else {
						dims[d.Sym] = defaultDim
					}
				}
				if n := dims[d.Sym]; n > math.MaxInt32 {
					return nil, nil, usagef("--shape %s=%d: array dims are i32 in kernels, at most %d (%s axis %d)",
						d.Sym, n, math.MaxInt32, names[j], ax)
				}
				shape[ax] = int(dims[d.Sym])
			}
			dt := p.Type.Elem()
			n, err := runtime.ShapeBytes(dt, shape)
			if err != nil {
				return nil, nil, fmt.Errorf("tilec: %s: %v", names[j], err)
			}
			sizes = append(sizes, fmt.Sprintf("%s %s %v %d", names[j], dt, shape, n))
			if total += n; total < 0 {
				return nil, nil, fmt.Errorf("tilec: the arrays' total size in bytes overflows 64 bits (%s)", strings.Join(sizes, ", "))
			}
			arrShapes[i] = append(arrShapes[i], shape)
		}
	}
	if limit := runtime.HostMemory(); limit > 0 && total*copies > limit || total*copies < 0 {
		what := ""
		if copies > 1 {
			what = fmt.Sprintf(", %d copies of each", copies)
		}
		return nil, nil, fmt.Errorf("tilec: the arrays need %s of host memory%s (%s), more than the %s available",
			runtime.FormatBytes(total*copies), what, strings.Join(sizes, ", "), runtime.FormatBytes(limit))
	}
	rng := rand.New(rand.NewPCG(uint64(seed), 0))
	for i, p := range f.Params {
		if args[i] != nil {
			continue
		}
		switch pt := p.Type.(type) {
		case *ir.Array:
			t, err := runtime.AllocTensor(pt.DType, arrShapes[i][0]...)
			if err != nil {
				return nil, nil, fmt.Errorf("tilec: %s: %v", p.Name, err)
			}
			t.FillRandNormal(rng)
			args[i] = t
		case *ir.ArrayList:
			l := make([]*runtime.Tensor, len(arrShapes[i]))
			for j, shape := range arrShapes[i] {
				t, err := runtime.AllocTensor(pt.DType, shape...)
				if err != nil {
					return nil, nil, fmt.Errorf("tilec: %s[%d]: %v", p.Name, j, err)
				}
				t.FillRandNormal(rng)
				l[j] = t
			}
			args[i] = l
		case *ir.Scalar:
			v, ok := scalars[p.Name]
			if !ok {
				return nil, nil, usagef("%s needs a value for scalar parameter %s: --scalar %s=...", f.Name, p.Name, p.Name)
			}
			x, err := parseScalar(pt.DType, v)
			if err != nil {
				return nil, nil, usagef("--scalar %s=%s: %v", p.Name, v, err)
			}
			args[i] = x
		}
	}
	return args, dims, nil
}

// parseDim parses a --shape value: a non-negative integer, also written as
// an exact float (1e6, 2.5e3), which must fit the i32 that kernels index
// arrays with.
func parseDim(v string) (int64, error) {
	n, err := strconv.ParseInt(v, 0, 64)
	if err != nil {
		x, ferr := strconv.ParseFloat(v, 64)
		if ferr != nil || x != math.Trunc(x) || math.IsInf(x, 0) {
			return 0, fmt.Errorf("want a non-negative integer")
		}
		if x >= 1<<63 || x < 0 {
			return 0, fmt.Errorf("want a non-negative integer of at most %d (array dims are i32 in kernels)", math.MaxInt32)
		}
		n = int64(x)
	}
	if n < 0 {
		return 0, fmt.Errorf("want a non-negative integer")
	}
	if n > math.MaxInt32 {
		return 0, fmt.Errorf("%d is more than %d: array dims are i32 in kernels", n, math.MaxInt32)
	}
	return n, nil
}

func parseScalar(d ir.DType, s string) (runtime.Arg, error) {
	switch {
	case d == ir.Bool:
		return strconv.ParseBool(strings.ToLower(s))
	case d.IsInt():
		return strconv.ParseInt(s, 0, 64)
	default:
		if f, ok := parseFloatValue(s); ok {
			return f, nil
		}
		return nil, fmt.Errorf("want a number (1.5, 1e-5, inf, nan)")
	}
}

func paramIndex(f *ir.Func, name string) int {
	for i, p := range f.Params {
		if p.Name == name {
			return i
		}
	}
	return -1
}

// gridFlag reads --grid (value) for kernel f: a kernel that declares no
// grid must be given one; hint adds what else the command offers.
func gridFlag(f *ir.Func, value, hint string) ([3]int, error) {
	if value != "" {
		g, err := parseGrid(value)
		if err != nil {
			return g, usagef("--grid: %v", err)
		}
		return g, nil
	}
	if f.Grid == [3]*ir.HostExpr{} {
		return [3]int{}, usagef("kernel %s declares no grid: give it with --grid x[,y[,z]]%s", f.Name, hint)
	}
	return [3]int{}, nil
}

func parseGrid(s string) ([3]int, error) {
	var g [3]int
	parts := strings.Split(s, ",")
	if len(parts) > 3 {
		return g, fmt.Errorf("at most 3 axes, got %d", len(parts))
	}
	for i, p := range parts {
		n, err := strconv.ParseInt(strings.TrimSpace(p), 10, 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) || n <= 0 {
			return g, fmt.Errorf("%q is not a positive integer", p)
		}
		if err != nil || n > int64(runtime.MaxGrid[i]) {
			return g, fmt.Errorf("axis %s: %s blocks is more than the %d a launch allows", "xyz"[i:i+1], strings.TrimSpace(p), runtime.MaxGrid[i])
		}
		g[i] = int(n)
	}
	return g, nil
}

// summarize prints what a user checks first: shape, dtype, range, mean and
// how many elements were left unwritten (still NaN from the poisoning),
// and returns that count apart.
func summarize(t *runtime.Tensor) (string, int) {
	// One pass: elements still holding the poison pattern were not written
	// (for integers and bool the pattern is a value, so it must be told
	// apart before the element is read as a number).
	lo, hi, sum := math.Inf(1), math.Inf(-1), 0.0
	n, nan, unwritten := 0, 0, 0
	t.ForEachElem(func(e int) {
		if t.IsPoisonAt(e) {
			unwritten++
			return
		}
		v := t.ElemAt(e)
		if math.IsNaN(v) {
			nan++
			return
		}
		n++
		lo, hi, sum = math.Min(lo, v), math.Max(hi, v), sum+v
	})
	total := t.NumElements()
	s := fmt.Sprintf("%s %v", t.DType, t.Shape)
	if n > 0 {
		s += fmt.Sprintf(" min %.4g max %.4g mean %.4g", lo, hi, sum/float64(n))
	}
	if nan > 0 {
		s += fmt.Sprintf(" NaN %d of %d", nan, total)
	}
	if unwritten > 0 {
		s += fmt.Sprintf(" unwritten %d of %d (poison)", unwritten, total)
	}
	return s, unwritten
}

func constsString(f *ir.Func) string {
	if len(f.Consts) == 0 {
		return "(none)"
	}
	parts := make([]string, len(f.Consts))
	for i, c := range f.Consts {
		parts[i] = fmt.Sprintf("%s=%v", c.Name, c.Value)
	}
	return strings.Join(parts, " ")
}

func dimsString(chosen, bound map[string]int64) string {
	all := map[string]int64{}
	for k, v := range chosen {
		all[k] = v
	}
	for k, v := range bound {
		all[k] = v
	}
	if len(all) == 0 {
		return "(no symbolic dims)"
	}
	keys := make([]string, 0, len(all))
	for k := range all {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%d", k, all[k])
	}
	return strings.Join(parts, " ")
}

// progressReporter sets opts.Progress from the --progress flag: "auto"
// reports when stderr is a terminal, after the launch's first second; an
// interval reports at that interval whatever stderr is; "off" never. A
// terminal gets one line rewritten in place, anything else a line per
// report. The returned function ends the report (a newline on a terminal).
func progressReporter(opts *runtime.LaunchOptions, flagValue string, stderr io.Writer) (func(), error) {
	tty := isTerminal(stderr)
	switch flagValue {
	case "off":
		return func() {}, nil
	case "auto":
		if !tty {
			return func() {}, nil
		}
		opts.ProgressEvery = time.Second
	default:
		d, err := time.ParseDuration(flagValue)
		if err != nil || d <= 0 {
			return nil, usagef("--progress %s: want auto, off or a positive interval such as 500ms", flagValue)
		}
		opts.ProgressEvery = d
	}
	var mu sync.Mutex
	printed := false
	opts.Progress = func(p runtime.Progress) {
		mu.Lock()
		defer mu.Unlock()
		line := fmt.Sprintf("progress %d/%d blocks (%.0f%%), %s elapsed", p.Done, p.Total,
			100*float64(p.Done)/float64(max(p.Total, 1)), p.Elapsed.Round(100*time.Millisecond))
		if p.Done > 0 {
			line += fmt.Sprintf(", ETA %s", p.ETA().Round(100*time.Millisecond))
		}
		if tty {
			fmt.Fprintf(stderr, "\r\033[K%s", line)
		} else {
			fmt.Fprintln(stderr, line)
		}
		printed = true
	}
	return func() {
		mu.Lock()
		defer mu.Unlock()
		if tty && printed {
			fmt.Fprintln(stderr)
		}
	}, nil
}

// checkOutPaths checks every --out path before the first launch, so that a
// run of minutes is not lost to a typo at its end: no path, two arrays to one file
// (one would silently overwrite the other), a missing directory, a
// directory named as the file, or a directory tilec cannot write in.
func checkOutPaths(outs keyValues) error {
	names := make([]string, 0, len(outs))
	for name := range outs {
		names = append(names, name)
	}
	sort.Strings(names)
	byPath := map[string]string{}
	for _, name := range names {
		path := outs[name]
		if strings.TrimSpace(path) == "" {
			return usagef("--out %s=: name the file: --out %s=FILE.npy", name, name)
		}
		// A link is written through (writeOut), so the file it names is
		// the one that must be new and writable.
		real := path
		if r, err := filepath.EvalSymlinks(path); err == nil {
			real = r
		}
		key := filepath.Clean(real)
		if abs, err := filepath.Abs(real); err == nil {
			key = abs
		}
		if other, dup := byPath[key]; dup {
			return usagef("--out %s=%s and --out %s=%s write one file: give each array its own", other, outs[other], name, path)
		}
		byPath[key] = name
		if st, err := os.Stat(path); err == nil && st.IsDir() {
			return usagef("--out %s=%s: %s is a directory; name a .npy file in it", name, path, path)
		} else if err == nil && !st.Mode().IsRegular() {
			continue // a device or a pipe (/dev/stdout): written in place
		}
		dir := filepath.Dir(real)
		st, err := os.Stat(dir)
		switch {
		case err != nil:
			return usagef("--out %s=%s: no directory %s to write in", name, path, dir)
		case !st.IsDir():
			return usagef("--out %s=%s: %s is not a directory", name, path, dir)
		}
		probe, err := os.CreateTemp(dir, ".tilec-out-*")
		if err != nil {
			return usagef("--out %s=%s: cannot write in %s: %v", name, path, dir, err)
		}
		probe.Close()
		os.Remove(probe.Name())
	}
	return nil
}

// writeOut writes t to path as .npy through a temporary file in the same
// directory, renamed over path once complete: an existing file is never
// truncated before the data is ready, and a failed write (a full disk,
// ulimit -f) leaves it as it was instead of a file whose header promises
// more data than it has.
func writeOut(name, path string, t *runtime.Tensor) (err error) {
	target := path // a link's file: renaming over the link would replace the link
	if r, err := filepath.EvalSymlinks(path); err == nil {
		target = r
	}
	if st, err := os.Stat(target); err == nil && !st.Mode().IsRegular() {
		// A device or a pipe cannot be renamed over; it has no old
		// contents to keep either.
		if err := npy.WriteFile(path, t); err != nil {
			return fmt.Errorf("--out %s=%s: %v", name, path, err)
		}
		return nil
	}
	tmp, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".tmp-*")
	if err != nil {
		return fmt.Errorf("--out %s=%s: %v", name, path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
			err = fmt.Errorf("--out %s=%s: %v (the file is left as it was)", name, path, err)
		}
	}()
	// The mode a plain create gives (the temporary file's is 0600), or the
	// replaced file's.
	mode := os.FileMode(0o644)
	if st, err := os.Stat(target); err == nil {
		mode = st.Mode().Perm()
	}
	if err := tmp.Chmod(mode); err != nil {
		return err
	}
	bw := bufio.NewWriter(tmp)
	if err := npy.Write(bw, t); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), target)
}

// isTerminal reports whether w is a terminal (progress reports are for a
// person watching, not for a log or a pipe). A variable, so that tests can
// stand in for one.
var isTerminal = func(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// stepProgress shows a command's way through steps of seconds each
// (bench's shapes) on stderr when it is a terminal, one line rewritten in
// place: the step, the time so far and an estimate of the rest from the
// steps done. The estimate assumes steps alike; a sweep of growing shapes
// takes longer, which the line says by "at least".
type stepProgress struct {
	w     io.Writer // nil: not a terminal, nothing shown
	what  string
	start time.Time
	shown bool
}

func newStepProgress(stderr io.Writer, what string) *stepProgress {
	p := &stepProgress{what: what, start: time.Now()}
	if isTerminal(stderr) {
		p.w = stderr
	}
	return p
}

// step shows that step i (from 0) of n, named label, has begun.
func (p *stepProgress) step(i, n int, label string) { p.show(i+1, n, label, i) }

// ended shows that k of n steps have ended, the last named label (steps
// that run in parallel, such as tune's compiles, end in any order).
func (p *stepProgress) ended(k, n int, label string) { p.show(k, n, label, k) }

// show writes the line "what k of n (label), elapsed[, ETA]", the ETA
// from the done steps that have ended.
func (p *stepProgress) show(k, n int, label string, done int) {
	if p.w == nil {
		return
	}
	elapsed := time.Since(p.start)
	line := fmt.Sprintf("%s %d of %d (%s), %s elapsed", p.what, k, n, label, elapsed.Round(100*time.Millisecond))
	if done > 0 {
		eta := elapsed / time.Duration(done) * time.Duration(n-done)
		line += fmt.Sprintf(", ETA at least %s", eta.Round(100*time.Millisecond))
	}
	fmt.Fprintf(p.w, "\r\033[K%s", line)
	p.shown = true
}

// clear erases the line, before other output and at the end.
func (p *stepProgress) clear() {
	if p.w != nil && p.shown {
		fmt.Fprint(p.w, "\r\033[K")
		p.shown = false
	}
}

// paramDims is the symbolic and fixed dims of parameter p: an array's own,
// or every array's of a list's signature.
func paramDims(p *ir.Param, sigs argSigs) []ir.Dim {
	if _, ok := p.Type.(*ir.ArrayList); ok {
		var out []ir.Dim
		for _, e := range sigs[p.Name].Elems {
			out = append(out, e.Dims...)
		}
		return out
	}
	return p.Dims
}
