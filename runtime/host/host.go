package host

// The program, its entry functions and ct.launch.

import (
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/ir/build"
	"github.com/tilec/tilec/lang"
	"github.com/tilec/tilec/runtime"
	"github.com/tilec/tilec/runtime/compile"
	"github.com/tilec/tilec/runtime/interp"
)

// Program is a parsed source file whose plain defs can run as host code.
type Program struct {
	file    *lang.File
	src     *lang.Source
	globals map[string]any                 // imports and defs
	assigns map[string]*lang.AssignStmt    // module-level assignments, evaluated on first use
	values  map[string]any                 // evaluated module assignments
	busy    map[string]bool                // assignments being evaluated (cycles)
	params  map[string][]build.KernelParam // kernel name -> its parameters
	mods    modules                        // the program's own modules loaded so far (modules.go)
	classes map[string]*classVal           // classes made so far (classes.go)
}

// Param is one parameter of a host function.
type Param struct {
	Name       string
	Pos        lang.Pos
	HasDefault bool
}

// Launch is one ct.launch, ready to run.
type Launch struct {
	Pos    lang.Pos // of the ct.launch call
	Name   string   // the kernel's name
	Kernel *runtime.Kernel
	Args   []runtime.Arg
	Grid   [3]int
	// Consts are the constants the launch passed, `name=value` in
	// parameter order (defaults left out).
	Consts []string
}

// Options configure Run.
type Options struct {
	// Launch runs one ct.launch; nil runs it on the CPU interpreter.
	Launch func(*Launch) error
	// Stdout receives print(); nil discards it.
	Stdout io.Writer
	// Stderr receives notes on what tilec does differently from Python
	// where nothing it computes differs (ct.tune.exhaustive_search times
	// nothing and takes the first config that runs); nil: os.Stderr.
	Stderr io.Writer
	// Seed starts a script's random generator (RunMain) as
	// torch.manual_seed(Seed) would.
	Seed uint64
	// Argv is what argparse's parse_args() reads (tilec run FILE -- ...).
	Argv []string
	// Device is what torch.cuda's queries report; nil: the interpreter's.
	Device *Device
	// Matmul, when set, computes the driver's float16 and bfloat16 matrix
	// products (A (..., M, K) @ B (..., K, N), one batch shape, packed
	// results of A's dtype) as torch on a GPU does: cuBLAS on the device
	// the kernels run on. A script that checks its kernel against
	// `A @ B` then compares two tensor-core sums, as it would under
	// cuTile, not a tensor-core sum against the driver's sequential
	// float32 one (their orders differ by a few float32 units, which
	// torch's float16 tolerance does not allow where the sum cancels).
	// nil: the driver's own float32 sums.
	Matmul func(a, b *runtime.Tensor) (*runtime.Tensor, error)
	// Strict builds the kernels that ct.launch launches in strict mode:
	// tilec's extensions to cuTile 1.6 are errors (compile.Options).
	Strict bool
	// Deadline, when set, stops host code that runs past it (checked at
	// every statement and inside long tensor operations): --timeout covers
	// a script's own work, not only its kernels'.
	Deadline time.Time
}

// Limits that keep host code bounded on any input.
const (
	maxCallDepth = 64
	maxSteps     = 1_000_000 // statements executed in one Run
)

// Load prepares a parsed file for running its host functions: it binds
// the imports and defs. Module-level assignments are evaluated when host
// code first uses them.
func Load(file *lang.File) (*Program, error) {
	p := &Program{file: file, src: file.Src, globals: map[string]any{}, assigns: map[string]*lang.AssignStmt{},
		values: map[string]any{}, busy: map[string]bool{}, params: map[string][]build.KernelParam{}}
	if p.src == nil {
		p.src = &lang.Source{}
	}
	tile := false
	for _, imp := range file.Imports {
		name := imp.Alias
		var v any
		switch {
		case imp.Path == "cuda.tile" || imp.Path == "tile":
			tile = true
			if name == "" && imp.Path == "cuda.tile" {
				name, v = "cuda", module("cuda")
			} else {
				if name == "" {
					name = "tile"
				}
				v = module("ct")
			}
		case knownModule(imp.Path):
			if name == "" {
				name = imp.Path
			}
			v = module(imp.Path)
		case imp.From && strings.HasPrefix(imp.Path, "cuda.tile.tune.") && !strings.Contains(strings.TrimPrefix(imp.Path, "cuda.tile.tune."), "."):
			// from cuda.tile.tune import exhaustive_search
			member := strings.TrimPrefix(imp.Path, "cuda.tile.tune.")
			if name == "" {
				name = member
			}
			v = lazyAttr{mod: "ct.tune", name: member, pos: imp.Pos}
		case imp.From && strings.HasPrefix(imp.Path, "cuda.tile.") && !strings.Contains(strings.TrimPrefix(imp.Path, "cuda.tile."), "."):
			// from cuda.tile import float16, cdiv
			member := strings.TrimPrefix(imp.Path, "cuda.tile.")
			if name == "" {
				name = member
			}
			v = lazyAttr{mod: "ct", name: member, pos: imp.Pos}
		case imp.From && knownModule(imp.Path[:strings.LastIndex(imp.Path, ".")]):
			// from torch.nn.functional import scaled_dot_product_attention
			i := strings.LastIndex(imp.Path, ".")
			if name == "" {
				name = imp.Path[i+1:]
			}
			v = lazyAttr{mod: imp.Path[:i], name: imp.Path[i+1:], pos: imp.Pos}
		case privateMembers[imp.Path] != (lazyAttr{}):
			// from cuda.tile._cext import get_compute_capability
			if name == "" {
				name = imp.Path[strings.LastIndex(imp.Path, ".")+1:]
			}
			v = privateMembers[imp.Path]
		case strings.HasPrefix(imp.Path, "math."):
			member := strings.TrimPrefix(imp.Path, "math.")
			if name == "" {
				name = member
			}
			v = lazyAttr{mod: "math", name: member, pos: imp.Pos}
		case imp.From && p.moduleFile(imp.Path) != "":
			// from utils.benchmark import report_benchmark, from .utils
			// import f: a module of the program's own, beside its file,
			// loaded when the name is first used.
			name = imp.BoundName()
			i := strings.LastIndex(imp.Path, ".")
			v = moduleMember{file: p.moduleFile(imp.Path), name: imp.Path[i+1:], pos: imp.Pos}
		case (imp.From || imp.Alias != "" || !strings.Contains(imp.Path, ".")) && p.moduleOf(imp.Path) != "":
			// import utils, from . import utils: the module itself, whose
			// members are loaded on first use (utils.f).
			name = imp.BoundName()
			v = progModule{file: p.moduleOf(imp.Path), pos: imp.Pos}
		default:
			// Another module (argparse, cupy): host code that uses one
			// of its names is told what the host subset lacks.
			name = imp.BoundName()
			v = module(imp.Path)
		}
		p.globals[name] = v
	}
	if !tile {
		p.globals["ct"] = module("ct")
	}
	for _, def := range file.Funcs {
		p.globals[def.Name] = &funcRef{def: def, kernel: p.isKernel(def), prog: p}
	}
	for _, cd := range file.Classes {
		p.globals[cd.Name] = &classRef{def: cd, prog: p}
	}
	for _, a := range file.Globals {
		for _, t := range a.Targets {
			for _, n := range targetNames(t) {
				p.assigns[n] = a
			}
		}
	}
	return p, nil
}

// privateMembers are names of cuTile's private modules that samples
// import, as the public function host code has: NVIDIA's
// BlockScaledMatMul.py checks the device with
// cuda.tile._cext.get_compute_capability().
var privateMembers = map[string]lazyAttr{
	"cuda.tile._cext.get_compute_capability": {mod: "torch.cuda", name: "get_device_capability"},
}

func targetNames(t lang.Expr) []string {
	switch t := t.(type) {
	case *lang.Name:
		return []string{t.Name}
	case *lang.Tuple:
		var out []string
		for _, e := range t.Elems {
			out = append(out, targetNames(e)...)
		}
		return out
	}
	return nil
}

// isKernel reports whether def has a @ct.kernel decorator.
func (p *Program) isKernel(def *lang.FuncDef) bool {
	for _, d := range def.Decorators {
		if c, ok := d.(*lang.Call); ok {
			d = c.Fun
		}
		a, ok := d.(*lang.Attr)
		if !ok || a.Name != "kernel" {
			continue
		}
		switch x := a.X.(type) {
		case *lang.Name:
			if p.globals[x.Name] == module("ct") {
				return true
			}
		case *lang.Attr:
			if n, ok := x.X.(*lang.Name); ok && x.Name == "tile" && p.globals[n.Name] == module("cuda") {
				return true
			}
		}
	}
	return false
}

// Entry returns the parameters of the host function name: a plain def of
// the file (not a kernel).
func (p *Program) Entry(name string) ([]Param, error) {
	def, err := p.entry(name)
	if err != nil {
		return nil, err
	}
	out := make([]Param, len(def.Params))
	for i, prm := range def.Params {
		out[i] = Param{Name: prm.Name, Pos: prm.Pos, HasDefault: prm.Default != nil}
	}
	return out, nil
}

func (p *Program) entry(name string) (*lang.FuncDef, error) {
	f, ok := p.globals[name].(*funcRef)
	if r, isClass := p.globals[name].(*classRef); isClass {
		return nil, p.src.Errorf(r.def.NamePos, "%s is a class: the entry is a host function (a def)", name)
	}
	if err, deferred := p.file.Deferred[name]; !ok && deferred {
		return nil, err
	}
	if !ok {
		var names []string
		for _, def := range p.file.Funcs {
			if !p.isKernel(def) {
				names = append(names, def.Name)
			}
		}
		sort.Strings(names)
		have := "it has none"
		if len(names) > 0 {
			have = "it has " + strings.Join(names, ", ")
		}
		return nil, fmt.Errorf("%s: no host function named %s (%s)", p.src.Name, name, have)
	}
	if f.kernel {
		return nil, p.src.Errorf(f.def.NamePos, "%s is a kernel: the entry is the host function that launches it (the def that calls ct.launch)", name)
	}
	return f.def, nil
}

// Run calls the host function entry with args (by parameter name;
// parameters left out take their defaults) and returns its result.
// Errors are positioned (*lang.Error) where host code or a kernel is at
// fault.
func (p *Program) Run(entry string, args map[string]any, opts Options) (result any, err error) {
	def, err := p.entry(entry)
	if err != nil {
		return nil, err
	}
	for name := range args {
		found := false
		for _, prm := range def.Params {
			found = found || prm.Name == name
		}
		if !found {
			return nil, fmt.Errorf("%s has no parameter %s", entry, name)
		}
	}
	in := &evaluator{prog: p, root: p, opts: opts, kernels: map[string]*runtime.Kernel{}}
	defer func() {
		if r := recover(); r != nil {
			if he, ok := r.(hostError); ok {
				result, err = nil, he.err
				return
			}
			if _, ok := r.(scriptExit); ok {
				result, err = nil, nil
				return
			}
			result, err = nil, fmt.Errorf("internal error in the host interpreter: %v\n%s", r, debug.Stack())
		}
	}()
	fr := &frame{vars: map[string]any{}, def: def}
	for _, prm := range def.Params {
		if v, ok := args[prm.Name]; ok {
			fr.vars[prm.Name] = hostValue(v)
		} else if prm.Default != nil {
			fr.vars[prm.Name] = in.expr(&frame{vars: map[string]any{}}, prm.Default)
		} else {
			return nil, p.src.Errorf(prm.Pos, "parameter %s of %s has no value", prm.Name, entry)
		}
	}
	return unhost(in.body(fr, def.Body)), nil
}

// HasMain reports whether the file is a script with a driver: an
// `if __name__ == "__main__":` block (which may have errors, that RunMain
// reports).
func (p *Program) HasMain() bool { return p.file.Main != nil || p.file.MainErr != nil }

// RunMain runs the script's `if __name__ == "__main__":` block as Python
// would run the file: its names are module globals, its ct.launch calls
// go through opts.Launch, and its torch calls are the driver subset
// (random inputs, references, torch.testing.assert_close). A failed
// assertion or check is a positioned error.
func (p *Program) RunMain(opts Options) error {
	_, err := p.runMain(opts)
	return err
}

// runMain is RunMain, also returning the block's variables (for tests).
func (p *Program) runMain(opts Options) (vars map[string]any, err error) {
	if p.file.MainErr != nil {
		return nil, p.file.MainErr
	}
	if p.file.Main == nil {
		return nil, fmt.Errorf("%s has no `if __name__ == \"__main__\":` block to run: name the host function to run with --entry", p.src.Name)
	}
	in := &evaluator{prog: p, root: p, opts: opts, kernels: map[string]*runtime.Kernel{}, mainVars: map[string]any{}}
	defer func() {
		if r := recover(); r != nil {
			if he, ok := r.(hostError); ok {
				err = he.err
				return
			}
			if _, ok := r.(scriptExit); ok {
				vars, err = in.mainVars, nil
				return
			}
			err = fmt.Errorf("internal error in the host interpreter: %v\n%s", r, debug.Stack())
		}
	}()
	in.body(&frame{vars: in.mainVars, def: p.file.Main}, p.file.Main.Body)
	return in.mainVars, nil
}

// hostValue converts a Go argument to the interpreter's value.
func hostValue(v any) any {
	switch v := v.(type) {
	case int:
		return int64(v)
	case int32:
		return int64(v)
	case float32:
		return float64(v)
	case nil:
		return none{}
	case []any:
		t := make(Tuple, len(v))
		for i, x := range v {
			t[i] = hostValue(x)
		}
		return t
	}
	return v
}

// unhost converts a result for the caller: None is nil.
func unhost(v any) any {
	if _, ok := v.(none); ok {
		return nil
	}
	return v
}

// Tuple is a Python tuple.
type Tuple []any

// namedTuple is a tuple whose items also have names, as torch's
// return_types are (torch.max(x, dim) gives values and indices): it
// unpacks, indexes and iterates as its items do.
type namedTuple struct {
	typeName string
	names    []string
	items    Tuple
}

// sizeTuple is torch.Size, the type of x.shape and x.size(): a tuple of
// ints for every operation (indexing, len, unpacking, ==, iteration; + and
// * with a Size on the left and slicing keep the type, as torch's do), but
// printed as torch prints it, torch.Size([5000000]), not as (5000000,).
type sizeTuple Tuple

// plainTuple is v with a torch.Size made a plain tuple, for the operations
// that treat the two alike; other values are returned as they are.
func plainTuple(v any) any {
	if s, ok := v.(sizeTuple); ok {
		return Tuple(s)
	}
	return v
}

// asTuple is v's items when v is a tuple, a torch.Size or a named tuple.
func asTuple(v any) (Tuple, bool) {
	switch v := v.(type) {
	case Tuple:
		return v, true
	case sizeTuple:
		return Tuple(v), true
	case namedTuple:
		return v.items, true
	}
	return nil, false
}

type none struct{}

// module is a namespace: "ct", "cuda", "torch", "torch.cuda", "math", "numpy".
type module string

// builtin is a function of a namespace or of Python: "ct.cdiv", "torch.empty", "min".
type builtin string

// lazyAttr is a name imported with `from math import x`, resolved on use.
type lazyAttr struct {
	mod, name string
	pos       lang.Pos
}

type funcRef struct {
	def    *lang.FuncDef
	kernel bool
	prog   *Program // the file that defines it (the program's, or a module it imports)
}

// method is a tensor's or dtype's method bound to its receiver.
type method struct {
	recv any
	name string
}

type stream struct{}

type device struct{ kind string }

// dtypeVal is a dtype as host code sees it (its itemsize is the storage size).
type dtypeVal = ir.DType

type hostError struct{ err error }

type evaluator struct {
	prog    *Program // the file whose code runs now (the program's, or a module's)
	root    *Program // the program's: its main block's names are globals
	opts    Options
	depth   int
	steps   int
	kernels map[string]*runtime.Kernel // kernel name + constants -> compiled
	rng     *rand.Rand                 // the driver's torch.randn/rand (random)
	// mainVars are the names the script's main block binds: module
	// globals in Python, so functions it calls see them too.
	mainVars map[string]any
	// matmulPrecision is torch.set_float32_matmul_precision's last value.
	matmulPrecision string
	// grad is autograd's state (autograd.go).
	grad gradState
}

type frame struct {
	vars map[string]any
	def  *lang.FuncDef
	// parent is the frame around a lambda's or a comprehension's, whose
	// names it reads (nil for a def's: defs are top-level).
	parent *frame
}

func (in *evaluator) fail(pos lang.Pos, format string, args ...any) {
	panic(hostError{in.prog.src.Errorf(pos, format, args...)})
}

// launch runs ct.launch(stream, grid, kernel, args).
func (in *evaluator) launch(call *lang.Call, grid any, k *funcRef, args any, argPos lang.Pos) {
	prog := k.prog
	params, ok := prog.params[k.def.Name]
	if !ok {
		var err error
		params, err = build.KernelParams(prog.file, k.def.Name)
		if err != nil {
			panic(hostError{err})
		}
		prog.params[k.def.Name] = params
	}
	tup, ok := plainTuple(args).(Tuple)
	if !ok {
		in.fail(argPos, "ct.launch: the kernel's arguments are a tuple, got %s", describe(args))
	}
	if len(tup) > len(params) {
		in.fail(argPos, "ct.launch: %s takes %d arguments (%s), got %d", k.def.Name, len(params), paramNames(params), len(tup))
	}
	var consts []string
	constMap := map[string]string{}
	var kargs []runtime.Arg
	for i, prm := range params {
		if i >= len(tup) {
			if prm.Kind == build.ParamConst && prm.HasDefault {
				continue
			}
			in.fail(argPos, "ct.launch: no argument for parameter %s of %s (it takes %d: %s; got %d)", prm.Name, k.def.Name, len(params), paramNames(params), len(tup))
		}
		v := tup[i]
		if prm.Kind == build.ParamConst {
			s, ok := constString(prm.ConstKind, v)
			if !ok {
				in.fail(argPos, "ct.launch: argument %d of %s is constant %s (ct.Constant[%s]): want %s, got %s",
					i+1, k.def.Name, prm.Name, constKindName(prm.ConstKind), kindArticle(prm.ConstKind), describe(v))
			}
			constMap[prm.Name] = s
			consts = append(consts, prm.Name+"="+s)
			continue
		}
		switch v := v.(type) {
		case *runtime.Tensor:
			if prm.Kind == build.ParamScalar {
				in.fail(argPos, "ct.launch: argument %d of %s is scalar %s: got a tensor", i+1, k.def.Name, prm.Name)
			}
			kargs = append(kargs, v)
		case int64, float64, bool:
			if prm.Kind == build.ParamArray {
				in.fail(argPos, "ct.launch: argument %d of %s is array %s: got %s", i+1, k.def.Name, prm.Name, describe(v))
			}
			if n, isInt := v.(int64); isInt && n >= math.MinInt32 && n <= math.MaxInt32 {
				kargs = append(kargs, int(n)) // a Python int that fits is an i32 scalar
			} else {
				kargs = append(kargs, v)
			}
		case Tuple:
			kargs = append(kargs, in.listArg(argPos, i, k.def.Name, prm, v))
		default:
			in.fail(argPos, "ct.launch: argument %d of %s (%s) must be a tensor, a list of tensors or a number, got %s", i+1, k.def.Name, prm.Name, describe(v))
		}
	}
	g := in.grid(call, grid)
	key := prog.src.Name + "\x00" + k.def.Name + "\x00" + strings.Join(consts, "\x00")
	kern, ok := in.kernels[key]
	if !ok {
		var err error
		kern, err = compile.Parsed(prog.file, compile.Options{Kernel: k.def.Name, Consts: constMap, Strict: in.opts.Strict})
		if err != nil {
			panic(hostError{err})
		}
		in.kernels[key] = kern
	}
	l := &Launch{Pos: call.Pos, Name: k.def.Name, Kernel: kern, Args: kargs, Grid: g, Consts: consts}
	run := in.opts.Launch
	if run == nil {
		run = func(l *Launch) error {
			_, err := interp.CPU{}.Launch(l.Kernel, l.Args, runtime.LaunchOptions{Grid: l.Grid})
			return err
		}
	}
	if err := run(l); err != nil {
		var pe *lang.Error
		var pl lang.ErrorList
		var ee *interp.ExecError
		if errors.As(err, &pe) || errors.As(err, &pl) {
			panic(hostError{err})
		}
		if errors.As(err, &ee) && ee.Pos.IsValid() && !ee.Bug {
			// The kernel's position says where; the launch says which.
			panic(hostError{prog.src.Errorf(ee.Pos, "block (%d,%d,%d): %s (in the launch of %s at %s)",
				ee.Block[0], ee.Block[1], ee.Block[2], ee.Msg, k.def.Name, call.Pos)})
		}
		in.fail(call.Pos, "ct.launch of %s: %v", k.def.Name, err)
	}
}

// grid checks a launch grid: a tuple of 1 to 3 positive ints, padded with 1s.
func (in *evaluator) grid(call *lang.Call, v any) [3]int {
	pos := call.Pos
	if len(call.Args) > 1 {
		pos = call.Args[1].Position()
	}
	t, ok := plainTuple(v).(Tuple)
	if !ok {
		in.fail(pos, "ct.launch: the grid is a tuple of 1 to 3 ints, got %s", describe(v))
	}
	if len(t) < 1 || len(t) > 3 {
		in.fail(pos, "ct.launch: the grid has 1 to 3 axes, got %d", len(t))
	}
	g := [3]int{1, 1, 1}
	for i, x := range t {
		n, ok := x.(int64)
		if !ok {
			in.fail(pos, "ct.launch: grid axis %s is %s, not an int", "xyz"[i:i+1], describe(x))
		}
		if n <= 0 {
			in.fail(pos, "ct.launch: grid axis %s is %d: a launch needs at least one block on every axis", "xyz"[i:i+1], n)
		}
		if n > int64(runtime.MaxGrid[i]) {
			in.fail(pos, "ct.launch: grid axis %s is %d blocks, more than the %d a launch allows", "xyz"[i:i+1], n, runtime.MaxGrid[i])
		}
		g[i] = int(n)
	}
	return g
}

func paramNames(ps []build.KernelParam) string {
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = p.Name
	}
	return strings.Join(names, ", ")
}

func constKindName(kind string) string {
	if kind == "dtype" {
		return "ct.DType"
	}
	return kind
}

func kindArticle(kind string) string {
	switch kind {
	case "int":
		return "an int"
	case "":
		return "a constant"
	}
	return "a " + kind
}

// constString formats a constant argument as build.Options.Consts reads it.
func constString(kind string, v any) (string, bool) {
	switch kind {
	case "int":
		if n, ok := v.(int64); ok {
			return strconv.FormatInt(n, 10), true
		}
	case "float":
		switch x := v.(type) {
		case int64:
			return strconv.FormatInt(x, 10), true
		case float64:
			return strconv.FormatFloat(x, 'g', -1, 64), true
		}
	case "bool":
		if b, ok := v.(bool); ok {
			if b {
				return "True", true
			}
			return "False", true
		}
	case "dtype":
		if d, ok := v.(dtypeVal); ok {
			return d.String(), true
		}
	}
	return "", false
}

// describe names a value's kind for messages.
func describe(v any) string {
	switch v := v.(type) {
	case int64:
		return fmt.Sprintf("int %d", v)
	case float64:
		return fmt.Sprintf("float %s", strconv.FormatFloat(v, 'g', -1, 64))
	case complex128:
		return "complex " + complexStr(v)
	case complexDType:
		return "dtype " + v.String()
	case *cTensor:
		return fmt.Sprintf("a tensor %s%v", v.dtype(), v.shape())
	case bool:
		if v {
			return "True"
		}
		return "False"
	case string:
		return strconv.Quote(v)
	case none:
		return "None"
	case Tuple:
		return fmt.Sprintf("a tuple of %d", len(v))
	case sizeTuple:
		return fmt.Sprintf("a torch.Size of %d", len(v))
	case namedTuple:
		return v.typeName
	case *pyDict:
		if v.set {
			return fmt.Sprintf("a set of %d", len(v.keys))
		}
		return fmt.Sprintf("a dict of %d", len(v.keys))
	case *runtime.Tensor:
		return fmt.Sprintf("a tensor %s%v", v.DType, v.Shape)
	case *argParser:
		return "an argparse.ArgumentParser"
	case namespace:
		return "the parsed arguments (argparse.Namespace)"
	case deviceProps:
		return "device properties"
	case dtypeVal:
		return "dtype " + v.String()
	case module:
		return "module " + string(v)
	case progModule:
		return "module " + v.file
	case builtin:
		return "function " + string(v)
	case *funcRef:
		if v.kernel {
			return "kernel " + v.def.Name
		}
		return "function " + v.def.Name
	case *closure:
		return "a lambda"
	case *cudaEvent:
		return "a torch.cuda.Event"
	case *classVal:
		return "class " + v.def.Name
	case *instance:
		return "a " + v.cls.def.Name + " object"
	case methodVal:
		return "function " + v.cls.def.Name + "." + v.def.Name
	case boundMethod:
		return "method " + v.m.cls.def.Name + "." + v.m.def.Name
	case *fnCtx:
		return "the ctx of " + v.cls.def.Name
	case functionBase:
		return "class torch.autograd.Function"
	case gradFn:
		return "<" + v.n.name + ">"
	case *record:
		return "a " + v.typeName
	case method:
		return "method " + v.name
	case stream:
		return "a stream"
	case device:
		return "device " + strconv.Quote(v.kind)
	}
	return fmt.Sprintf("%T", v)
}

// knownModule reports whether host code has names from module path.
func knownModule(path string) bool {
	switch path {
	case "math", "numpy", "torch", "torch.autograd", "torch.fft", "torch.nn", "torch.nn.functional", "torch.testing", "torch.nn.attention", "argparse", "sys", "types", "ct.tune":
		return true
	}
	return false
}
