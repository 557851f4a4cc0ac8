package host

// Dicts and sets of host code, as Python's: made by dict() and set()
// (dict(other), dict(key=value), set(iterable)), insertion-ordered, keyed
// by value as Python hashes (1, 1.0 and True are one key; a tensor is its
// own key, as torch's hash by identity), with d[k], d[k] = v, len,
// iteration over the keys, truth, ==, and the methods below. A cache a
// host function fills (`_cache = dict()` at module level, filled through
// `_cache[key] = kernel_args`) keeps its entries between calls, as in
// Python: the value is shared, not copied.

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/tilec/tilec/ir/build"
	"github.com/tilec/tilec/lang"
	"github.com/tilec/tilec/runtime"
)

// pyDict is a dict (vals set) or a set (vals nil): keys in insertion
// order, at finding each by its hash key.
type pyDict struct {
	set  bool
	keys []any
	vals []any
	at   map[string]int
}

func newDict(set bool) *pyDict { return &pyDict{set: set, at: map[string]int{}} }

// hashKey is the key v is found by, equal for values Python finds as one
// key; unhashable values (dicts, sets) are an error at pos.
func (in *evaluator) hashKey(pos lang.Pos, v any) string {
	switch v := v.(type) {
	case bool:
		if v {
			return "i1"
		}
		return "i0"
	case int64:
		return "i" + strconv.FormatInt(v, 10)
	case float64:
		if v == math.Trunc(v) && math.Abs(v) < 1<<63 {
			return "i" + strconv.FormatInt(int64(v), 10)
		}
		return "f" + strconv.FormatUint(math.Float64bits(v), 16)
	case complex128:
		if imag(v) == 0 {
			return in.hashKey(pos, real(v)) // 1+0j is the key 1
		}
		return "c" + strconv.FormatUint(math.Float64bits(real(v)), 16) + "," + strconv.FormatUint(math.Float64bits(imag(v)), 16)
	case complexDType:
		return "d" + v.String()
	case string:
		return "s" + v
	case none:
		return "n"
	case Tuple, sizeTuple, namedTuple:
		items, _ := asTuple(v)
		var b strings.Builder
		b.WriteString("t")
		for _, x := range items {
			k := in.hashKey(pos, x)
			b.WriteString(strconv.Itoa(len(k)) + ":" + k)
		}
		return b.String()
	case dtypeVal:
		return "d" + v.String()
	case device:
		return "v" + v.kind
	case *runtime.Tensor, *funcRef, *closure, *record, *instance, *classVal:
		return fmt.Sprintf("p%p", v)
	}
	if d, ok := v.(*pyDict); ok {
		kind := "dict"
		if d.set {
			kind = "set"
		}
		in.fail(pos, "TypeError: unhashable type: '%s'", kind)
	}
	in.fail(pos, "TypeError: unhashable type: %s", describe(v))
	return ""
}

// get is d[k] and whether d has k.
func (in *evaluator) dictGet(pos lang.Pos, d *pyDict, k any) (any, bool) {
	i, ok := d.at[in.hashKey(pos, k)]
	if !ok {
		return nil, false
	}
	if d.set {
		return d.keys[i], true
	}
	return d.vals[i], true
}

// put sets d[k] = v (for a set, adds k): a key already there keeps its
// place and its first spelling (d[1] then d[1.0] keeps the key 1).
func (in *evaluator) dictPut(pos lang.Pos, d *pyDict, k, v any) {
	h := in.hashKey(pos, k)
	if i, ok := d.at[h]; ok {
		if !d.set {
			d.vals[i] = v
		}
		return
	}
	if len(d.keys) >= maxDictItems {
		in.fail(pos, "a dict or set of more than %d items in host code", maxDictItems)
	}
	d.at[h] = len(d.keys)
	d.keys = append(d.keys, k)
	if !d.set {
		d.vals = append(d.vals, v)
	}
}

// maxDictItems bounds one dict or set, as maxScriptElements bounds a
// tensor: host code's tables are small, and a loop filling one without
// end is a mistake.
const maxDictItems = 1 << 20

// remove deletes k and returns its value (for a set, k), or ok false.
func (in *evaluator) dictRemove(pos lang.Pos, d *pyDict, k any) (any, bool) {
	h := in.hashKey(pos, k)
	i, ok := d.at[h]
	if !ok {
		return nil, false
	}
	v := d.keys[i]
	if !d.set {
		v = d.vals[i]
		d.vals = append(d.vals[:i], d.vals[i+1:]...)
	}
	d.keys = append(d.keys[:i], d.keys[i+1:]...)
	delete(d.at, h)
	for h2, j := range d.at {
		if j > i {
			d.at[h2] = j - 1
		}
	}
	return v, true
}

// clone is a shallow copy of d.
func (d *pyDict) clone() *pyDict {
	c := &pyDict{set: d.set, keys: append([]any{}, d.keys...), at: make(map[string]int, len(d.at))}
	if !d.set {
		c.vals = append([]any{}, d.vals...)
	}
	for h, i := range d.at {
		c.at[h] = i
	}
	return c
}

// items is the dict's (key, value) pairs in order.
func (d *pyDict) items() Tuple {
	out := make(Tuple, len(d.keys))
	for i, k := range d.keys {
		out[i] = Tuple{k, d.vals[i]}
	}
	return out
}

// keyError is Python's KeyError for k, at pos.
func (in *evaluator) keyError(pos lang.Pos, k any) {
	in.fail(pos, "KeyError: %s", in.repr(k))
}

// repr is Python's repr of a value inside a container: strings quoted.
func (in *evaluator) repr(v any) string {
	if s, ok := v.(string); ok {
		text, _ := build.PyConvert(s, "r")
		return text
	}
	return in.str(v)
}

// dictStr is str(d): {k: v, ...}, {k, ...}, or set() when empty.
func (in *evaluator) dictStr(d *pyDict) string {
	if d.set && len(d.keys) == 0 {
		return "set()"
	}
	parts := make([]string, len(d.keys))
	for i, k := range d.keys {
		parts[i] = in.repr(k)
		if !d.set {
			parts[i] += ": " + in.repr(d.vals[i])
		}
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// dictsEqual is == on dicts (the same keys, equal values) and sets.
func (in *evaluator) dictsEqual(a, b *pyDict) bool {
	if a.set != b.set || len(a.keys) != len(b.keys) {
		return false
	}
	for h, i := range a.at {
		j, ok := b.at[h]
		if !ok {
			return false
		}
		if !a.set && !in.equal(a.vals[i], b.vals[j]) {
			return false
		}
	}
	return true
}

// makeDict is dict(...) and set(...): empty, a copy of a dict, a dict of
// (key, value) pairs or keywords, a set of an iterable's items.
func (in *evaluator) makeDict(c *callSite, set bool) *pyDict {
	name := "dict"
	if set {
		name = "set"
	}
	if len(c.args) > 1 || (set && len(c.kw) > 0) {
		in.fail(c.e.Pos, "%s takes at most one positional argument", name)
	}
	d := newDict(set)
	if len(c.args) == 1 {
		src := c.args[0]
		if o, ok := src.(*pyDict); ok && !o.set && !set {
			d = o.clone()
		} else {
			for _, x := range in.iterValue(c.argPos(0), src) {
				if set {
					in.dictPut(c.argPos(0), d, x, nil)
					continue
				}
				kv, ok := asTuple(x)
				if !ok || len(kv) != 2 {
					in.fail(c.argPos(0), "dict: each item of the argument is a (key, value) pair, got %s", describe(x))
				}
				in.dictPut(c.argPos(0), d, kv[0], kv[1])
			}
		}
	}
	for _, k := range c.e.Kwargs {
		in.dictPut(k.Pos, d, k.Name, c.kw[k.Name])
	}
	return d
}

// dictMethod is d.name(...) for a dict or a set.
func (in *evaluator) dictMethod(c *callSite, d *pyDict, name string) any {
	pos := c.e.Pos
	what := "dict." + name
	if d.set {
		what = "set." + name
	}
	switch {
	case !d.set && name == "get":
		a := c.bind(what, "key", "default=")
		if v, ok := in.dictGet(c.argPos(0), d, a[0]); ok {
			return v
		}
		if a[1] == nil {
			return none{}
		}
		return a[1]
	case !d.set && name == "setdefault":
		a := c.bind(what, "key", "default=")
		if v, ok := in.dictGet(c.argPos(0), d, a[0]); ok {
			return v
		}
		v := a[1]
		if v == nil {
			v = none{}
		}
		in.dictPut(c.argPos(0), d, a[0], v)
		return v
	case !d.set && name == "keys":
		c.bind(what)
		return append(Tuple{}, d.keys...)
	case !d.set && name == "values":
		c.bind(what)
		return append(Tuple{}, d.vals...)
	case !d.set && name == "items":
		c.bind(what)
		return d.items()
	case !d.set && name == "pop":
		a := c.bind(what, "key", "default=")
		if v, ok := in.dictRemove(c.argPos(0), d, a[0]); ok {
			return v
		}
		if a[1] == nil {
			in.keyError(c.argPos(0), a[0])
		}
		return a[1]
	case !d.set && name == "update":
		// update(other) and update(key=value, ...), as dict(...) reads them.
		for k, v := range in.makeDict(c, false).all() {
			in.dictPut(pos, d, k, v)
		}
		return none{}
	case d.set && name == "add":
		a := c.bind(what, "elem")
		in.dictPut(c.argPos(0), d, a[0], nil)
		return none{}
	case d.set && (name == "remove" || name == "discard"):
		a := c.bind(what, "elem")
		if _, ok := in.dictRemove(c.argPos(0), d, a[0]); !ok && name == "remove" {
			in.keyError(c.argPos(0), a[0])
		}
		return none{}
	case d.set && name == "update":
		c.bind(what, "other")
		for _, x := range in.iterValue(c.argPos(0), c.args[0]) {
			in.dictPut(c.argPos(0), d, x, nil)
		}
		return none{}
	case name == "copy":
		c.bind(what)
		return d.clone()
	case name == "clear":
		c.bind(what)
		*d = *newDict(d.set)
		return none{}
	}
	methods := "get, setdefault, keys, values, items, pop, update, copy, clear"
	if d.set {
		methods = "add, remove, discard, update, copy, clear"
	}
	in.fail(pos, "%s is not part of the host subset (it has %s)", what, methods)
	return nil
}

// all iterates over a dict's keys and values in order.
func (d *pyDict) all() func(yield func(k, v any) bool) {
	return func(yield func(k, v any) bool) {
		for i, k := range d.keys {
			if !yield(k, d.vals[i]) {
				return
			}
		}
	}
}

// iterValue is what iterating over v gives (a for loop's items): a
// tuple's items, a tensor's rows, a dict's keys, a set's items.
func (in *evaluator) iterValue(pos lang.Pos, v any) []any {
	if t, ok := asTuple(v); ok {
		return t
	}
	switch v := v.(type) {
	case *pyDict:
		return append([]any{}, v.keys...)
	case string:
		var out []any
		for _, r := range v {
			out = append(out, string(r))
		}
		return out
	case *runtime.Tensor:
		if len(v.Shape) == 0 {
			in.fail(pos, "iteration over a 0-d tensor")
		}
		// Rows are views of v's elements, as torch's iteration gives.
		out := make([]any, v.Shape[0])
		for i := range out {
			out[i] = in.tensorIndex(pos, v, []any{int64(i)})
		}
		return out
	}
	in.fail(pos, "host code iterates over range(...), a tuple, a list, a dict, a set, a string or a tensor, not %s", describe(v))
	return nil
}
