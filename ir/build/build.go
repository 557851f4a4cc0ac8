package build

// This file is the entry of the AST -> IR builder: File, the module-level
// names (imports, helpers, kernels), a kernel's parameters and constants,
// and the emission helpers that the package's other files share.
//
// The builder walks the AST once per kernel, inlining helpers at each call.
// Names are bound per function, as in Python; compile-time values are folded
// and only become IR values (consts) when they meet run-time values. Every
// user mistake is reported through errorf and the builder continues with a
// poison value, so one file reports all its errors.

import (
	"fmt"
	"math"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/lang"
)

// Options selects what File builds.
type Options struct {
	// Kernel is the kernel to build; "" builds every kernel of the file.
	Kernel string
	// Consts overrides constant parameters: name -> raw value, as given by
	// `-D name=value` (ints, floats, True/False, dtype names such as float16 or f16).
	Consts map[string]string
	// Args gives unannotated kernel parameters (`def k(A, B, x)`, as
	// cuTile writes them) their launch signature: dtype and rank of an
	// array, dtype of a scalar. The kernel is specialized on them.
	Args map[string]ArgSig
	// Strict makes tilec's extensions to cuTile 1.6 errors (strict.go), so
	// that a kernel that builds also runs under cuTile.
	Strict bool
}

// Limits that keep the builder's work bounded on any input.
const (
	maxTileElems   = 1 << 24 // elements of one tile
	maxInlineDepth = 64      // nested helper calls
	maxInlineCalls = 10000   // helper calls inlined into one kernel
	maxInstrs      = 1 << 18 // instructions of one kernel
)

// noKernelNamed is the message for a --kernel (Options.Kernel) that names
// no kernel of the file: it lists the kernels there are, so that a typo
// or a helper's name is fixed without reading the file.
func (b *builder) noKernelNamed(name string) string {
	var names []string
	for _, d := range b.order {
		if b.kernels[d] {
			names = append(names, d.Name)
		}
	}
	if len(names) == 0 {
		return fmt.Sprintf("no kernel named %s: the file has no kernel (a def decorated with @ct.kernel)", name)
	}
	return fmt.Sprintf("no kernel named %s: the file's kernels: %s", name, strings.Join(names, ", "))
}

// File turns the kernels of a parsed file into IR. The error, when not
// nil, is a sorted lang.ErrorList holding every error found.
func File(file *lang.File, opts Options) (*ir.Module, error) {
	b := &builder{file: file, src: file.Src, opts: opts}
	if b.src == nil {
		b.src = &lang.Source{}
	}
	b.collectModule()
	var kernels []*lang.FuncDef
	for _, def := range b.order {
		if b.kernels[def] && (opts.Kernel == "" || def.Name == opts.Kernel) {
			kernels = append(kernels, def)
		}
	}
	if _, broken := file.Broken[opts.Kernel]; opts.Kernel != "" && len(kernels) == 0 && !broken {
		b.errorf(lang.Pos{File: b.src.Name, Line: 1, Col: 1}, "%s", b.noKernelNamed(opts.Kernel))
	}
	b.checkConstNames(kernels)
	b.checkArgNames(kernels)
	m := &ir.Module{}
	for _, def := range kernels {
		if f := b.buildKernel(def); f != nil {
			m.Funcs = append(m.Funcs, f)
		}
	}
	b.errs.Sort()
	if len(b.errs) > 0 {
		return nil, b.errs
	}
	return m, nil
}

// AfterParseErrors returns perr, the errors of lang.Parse on file, joined
// with the errors that File finds in the top-level items that parsed
// (file holds them; the broken ones are left out and their names are
// silent): a syntax error in one function does not hide the type errors of
// another. file may be nil (Parse read nothing); the result is a sorted
// lang.ErrorList.
func AfterParseErrors(file *lang.File, perr error, opts Options) error {
	if file == nil {
		return perr
	}
	_, berr := File(file, opts)
	return lang.JoinErrors(perr, berr)
}

// builder holds the state of one File call.
type builder struct {
	file *lang.File
	src  *lang.Source
	opts Options
	errs lang.ErrorList
	// extensionsSeen are the places strict mode reported (a helper inlined
	// at several calls reports its extension once).
	extensionsSeen map[lang.Pos]bool
	// deferredSeen names the host items with errors (lang.File.Deferred)
	// whose errors a kernel's use has already reported.
	deferredSeen map[string]bool

	// Module level.
	globals map[string]value // helpers, kernels, import names
	// mods are the program's own modules loaded so far, by file (nil
	// while one loads), shared with the modules' builders.
	mods    map[string]*builder
	order   []*lang.FuncDef // defs in source order, redefinitions dropped
	kernels map[*lang.FuncDef]bool

	// Per kernel.
	f         *ir.Func
	kernel    *lang.FuncDef
	arrays    map[string]*arrayVal // symbol -> first array declaring it
	symAxis   map[string]int       // symbol -> its axis in that array
	dims      map[string]*ir.Value // symbol -> emitted dim
	dimInsert int                  // next insertion index of dims at the top of the body
	cur       *ir.Block
	consts    map[*ir.Block]map[constKey]*ir.Value
	fn        *funcCtx
	stack     []string // helpers being inlined, outermost first
	inlined   int
	ninstrs   int
	aborted   bool // a limit was hit: stop building the kernel
	// staticIterable is set while a ct.static_iter iterable is evaluated,
	// where range, enumerate and zip give tuples.
	staticIterable int
	// missingSigs are the unannotated parameters of the kernel that
	// Options.Args does not give: one error names them all.
	missingSigs []*lang.Param
	// rootsReported are the roots (binding.root) whose error is out.
	rootsReported map[string]bool
	// promoted are, per loop (loopKey), the carried variables whose
	// initial value is a rank-0 tile of the dtype given, and promoteReqs
	// what the loops being built ask for (promote.go).
	promoted    map[string]map[string]ir.DType
	promoteReqs []promoteReq
	// hostUsed is set when an expression reads a name only host code has
	// (hostOnlyVal, __name__, a host def with errors): a module-level
	// assignment doing so is left to the host (moduleGlobals).
	hostUsed bool
}

type constKey struct {
	dt  ir.DType
	val any
}

// funcCtx is the scope of one function activation (the kernel or an
// inlined helper call).
type funcCtx struct {
	def      *lang.FuncDef
	scope    map[string]binding
	locals   map[string]bool // names assigned anywhere in the body (Python's local rule)
	isKernel bool
	loops    int // for loops being built around the current statement
}

// binding is a name's value and where it was last assigned.
type binding struct {
	val value
	pos lang.Pos
	// root is set on a kernel constant's binding, and carried to the names
	// it is passed or assigned to as it is: it says where the value came
	// from (`-D tm=17`), so that a bad value gives one error, not one per
	// use (see rootErrorf).
	root string
}

// rootOf returns the root of e's value when e is a name bound to a kernel
// constant (directly, or through helper arguments and plain assignments),
// "" otherwise.
func (b *builder) rootOf(e lang.Expr) string {
	if n, ok := e.(*lang.Name); ok && b.fn != nil {
		return b.fn.scope[n.Name].root
	}
	return ""
}

// rootErrorf reports an error about the value of e at pos. When that value
// is a kernel constant's, the message says so and the error is given once
// per constant (and once per -D name across kernels): the user has one
// value to fix, however many places use it.
func (b *builder) rootErrorf(e lang.Expr, pos lang.Pos, format string, args ...any) {
	root := b.rootOf(e)
	if root == "" {
		b.errorf(pos, format, args...)
		return
	}
	if b.rootsReported[root] {
		return
	}
	if b.rootsReported == nil {
		b.rootsReported = map[string]bool{}
	}
	b.rootsReported[root] = true
	b.errorf(pos, "%s (%s)", fmt.Sprintf(format, args...), root)
}

// errorf reports a user error at pos.
func (b *builder) errorf(pos lang.Pos, format string, args ...any) {
	b.errs.Add(b.src.Errorf(pos, format, args...))
}

// fail reports an error and returns poison, for use in expression code.
func (b *builder) fail(pos lang.Pos, format string, args ...any) value {
	b.errorf(pos, format, args...)
	return poison{}
}

// collectModule binds the import names and the defs, reporting redefinitions.
func (b *builder) collectModule() {
	b.globals = map[string]value{}
	b.kernels = map[*lang.FuncDef]bool{}
	imported := false
	for _, imp := range b.file.Imports {
		if b.moduleImport(imp) {
			imported = true
		}
	}
	if !imported {
		b.globals["ct"] = nsTile
	}
	seen := map[string]*lang.FuncDef{}
	for _, def := range b.file.Funcs {
		kernel := false
		var unknown lang.Expr
		for _, d := range def.Decorators {
			switch {
			case b.isKernelDecorator(d):
				if kernel {
					b.errorf(d.Position(), "%s has two @ct.kernel decorators: give one (with the grid, if any)", def.Name)
				}
				kernel = true
			case unknown == nil && !b.pureWrapper(d):
				unknown = d
			}
		}
		if prev, ok := seen[def.Name]; ok {
			kind := "helper"
			if b.kernels[prev] {
				kind = "kernel"
			}
			b.errorf(def.NamePos, "%s %s is already defined at %s", kind, def.Name, prev.NamePos)
			continue
		}
		if _, ok := b.globals[def.Name]; ok || pyBuiltins[def.Name] {
			b.errorf(def.NamePos, "cannot define %s: it is a builtin name", def.Name)
			continue
		}
		seen[def.Name] = def
		b.order = append(b.order, def)
		b.kernels[def] = kernel
		b.globals[def.Name] = &funcVal{def: def, kernel: kernel, decorator: unknown}
	}
	// Names of top-level items that did not parse: their errors are out,
	// so a use of one is poison (silent), not "name ... is not defined".
	for name := range b.file.Broken {
		if _, ok := b.globals[name]; !ok {
			b.globals[name] = poison{}
		}
	}
	b.moduleGlobals()
}

// fileBroken reports whether some top-level item of the file did not
// parse: the -D and --arg names might then belong to a kernel that is not
// there, so they cannot be checked.
func (b *builder) fileBroken() bool {
	return len(b.file.Broken) > 0 || b.file.BrokenUnknown
}

// isKernelDecorator reports whether d is `@ct.kernel` or `@ct.kernel(...)`.
func (b *builder) isKernelDecorator(d lang.Expr) bool {
	if c, ok := d.(*lang.Call); ok {
		d = c.Fun
	}
	return b.moduleAttr(d) == "kernel"
}

// pureWrappers are the decorators that leave what a function computes as it
// is: functools' caches (a kernel factory under @lru_cache returns the same
// kernel for the same arguments).
var pureWrappers = map[string]bool{"functools.lru_cache": true, "functools.cache": true}

// pureWrapper reports whether decorator d is one of pureWrappers, spelled
// through `import functools` or `from functools import lru_cache`, called
// (@lru_cache(maxsize=None)) or not.
func (b *builder) pureWrapper(d lang.Expr) bool {
	if c, ok := d.(*lang.Call); ok {
		d = c.Fun
	}
	var path string
	switch x := d.(type) {
	case *lang.Attr:
		if n, ok := x.X.(*lang.Name); ok {
			path = b.importedPath(n.Name) + "." + x.Name
		}
	case *lang.Name:
		path = b.importedPath(x.Name)
	}
	return pureWrappers[path]
}

// importedPath is the dotted path that an import of the file binds name
// to ("" when none does).
func (b *builder) importedPath(name string) string {
	for _, imp := range b.file.Imports {
		bound := imp.Alias
		if bound == "" {
			bound = imp.Path
			if !imp.From {
				bound, _, _ = strings.Cut(imp.Path, ".")
			} else if i := strings.LastIndexByte(imp.Path, '.'); i >= 0 {
				bound = imp.Path[i+1:]
			}
		}
		if bound != name {
			continue
		}
		if !imp.From && imp.Alias == "" {
			return name // import a.b binds a
		}
		return imp.Path
	}
	return ""
}

// moduleAttr returns name when e is `ct.name` (or `cuda.tile.name`) at
// module scope, "" otherwise. It reports nothing.
func (b *builder) moduleAttr(e lang.Expr) string {
	a, ok := e.(*lang.Attr)
	if !ok {
		return ""
	}
	switch x := a.X.(type) {
	case *lang.Name:
		if b.globals[x.Name] == nsTile {
			return a.Name
		}
	case *lang.Attr:
		if n, ok := x.X.(*lang.Name); ok && x.Name == "tile" && b.globals[n.Name] == nsCuda {
			return a.Name
		}
	}
	return ""
}

// checkConstNames reports -D names that are not constants of the kernels
// being built. When building every kernel, a name is fine if any kernel has it.
//
// An unknown name is one mistake, so it gives one error however many
// kernels are built, at the first of them.
func (b *builder) checkConstNames(kernels []*lang.FuncDef) {
	if len(b.opts.Consts) == 0 || len(kernels) == 0 || b.fileBroken() {
		return
	}
	names := make([]string, 0, len(b.opts.Consts))
	for name := range b.opts.Consts {
		names = append(names, name)
	}
	sortStrings(names)
	for _, name := range names {
		found := false
		for _, def := range kernels {
			if b.constParam(def, name) {
				found = true
			}
		}
		if found {
			continue
		}
		if len(kernels) == 1 {
			b.errorf(kernels[0].NamePos, "-D %s: kernel %s has no constant parameter %s", name, kernels[0].Name, name)
			continue
		}
		b.errorf(kernels[0].NamePos, "-D %s: none of the kernels (%s) has a constant parameter %s", name, defNames(kernels), name)
	}
}

// defNames lists the names of defs, comma-separated, for messages.
func defNames(defs []*lang.FuncDef) string {
	names := make([]string, len(defs))
	for i, d := range defs {
		names[i] = d.Name
	}
	return strings.Join(names, ", ")
}

// constParam reports whether def declares name as a ct.Constant parameter.
func (b *builder) constParam(def *lang.FuncDef, name string) bool {
	for _, p := range def.Params {
		if p.Name == name {
			if s, ok := b.resolveAnnot(p.Annot).(*lang.Subscript); ok && b.moduleAttr(s.X) == "Constant" {
				return true
			}
		}
	}
	return false
}

// buildKernel builds one kernel; it returns nil when the kernel has errors.
func (b *builder) buildKernel(def *lang.FuncDef) (f *ir.Func) {
	nerrs := len(b.errs)
	defer func() {
		if r := recover(); r != nil {
			b.errorf(def.NamePos, "internal compiler error in kernel %s: %v\n%s", def.Name, r, debug.Stack())
			f = nil
		}
	}()
	b.f = ir.NewFunc(def.Name)
	b.f.Pos = ir.Pos(def.NamePos)
	b.kernel = def
	b.arrays = map[string]*arrayVal{}
	b.symAxis = map[string]int{}
	b.dims = map[string]*ir.Value{}
	b.dimInsert = 0
	b.cur = b.f.Body
	b.consts = map[*ir.Block]map[constKey]*ir.Value{}
	b.stack = nil
	b.inlined = 0
	b.ninstrs = 0
	b.aborted = false
	b.promoted, b.promoteReqs = nil, nil
	b.fn = &funcCtx{def: def, scope: map[string]binding{}, isKernel: true}

	b.kernelParams(def)
	b.kernelGrid(def)
	b.fn.locals = assignedSet(def.Body)
	b.stmts(moveAfterReturnsOf(def.Body), nil, true)
	b.f.Body.Append(&ir.Instr{Op: ir.OpReturn, Pos: ir.Pos(def.Pos)})
	if len(b.errs) > nerrs {
		return nil
	}
	b.f.Renumber()
	if err := ir.Verify(b.f); err != nil {
		b.errorf(def.NamePos, "internal compiler error: kernel %s fails verification: %v", def.Name, err)
		return nil
	}
	return b.f
}

// paramNameOK reports whether p's name may be bound: not a repeat of an
// earlier parameter (recorded in seen) and not a builtin's name. It reports
// the error when not.
func (b *builder) paramNameOK(p *lang.Param, seen map[string]bool) bool {
	if seen[p.Name] {
		b.errorf(p.Pos, "duplicate parameter %s", p.Name)
		return false
	}
	seen[p.Name] = true
	if b.reservedName(p.Name) {
		b.errorf(p.Pos, "cannot use %s as a parameter name: it is a builtin", p.Name)
		return false
	}
	return true
}

// kernelParams binds the kernel's constants, arrays, scalars and dim symbols.
func (b *builder) kernelParams(def *lang.FuncDef) {
	seen := map[string]bool{}
	type arrayParam struct {
		p   *lang.Param
		sub *lang.Subscript
	}
	var arrays []any // *lang.Param for scalars, arrayParam for arrays, in order
	// Constants first: array annotations refer to them (ct.Array[T, ...]).
	for _, p := range def.Params {
		if !b.paramNameOK(p, seen) {
			continue
		}
		if p.Annot == nil {
			arrays = append(arrays, launchParam{p})
			continue
		}
		if n, ok := p.Annot.(*lang.Name); ok && isPoison(b.globals[n.Name]) {
			// An alias whose definition did not parse: its error is out.
			b.bind(p.Name, poison{}, p.Pos)
			continue
		}
		if s, ok := b.resolveAnnot(p.Annot).(*lang.Subscript); ok {
			switch b.moduleAttr(s.X) {
			case "Constant":
				b.constantParam(def, p, s)
				continue
			case "Array":
				b.extension(p.Pos, "a ct.Array[dtype, shape] annotation", "cuTile's array parameters are unannotated (tilec takes their signature from the launch, or from --arg "+p.Name+"=DTYPE[DIMS])")
				arrays = append(arrays, arrayParam{p, s})
				continue
			}
		}
		arrays = append(arrays, p)
	}
	// Then arrays and scalars, in declaration order.
	b.missingSigs = nil
	defer b.reportMissingSigs()
	for _, a := range arrays {
		switch a := a.(type) {
		case arrayParam:
			b.arrayParam(a.p, a.sub)
		case *lang.Param:
			b.scalarParam(a)
		case launchParam:
			b.launchTypedParam(a.p)
		}
	}
}

// reservedName reports whether name may not be bound by user code: the
// tile module's name, the cuda package, or a Python builtin.
func (b *builder) reservedName(name string) bool {
	if _, ok := b.globals[name].(nsVal); ok {
		return true
	}
	return pyBuiltins[name]
}

// constantParam binds `name: ct.Constant[kind] = default`, applying -D.
func (b *builder) constantParam(def *lang.FuncDef, p *lang.Param, s *lang.Subscript) {
	kind := ""
	switch k := s.Index.(type) {
	case *lang.Name:
		if k.Name == "int" || k.Name == "float" || k.Name == "bool" {
			kind = k.Name
		}
	case *lang.Attr:
		if b.moduleAttr(k) == "DType" {
			kind = "dtype"
		}
	}
	if kind == "" {
		b.errorf(s.Index.Position(), "ct.Constant takes int, float, bool or ct.DType")
		b.bind(p.Name, poison{}, p.Pos)
		return
	}
	var v value
	if raw, ok := b.opts.Consts[p.Name]; ok {
		var good bool
		v, good = parseConstValue(kind, raw)
		if !good {
			what := map[string]string{"int": "an int", "float": "a float", "bool": "a bool (True or False)", "dtype": "a dtype (e.g. float16 or f16)"}[kind]
			b.errorf(p.Pos, "-D %s=%s: not %s", p.Name, raw, what)
			v = poison{}
		}
	} else if p.Default != nil {
		v = b.expr(p.Default)
		if !isPoison(v) {
			cv, ok := coerceConst(kind, v)
			if !ok {
				b.errorf(p.Default.Position(), "default of constant %s must be %s, got %s", p.Name, kindArticle(kind), describe(v))
				cv = poison{}
			}
			v = cv
		}
	} else {
		b.errorf(p.Pos, "constant %s of kernel %s has no default: give it with -D %s=...", p.Name, def.Name, p.Name)
		v = poison{}
	}
	b.bind(p.Name, v, p.Pos)
	if raw, ok := b.opts.Consts[p.Name]; ok {
		b.setRoot(p.Name, "constant "+p.Name+"="+strings.TrimSpace(raw))
	} else if p.Default != nil {
		b.setRoot(p.Name, fmt.Sprintf("%s=%v, the default of kernel %s", p.Name, v, def.Name))
	}
	if !isPoison(v) {
		b.f.Consts = append(b.f.Consts, ir.Const{Name: p.Name, Value: v})
	}
}

func kindArticle(kind string) string {
	if kind == "int" {
		return "an int"
	}
	return "a " + kind
}

// parseConstValue reads a -D value of the given kind.
func parseConstValue(kind, raw string) (value, bool) {
	s := strings.TrimSpace(raw)
	switch kind {
	case "int":
		v, err := strconv.ParseInt(strings.ReplaceAll(s, "_", ""), 0, 64)
		return v, err == nil
	case "float":
		v, err := strconv.ParseFloat(s, 64)
		return v, err == nil
	case "bool":
		switch s {
		case "True", "true", "1":
			return true, true
		case "False", "false", "0":
			return false, true
		}
	case "dtype":
		d, ok := parseDTypeName(s)
		return d, ok
	}
	return nil, false
}

// coerceConst checks a default value against the declared constant kind.
func coerceConst(kind string, v value) (value, bool) {
	switch kind {
	case "int":
		x, ok := v.(int64)
		return x, ok
	case "float":
		switch x := v.(type) {
		case float64:
			return x, true
		case int64:
			return float64(x), true
		}
	case "bool":
		x, ok := v.(bool)
		return x, ok
	case "dtype":
		x, ok := v.(ir.DType)
		return x, ok
	}
	return v, false
}

// fixedDimError says why n cannot be a fixed dim of an array annotation,
// or "" if it can. A dim of 0 is an empty array, as a symbolic dim bound
// to 0 is (the launch then has no work, and an empty grid is a launch
// error); a dim past 2^31-1 cannot be indexed by the i32 that kernels
// index arrays with, as --arg and --shape refuse it too.
func fixedDimError(n int64) string {
	switch {
	case n < 0:
		return "is negative"
	case n > math.MaxInt32:
		return fmt.Sprintf("is more than %d: array dims are i32 in kernels", math.MaxInt32)
	}
	return ""
}

// poisonArray binds an array parameter whose annotation failed, and the
// symbolic dims it names that nothing has bound, to poison: their uses
// (the grid, M in the body) follow from the error already reported (a bad
// -D T=f99 of the dtype) and are not reported again, so that the cause is
// the only error shown.
func (b *builder) poisonArray(p *lang.Param, dims []lang.Expr) {
	b.bind(p.Name, poison{}, p.Pos)
	for _, de := range dims {
		n, ok := de.(*lang.Name)
		if !ok {
			continue
		}
		if _, bound := b.fn.scope[n.Name]; !bound && !b.reservedName(n.Name) && !b.paramNamed(n.Name) {
			b.bind(n.Name, poison{}, n.Pos)
		}
	}
}

// arrayParam binds `A: ct.Array[dtype, (d0, d1, ...)]`.
func (b *builder) arrayParam(p *lang.Param, s *lang.Subscript) {
	idx, ok := s.Index.(*lang.Tuple)
	if !ok || len(idx.Elems) != 2 {
		b.errorf(s.Index.Position(), "ct.Array takes a dtype and a shape: ct.Array[ct.float16, (M, K)]")
		b.bind(p.Name, poison{}, p.Pos)
		return
	}
	var dimExprs []lang.Expr
	if t, ok := idx.Elems[1].(*lang.Tuple); ok {
		dimExprs = t.Elems
	} else {
		dimExprs = []lang.Expr{idx.Elems[1]}
	}
	dtv := b.expr(idx.Elems[0])
	dt, isDT := dtv.(ir.DType)
	if !isDT {
		if !isPoison(dtv) {
			b.errorf(idx.Elems[0].Position(), "ct.Array's dtype must be a dtype such as ct.float16, got %s", describe(dtv))
		}
		b.poisonArray(p, dimExprs)
		return
	}
	if len(dimExprs) == 0 {
		b.errorf(idx.Elems[1].Position(), "array %s needs at least one dimension", p.Name)
		b.bind(p.Name, poison{}, p.Pos)
		return
	}
	dims := make([]ir.Dim, len(dimExprs))
	bad := false
	for i, de := range dimExprs {
		switch de := de.(type) {
		case *lang.IntLit:
			if msg := fixedDimError(de.Value); msg != "" {
				b.errorf(de.Pos, "array dimension %d %s", de.Value, msg)
				bad = true
			}
			dims[i] = ir.Dim{Size: de.Value}
		case *lang.Name:
			if bd, ok := b.fn.scope[de.Name]; ok {
				switch v := bd.val.(type) {
				case int64:
					if msg := fixedDimError(v); msg != "" {
						b.errorf(de.Pos, "array dimension %s = %d %s", de.Name, v, msg)
						bad = true
					}
					dims[i] = ir.Dim{Size: v}
					continue
				case dimSym:
					dims[i] = ir.Dim{Sym: de.Name}
					continue
				case poison:
					bad = true
					continue
				}
				b.errorf(de.Pos, "array dimension %s is already a parameter of kernel %s", de.Name, b.kernel.Name)
				bad = true
				continue
			}
			if v, ok := b.globals[de.Name].(int64); ok {
				// A module-level int (N0 = 64) is its value, as Python
				// evaluates the annotation: a fixed dim, not a symbol the
				// launch binds.
				if msg := fixedDimError(v); msg != "" {
					b.errorf(de.Pos, "array dimension %s = %d %s", de.Name, v, msg)
					bad = true
				}
				dims[i] = ir.Dim{Size: v}
				continue
			}
			if b.reservedName(de.Name) {
				b.errorf(de.Pos, "cannot use %s as a dimension name: it is a builtin", de.Name)
				bad = true
				continue
			}
			if b.paramNamed(de.Name) {
				b.errorf(de.Pos, "array dimension %s is already a parameter of kernel %s", de.Name, b.kernel.Name)
				bad = true
				continue
			}
			dims[i] = ir.Dim{Sym: de.Name}
		default:
			b.errorf(de.Position(), "array dimension must be a name or an int literal")
			bad = true
		}
	}
	if bad {
		b.poisonArray(p, dimExprs)
		return
	}
	prm := b.f.AddParam(p.Name, ir.ArrayOf(dt, len(dims)), dims)
	av := paramArray(p.Name, prm)
	b.bind(p.Name, av, p.Pos)
	for axis, d := range dims {
		if d.Sym == "" {
			continue
		}
		if _, ok := b.arrays[d.Sym]; !ok {
			b.arrays[d.Sym] = av
			b.symAxis[d.Sym] = axis
			b.bind(d.Sym, dimSym{d.Sym}, p.Pos)
		}
	}
}

// paramNamed reports whether the kernel has a parameter called name.
func (b *builder) paramNamed(name string) bool {
	for _, p := range b.kernel.Params {
		if p.Name == name {
			return true
		}
	}
	return false
}

// scalarParam binds a run-time scalar parameter: `x: float`, `n: int`,
// `flag: bool`, `x: ct.Scalar[ct.float32]` or `x: ct.float32`.
func (b *builder) scalarParam(p *lang.Param) {
	var dt ir.DType
	switch a := b.resolveAnnot(p.Annot).(type) {
	case *lang.Name:
		dt = map[string]ir.DType{"int": ir.I32, "float": ir.F32, "bool": ir.Bool}[a.Name]
	case *lang.Subscript:
		if b.moduleAttr(a.X) == "Scalar" {
			v := b.expr(a.Index)
			if isPoison(v) {
				b.bind(p.Name, poison{}, p.Pos)
				return
			}
			dt, _ = v.(ir.DType)
		}
	case *lang.Attr:
		dt = ctDTypes[b.moduleAttr(a)]
	}
	if dt == ir.InvalidDType {
		b.errorf(p.Annot.Position(), "unknown parameter type: use ct.Array[...], ct.Constant[...], ct.Scalar[dtype], int, float or bool")
		b.bind(p.Name, poison{}, p.Pos)
		return
	}
	if p.Default != nil {
		b.errorf(p.Default.Position(), "only constant parameters may have defaults")
	}
	prm := b.f.AddParam(p.Name, ir.ScalarOf(dt), nil)
	b.bind(p.Name, prm.Value, p.Pos)
}

// bind assigns a name in the current function's scope.
func (b *builder) bind(name string, v value, pos lang.Pos) {
	b.fn.scope[name] = binding{val: v, pos: pos}
}

// setRoot marks name's current binding as coming from root (binding.root).
func (b *builder) setRoot(name, root string) {
	if bd, ok := b.fn.scope[name]; ok {
		bd.root = root
		b.fn.scope[name] = bd
	}
}

// dimValue returns the dim instruction of a symbolic dimension, emitting it
// at the top of the kernel body on first use.
func (b *builder) dimValue(sym string, pos lang.Pos) *ir.Value {
	if v, ok := b.dims[sym]; ok {
		return v
	}
	av := b.arrays[sym]
	in := b.f.NewInstr(ir.OpDim, []*ir.Value{av.v}, ir.ScalarOf(ir.I32))
	in.Attrs.Set(ir.AttrKeyAxis, b.symAxis[sym])
	in.Pos = ir.Pos(pos)
	in.Block = b.f.Body
	body := b.f.Body
	body.Instrs = append(body.Instrs, nil)
	copy(body.Instrs[b.dimInsert+1:], body.Instrs[b.dimInsert:])
	body.Instrs[b.dimInsert] = in
	b.dimInsert++
	b.dims[sym] = in.Result()
	return in.Result()
}

// arrayDim returns an array's extent along axis: an int64 for a literal
// dimension, a *Value for a symbolic one.
func (b *builder) arrayDim(a *arrayVal, axis int, pos lang.Pos) value {
	if a.p == nil {
		// An element of a list: its extents are the element's own, read
		// where they are used (the element is chosen at run time).
		var attrs ir.Attrs
		attrs.Set(ir.AttrKeyAxis, int64(axis))
		return b.emitAttrs(pos, ir.OpDim, ir.ScalarOf(ir.I32), attrs, a.v)
	}
	d := a.p.Dims[axis]
	if d.Sym == "" {
		return d.Size
	}
	if b.arrays[d.Sym] == a && b.symAxis[d.Sym] == axis {
		return b.dimValue(d.Sym, pos)
	}
	// A later array repeating a symbol: the launch checks that they agree.
	return b.dimValue(d.Sym, pos)
}

// emit appends an instruction with one result of type t to the current block.
func (b *builder) emit(pos lang.Pos, op ir.Op, t ir.Type, args ...*ir.Value) *ir.Value {
	return b.emitAttrs(pos, op, t, nil, args...)
}

// emitInferred appends an instruction of op with one result, of the type
// that op's typing rule (ir.OpInfo.Infer) gives for args and attrs. The
// builder reports what the user got wrong with positioned errors before
// it emits, so a rule that rejects the instruction is a builder bug: it
// panics, and File reports it as an internal compiler error.
func (b *builder) emitInferred(pos lang.Pos, op ir.Op, attrs ir.Attrs, args ...*ir.Value) *ir.Value {
	ts := b.inferResults(pos, op, attrs, args)
	if len(ts) != 1 {
		panic(fmt.Sprintf("%s at %s: %d results, not one", op, pos, len(ts)))
	}
	return b.emitAttrs(pos, op, ts[0], attrs, args...)
}

// inferResults is the result types of op's typing rule for args and
// attrs; a rejection is a builder bug (see emitInferred).
func (b *builder) inferResults(pos lang.Pos, op ir.Op, attrs ir.Attrs, args []*ir.Value) []ir.Type {
	ts, msg := ir.InferResults(op, args, attrs)
	if msg != "" {
		panic(fmt.Sprintf("%s at %s: %s", op, pos, msg))
	}
	return ts
}

// emitAttrs is emit with attributes.
func (b *builder) emitAttrs(pos lang.Pos, op ir.Op, t ir.Type, attrs ir.Attrs, args ...*ir.Value) *ir.Value {
	var in *ir.Instr
	if t == nil {
		in = b.f.NewInstr(op, args)
	} else {
		in = b.f.NewInstr(op, args, t)
	}
	in.Attrs = attrs
	in.Pos = ir.Pos(pos)
	b.append(in)
	if t == nil {
		return nil
	}
	return in.Result()
}

// append adds in to the current block, enforcing the instruction budget.
func (b *builder) append(in *ir.Instr) {
	b.ninstrs++
	if b.ninstrs == maxInstrs {
		b.errorf(lang.Pos(in.Pos), "kernel %s is too large (more than %d instructions)", b.kernel.Name, maxInstrs)
		b.aborted = true
	}
	b.cur.Append(in)
}

// constant returns a scalar const of dtype dt holding the compile-time
// number v, reusing an earlier one visible from the current block.
func (b *builder) constant(pos lang.Pos, v value, dt ir.DType) *ir.Value {
	var val any
	switch {
	case dt == ir.Bool:
		t, _ := truthy(v)
		val = t
	case dt.IsInt():
		if f, ok := v.(float64); ok {
			val = ir.FloatToInt(dt, f) // as a convert op would at run time
		} else {
			val = ir.WrapInt(dt, toInt(v))
		}
	default:
		val = toFloat(v)
		if f := val.(float64); math.IsNaN(f) {
			val = math.NaN()
		} else if dt == ir.F8E8M0 && math.Signbit(f) {
			b.errorf(pos, "negative values cannot be represented in float8_e8m0fnu (got %v)", f)
		}
	}
	key := constKey{dt, val}
	if f, ok := val.(float64); ok && math.IsNaN(f) {
		key.val = "nan"
	}
	for blk := b.cur; blk != nil; {
		if v, ok := b.consts[blk][key]; ok {
			return v
		}
		if blk.Parent == nil {
			break
		}
		blk = blk.Parent.Block
	}
	var attrs ir.Attrs
	attrs.Set(ir.AttrKeyValue, val)
	r := b.emitAttrs(pos, ir.OpConst, ir.ScalarOf(dt), attrs)
	m := b.consts[b.cur]
	if m == nil {
		m = map[constKey]*ir.Value{}
		b.consts[b.cur] = m
	}
	m[key] = r
	return r
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}
