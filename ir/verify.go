package ir

// This file checks the IR's invariants: structure (operand, result and
// region counts from the op table, terminators, back-pointers, unique IDs),
// SSA dominance, each instruction's results against its op's typing rule
// (OpInfo.Infer, infer.go), and regions against their ops. Passes run it
// after every step in tests; the builder's output must always pass it.

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Verify checks f and returns the first violation found, naming the kernel
// and printing the offending instruction.
func Verify(f *Func) error {
	if f == nil {
		return errors.New("ir: nil kernel")
	}
	v := &irVerifier{f: f, ids: map[int]*Value{}, scope: map[*Value]bool{}}
	v.fn()
	return v.err
}

// VerifyModule verifies every kernel of m and checks that their names differ.
func VerifyModule(m *Module) error {
	seen := map[string]bool{}
	for _, f := range m.Funcs {
		if err := Verify(f); err != nil {
			return err
		}
		if seen[f.Name] {
			return fmt.Errorf("ir: kernel @%s defined twice", f.Name)
		}
		seen[f.Name] = true
	}
	return nil
}

type irVerifier struct {
	f   *Func
	err error
	// ids maps each ID to the one value that carries it.
	ids map[int]*Value
	// scope holds the values visible at the current point.
	scope map[*Value]bool
}

// errorf records the first error, about the kernel as a whole.
func (v *irVerifier) errorf(format string, args ...any) {
	if v.err == nil {
		v.err = fmt.Errorf("ir: kernel @%s: %s", v.f.Name, fmt.Sprintf(format, args...))
	}
}

// instrErrorf records the first error, about one instruction.
func (v *irVerifier) instrErrorf(in *Instr, format string, args ...any) {
	if v.err == nil {
		v.err = fmt.Errorf("ir: kernel @%s: `%s`: %s", v.f.Name, in, fmt.Sprintf(format, args...))
	}
}

func (v *irVerifier) fn() {
	f := v.f
	if !isTextIdent(f.Name) {
		v.errorf("kernel name %q is not an identifier", f.Name)
	}
	if f.Body == nil {
		v.errorf("no body")
		return
	}
	if f.Body.Parent != nil {
		v.errorf("body block has a parent instruction")
	}
	v.params()
	if v.err != nil {
		return
	}
	v.consts()
	v.grid()
	if msg := f.Facts.check(); msg != "" {
		v.errorf("%s", msg)
	}
	if v.err != nil {
		return
	}
	v.block(f.Body, nil)
	if v.err == nil {
		v.warpUniformUses()
	}
}

// warpUniformUses checks where the warp-uniform results of vote_all go:
// only to the condition of an if whose results are register tiles (rank
// 1 or more: values each thread holds its own part of) and whose arms hold
// only pure ops and structured control flow. A barrier or an exchange
// through shared memory in such an arm would wait for warps that took the
// other arm; a store, an atomic or a scalar result would let a warp's
// vote be seen beyond the warp.
func (v *irVerifier) warpUniformUses() {
	v.f.Body.Walk(func(in *Instr) {
		for i, a := range in.Args {
			if v.err != nil || a.Def == nil || a.Def.Op != OpVoteAll {
				continue
			}
			if in.Op != OpIf || i != 0 {
				v.instrErrorf(in, "%v is warp-uniform (vote_all): only an if may branch on it", a)
				return
			}
			for _, r := range in.Results {
				if t, ok := r.Type.(*Tile); !ok || len(t.Shape) == 0 {
					v.instrErrorf(in, "an if on a warp-uniform vote_all yields %v: its results must be tiles of rank 1 or more", r.Type)
					return
				}
			}
			for _, b := range in.Regions {
				b.Walk(func(x *Instr) {
					info := x.Op.Info()
					switch {
					case v.err != nil:
					case x.Op == OpYield || x.Op == OpIf || x.Op == OpFor || x.Op == OpWhile:
					case info.SideEffect || info.Shared != SharedNone:
						v.instrErrorf(in, "an arm of an if on a warp-uniform vote_all holds `%s`: only pure ops without shared memory may run in one warp's branch", x)
					}
				})
			}
		}
	})
}

func (v *irVerifier) params() {
	f := v.f
	if len(f.Params) != len(f.Body.Params) {
		v.errorf("%d parameters but the body block has %d", len(f.Params), len(f.Body.Params))
		return
	}
	names := map[string]bool{}
	for i, prm := range f.Params {
		if prm == nil || prm.Value == nil {
			v.errorf("parameter %d is nil", i)
			return
		}
		if prm.Value != f.Body.Params[i] {
			v.errorf("parameter %s is not body parameter %d", prm.Name, i)
		}
		if prm.Name != "" {
			if names[prm.Name] {
				v.errorf("parameter name %s repeated", prm.Name)
			}
			names[prm.Name] = true
		}
		if !TypesEqual(prm.Type, prm.Value.Type) {
			v.errorf("parameter %s has type %v but its value %v has %v", prm.Name, prm.Type, prm.Value, prm.Value.Type)
		}
		switch t := prm.Type.(type) {
		case *Array:
			if len(prm.Dims) != 0 && len(prm.Dims) != t.Rank {
				v.errorf("parameter %s: %d dims declared for %v", prm.Name, len(prm.Dims), t)
			}
			for _, d := range prm.Dims {
				if d.Sym == "" && d.Size < 0 || d.Sym != "" && !isTextIdent(d.Sym) {
					v.errorf("parameter %s: bad dim %q", prm.Name, d.String())
				}
			}
		case *Scalar:
			if len(prm.Dims) != 0 {
				v.errorf("scalar parameter %s has dims", prm.Name)
			}
		case *ArrayList:
			// Each element has extents of its own, read with dim.
			if len(prm.Dims) != 0 {
				v.errorf("list parameter %s has dims", prm.Name)
			}
		default:
			v.errorf("parameter %s has type %v, want an array or a scalar", prm.Name, prm.Type)
		}
	}
}

func (v *irVerifier) consts() {
	seen := map[string]bool{}
	for _, c := range v.f.Consts {
		if !isTextIdent(c.Name) {
			v.errorf("constant name %q is not an identifier", c.Name)
		}
		if seen[c.Name] {
			v.errorf("constant %s repeated", c.Name)
		}
		seen[c.Name] = true
		switch x := c.Value.(type) {
		case int64, float64, bool:
		case DType:
			if !dtypeValid(x) {
				v.errorf("constant %s has invalid dtype %v", c.Name, x)
			}
		default:
			v.errorf("constant %s has value %v of type %T, want int64, float64, bool or DType", c.Name, c.Value, c.Value)
		}
	}
}

func (v *irVerifier) grid() {
	syms := map[string]bool{}
	for _, prm := range v.f.Params {
		for _, d := range prm.Dims {
			if d.Sym != "" {
				syms[d.Sym] = true
			}
		}
	}
	for _, c := range v.f.Consts {
		syms[c.Name] = true
	}
	var check func(e *HostExpr) string
	check = func(e *HostExpr) string {
		if e == nil {
			return "nil subexpression"
		}
		switch e.Op {
		case HostConst:
			if len(e.Args) != 0 {
				return "constant with operands"
			}
			return ""
		case HostSym:
			if len(e.Args) != 0 {
				return "symbol with operands"
			}
			if !syms[e.Sym] {
				return fmt.Sprintf("unknown dimension %q", e.Sym)
			}
			return ""
		case HostAdd, HostSub, HostMul, HostFloorDiv, HostMod, HostCdiv, HostMin, HostMax:
			if len(e.Args) != 2 {
				return fmt.Sprintf("operator with %d operands", len(e.Args))
			}
			for _, a := range e.Args {
				if msg := check(a); msg != "" {
					return msg
				}
			}
			return ""
		}
		return fmt.Sprintf("unknown operator %d", e.Op)
	}
	for i, e := range v.f.Grid {
		if e == nil {
			continue
		}
		if msg := check(e); msg != "" {
			v.errorf("grid axis %d: %s in %s", i, msg, formatHostExpr(e))
		}
	}
}

// define checks a value's type and ID and puts it in scope.
func (v *irVerifier) define(x *Value, what string) bool {
	if other, ok := v.ids[x.ID]; ok {
		if other == x {
			v.errorf("%s %v defined twice", what, x)
		} else {
			v.errorf("%s %v: ID used by two values", what, x)
		}
		return false
	}
	v.ids[x.ID] = x
	if x.ID < 0 || x.ID >= v.f.nextID && v.f.nextID > 0 {
		v.errorf("%s %v: ID out of range [0, %d)", what, x, v.f.nextID)
		return false
	}
	if msg := verifyType(x.Type); msg != "" {
		v.errorf("%s %v: %s", what, x, msg)
		return false
	}
	v.scope[x] = true
	return true
}

// block checks b, whose required terminator is term (OpReturn for the body,
// OpYield for regions; nil parent means the body).
func (v *irVerifier) block(b *Block, parent *Instr) {
	for i, p := range b.Params {
		if p == nil {
			v.errorf("nil block parameter")
			return
		}
		if p.Def != nil || p.Block != b || p.Index != i {
			v.errorf("block parameter %v has inconsistent Def/Block/Index", p)
			return
		}
		if !v.define(p, "block parameter") {
			return
		}
	}
	defer func() {
		for _, p := range b.Params {
			delete(v.scope, p)
		}
		for _, in := range b.Instrs {
			if in != nil {
				for _, r := range in.Results {
					delete(v.scope, r)
				}
			}
		}
	}()
	want := OpYield
	if parent == nil {
		want = OpReturn
	}
	if len(b.Instrs) == 0 {
		if parent == nil {
			v.errorf("empty body: it must end with return")
		} else {
			v.instrErrorf(parent, "empty region: it must end with yield")
		}
		return
	}
	for i, in := range b.Instrs {
		if in == nil {
			v.errorf("nil instruction")
			return
		}
		if in.Block != b {
			v.instrErrorf(in, "instruction's Block is not the block holding it")
			return
		}
		last := i == len(b.Instrs)-1
		switch {
		case in.Op.Info().Terminator && !last:
			v.instrErrorf(in, "terminator before the end of its block")
		case last && in.Op != want:
			v.instrErrorf(in, "block must end with %s", want)
		}
		if v.err != nil {
			return
		}
		v.instr(in, parent)
		if v.err != nil {
			return
		}
	}
}

func (v *irVerifier) instr(in *Instr, parent *Instr) {
	info := in.Op.Info()
	if in.Op == OpInvalid || in.Op >= NumOps {
		v.instrErrorf(in, "invalid op %d", in.Op)
		return
	}
	if info.NumArgs >= 0 && len(in.Args) != info.NumArgs {
		v.instrErrorf(in, "%s takes %d operands, has %d", in.Op, info.NumArgs, len(in.Args))
		return
	}
	if len(in.Regions) != info.NumRegions {
		v.instrErrorf(in, "%s takes %d regions, has %d", in.Op, info.NumRegions, len(in.Regions))
		return
	}
	if msg := checkAttrs(in); msg != "" {
		v.instrErrorf(in, "%s", msg)
		return
	}
	for i, a := range in.Args {
		if a == nil {
			v.instrErrorf(in, "operand %d is nil", i)
			return
		}
		if !v.scope[a] {
			if v.ids[a.ID] != a {
				v.instrErrorf(in, "operand %v is not defined in this kernel before its use", a)
			} else {
				v.instrErrorf(in, "operand %v does not dominate its use", a)
			}
			return
		}
	}
	for i, r := range in.Results {
		if r == nil {
			v.instrErrorf(in, "result %d is nil", i)
			return
		}
		if r.Def != in || r.Index != i || r.Block != nil {
			v.instrErrorf(in, "result %v has inconsistent Def/Block/Index", r)
			return
		}
	}
	for _, r := range in.Regions {
		if r == nil {
			v.instrErrorf(in, "nil region")
			return
		}
		if r.Parent != in {
			v.instrErrorf(in, "region's Parent is not the instruction")
			return
		}
	}
	if in.Op == OpYield && (parent == nil || in.Block.Parent == nil) {
		v.instrErrorf(in, "yield outside a for or if region")
		return
	}

	// The op's own rules; region contents are checked after, with the
	// region's parameters in scope.
	if msg := v.typing(in); msg != "" {
		v.instrErrorf(in, "%s", msg)
		return
	}
	for _, r := range in.Regions {
		v.block(r, in)
		if v.err != nil {
			return
		}
	}
	for _, r := range in.Results {
		if !v.define(r, "result") {
			return
		}
	}
}

func dtypeValid(d DType) bool { return d > InvalidDType && d < numDTypes }

// verifyType checks a value's type for well-formedness: a valid dtype and
// tile dims that are positive powers of two.
func verifyType(t Type) string {
	switch t := t.(type) {
	case *Scalar:
		if t == nil || !dtypeValid(t.DType) {
			return "invalid scalar type"
		}
	case *Tile:
		if t == nil || !dtypeValid(t.DType) {
			return "invalid tile dtype"
		}
		for _, d := range t.Shape {
			if d <= 0 || d&(d-1) != 0 {
				return fmt.Sprintf("tile dimension %d of %v is not a positive power of two", d, t)
			}
		}
	case *Array:
		if t == nil || !dtypeValid(t.DType) || t.Rank < 0 {
			return "invalid array type"
		}
	case *ArrayList:
		if t == nil || !dtypeValid(t.DType) || t.Rank < 1 {
			return "invalid list type"
		}
	default:
		return "missing type"
	}
	return ""
}

// ValueShape returns the shape of a scalar (nil, rank 0) or tile, and false for arrays.
func ValueShape(t Type) ([]int, bool) {
	switch t := t.(type) {
	case *Scalar:
		return nil, true
	case *Tile:
		return t.Shape, true
	}
	return nil, false
}

// checkAttrs checks in's attributes against their declarations (attrs.go):
// sorted unique keys, each declared for the op, each value of its kind,
// the required ones present, and a layout fit for the tile it describes.
func checkAttrs(in *Instr) string {
	for i, a := range in.Attrs {
		if i > 0 && in.Attrs[i-1].Key >= a.Key {
			return "attributes not sorted by key, or repeated"
		}
		spec := AttrSpecOf(in.Op, a.Key)
		if spec == nil {
			return fmt.Sprintf("unknown attribute %s on %s", a.Key, in.Op)
		}
		if msg := spec.check(a.Val); msg != "" {
			return msg
		}
		if l, ok := a.Val.(*Layout); ok {
			var t *Tile
			if len(in.Results) == 1 && in.Results[0] != nil {
				t, _ = in.Results[0].Type.(*Tile)
			}
			if t == nil {
				return fmt.Sprintf("attribute %s on an instruction that does not define one tile", a.Key)
			}
			if msg := l.check(t.Shape); msg != "" {
				return fmt.Sprintf("attribute %s: %s", a.Key, msg)
			}
		}
	}
	for _, s := range in.Op.Info().Attrs {
		if !s.Optional && in.Attrs.Get(s.Name) == nil {
			return fmt.Sprintf("missing attribute %s", s.Name)
		}
	}
	return ""
}

// typing checks the instruction's results against its op's typing rule
// (OpInfo.Infer), and its regions against the op's results and operands;
// it returns a message or "".
func (v *irVerifier) typing(in *Instr) string {
	// Every value here is in scope, hence has a checked type.
	info := in.Op.Info()
	nres := info.NumResults // -1: the typing rule's count, checked below
	if nres >= 0 && len(in.Results) != nres {
		return fmt.Sprintf("%s has %d results, want %d", in.Op, len(in.Results), nres)
	}
	if nres == 1 {
		if msg := verifyType(in.Results[0].Type); msg != "" {
			return fmt.Sprintf("result %v: %s", in.Results[0], msg)
		}
	}
	want, msg := info.Infer(in)
	if msg != "" {
		return msg
	}
	if len(in.Results) != len(want) {
		return fmt.Sprintf("%s has %d results, want %d", in.Op, len(in.Results), len(want))
	}
	for i, t := range want {
		if !TypesEqual(in.Results[i].Type, t) {
			return fmt.Sprintf("result %v, want %v", in.Results[i].Type, t)
		}
	}
	return verifyRegions(in)
}

// verifyRegions checks the parameters and yields of an op's regions
// against its operands and results (the typing rule has checked those).
func verifyRegions(in *Instr) string {
	a := in.Args
	switch in.Op {
	case OpFor:
		iv, inits := a[0].Type, a[3:]
		body := in.Regions[0]
		if len(body.Params) != 1+len(inits) {
			return fmt.Sprintf("body has %d parameters, want %d (the induction variable and one per carried value)", len(body.Params), 1+len(inits))
		}
		for i, p := range body.Params {
			want := iv
			if i > 0 {
				want = inits[i-1].Type
			}
			if p == nil || !TypesEqual(p.Type, want) {
				return fmt.Sprintf("body parameter %d has type %v, want %v", i, typeOrNil(p), want)
			}
		}
		return verifyYield(body, inits)

	case OpWhile:
		for ri, r := range in.Regions {
			if len(r.Params) != len(a) {
				return fmt.Sprintf("region %d has %d parameters, want %d (one per carried value)", ri, len(r.Params), len(a))
			}
			for i, p := range r.Params {
				if p == nil || !TypesEqual(p.Type, a[i].Type) {
					return fmt.Sprintf("region %d parameter %d has type %v, want %v", ri, i, typeOrNil(p), a[i].Type)
				}
			}
		}
		cond := in.Regions[0]
		if n := len(cond.Instrs); n > 0 && cond.Instrs[n-1] != nil && cond.Instrs[n-1].Op == OpYield {
			y := cond.Instrs[n-1]
			if len(y.Args) != 1 || y.Args[0] == nil || !TypesEqual(y.Args[0].Type, ScalarOf(Bool)) && !TypesEqual(y.Args[0].Type, TileOf(Bool)) {
				return "the condition region must yield one bool scalar or rank-0 bool tile"
			}
		}
		return verifyYield(in.Regions[1], a)

	case OpIf:
		for i, r := range in.Regions {
			if len(r.Params) != 0 {
				return fmt.Sprintf("region %d has parameters", i)
			}
			if msg := verifyYield(r, in.Results); msg != "" {
				return msg
			}
		}

	case OpReduceFn, OpScanFn:
		// The combiner: 2N rank-0 tile parameters, N yielded.
		n := len(a) / 2
		body := in.Regions[0]
		if len(body.Params) != 2*n {
			return fmt.Sprintf("region has %d parameters, want %d", len(body.Params), 2*n)
		}
		elems := make([]*Value, n)
		for i := range elems {
			e := TileOf(a[i].Type.Elem())
			for _, p := range []*Value{body.Params[i], body.Params[n+i]} {
				if p == nil || !TypesEqual(p.Type, e) {
					return fmt.Sprintf("region parameter %v has type %v, want %v", p, typeOrNil(p), e)
				}
			}
			elems[i] = &Value{Type: e}
		}
		return verifyYield(body, elems)
	}
	return ""
}

func typeOrNil(v *Value) Type {
	if v == nil {
		return nil
	}
	return v.Type
}

// IsTileType reports whether t is a tile (not a scalar or an array).
func IsTileType(t Type) bool {
	_, ok := t.(*Tile)
	return ok
}

// verifyYield checks that region r ends in a yield of values of the given types.
func verifyYield(r *Block, want []*Value) string {
	if len(r.Instrs) == 0 || r.Instrs[len(r.Instrs)-1] == nil || r.Instrs[len(r.Instrs)-1].Op != OpYield {
		return "" // the region's block check reports it, naming the instruction
	}
	y := r.Instrs[len(r.Instrs)-1]
	if len(y.Args) != len(want) {
		return fmt.Sprintf("region yields %d values, want %d", len(y.Args), len(want))
	}
	for i, x := range y.Args {
		w := want[i]
		if x == nil || w == nil || !TypesEqual(x.Type, w.Type) {
			return fmt.Sprintf("region yields %v of type %v, want %v", x, typeOrNil(x), typeOrNil(w))
		}
	}
	return ""
}

// verifyMMA checks acc + a@b: shapes (M,K)x(K,N)+(M,N), or batched with one
// batch extent, and the dtype pairs of docs/language.md.
func verifyMMA(at, bt, ct, res Type) string {
	a, ok1 := at.(*Tile)
	b, ok2 := bt.(*Tile)
	c, ok3 := ct.(*Tile)
	if !ok1 || !ok2 || !ok3 {
		return fmt.Sprintf("mma of %v, %v, %v, want tiles", at, bt, ct)
	}
	if !TypesEqual(c, res) {
		return fmt.Sprintf("accumulator %v, want the result type %v", c, res)
	}
	r := a.Rank()
	if (r != 2 && r != 3) || b.Rank() != r || c.Rank() != r {
		return fmt.Sprintf("mma ranks %d, %d, %d, want all 2 or all 3", a.Rank(), b.Rank(), c.Rank())
	}
	if r == 3 && (a.Shape[0] != b.Shape[0] || a.Shape[0] != c.Shape[0]) {
		return fmt.Sprintf("mma batch extents %d, %d, %d differ", a.Shape[0], b.Shape[0], c.Shape[0])
	}
	m, k := a.Shape[r-2], a.Shape[r-1]
	k2, n := b.Shape[r-2], b.Shape[r-1]
	if k != k2 || c.Shape[r-2] != m || c.Shape[r-1] != n {
		return fmt.Sprintf("mma shapes %v x %v + %v do not match (M,K)x(K,N)+(M,N)", tileShapeString(a), tileShapeString(b), tileShapeString(c))
	}
	f32ish := func(d DType) bool { return d == F32 || d == TF32 }
	ok := false
	switch {
	case a.DType == F16 && b.DType == F16:
		ok = c.DType == F32 || c.DType == F16
	case a.DType == BF16 && b.DType == BF16:
		ok = c.DType == F32
	case f32ish(a.DType) && f32ish(b.DType):
		ok = c.DType == F32
	case a.DType == F64 && b.DType == F64:
		ok = c.DType == F64
	case a.DType.IsFloat8() && b.DType.IsFloat8():
		// Exact products (at most 4 significant bits each), summed in the
		// accumulator's dtype.
		ok = c.DType == F32 || c.DType == F16
	case a.DType.IsByteInt() && b.DType.IsByteInt():
		// int8 and uint8, mixed or not (cuTile's one exception to equal
		// input dtypes): exact products summed in int32, wrapping.
		ok = c.DType == I32
	}
	if !ok {
		return fmt.Sprintf("mma of %v x %v into %v is not supported", a.DType, b.DType, c.DType)
	}
	return ""
}

func tileShapeString(t *Tile) string {
	s := make([]string, len(t.Shape))
	for i, d := range t.Shape {
		s[i] = fmt.Sprint(d)
	}
	return "(" + strings.Join(s, ",") + ")"
}

// verifyIndexed checks gather, scatter, atomic_rmw and atomic_cas: the
// array, one integer index tile per axis of the index shape, the value
// operands (of the array's dtype and the index shape) and the optional
// bool mask of gather and scatter; it returns the type of the values
// (gather's and the atomics' result).
func verifyIndexed(in *Instr) (Type, string) {
	a := in.Args
	if len(a) < 1 {
		return nil, fmt.Sprintf("%s needs an array", in.Op)
	}
	arr, ok := a[0].Type.(*Array)
	if !ok {
		return nil, fmt.Sprintf("operand %v has type %v, want an array", a[0], a[0].Type)
	}
	nvals := map[Op]int{OpGather: 1, OpScatter: 1, OpAtomicRMW: 1, OpAtomicCAS: 2}[in.Op]
	n := len(a) - 1 - arr.Rank - nvals
	if n < 0 || n > 1 || n == 1 && in.Op != OpGather && in.Op != OpScatter {
		return nil, fmt.Sprintf("%s on a rank-%d array has %d operands", in.Op, arr.Rank, len(a))
	}
	if arr.Rank == 0 {
		return nil, fmt.Sprintf("%s on a rank-0 array", in.Op)
	}
	idx, ok := a[1].Type.(*Tile)
	if !ok {
		return nil, fmt.Sprintf("index %v has type %v, want an integer tile", a[1], a[1].Type)
	}
	shape := idx.Shape
	for _, x := range a[1 : 1+arr.Rank] {
		t, ok := x.Type.(*Tile)
		if !ok || !t.DType.IsInt() || !slices.Equal(t.Shape, shape) {
			return nil, fmt.Sprintf("index %v has type %v, want an integer tile of shape %s", x, x.Type, tileShapeString(idx))
		}
	}
	want := TileOf(arr.DType, shape...)
	for _, x := range a[1+arr.Rank : 1+arr.Rank+nvals] {
		if !TypesEqual(x.Type, want) {
			return nil, fmt.Sprintf("operand %v has type %v, want %v", x, x.Type, want)
		}
	}
	if n == 1 {
		if m := a[len(a)-1]; !TypesEqual(m.Type, WithElem(want, Bool)) {
			return nil, fmt.Sprintf("mask %v has type %v, want %v", m, m.Type, WithElem(want, Bool))
		}
	}
	switch in.Op {
	case OpAtomicCAS, OpAtomicRMW:
		if msg := atomicDTypeMsg(in.Op == OpAtomicCAS, in.Attrs.Str(AttrKeyKind), arr.DType); msg != "" {
			return nil, msg
		}
	}
	return want, ""
}

// atomicDTypeMsg says why an atomic (cas, or rmw of kind) cannot update
// an array of dtype d, or "" when it can.
func atomicDTypeMsg(cas bool, kind string, d DType) string {
	switch {
	case cas:
		if !AtomicDType(d, true) {
			return fmt.Sprintf("atomic_cas on %v, want i32, i64, u32, u64, f32 or f64", d)
		}
	case kind == AtomicXchg:
		if !AtomicDType(d, true) {
			return fmt.Sprintf("atomic_rmw xchg on %v, want i32, i64, u32, u64, f32 or f64", d)
		}
	case kind == AtomicAdd:
		if !AtomicDType(d, true) && d != F16 && d != BF16 {
			return fmt.Sprintf("atomic_rmw add on %v, want i32, i64, u32, u64, f16, bf16, f32 or f64", d)
		}
	default:
		if !AtomicDType(d, false) {
			return fmt.Sprintf("atomic_rmw %s on %v, want i32, i64, u32 or u64", kind, d)
		}
	}
	return ""
}

// AtomicDType reports whether the atomics support d: 32- and 64-bit
// integers, and with floats f32 and f64.
func AtomicDType(d DType, floats bool) bool {
	switch d {
	case I32, I64, U32, U64:
		return true
	case F32, F64:
		return floats
	}
	return false
}

// PrintfConversions counts the conversions of a printf format (%%
// excepted): %[flags][width][.precision][length]specifier with specifier
// one of diuoxXeEfFgGaA; anything else is an error message.
func PrintfConversions(f string) (int, string) {
	n := 0
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			continue
		}
		j := i + 1
		if j < len(f) && f[j] == '%' {
			i = j
			continue
		}
		for j < len(f) && strings.IndexByte("-+ #0", f[j]) >= 0 {
			j++
		}
		for j < len(f) && (f[j] >= '0' && f[j] <= '9' || f[j] == '.') {
			j++
		}
		for j < len(f) && strings.IndexByte("hlLqjzt", f[j]) >= 0 {
			j++
		}
		if j >= len(f) || strings.IndexByte("diuoxXeEfFgGaA", f[j]) < 0 {
			return 0, fmt.Sprintf("format %q: conversion at byte %d is not %%[flags][width][.precision][length] and one of diuoxXeEfFgGaA", f, i)
		}
		n++
		i = j
	}
	return n, ""
}
