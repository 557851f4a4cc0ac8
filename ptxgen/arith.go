package ptxgen

import (
	"fmt"
	"math"
	"strings"

	"github.com/tilec/tilec/ir"
)

// compute emits one element of an elementwise op on registers.
func (e *emitter) compute(in *ir.Instr, args []Reg) Reg {
	res := in.Result().Type.Elem()
	switch in.Op {
	case ir.OpConvert:
		return e.convert(args[0], in.Args[0].Type.Elem(), res)
	case ir.OpSelect:
		return e.selectReg(args[0], args[1], args[2], res)
	case ir.OpCmp:
		return e.cmp(in.Pred(), args[0], args[1], in.Args[0].Type.Elem())
	case ir.OpBitcast:
		// The same bits in a register of the other class (f32 <-> i32, f64 <-> i64).
		r := e.newReg(classOf(res))
		e.emit("mov.b"+fmt.Sprint(8*res.Bytes()), r, args[0])
		return r
	case ir.OpIsNaN:
		x, d := args[0], in.Args[0].Type.Elem()
		if d == ir.F16 || d == ir.BF16 || d.IsFloat8() {
			x, d = e.convert(x, d, ir.F32), ir.F32
		}
		p := e.newReg(Pred)
		e.emit("testp.notanumber."+ptype(d), p, x)
		return p
	}
	d := in.Args[0].Type.Elem()
	if (in.Op == ir.OpMin || in.Op == ir.OpMax) && d.IsFloat() && in.Attrs.Get(ir.AttrKeyPropagateNaN) == true {
		return e.minMaxNaN(in.Op, args, d, in.Attrs.Get(ir.AttrKeyFTZ) == true)
	}
	if d == ir.F32 && in.Attrs.Get(ir.AttrKeyFTZ) == true {
		return e.arithFTZ(in.Op, args)
	}
	if d == ir.F16 || d == ir.BF16 || d.IsFloat8() {
		// Half-precision and float8 math goes through f32 and rounds once
		// (for float8, lower's check admits only the ops where that is the
		// interpreter's single rounding).
		wide := make([]Reg, len(args))
		for i, a := range args {
			wide[i] = e.convert(a, d, ir.F32)
		}
		r := e.arith(in.Op, wide, ir.F32)
		return e.convert(r, ir.F32, d)
	}
	if res.IsInt() && res.Bytes() < 4 {
		// Sub-word integers: 32-bit arithmetic, then wrapped to the width.
		return e.normalize(e.arith(in.Op, args, d), res)
	}
	return e.arith(in.Op, args, d)
}

// minMaxNaN is min or max with cuTile's propagate_nan=True: NaN if either
// operand is NaN (PTX's .NaN form; f16 and bf16 through f32, f64, which
// has no .NaN form, by a select). Without the attribute min and max are
// plain min.f32/max.f32, which ignore NaN as cuTile does by default.
func (e *emitter) minMaxNaN(op ir.Op, a []Reg, d ir.DType, ftz bool) Reg {
	name := map[ir.Op]string{ir.OpMin: "min", ir.OpMax: "max"}[op]
	switch d {
	case ir.F16, ir.BF16, ir.F8E4M3, ir.F8E5M2:
		r := e.minMaxNaN(op, []Reg{e.convert(a[0], d, ir.F32), e.convert(a[1], d, ir.F32)}, ir.F32, false)
		return e.convert(r, ir.F32, d)
	case ir.F64:
		r := e.newReg(F64)
		e.emit(name+".f64", r, a[0], a[1])
		p := e.newReg(Pred)
		e.emit("setp.nan.f64", p, a[0], a[1])
		n := e.newReg(F64)
		e.emit("add.rn.f64", n, a[0], a[1]) // a NaN where either is
		out := e.newReg(F64)
		e.emit("selp.f64", out, n, r, p)
		return out
	}
	if ftz {
		name += ".ftz"
	}
	r := e.newReg(F32)
	e.emit(name+".NaN.f32", r, a[0], a[1])
	return r
}

// arithFTZ is a float32 op of flush_to_zero=True (ir.AttrKeyFTZ): the
// instruction's .ftz form, which reads subnormal operands as zero and
// writes a subnormal result as zero. exp2 is then one MUFU.EX2: without
// .ftz ptxas wraps it in a compare, two multiplies and a select to produce
// subnormal results.
func (e *emitter) arithFTZ(op ir.Op, a []Reg) Reg {
	name, ok := ftzForms[op]
	if !ok {
		e.fail("%s has no .ftz form", op)
	}
	r := e.newReg(F32)
	args := []Operand{r}
	for _, x := range a {
		args = append(args, x)
	}
	e.emit(name, args...)
	return r
}

// ftzForms are the .ftz instructions of the ops that take ir.AttrKeyFTZ.
var ftzForms = map[ir.Op]string{
	ir.OpAdd: "add.rn.ftz.f32", ir.OpSub: "sub.rn.ftz.f32", ir.OpMul: "mul.rn.ftz.f32", ir.OpDiv: "div.rn.ftz.f32",
	ir.OpMin: "min.ftz.f32", ir.OpMax: "max.ftz.f32", ir.OpExp2: "ex2.approx.ftz.f32", ir.OpRsqrt: "rsqrt.approx.ftz.f32",
}

func (e *emitter) arith(op ir.Op, a []Reg, d ir.DType) Reg {
	t := ptype(d)
	r := e.newReg(classOf(d))
	isF := d.IsFloat()
	switch op {
	case ir.OpAdd, ir.OpSub, ir.OpMul:
		name := map[ir.Op]string{ir.OpAdd: "add", ir.OpSub: "sub", ir.OpMul: "mul"}[op]
		switch {
		case isF:
			e.emit(name+".rn."+t, r, a[0], a[1])
		case op == ir.OpMul:
			e.emit("mul.lo."+t, r, a[0], a[1])
		default:
			e.emit(name+"."+t, r, a[0], a[1])
		}
	case ir.OpDiv:
		if !isF {
			e.fail("integer true division reached the backend")
		}
		e.emit("div.rn."+t, r, a[0], a[1])
	case ir.OpMin, ir.OpMax:
		name := "min."
		if op == ir.OpMax {
			name = "max."
		}
		e.emit(name+t, r, a[0], a[1])
	case ir.OpFloorDiv, ir.OpMod:
		if isF {
			q := e.newReg(classOf(d))
			e.emit("div.rn."+t, q, a[0], a[1])
			fq := e.newReg(classOf(d))
			e.emit("cvt.rmi."+t+"."+t, fq, q)
			if op == ir.OpFloorDiv {
				return fq
			}
			// x - q*y in one rounding (fma): exact whenever q*y fits the
			// format's significand twice over (|x/y| below 2^24 for f32),
			// where a product rounded before the subtraction loses the
			// remainder's low bits. Below 2^24 the rounded quotient can
			// only reach the next integer up (every integer is
			// representable and rounding is monotonic), which leaves r
			// with the wrong sign: one y up brings it back.
			nq := e.newReg(classOf(d))
			e.emit("neg."+t, nq, fq)
			r0 := e.newReg(classOf(d))
			e.emit("fma.rn."+t, r0, nq, a[1], a[0])
			// r0's sign is not y's (and r0 is not zero): one y up.
			rneg, yneg, differ, nz := e.newReg(Pred), e.newReg(Pred), e.newReg(Pred), e.newReg(Pred)
			e.emit("setp.lt."+t, rneg, r0, e.zeroImm(d))
			e.emit("setp.lt."+t, yneg, a[1], e.zeroImm(d))
			e.emit("xor.pred", differ, rneg, yneg)
			e.emit("setp.ne."+t, nz, r0, e.zeroImm(d))
			wrongSign := e.newReg(Pred)
			e.emit("and.pred", wrongSign, differ, nz)
			up := e.newReg(classOf(d))
			e.emit("add.rn."+t, up, r0, a[1])
			e.emit("selp."+t, r, up, r0, wrongSign)
			// A zero remainder has the dividend's sign, as cuTile's C-style
			// remainder gives it (fmod(-3, 0.5) is -0; sub.rn makes +0).
			z := e.newReg(classOf(d))
			e.emit("copysign."+t, z, a[0], e.zeroImm(d))
			pz := e.newReg(Pred)
			e.emit("setp.eq."+t, pz, r, e.zeroImm(d))
			m := e.newReg(classOf(d))
			e.emit("selp."+t, m, z, r, pz)
			return m
		}
		if d.IsUnsigned() {
			return e.unsignedDivMod(op, a[0], a[1], d)
		}
		return e.pyDivMod(op, a[0], a[1], d)
	case ir.OpAnd, ir.OpOr, ir.OpXor:
		name := map[ir.Op]string{ir.OpAnd: "and", ir.OpOr: "or", ir.OpXor: "xor"}[op]
		bt := "b32"
		switch d {
		case ir.Bool:
			bt = "pred"
		case ir.I64, ir.U64:
			bt = "b64"
		}
		e.emit(name+"."+bt, r, a[0], a[1])
	case ir.OpShl, ir.OpShr:
		// PTX takes the count as an unsigned 32-bit value and clamps it to
		// the width: ir/scalar's semantics (a negative count is a huge one).
		n := a[1]
		bits := fmt.Sprint(max(32, 8*d.Bytes()))
		if d.Bytes() == 8 {
			c := e.newReg(B64)
			e.emit("min.u64", c, a[1], Imm(64))
			n = e.newReg(B32)
			e.emit("cvt.u32.u64", n, c)
		}
		switch {
		case op == ir.OpShl:
			e.emit("shl.b"+bits, r, a[0], n)
		case d.IsUnsigned():
			e.emit("shr.u"+bits, r, a[0], n)
		default:
			e.emit("shr.s"+bits, r, a[0], n)
		}
	case ir.OpFloor, ir.OpCeil:
		if !isF {
			e.fail("%s of %s reached the backend", op, d)
		}
		mode := map[ir.Op]string{ir.OpFloor: "rmi", ir.OpCeil: "rpi"}[op]
		e.emit("cvt."+mode+"."+t+"."+t, r, a[0])
	case ir.OpPow:
		if isF {
			return e.powFloat(a[0], a[1], d)
		}
		return e.powInt(a[0], a[1], d)
	case ir.OpAtan2:
		if d != ir.F32 && d != ir.TF32 {
			e.fail("atan2 on %s is not supported yet", d)
		}
		return e.atan2(a[0], a[1])
	case ir.OpNeg:
		e.emit("neg."+strings.Replace(t, "u", "s", 1), r, a[0])
	case ir.OpNot:
		switch d {
		case ir.Bool:
			e.emit("not.pred", r, a[0])
		case ir.I64, ir.U64:
			e.emit("not.b64", r, a[0])
		default:
			e.emit("not.b32", r, a[0])
		}
	case ir.OpAbs:
		if d.IsUnsigned() {
			return a[0]
		}
		e.emit("abs."+t, r, a[0])
	case ir.OpExp, ir.OpExp2, ir.OpLog, ir.OpSqrt, ir.OpRsqrt, ir.OpTanh,
		ir.OpLog2, ir.OpSin, ir.OpCos, ir.OpTan, ir.OpSinh, ir.OpCosh:
		if d != ir.F32 && d != ir.TF32 {
			if d == ir.F64 && op == ir.OpSqrt {
				e.emit("sqrt.rn.f64", r, a[0])
				return r
			}
			e.fail("%s on %s is not supported yet", op, d)
		}
		switch op {
		case ir.OpExp:
			x := e.newReg(F32)
			e.emit("mul.f32", x, a[0], F32Imm(1.4426950408889634))
			e.emit("ex2.approx.f32", r, x)
		case ir.OpExp2:
			e.emit("ex2.approx.f32", r, a[0])
		case ir.OpLog:
			x := e.newReg(F32)
			e.emit("lg2.approx.f32", x, a[0])
			e.emit("mul.f32", r, x, F32Imm(0.6931471805599453))
		case ir.OpSqrt:
			e.emit("sqrt.rn.f32", r, a[0])
		case ir.OpRsqrt:
			e.emit("rsqrt.approx.f32", r, a[0])
		case ir.OpTanh:
			e.emit("tanh.approx.f32", r, a[0])
		case ir.OpLog2:
			e.emit("lg2.approx.f32", r, a[0])
		case ir.OpSin:
			e.emit("sin.approx.f32", r, e.reduceTwoPi(a[0]))
		case ir.OpCos:
			e.emit("cos.approx.f32", r, e.reduceTwoPi(a[0]))
		case ir.OpTan:
			x := e.reduceTwoPi(a[0])
			sn, cs := e.newReg(F32), e.newReg(F32)
			e.emit("sin.approx.f32", sn, x)
			e.emit("cos.approx.f32", cs, x)
			e.emit("div.rn.f32", r, sn, cs)
		case ir.OpSinh, ir.OpCosh:
			// (e^x -+ e^-x) / 2 with e^y = 2^(y*log2(e)).
			x, nx := e.newReg(F32), e.newReg(F32)
			e.emit("mul.f32", x, a[0], F32Imm(1.4426950408889634))
			e.emit("neg.f32", nx, x)
			ep, en := e.newReg(F32), e.newReg(F32)
			e.emit("ex2.approx.f32", ep, x)
			e.emit("ex2.approx.f32", en, nx)
			d := e.newReg(F32)
			if op == ir.OpSinh {
				e.emit("sub.rn.f32", d, ep, en)
			} else {
				e.emit("add.rn.f32", d, ep, en)
			}
			e.emit("mul.rn.f32", r, d, F32Imm(0.5))
		}
	default:
		e.fail("%s is not supported yet", op)
	}
	return r
}

// reduceTwoPi is x minus the nearest multiple of 2*pi, for sin.approx and
// cos.approx: their error is 2^-20.9 absolute on [-pi, pi] only, and grows
// with |x| outside it (cos(x) at |x| near 50 was 1.3e-5 off on the H100,
// past the check's bound). 2*pi is split into a float32 head and tail, each
// product taken by one fma, so the reduced argument is accurate to a few
// ulps for |x| up to about 2^17 (rope's positions times frequencies); NaN
// and infinities stay NaN as sin and cos of them are. A zero keeps its sign
// (x - 0*2pi would make -0 into +0, and sin(-0) is -0).
func (e *emitter) reduceTwoPi(x Reg) Reg {
	k, r := e.newReg(F32), e.newReg(F32)
	e.emit("mul.rn.f32", k, x, F32Imm(1/(2*math.Pi)))
	e.emit("cvt.rni.f32.f32", k, k)
	e.emit("neg.f32", k, k)
	hi := float32(2 * math.Pi)
	lo := float32(2*math.Pi - float64(hi))
	e.emit("fma.rn.f32", r, k, F32Imm(float64(hi)), x)
	e.emit("fma.rn.f32", r, k, F32Imm(float64(lo)), r)
	z := e.newReg(Pred)
	e.emit("setp.eq.f32", z, x, F32Imm(0))
	e.emit("selp.f32", r, x, r, z)
	return r
}

// pyDivMod is Python's // and % on integers (floor division).
func (e *emitter) pyDivMod(op ir.Op, x, y Reg, d ir.DType) Reg {
	t := ptype(d)
	c := classOf(d)
	q := e.newReg(c)
	e.emit("div."+t, q, x, y)
	m := e.newReg(c)
	e.emit("rem."+t, m, x, y)
	// Adjust when the remainder is non-zero and its sign differs from y's.
	p1 := e.newReg(Pred)
	e.emit("setp.ne."+t, p1, m, Imm(0))
	sx := e.newReg(c)
	if d == ir.I64 {
		e.emit("xor.b64", sx, m, y)
	} else {
		e.emit("xor.b32", sx, m, y)
	}
	p2 := e.newReg(Pred)
	e.emit("setp.lt."+t, p2, sx, Imm(0))
	p := e.newReg(Pred)
	e.emit("and.pred", p, p1, p2)
	var r Reg
	if op == ir.OpFloorDiv {
		q1 := e.newReg(c)
		e.emit("sub."+t, q1, q, Imm(1))
		r = e.newReg(c)
		e.emit("selp."+btypeReg(c), r, q1, q, p)
	} else {
		m1 := e.newReg(c)
		e.emit("add."+t, m1, m, y)
		r = e.newReg(c)
		e.emit("selp."+btypeReg(c), r, m1, m, p)
	}
	// x // 0 and x % 0 are 0 (ir/scalar's rule, numpy's); PTX leaves the
	// quotient and remainder of a division by zero unspecified.
	z := e.newReg(Pred)
	e.emit("setp.eq."+t, z, y, Imm(0))
	out := e.newReg(c)
	e.emit("selp."+btypeReg(c), out, Imm(0), r, z)
	return out
}

func btypeReg(c RegClass) string {
	switch c {
	case B16:
		return "b16"
	case B64:
		return "b64"
	case F32:
		return "f32"
	case F64:
		return "f64"
	}
	return "b32"
}

func (e *emitter) cmp(pred string, x, y Reg, d ir.DType) Reg {
	if d == ir.F16 || d == ir.BF16 || d.IsFloat8() {
		x, y = e.convert(x, d, ir.F32), e.convert(y, d, ir.F32)
		d = ir.F32
	}
	r := e.newReg(Pred)
	if d == ir.Bool {
		switch pred {
		case ir.PredEQ:
			t := e.newReg(Pred)
			e.emit("xor.pred", t, x, y)
			e.emit("not.pred", r, t)
		case ir.PredNE:
			e.emit("xor.pred", r, x, y)
		default:
			e.fail("ordered comparison of bools is not supported")
		}
		return r
	}
	p := pred
	if d.IsFloat() {
		// Ordered comparisons are false on NaN, as in Python; != is true.
		if p == ir.PredNE {
			p = "neu"
		}
	}
	e.emit("setp."+p+"."+ptype(d), r, x, y)
	return r
}

func (e *emitter) selectReg(c, x, y Reg, d ir.DType) Reg {
	r := e.newReg(classOf(d))
	if d == ir.Bool {
		a := e.newReg(Pred)
		e.emit("and.pred", a, c, x)
		nc := e.newReg(Pred)
		e.emit("not.pred", nc, c)
		b := e.newReg(Pred)
		e.emit("and.pred", b, nc, y)
		e.emit("or.pred", r, a, b)
		return r
	}
	e.emit("selp."+btypeReg(classOf(d)), r, x, y, c)
	return r
}

// castInt converts an i32 register to dtype d.
func (e *emitter) castInt(x Reg, from, to ir.DType) Reg {
	return e.convert(x, from, to)
}

// convert changes a register's dtype: round to nearest even for narrowing
// floats, truncation toward zero for float -> int.
func (e *emitter) convert(x Reg, from, to ir.DType) Reg {
	if from == to || (from == ir.F32 && to == ir.TF32) || (from == ir.TF32 && to == ir.F32) {
		return x
	}
	if from == ir.TF32 {
		from = ir.F32
	}
	if to == ir.TF32 {
		to = ir.F32
	}
	if from.IsFloat8() || to.IsFloat8() {
		return e.convertFloat8(x, from, to)
	}
	if from == ir.F8E8M0 || to == ir.F8E8M0 {
		return e.convertE8M0(x, from, to)
	}
	r := e.newReg(classOf(to))
	switch {
	case from == ir.Bool:
		switch to {
		case ir.F16, ir.BF16:
			f := e.convert(x, ir.Bool, ir.F32)
			return e.convert(f, ir.F32, to)
		case ir.F32:
			e.emit("selp.f32", r, F32Imm(1), F32Imm(0), x)
		case ir.F64:
			e.emit("selp.f64", r, F64Imm(1), F64Imm(0), x)
		case ir.I64:
			e.emit("selp.b64", r, Imm(1), Imm(0), x)
		default:
			e.emit("selp.b32", r, Imm(1), Imm(0), x)
		}
	case to == ir.Bool:
		switch from {
		case ir.F16, ir.BF16:
			return e.convert(e.convert(x, from, ir.F32), ir.F32, ir.Bool)
		case ir.F32:
			// x != 0 with NaN true (ir.FloatToInt, Python's bool(nan)):
			// the unordered compare; setp.ne is false on NaN.
			e.emit("setp.neu.f32", r, x, F32Imm(0))
		case ir.F64:
			e.emit("setp.neu.f64", r, x, F64Imm(0))
		default:
			e.emit("setp.ne."+ptype(from), r, x, Imm(0))
		}
	case from == ir.BF16 && to == ir.F32:
		// cvt.f32.bf16 needs sm_90: shift the bits into the upper half.
		z := e.newReg(B16)
		e.emit("mov.b16", z, Imm(0))
		b := e.newReg(B32)
		e.emit("mov.b32", b, Vec{z, x})
		e.emit("mov.b32", r, b)
	case from == ir.BF16:
		return e.convert(e.convert(x, ir.BF16, ir.F32), ir.F32, to)
	case to == ir.BF16 && from != ir.F32:
		return e.convert(e.convert(x, from, ir.F32), ir.F32, ir.BF16)
	case from.IsFloat() && to.IsFloat():
		if to.Bytes() < from.Bytes() {
			e.emit("cvt.rn."+ptype(to)+"."+ptype(from), r, x)
		} else {
			e.emit("cvt."+ptype(to)+"."+ptype(from), r, x)
		}
	case from.IsFloat() && to.IsInt():
		// cvt saturates to the 32- or 64-bit range; sub-word dtypes are
		// then clamped to theirs. NaN gives 0 (ir/scalar.FloatToInt): the
		// 32-bit cvt does that, the 64-bit one gave INT64_MIN on the H100,
		// so a NaN is selected away there.
		e.emit("cvt.rzi."+ptype(to)+"."+ptype(from), r, x)
		if to.Bytes() == 8 {
			pn := e.newReg(Pred)
			e.emit("setp.nan."+ptype(from), pn, x, x)
			z := e.newReg(classOf(to))
			e.emit("selp.b64", z, Imm(0), r, pn)
			r = z
		}
		if to.Bytes() < 4 {
			lo, hi := ir.IntRange(to)
			c := e.newReg(B32)
			e.emit("min."+ptype(to), c, r, Imm(hi))
			r = e.newReg(B32)
			e.emit("max."+ptype(to), r, c, Imm(lo))
		}
	case from.IsInt() && to.IsFloat():
		e.emit("cvt.rn."+ptype(to)+"."+ptype(from), r, x)
	case from.IsInt() && to.IsInt():
		// Registers hold values extended from their width (ptype), so the
		// conversion is between the register types, then a wrap to a
		// sub-word width.
		pf, pt := ptype(from), ptype(to)
		if pf == pt {
			e.emit("mov."+btypeReg(r.Class), r, x)
		} else {
			e.emit("cvt."+pt+"."+pf, r, x)
		}
		return e.normalize(r, to)
	default:
		e.fail("convert %s -> %s is not supported", from, to)
	}
	return r
}

// float8Format is what the integer conversions need of a float8 dtype:
// its mantissa bits, the float32 mantissa bits below them, the bias
// difference (in float8 exponent units, shifted to the float8 exponent's
// place), the largest finite magnitude's bits, and the float32 bits of the
// smallest normal.
type float8Format struct {
	mant     int    // explicit mantissa bits: 3 (e4m3), 2 (e5m2)
	drop     int    // float32 mantissa bits below them: 20, 21
	rebias   int64  // (127 - bias) << mant: 960, 448
	maxBits  int64  // largest finite magnitude: 0x7e (448), 0x7b (57344)
	minNorm  int64  // float32 bits of the smallest normal: 2^-6, 2^-14
	subScale F32Imm // 1 / the smallest subnormal: 2^9, 2^16
}

func float8FormatOf(d ir.DType) float8Format {
	if d == ir.F8E5M2 {
		return float8Format{mant: 2, drop: 21, rebias: (127 - 15) << 2, maxBits: 0x7b, minNorm: (127 - 14) << 23, subScale: 0x1p16}
	}
	return float8Format{mant: 3, drop: 20, rebias: (127 - 7) << 3, maxBits: 0x7e, minNorm: (127 - 6) << 23, subScale: 0x1p9}
}

// convertFloat8 converts to or from a float8 dtype. Float8 values are bit
// patterns in the low byte of a 32-bit register (as ld.global.u8 leaves
// them). The conversions are integer and float32 operations that give the
// interpreter's bits (runtime.F8Bits and F8Float) on every target, sm_80
// included: widening is exact; narrowing rounds once to nearest even from
// the exact value, saturates to the largest finite value (infinities
// included) and makes NaN the format's NaN (0x7f) with the input's sign,
// as cuTile's conversion does. PTX's cvt.rn.satfinite.e4m3x2 (sm_89+)
// is not used: its NaN sign is not checked against the interpreter here.
func (e *emitter) convertFloat8(x Reg, from, to ir.DType) Reg {
	if from.IsFloat8() && to == ir.Bool {
		// x != 0, NaN included (ir.FloatToInt's rule; f32's setp.ne is
		// ordered and would make NaN false).
		return e.def(Pred, "setp.ne.u32", e.def(B32, "and.b32", x, Imm(0x7f)), Imm(0))
	}
	if from.IsFloat8() {
		f := e.float8ToF32(x, from)
		if to == ir.F32 || to == ir.TF32 {
			return f
		}
		return e.convert(f, ir.F32, to) // exact, or float32's own conversion
	}
	switch {
	case from == ir.F64:
		x = e.f64ToF32Odd(x)
	case from.IsInt():
		// Every 32-bit integer is exact in f64; a 64-bit one that is not
		// is far past the largest float8 and saturates either way.
		x = e.f64ToF32Odd(e.def(F64, "cvt.rn.f64."+ptype(from), x))
	case from != ir.F32 && from != ir.TF32:
		x = e.convert(x, from, ir.F32) // bool, f16, bf16: exact in f32
	}
	return e.f32ToFloat8(x, to)
}

// float8ToF32 widens float8 bits to the float32 of the same value.
func (e *emitter) float8ToF32(x Reg, d ir.DType) Reg {
	if d == ir.F8E5M2 {
		// e5m2 is the upper byte of a binary16: infinities, NaN and
		// subnormals come with it.
		h := e.def(B16, "cvt.u16.u32", e.def(B32, "shl.b32", x, Imm(8)))
		return e.def(F32, "cvt.f32.f16", h)
	}
	// e4m3fn: the magnitude's bits placed at float32's exponent and
	// mantissa are the value times 2^-120 (a float32 subnormal for
	// float8 subnormals), so one exact multiply by 2^120 gives it; 0x7f
	// is NaN (no infinities).
	mag := e.def(B32, "and.b32", x, Imm(0x7f))
	scaled := e.def(F32, "mov.b32", e.def(B32, "shl.b32", mag, Imm(20)))
	v := e.def(B32, "mov.b32", e.def(F32, "mul.rn.f32", scaled, F32Imm(0x1p120)))
	sign := e.def(B32, "shl.b32", e.def(B32, "and.b32", x, Imm(0x80)), Imm(24))
	bits := e.def(B32, "or.b32", v, sign)
	nan := e.def(Pred, "setp.eq.u32", mag, Imm(0x7f))
	return e.def(F32, "mov.b32", e.def(B32, "selp.b32", Imm(0x7fc00000), bits, nan))
}

// f32ToFloat8 rounds a float32 to float8 dtype d (see convertFloat8).
func (e *emitter) f32ToFloat8(x Reg, d ir.DType) Reg {
	ff := float8FormatOf(d)
	b := e.def(B32, "mov.b32", x)
	mag := e.def(B32, "and.b32", b, Imm(0x7fffffff))
	// Normal results: round the float32 bits to nearest even at the
	// float8 mantissa's last place, rebias the exponent; a carry out of
	// the mantissa steps the exponent, and anything past the largest
	// finite value (infinity too) clamps to it.
	odd := e.def(B32, "bfe.u32", mag, Imm(int64(ff.drop)), Imm(1))
	up := e.def(B32, "add.u32", e.def(B32, "add.u32", mag, Imm(1<<(ff.drop-1)-1)), odd)
	biased := e.def(B32, "sub.u32", e.def(B32, "shr.u32", up, Imm(int64(ff.drop))), Imm(ff.rebias))
	norm := e.def(B32, "min.u32", biased, Imm(ff.maxBits))
	// Subnormal results (magnitudes below the smallest normal): the
	// value in units of the smallest subnormal, rounded to nearest even
	// (exact scaling; a round up to the smallest normal gives its bits).
	units := e.def(F32, "mul.rn.f32", e.def(F32, "mov.b32", mag), ff.subScale)
	sub := e.def(B32, "cvt.rni.u32.f32", units)
	r := e.def(B32, "selp.b32", sub, norm, e.def(Pred, "setp.lt.u32", mag, Imm(ff.minNorm)))
	r = e.def(B32, "selp.b32", Imm(0x7f), r, e.def(Pred, "setp.gt.u32", mag, Imm(0x7f800000)))
	sign := e.def(B32, "shl.b32", e.def(B32, "shr.u32", b, Imm(31)), Imm(7))
	return e.def(B32, "or.b32", r, sign)
}

// f64ToF32Odd rounds a float64 to float32 by round-to-odd (toward zero,
// then the last bit set if that was inexact), so that rounding the result
// again to float8, which has far fewer bits, is the single rounding of
// the float64 (the classic double-rounding fix). NaN stays NaN and values
// past float32's range stay past float8's.
func (e *emitter) f64ToF32Odd(x Reg) Reg {
	z := e.def(F32, "cvt.rz.f32.f64", x)
	inexact := e.def(Pred, "setp.neu.f64", e.def(F64, "cvt.f64.f32", z), x)
	zb := e.def(B32, "mov.b32", z)
	odd := e.def(B32, "or.b32", zb, Imm(1))
	return e.def(F32, "mov.b32", e.def(B32, "selp.b32", odd, zb, inexact))
}

// def emits op into a fresh register of class c (its first operand) and
// returns the register.
func (e *emitter) def(c RegClass, op string, args ...Operand) Reg {
	r := e.newReg(c)
	e.emit(op, append([]Operand{r}, args...)...)
	return r
}

// pred emits setp and returns its predicate.
func (e *emitter) pred(op string, x, y Operand) Reg {
	p := e.newReg(Pred)
	e.emit(op, p, x, y)
	return p
}

// predOp combines predicates (and, or).
func (e *emitter) predOp(op string, x, y Reg) Reg {
	p := e.newReg(Pred)
	e.emit(op+".pred", p, x, y)
	return p
}

// powFloat is IEEE pow (math.Pow, the interpreter's) on f32 (f64 is
// rejected): |x|**y = 2**(y*log2|x|) through PTX's approximate ex2 and lg2,
// negated for a negative base and an odd integer exponent, NaN for a
// finite negative base and a non-integer exponent, and 1 where pow is 1
// whatever the other operand (y == 0, x == 1, x == -1 and y infinite).
func (e *emitter) powFloat(x, y Reg, d ir.DType) Reg {
	if d != ir.F32 && d != ir.TF32 {
		e.fail("pow on %s is not supported yet", d)
	}
	ax := e.newReg(F32)
	e.emit("abs.f32", ax, x)
	l := e.newReg(F32)
	e.emit("lg2.approx.f32", l, ax)
	tl := e.newReg(F32)
	e.emit("mul.f32", tl, y, l)
	m := e.newReg(F32)
	e.emit("ex2.approx.f32", m, tl)
	// y an integer (finite), and odd.
	yi := e.newReg(F32)
	e.emit("cvt.rzi.f32.f32", yi, y)
	isInt := e.pred("setp.eq.f32", yi, y)
	h := e.newReg(F32)
	e.emit("mul.f32", h, y, F32Imm(0.5))
	hi := e.newReg(F32)
	e.emit("cvt.rzi.f32.f32", hi, h)
	odd := e.predOp("and", isInt, e.pred("setp.neu.f32", hi, h))
	// The sign bit of x (so that -0 counts as negative).
	xb := e.newReg(B32)
	e.emit("mov.b32", xb, x)
	neg := e.pred("setp.lt.s32", xb, Imm(0))
	nm := e.newReg(F32)
	e.emit("neg.f32", nm, m)
	r := e.newReg(F32)
	e.emit("selp.f32", r, nm, m, e.predOp("and", neg, odd))
	// Finite negative x, finite non-integer y: NaN.
	finX := e.pred("setp.lt.f32", ax, F32Imm(float32(math.Inf(1))))
	ay := e.newReg(F32)
	e.emit("abs.f32", ay, y)
	finY := e.pred("setp.lt.f32", ay, F32Imm(float32(math.Inf(1))))
	notInt := e.newReg(Pred)
	e.emit("not.pred", notInt, isInt)
	bad := e.predOp("and", e.predOp("and", neg, e.pred("setp.lt.f32", x, F32Imm(0))), e.predOp("and", finX, e.predOp("and", finY, notInt)))
	r2 := e.newReg(F32)
	e.emit("selp.f32", r2, F32Imm(float32(math.NaN())), r, bad)
	one := e.predOp("or", e.pred("setp.eq.f32", y, F32Imm(0)), e.pred("setp.eq.f32", x, F32Imm(1)))
	one = e.predOp("or", one, e.predOp("and", e.pred("setp.eq.f32", ax, F32Imm(1)), e.pred("setp.eq.f32", ay, F32Imm(float32(math.Inf(1))))))
	out := e.newReg(F32)
	e.emit("selp.f32", out, F32Imm(1), r2, one)
	return out
}

// powInt is ir/scalar.Pow: binary exponentiation (wrapping) for y >= 0;
// for y < 0 the integer part of the true power (1 for x == 1, +-1 for
// x == -1, else 0).
func (e *emitter) powInt(x, y Reg, d ir.DType) Reg {
	c := classOf(d)
	t := ptype(d)
	bits := "b32"
	if c == B64 {
		bits = "b64"
	}
	r, b, n := e.newReg(c), e.newReg(c), e.newReg(c)
	e.emit("mov."+bits, r, Imm(1))
	e.emit("mov."+bits, b, x)
	e.emit("mov."+bits, n, y)
	loop, done := e.newLabel("pow"), e.newLabel("powdone")
	e.label(loop)
	stop := e.newReg(Pred)
	if d.IsUnsigned() {
		e.emit("setp.eq."+t, stop, n, Imm(0))
	} else {
		e.emit("setp.le."+t, stop, n, Imm(0))
	}
	e.emitIf(stop, false, "bra", Label(done))
	lo := e.newReg(c)
	e.emit("and."+bits, lo, n, Imm(1))
	odd := e.pred("setp.ne."+bits, lo, Imm(0))
	mt := "mul.lo.s32"
	if c == B64 {
		mt = "mul.lo.s64"
	}
	e.emitIf(odd, false, mt, r, r, b)
	e.emit(mt, b, b, b)
	if c == B64 {
		e.emit("shr.u64", n, n, Imm(1))
	} else {
		e.emit("shr.u32", n, n, Imm(1))
	}
	e.emit("bra", Label(loop))
	e.label(done)
	if d.IsUnsigned() {
		return e.normalize(r, d)
	}
	// y < 0.
	negY := e.newReg(Pred)
	e.emit("setp.lt."+t, negY, y, Imm(0))
	yo := e.newReg(c)
	e.emit("and."+bits, yo, y, Imm(1))
	yOdd := e.pred("setp.ne."+bits, yo, Imm(0))
	m1 := e.newReg(c)
	e.emit("selp."+bits, m1, Imm(-1), Imm(1), yOdd)
	isM1 := e.newReg(Pred)
	e.emit("setp.eq."+t, isM1, x, Imm(-1))
	isOne := e.newReg(Pred)
	e.emit("setp.eq."+t, isOne, x, Imm(1))
	v := e.newReg(c)
	e.emit("selp."+bits, v, m1, Imm(0), isM1)
	v2 := e.newReg(c)
	e.emit("selp."+bits, v2, Imm(1), v, isOne)
	out := e.newReg(c)
	e.emit("selp."+bits, out, v2, r, negY)
	return e.normalize(out, d)
}

// atan2 is the angle of (x, y) in f32: atan of min(|x|,|y|)/max(|x|,|y|)
// in [0, 1] by a range reduction to |t| <= tan(pi/8) and an odd
// polynomial, then reflected into the quadrant (the signs of zeros as in
// IEEE atan2: atan2(+-0, -0) = +-pi). NaN operands give NaN.
func (e *emitter) atan2(y, x Reg) Reg {
	f := func(op string, args ...Operand) Reg {
		r := e.newReg(F32)
		e.emit(op, append([]Operand{r}, args...)...)
		return r
	}
	ax, ay := f("abs.f32", x), f("abs.f32", y)
	mx, mn := f("max.f32", ax, ay), f("min.f32", ax, ay)
	q := f("div.rn.f32", mn, mx)
	// 0/0 and inf/inf: the ratio is 0 and 1.
	q = f("selp.f32", F32Imm(0), q, e.pred("setp.eq.f32", mx, F32Imm(0)))
	inf := F32Imm(float32(math.Inf(1)))
	q = f("selp.f32", F32Imm(1), q, e.pred("setp.eq.f32", mn, inf))
	// atan(q), q in [0, 1]: above tan(pi/8), atan(q) = pi/4 + atan((q-1)/(q+1)).
	big := e.pred("setp.gt.f32", q, F32Imm(0.41421356237309503))
	qm, qp := f("sub.rn.f32", q, F32Imm(1)), f("add.rn.f32", q, F32Imm(1))
	z0 := f("div.rn.f32", qm, qp)
	z := f("selp.f32", z0, q, big)
	base := f("selp.f32", F32Imm(math.Pi/4), F32Imm(0), big)
	z2 := f("mul.rn.f32", z, z)
	// atan(z) ~ z + z*z2*P(z2) on |z| <= tan(pi/8).
	p := f("fma.rn.f32", z2, F32Imm(8.05374449538e-2), F32Imm(-1.38776856032e-1))
	p = f("fma.rn.f32", p, z2, F32Imm(1.99777106478e-1))
	p = f("fma.rn.f32", p, z2, F32Imm(-3.33329491539e-1))
	zz := f("mul.rn.f32", z2, z)
	a := f("fma.rn.f32", p, zz, z)
	a = f("add.rn.f32", a, base)
	// |y| > |x|: pi/2 - a; x negative (sign bit): pi - a; y negative: -a.
	a = f("selp.f32", f("sub.rn.f32", F32Imm(math.Pi/2), a), a, e.pred("setp.gt.f32", ay, ax))
	xb := e.newReg(B32)
	e.emit("mov.b32", xb, x)
	a = f("selp.f32", f("sub.rn.f32", F32Imm(math.Pi), a), a, e.pred("setp.lt.s32", xb, Imm(0)))
	yb := e.newReg(B32)
	e.emit("mov.b32", yb, y)
	a = f("selp.f32", f("neg.f32", a), a, e.pred("setp.lt.s32", yb, Imm(0)))
	nan := e.predOp("or", e.pred("setp.nan.f32", x, x), e.pred("setp.nan.f32", y, y))
	return f("selp.f32", F32Imm(float32(math.NaN())), a, nan)
}

// normalize re-extends a sub-word integer held in a 32-bit register after
// 32-bit arithmetic (sign for signed, zero for unsigned dtypes); other
// dtypes are returned as they are.
func (e *emitter) normalize(x Reg, d ir.DType) Reg {
	if d.Bytes() >= 4 || !d.IsInt() {
		return x
	}
	r := e.newReg(B32)
	if d.IsUnsigned() {
		e.emit("and.b32", r, x, Imm(int64(1)<<(8*d.Bytes())-1))
	} else {
		e.emit("bfe.s32", r, x, Imm(0), Imm(int64(8*d.Bytes())))
	}
	return r
}

// unsignedDivMod is // and % on unsigned integers (floor is truncation);
// division by zero gives 0, as ir/scalar defines it.
func (e *emitter) unsignedDivMod(op ir.Op, x, y Reg, d ir.DType) Reg {
	t := ptype(d)
	c := classOf(d)
	r := e.newReg(c)
	if op == ir.OpFloorDiv {
		e.emit("div."+t, r, x, y)
	} else {
		e.emit("rem."+t, r, x, y)
	}
	z := e.newReg(Pred)
	e.emit("setp.eq."+t, z, y, Imm(0))
	out := e.newReg(c)
	e.emit("selp."+btypeReg(c), out, Imm(0), r, z)
	return out
}
