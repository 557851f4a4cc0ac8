package bench

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Sweep is the list of shapes a benchmark runs: each point binds symbolic
// dims (the ones it leaves out take their defaults, FillDims).
type Sweep struct {
	// Swept are the dims that change from point to point, in the order
	// they were given.
	Swept  []string
	Points []map[string]int64
}

// dimSpec is one dim of a shape spec: its values, or the dim it follows.
type dimSpec struct {
	name   string
	values []int64
	follow string
}

// ParseSweep parses --shape specs into a sweep. Each spec is a
// comma-separated list of NAME=VALUES items; VALUES is
//
//	4096                one size (also 4e3, 0x1000)
//	1024:16384          a range doubling from 1024 up to 16384 (LO:HI:x2)
//	1024:16384:x4       a geometric range (factor 4)
//	1024:8192:+1024     an arithmetic range
//	1000,3000,5000      a list (the items after NAME= that have no '=')
//	M                   the same value as dim M at every point
//
// Dims with several values sweep together, point i taking value i of each
// (they must have the same count), unless product is set: then the points
// are every combination, the first dim given varying slowest. sizes (the
// --sizes flag: a list of sizes, "" for none) sets every dim of dims (the
// kernel's symbolic dims that sizes may set) that the specs leave out to
// that list, swept together.
func ParseSweep(specs []string, sizes string, dims []string, product bool) (*Sweep, error) {
	var ds []*dimSpec
	byName := map[string]*dimSpec{}
	for _, spec := range specs {
		var cur *dimSpec
		for _, item := range strings.Split(spec, ",") {
			item = strings.TrimSpace(item)
			if item == "" {
				continue
			}
			name, val, hasEq := strings.Cut(item, "=")
			if !hasEq {
				if cur == nil || cur.follow != "" {
					return nil, fmt.Errorf("--shape %q: %q is not NAME=VALUES", spec, item)
				}
				vs, err := parseValues(item)
				if err != nil {
					return nil, fmt.Errorf("--shape %s: %v", cur.name, err)
				}
				cur.values = append(cur.values, vs...)
				if err := checkSweepValues(cur.name, cur.values); err != nil {
					return nil, err
				}
				continue
			}
			name, val = strings.TrimSpace(name), strings.TrimSpace(val)
			if name == "" {
				return nil, fmt.Errorf("--shape %q: a dim without a name", spec)
			}
			if byName[name] != nil {
				return nil, fmt.Errorf("--shape: %s given twice", name)
			}
			cur = &dimSpec{name: name}
			if isName(val) {
				cur.follow = val
			} else {
				vs, err := parseValues(val)
				if err != nil {
					return nil, fmt.Errorf("--shape %s=%s: %v", name, val, err)
				}
				cur.values = vs
			}
			ds = append(ds, cur)
			byName[name] = cur
		}
	}
	if sizes != "" {
		var vs []int64
		for _, s := range strings.Split(sizes, ",") {
			v, err := parseSize(strings.TrimSpace(s))
			if err != nil {
				return nil, fmt.Errorf("--sizes: %v", err)
			}
			vs = append(vs, v)
		}
		if len(vs) > maxSweepValues {
			return nil, fmt.Errorf("--sizes: %d values, more than the %d a sweep may have", len(vs), maxSweepValues)
		}
		var lead *dimSpec
		for _, d := range dims {
			if byName[d] != nil {
				continue
			}
			s := &dimSpec{name: d, values: vs}
			if lead != nil {
				s = &dimSpec{name: d, follow: lead.name}
			} else {
				lead = s
			}
			ds = append(ds, s)
			byName[d] = s
		}
	}
	for _, d := range ds {
		if d.follow == "" {
			continue
		}
		t := byName[d.follow]
		switch {
		case t == nil:
			return nil, fmt.Errorf("--shape %s=%s: no dim %s is given", d.name, d.follow, d.follow)
		case t.follow != "":
			return nil, fmt.Errorf("--shape %s=%s: %s itself follows %s; name %s", d.name, d.follow, d.follow, t.follow, t.follow)
		}
	}
	sw := &Sweep{}
	var swept []*dimSpec
	for _, d := range ds {
		if d.follow == "" && len(d.values) > 1 {
			swept = append(swept, d)
		}
	}
	n := 1
	if product {
		for _, d := range swept {
			n *= len(d.values)
			if n > maxSweepValues {
				return nil, fmt.Errorf("--shape: more than %d shapes", maxSweepValues)
			}
		}
	} else if len(swept) > 0 {
		n = len(swept[0].values)
		for _, d := range swept[1:] {
			if len(d.values) != n {
				return nil, fmt.Errorf("--shape: %s has %d values and %s %d: dims swept together need as many values each (or --product)",
					swept[0].name, n, d.name, len(d.values))
			}
		}
	}
	for _, d := range ds {
		if d.follow != "" && len(byName[d.follow].values) > 1 || len(d.values) > 1 {
			sw.Swept = append(sw.Swept, d.name)
		}
	}
	for i := 0; i < n; i++ {
		pt := map[string]int64{}
		rest := i
		for j := len(swept) - 1; j >= 0; j-- {
			d := swept[j]
			k := i
			if product {
				k = rest % len(d.values)
				rest /= len(d.values)
			}
			pt[d.name] = d.values[k]
		}
		for _, d := range ds {
			if d.follow == "" && len(d.values) == 1 {
				pt[d.name] = d.values[0]
			}
		}
		for _, d := range ds {
			if d.follow != "" {
				pt[d.name] = pt[d.follow]
			}
		}
		sw.Points = append(sw.Points, pt)
	}
	return sw, nil
}

func isName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// parseValues parses one size or a range LO:HI[:xF | :+S].
func parseValues(s string) ([]int64, error) {
	parts := strings.Split(s, ":")
	if len(parts) == 1 {
		v, err := parseSize(s)
		if err != nil {
			return nil, err
		}
		return []int64{v}, nil
	}
	if len(parts) > 3 {
		return nil, fmt.Errorf("%q: a range is LO:HI, LO:HI:xF or LO:HI:+S", s)
	}
	lo, err := parseSize(parts[0])
	if err != nil {
		return nil, err
	}
	hi, err := parseSize(parts[1])
	if err != nil {
		return nil, err
	}
	if hi < lo {
		return nil, fmt.Errorf("%q: the range ends below its start", s)
	}
	step := "x2"
	if len(parts) == 3 {
		step = parts[2]
	}
	var out []int64
	switch {
	case strings.HasPrefix(step, "x") || strings.HasPrefix(step, "*"):
		f, err := strconv.ParseInt(step[1:], 10, 64)
		if err != nil || f < 2 {
			return nil, fmt.Errorf("%q: the factor of a geometric range is an integer of at least 2", s)
		}
		if lo == 0 {
			return nil, fmt.Errorf("%q: a geometric range starts above 0", s)
		}
		for v := lo; v <= hi; v *= f {
			out = append(out, v)
			if v > math.MaxInt64/f {
				break
			}
		}
	case strings.HasPrefix(step, "+"):
		d, err := strconv.ParseInt(step[1:], 10, 64)
		if err != nil || d < 1 {
			return nil, fmt.Errorf("%q: the step of an arithmetic range is a positive integer", s)
		}
		// Counted before it is built: 0:2147483647:+1 is 2^31 values.
		if n := (hi-lo)/d + 1; n > maxSweepValues {
			return nil, fmt.Errorf("%q: %d values, more than the %d a sweep may have", s, n, maxSweepValues)
		}
		for v := lo; v <= hi; v += d {
			out = append(out, v)
		}
	default:
		return nil, fmt.Errorf("%q: the step is xF (geometric) or +S (arithmetic)", s)
	}
	return out, nil
}

// maxSweepValues bounds the values of one dim, and the shapes of a sweep:
// a sweep that long is a mistake, and its points are built in memory.
const maxSweepValues = 10000

// checkSweepValues bounds the values a dim has so far, over all its items.
func checkSweepValues(name string, vs []int64) error {
	if len(vs) > maxSweepValues {
		return fmt.Errorf("--shape %s: %d values, more than the %d a sweep may have", name, len(vs), maxSweepValues)
	}
	return nil
}

// parseSize parses a dim: a non-negative integer that fits the i32 kernels
// index arrays with, also written as an exact float (1e6).
func parseSize(s string) (int64, error) {
	n, err := strconv.ParseInt(s, 0, 64)
	if err != nil {
		x, ferr := strconv.ParseFloat(s, 64)
		if ferr != nil || x != math.Trunc(x) || x < 0 || x > math.MaxInt32 {
			return 0, fmt.Errorf("%q is not a size (a non-negative integer of at most %d)", s, math.MaxInt32)
		}
		n = int64(x)
	}
	if n < 0 || n > math.MaxInt32 {
		return 0, fmt.Errorf("%d is not a size (array dims are i32 in kernels: 0 to %d)", n, math.MaxInt32)
	}
	return n, nil
}

// Label names a point by its swept dims ("4096x4096", or "M=4096" for one
// dim), or by all its dims when none is swept.
func (s *Sweep) Label(pt map[string]int64) string {
	return PointLabel(s.Swept, pt)
}

// PointLabel is Sweep.Label for the dims names.
func PointLabel(names []string, pt map[string]int64) string {
	if len(names) == 0 {
		return ""
	}
	if len(names) == 1 {
		return fmt.Sprintf("%s=%d", names[0], pt[names[0]])
	}
	// Dims that follow another one show once.
	var parts []string
	var shown []string
	for _, n := range names {
		parts = append(parts, strconv.FormatInt(pt[n], 10))
		shown = append(shown, n)
	}
	all := true
	for _, p := range parts[1:] {
		if p != parts[0] {
			all = false
		}
	}
	if all {
		return strings.Join(shown, "=") + "=" + parts[0]
	}
	return strings.Join(parts, "x")
}
