package build

// Unannotated kernel parameters, as cuTile writes them
// (`def matmul_kernel(A, B, C, tm: ConstInt, ...)`): an array or scalar
// whose dtype and rank come from the launch arguments. The builder takes
// them from Options.Args; the kernel is specialized on that signature
// (runtime.Kernel caches one build per signature).

import (
	"fmt"
	"strings"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/lang"
)

// ArgSig is the launch signature of one unannotated parameter: an array's
// dtype and dims (one per axis, each a symbol bound at launch or a fixed
// size), or a scalar's dtype (Dims nil).
type ArgSig struct {
	DType ir.DType
	Dims  []ir.Dim
	// Elems, for a list of arrays (cuTile's List[Array]), are its
	// elements' signatures: one or more arrays of one dtype and rank
	// (DType is theirs, Dims nil). The kernel sees the dtype and rank;
	// the length and each element's extents are fixed at launch.
	Elems []ArgSig
}

// IsArray reports whether the signature is an array's.
func (s ArgSig) IsArray() bool { return s.Dims != nil }

// IsList reports whether the signature is a list of arrays'.
func (s ArgSig) IsList() bool { return s.Elems != nil }

// String is the signature as `tilec --arg` writes it: f16[M,K], f32[M,64],
// i32, [f16[M0,K],f16[M1,K]].
func (s ArgSig) String() string {
	if s.IsList() {
		parts := make([]string, len(s.Elems))
		for i, e := range s.Elems {
			parts[i] = e.String()
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	if !s.IsArray() {
		return s.DType.String()
	}
	parts := make([]string, len(s.Dims))
	for i, d := range s.Dims {
		parts[i] = d.String()
	}
	return s.DType.String() + "[" + strings.Join(parts, ",") + "]"
}

// ListKey is what a kernel built for a list signature depends on: the
// elements' dtype and rank, not the list's length or their dims.
func (s ArgSig) ListKey() string {
	return fmt.Sprintf("list<%s,%d>", s.DType, len(s.Elems[0].Dims))
}

// ParseArgSig reads `f16[M,K]`, `float32[M, 64]`, a scalar's `f32`, `i32`,
// or a list of arrays `[f16[M0,K], f16[M1,K]]` (cuTile's rule: at least one
// array, all of one dtype and rank).
func ParseArgSig(s string) (ArgSig, error) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "[") {
		return parseListSig(s)
	}
	dtName, dims, isArray := strings.Cut(s, "[")
	dt, ok := parseDTypeName(strings.TrimSpace(dtName))
	if !ok {
		return ArgSig{}, fmt.Errorf("%q is not a dtype (e.g. f16, bf16, f32, i32)", strings.TrimSpace(dtName))
	}
	if !isArray {
		return ArgSig{DType: dt}, nil
	}
	if !strings.HasSuffix(dims, "]") {
		return ArgSig{}, fmt.Errorf("%q: the dims end with ]", s)
	}
	dims = strings.TrimSuffix(dims, "]")
	sig := ArgSig{DType: dt, Dims: []ir.Dim{}}
	for _, d := range strings.Split(dims, ",") {
		d = strings.TrimSpace(d)
		var n int64
		if _, err := fmt.Sscanf(d, "%d", &n); err == nil && fmt.Sprint(n) == d {
			if n < 0 {
				return ArgSig{}, fmt.Errorf("%q: dimension %d is negative", s, n)
			}
			sig.Dims = append(sig.Dims, ir.Dim{Size: n})
			continue
		}
		if !isIdent(d) {
			return ArgSig{}, fmt.Errorf("%q: dimension %q is neither a name nor a non-negative int", s, d)
		}
		sig.Dims = append(sig.Dims, ir.Dim{Sym: d})
	}
	if len(sig.Dims) == 0 {
		return ArgSig{}, fmt.Errorf("%q: an array needs at least one dimension", s)
	}
	return sig, nil
}

// parseListSig reads `[f16[M0,K], f16[M1,K]]`.
func parseListSig(s string) (ArgSig, error) {
	if !strings.HasSuffix(s, "]") || strings.Count(s, "[") != strings.Count(s, "]") {
		return ArgSig{}, fmt.Errorf("%q: a list ends with ] and its brackets match", s)
	}
	inner := strings.TrimSpace(s[1 : len(s)-1])
	if inner == "" {
		return ArgSig{}, fmt.Errorf("%q: empty lists are not supported as kernel arguments (cuTile's rule)", s)
	}
	var items []string
	depth, start := 0, 0
	for i, r := range inner {
		switch r {
		case '[':
			depth++
		case ']':
			depth--
		case ',':
			if depth == 0 {
				items = append(items, inner[start:i])
				start = i + 1
			}
		}
	}
	items = append(items, inner[start:])
	list := ArgSig{Elems: []ArgSig{}}
	for i, it := range items {
		e, err := ParseArgSig(it)
		if err != nil {
			return ArgSig{}, fmt.Errorf("list item #%d: %v", i, err)
		}
		if !e.IsArray() || e.IsList() {
			return ArgSig{}, fmt.Errorf("%q: list item #%d is %s: a list holds arrays", s, i, e)
		}
		if i > 0 {
			first := list.Elems[0]
			if e.DType != first.DType {
				return ArgSig{}, fmt.Errorf("%q: arrays in list vary in data type (%s, then %s at item #%d)", s, first.DType, e.DType, i)
			}
			if len(e.Dims) != len(first.Dims) {
				return ArgSig{}, fmt.Errorf("%q: arrays in list vary in rank (%d, then %d at item #%d)", s, len(first.Dims), len(e.Dims), i)
			}
		}
		list.Elems = append(list.Elems, e)
	}
	list.DType = list.Elems[0].DType
	return list, nil
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_', r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z':
		case r >= '0' && r <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// launchParam is an unannotated kernel parameter.
type launchParam struct{ p *lang.Param }

// launchTypedParam binds an unannotated parameter from Options.Args.
func (b *builder) launchTypedParam(p *lang.Param) {
	sig, ok := b.opts.Args[p.Name]
	if !ok {
		b.missingSigs = append(b.missingSigs, p)
		b.bind(p.Name, poison{}, p.Pos)
		return
	}
	if p.Default != nil {
		b.errorf(p.Default.Position(), "only constant parameters may have defaults (annotate %s with ct.Constant[...])", p.Name)
	}
	if sig.IsList() {
		prm := b.f.AddParam(p.Name, ir.ArrayListOf(sig.DType, len(sig.Elems[0].Dims)), nil)
		b.bind(p.Name, &listVal{name: p.Name, p: prm}, p.Pos)
		return
	}
	if !sig.IsArray() {
		prm := b.f.AddParam(p.Name, ir.ScalarOf(sig.DType), nil)
		b.bind(p.Name, prm.Value, p.Pos)
		return
	}
	dims := append([]ir.Dim(nil), sig.Dims...)
	prm := b.f.AddParam(p.Name, ir.ArrayOf(sig.DType, len(dims)), dims)
	av := paramArray(p.Name, prm)
	b.bind(p.Name, av, p.Pos)
	// The symbols name the dims for the launch and the grid; they are not
	// names in the kernel's scope (the source never wrote them).
	for axis, d := range dims {
		if d.Sym == "" {
			continue
		}
		if _, ok := b.arrays[d.Sym]; !ok {
			b.arrays[d.Sym] = av
			b.symAxis[d.Sym] = axis
		}
	}
}

// reportMissingSigs reports the kernel's unannotated parameters that have
// no launch signature, in one error at the first: leaving out the
// signatures is one mistake, however many parameters it leaves untyped.
func (b *builder) reportMissingSigs() {
	ps := b.missingSigs
	b.missingSigs = nil
	switch len(ps) {
	case 0:
		return
	case 1:
		p := ps[0]
		b.errorf(p.Pos, "parameter %s of kernel %s has no annotation, so its type comes from the launch: give its signature (tilec --arg %s=f16[M,K] for an array, --arg %s=f32 for a scalar; runtime: launch arguments)",
			p.Name, b.kernel.Name, p.Name, p.Name)
		return
	}
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = p.Name
	}
	b.errorf(ps[0].Pos, "parameters %s of kernel %s have no annotation, so their types come from the launch: give their signatures (tilec --arg %s=f16[M,K] for an array, --arg %s=f32 for a scalar; runtime: launch arguments)",
		strings.Join(names, ", "), b.kernel.Name, ps[0].Name, ps[len(ps)-1].Name)
}

// checkArgNames reports Options.Args entries that name no unannotated
// parameter of the kernels being built.
//
// As with -D, one unknown name gives one error, at the first kernel.
func (b *builder) checkArgNames(kernels []*lang.FuncDef) {
	if len(b.opts.Args) == 0 || len(kernels) == 0 || b.fileBroken() {
		return
	}
	names := make([]string, 0, len(b.opts.Args))
	for name := range b.opts.Args {
		names = append(names, name)
	}
	sortStrings(names)
	for _, name := range names {
		found := false
		var annotated *lang.FuncDef
		for _, def := range kernels {
			for _, p := range def.Params {
				if p.Name == name {
					if p.Annot == nil {
						found = true
					} else if annotated == nil {
						annotated = def
					}
				}
			}
		}
		if found {
			continue
		}
		def := kernels[0]
		switch {
		case annotated != nil:
			b.errorf(annotated.NamePos, "--arg %s: parameter %s of kernel %s is annotated; its type comes from the annotation", name, name, annotated.Name)
		case len(kernels) == 1:
			b.errorf(def.NamePos, "--arg %s: kernel %s has no parameter %s", name, def.Name, name)
		default:
			b.errorf(def.NamePos, "--arg %s: none of the kernels (%s) has a parameter %s", name, defNames(kernels), name)
		}
	}
}

// LaunchParam is one parameter that takes a launch argument, in order.
type LaunchParam struct {
	Name string
	// Typed is set when the parameter has no annotation: its signature
	// comes from the argument (Options.Args).
	Typed bool
}

// KernelLaunchParams returns the parameters of a kernel that take launch
// arguments (every parameter but the constants, in order), resolving
// annotation aliases. kernel "" means the file's only kernel. The error is
// a lang.ErrorList.
func KernelLaunchParams(file *lang.File, kernel string) (string, []LaunchParam, error) {
	b := &builder{file: file, src: file.Src}
	if b.src == nil {
		b.src = &lang.Source{}
	}
	b.collectModule()
	var def *lang.FuncDef
	n := 0
	for _, d := range b.order {
		if b.kernels[d] && (kernel == "" || d.Name == kernel) {
			def = d
			n++
		}
	}
	pos := lang.Pos{File: b.src.Name, Line: 1, Col: 1}
	switch {
	case n == 0 && kernel != "":
		b.errorf(pos, "%s", b.noKernelNamed(kernel))
	case n == 0:
		b.errorf(pos, "no kernel (a def decorated with @ct.kernel)")
	case n > 1:
		b.errorf(pos, "several kernels: name one")
	}
	if len(b.errs) > 0 {
		b.errs.Sort()
		return "", nil, b.errs
	}
	var out []LaunchParam
	for _, p := range def.Params {
		if p.Annot == nil {
			out = append(out, LaunchParam{Name: p.Name, Typed: true})
			continue
		}
		if s, ok := b.resolveAnnot(p.Annot).(*lang.Subscript); ok && b.moduleAttr(s.X) == "Constant" {
			continue
		}
		out = append(out, LaunchParam{Name: p.Name})
	}
	return def.Name, out, nil
}
