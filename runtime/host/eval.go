package host

// Statements and expressions of the host subset.

import (
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/ir/build"
	"github.com/tilec/tilec/lang"
	"github.com/tilec/tilec/runtime"
)

// returned carries a return statement's value out of nested blocks, or a
// break or continue out to its loop.
type returned struct {
	v         any
	brk, cont bool
	pos       lang.Pos // of the break or continue
}

// body runs a function body and returns its result (None without a return).
func (in *evaluator) body(fr *frame, stmts []lang.Stmt) any {
	if r := in.stmts(fr, stmts); r != nil {
		if r.brk || r.cont {
			in.fail(r.pos, "'break' or 'continue' outside a loop")
		}
		return r.v
	}
	return none{}
}

// loopBody runs one iteration of a loop body: stop says the loop ends
// (a break, or a return, which ret then carries).
func (in *evaluator) loopBody(fr *frame, body []lang.Stmt) (stop bool, ret *returned) {
	r := in.stmts(fr, body)
	switch {
	case r == nil || r.cont:
		return false, nil
	case r.brk:
		return true, nil
	}
	return true, r
}

func (in *evaluator) stmts(fr *frame, stmts []lang.Stmt) *returned {
	for _, s := range stmts {
		if r := in.stmt(fr, s); r != nil {
			return r
		}
	}
	return nil
}

// step counts one unit of host work (a statement, a loop iteration, a
// comprehension item) against maxSteps, so that host code ends on any input.
func (in *evaluator) step(pos lang.Pos) {
	in.steps++
	if in.steps > maxSteps {
		in.fail(pos, "the host function ran more than %d statements", maxSteps)
	}
	in.checkDeadline(pos)
}

// checkDeadline stops host code past Options.Deadline (statements, and
// the rows of long tensor operations such as a large matmul).
func (in *evaluator) checkDeadline(pos lang.Pos) {
	if d := in.opts.Deadline; !d.IsZero() && time.Now().After(d) {
		in.fail(pos, "stopped: host code ran past the time limit (--timeout)")
	}
}

func (in *evaluator) stmt(fr *frame, s lang.Stmt) *returned {
	in.step(s.Position())
	switch s := s.(type) {
	case *lang.AssignStmt:
		v := in.expr(fr, s.Value)
		if len(s.Targets) == 1 {
			in.assign(fr, s.Targets[0], v)
		} else {
			in.assign(fr, &lang.Tuple{Pos: s.Pos, Elems: s.Targets}, v)
		}
	case *lang.AugAssignStmt:
		in.augAssign(fr, s)
	case *lang.ExprStmt:
		in.expr(fr, s.X)
	case *lang.IfStmt:
		if in.truth(s.Cond.Position(), in.expr(fr, s.Cond)) {
			return in.stmts(fr, s.Then)
		}
		return in.stmts(fr, s.Else)
	case *lang.ForStmt:
		for _, v := range in.iterate(fr, s) {
			in.assign(fr, s.Target, v)
			if stop, r := in.loopBody(fr, s.Body); stop {
				return r
			}
		}
	case *lang.WhileStmt:
		// Bounded like every host statement: maxSteps in all.
		for in.truth(s.Cond.Position(), in.expr(fr, s.Cond)) {
			in.step(s.Pos)
			if stop, r := in.loopBody(fr, s.Body); stop {
				return r
			}
		}
	case *lang.ReturnStmt:
		if s.Value == nil {
			return &returned{v: none{}}
		}
		return &returned{v: in.expr(fr, s.Value)}
	case *lang.PassStmt:
	case *lang.RaiseStmt:
		in.fail(s.Pos, "raised %s", build.RaisedText(s.Exc, func(e lang.Expr) string { return in.str(in.expr(fr, e)) }))
	case *lang.AssertStmt:
		if !in.truth(s.Cond.Position(), in.expr(fr, s.Cond)) {
			if s.Msg != nil {
				in.fail(s.Pos, "assertion failed: %s", in.str(in.expr(fr, s.Msg)))
			}
			in.fail(s.Pos, "assertion failed")
		}
	case *lang.WithStmt:
		// Grad mode is the contexts' (torch.no_grad() turns it off,
		// torch.enable_grad() on) for the body, and as it was after.
		off := in.grad.off
		defer func() { in.grad.off = off }()
		for _, it := range s.Items {
			v := in.expr(fr, it.X)
			c, ok := v.(context)
			if !ok {
				in.fail(it.X.Position(), "with: %s is not a context the host subset knows (it has torch.no_grad(), torch.enable_grad(), torch.inference_mode(), sdpa_kernel(...), ct.compiler_timeout(...))", describe(v))
			}
			if it.As != "" {
				fr.vars[it.As] = c
			}
			switch c.grad {
			case gradOff:
				in.grad.off++
			case gradOn:
				in.grad.off = 0
			}
		}
		return in.stmts(fr, s.Body)
	case *lang.BreakStmt:
		return &returned{brk: true, pos: s.Pos}
	case *lang.ContinueStmt:
		return &returned{cont: true, pos: s.Pos}
	default:
		in.fail(s.Position(), "this statement is not part of the host subset")
	}
	return nil
}

// augAssign is x op= v as Python runs it: the target's container and
// index are evaluated once, and a tensor is updated in place (torch's
// __iadd__ and the others), so that every name of it and every view of
// its elements sees the new values.
func (in *evaluator) augAssign(fr *frame, s *lang.AugAssignStmt) {
	switch t := s.Target.(type) {
	case *lang.Name:
		x := in.lookup(fr, t)
		if tn, ok := x.(*runtime.Tensor); ok {
			in.checkInPlace(s.Pos, tn)
		}
		y := in.expr(fr, s.Value)
		fr.vars[t.Name] = in.inplace(s.Pos, s.Op, x, y)
	case *lang.Attr:
		// obj.a op= v: obj is evaluated once; a tensor attribute (a
		// .grad) changes in place.
		obj := in.expr(fr, t.X)
		x := in.attrOf(t.NamePos, obj, t.Name)
		y := in.expr(fr, s.Value)
		in.setAttr(t.NamePos, obj, t.Name, in.inplace(s.Pos, s.Op, x, y))
	case *lang.Subscript:
		x := in.expr(fr, t.X)
		if d, isDict := x.(*pyDict); isDict && !d.set {
			k := in.expr(fr, t.Index)
			old, ok := in.dictGet(t.Index.Position(), d, k)
			if !ok {
				in.keyError(t.Index.Position(), k)
			}
			in.dictPut(t.Index.Position(), d, k, in.inplace(s.Pos, s.Op, old, in.expr(fr, s.Value)))
			return
		}
		tn, ok := x.(*runtime.Tensor)
		if !ok {
			in.fail(t.Pos, "%s does not support item assignment in host code", describe(x))
		}
		in.checkInPlace(s.Pos, tn)
		idx := in.indexItems(fr, t.Index)
		old := in.tensorIndex(t.Index.Position(), tn, idx)
		y := in.expr(fr, s.Value)
		in.setIndex(t.Index.Position(), tn, idx, in.inplace(s.Pos, s.Op, old, y))
	default:
		in.fail(s.Target.Position(), "illegal target for augmented assignment")
	}
}

// inplace is x op y for an augmented assignment: a new value, except for
// a tensor x, whose elements take the result (its shape and dtype stay:
// torch refuses a result that would need another shape, or a float
// result into an integer tensor).
func (in *evaluator) inplace(pos lang.Pos, op string, x, y any) any {
	r := in.binop(pos, op, x, y)
	t, ok := x.(*runtime.Tensor)
	if !ok {
		return r
	}
	rt := r.(*runtime.Tensor)
	if !slices.Equal(rt.Shape, t.Shape) {
		in.fail(pos, "output with shape %v doesn't match the broadcast shape %v", t.Shape, rt.Shape)
	}
	if castKind(rt.DType) > castKind(t.DType) {
		in.fail(pos, "result type %s can't be cast to the desired output type %s", torchName(rt.DType), torchName(t.DType))
	}
	var elems []int
	t.ForEachElem(func(e int) { elems = append(elems, e) })
	in.writeElems(pos, t, t.Shape, elems, rt)
	return t
}

// castKind orders dtypes as torch's in-place casting rule does: bool,
// then integers, then floats; a result may not go to a lower kind.
func castKind(d ir.DType) int {
	switch {
	case d == ir.Bool:
		return 0
	case d.IsInt():
		return 1
	}
	return 2
}

// iterate evaluates a for loop's iterable: range(...) or a tuple.
func (in *evaluator) iterate(fr *frame, s *lang.ForStmt) []any {
	return in.iterateExpr(fr, s.Iter)
}

// iterateExpr evaluates an iterable: range(...), a tuple, or a tensor (its
// rows, along its first axis).
func (in *evaluator) iterateExpr(fr *frame, iter lang.Expr) []any {
	if c, ok := iter.(*lang.Call); ok {
		if _, ok := in.rangeCall(fr, c); ok {
			if len(c.Kwargs) > 0 || len(c.Args) < 1 || len(c.Args) > 3 {
				in.fail(c.Pos, "range takes 1 to 3 positional ints")
			}
			var xs []int64
			for _, a := range c.Args {
				xs = append(xs, in.intArg(a.Position(), "range", in.expr(fr, a)))
			}
			if len(xs) == 3 && xs[2] == 0 {
				in.fail(c.Pos, "range() step must not be zero")
			}
			ints, ok := build.PyRange(xs, maxSteps)
			if !ok {
				in.fail(c.Pos, "range of more than %d iterations in host code", maxSteps)
			}
			out := make([]any, len(ints))
			for i, x := range ints {
				out[i] = x
			}
			return out
		}
	}
	return in.iterValue(iter.Position(), in.expr(fr, iter))
}

// listComp evaluates [elem for target in iter if cond] (a tuple: host
// code's lists are tuples). Its target is its own, as in Python 3.
func (in *evaluator) listComp(fr *frame, e *lang.ListComp) any {
	var out Tuple
	in.comprehend(fr, e.Pos, e.Target, e.Iter, e.Cond, func(inner *frame) {
		out = append(out, in.expr(inner, e.Elem))
	})
	return out
}

// assign binds a target (a name or a nested tuple of names).
func (in *evaluator) assign(fr *frame, target lang.Expr, v any) {
	switch t := target.(type) {
	case *lang.Name:
		fr.vars[t.Name] = v
	case *lang.Tuple:
		tup, ok := asTuple(v)
		if !ok {
			in.fail(t.Pos, "cannot unpack %s into %d names", describe(v), len(t.Elems))
		}
		if len(tup) != len(t.Elems) {
			in.fail(t.Pos, "cannot unpack %d values into %d names", len(tup), len(t.Elems))
		}
		for i, e := range t.Elems {
			in.assign(fr, e, tup[i])
		}
	case *lang.Subscript:
		in.assignIndex(fr, t, v)
	case *lang.Attr:
		in.setAttr(t.NamePos, in.expr(fr, t.X), t.Name, v)
	default:
		in.fail(target.Position(), "cannot assign to this expression in host code")
	}
}

// lookup reads a name: the frame's own, then those of the frames around
// it (a lambda's or a comprehension's), then the module's.
func (in *evaluator) lookup(fr *frame, n *lang.Name) any {
	for f := fr; f != nil; f = f.parent {
		if v, ok := f.vars[n.Name]; ok {
			return v
		}
	}
	return in.global(n.Name, n.Pos)
}

// global resolves a module-level name: an import, a def, an assignment
// (evaluated on first use) or a Python builtin.
func (in *evaluator) global(name string, pos lang.Pos) any {
	p := in.prog
	if v, ok := p.globals[name]; ok {
		if la, ok := v.(lazyAttr); ok {
			return in.attrOf(la.pos, module(la.mod), la.name)
		}
		if m, ok := v.(moduleMember); ok {
			return in.moduleValue(m)
		}
		if r, ok := v.(*classRef); ok {
			return in.class(r)
		}
		return v
	}
	if v, ok := p.values[name]; ok {
		return v
	}
	if a, ok := p.assigns[name]; ok {
		if p.busy[name] {
			in.fail(pos, "module-level %s refers to itself", name)
		}
		p.busy[name] = true
		fr := &frame{vars: map[string]any{}}
		v := in.expr(fr, a.Value)
		if len(a.Targets) == 1 {
			in.assign(fr, a.Targets[0], v)
		} else {
			in.assign(fr, &lang.Tuple{Pos: a.Pos, Elems: a.Targets}, v)
		}
		for n, x := range fr.vars {
			p.values[n] = x
		}
		delete(p.busy, name)
		return p.values[name]
	}
	if v, ok := in.mainVars[name]; ok && in.prog == in.root {
		return v
	}
	if pyBuiltins[name] {
		return builtin(name)
	}
	if err, ok := p.file.Deferred[name]; ok {
		// A host item that did not parse (lang.File.Deferred): its errors.
		panic(hostError{err})
	}
	in.fail(pos, "name %s is not defined", name)
	return nil
}

var pyBuiltins = map[string]bool{
	"min": true, "max": true, "abs": true, "int": true, "float": true, "bool": true, "len": true,
	"tuple": true, "print": true, "range": true, "str": true, lang.FStringFunc: true, "dict": true, "set": true,
	"sorted": true, "list": true, "enumerate": true, "zip": true, "any": true, "all": true, "sum": true,
	"object": true,
}

func (in *evaluator) expr(fr *frame, e lang.Expr) any {
	switch e := e.(type) {
	case *lang.IntLit:
		return e.Value
	case *lang.FloatLit:
		return e.Value
	case *lang.ImagLit:
		return complex(0, e.Value)
	case *lang.BoolLit:
		return e.Value
	case *lang.StringLit:
		return e.Value
	case *lang.NoneLit:
		return none{}
	case *lang.Name:
		return in.lookup(fr, e)
	case *lang.Tuple:
		t := make(Tuple, len(e.Elems))
		for i, x := range e.Elems {
			t[i] = in.expr(fr, x)
		}
		return t
	case *lang.Attr:
		x := in.expr(fr, e.X)
		r := in.attrOf(e.NamePos, x, e.Name)
		if e.Name == "T" || e.Name == "mT" {
			in.untracked(e.NamePos, "tensor."+e.Name, r, x)
		}
		return r
	case *lang.Subscript:
		return in.index(fr, e)
	case *lang.Call:
		return in.call(fr, e)
	case *lang.BinaryExpr:
		switch e.Op {
		case "and":
			x := in.expr(fr, e.X)
			if !in.truth(e.X.Position(), x) {
				return x
			}
			return in.expr(fr, e.Y)
		case "or":
			x := in.expr(fr, e.X)
			if in.truth(e.X.Position(), x) {
				return x
			}
			return in.expr(fr, e.Y)
		case "in", "not in":
			x := in.expr(fr, e.X)
			var found bool
			if c, ok := in.rangeCall(fr, e.Y); ok {
				found = in.inRange(fr, c, x)
			} else {
				found = in.contains(e.OpPos, x, in.expr(fr, e.Y))
			}
			return found == (e.Op == "in")
		}
		x, y := in.expr(fr, e.X), in.expr(fr, e.Y)
		r := in.binop(e.OpPos, e.Op, x, y)
		in.untracked(e.OpPos, "the operator "+e.Op, r, x, y)
		return r
	case *lang.UnaryExpr:
		x := in.expr(fr, e.X)
		switch e.Op {
		case "not":
			return !in.truth(e.X.Position(), x)
		case "-":
			switch x := num(x).(type) {
			case *runtime.Tensor:
				r := in.tensorBinop(e.Pos, "*", x, int64(-1))
				in.untracked(e.Pos, "unary -", r, x)
				return r
			case complex128:
				return -x
			case *cTensor:
				return in.complexBinop(e.Pos, "*", x, int64(-1))
			case int64:
				if x == math.MinInt64 {
					in.fail(e.Pos, "integer overflow: -(%d) does not fit 64 bits", x)
				}
				return -x
			case float64:
				return -x
			}
		case "+":
			switch x := num(x).(type) {
			case int64, float64, complex128:
				return x
			}
		case "~":
			if x, ok := num(x).(int64); ok {
				return ^x
			}
		}
		in.fail(e.Pos, "bad operand for unary %s: %s", e.Op, describe(x))
	case *lang.CondExpr:
		if in.truth(e.Cond.Position(), in.expr(fr, e.Cond)) {
			return in.expr(fr, e.X)
		}
		return in.expr(fr, e.Y)
	case *lang.Slice:
		in.fail(e.Pos, "a slice is only an index (x[a:b])")
	case *lang.ListComp:
		return in.listComp(fr, e)
	case *lang.Dict, *lang.Set, *lang.DictComp, *lang.SetComp:
		return in.display(fr, e)
	case *lang.Lambda:
		return in.makeLambda(fr, e)
	}
	in.fail(e.Position(), "this expression is not part of the host subset")
	return nil
}

// index evaluates x[i]: a tuple (shape) indexed by an int, negative from
// the end, or a slice; a tensor as torch indexes it (indexing.go).
func (in *evaluator) index(fr *frame, e *lang.Subscript) any {
	x := in.expr(fr, e.X)
	if tn, isTensor := x.(*runtime.Tensor); isTensor {
		r := in.tensorIndex(e.Index.Position(), tn, in.indexItems(fr, e.Index))
		in.untracked(e.Index.Position(), "indexing", r, tn)
		return r
	}
	if d, isDict := x.(*pyDict); isDict && !d.set {
		k := in.expr(fr, e.Index)
		v, ok := in.dictGet(e.Index.Position(), d, k)
		if !ok {
			in.keyError(e.Index.Position(), k)
		}
		return v
	}
	t, ok := asTuple(x)
	if !ok {
		in.fail(e.Pos, "%s cannot be indexed in host code", describe(x))
	}
	if sl, isSlice := e.Index.(*lang.Slice); isSlice {
		var out Tuple
		for _, i := range in.sliceBounds(fr, sl).indices(in, sl.Pos, len(t)) {
			out = append(out, t[i])
		}
		if _, ok := x.(sizeTuple); ok {
			return sizeTuple(out) // x.shape[1:] is a torch.Size
		}
		return out
	}
	i, ok := asIndex(in.expr(fr, e.Index)).(int64)
	if !ok {
		in.fail(e.Index.Position(), "tuple indices must be ints")
	}
	if i < 0 {
		i += int64(len(t))
	}
	if i < 0 || i >= int64(len(t)) {
		in.fail(e.Index.Position(), "tuple index out of range (a tuple of %d)", len(t))
	}
	return t[i]
}

// indexItems evaluates a tensor's index: one item per element of a tuple
// index, each read by indexValue.
func (in *evaluator) indexItems(fr *frame, index lang.Expr) []any {
	elems := []lang.Expr{index}
	if tup, ok := index.(*lang.Tuple); ok && !in.isListLiteral(tup) {
		elems = tup.Elems
	}
	idx := make([]any, len(elems))
	for i, ie := range elems {
		if sl, ok := ie.(*lang.Slice); ok {
			idx[i] = in.sliceBounds(fr, sl)
			continue
		}
		v := in.expr(fr, ie)
		if _, isTuple := v.(Tuple); isTuple && ie == index {
			switch index.(type) {
			case *lang.Tuple, *lang.ListComp: // a literal or a comprehension: isListLiteral decided
			default:
				// x[t] is x[1, 2] for a tuple t and rows 1 and 2 for a
				// list: host code holds both as one type.
				in.fail(ie.Position(), "a tuple or list held in a name as a tensor's whole index: host code cannot tell which it is (for a tuple t = (1, 2), x[t] is x[1, 2]; for a list, rows 1 and 2); write x[t[0], t[1]] or x[torch.tensor(t)]")
			}
		}
		idx[i] = in.indexValue(ie.Position(), v)
	}
	return idx
}

// isListLiteral tells a list literal from a tuple, both lang.Tuples: a
// list's position is its '[', before its first element (a subscript's
// tuple of indices is positioned at its first element, which may be a
// list). x[[1, 0]] indexes with a list (advanced indexing), x[1, 0] and
// x[(1, 0)] with a tuple of two ints.
func (in *evaluator) isListLiteral(t *lang.Tuple) bool {
	text := in.prog.src.Text
	at := t.Pos.Offset
	if t.Pos.File != in.prog.src.Name || at < 0 || at >= len(text) || text[at] != '[' {
		return false
	}
	return len(t.Elems) == 0 || t.Elems[0].Position().Offset != at
}

// assignIndex is x[i] = v: into a tensor's elements (indexing.go); tuples
// (host code's lists too) cannot be assigned into.
func (in *evaluator) assignIndex(fr *frame, t *lang.Subscript, v any) {
	x := in.expr(fr, t.X)
	switch x := x.(type) {
	case *runtime.Tensor:
		in.checkInPlace(t.Pos, x)
		in.setIndex(t.Index.Position(), x, in.indexItems(fr, t.Index), v)
		return
	case *pyDict:
		if !x.set {
			in.dictPut(t.Index.Position(), x, in.expr(fr, t.Index), v)
			return
		}
	case Tuple:
		in.fail(t.Pos, "host code's tuples and lists cannot be assigned into (lists are read as tuples)")
	}
	in.fail(t.Pos, "%s does not support item assignment in host code", describe(x))
}

// num turns a bool into the int it is in Python arithmetic.
func num(v any) any {
	if b, ok := v.(bool); ok {
		if b {
			return int64(1)
		}
		return int64(0)
	}
	return v
}

func (in *evaluator) truth(pos lang.Pos, v any) bool {
	switch v := v.(type) {
	case bool:
		return v
	case int64:
		return v != 0
	case float64:
		return v != 0
	case complex128:
		return v != 0
	case string:
		return v != ""
	case none:
		return false
	case Tuple:
		return len(v) > 0
	case sizeTuple:
		return len(v) > 0
	case *pyDict:
		return len(v.keys) > 0
	case *runtime.Tensor:
		in.fail(pos, "the truth value of a tensor is not part of the host subset")
	}
	return true
}

func (in *evaluator) str(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case int64:
		return strconv.FormatInt(v, 10)
	case float64:
		return pyFloat(v)
	case complex128:
		return complexStr(v)
	case complexDType:
		return "torch." + v.String()
	case bool:
		if v {
			return "True"
		}
		return "False"
	case none:
		return "None"
	case namedTuple:
		parts := make([]string, len(v.items))
		for i, x := range v.items {
			parts[i] = v.names[i] + "=" + in.str(x)
		}
		return v.typeName + "(\n" + strings.Join(parts, ",\n") + ")"
	case sizeTuple:
		parts := make([]string, len(v))
		for i, x := range v {
			parts[i] = in.repr(x)
		}
		return "torch.Size([" + strings.Join(parts, ", ") + "])"
	case Tuple:
		s := "("
		for i, x := range v {
			if i > 0 {
				s += ", "
			}
			s += in.repr(x) // Python shows the items' repr: strings quoted
		}
		if len(v) == 1 {
			s += ","
		}
		return s + ")"
	case dtypeVal:
		return "torch." + torchName(v)
	case *pyDict:
		return in.dictStr(v)
	case *record:
		return in.recordStr(v)
	case *instance:
		return in.instanceStr(v)
	case *classVal:
		return "<class '" + in.qualName(v) + "'>"
	case *runtime.Tensor:
		return in.gradRepr(v, tensorRepr(v))
	case namespace:
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(v)) {
			x := v[k]
			if s, ok := x.(string); ok {
				parts = append(parts, k+"="+strconv.Quote(s))
			} else {
				parts = append(parts, k+"="+in.str(x))
			}
		}
		return "Namespace(" + strings.Join(parts, ", ") + ")"
	}
	return describe(v)
}

// pyFloat formats a float as Python's repr does (build.PyFloat).
func pyFloat(f float64) string { return build.PyFloat(f) }

// call evaluates a call: a builtin, a host def, or a bound method.
func (in *evaluator) call(fr *frame, e *lang.Call) any {
	fn := in.expr(fr, e.Fun)
	args := make([]any, 0, len(e.Args))
	for _, a := range e.Args {
		if s, ok := a.(*lang.Starred); ok {
			// f(*xs): the iterable's items, each a positional argument.
			args = append(args, in.iterValue(s.X.Position(), in.expr(fr, s.X))...)
			continue
		}
		args = append(args, in.expr(fr, a))
	}
	kw := map[string]any{}
	for _, k := range e.Kwargs {
		if _, dup := kw[k.Name]; dup {
			in.fail(k.Pos, "keyword argument %s given twice", k.Name)
		}
		kw[k.Name] = in.expr(fr, k.Value)
	}
	if m, ok := fn.(method); ok && strings.HasSuffix(m.name, "_") && m.name != "requires_grad_" {
		if t, ok := m.recv.(*runtime.Tensor); ok {
			in.checkInPlace(e.Pos, t)
		}
	}
	r := in.callWith(&callSite{in: in, e: e, args: args, kw: kw}, fn)
	switch f := fn.(type) {
	case builtin:
		if rg, ok := kw["requires_grad"]; ok && strings.HasPrefix(string(f), "torch.") {
			// torch.randn(..., requires_grad=True) and the other factories: a leaf.
			if t, ok := r.(*runtime.Tensor); ok {
				in.setRequiresGrad(e.Pos, t, in.truth(e.Pos, rg))
			}
		}
		if in.tracking() {
			in.untracked(e.Pos, string(f), r, append(args, slices.Collect(maps.Values(kw))...)...)
		}
	case method:
		if t, ok := f.recv.(*runtime.Tensor); ok && in.tracking() {
			in.untracked(e.Pos, "tensor."+f.name, r, append(args, t)...)
		}
	}
	return r
}

// callWith calls fn with a call's evaluated arguments.
func (in *evaluator) callWith(c *callSite, fn any) any {
	e := c.e
	switch f := fn.(type) {
	case builtin:
		return in.callBuiltin(c, string(f))
	case method:
		return in.callMethod(c, f)
	case *closure:
		return in.callClosure(c, f)
	case *classVal:
		return in.construct(c, f)
	case boundMethod:
		return in.callMethodDef(c, f.m, f.recv)
	case methodVal:
		return in.callMethodDef(c, f, nil)
	case *funcRef:
		if f.kernel {
			in.fail(e.Pos, "cannot call kernel %s: launch it with ct.launch(stream, grid, %s, args)", f.def.Name, f.def.Name)
		}
		defer in.enter(f.prog)()
		return in.callDef(c, f.def)
	case module:
		in.fail(e.Pos, "%s is not callable: it is imported from a module host code does not have (tilec loads neither a program's own modules, such as a sibling .py file, nor packages it does not know)", describe(fn))
	}
	in.fail(e.Pos, "%s is not callable", describe(fn))
	return nil
}

// callDef runs a plain def of the file with the call's arguments.
func (in *evaluator) callDef(c *callSite, def *lang.FuncDef) any {
	if in.depth >= maxCallDepth {
		in.fail(c.e.Pos, "host calls nested more than %d deep", maxCallDepth)
	}
	fr := &frame{vars: map[string]any{}, def: def}
	in.bindParams(c, def.Name, def.Params, fr, func(i int) any {
		if d := def.Params[i].Default; d != nil {
			return in.expr(&frame{vars: map[string]any{}}, d)
		}
		return nil
	})
	in.depth++
	defer func() { in.depth-- }()
	return in.body(fr, def.Body)
}

// bindParams binds a call's arguments to a function's parameters in fr:
// positional, then by keyword, then defaults (defaultOf(i) is parameter
// i's, nil where it has none).
func (in *evaluator) bindParams(c *callSite, name string, params []*lang.Param, fr *frame, defaultOf func(i int) any) {
	if len(c.args) > len(params) {
		in.fail(c.e.Pos, "%s takes %d arguments, got %d", name, len(params), len(c.args))
	}
	for i, v := range c.args {
		fr.vars[params[i].Name] = v
	}
	for k, v := range c.kw {
		found := false
		for i, p := range params {
			if p.Name == k {
				if i < len(c.args) {
					in.fail(c.e.Pos, "%s got multiple values for argument %s", name, k)
				}
				found = true
			}
		}
		if !found {
			in.fail(c.e.Pos, "%s has no parameter %s", name, k)
		}
		fr.vars[k] = v
	}
	for i, p := range params {
		if _, ok := fr.vars[p.Name]; ok {
			continue
		}
		d := defaultOf(i)
		if d == nil {
			in.fail(c.e.Pos, "%s is missing argument %s", name, p.Name)
		}
		fr.vars[p.Name] = d
	}
}

// callSite is one call's evaluated arguments.
type callSite struct {
	in   *evaluator
	e    *lang.Call
	args []any
	kw   map[string]any
}

// argPos is the position of positional argument i (the call's when absent).
func (c *callSite) argPos(i int) lang.Pos {
	if i < len(c.e.Args) {
		return c.e.Args[i].Position()
	}
	return c.e.Pos
}

// numpyArgAliases are the NumPy spellings torch's argument parser takes
// for its own keyword names (torch.max(x, axis=1, keepdims=True)).
var numpyArgAliases = map[string]string{"keepdims": "keepdim", "axis": "dim"}

// bind matches the call's arguments to the named parameters (a trailing
// "=" marks an optional one); absent optional ones are nil.
func (c *callSite) bind(name string, params ...string) []any {
	out := make([]any, len(params))
	names := make([]string, len(params))
	required := 0
	for i, p := range params {
		if n := len(p); n > 0 && p[n-1] == '=' {
			names[i] = p[:n-1]
		} else {
			names[i] = p
			required = i + 1
		}
	}
	if len(c.args) > len(params) {
		c.in.fail(c.e.Pos, "%s takes at most %d arguments, got %d", name, len(params), len(c.args))
	}
	copy(out, c.args)
	for _, kwe := range c.e.Kwargs {
		k, v := kwe.Name, c.kw[kwe.Name]
		found := false
		if alias, ok := numpyArgAliases[k]; ok && !slices.Contains(names, k) && slices.Contains(names, alias) {
			k = alias
		}
		for i, n := range names {
			if n == k {
				if i < len(c.args) {
					c.in.fail(c.e.Pos, "%s got multiple values for %s", name, k)
				}
				out[i], found = v, true
			}
		}
		if !found {
			c.in.fail(c.e.Pos, "%s has no argument %s in the host subset", name, k)
		}
	}
	for i := 0; i < required; i++ {
		if out[i] == nil {
			c.in.fail(c.e.Pos, "%s is missing argument %s", name, names[i])
		}
	}
	return out
}

func (in *evaluator) intArg(pos lang.Pos, what string, v any) int64 {
	n, ok := asIndex(v).(int64)
	if !ok {
		in.fail(pos, "%s takes ints, got %s", what, describe(v))
	}
	return n
}
