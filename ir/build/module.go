package build

// Module level as cuTile 1.6 files write it: the imports a kernel file
// has besides cuda.tile (math, numpy, torch, `from math import ceil`),
// and module-level assignments: annotation aliases (`ConstInt =
// ct.Constant[int]`) and constants (`PAD = ct.PaddingMode.ZERO`, ints,
// floats, dtypes such as np.float16). Globals are evaluated once, in source
// order, before any kernel is built; they must be compile-time values.

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/lang"
)

// The host-library namespaces: only their dtype names and math constants
// and functions mean something in a kernel file.
const (
	nsMath  nsVal = "math"
	nsNumpy nsVal = "numpy"
	nsTorch nsVal = "torch"
)

// annotVal is the value of `ct.Constant[int]`, `ct.Array[...]` or
// `ct.Scalar[...]` outside a parameter list: an annotation that an alias
// (`ConstInt = ct.Constant[int]`) names for later parameters.
type annotVal struct{ sub *lang.Subscript }

// mathFn is a function of Python's math module (math.ceil, or ceil after
// `from math import ceil`).
type mathFn struct{ name string }

// hostDTypes maps numpy's and torch's dtype names to the tile module's
// names (looked up in ctDTypes, so a dtype tilec lacks stays unknown).
var hostDTypes = map[string]string{
	"float16": "float16", "half": "float16", "bfloat16": "bfloat16",
	"float32": "float32", "float": "float32", "single": "float32",
	"float64": "float64", "double": "float64",
	"int8": "int8", "int16": "int16", "int32": "int32", "int": "int32", "int64": "int64", "long": "int64",
	"uint8": "uint8", "uint16": "uint16", "uint32": "uint32", "uint64": "uint64",
	"bool": "bool_", "bool_": "bool_",
	"float8_e4m3fn": "float8_e4m3fn", "float8_e5m2": "float8_e5m2", "float8_e8m0fnu": "float8_e8m0fnu",
}

var mathConsts = map[string]float64{
	"pi": math.Pi, "e": math.E, "tau": 2 * math.Pi, "inf": math.Inf(1), "nan": math.NaN(),
}

var mathFns = map[string]bool{
	"ceil": true, "floor": true, "trunc": true, "sqrt": true, "exp": true, "log": true,
	"log2": true, "isqrt": true,
}

// moduleImport binds one import; it reports whether it was the tile module.
func (b *builder) moduleImport(imp *lang.Import) bool {
	bindAs := func(def string, v value) {
		name := imp.Alias
		if name == "" {
			name = def
		}
		b.globals[name] = v
	}
	switch imp.Path {
	case "cuda.tile", "tile":
		if imp.Alias != "" {
			b.globals[imp.Alias] = nsTile
		} else if imp.Path == "tile" {
			b.globals["tile"] = nsTile
		} else {
			b.globals["cuda"] = nsCuda
		}
		return true
	case "math":
		bindAs("math", nsMath)
	case "numpy":
		bindAs("numpy", nsNumpy)
	case "torch":
		bindAs("torch", nsTorch)
	case "torch.nn", "torch.nn.functional", "torch.testing":
		// A script's driver computes its reference with these; `import
		// torch.nn.functional` binds torch, as Python's import does.
		if imp.Alias == "" {
			b.globals["torch"] = nsTorch
		} else {
			b.globals[imp.Alias] = nsVal(imp.Path)
		}
	default:
		if mod, name, ok := cutLast(imp.Path); ok && mod == "math" {
			if v := b.mathMember(name); v != nil {
				bindAs(name, v)
				return false
			}
			b.errorf(imp.Pos, "cannot import %s from math: tilec has math's constants (pi, e, tau, inf, nan) and ceil, floor, trunc, sqrt, exp, log, log2, isqrt", name)
			return false
		}
		if mod, member, ok := cutLast(imp.Path); ok && imp.From && (mod == "cuda.tile" || mod == "tile") {
			// from cuda.tile import RoundingMode as RMd
			v := b.nsAttr(nsTile, &lang.Attr{Pos: imp.Pos, X: &lang.Name{Pos: imp.Pos, Name: "ct"}, Name: member, NamePos: imp.Pos})
			if _, bad := v.(poison); !bad {
				bindAs(member, v)
			}
			return false
		}
		if root, _, _ := strings.Cut(imp.Path, "."); (root == "cuda" || root == "tile") && !strings.HasPrefix(imp.Path, "cuda.tile.") {
			b.errorf(imp.Pos, "cannot import %s: the tile module is cuda.tile", imp.Path)
			return false
		}
		// A private module of cuda.tile (from
		// cuda.tile._numeric_semantics import RoundingMode as RMd): its
		// members are the tile module's.
		if mod, member, ok := cutLast(imp.Path); ok && imp.From && strings.HasPrefix(mod, "cuda.tile._") {
			if v, ok := tileAttr(member); ok {
				bindAs(member, v)
			} else {
				// cuTile's private helpers for host code
				// (get_compute_capability, BytecodeVersion, ...): the
				// driver's to use, an error only where a kernel does.
				bindAs(member, hostOnlyVal{why: fmt.Sprintf("is %s.%s, which tilec leaves to host code (it is not a tile builtin)", mod, member)})
			}
			return false
		}
		// A module of the program's own (lang.ModuleFile: a Python file
		// beside it): its helpers and module-level constants, built with
		// the same rules in the module's own globals.
		if file := lang.ModuleFile(b.src.Name, imp.Path); imp.From && file != "" {
			b.importFromModule(imp, file)
			return false
		}
		// The module itself as a value: `from . import utils`, `import
		// utils` (a dotted `import a.b` binds the package a: only with
		// an alias is it the module a.b).
		if imp.From || imp.Alias != "" || !strings.Contains(imp.Path, ".") {
			if file := lang.ModuleOf(b.src.Name, imp.Path); file != "" {
				if m := b.loadModule(file, imp.Pos); m != nil {
					b.globals[imp.BoundName()] = moduleVal{m}
				} else {
					b.globals[imp.BoundName()] = poison{}
				}
				return false
			}
		}
		// Another module (argparse, cupy, cuda.tile.tune) is the host
		// code's: the import binds a name that kernels cannot use.
		why := fmt.Sprintf("is the module %s, imported for host code (line %d): kernels use only cuda.tile, math, numpy, torch and the program's own modules", imp.Path, imp.Pos.Line)
		if strings.HasPrefix(imp.Path, ".") {
			why = fmt.Sprintf("is %s, imported from a module of the program that tilec did not find as a file beside it (line %d)", imp.Path, imp.Pos.Line)
		}
		b.globals[imp.BoundName()] = hostOnlyVal{why: why}
	}
	return false
}

// hostOnlyVal is a module-level name that only host code may use: bound
// by the import of a module tilec's kernels do not have (argparse, cupy, a
// sibling module), or by a module-level assignment whose value comes from
// host code (logger = get_logger(__name__)), which tilec leaves to the
// host. A kernel that uses it is an error at the use, saying why.
type hostOnlyVal struct{ why string }

func cutLast(path string) (string, string, bool) {
	for i := len(path) - 1; i >= 0; i-- {
		if path[i] == '.' {
			return path[:i], path[i+1:], true
		}
	}
	return "", "", false
}

// mathMember is math.name, or nil when tilec does not have it.
func (b *builder) mathMember(name string) value {
	if c, ok := mathConsts[name]; ok {
		return c
	}
	if mathFns[name] {
		return mathFn{name}
	}
	return nil
}

// hostAttr resolves numpy.x, torch.x and math.x.
func (b *builder) hostAttr(ns nsVal, e *lang.Attr) value {
	if ns == nsMath {
		if v := b.mathMember(e.Name); v != nil {
			return v
		}
		return b.fail(e.NamePos, "math.%s is not available in kernels (tilec has pi, e, tau, inf, nan, ceil, floor, trunc, sqrt, exp, log, log2, isqrt)", e.Name)
	}
	if ct, ok := hostDTypes[e.Name]; ok {
		if d, ok := ctDTypes[ct]; ok {
			return d
		}
		return b.fail(e.NamePos, "%s.%s: tilec has no %s dtype yet", exprText(e.X), e.Name, ct)
	}
	if ns == nsNumpy {
		switch e.Name {
		case "inf":
			return math.Inf(1)
		case "nan":
			return math.NaN()
		case "pi":
			return math.Pi
		case "e":
			return math.E
		}
	}
	return b.fail(e.NamePos, "%s.%s is not available in kernels: only its dtype names (and numpy's inf, nan, pi, e) are", exprText(e.X), e.Name)
}

// callMath calls a math function. Compile-time numbers fold; run-time
// floats take the tile math op where there is one.
func (b *builder) callMath(fn mathFn, e *lang.Call, pos []arg, kws []kwArg) value {
	name := "math." + fn.name
	args, ok := b.bindArgs(name, []sigParam{{name: "x"}}, e.Pos, pos, kws)
	if !ok || isPoison(args[0].v) {
		return poison{}
	}
	x := args[0].v
	if isNumber(x) {
		f := toFloat(x)
		var r float64
		switch fn.name {
		case "ceil", "floor", "trunc":
			r = map[string]func(float64) float64{"ceil": math.Ceil, "floor": math.Floor, "trunc": math.Trunc}[fn.name](f)
			if math.IsNaN(r) || math.IsInf(r, 0) || r >= 1<<63 || r < -(1<<63) {
				return b.fail(e.Pos, "%s(%s): the result is not a 64-bit int", name, formatConst(x))
			}
			return int64(r)
		case "isqrt":
			n, isInt := x.(int64)
			if !isInt || n < 0 {
				return b.fail(e.Pos, "%s needs a non-negative int, got %s", name, formatConst(x))
			}
			r := int64(math.Sqrt(float64(n)))
			for r*r > n {
				r--
			}
			for (r+1)*(r+1) <= n {
				r++
			}
			return r
		case "sqrt":
			r = math.Sqrt(f)
		case "exp":
			r = math.Exp(f)
		case "log":
			r = math.Log(f)
		case "log2":
			r = math.Log2(f)
		}
		if (fn.name == "sqrt" || fn.name == "log" || fn.name == "log2") && f < 0 {
			return b.fail(e.Pos, "%s(%s): math domain error", name, formatConst(x))
		}
		return r
	}
	if v, ok := x.(*ir.Value); ok && isRuntime(v) {
		if _, scalar := v.Type.(*ir.Scalar); scalar {
			switch fn.name {
			case "sqrt":
				return b.mathOp(e.Pos, name, ir.OpSqrt, v)
			case "exp":
				return b.mathOp(e.Pos, name, ir.OpExp, v)
			case "log":
				return b.mathOp(e.Pos, name, ir.OpLog, v)
			}
		}
		return b.fail(e.Pos, "%s of a run-time %s is not supported: math functions take compile-time numbers in kernels (use ct.cdiv for ceil division)", name, v.Type)
	}
	return b.fail(e.Pos, "%s of %s", name, describe(x))
}

// moduleGlobals evaluates the module-level assignments in source order, in
// a scratch function: their values must be compile-time (a run-time value
// such as ct.bid(0) at module level is an error naming the global).
func (b *builder) moduleGlobals() {
	if len(b.file.Globals) == 0 {
		return
	}
	scratch := ir.NewFunc("<module>")
	b.f, b.cur = scratch, scratch.Body
	b.consts = map[*ir.Block]map[constKey]*ir.Value{}
	b.kernel = &lang.FuncDef{Name: "<module>"}
	b.fn = &funcCtx{scope: map[string]binding{}, locals: map[string]bool{}}
	defer func() { b.f, b.cur, b.fn, b.kernel = nil, nil, nil, nil }()
	for _, a := range b.file.Globals {
		// A value that uses host code (a name only host code has) is the
		// host's to compute: its names are bound as host-only, and the
		// errors of evaluating it here are dropped; a kernel that uses one
		// of the names is an error at the use.
		snap := b.snapshot()
		b.hostUsed = false
		v := b.expr(a.Value)
		if b.hostUsed {
			b.restore(snap)
			for _, n := range assignedList([]lang.Stmt{a}) {
				b.globals[n] = hostOnlyVal{why: fmt.Sprintf("is set by module-level host code (line %d), which tilec leaves to the host: kernels use module-level compile-time values only", a.Pos.Line)}
			}
			continue
		}
		var names []*lang.Name
		var vals []value
		if len(a.Targets) == 1 {
			n, ok := a.Targets[0].(*lang.Name)
			if !ok {
				b.errorf(a.Targets[0].Position(), "a module-level assignment must bind names")
				continue
			}
			names, vals = []*lang.Name{n}, []value{v}
		} else {
			t, ok := v.(tuple)
			if !ok && !isPoison(v) {
				b.errorf(a.Value.Position(), "cannot unpack %s into %d names", describe(v), len(a.Targets))
			}
			if ok && len(t) != len(a.Targets) {
				b.errorf(a.Value.Position(), "cannot unpack %d values into %d names", len(t), len(a.Targets))
				ok = false
			}
			for i, te := range a.Targets {
				n, isName := te.(*lang.Name)
				if !isName {
					b.errorf(te.Position(), "a module-level assignment must bind names")
					continue
				}
				var ev value = poison{}
				if ok {
					ev = t[i]
				}
				names, vals = append(names, n), append(vals, ev)
			}
		}
		for i, n := range names {
			b.moduleGlobal(n, vals[i])
		}
	}
}

func (b *builder) moduleGlobal(n *lang.Name, v value) {
	if b.reservedName(n.Name) {
		b.errorf(n.Pos, "cannot assign to %s at module level: it is a builtin or module name", n.Name)
		return
	}
	if fv, ok := b.globals[n.Name].(*funcVal); ok {
		b.errorf(n.Pos, "cannot assign to %s: it is a function defined at %s", n.Name, fv.def.NamePos)
		return
	}
	switch v.(type) {
	case int64, float64, bool, ir.DType, string, tuple, padMode, noneVal, annotVal, mathFn, poison:
	case nsVal, builtinVal, *funcVal:
		// Aliases of modules and functions (`load = ct.load`).
	default:
		b.errorf(n.Pos, "module-level %s must be a compile-time value, got %s", n.Name, describe(v))
		v = poison{}
	}
	if t, ok := v.(tuple); ok && hasRuntime(t) {
		b.errorf(n.Pos, "module-level %s must be a compile-time value", n.Name)
		v = poison{}
	}
	b.globals[n.Name] = v
}

func hasRuntime(t tuple) bool {
	for _, v := range t {
		switch v := v.(type) {
		case *ir.Value, *arrayVal:
			return true
		case tuple:
			if hasRuntime(v) {
				return true
			}
		}
	}
	return false
}

// resolveAnnot follows an alias: a parameter annotated `ConstInt` where
// `ConstInt = ct.Constant[int]` is read as if annotated ct.Constant[int].
func (b *builder) resolveAnnot(e lang.Expr) lang.Expr {
	if n, ok := e.(*lang.Name); ok {
		if a, ok := b.globals[n.Name].(annotVal); ok {
			return a.sub
		}
	}
	return e
}

// TileDType is the tile module's dtype of the given name (ct.float16 is
// "float16"), as kernels and host code both read it.
func TileDType(name string) (ir.DType, bool) {
	d, ok := ctDTypes[name]
	return d, ok
}

// TileDTypeName is the tile module's name of dtype d ("" when it has none).
func TileDTypeName(d ir.DType) string {
	for _, name := range slices.Sorted(maps.Keys(ctDTypes)) {
		if ctDTypes[name] == d {
			return name
		}
	}
	return ""
}

// MathConst is the math module's constant of the given name (pi, e, tau,
// inf, nan), as kernels and host code both read it.
func MathConst(name string) (float64, bool) {
	c, ok := mathConsts[name]
	return c, ok
}

// MathFuncs are the names of the math module's functions tilec has, in
// kernels and host code, sorted.
func MathFuncs() []string { return slices.Sorted(maps.Keys(mathFns)) }

// importFromModule binds `from M import x [as y]` for M, a module of the
// program's own (file): x is M's helper, kernel or module-level value. A
// helper called from a kernel is inlined in M's globals (funcVal.mod), so
// that its own imports and constants are the ones it sees, as in Python.
func (b *builder) importFromModule(imp *lang.Import, file string) {
	_, member, _ := cutLast(imp.Path)
	name := imp.BoundName()
	m := b.loadModule(file, imp.Pos)
	if m == nil {
		b.globals[name] = poison{} // the error is out
		return
	}
	v, ok := m.member(member)
	if !ok {
		b.errorf(imp.Pos, "cannot import name %s from %s", member, file)
		b.globals[name] = poison{}
		return
	}
	b.globals[name] = v
}

// member is a module-level name of module m as another module sees it: a
// def carries m, so that its body runs in m's globals.
func (m *builder) member(name string) (value, bool) {
	v, ok := m.globals[name]
	if fv, isFunc := v.(*funcVal); isFunc && fv.mod == nil {
		v = &funcVal{def: fv.def, kernel: fv.kernel, decorator: fv.decorator, mod: m}
	}
	return v, ok
}

// moduleVal is a module of the program's own as a value (`import utils`,
// `from . import utils`): utils.f is its member.
type moduleVal struct{ m *builder }

// loadModule parses one of the program's own modules and binds its top
// level (once per build; modules importing each other share the table),
// or reports why it cannot and returns nil.
func (b *builder) loadModule(file string, pos lang.Pos) *builder {
	if b.mods == nil {
		b.mods = map[string]*builder{}
	}
	if m, ok := b.mods[file]; ok {
		if m == nil {
			b.errorf(pos, "importing %s: it imports the module that imports it (a circular import)", file)
		}
		return m
	}
	b.mods[file] = nil // loading
	src, err := lang.ReadModule(file)
	if err != nil {
		b.errorf(pos, "importing %s: %v", file, err)
		return nil
	}
	f, err := lang.ParseProgram(file, src)
	if err != nil {
		var list lang.ErrorList
		if errors.As(err, &list) {
			b.errs = append(b.errs, list...)
		} else {
			b.errorf(pos, "importing %s: %v", file, err)
		}
		return nil
	}
	m := &builder{file: f, src: f.Src, opts: Options{Strict: b.opts.Strict}, mods: b.mods}
	if m.src == nil {
		m.src = &lang.Source{Name: file}
	}
	m.collectModule()
	b.errs = append(b.errs, m.errs...)
	b.mods[file] = m
	return m
}
