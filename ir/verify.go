package ir

// This file checks the IR's invariants: structure (operand, result and
// region counts from the op table, terminators, back-pointers, unique IDs),
// SSA dominance, and the typing rules of each op. Passes run it after every
// step in tests; the builder's output must always pass it.

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
	if v.err != nil {
		return
	}
	v.block(f.Body, nil)
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

// typing checks the op's operand, attribute and result types; it returns
// a message or "".
// matrixOf reports whether t is what a TMA copy moves to or from arr: a
// 2-D tile of arr's dtype, the array 2-D or, 3-D or 4-D, one matrix of it
// that the indices before the last two pick.
func matrixOf(t *Tile, arr *Array) bool {
	return t.DType == arr.DType && t.Rank() == 2 && arr.Rank >= 2 && arr.Rank <= 4
}

func (v *irVerifier) typing(in *Instr) string {
	// Every value here is in scope, hence has a checked type.
	nres := 1
	switch in.Op {
	case OpStore, OpYield, OpReturn, OpAsyncCopy, OpAsyncCommit, OpAsyncWait, OpBarrier, OpScatter, OpPrintf, OpAssert,
		OpMbarWait, OpMbarArrive, OpMbarExpect, OpTMALoad, OpWGMMAWait, OpSetMaxRegs, OpTMAStore, OpTMAStoreWait, OpFenceProxyAsync,
		OpClusterSync, OpTMALoadPair:
		nres = 0
	case OpFor:
		nres = max(len(in.Args)-3, 0)
	case OpIf:
		nres = len(in.Results)
	case OpWhile:
		nres = len(in.Args)
	case OpReduceFn, OpScanFn:
		nres = len(in.Args) / 2
	}
	if len(in.Results) != nres {
		return fmt.Sprintf("%s has %d results, want %d", in.Op, len(in.Results), nres)
	}
	var res Type
	if nres == 1 && in.Op != OpFor && in.Op != OpIf && in.Op != OpWhile && in.Op != OpReduceFn && in.Op != OpScanFn {
		res = in.Results[0].Type
		if msg := verifyType(res); msg != "" {
			return fmt.Sprintf("result %v: %s", in.Results[0], msg)
		}
	}
	info := in.Op.Info()
	a := in.Args

	if info.Elementwise && in.Op != OpSelect && in.Op != OpConvert && in.Op != OpCmp && in.Op != OpIsNaN && in.Op != OpBitcast {
		for _, x := range a {
			if !TypesEqual(x.Type, res) {
				return fmt.Sprintf("operand %v has type %v, want the result type %v", x, x.Type, res)
			}
		}
		if _, ok := ValueShape(res); !ok {
			return fmt.Sprintf("%s on %v, want a scalar or a tile", in.Op, res)
		}
		d := res.Elem()
		switch in.Op {
		case OpDiv, OpExp, OpExp2, OpLog, OpSqrt, OpRsqrt, OpTanh,
			OpAtan2, OpSin, OpCos, OpTan, OpSinh, OpCosh, OpFloor, OpCeil, OpLog2:
			if !d.IsFloat() {
				return fmt.Sprintf("%s needs a float type, has %v", in.Op, d)
			}
		case OpShl, OpShr:
			if !d.IsInt() {
				return fmt.Sprintf("%s needs an integer type, has %v", in.Op, d)
			}
		case OpAnd, OpOr, OpXor, OpNot:
			if d != Bool && !d.IsInt() {
				return fmt.Sprintf("%s needs a bool or integer type, has %v", in.Op, d)
			}
		default:
			if d == Bool {
				return fmt.Sprintf("%s on bool", in.Op)
			}
		}
		return ""
	}

	switch in.Op {
	case OpConst:
		s, ok := res.(*Scalar)
		if !ok {
			return fmt.Sprintf("const result %v, want a scalar", res)
		}
		switch x := in.Attrs.Get("value").(type) {
		case bool:
			if s.DType != Bool {
				return fmt.Sprintf("bool value for %v", s)
			}
		case int64:
			if s.DType == Bool {
				return "integer value for bool"
			}
			if s.DType.IsInt() && WrapInt(s.DType, x) != x {
				return fmt.Sprintf("value %d does not fit in %v", x, s.DType)
			}
		case float64:
			if !s.DType.IsFloat() {
				return fmt.Sprintf("float value for %v", s)
			}
		default:
			return fmt.Sprintf("value attribute of type %T", x)
		}

	case OpBlockID, OpNumBlocks:
		axis, ok := in.Attrs.Get("axis").(int64)
		if !ok || axis < 0 || axis > 2 {
			return fmt.Sprintf("axis %v, want 0, 1 or 2", in.Attrs.Get("axis"))
		}
		if !TypesEqual(res, ScalarOf(I32)) {
			return fmt.Sprintf("result %v, want i32", res)
		}

	case OpDim, OpStride:
		arr, ok := a[0].Type.(*Array)
		if !ok {
			return fmt.Sprintf("operand %v has type %v, want an array", a[0], a[0].Type)
		}
		axis, ok := in.Attrs.Get("axis").(int64)
		if !ok || axis < 0 || axis >= int64(arr.Rank) {
			return fmt.Sprintf("axis %v out of range for %v", in.Attrs.Get("axis"), arr)
		}
		if s, ok := res.(*Scalar); !ok || !s.DType.IsInt() {
			return fmt.Sprintf("result %v, want a scalar integer", res)
		}

	case OpCmp:
		if !TypesEqual(a[0].Type, a[1].Type) {
			return fmt.Sprintf("operand types %v and %v differ", a[0].Type, a[1].Type)
		}
		sh, ok := ValueShape(a[0].Type)
		if !ok {
			return fmt.Sprintf("cmp on %v", a[0].Type)
		}
		rsh, ok := ValueShape(res)
		if !ok || res.Elem() != Bool || !slices.Equal(sh, rsh) || IsTileType(res) != IsTileType(a[0].Type) {
			return fmt.Sprintf("result %v, want bool of the operands' shape", res)
		}

	case OpSelect:
		c := a[0].Type
		if _, ok := ValueShape(res); !ok {
			return fmt.Sprintf("select of %v", res)
		}
		if !TypesEqual(a[1].Type, res) || !TypesEqual(a[2].Type, res) {
			return fmt.Sprintf("operands %v, %v, want the result type %v", a[1].Type, a[2].Type, res)
		}
		if !TypesEqual(c, ScalarOf(Bool)) && !TypesEqual(c, WithElem(res, Bool)) {
			return fmt.Sprintf("condition %v, want bool of the result's shape or a bool scalar", c)
		}

	case OpConvert:
		sh, ok := ValueShape(a[0].Type)
		rsh, rok := ValueShape(res)
		if !ok || !rok || !slices.Equal(sh, rsh) || IsTileType(res) != IsTileType(a[0].Type) {
			return fmt.Sprintf("convert %v to %v changes the shape", a[0].Type, res)
		}

	case OpIsNaN, OpBitcast:
		sh, ok := ValueShape(a[0].Type)
		rsh, rok := ValueShape(res)
		if !ok || !rok || !slices.Equal(sh, rsh) || IsTileType(res) != IsTileType(a[0].Type) {
			return fmt.Sprintf("%s %v to %v changes the shape", in.Op, a[0].Type, res)
		}
		from, to := a[0].Type.Elem(), res.Elem()
		if in.Op == OpIsNaN && (!from.IsFloat() || to != Bool) {
			return fmt.Sprintf("isnan of %v to %v, want a float operand and a bool result", from, to)
		}
		if in.Op == OpBitcast && (from == Bool || to == Bool || from.Bits() != to.Bits()) {
			return fmt.Sprintf("bitcast of %v to %v, want non-bool dtypes of one width", from, to)
		}

	case OpScan:
		x, ok := a[0].Type.(*Tile)
		if !ok || !TypesEqual(x, res) || x.DType == Bool {
			return fmt.Sprintf("scan of %v to %v, want a non-bool tile and its type", a[0].Type, res)
		}
		if axis := in.Attrs.Int("axis"); axis < 0 || axis >= x.Rank() {
			return fmt.Sprintf("axis %d out of range for %v", axis, x)
		}

	case OpCat:
		x, ok := a[0].Type.(*Tile)
		t, tok := res.(*Tile)
		if !ok || !tok || !TypesEqual(a[0].Type, a[1].Type) {
			return fmt.Sprintf("cat of %v and %v, want two tiles of one type", a[0].Type, a[1].Type)
		}
		axis := in.Attrs.Int("axis")
		if axis < 0 || axis >= x.Rank() {
			return fmt.Sprintf("axis %d out of range for %v", axis, x)
		}
		want := TileOf(x.DType, x.Shape...)
		want.Shape[axis] *= 2
		if !TypesEqual(t, want) {
			return fmt.Sprintf("result %v, want %v", t, want)
		}

	case OpExtract, OpInsert:
		nt := 1
		if in.Op == OpInsert {
			nt = 2
		}
		if len(a) < nt {
			return fmt.Sprintf("%s needs %d tiles and the indices", in.Op, nt)
		}
		x, ok := a[0].Type.(*Tile)
		sub, sok := res.(*Tile)
		if in.Op == OpInsert {
			sub, sok = a[1].Type.(*Tile)
			if !TypesEqual(res, a[0].Type) {
				return fmt.Sprintf("result %v, want the tile's %v", res, a[0].Type)
			}
		}
		if !ok || !sok || x.DType != sub.DType || x.Rank() != sub.Rank() {
			return fmt.Sprintf("%s between %v and %v, want tiles of one dtype and rank", in.Op, a[0].Type, sub)
		}
		for i := range x.Shape {
			if x.Shape[i]%sub.Shape[i] != 0 {
				return fmt.Sprintf("%s: %v does not divide %v", in.Op, sub, x)
			}
		}
		if len(a)-nt != x.Rank() {
			return fmt.Sprintf("%d indices for a rank-%d tile", len(a)-nt, x.Rank())
		}
		for _, i := range a[nt:] {
			if s, ok := i.Type.(*Scalar); !ok || !s.DType.IsInt() {
				return fmt.Sprintf("index %v has type %v, want a scalar integer", i, i.Type)
			}
		}

	case OpSplat:
		s, ok := a[0].Type.(*Scalar)
		t, tok := res.(*Tile)
		if !ok || !tok || s.DType != t.DType {
			return fmt.Sprintf("splat %v to %v, want a scalar to a tile of its dtype", a[0].Type, res)
		}

	case OpIota:
		t, ok := res.(*Tile)
		if !ok || t.Rank() != 1 || !t.DType.IsInt() {
			return fmt.Sprintf("result %v, want a rank-1 i32 or i64 tile", res)
		}

	case OpBroadcast:
		x, ok := a[0].Type.(*Tile)
		t, tok := res.(*Tile)
		if !ok || !tok || x.DType != t.DType || x.Rank() != t.Rank() {
			return fmt.Sprintf("broadcast %v to %v, want tiles of one dtype and rank", a[0].Type, res)
		}
		for i := range x.Shape {
			if x.Shape[i] != t.Shape[i] && x.Shape[i] != 1 {
				return fmt.Sprintf("broadcast %v to %v: dim %d is neither equal nor 1", x, t, i)
			}
		}

	case OpReshape:
		x, ok := a[0].Type.(*Tile)
		t, tok := res.(*Tile)
		if !ok || !tok || x.DType != t.DType {
			return fmt.Sprintf("reshape %v to %v, want tiles of one dtype", a[0].Type, res)
		}
		if x.NumElements() != t.NumElements() {
			return fmt.Sprintf("reshape %v to %v changes the element count", x, t)
		}

	case OpPermute:
		x, ok := a[0].Type.(*Tile)
		t, tok := res.(*Tile)
		if !ok || !tok || x.DType != t.DType || x.Rank() != t.Rank() {
			return fmt.Sprintf("permute %v to %v, want tiles of one dtype and rank", a[0].Type, res)
		}
		perm, ok := in.Attrs.Get("perm").([]int)
		if !ok || len(perm) != x.Rank() {
			return fmt.Sprintf("perm %s, want a permutation of %d axes", formatAttrValue(in.Attrs.Get("perm")), x.Rank())
		}
		seen := make([]bool, len(perm))
		for _, p := range perm {
			if p < 0 || p >= len(perm) || seen[p] {
				return fmt.Sprintf("perm %s is not a permutation", formatAttrValue(perm))
			}
			seen[p] = true
		}
		for i, p := range perm {
			if t.Shape[i] != x.Shape[p] {
				return fmt.Sprintf("permute %v by %s gives %v", x, formatAttrValue(perm), PermutedTile(x, perm))
			}
		}

	case OpReduce:
		x, ok := a[0].Type.(*Tile)
		t, tok := res.(*Tile)
		if !ok || !tok || x.Rank() == 0 {
			return fmt.Sprintf("reduce %v to %v, want tiles of rank >= 1", a[0].Type, res)
		}
		axis, ok := in.Attrs.Get("axis").(int64)
		if !ok || axis < 0 || axis >= int64(x.Rank()) {
			return fmt.Sprintf("axis %s out of range for %v", formatAttrValue(in.Attrs.Get("axis")), x)
		}
		want := &Tile{DType: x.DType}
		want.Shape = append(append([]int{}, x.Shape[:axis]...), x.Shape[axis+1:]...)
		switch in.Attrs.Get("kind") {
		case ReduceSum, ReduceMax, ReduceMin, ReduceProd:
			if x.DType == Bool {
				return "reduce of bool"
			}
		case ReduceArgmax, ReduceArgmin:
			want.DType = I32
		}
		if !TypesEqual(t, want) {
			return fmt.Sprintf("result %v, want %v", t, want)
		}

	case OpMMA, OpMMAStep, OpMMAFMA:
		return verifyMMA(a[0].Type, a[1].Type, a[2].Type, res)

	case OpSmemAlloc:
		if _, ok := res.(*Tile); !ok {
			return fmt.Sprintf("result %v, want a tile", res)
		}
		if in.Attrs.Int("stages") < 1 || in.Attrs.Int("stage_bytes") <= 0 || in.Attrs.Int("row_bytes") <= 0 || in.Attrs.Int("smem") < 0 {
			return "smem_alloc needs stages >= 1, positive stage_bytes and row_bytes, and smem >= 0"
		}

	case OpSmemSlot:
		if d := a[0].Def; d == nil || d.Op != OpSmemAlloc {
			return fmt.Sprintf("%v is not a smem_alloc ring", a[0])
		}
		if s, ok := a[1].Type.(*Scalar); !ok || s.DType != I32 {
			return fmt.Sprintf("slot %v has type %v, want i32", a[1], a[1].Type)
		}
		if !TypesEqual(res, a[0].Type) {
			return fmt.Sprintf("result %v, want the ring's %v", res, a[0].Type)
		}

	case OpAsyncCopy:
		if len(a) < 2 {
			return "async_copy needs an array, indices and a shared tile"
		}
		arr, msg := v.indexedArray(in, a[1:len(a)-1])
		if msg != "" {
			return msg
		}
		dst := a[len(a)-1]
		t, ok := dst.Type.(*Tile)
		if !ok || t.DType != arr.DType || t.Rank() != arr.Rank {
			return fmt.Sprintf("destination %v has type %v, want a rank-%d %v tile", dst, dst.Type, arr.Rank, arr.DType)
		}
		if d := dst.Def; d == nil || d.Op != OpSmemSlot {
			return fmt.Sprintf("destination %v is not a smem_slot", dst)
		}
		if n, q := in.Attrs.Int("parts"), in.Attrs.Int("part"); n < 1 || q < 0 || q >= n {
			return fmt.Sprintf("part %d of %d", q, n)
		}

	case OpMbarAlloc:
		if s, ok := res.(*Scalar); !ok || s.DType != I32 {
			return fmt.Sprintf("result %v, want i32 (the ring's shared address)", res)
		}
		if in.Attrs.Int("stages") < 1 || in.Attrs.Int("count") < 1 || in.Attrs.Int("smem")%8 != 0 {
			return "mbar_alloc needs stages >= 1, count >= 1 and smem a multiple of 8"
		}

	case OpMbarWait, OpMbarArrive, OpMbarExpect:
		if d := a[0].Def; d == nil || d.Op != OpMbarAlloc {
			return fmt.Sprintf("%v is not an mbar_alloc ring", a[0])
		}
		for i, x := range a[1:] {
			want := I32
			if in.Op == OpMbarArrive && i == 1 {
				want = Bool
			}
			if s, ok := x.Type.(*Scalar); !ok || s.DType != want {
				return fmt.Sprintf("%v has type %v, want %v", x, x.Type, want)
			}
		}
		if in.Op == OpMbarExpect && in.Attrs.Int("bytes") <= 0 {
			return "mbar_expect needs bytes > 0"
		}

	case OpTMALoad, OpTMALoadPair:
		if in.Op == OpTMALoadPair {
			if len(a) < 6 {
				return "tma_load_pair needs an array, indices, a shared tile, a barrier ring, a slot, a share flag and the rank"
			}
			if s, ok := a[len(a)-2].Type.(*Scalar); !ok || s.DType != Bool {
				return fmt.Sprintf("share flag %v has type %v, want bool", a[len(a)-2], a[len(a)-2].Type)
			}
			if s, ok := a[len(a)-1].Type.(*Scalar); !ok || s.DType != I32 {
				return fmt.Sprintf("rank %v has type %v, want i32", a[len(a)-1], a[len(a)-1].Type)
			}
			if sp := in.Attrs.Str("split"); sp != "slabs" && sp != "rows" {
				return fmt.Sprintf("split %q, want slabs or rows", sp)
			}
			a = a[:len(a)-2]
		}
		if len(a) < 4 {
			return "tma_load needs an array, indices, a shared tile, a barrier ring and a slot"
		}
		arr, msg := v.indexedArray(in, a[1:len(a)-3])
		if msg != "" {
			return msg
		}
		dst := a[len(a)-3]
		t, ok := dst.Type.(*Tile)
		if !ok || !matrixOf(t, arr) {
			return fmt.Sprintf("destination %v has type %v, want a 2-D %v tile of a 2-D, 3-D or 4-D array", dst, dst.Type, arr.DType)
		}
		if d := dst.Def; d == nil || d.Op != OpSmemSlot {
			return fmt.Sprintf("destination %v is not a smem_slot", dst)
		}
		if d := a[len(a)-2].Def; d == nil || d.Op != OpMbarAlloc {
			return fmt.Sprintf("%v is not an mbar_alloc ring", a[len(a)-2])
		}

	case OpTMAStore:
		if len(a) < 2 {
			return "tma_store needs an array, indices and a shared tile"
		}
		arr, msg := v.indexedArray(in, a[1:len(a)-1])
		if msg != "" {
			return msg
		}
		src := a[len(a)-1]
		t, ok := src.Type.(*Tile)
		if !ok || !matrixOf(t, arr) {
			return fmt.Sprintf("source %v has type %v, want a 2-D %v tile of a 2-D, 3-D or 4-D array", src, src.Type, arr.DType)
		}
		if d := src.Def; d == nil || d.Op != OpSmemStage {
			return fmt.Sprintf("source %v is not a smem_stage", src)
		}

	case OpBarrier:
		if id, n := in.Attrs.Int("id"), in.Attrs.Int("threads"); id < 0 || id > 15 || n < 0 || n%32 != 0 || (id > 0) != (n > 0) {
			return fmt.Sprintf("barrier id %d threads %d: a named barrier needs id 1..15 and a multiple of 32 threads", id, n)
		}

	case OpWGMMA:
		if d := a[1].Def; d == nil || d.Op != OpSmemSlot {
			return fmt.Sprintf("wgmma operand %v is not a smem_slot", a[1])
		}
		if _, ok := a[0].Type.(*Tile); !ok {
			return fmt.Sprintf("wgmma operand %v is not a tile", a[0])
		}
		at, bt := a[0].Type, a[1].Type
		if !in.Attrs.Bool("trans_b") {
			// b is the (N, K) tile as loaded; the product uses its transpose.
			if t, ok := bt.(*Tile); ok && t.Rank() == 2 {
				bt = TileOf(t.DType, t.Shape[1], t.Shape[0])
			}
		}
		return verifyMMA(at, bt, a[2].Type, res)

	case OpWGMMAWait:
		if in.Attrs.Int("pending") < 0 {
			return "wgmma_wait with negative pending"
		}

	case OpSetMaxRegs:
		if r := in.Attrs.Int("regs"); r < 24 || r > 256 || r%8 != 0 {
			return fmt.Sprintf("set_max_regs %d, want a multiple of 8 in [24, 256]", r)
		}

	case OpAsyncWait:
		if in.Attrs.Int("pending") < 0 {
			return "async_wait with negative pending"
		}

	case OpConvertLayout:
		if !TypesEqual(res, a[0].Type) {
			return fmt.Sprintf("convert_layout of %v to %v, want one type", a[0].Type, res)
		}

	case OpSmemStage:
		t, ok := a[0].Type.(*Tile)
		if ok && in.Attrs.Get("col") != nil {
			// A window of columns [col, col+N) of a rank-2 tile.
			rt, rok := res.(*Tile)
			col := in.Attrs.Int("col")
			if !rok || t.Rank() != 2 || rt.Rank() != 2 || rt.DType != t.DType || rt.Shape[0] != t.Shape[0] ||
				col < 0 || col+rt.Shape[1] > t.Shape[1] || in.Attrs.Get(AttrKeySlabBytes) == nil {
				return fmt.Sprintf("smem_stage of columns from %d of %v to %v", col, a[0].Type, res)
			}
			t = rt
		} else if !ok || !TypesEqual(res, t) || t.Rank() != 2 {
			return fmt.Sprintf("smem_stage of %v to %v, want one rank-2 tile type", a[0].Type, res)
		}
		row := t.Shape[1] * t.DType.Bytes()
		switch pitch, rb := in.Attrs.Get("pitch"), in.Attrs.Get("row_bytes"); {
		case (pitch == nil) == (rb == nil) || (pitch != nil && in.Attrs.Get("smem") != nil) || (rb != nil && in.Attrs.Get("smem") == nil):
			return "smem_stage needs either pitch, or smem and row_bytes"
		case pitch != nil && in.Attrs.Int("pitch") < row:
			return fmt.Sprintf("pitch %d is less than a row of %d bytes", in.Attrs.Int("pitch"), row)
		case in.Attrs.Get(AttrKeySlabBytes) != nil:
			// TMA's slabs: 64 16-bit columns of 128-byte rows each.
			if in.Attrs.Int("row_bytes") != 128 || t.DType.Bytes() != 2 || row%128 != 0 || in.Attrs.Int(AttrKeySlabBytes) != t.Shape[0]*128 {
				return fmt.Sprintf("smem_stage into slabs of %v: row_bytes %d, slab_bytes %d", t, in.Attrs.Int("row_bytes"), in.Attrs.Int(AttrKeySlabBytes))
			}
		case rb != nil && in.Attrs.Int("row_bytes") != row:
			return fmt.Sprintf("row_bytes %d, want the tile's %d", in.Attrs.Int("row_bytes"), row)
		}

	case OpFragLoad:
		src, ok := a[0].Type.(*Tile)
		t, ok2 := res.(*Tile)
		if !ok || !ok2 || src.Rank() != 2 || t.Rank() != 2 || t.DType != src.DType {
			return fmt.Sprintf("frag_load of %v to %v, want rank-2 tiles of one dtype", a[0].Type, res)
		}

	case OpLoad:
		if len(a) < 1 {
			return "load needs an array and indices"
		}
		arr, msg := v.indexedArray(in, a[1:])
		if msg != "" {
			return msg
		}
		t, ok := res.(*Tile)
		if !ok || t.DType != arr.DType || t.Rank() != arr.Rank {
			return fmt.Sprintf("result %v, want a rank-%d %v tile", res, arr.Rank, arr.DType)
		}
		if in.Attrs.Str("pad") == PadNaN && !t.DType.IsFloat() {
			return fmt.Sprintf("pad nan on a %v load", t.DType)
		}

	case OpStore:
		if len(a) < 2 {
			return "store needs an array, indices and a tile"
		}
		arr, msg := v.indexedArray(in, a[1:len(a)-1])
		if msg != "" {
			return msg
		}
		x := a[len(a)-1]
		t, ok := x.Type.(*Tile)
		if !ok || t.DType != arr.DType || t.Rank() != arr.Rank {
			return fmt.Sprintf("stored %v has type %v, want a rank-%d %v tile", x, x.Type, arr.Rank, arr.DType)
		}

	case OpFor:
		if len(a) < 3 {
			return "for needs lo, hi and step"
		}
		iv := a[0].Type
		if s, ok := iv.(*Scalar); !ok || !s.DType.IsInt() {
			return fmt.Sprintf("bound %v has type %v, want a scalar integer", a[0], iv)
		}
		for _, x := range a[1:3] {
			if !TypesEqual(x.Type, iv) {
				return fmt.Sprintf("bound %v has type %v, want %v like the others", x, x.Type, iv)
			}
		}
		inits := a[3:]
		for i, r := range in.Results {
			if !TypesEqual(r.Type, inits[i].Type) {
				return fmt.Sprintf("result %v has type %v, want the init's %v", r, r.Type, inits[i].Type)
			}
		}
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
		for i, r := range in.Results {
			if !TypesEqual(r.Type, a[i].Type) {
				return fmt.Sprintf("result %v has type %v, want the init's %v", r, r.Type, a[i].Type)
			}
		}
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

	case OpGather, OpScatter, OpAtomicRMW, OpAtomicCAS:
		return verifyIndexed(in, res)

	case OpReduceFn, OpScanFn:
		return verifyCombiner(in)

	case OpPrintf:
		n, msg := PrintfConversions(in.Attrs.Str("format"))
		if msg != "" {
			return msg
		}
		if n != len(a) {
			return fmt.Sprintf("format has %d conversions for %d operands", n, len(a))
		}
		for _, x := range a {
			if _, ok := ValueShape(x.Type); !ok {
				return fmt.Sprintf("printf of %v, want scalars and tiles", x.Type)
			}
		}

	case OpAssert:
		if _, ok := ValueShape(a[0].Type); !ok || a[0].Type.Elem() != Bool {
			return fmt.Sprintf("assert of %v, want a bool scalar or tile", a[0].Type)
		}

	case OpPackBytes, OpUnpackBytes:
		x, ok := a[0].Type.(*Tile)
		t, tok := res.(*Tile)
		if !ok || !tok || t.Rank() != 1 || x.DType == Bool || t.DType == Bool {
			return fmt.Sprintf("%s of %v to %v, want non-bool tiles and a rank-1 result", in.Op, a[0].Type, res)
		}
		if in.Op == OpPackBytes && t.DType != U8 || in.Op == OpUnpackBytes && (x.DType != U8 || x.Rank() != 1) {
			return fmt.Sprintf("%s of %v to %v: the bytes are a rank-1 u8 tile", in.Op, x, t)
		}
		if x.NumElements()*x.DType.Bytes() != t.NumElements()*t.DType.Bytes() {
			return fmt.Sprintf("%s of %v to %v changes the byte count", in.Op, x, t)
		}

	case OpIf:
		if !TypesEqual(a[0].Type, ScalarOf(Bool)) && !TypesEqual(a[0].Type, TileOf(Bool)) {
			return fmt.Sprintf("condition %v has type %v, want bool or tile<bool>", a[0], a[0].Type)
		}
		for i, r := range in.Regions {
			if len(r.Params) != 0 {
				return fmt.Sprintf("region %d has parameters", i)
			}
			if msg := verifyYield(r, in.Results); msg != "" {
				return msg
			}
		}
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

// PermutedTile is the type of t with its dims permuted: dim i of the
// result is dim perm[i] of t (the permute op's typing rule).
func PermutedTile(t *Tile, perm []int) *Tile {
	out := &Tile{DType: t.DType, Shape: make([]int, len(perm))}
	for i, p := range perm {
		out.Shape[i] = t.Shape[p]
	}
	return out
}

// indexedArray checks a load or store's array operand and its tile indices.
func (v *irVerifier) indexedArray(in *Instr, idx []*Value) (*Array, string) {
	arr, ok := in.Args[0].Type.(*Array)
	if !ok {
		return nil, fmt.Sprintf("operand %v has type %v, want an array", in.Args[0], in.Args[0].Type)
	}
	if len(idx) != arr.Rank {
		return nil, fmt.Sprintf("%d indices for a rank-%d array", len(idx), arr.Rank)
	}
	for _, x := range idx {
		if s, ok := x.Type.(*Scalar); !ok || !s.DType.IsInt() {
			return nil, fmt.Sprintf("index %v has type %v, want a scalar integer", x, x.Type)
		}
	}
	return arr, ""
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
// bool mask of gather and scatter.
func verifyIndexed(in *Instr, res Type) string {
	a := in.Args
	if len(a) < 1 {
		return fmt.Sprintf("%s needs an array", in.Op)
	}
	arr, ok := a[0].Type.(*Array)
	if !ok {
		return fmt.Sprintf("operand %v has type %v, want an array", a[0], a[0].Type)
	}
	nvals := map[Op]int{OpGather: 1, OpScatter: 1, OpAtomicRMW: 1, OpAtomicCAS: 2}[in.Op]
	n := len(a) - 1 - arr.Rank - nvals
	if n < 0 || n > 1 || n == 1 && in.Op != OpGather && in.Op != OpScatter {
		return fmt.Sprintf("%s on a rank-%d array has %d operands", in.Op, arr.Rank, len(a))
	}
	if arr.Rank == 0 {
		return fmt.Sprintf("%s on a rank-0 array", in.Op)
	}
	idx, ok := a[1].Type.(*Tile)
	if !ok {
		return fmt.Sprintf("index %v has type %v, want an integer tile", a[1], a[1].Type)
	}
	shape := idx.Shape
	for _, x := range a[1 : 1+arr.Rank] {
		t, ok := x.Type.(*Tile)
		if !ok || !t.DType.IsInt() || !slices.Equal(t.Shape, shape) {
			return fmt.Sprintf("index %v has type %v, want an integer tile of shape %s", x, x.Type, tileShapeString(idx))
		}
	}
	want := TileOf(arr.DType, shape...)
	for _, x := range a[1+arr.Rank : 1+arr.Rank+nvals] {
		if !TypesEqual(x.Type, want) {
			return fmt.Sprintf("operand %v has type %v, want %v", x, x.Type, want)
		}
	}
	if n == 1 {
		if m := a[len(a)-1]; !TypesEqual(m.Type, WithElem(want, Bool)) {
			return fmt.Sprintf("mask %v has type %v, want %v", m, m.Type, WithElem(want, Bool))
		}
	}
	if in.Op != OpScatter && !TypesEqual(res, want) {
		return fmt.Sprintf("result %v, want %v", res, want)
	}
	d := arr.DType
	switch in.Op {
	case OpAtomicCAS:
		if !AtomicDType(d, true) {
			return fmt.Sprintf("atomic_cas on %v, want i32, i64, u32, u64, f32 or f64", d)
		}
	case OpAtomicRMW:
		switch k := in.Attrs.Str("kind"); k {
		case AtomicXchg:
			if !AtomicDType(d, true) {
				return fmt.Sprintf("atomic_rmw xchg on %v, want i32, i64, u32, u64, f32 or f64", d)
			}
		case AtomicAdd:
			if !AtomicDType(d, true) && d != F16 && d != BF16 {
				return fmt.Sprintf("atomic_rmw add on %v, want i32, i64, u32, u64, f16, bf16, f32 or f64", d)
			}
		default:
			if !AtomicDType(d, false) {
				return fmt.Sprintf("atomic_rmw %s on %v, want i32, i64, u32 or u64", k, d)
			}
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

// verifyCombiner checks reduce_fn and scan_fn: N tiles of one type-shape,
// N scalar identities of their dtypes, a region of 2N rank-0 tile
// parameters that yields N rank-0 tiles, and the results.
func verifyCombiner(in *Instr) string {
	a := in.Args
	if len(a) == 0 || len(a)%2 != 0 {
		return fmt.Sprintf("%s has %d operands, want N tiles and N identities", in.Op, len(a))
	}
	n := len(a) / 2
	x0, ok := a[0].Type.(*Tile)
	if !ok || x0.Rank() == 0 {
		return fmt.Sprintf("operand %v has type %v, want a tile of rank >= 1", a[0], a[0].Type)
	}
	axis := in.Attrs.Int("axis")
	if axis < 0 || axis >= x0.Rank() {
		return fmt.Sprintf("axis %d out of range for %v", axis, x0)
	}
	body := in.Regions[0]
	if len(body.Params) != 2*n {
		return fmt.Sprintf("region has %d parameters, want %d", len(body.Params), 2*n)
	}
	elems := make([]*Value, n)
	for i := 0; i < n; i++ {
		x, ok := a[i].Type.(*Tile)
		if !ok || !slices.Equal(x.Shape, x0.Shape) {
			return fmt.Sprintf("operand %v has type %v, want a tile of shape %s", a[i], a[i].Type, tileShapeString(x0))
		}
		if !TypesEqual(a[n+i].Type, ScalarOf(x.DType)) {
			return fmt.Sprintf("identity %v has type %v, want %v", a[n+i], a[n+i].Type, x.DType)
		}
		e := TileOf(x.DType)
		for _, p := range []*Value{body.Params[i], body.Params[n+i]} {
			if p == nil || !TypesEqual(p.Type, e) {
				return fmt.Sprintf("region parameter %v has type %v, want %v", p, typeOrNil(p), e)
			}
		}
		elems[i] = &Value{Type: e}
		want := &Tile{DType: x.DType}
		if in.Op == OpScanFn {
			want.Shape = x.Shape
		} else {
			want.Shape = append(append([]int{}, x.Shape[:axis]...), x.Shape[axis+1:]...)
		}
		if !TypesEqual(in.Results[i].Type, want) {
			return fmt.Sprintf("result %v has type %v, want %v", in.Results[i], in.Results[i].Type, want)
		}
	}
	return verifyYield(body, elems)
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
