package host

// Classes of host code (lang.ClassDef): made when first used, as Python
// runs a class statement, with their class attributes, methods
// (@staticmethod, @classmethod, plain methods bound to an instance),
// instances with their own attributes, __init__, and one base: another
// class of the program, object, or torch.autograd.Function (autograd.go).

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/tilec/tilec/lang"
	"github.com/tilec/tilec/runtime"
)

// classRef is a class statement not run yet: its class is made on first
// use of its name (Program.classes keeps it).
type classRef struct {
	def  *lang.ClassDef
	prog *Program
}

// classVal is a class: its own attributes and methods in definition
// order, and its base (a *classVal, functionBase, or nil for object).
type classVal struct {
	def   *lang.ClassDef
	prog  *Program
	base  any
	names []string
	attrs map[string]any // a class attribute's value, or a methodVal
}

// methodVal is a def in a class body; kind is "", "staticmethod" or
// "classmethod" (its decorator).
type methodVal struct {
	def  *lang.FuncDef
	kind string
	cls  *classVal // the class whose body defines it
}

// boundMethod is a method bound to its first argument: an instance (a
// plain method read from an instance) or a class (a classmethod).
type boundMethod struct {
	recv any
	m    methodVal
}

// instance is an object of a program's class, with its own attributes.
type instance struct {
	cls   *classVal
	names []string
	attrs map[string]any
}

// functionBase is torch.autograd.Function, the one library class host
// code may derive from.
type functionBase struct{}

// class returns the class a class statement makes, running it on first
// use: its base is evaluated in the module's globals, then its body's
// attributes and methods in source order (a later one of the same name
// replaces an earlier one, as in Python).
func (in *evaluator) class(r *classRef) *classVal {
	p := r.prog
	if c, ok := p.classes[r.def.Name]; ok && c.def == r.def {
		return c
	}
	if p.busy[r.def.Name] {
		in.failIn(p, r.def.NamePos, "class %s is used while its own class statement runs", r.def.Name)
	}
	p.busy[r.def.Name] = true
	defer delete(p.busy, r.def.Name)
	defer in.enter(p)()
	c := &classVal{def: r.def, prog: p, attrs: map[string]any{}}
	for _, b := range r.def.Bases {
		switch v := in.expr(&frame{vars: map[string]any{}}, b).(type) {
		case *classVal, functionBase:
			c.base = v
		case builtin:
			if v != "object" {
				in.fail(b.Position(), "a class of host code derives from another class of the program, object or torch.autograd.Function, not %s", describe(v))
			}
		default:
			in.fail(b.Position(), "a class of host code derives from another class of the program, object or torch.autograd.Function, not %s", describe(v))
		}
	}
	type item struct {
		pos  lang.Pos
		attr *lang.AssignStmt
		m    *lang.FuncDef
	}
	var items []item
	for _, a := range r.def.Attrs {
		items = append(items, item{pos: a.Pos, attr: a})
	}
	for _, m := range r.def.Methods {
		items = append(items, item{pos: m.Pos, m: m})
	}
	slices.SortFunc(items, func(a, b item) int { return a.pos.Offset - b.pos.Offset })
	// The body's names: a later attribute may read an earlier one.
	body := &frame{vars: map[string]any{}}
	set := func(name string, v any) {
		if _, ok := c.attrs[name]; !ok {
			c.names = append(c.names, name)
		}
		c.attrs[name] = v
		body.vars[name] = v
	}
	for _, it := range items {
		if it.attr != nil {
			v := in.expr(body, it.attr.Value)
			scratch := &frame{vars: map[string]any{}}
			if len(it.attr.Targets) == 1 {
				in.assign(scratch, it.attr.Targets[0], v)
			} else {
				in.assign(scratch, &lang.Tuple{Pos: it.attr.Pos, Elems: it.attr.Targets}, v)
			}
			for _, n := range targetNames(&lang.Tuple{Elems: it.attr.Targets}) {
				set(n, scratch.vars[n])
			}
			continue
		}
		name := it.m.Name
		if strings.HasPrefix(name, "__") && strings.HasSuffix(name, "__") && name != "__init__" {
			in.fail(it.m.NamePos, "special method %s is not part of the host subset (a class of host code may define __init__)", name)
		}
		kind := ""
		if len(it.m.Decorators) > 0 {
			if n, ok := it.m.Decorators[0].(*lang.Name); ok {
				kind = n.Name
			}
		}
		if name == "setup_context" && c.isFunction() {
			in.fail(it.m.NamePos, "setup_context is not part of the host subset: an autograd Function's forward takes ctx first")
		}
		set(name, methodVal{def: it.m, kind: kind, cls: c})
	}
	if p.classes == nil {
		p.classes = map[string]*classVal{}
	}
	p.classes[r.def.Name] = c
	return c
}

// failIn is fail positioned in another program's file.
func (in *evaluator) failIn(p *Program, pos lang.Pos, format string, args ...any) {
	defer in.enter(p)()
	in.fail(pos, format, args...)
}

// root is the class's last base: functionBase for an autograd Function,
// the class itself otherwise.
func (c *classVal) root() any {
	for {
		b, ok := c.base.(*classVal)
		if !ok {
			if c.base != nil {
				return c.base
			}
			return c
		}
		c = b
	}
}

// isFunction reports whether c derives from torch.autograd.Function.
func (c *classVal) isFunction() bool {
	_, ok := c.root().(functionBase)
	return ok
}

// lookup finds an attribute of the class or of its bases.
func (c *classVal) lookup(name string) (any, bool) {
	for k := c; k != nil; {
		if v, ok := k.attrs[name]; ok {
			return v, true
		}
		b, _ := k.base.(*classVal)
		k = b
	}
	return nil, false
}

// attrNames lists the attributes of a class and its bases, for messages.
func (c *classVal) attrNames() string {
	var names []string
	for k := c; k != nil; {
		for _, n := range k.names {
			if !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
		b, _ := k.base.(*classVal)
		k = b
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// classAttr is C.name: a class attribute, a static method as its
// function, a classmethod bound to C, a plain method as its function
// (called with the instance first); apply of an autograd Function.
func (in *evaluator) classAttr(pos lang.Pos, c *classVal, name string) any {
	if v, ok := c.lookup(name); ok {
		if m, isMethod := v.(methodVal); isMethod && m.kind == "classmethod" {
			return boundMethod{recv: c, m: m}
		}
		return v
	}
	if name == "__name__" {
		return c.def.Name
	}
	if c.isFunction() && name == "apply" {
		return method{c, "apply"}
	}
	in.fail(pos, "class %s has no attribute %s (it has %s)", c.def.Name, name, c.attrNames())
	return nil
}

// instanceAttr is obj.name: the instance's own attribute, else its
// class's, a plain method bound to the instance.
func (in *evaluator) instanceAttr(pos lang.Pos, o *instance, name string) any {
	if v, ok := o.attrs[name]; ok {
		return v
	}
	if v, ok := o.cls.lookup(name); ok {
		if m, isMethod := v.(methodVal); isMethod {
			switch m.kind {
			case "staticmethod":
				return m
			case "classmethod":
				return boundMethod{recv: o.cls, m: m}
			}
			return boundMethod{recv: o, m: m}
		}
		return v
	}
	have := append(slices.Clone(o.names), o.cls.attrNames())
	in.fail(pos, "%s object has no attribute %s (it has %s)", o.cls.def.Name, name, strings.Join(have, ", "))
	return nil
}

// setAttr is obj.name = v for the host values that have attributes to
// set: instances, classes, an autograd Function's ctx, SimpleNamespace
// records, and a tensor's grad and requires_grad (autograd.go).
func (in *evaluator) setAttr(pos lang.Pos, x any, name string, v any) {
	switch x := x.(type) {
	case *instance:
		if _, ok := x.attrs[name]; !ok {
			x.names = append(x.names, name)
		}
		x.attrs[name] = v
		return
	case *classVal:
		if _, ok := x.attrs[name]; !ok {
			x.names = append(x.names, name)
		}
		x.attrs[name] = v
		return
	case *fnCtx:
		in.setCtxAttr(pos, x, name, v)
		return
	case *record:
		if i := slices.Index(x.names, name); i >= 0 {
			x.vals[i] = v
			return
		}
		x.names = append(x.names, name)
		x.vals = append(x.vals, v)
		return
	}
	if t, ok := x.(*runtime.Tensor); ok {
		in.setTensorAttr(pos, t, name, v)
		return
	}
	in.fail(pos, "cannot set attribute %s of %s in host code", name, describe(x))
}

// construct is C(args): a new instance, initialized by __init__ when the
// class has one (else the call takes no arguments, as object's).
func (in *evaluator) construct(c *callSite, cls *classVal) any {
	if cls.isFunction() {
		in.fail(c.e.Pos, "an autograd Function is not instantiated: call %s.apply(...)", cls.def.Name)
	}
	o := &instance{cls: cls, attrs: map[string]any{}}
	init, ok := cls.lookup("__init__")
	if !ok {
		if len(c.args) > 0 || len(c.kw) > 0 {
			in.fail(c.e.Pos, "%s() takes no arguments (the class has no __init__)", cls.def.Name)
		}
		return o
	}
	m, ok := init.(methodVal)
	if !ok || m.kind != "" {
		in.fail(c.e.Pos, "%s.__init__ must be a plain method", cls.def.Name)
	}
	if r := in.callMethodDef(c, m, o); r != (none{}) {
		in.fail(c.e.Pos, "__init__() should return None, not %s", describe(r))
	}
	return o
}

// callMethodDef runs a method's def, with recv (when not nil) as its
// first argument, in the globals of the file that defines it.
func (in *evaluator) callMethodDef(c *callSite, m methodVal, recv any) any {
	if recv != nil {
		if len(m.def.Params) == 0 {
			in.fail(c.e.Pos, "%s.%s takes no arguments, but a method is called with its %s first", m.cls.def.Name, m.def.Name, map[bool]string{true: "class", false: "instance"}[m.kind == "classmethod"])
		}
		c = &callSite{in: in, e: c.e, args: append([]any{recv}, c.args...), kw: c.kw}
	}
	defer in.enter(m.cls.prog)()
	return in.callDef(c, m.def)
}

// qualName is the class's name with its module's, as Python prints
// it: __main__ for the program's file, a module's file name otherwise.
func (in *evaluator) qualName(c *classVal) string {
	if c.prog == in.root {
		return "__main__." + c.def.Name
	}
	return strings.TrimSuffix(filepath.Base(c.prog.src.Name), ".py") + "." + c.def.Name
}

// instanceStr is str() of an instance: Python's default repr, without
// the address.
func (in *evaluator) instanceStr(o *instance) string {
	return "<" + in.qualName(o.cls) + " object>"
}
