package tune

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/tilec/tilec/ir"
)

// Param is one constant (or knob: KnobNames) of a search space and the
// values it takes, as text (what -D takes).
type Param struct {
	Name   string
	Values []string
}

// Space is the constants and knobs a search varies, each over its values;
// the candidates are every combination.
type Space []Param

// String prints the space as --space flags take it: tm=64,128 tn=128,256.
func (s Space) String() string {
	parts := make([]string, len(s))
	for i, p := range s {
		parts[i] = p.Name + "=" + strings.Join(p.Values, ",")
	}
	return strings.Join(parts, " ")
}

// Size is the number of candidates, saturated at math.MaxInt: 16 knobs of
// 16 values are 2^64 candidates, which a wrapped product would count as 0
// and let past the bound.
func (s Space) Size() int {
	n := 1
	for _, p := range s {
		if len(p.Values) == 0 {
			return 0
		}
		if n > math.MaxInt/len(p.Values) {
			return math.MaxInt
		}
		n *= len(p.Values)
	}
	return n
}

// Check bounds the space a search may run: at most maxCandidates
// candidates. It applies to the space as searched (the source's block
// merged with --space, or the default), not only to each part.
func (s Space) Check() error {
	switch n := s.Size(); {
	case n == math.MaxInt:
		return fmt.Errorf("the space has over %d candidates, more than %d", math.MaxInt, maxCandidates)
	case n > maxCandidates:
		return fmt.Errorf("the space has %d candidates, more than %d", n, maxCandidates)
	}
	return nil
}

// Names are the constants' names in order.
func (s Space) Names() []string {
	out := make([]string, len(s))
	for i, p := range s {
		out[i] = p.Name
	}
	return out
}

// Candidates are every combination of the values, the first constant
// varying slowest.
func (s Space) Candidates() []map[string]string {
	out := []map[string]string{{}}
	for _, p := range s {
		var next []map[string]string
		for _, c := range out {
			for _, v := range p.Values {
				m := make(map[string]string, len(c)+1)
				for k, x := range c {
					m[k] = x
				}
				m[p.Name] = v
				next = append(next, m)
			}
		}
		out = next
	}
	return out
}

// maxCandidates bounds a space: a search that big is a mistake.
const maxCandidates = 4096

// ParseSpace parses --space flags, each NAME=V1,V2,... (several constants
// may share one flag, separated by spaces: "tm=64,128 tn=64,128").
func ParseSpace(flags []string) (Space, error) {
	var s Space
	seen := map[string]bool{}
	for _, f := range flags {
		for _, item := range strings.Fields(f) {
			name, vals, ok := strings.Cut(item, "=")
			name = strings.TrimSpace(name)
			if !ok || name == "" || vals == "" {
				return nil, fmt.Errorf("%q: want NAME=V1,V2,...", item)
			}
			if seen[name] {
				return nil, fmt.Errorf("%s given twice", name)
			}
			seen[name] = true
			p := Param{Name: name}
			dup := map[string]bool{}
			for _, v := range strings.Split(vals, ",") {
				if v = strings.TrimSpace(v); v == "" || dup[v] {
					continue
				}
				dup[v] = true
				p.Values = append(p.Values, v)
			}
			if len(p.Values) == 0 {
				return nil, fmt.Errorf("%s: no values", name)
			}
			s = append(s, p)
		}
	}
	if err := s.Check(); err != nil {
		return nil, err
	}
	return s, nil
}

// sourceMarker starts a line of a source file that declares its search
// space: "# tilec: tune tm=64,128,256 tn=64,128".
const sourceMarker = "# tilec: tune "

// FromSource reads the search space declared in a kernel's source: every
// line that starts with "# tilec: tune " holds NAME=V1,V2,... items. nil
// when there is none.
func FromSource(src []byte) (Space, error) {
	var flags []string
	sc := bufio.NewScanner(bytes.NewReader(src))
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	line := 0
	for sc.Scan() {
		line++
		t := strings.TrimSpace(sc.Text())
		if rest, ok := strings.CutPrefix(t, sourceMarker); ok {
			flags = append(flags, rest)
		} else if t == strings.TrimSpace(sourceMarker) {
			return nil, fmt.Errorf("line %d: %q declares no constants", line, t)
		}
	}
	if len(flags) == 0 {
		return nil, nil
	}
	s, err := ParseSpace(flags)
	if err != nil {
		return nil, fmt.Errorf("%s block: %v", strings.TrimSpace(sourceMarker), err)
	}
	return s, nil
}

// Override returns s with the constants of over replacing (or, when s has
// them not, following) its own.
func (s Space) Override(over Space) Space {
	out := Space{}
	by := map[string]Param{}
	for _, p := range over {
		by[p.Name] = p
	}
	for _, p := range s {
		if q, ok := by[p.Name]; ok {
			out = append(out, q)
			delete(by, p.Name)
		} else {
			out = append(out, p)
		}
	}
	for _, p := range over {
		if _, ok := by[p.Name]; ok {
			out = append(out, p)
		}
	}
	return out
}

// Build compiles the kernel under tuning with constants on top of the
// user's (-D): the tuner's only way to make a candidate (whose knobs
// ApplyKnobs then sets).
type Build func(consts map[string]string) (*ir.Func, error)

// DefaultSpace derives a space from a kernel built with the user's
// constants (base): every int constant whose value is a power of two, not
// fixed by the user (fixed: the -D names), over half, the value and
// twice it. A constant that sizes an array (attention's head dim D: a
// change changes the kernel's parameters) is the problem, not a tuning
// knob, and is left out.
func DefaultSpace(build Build, base *ir.Func, fixed map[string]string) (Space, error) {
	var s Space
	for _, c := range base.Consts {
		v, ok := c.Value.(int64)
		if _, isFixed := fixed[c.Name]; !ok || isFixed || v <= 0 || v&(v-1) != 0 {
			continue
		}
		g, err := build(map[string]string{c.Name: strconv.FormatInt(2*v, 10)})
		if err == nil && !SameParams(base, g) {
			continue
		}
		p := Param{Name: c.Name}
		if v > 1 {
			p.Values = append(p.Values, strconv.FormatInt(v/2, 10))
		}
		p.Values = append(p.Values, strconv.FormatInt(v, 10), strconv.FormatInt(2*v, 10))
		s = append(s, p)
	}
	if len(s) == 0 {
		return nil, fmt.Errorf("%s has no constant to tune (int constants whose values are powers of two); give a space with --space NAME=V1,V2", base.Name)
	}
	if err := s.Check(); err != nil {
		return nil, fmt.Errorf("%s's default space (%s): %v; give a smaller one with --space NAME=V1,V2", base.Name, s, err)
	}
	return s, nil
}

// CheckNames reports a space constant that the kernel does not have or that
// the user fixed with -D, a knob value out of range, and cuTile hints that
// cannot be tuned (num_ctas: the back end does not honour it).
func (s Space) CheckNames(base *ir.Func, fixed map[string]string) error {
	for _, p := range s {
		if k, ok := lookupKnob(p.Name); ok && !hasConst(base, p.Name) {
			for _, v := range p.Values {
				if err := k.checkValue(v); err != nil {
					return err
				}
			}
			continue
		}
		if why, ok := notKnobs[p.Name]; ok && !hasConst(base, p.Name) {
			return fmt.Errorf("%s cannot be tuned: %s", p.Name, why)
		}
		if !hasConst(base, p.Name) {
			var names []string
			for _, c := range base.Consts {
				names = append(names, c.Name)
			}
			return fmt.Errorf("%s has no constant %s (its constants: %s; knobs: %s)", base.Name, p.Name,
				strings.Join(names, ", "), strings.Join(KnobNames(), ", "))
		}
		if v, ok := fixed[p.Name]; ok {
			return fmt.Errorf("%s is fixed by -D %s=%s and also in the search space", p.Name, p.Name, v)
		}
		for _, v := range p.Values {
			if err := checkConstValue(base, p.Name, v); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkConstValue reports a value that constant name of base cannot take:
// text that is not an int for an int constant, not a number for a float
// one, not a bool for a bool one, read as -D reads them. A typo is then an
// error with the space, not a candidate pruned at compile time whose
// reason only the search's table shows. Dtype constants are left to the
// build.
func checkConstValue(base *ir.Func, name, v string) error {
	for _, c := range base.Consts {
		if c.Name != name {
			continue
		}
		s := strings.TrimSpace(v)
		switch c.Value.(type) {
		case int64:
			if _, err := strconv.ParseInt(strings.ReplaceAll(s, "_", ""), 0, 64); err != nil {
				return fmt.Errorf("%s=%s: %s is an int constant; want an int", name, v, name)
			}
		case float64:
			if _, err := strconv.ParseFloat(s, 64); err != nil {
				return fmt.Errorf("%s=%s: %s is a float constant; want a number", name, v, name)
			}
		case bool:
			switch s {
			case "True", "true", "1", "False", "false", "0":
			default:
				return fmt.Errorf("%s=%s: %s is a bool constant; want True or False", name, v, name)
			}
		}
	}
	return nil
}

// SameParams reports whether two builds of a kernel take the same launch
// arguments (names, types, dims): the candidates of one search must.
func SameParams(a, b *ir.Func) bool {
	if len(a.Params) != len(b.Params) {
		return false
	}
	for i, p := range a.Params {
		q := b.Params[i]
		if p.Name != q.Name || p.Type.String() != q.Type.String() || !reflect.DeepEqual(p.Dims, q.Dims) {
			return false
		}
	}
	return true
}

// ConstValues are a kernel's constants as text, by name.
func ConstValues(f *ir.Func) map[string]string {
	out := map[string]string{}
	for _, c := range f.Consts {
		out[c.Name] = fmt.Sprint(c.Value)
	}
	return out
}
