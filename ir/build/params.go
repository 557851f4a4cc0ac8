package build

// The parameter list of a kernel as its launchers see it: which
// parameters are compile-time constants (and of what kind), which take
// arrays or scalars. The host launch function (package host) uses it to
// route ct.launch's positional arguments: constants to Options.Consts,
// the rest to the launch.

import "github.com/tilec/tilec/lang"

// ParamKind classifies a kernel parameter.
type ParamKind int

const (
	// ParamConst is `name: ct.Constant[int|float|bool|ct.DType]`.
	ParamConst ParamKind = iota
	// ParamArray is `A: ct.Array[...]`.
	ParamArray
	// ParamScalar is `x: float`, `n: int`, `x: ct.Scalar[...]`.
	ParamScalar
	// ParamTyped is an unannotated parameter: an array or a scalar,
	// whichever its launch argument is.
	ParamTyped
)

// KernelParam is one parameter of a kernel, in declaration order.
type KernelParam struct {
	Name string
	Pos  lang.Pos
	Kind ParamKind
	// ConstKind is "int", "float", "bool" or "dtype" for a ParamConst
	// ("" when the annotation is malformed: building reports it).
	ConstKind string
	// HasDefault is set when the parameter declares a default value.
	HasDefault bool
}

// KernelParams returns every parameter of the named kernel of file, with
// annotation aliases (`ConstInt = ct.Constant[int]`) resolved. The error
// is a lang.ErrorList when the file has no such kernel.
func KernelParams(file *lang.File, kernel string) ([]KernelParam, error) {
	b := &builder{file: file, src: file.Src}
	if b.src == nil {
		b.src = &lang.Source{}
	}
	b.collectModule()
	b.errs = nil // the module's own errors are reported when a kernel is built
	var def *lang.FuncDef
	for _, d := range b.order {
		if b.kernels[d] && d.Name == kernel {
			def = d
		}
	}
	if def == nil {
		b.errorf(lang.Pos{File: b.src.Name, Line: 1, Col: 1}, "%s", b.noKernelNamed(kernel))
		return nil, b.errs
	}
	var out []KernelParam
	for _, p := range def.Params {
		kp := KernelParam{Name: p.Name, Pos: p.Pos, HasDefault: p.Default != nil, Kind: ParamScalar}
		switch s, _ := b.resolveAnnot(p.Annot).(*lang.Subscript); {
		case p.Annot == nil:
			kp.Kind = ParamTyped
		case s != nil && b.moduleAttr(s.X) == "Constant":
			kp.Kind = ParamConst
			switch k := s.Index.(type) {
			case *lang.Name:
				if k.Name == "int" || k.Name == "float" || k.Name == "bool" {
					kp.ConstKind = k.Name
				}
			case *lang.Attr:
				if b.moduleAttr(k) == "DType" {
					kp.ConstKind = "dtype"
				}
			}
		case s != nil && b.moduleAttr(s.X) == "Array":
			kp.Kind = ParamArray
		}
		out = append(out, kp)
	}
	return out, nil
}
