package build

// Calls: argument binding against a signature (shared by builtins and
// helpers), and the inlining of helper functions.

import (
	"strings"

	"github.com/tilec/tilec/lang"
)

// sigParam is one parameter of a signature; def is the default's text
// ("" when the parameter is required).
type sigParam struct {
	name string
	def  string
}

// parseSig reads "name(a, b, c=default)" into its parameters.
func parseSig(s string) (string, []sigParam) {
	open := strings.IndexByte(s, '(')
	name := s[:open]
	inner := strings.TrimSuffix(s[open+1:], ")")
	var params []sigParam
	if inner == "" {
		return name, nil
	}
	for _, p := range strings.Split(inner, ",") {
		p = strings.TrimSpace(p)
		n, d, _ := strings.Cut(p, "=")
		params = append(params, sigParam{name: n, def: d})
	}
	return name, params
}

// arg is an evaluated argument and its expression (nil when the argument
// was not given and takes its default).
type arg struct {
	v value
	e lang.Expr
}

// kwArg is an evaluated keyword argument.
type kwArg struct {
	name string
	pos  lang.Pos
	arg
}

// callCtx is a builtin call with its arguments bound to the parameters.
type callCtx struct {
	name string // the builtin's name without the module alias, for messages ("load")
	sig  string // the full signature, for messages
	pos  lang.Pos
	args []arg
}

// argPos is the position of argument i, or of the call when it is absent.
func (c *callCtx) argPos(i int) lang.Pos {
	if c.args[i].e != nil {
		return c.args[i].e.Position()
	}
	return c.pos
}

// given reports whether argument i was passed.
func (c *callCtx) given(i int) bool { return c.args[i].e != nil }

// call evaluates a call: a builtin or an inlined helper.
func (b *builder) call(e *lang.Call) value {
	fn := b.expr(e.Fun)
	if bv, ok := fn.(builtinVal); ok && !bv.py && bv.name == "static_iter" {
		// Its argument is not an expression of run-time code (range is
		// read differently there): not evaluated, so that the one mistake
		// gives one error.
		return b.fail(e.Pos, "ct.static_iter is only allowed as the iterable of a for loop (for x in ct.static_iter(...):)")
	}
	pos := make([]arg, len(e.Args))
	for i, a := range e.Args {
		pos[i] = arg{b.expr(a), a}
	}
	kws := make([]kwArg, len(e.Kwargs))
	for i, k := range e.Kwargs {
		kws[i] = kwArg{name: k.Name, pos: k.Pos, arg: arg{b.expr(k.Value), k.Value}}
	}
	if isPoison(fn) {
		return poison{}
	}
	switch fn := fn.(type) {
	case builtinVal:
		if fn.py {
			return b.callPy(fn.name, e, pos, kws)
		}
		spec := ctBuiltins[fn.name]
		if spec.raw != nil {
			return spec.raw(b, e, pos, kws)
		}
		text := exprText(e.Fun)
		args, ok := b.bindArgs(text, spec.params, e.Pos, pos, kws)
		if !ok {
			return poison{}
		}
		for _, a := range args {
			if isPoison(a.v) {
				return poison{}
			}
		}
		c := &callCtx{name: fn.name, sig: signatureText(text, spec.params), pos: e.Pos, args: args}
		return spec.fn(b, c)
	case *funcVal:
		if fn.kernel {
			return b.fail(e.Pos, "cannot call kernel %s: kernels are launched from the host", fn.def.Name)
		}
		if fn.decorator != nil {
			return b.fail(e.Pos, "cannot call %s from a kernel: its decorator @%s (at %s) is one tilec does not know, and it may change what %s does", fn.def.Name, exprText(fn.decorator), fn.decorator.Position(), fn.def.Name)
		}
		if fn.mod != nil {
			// A helper of another module runs in that module's globals
			// and imports (and its errors quote that module's source).
			globals, src, file := b.globals, b.src, b.file
			b.globals, b.src, b.file = fn.mod.globals, fn.mod.src, fn.mod.file
			defer func() { b.globals, b.src, b.file = globals, src, file }()
		}
		return b.inline(fn.def, e, pos, kws)
	case mathFn:
		return b.callMath(fn, e, pos, kws)
	case strJoin:
		return b.callJoin(fn, e, pos, kws)
	case methodVal:
		return b.callMethod(fn, e, pos, kws)
	case arrayMethod:
		return b.callArrayMethod(fn, e, pos, kws)
	case viewMethod:
		return b.callViewMethod(fn, e, pos, kws)
	case nsVal:
		if fn == nsByTarget {
			return b.byTarget(e, pos, kws)
		}
		if fn == nsKernel {
			return b.fail(e.Pos, "ct.kernel is a decorator, not a function")
		}
	}
	return b.fail(e.Pos, "%s is not callable", describe(fn))
}

// bindArgs matches positional and keyword arguments to parameters,
// reporting surplus, unknown, repeated and missing arguments against the
// signature. Unset optional parameters get an arg with a nil expression.
func (b *builder) bindArgs(name string, params []sigParam, callPos lang.Pos, pos []arg, kws []kwArg) ([]arg, bool) {
	sig := signatureText(name, params)
	out := make([]arg, len(params))
	set := make([]bool, len(params))
	ok := true
	if len(pos) > len(params) {
		b.errorf(pos[len(params)].e.Position(), "%s takes %d argument%s, got %d", sig, len(params), plural(len(params)), len(pos))
		ok = false
	}
	for i := 0; i < min(len(pos), len(params)); i++ {
		out[i] = pos[i]
		set[i] = true
	}
	seen := map[string]bool{}
	for _, kw := range kws {
		if seen[kw.name] {
			b.errorf(kw.pos, "%s: keyword argument %s repeated", sig, kw.name)
			ok = false
			continue
		}
		seen[kw.name] = true
		j := -1
		for i, p := range params {
			if p.name == kw.name {
				j = i
			}
		}
		if j < 0 {
			b.errorf(kw.pos, "%s has no parameter named %s", sig, kw.name)
			ok = false
			continue
		}
		if set[j] {
			b.errorf(kw.pos, "%s: got multiple values for argument %s", sig, kw.name)
			ok = false
			continue
		}
		out[j] = kw.arg
		set[j] = true
	}
	for j, p := range params {
		if !set[j] && p.def == "" {
			b.errorf(callPos, "%s: missing argument %s", sig, p.name)
			ok = false
		}
	}
	return out, ok
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// helperSig is a helper's signature, with literal defaults shown.
func helperSig(def *lang.FuncDef) []sigParam {
	params := make([]sigParam, len(def.Params))
	for i, p := range def.Params {
		params[i].name = p.Name
		switch d := p.Default.(type) {
		case nil:
		case *lang.IntLit:
			params[i].def = d.Text
		case *lang.FloatLit:
			params[i].def = d.Text
		case *lang.BoolLit, *lang.NoneLit, *lang.Name, *lang.Attr:
			params[i].def = exprText(d)
			if bl, ok := d.(*lang.BoolLit); ok {
				params[i].def = formatConst(bl.Value)
			} else if _, ok := d.(*lang.NoneLit); ok {
				params[i].def = "None"
			}
		default:
			params[i].def = "..."
		}
		if params[i].def == "" && p.Default != nil {
			params[i].def = "..."
		}
	}
	return params
}

// inline builds a helper's body at the call site, in a fresh scope that
// binds its parameters to the arguments; the value is what it returns.
func (b *builder) inline(def *lang.FuncDef, e *lang.Call, pos []arg, kws []kwArg) value {
	for i, name := range b.stack {
		if name == def.Name {
			chain := append(append([]string(nil), b.stack[i:]...), def.Name)
			return b.fail(e.Pos, "recursive call to helper %s (%s)", def.Name, strings.Join(chain, " -> "))
		}
	}
	if len(b.stack) >= maxInlineDepth {
		return b.fail(e.Pos, "helper calls are nested more than %d deep", maxInlineDepth)
	}
	b.inlined++
	if b.inlined > maxInlineCalls {
		if !b.aborted {
			b.errorf(e.Pos, "kernel %s inlines more than %d helper calls", b.kernel.Name, maxInlineCalls)
			b.aborted = true
		}
		return poison{}
	}
	args, ok := b.bindArgs(def.Name, helperSig(def), e.Pos, pos, kws)
	if !ok {
		return poison{}
	}
	ctx := &funcCtx{def: def, scope: map[string]binding{}, locals: assignedSet(def.Body)}
	seen := map[string]bool{}
	for i, p := range def.Params {
		if !b.paramNameOK(p, seen) {
			continue
		}
		v := args[i].v
		if args[i].e == nil {
			// Defaults are evaluated at module scope, as Python does at def time.
			saved := b.fn
			b.fn = &funcCtx{def: def, scope: map[string]binding{}, locals: map[string]bool{}}
			v = b.expr(p.Default)
			b.fn = saved
		}
		bd := binding{val: v, pos: p.Pos}
		if args[i].e != nil {
			bd.root = b.rootOf(args[i].e)
		}
		ctx.scope[p.Name] = bd
	}
	saved := b.fn
	b.fn = ctx
	b.stack = append(b.stack, def.Name)
	b.stmts(moveAfterReturnsOf(def.Body), nameSet{retName: true}, true)
	b.stack = b.stack[:len(b.stack)-1]
	b.fn = saved
	bd, ok := ctx.scope[retName]
	if !ok {
		return noneVal{}
	}
	if u, ok := bd.val.(undefVal); ok {
		return b.fail(e.Pos, "%s", u.msg)
	}
	return bd.val
}
