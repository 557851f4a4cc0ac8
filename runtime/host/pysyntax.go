package host

// Python's dict and set displays and comprehensions, the membership tests
// `in` and `not in`, lambdas (closures over the names of the frame that
// made them), the builtins that take a function (sorted, min and max with
// key=), and the iteration builtins that real host code uses with them
// (list, enumerate, zip, any, all, sum).

import (
	"fmt"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/tilec/tilec/lang"
	"github.com/tilec/tilec/runtime"
)

// closure is a lambda's value: its code, the frame it was made in (its
// enclosing names are read there when it runs, as Python's closures read
// their cells: late binding), and its parameters' defaults, evaluated
// when the lambda was made, as Python does.
type closure struct {
	prog     *Program // the file it was written in
	lam      *lang.Lambda
	env      *frame
	defaults []any // per parameter; nil where it has none
}

// makeLambda evaluates a lambda expression into a closure.
func (in *evaluator) makeLambda(fr *frame, e *lang.Lambda) *closure {
	c := &closure{prog: in.prog, lam: e, env: fr, defaults: make([]any, len(e.Params))}
	for i, p := range e.Params {
		if p.Default != nil {
			c.defaults[i] = in.expr(fr, p.Default)
		}
	}
	return c
}

// callClosure runs a lambda with a call's arguments: its parameters are
// its own names, every other name is looked up in the frame it was made
// in, then among the module's.
func (in *evaluator) callClosure(c *callSite, f *closure) any {
	if in.depth >= maxCallDepth {
		in.fail(c.e.Pos, "host calls nested more than %d deep", maxCallDepth)
	}
	defer in.enter(f.prog)()
	fr := &frame{vars: map[string]any{}, def: f.env.def, parent: f.env}
	in.bindParams(c, "<lambda>", f.lam.Params, fr, func(i int) any { return f.defaults[i] })
	in.depth++
	defer func() { in.depth-- }()
	return in.expr(fr, f.lam.Body)
}

// callValue calls fn (a lambda, a host def, a builtin or a bound method)
// from inside the host interpreter, as sorted's key or an autotuner's
// grid function is called: pos is the call that asked for it.
func (in *evaluator) callValue(pos lang.Pos, fn any, args ...any) any {
	c := &callSite{in: in, e: &lang.Call{Pos: pos}, args: args, kw: map[string]any{}}
	return in.callWith(c, fn)
}

// display evaluates a dict or set display, or a comprehension of either.
func (in *evaluator) display(fr *frame, e lang.Expr) any {
	switch e := e.(type) {
	case *lang.Dict:
		d := newDict(false)
		for i, k := range e.Keys {
			kv := in.expr(fr, k)
			in.dictPut(k.Position(), d, kv, in.expr(fr, e.Values[i]))
		}
		return d
	case *lang.Set:
		d := newDict(true)
		for _, x := range e.Elems {
			in.dictPut(x.Position(), d, in.expr(fr, x), nil)
		}
		return d
	case *lang.DictComp:
		d := newDict(false)
		in.comprehend(fr, e.Pos, e.Target, e.Iter, e.Cond, func(inner *frame) {
			k := in.expr(inner, e.Key)
			in.dictPut(e.Key.Position(), d, k, in.expr(inner, e.Value))
		})
		return d
	case *lang.SetComp:
		d := newDict(true)
		in.comprehend(fr, e.Pos, e.Target, e.Iter, e.Cond, func(inner *frame) {
			in.dictPut(e.Elem.Position(), d, in.expr(inner, e.Elem), nil)
		})
		return d
	}
	in.fail(e.Position(), "this expression is not part of the host subset")
	return nil
}

// comprehend runs a comprehension's clause: each item of iter bound to
// target in the comprehension's own frame (its target is its own, as in
// Python 3), then add for the items that pass cond.
func (in *evaluator) comprehend(fr *frame, pos lang.Pos, target, iter, cond lang.Expr, add func(inner *frame)) {
	inner := &frame{vars: map[string]any{}, def: fr.def, parent: fr}
	for _, v := range in.iterateExpr(fr, iter) {
		in.step(pos)
		in.assign(inner, target, v)
		if cond != nil && !in.truth(cond.Position(), in.expr(inner, cond)) {
			continue
		}
		add(inner)
	}
}

// contains is `x in y` as Python has it: a dict's keys, a set's items, a
// tuple's or list's items (compared with ==), a substring of a string, a
// value of a tensor. `not in` is its negation.
func (in *evaluator) contains(pos lang.Pos, x, y any) bool {
	switch y := y.(type) {
	case *pyDict:
		_, ok := in.dictGet(pos, y, x)
		return ok
	case string:
		s, ok := x.(string)
		if !ok {
			in.fail(pos, "TypeError: 'in <string>' requires string as left operand, not %s", describe(x))
		}
		return strings.Contains(y, s)
	case *runtime.Tensor:
		// torch: (y == x).any(), for a number x.
		if _, ok := toFloat(num(x)); !ok {
			in.fail(pos, "'in' on a tensor takes a number on its left, got %s", describe(x))
		}
		eq := in.tensorBinop(pos, "==", y, x).(*runtime.Tensor)
		found := false
		eq.ForEachElem(func(i int) { found = found || eq.ElemAt(i) != 0 })
		return found
	}
	items, ok := asTuple(y)
	if !ok {
		in.fail(pos, "TypeError: argument of type %s is not iterable ('in' takes a tuple, list, dict, set, string, range or tensor)", describe(y))
	}
	for _, it := range items {
		if identical(x, it) || in.equal(x, it) {
			return true
		}
	}
	return false
}

// inRange is `x in range(...)`, by arithmetic as Python's range does:
// an int (or a float equal to one) between the bounds on the step.
func (in *evaluator) inRange(fr *frame, c *lang.Call, x any) bool {
	if len(c.Kwargs) > 0 || len(c.Args) < 1 || len(c.Args) > 3 {
		in.fail(c.Pos, "range takes 1 to 3 positional ints")
	}
	var xs []int64
	for _, a := range c.Args {
		xs = append(xs, in.intArg(a.Position(), "range", in.expr(fr, a)))
	}
	start, stop, step := int64(0), xs[0], int64(1)
	if len(xs) > 1 {
		start, stop = xs[0], xs[1]
	}
	if len(xs) == 3 {
		step = xs[2]
	}
	if step == 0 {
		in.fail(c.Pos, "range() step must not be zero")
	}
	var v int64
	switch n := num(x).(type) {
	case int64:
		v = n
	case float64:
		if n != math.Trunc(n) || math.Abs(n) >= 1<<63 {
			return false
		}
		v = int64(n)
	default:
		return false // Python compares with ==: nothing else equals an int
	}
	if step > 0 && (v < start || v >= stop) || step < 0 && (v > start || v <= stop) {
		return false
	}
	// The distance fits: v and start are on the same side of stop.
	d := v - start
	if step < 0 {
		d, step = start-v, -step
	}
	return uint64(d)%uint64(step) == 0
}

// rangeCall reports whether e is a call of Python's range (not shadowed).
func (in *evaluator) rangeCall(fr *frame, e lang.Expr) (*lang.Call, bool) {
	c, ok := e.(*lang.Call)
	if !ok {
		return nil, false
	}
	n, ok := c.Fun.(*lang.Name)
	if !ok || n.Name != "range" {
		return nil, false
	}
	for f := fr; f != nil; f = f.parent {
		if _, shadowed := f.vars["range"]; shadowed {
			return nil, false
		}
	}
	return c, true
}

// iterBuiltin is one of Python's builtins over iterables: sorted, list,
// enumerate, zip, any, all, sum.
func (in *evaluator) iterBuiltin(c *callSite, name string) any {
	pos := c.e.Pos
	switch name {
	case "sorted":
		a := c.bind(name, "iterable", "key=", "reverse=")
		items := slices.Clone(in.iterValue(c.argPos(0), a[0]))
		keys := items
		if a[1] != nil && a[1] != (none{}) {
			keys = make([]any, len(items))
			for i, x := range items {
				keys[i] = in.callValue(pos, a[1], x)
			}
		}
		reverse := a[2] != nil && in.truth(pos, a[2])
		idx := make([]int, len(items))
		for i := range idx {
			idx[i] = i
		}
		// Python's sort is stable and compares with < only; reverse keeps
		// equal items in their order too.
		slices.SortStableFunc(idx, func(i, j int) int {
			x, y := keys[i], keys[j]
			if reverse {
				x, y = y, x
			}
			switch {
			case in.less(pos, x, y):
				return -1
			case in.less(pos, y, x):
				return 1
			}
			return 0
		})
		out := make(Tuple, len(items))
		for k, i := range idx {
			out[k] = items[i]
		}
		return out
	case "list":
		a := c.bind(name, "iterable=")
		if a[0] == nil {
			return Tuple{}
		}
		return Tuple(slices.Clone(in.iterValue(c.argPos(0), a[0])))
	case "enumerate":
		a := c.bind(name, "iterable", "start=")
		start := int64(0)
		if a[1] != nil {
			start = in.intArg(c.argPos(1), name, a[1])
		}
		items := in.iterValue(c.argPos(0), a[0])
		out := make(Tuple, len(items))
		for i, x := range items {
			out[i] = Tuple{start + int64(i), x}
		}
		return out
	case "zip":
		if len(c.kw) > 0 {
			in.fail(pos, "zip takes no keyword arguments in the host subset")
		}
		var cols [][]any
		n := -1
		for i, x := range c.args {
			items := in.iterValue(c.argPos(i), x)
			cols = append(cols, items)
			if n < 0 || len(items) < n {
				n = len(items)
			}
		}
		out := make(Tuple, max(n, 0))
		for i := range out {
			row := make(Tuple, len(cols))
			for j, col := range cols {
				row[j] = col[i]
			}
			out[i] = row
		}
		return out
	case "any", "all":
		a := c.bind(name, "iterable")
		for _, x := range in.iterValue(c.argPos(0), a[0]) {
			if t := in.truth(pos, x); t == (name == "any") {
				return t
			}
		}
		return name == "all"
	case "sum":
		a := c.bind(name, "iterable", "start=")
		var total any = int64(0)
		if a[1] != nil {
			total = a[1]
		}
		for _, x := range in.iterValue(c.argPos(0), a[0]) {
			total = in.binop(pos, "+", total, x)
		}
		return total
	}
	in.fail(pos, "%s is not part of the host subset", name)
	return nil
}

// iterBuiltins are the names iterBuiltin handles.
var iterBuiltins = []string{"sorted", "list", "enumerate", "zip", "any", "all", "sum"}

// less is x < y as Python's sort asks it: an error for values that do
// not compare (a dict, None against an int).
func (in *evaluator) less(pos lang.Pos, x, y any) bool {
	return in.truth(pos, in.binop(pos, "<", x, y))
}

// record is an object of attributes in order: types.SimpleNamespace, and
// the results of ct.tune.exhaustive_search (TuningResult, Measurement,
// dataclasses in cuTile). It prints as Python's repr does and compares
// by its attributes.
type record struct {
	typeName string
	names    []string
	vals     []any
}

// get is the record's attribute name.
func (r *record) get(name string) (any, bool) {
	if i := slices.Index(r.names, name); i >= 0 {
		return r.vals[i], true
	}
	return nil, false
}

// recordStr is repr(r): typeName(a=1, b='x').
func (in *evaluator) recordStr(r *record) string {
	parts := make([]string, len(r.names))
	for i, n := range r.names {
		parts[i] = n + "=" + in.repr(r.vals[i])
	}
	return r.typeName + "(" + strings.Join(parts, ", ") + ")"
}

// recordsEqual is == on records: the same type and equal attributes (as
// SimpleNamespace and dataclasses compare).
func (in *evaluator) recordsEqual(a, b *record) bool {
	if a == b {
		return true
	}
	if a.typeName != b.typeName || len(a.names) != len(b.names) {
		return false
	}
	for i, n := range a.names {
		// Python compares the attributes as a tuple's items: the same
		// object is equal to itself first (a NaN mean_us included).
		v, ok := b.get(n)
		if !ok || !identical(a.vals[i], v) && !in.equal(a.vals[i], v) {
			return false
		}
	}
	return true
}

// simpleNamespace is types.SimpleNamespace(**kwargs): its attributes in
// the order given (Python keeps keyword order).
func (in *evaluator) simpleNamespace(c *callSite) *record {
	if len(c.args) > 0 {
		in.fail(c.e.Pos, "SimpleNamespace takes keyword arguments only in the host subset")
	}
	r := &record{typeName: "namespace"}
	for _, k := range c.e.Kwargs {
		r.names = append(r.names, k.Name)
		r.vals = append(r.vals, c.kw[k.Name])
	}
	return r
}

// exhaustiveSearch is cuda.tile.tune.exhaustive_search(search_space,
// stream, grid_fn, kernel, args_fn, hints_fn=None, *, quiet=False,
// single_run_timeout_sec=None). cuTile times every config on the GPU and
// returns the fastest. Host code here has no timer that means anything on
// the interpreter, so tilec takes the configs in order and returns the
// first that compiles and runs (a config that fails is a failure, as
// cuTile records it), says so on stderr, and times nothing: the result's
// mean_us and error_margin_us are NaN and num_samples is 0. The hints
// (num_ctas, occupancy) do not change what a kernel computes; tilec
// builds the kernel with its own decorator's.
func (in *evaluator) exhaustiveSearch(c *callSite, name string) any {
	a := c.bind(name, "search_space", "stream", "grid_fn", "kernel", "args_fn", "hints_fn=", "quiet=", "single_run_timeout_sec=")
	pos := c.e.Pos
	space := in.iterValue(c.argPos(0), a[0])
	if len(space) == 0 {
		in.fail(c.argPos(0), "ValueError: Search space is empty.")
	}
	var failures Tuple
	for i, cfg := range space {
		msg := in.tryConfig(pos, cfg, a[2], a[3], a[4], a[5])
		if msg != "" {
			failures = append(failures, Tuple{cfg, "TileCompilerError", msg})
			continue
		}
		quiet := a[6] != nil && in.truth(pos, a[6])
		if !quiet {
			in.note(pos, "%s: tilec times no configs in host code; it took config %d of %d, the first that compiled and ran: %s", name, i+1, len(space), in.repr(cfg))
		}
		nan := math.NaN()
		best := &record{typeName: "Measurement", names: []string{"config", "mean_us", "num_samples", "error_margin_us"},
			vals: []any{cfg, nan, int64(0), nan}}
		return &record{typeName: "TuningResult", names: []string{"best", "successes", "failures"},
			vals: []any{best, Tuple{best}, failures}}
	}
	first := failures[0].(Tuple)
	in.fail(pos, "%s: none of the %d configs ran; the first, %s, failed: %s", name, len(space), in.repr(first[0]), first[2])
	return nil
}

// tryConfig launches the kernel once for one config of a search, and
// returns "" or the error that stopped it.
func (in *evaluator) tryConfig(pos lang.Pos, cfg, gridFn, kernel, argsFn, hintsFn any) (msg string) {
	defer func() {
		if r := recover(); r != nil {
			he, ok := r.(hostError)
			if !ok {
				panic(r)
			}
			msg = he.err.Error()
		}
	}()
	k, ok := kernel.(*funcRef)
	if !ok || !k.kernel {
		// A function of the config that gives the kernel.
		k, ok = in.callValue(pos, kernel, cfg).(*funcRef)
		if !ok || !k.kernel {
			in.fail(pos, "exhaustive_search: kernel is a kernel, or a function of the config that returns one")
		}
	}
	grid := in.callValue(pos, gridFn, cfg)
	args := in.callValue(pos, argsFn, cfg)
	if hintsFn != nil && hintsFn != (none{}) {
		if _, ok := in.callValue(pos, hintsFn, cfg).(*pyDict); !ok {
			in.fail(pos, "exhaustive_search: hints_fn returns a dict of hints")
		}
	}
	in.launch(&lang.Call{Pos: pos}, grid, k, args, pos)
	return ""
}

// replaceHints is kernel.replace_hints(**hints): cuTile's copy of the
// kernel with other compiler hints. They change how fast it runs, not
// what it computes; tilec keeps the decorator's and says so once.
func (in *evaluator) replaceHints(c *callSite, k *funcRef) any {
	if len(c.args) > 0 {
		in.fail(c.e.Pos, "replace_hints takes keyword arguments (num_ctas=, occupancy=, ...)")
	}
	var hints []string
	for _, kw := range c.e.Kwargs {
		hints = append(hints, kw.Name+"="+in.repr(c.kw[kw.Name]))
	}
	in.note(c.e.Pos, "%s.replace_hints(%s): tilec builds %s with its decorator's hints (hints change speed, not results)", k.def.Name, strings.Join(hints, ", "), k.def.Name)
	return k
}

// note writes a one-line note about host code to Options.Stderr.
func (in *evaluator) note(pos lang.Pos, format string, args ...any) {
	w := in.opts.Stderr
	if w == nil {
		w = os.Stderr
	}
	fmt.Fprintf(w, "note: %s: %s\n", pos, fmt.Sprintf(format, args...))
}
