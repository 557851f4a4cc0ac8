package ptxgen

import (
	"fmt"
	"strings"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/ir/scalar"
	"github.com/tilec/tilec/lower"
)

// EmitKernel generates PTX for one lowered variant of a kernel (lower.Lower
// or an element of lower.LowerVariants). Kernel.Variant says which one it
// is, from the IR: "" (the kernel's only form), VariantFast or
// VariantGeneral.
func EmitKernel(f *ir.Func, t *lower.Target) (k *Kernel, err error) {
	if t == nil {
		return nil, fmt.Errorf("ptxgen: no target")
	}
	e := &emitter{
		f:       f,
		t:       t,
		nw:      lower.NumWarps(f),
		vals:    map[*ir.Value]*value{},
		arrs:    map[*ir.Value]*array{},
		inv:     map[string]Reg{},
		variant: f.Facts.Variant,
	}
	e.nt = blockThreads(f)
	defer func() {
		if r := recover(); r != nil {
			if ee, ok := r.(emitError); ok {
				k, err = nil, ee.err
				return
			}
			panic(fmt.Sprintf("ptxgen %s: internal error in kernel %s: %v", t, f.Name, r))
		}
	}()
	e.cur = &e.entry
	e.prologue()
	e.cur = &e.code
	e.block(f.Body)
	k = e.finish()
	k.Variant = e.variant
	return k, nil
}

// EmitVariants generates PTX for every variant of a kernel, as
// lower.LowerVariants returns them: the kernel's only form, or its fast
// variant (valid where Kernel.FastPathOK holds for a launch's arrays) with
// its General field set to the general one.
func EmitVariants(vs []*lower.Variant, t *lower.Target) (*Kernel, error) {
	ks := make([]*Kernel, len(vs))
	for i, v := range vs {
		k, err := EmitKernel(v.Func, t)
		if err != nil {
			return nil, err
		}
		ks[i] = k
	}
	switch {
	case len(ks) == 1:
		return ks[0], nil
	case len(ks) == 2 && ks[0].Variant == VariantFast && ks[1].Variant == VariantGeneral:
		ks[0].FastArrays = vs[0].Aligned
		ks[0].General = ks[1]
		return ks[0], nil
	}
	return nil, fmt.Errorf("ptxgen: %d variants of %s, want one or fast and general", len(vs), vs[0].Func.Name)
}

type emitError struct{ err error }

// fail aborts emission with a user-facing error.
func (e *emitter) fail(format string, args ...any) {
	panic(emitError{fmt.Errorf("ptxgen %s: %s", e.t, fmt.Sprintf(format, args...))})
}

type emitter struct {
	f      *ir.Func
	t      *lower.Target
	nw, nt int

	entry []Instr // thread-invariant prelude
	code  []Instr // the body
	cur   *[]Instr
	nreg  [numClasses]int

	params    []ParamSlot
	paramDecl []string

	vals map[*ir.Value]*value
	arrs map[*ir.Value]*array
	inv  map[string]Reg // thread-invariant values by key (see invariant)
	// listRegs are the registers that list_get defined inside a loop, and
	// those computed from them: invariant keeps what reads them in place
	// (arraylist.go).
	listRegs map[Reg]bool
	lists    map[*ir.Value]*list // list parameters' registers
	// atEntry are values computed once in the entry code (see entryOnce).
	atEntry map[string]Reg

	tid, lane, warp Reg
	smemBase        Reg // 1024-aligned shared-window address of the dynamic shared memory
	labels          int
	usesSmem        bool
	uses            map[*ir.Value]int
	hoist           *[]Instr // where invariants go inside a loop nest
	variant         string   // "", VariantFast or VariantGeneral (the kernel's variant fact)
}

// value is how a tile or scalar is held.
type value struct {
	reg  Reg   // a scalar
	regs []Reg // a register tile: one per register index (copies share a Reg)
	lay  *lower.Layout
	smem *smemVal
}

// smemVal is a tile in shared memory: one copy of a load's ring.
type smemVal struct {
	// tile is the instruction whose result type and row_bytes describe
	// the shared tile (a smem_alloc ring, or a staged register tile).
	tile  *ir.Instr
	base  Reg // shared-window address of this copy
	trans bool
	// addrs caches base + offset registers of fragment loads, by offset register.
	addrs map[int]Reg
	// pitch, when not 0, is the row pitch in bytes of an unswizzled
	// row-major tile (smem_stage's); 0 for swizzled tiles (row_bytes).
	pitch int
}

type array struct {
	ptr     Reg // global address
	dims    []Reg
	strides []Reg
	dt      ir.DType
}

func (e *emitter) newReg(c RegClass) Reg {
	e.nreg[c]++
	return Reg{Class: c, N: e.nreg[c]}
}

func (e *emitter) emit(op string, args ...Operand) {
	*e.cur = append(*e.cur, Instr{Op: op, Args: args})
}

func (e *emitter) emitIf(g Reg, neg bool, op string, args ...Operand) {
	*e.cur = append(*e.cur, Instr{Op: op, Args: args, Guard: &g, Neg: neg})
}

func (e *emitter) label(l string) { *e.cur = append(*e.cur, Instr{Label: l}) }

func (e *emitter) newLabel(what string) string {
	e.labels++
	return fmt.Sprintf("$L_%s_%d", what, e.labels)
}

// invariant computes a thread-invariant value once: in the preheader of the
// outermost enclosing loop (so that loops do not recompute it), or where it
// is first needed outside loops (so that it is not live across them).
func (e *emitter) invariant(key string, gen func() Reg) Reg {
	if r, ok := e.inv[key]; ok {
		return r
	}
	saved := e.cur
	if e.hoist != nil {
		if len(e.listRegs) > 0 {
			return e.listInvariant(key, gen)
		}
		e.cur = e.hoist
	}
	r := gen()
	e.cur = saved
	e.inv[key] = r
	return r
}

// classOf is the register class holding one element of dtype d.
func classOf(d ir.DType) RegClass {
	switch d {
	case ir.Bool:
		return Pred
	case ir.I32:
		return B32
	case ir.I64, ir.U64:
		return B64
	case ir.F16, ir.BF16:
		return B16
	case ir.F32, ir.TF32:
		return F32
	case ir.F64:
		return F64
	}
	return B32
}

// ptype is the PTX arithmetic type suffix for dtype d.
func ptype(d ir.DType) string {
	switch d {
	case ir.Bool:
		return "pred"
	case ir.I32:
		return "s32"
	case ir.I64:
		return "s64"
	case ir.I8, ir.I16:
		// Sub-word integers live sign-extended in 32-bit registers.
		return "s32"
	case ir.U8, ir.U16, ir.U32:
		return "u32"
	case ir.U64:
		return "u64"
	case ir.F16:
		return "f16"
	case ir.BF16:
		return "bf16"
	case ir.F32, ir.TF32:
		return "f32"
	case ir.F64:
		return "f64"
	}
	return "b32"
}

// btype is the untyped bit-size suffix for moves, loads and stores.
func btype(d ir.DType) string {
	// Sub-word integers load into 32-bit registers, extended by their sign.
	switch d {
	case ir.I8:
		return "s8"
	case ir.I16:
		return "s16"
	case ir.U16:
		return "u16"
	}
	switch d.Bytes() {
	case 1:
		return "u8"
	case 2:
		return "b16"
	case 8:
		return "b64"
	}
	return "b32"
}

// prologue declares the parameters and computes thread ids and the shared base.
func (e *emitter) prologue() {
	for i, p := range e.f.Params {
		name := "p_" + sanitize(p.Name)
		switch t := p.Type.(type) {
		case *ir.Array:
			a := &array{dt: t.DType}
			e.params = append(e.params, ParamSlot{Kind: SlotPointer, Param: i})
			e.paramDecl = append(e.paramDecl, ".param .u64 "+name+"_ptr")
			raw := e.newReg(B64)
			e.emit("ld.param.u64", raw, Addr{Base: Sym(name + "_ptr")})
			a.ptr = e.newReg(B64)
			e.emit("cvta.to.global.u64", a.ptr, raw)
			for ax := 0; ax < t.Rank; ax++ {
				e.params = append(e.params, ParamSlot{Kind: SlotDim, Param: i, Axis: ax})
				n := fmt.Sprintf("%s_dim%d", name, ax)
				e.paramDecl = append(e.paramDecl, ".param .s32 "+n)
				r := e.newReg(B32)
				e.emit("ld.param.s32", r, Addr{Base: Sym(n)})
				a.dims = append(a.dims, r)
			}
			for ax := 0; ax < t.Rank; ax++ {
				e.params = append(e.params, ParamSlot{Kind: SlotStride, Param: i, Axis: ax})
				n := fmt.Sprintf("%s_stride%d", name, ax)
				e.paramDecl = append(e.paramDecl, ".param .s64 "+n)
				r := e.newReg(B64)
				e.emit("ld.param.s64", r, Addr{Base: Sym(n)})
				a.strides = append(a.strides, r)
			}
			e.arrs[p.Value] = a
		case *ir.Scalar:
			e.params = append(e.params, ParamSlot{Kind: SlotScalar, Param: i})
			var decl string
			r := e.newReg(classOf(t.DType))
			switch t.DType {
			case ir.I32:
				decl = ".s32"
				e.emit("ld.param.s32", r, Addr{Base: Sym(name)})
			case ir.I64:
				decl = ".s64"
				e.emit("ld.param.s64", r, Addr{Base: Sym(name)})
			case ir.F32, ir.TF32:
				decl = ".f32"
				e.emit("ld.param.f32", r, Addr{Base: Sym(name)})
			case ir.F64:
				decl = ".f64"
				e.emit("ld.param.f64", r, Addr{Base: Sym(name)})
			case ir.Bool:
				decl = ".u8"
				h := e.newReg(B16)
				e.emit("ld.param.u8", h, Addr{Base: Sym(name)})
				e.emit("setp.ne.b16", r, h, Imm(0))
			default:
				e.fail("scalar parameter %s of type %s is not supported yet", p.Name, t.DType)
			}
			e.paramDecl = append(e.paramDecl, ".param "+decl+" "+name)
			e.vals[p.Value] = &value{reg: r}
		case *ir.ArrayList:
			e.listParam(i, p, t, name)
		}
	}
	e.tid = e.newReg(B32)
	e.emit("mov.u32", e.tid, Sym("%tid.x"))
	e.lane = e.newReg(B32)
	e.emit("and.b32", e.lane, e.tid, Imm(31))
	e.warp = e.newReg(B32)
	e.emit("shr.u32", e.warp, e.tid, Imm(5))
	if lower.SmemBytes(e.f) > 0 {
		e.usesSmem = true
		s := e.newReg(B32)
		e.emit("mov.u32", s, Sym("smem"))
		e.emit("add.u32", s, s, Imm(1023))
		e.smemBase = e.newReg(B32)
		e.emit("and.b32", e.smemBase, s, Imm(-1024))
	}
}

func sanitize(s string) string {
	var b strings.Builder
	for _, c := range s {
		if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			b.WriteRune(c)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

// finish prints the module.
func (e *emitter) finish() *Kernel {
	var b strings.Builder
	fmt.Fprintf(&b, "//\n// Generated by tilec for %s\n", e.f.Name)
	switch e.variant {
	case VariantFast:
		b.WriteString("// Variant fast: cp.async copies only; valid only for 16-byte aligned arrays (ptxgen.Kernel.FastPathOK)\n")
	case VariantGeneral:
		b.WriteString("// Variant general: element-wise shared-tile copies; valid for any alignment\n")
	}
	fmt.Fprintf(&b, "//\n\n.version %s\n.target %s\n.address_size 64\n\n", e.t.PTXVersion, e.t.Name)
	if e.usesSmem {
		b.WriteString(".extern .shared .align 1024 .b8 smem[];\n\n")
	}
	fmt.Fprintf(&b, ".visible .entry %s(\n", sanitize(e.f.Name))
	for i, d := range e.paramDecl {
		b.WriteString("\t" + d)
		if i < len(e.paramDecl)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, ")\n.reqntid %d, 1, 1\n", e.nt)
	if c := clusterSize(e.f); c > 1 {
		fmt.Fprintf(&b, ".reqnctapercluster %d, 1, 1\n", c)
	}
	if n := e.f.Facts.MaxRegs; n > 0 {
		// setmaxnreg needs the count at entry (PTX.md 3.6).
		fmt.Fprintf(&b, ".maxnreg %d\n", n)
	} else if n := lower.Occupancy(e.f, e.t); n > 0 && !isPersistent(e.f) {
		// The occupancy hint: ptxas limits registers so that n blocks fit
		// an SM (shared memory may still allow fewer).
		fmt.Fprintf(&b, ".minnctapersm %d\n", n)
	}
	b.WriteString("{\n")
	for c := RegClass(0); c < numClasses; c++ {
		if e.nreg[c] > 0 {
			fmt.Fprintf(&b, "\t.reg %s %s<%d>;\n", classInfo[c].decl, classInfo[c].prefix, e.nreg[c]+1)
		}
	}
	b.WriteByte('\n')
	for _, list := range [][]Instr{e.entry, e.code} {
		for _, in := range list {
			if in.Label != "" && in.Op == "" {
				b.WriteString(in.String() + "\n")
			} else {
				b.WriteString("\t" + in.String() + "\n")
			}
		}
	}
	b.WriteString("\tret;\n}\n")
	smem := 0
	if e.usesSmem {
		smem = lower.SmemBytes(e.f) + 1024
	}
	return &Kernel{
		Name:        sanitize(e.f.Name),
		Target:      e.t.Name,
		PTX:         b.String(),
		Block:       [3]int{e.nt, 1, 1},
		SharedBytes: smem,
		Params:      e.params,
		Persistent:  isPersistent(e.f),
		Cluster:     clusterSize(e.f),
	}
}

// block emits a block's instructions.
func (e *emitter) block(b *ir.Block) {
	for _, in := range b.Instrs {
		e.instr(in)
	}
}

func (e *emitter) instr(in *ir.Instr) { opEmitters[in.Op](e, in) }

// opEmitters is the one emission function of each op, indexed by op; init
// checks that the table is complete, so that a new op fails at once until
// it has its emitter. Ops that must not reach ptxgen have a function that
// says why.
var opEmitters [ir.NumOps]func(e *emitter, in *ir.Instr)

func init() {
	set := func(f func(e *emitter, in *ir.Instr), ops ...ir.Op) {
		for _, op := range ops {
			opEmitters[op] = f
		}
	}
	nothing := func(*emitter, *ir.Instr) {}
	set(nothing, ir.OpReturn, ir.OpYield) // yield: the for or if that owns the region copies its values
	set((*emitter).emitFor, ir.OpFor)
	set((*emitter).emitIfOp, ir.OpIf)
	set((*emitter).emitWhile, ir.OpWhile)
	set((*emitter).emitRegisterLoad, ir.OpLoad)
	set(func(e *emitter, in *ir.Instr) { e.emitGlobalAccess(in, true) }, ir.OpStore)
	set(func(e *emitter, in *ir.Instr) {
		e.fail("internal: mma was not lowered to k-steps (lower's mma pass)")
	}, ir.OpMMA)
	set((*emitter).emitView, ir.OpPermute, ir.OpBroadcast, ir.OpReshape)
	set((*emitter).emitReduce, ir.OpReduce)
	set((*emitter).emitSmemAlloc, ir.OpSmemAlloc)
	set((*emitter).emitSmemSlot, ir.OpSmemSlot)
	set((*emitter).emitAsyncCopy, ir.OpAsyncCopy)
	set(func(e *emitter, in *ir.Instr) { e.emit("cp.async.commit_group") }, ir.OpAsyncCommit)
	set(func(e *emitter, in *ir.Instr) { e.emit("cp.async.wait_group", Imm(in.IntAttr(ir.AttrKeyPending))) }, ir.OpAsyncWait)
	set(func(e *emitter, in *ir.Instr) {
		e.barrier(in.IntAttr(ir.AttrKeyBarrierID), in.IntAttr(ir.AttrKeyThreads))
	}, ir.OpBarrier)
	set((*emitter).emitFragLoad, ir.OpFragLoad)
	set((*emitter).emitMMAStep, ir.OpMMAStep)
	set((*emitter).emitSmemStage, ir.OpSmemStage)
	set((*emitter).emitConvertLayout, ir.OpConvertLayout)
	set((*emitter).emitMMAFMA, ir.OpMMAFMA)
	set((*emitter).emitIndexed, ir.OpGather, ir.OpScatter, ir.OpAtomicRMW, ir.OpAtomicCAS)
	set((*emitter).emitCat, ir.OpCat)
	set((*emitter).emitExtract, ir.OpExtract)
	set((*emitter).emitInsert, ir.OpInsert)
	set((*emitter).emitScan, ir.OpScan)
	set((*emitter).emitFoldFn, ir.OpReduceFn, ir.OpScanFn)
	set((*emitter).emitAssert, ir.OpAssert)
	set((*emitter).emitVoteAll, ir.OpVoteAll)
	for op := ir.Op(1); op < ir.NumOps; op++ {
		if opEmitters[op] == nil {
			opEmitters[op] = (*emitter).emitValue // scalar and element-wise tile ops
		}
	}
}

// emitRegisterLoad emits a load into registers (shared-memory tiles are
// async copies by now).
func (e *emitter) emitRegisterLoad(in *ir.Instr) {
	if lower.InSmem(in) {
		e.fail("internal: a shared-tile load was not lowered to async copies (lower's pipeline pass)")
	}
	e.emitGlobalAccess(in, false)
}

// emitView emits permute, broadcast and reshape: views of shared tiles
// (a transpose, or the 2-D view of a window), or register tiles derived
// from their operand.
func (e *emitter) emitView(in *ir.Instr) {
	if lower.InSmem(in) {
		src := e.vals[in.Args[0]].smem
		if src == nil {
			e.fail("internal: shared view of a register tile")
		}
		v := &smemVal{tile: src.tile, base: src.base, trans: src.trans}
		if in.Op == ir.OpPermute {
			v.trans = !v.trans
		}
		e.vals[in.Result()] = &value{smem: v}
		return
	}
	if lower.GeneralReshape(in) {
		e.emitGeneralReshape(in)
		return
	}
	// The operand's layout is derived from the result's: the same
	// register indices hold the right elements (after a conversion when
	// the operand was given another layout).
	e.emitDerived(in)
}

// emitValue emits a scalar op, or an element-wise tile op element by
// element.
func (e *emitter) emitValue(in *ir.Instr) {
	if len(in.Results) != 1 {
		e.fail("%s is not supported yet", in.Op)
	}
	res := in.Result()
	switch res.Type.(type) {
	case *ir.Scalar:
		e.vals[res] = &value{reg: e.scalarOp(in, nil)}
	case *ir.Tile:
		lay := e.layout(res)
		regs := make([]Reg, lay.NumRegs())
		var coords [][]Reg
		if in.Op == ir.OpIota {
			coords = e.elemCoords(lay)
		}
		for r := range regs {
			c := lay.CanonicalReg(r)
			if c != r {
				regs[r] = regs[c]
				continue
			}
			regs[r] = e.elemOp(in, r, coords)
		}
		e.vals[res] = &value{regs: regs, lay: lay}
	default:
		e.fail("%s producing %s is not supported", in.Op, res.Type)
	}
}

func (e *emitter) layout(v *ir.Value) *lower.Layout {
	l, err := lower.LayoutOf(v)
	if err != nil {
		e.fail("%v", err)
	}
	if l == nil {
		e.fail("%s has no layout", v)
	}
	return l
}

// elemCoords returns, per register, the coordinate registers (iota).
func (e *emitter) elemCoords(l *lower.Layout) [][]Reg {
	tc := e.threadCoord(l)
	out := make([][]Reg, l.NumRegs())
	for r := range out {
		rc := l.RegCoord(r)
		out[r] = make([]Reg, len(tc))
		for d := range tc {
			x := e.newReg(B32)
			e.emit("add.s32", x, tc[d], Imm(rc[d]))
			out[r][d] = x
		}
	}
	return out
}

// threadCoord is, per dim, the part of the coordinate that comes from the
// thread's lane and warp bits.
func (e *emitter) threadCoord(l *lower.Layout) []Reg {
	key := fmt.Sprint("tc", l.Shape, l.Lane, l.Warp)
	out := make([]Reg, len(l.Shape))
	for d := range out {
		d := d
		out[d] = e.invariant(fmt.Sprint(key, d), func() Reg {
			acc := e.newReg(B32)
			e.emit("mov.u32", acc, Imm(0))
			add := func(src Reg, bases [][]int) {
				for b, v := range bases {
					if v[d] == 0 {
						continue
					}
					x := e.newReg(B32)
					e.emit("bfe.u32", x, src, Imm(b), Imm(1))
					y := e.newReg(B32)
					e.emit("mul.lo.u32", y, x, Imm(v[d]))
					z := e.newReg(B32)
					e.emit("or.b32", z, acc, y)
					acc = z
				}
			}
			add(e.lane, l.Lane)
			add(e.warp, l.Warp)
			return acc
		})
	}
	return out
}

// operandReg returns the register holding element r of a tile operand, or
// the scalar register (for scalar operands of elementwise ops).
func (e *emitter) operandReg(v *ir.Value, r int) Reg {
	x := e.vals[v]
	if x == nil {
		e.fail("internal: %s has no value", v)
	}
	if x.regs != nil {
		return x.regs[r]
	}
	return x.reg
}

// elemOp emits one element of a tile-valued instruction.
func (e *emitter) elemOp(in *ir.Instr, r int, coords [][]Reg) Reg {
	switch in.Op {
	case ir.OpSplat:
		return e.vals[in.Args[0]].reg
	case ir.OpIota:
		d := coords[r][len(coords[r])-1]
		return e.castInt(d, ir.I32, in.Result().Type.Elem())
	}
	if !in.Op.Info().Elementwise {
		e.fail("%s on tiles is not supported yet", in.Op)
	}
	args := make([]Reg, len(in.Args))
	for i, a := range in.Args {
		args[i] = e.operandReg(a, r)
	}
	return e.compute(in, args)
}

// scalarOp emits a scalar instruction; subst, when set, maps values to
// registers to use instead of their own (re-emitting loop index math).
func (e *emitter) scalarOp(in *ir.Instr, subst map[*ir.Value]Reg) Reg {
	switch in.Op {
	case ir.OpConst:
		return e.constReg(in.AttrOf(ir.AttrKeyValue), in.Result().Type.Elem())
	case ir.OpBlockID, ir.OpNumBlocks:
		ax := in.Axis()
		if ax < 0 || ax > 2 {
			e.fail("%s axis %d", in.Op, ax)
		}
		sr := []string{"%ctaid.x", "%ctaid.y", "%ctaid.z"}
		if in.Op == ir.OpNumBlocks {
			sr = []string{"%nctaid.x", "%nctaid.y", "%nctaid.z"}
		}
		r := e.newReg(B32)
		e.emit("mov.u32", r, Sym(sr[ax]))
		return r
	case ir.OpDim:
		a := e.arrs[in.Args[0]]
		ax := in.Axis()
		return a.dims[ax]
	case ir.OpStride:
		// The stride parameter is 64-bit; A.strides is int32 (cuTile's).
		r := e.newReg(B32)
		e.emit("cvt.u32.u64", r, e.arrs[in.Args[0]].strides[in.Axis()])
		return r
	}
	if !in.Op.Info().Elementwise {
		e.fail("%s on scalars is not supported yet", in.Op)
	}
	args := make([]Reg, len(in.Args))
	for i, a := range in.Args {
		if s, ok := subst[a]; ok {
			args[i] = s
		} else {
			args[i] = e.vals[a].reg
		}
	}
	return e.compute(in, args)
}

func (e *emitter) constReg(v any, d ir.DType) Reg {
	r := e.newReg(classOf(d))
	if d.IsFloat8() || d == ir.F8E8M0 {
		// A float8 value is its bit pattern in the low byte of a 32-bit
		// register; the constant's is rounded here once, as the
		// interpreter rounds it.
		var x float64
		switch c := v.(type) {
		case int64:
			x = float64(c)
		case float64:
			x = c
		case bool:
			x = float64(boolInt(c))
		default:
			e.fail("constant %v (%T) is not supported", v, v)
		}
		if d == ir.F8E8M0 {
			e.emit("mov.b32", r, Imm(e8m0Bits(x)))
			return r
		}
		e.emit("mov.b32", r, Imm(int64(scalar.Float8Bits(d == ir.F8E5M2, x))))
		return r
	}
	switch x := v.(type) {
	case int64:
		switch d {
		case ir.F32, ir.TF32:
			e.emit("mov.f32", r, F32Imm(float32(x)))
		case ir.F64:
			e.emit("mov.f64", r, F64Imm(float64(x)))
		case ir.F16, ir.BF16:
			return e.constReg(float64(x), d)
		case ir.Bool:
			e.emit("setp.ne.s32", r, Imm(x), Imm(0))
		case ir.I64, ir.U64:
			e.emit("mov.b64", r, Imm(x))
		default:
			e.emit("mov.b32", r, Imm(int64(int32(x))))
		}
	case float64:
		switch d {
		case ir.F32, ir.TF32:
			e.emit("mov.f32", r, F32Imm(float32(x)))
		case ir.F64:
			e.emit("mov.f64", r, F64Imm(x))
		case ir.F16, ir.BF16:
			f := e.newReg(F32)
			e.emit("mov.f32", f, F32Imm(float32(x)))
			e.emit("cvt.rn."+ptype(d)+".f32", r, f)
		case ir.I64, ir.U64:
			e.emit("mov.b64", r, Imm(int64(x)))
		case ir.I32, ir.I8, ir.I16, ir.U8, ir.U16, ir.U32:
			e.emit("mov.b32", r, Imm(int64(int32(x))))
		case ir.Bool:
			e.emit("setp.ne.s32", r, Imm(boolInt(x != 0)), Imm(0))
		}
	case bool:
		switch d {
		case ir.Bool:
			e.emit("setp.ne.s32", r, Imm(boolInt(x)), Imm(0))
		default:
			return e.constReg(int64(boolInt(x)), d)
		}
	default:
		e.fail("constant %v (%T) is not supported", v, v)
	}
	return r
}

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// barrier emits a barrier of the warps that run this code: the whole block
// (threads 0) or named barrier id of that many threads. It is the one
// place that writes bar.sync: lower's barriers pass decides where the
// barriers between ops go (the barrier op), and an exchange through the
// scratch region (exchangeSync) has one between its writes and reads.
func (e *emitter) barrier(id, threads int) {
	if threads > 0 {
		e.emit("bar.sync", Imm(id), Imm(threads))
		return
	}
	e.emit("bar.sync", Imm(0))
}

// exchangeSync is the barrier inside an exchange through the scratch
// region, between every thread's writes and every thread's reads. The
// barrier before the writes, where an earlier exchange may still be
// reading, is lower's (the barriers pass).
func (e *emitter) exchangeSync() { e.barrier(0, 0) }
