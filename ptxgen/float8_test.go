package ptxgen

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/lower"
	"github.com/tilec/tilec/runtime"
)

// The float8 conversions are straight-line integer and float32 code; these
// tests run the instructions convert emits on a small evaluator of exactly
// those instructions and compare the bits with the interpreter's
// (runtime.F8Bits, F8Float), exhaustively where the input has 8 or 16
// bits and around every rounding boundary for float32 and float64.

// convProgram is the code of one convert from -> to, run by evalConv.
type convProgram struct {
	code []Instr
	in   Reg
	out  Reg
}

func compileConv(t *testing.T, from, to ir.DType) convProgram {
	t.Helper()
	e := &emitter{t: lower.MustTarget("sm_80"), inv: map[string]Reg{}}
	e.cur = &e.code
	in := e.newReg(classOf(from))
	var out Reg
	func() {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("convert %s -> %s: %v", from, to, r)
			}
		}()
		out = e.convert(in, from, to)
	}()
	return convProgram{code: e.code, in: in, out: out}
}

// evalConv runs p on the input bits x (float bits for float registers,
// the value for integers, 0/1 for predicates) and returns the output's.
func evalConv(t *testing.T, p convProgram, x uint64) uint64 {
	regs := map[Reg]uint64{p.in: x}
	evalCode(t, p.code, regs, nil)
	return regs[p.out]
}

// evalCode runs code on regs; memory accesses read and write mem at the
// address's value (an offset into mem).
func evalCode(t *testing.T, code []Instr, regs map[Reg]uint64, mem []byte) {
	for _, in := range code {
		evalInstr(t, in, regs, mem)
	}
}

// evalInstr runs one instruction of one thread (see evalCode).
func evalInstr(t *testing.T, in Instr, regs map[Reg]uint64, mem []byte) {
	t.Helper()
	val := func(o Operand) uint64 {
		switch v := o.(type) {
		case Reg:
			r, ok := regs[v]
			if !ok {
				t.Fatalf("read of unset %s", v)
			}
			return r
		case Imm:
			return uint64(v)
		case F32Imm:
			return uint64(math.Float32bits(float32(v)))
		case F64Imm:
			return math.Float64bits(float64(v))
		}
		t.Fatalf("operand %v", o)
		return 0
	}
	f32 := func(o Operand) float32 { return math.Float32frombits(uint32(val(o))) }
	f64 := func(o Operand) float64 { return math.Float64frombits(val(o)) }
	u32 := func(o Operand) uint32 { return uint32(val(o)) }
	{
		if in.Guard != nil && (val(*in.Guard) != 0) == in.Neg {
			return
		}
		a := in.Args
		set := func(v uint64) { regs[a[0].(Reg)] = v }
		b2u := func(b bool) uint64 {
			if b {
				return 1
			}
			return 0
		}
		switch in.Op {
		case "and.b32":
			set(uint64(u32(a[1]) & u32(a[2])))
		case "or.b32":
			set(uint64(u32(a[1]) | u32(a[2])))
		case "shl.b32":
			set(uint64(u32(a[1]) << u32(a[2])))
		case "shr.u32":
			set(uint64(u32(a[1]) >> u32(a[2])))
		case "add.u32":
			set(uint64(u32(a[1]) + u32(a[2])))
		case "sub.u32":
			set(uint64(u32(a[1]) - u32(a[2])))
		case "min.u32":
			set(uint64(min(u32(a[1]), u32(a[2]))))
		case "min.s32":
			set(uint64(uint32(min(int32(u32(a[1])), int32(u32(a[2]))))))
		case "max.s32":
			set(uint64(uint32(max(int32(u32(a[1])), int32(u32(a[2]))))))
		case "bfe.u32":
			set(uint64(u32(a[1]) >> u32(a[2]) & (1<<u32(a[3]) - 1)))
		case "mov.b32", "mov.f32", "mov.u32":
			if v, ok := a[1].(Vec); ok { // {lo16, hi16}
				set(val(v[0])&0xffff | (val(v[1])&0xffff)<<16)
			} else {
				set(uint64(u32(a[1])))
			}
		case "mov.b16":
			set(val(a[1]) & 0xffff)
		case "mul.rn.f32":
			set(uint64(math.Float32bits(f32(a[1]) * f32(a[2]))))
		case "cvt.rni.u32.f32":
			x := f32(a[1])
			switch {
			case x != x || x <= 0:
				set(0)
			case x >= 1<<32:
				set(math.MaxUint32)
			default:
				set(uint64(uint32(math.RoundToEven(float64(x)))))
			}
		case "cvt.u16.u32":
			set(val(a[1]) & 0xffff)
		case "cvt.f32.f16":
			set(uint64(math.Float32bits(float32(runtime.F16Float(uint16(val(a[1])))))))
		case "cvt.rn.f16.f32":
			set(uint64(runtime.F16Bits(float64(f32(a[1])))))
		case "cvt.rn.bf16.f32":
			set(uint64(runtime.BF16Bits(float64(f32(a[1])))))
		case "cvt.f64.f32":
			set(math.Float64bits(float64(f32(a[1]))))
		case "cvt.rz.f32.f64":
			x := f64(a[1])
			r := float32(x)
			if !math.IsNaN(x) && !math.IsInf(x, 0) && math.Abs(float64(r)) > math.Abs(x) {
				r = math.Nextafter32(r, 0) // round toward zero
			}
			set(uint64(math.Float32bits(r)))
		case "cvt.rn.f64.s32":
			set(math.Float64bits(float64(int32(u32(a[1])))))
		case "cvt.rn.f64.u32":
			set(math.Float64bits(float64(u32(a[1]))))
		case "cvt.rn.f64.s64":
			set(math.Float64bits(float64(int64(val(a[1])))))
		case "cvt.rn.f64.u64":
			set(math.Float64bits(float64(val(a[1]))))
		case "cvt.rzi.s32.f32":
			x := float64(f32(a[1]))
			switch {
			case x != x:
				set(0)
			case x >= math.MaxInt32:
				set(uint64(uint32(math.MaxInt32)))
			case x <= math.MinInt32:
				set(uint64(uint32(1 << 31)))
			default:
				set(uint64(uint32(int32(x))))
			}
		case "setp.ne.u32":
			set(b2u(u32(a[1]) != u32(a[2])))
		case "setp.eq.u32":
			set(b2u(u32(a[1]) == u32(a[2])))
		case "setp.lt.u32":
			set(b2u(u32(a[1]) < u32(a[2])))
		case "setp.gt.u32":
			set(b2u(u32(a[1]) > u32(a[2])))
		case "setp.neu.f64":
			x, y := f64(a[1]), f64(a[2])
			set(b2u(x != y))
		case "setp.ne.f32":
			x, y := f32(a[1]), f32(a[2])
			set(b2u(x == x && y == y && x != y))
		case "setp.neu.f32":
			set(b2u(f32(a[1]) != f32(a[2])))
		case "selp.b32", "selp.f32":
			if val(a[3]) != 0 {
				set(uint64(u32(a[1])))
			} else {
				set(uint64(u32(a[2])))
			}
		case "mad.lo.u32":
			set(uint64(u32(a[1])*u32(a[2]) + u32(a[3])))
		case "mul.lo.u32":
			set(uint64(u32(a[1]) * u32(a[2])))
		case "xor.b32":
			set(uint64(u32(a[1]) ^ u32(a[2])))
		case "ld.shared.u8":
			ad := a[1].(Addr)
			set(uint64(mem[int(val(ad.Base))+int(ad.Off)]))
		case "bfi.b32":
			pos, n := u32(a[3]), u32(a[4])
			m := uint32(1<<n-1) << pos
			set(uint64(u32(a[2])&^m | u32(a[1])<<pos&m))
		case "bfe.s32":
			pos, n := u32(a[2]), u32(a[3])
			set(uint64(uint32(int32(u32(a[1])<<(32-pos-n)) >> (32 - n))))
		case "ld.global.v2.b32", "ld.global.v4.b32", "st.global.v2.b32", "st.global.v4.b32":
			var vec Vec
			var ad Addr
			if in.Op[:2] == "st" {
				vec, ad = a[1].(Vec), a[0].(Addr)
			} else {
				vec, ad = a[0].(Vec), a[1].(Addr)
			}
			at := int(val(ad.Base)) + int(ad.Off)
			if at%(4*len(vec)) != 0 {
				t.Fatalf("misaligned %s at %d", in, at)
			}
			for i, r := range vec {
				w := mem[at+4*i : at+4*i+4]
				if in.Op[:2] == "st" {
					binary.LittleEndian.PutUint32(w, u32(r))
				} else {
					regs[r.(Reg)] = uint64(binary.LittleEndian.Uint32(w))
				}
			}
		default:
			t.Fatalf("evaluator: unsupported %s", in)
		}
	}
}

var float8Types = []ir.DType{ir.F8E4M3, ir.F8E5M2}

// TestFloat8FromF32Bits: float32 -> float8 gives runtime.F8Bits's bits for
// every sign, exponent and top 7 mantissa bits, with low bits at and
// around the rounding ties, and random ones.
func TestFloat8FromF32Bits(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 32))
	lows := []uint32{0, 1, 0x7ffff, 0x80000, 0x80001, 0xfffff, 0xffff, 0x10000}
	for _, d := range float8Types {
		p := compileConv(t, ir.F32, d)
		bad := 0
		for hi := uint32(0); hi < 1<<13; hi++ {
			for _, lo := range append(lows, rng.Uint32()&0x7ffff, rng.Uint32()&0x1fffff) {
				for _, b := range []uint32{hi<<19 | lo&0x7ffff, hi<<19 | lo&0x1fffff&^(1<<20) | 1<<20} {
					x := math.Float32frombits(b)
					got := uint8(evalConv(t, p, uint64(b)))
					if want := runtime.F8Bits(d, float64(x)); got != want && bad < 10 {
						bad++
						t.Errorf("%s(%g = %#08x) = %#02x, want %#02x", d, x, b, got, want)
					}
				}
			}
		}
	}
}

// TestFloat8ToF32Bits: float8 -> float32 is exact for all 256 patterns of
// both formats (NaN for NaN).
func TestFloat8ToF32Bits(t *testing.T) {
	for _, d := range float8Types {
		p := compileConv(t, d, ir.F32)
		for h := 0; h < 256; h++ {
			got := math.Float32frombits(uint32(evalConv(t, p, uint64(h))))
			want := float32(runtime.F8Float(d, uint8(h)))
			if !(got == want && math.Signbit(float64(got)) == math.Signbit(float64(want)) || got != got && want != want) {
				t.Errorf("%s bits %#02x: got %g, want %g", d, h, got, want)
			}
		}
	}
}

// TestFloat8ConversionsExhaustive: every f16 and bf16 pattern into each
// float8, every float8 into f16, bf16, f64, i32 and the other float8, and
// integers through the saturation range, against the interpreter's
// rounding of the same values.
func TestFloat8ConversionsExhaustive(t *testing.T) {
	for _, d := range float8Types {
		for _, src := range []ir.DType{ir.F16, ir.BF16} {
			p := compileConv(t, src, d)
			for h := 0; h < 1<<16; h++ {
				v := runtime.F16Float(uint16(h))
				if src == ir.BF16 {
					v = runtime.BF16Float(uint16(h))
				}
				if got, want := uint8(evalConv(t, p, uint64(h))), runtime.F8Bits(d, v); got != want {
					t.Fatalf("%s -> %s of %#04x (%g): got %#02x, want %#02x", src, d, h, v, got, want)
				}
			}
		}
		for _, dst := range []ir.DType{ir.F16, ir.BF16, ir.F64, ir.I32, ir.F8E4M3, ir.F8E5M2} {
			if dst == d {
				continue
			}
			p := compileConv(t, d, dst)
			for h := 0; h < 256; h++ {
				v := runtime.F8Float(d, uint8(h))
				got := evalConv(t, p, uint64(h))
				var want uint64
				switch dst {
				case ir.F16:
					want = uint64(runtime.F16Bits(v))
				case ir.BF16:
					want = uint64(runtime.BF16Bits(v))
				case ir.F64:
					want = math.Float64bits(v)
					if v != v && math.IsNaN(math.Float64frombits(got)) {
						want = got
					}
				case ir.I32:
					want = uint64(uint32(int32(ir.FloatToInt(ir.I32, v))))
				default:
					want = uint64(runtime.F8Bits(dst, v))
				}
				if got != want {
					t.Errorf("%s -> %s of %#02x (%g): got %#x, want %#x", d, dst, h, v, got, want)
				}
			}
		}
		for _, src := range []ir.DType{ir.I32, ir.I64, ir.U32} {
			p := compileConv(t, src, d)
			check := func(i int64) {
				bits := uint64(i)
				v := float64(i)
				if src == ir.I32 {
					bits, v = uint64(uint32(int32(i))), float64(int32(i))
				}
				if src == ir.U32 {
					v = float64(uint32(i))
					bits = uint64(uint32(i))
				}
				if got, want := uint8(evalConv(t, p, bits)), runtime.F8Bits(d, v); got != want {
					t.Fatalf("%s -> %s of %d: got %#02x, want %#02x", src, d, i, got, want)
				}
			}
			for i := int64(-70000); i <= 70000; i++ {
				check(i)
			}
			for _, i := range []int64{math.MaxInt32, math.MinInt32, math.MaxInt64, math.MinInt64, 1 << 53, 1<<53 + 1} {
				check(i)
			}
		}
	}
}

// TestFloat8FromF64Bits: float64 -> float8 rounds once (round-to-odd to
// float32 first): values a hair off every float8 rounding midpoint, and
// the midpoints themselves, and the specials.
func TestFloat8FromF64Bits(t *testing.T) {
	for _, d := range float8Types {
		p := compileConv(t, ir.F64, d)
		check := func(x float64) {
			if got, want := uint8(evalConv(t, p, math.Float64bits(x))), runtime.F8Bits(d, x); got != want {
				t.Fatalf("f64 -> %s of %g (%#016x): got %#02x, want %#02x", d, x, math.Float64bits(x), got, want)
			}
		}
		for _, x := range []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), -math.NaN(), math.MaxFloat64, 1e-300, 5e-324} {
			check(x)
		}
		for h := 0; h < 255; h++ {
			lo, hi := runtime.F8Float(d, uint8(h)), runtime.F8Float(d, uint8(h+1))
			if lo != lo || hi != hi || math.IsInf(hi, 0) || h == 0x7f {
				continue
			}
			mid := (lo + hi) / 2
			for _, x := range []float64{mid, math.Nextafter(mid, math.Inf(1)), math.Nextafter(mid, math.Inf(-1)),
				mid + math.Abs(mid)*0x1p-30, mid - math.Abs(mid)*0x1p-30, mid + math.Abs(mid)*0x1p-25, lo, hi} {
				check(x)
				check(-x)
			}
		}
	}
}

// TestFloat8Bool: bool -> float8 is 0 or 1, float8 -> bool is x != 0,
// NaN included (ir.FloatToInt).
func TestFloat8Bool(t *testing.T) {
	for _, d := range float8Types {
		p := compileConv(t, ir.Bool, d)
		for b := uint64(0); b < 2; b++ {
			if got, want := uint8(evalConv(t, p, b)), runtime.F8Bits(d, float64(b)); got != want {
				t.Errorf("bool %d -> %s: got %#02x, want %#02x", b, d, got, want)
			}
		}
		p = compileConv(t, d, ir.Bool)
		for h := 0; h < 256; h++ {
			v := runtime.F8Float(d, uint8(h))
			if got, want := evalConv(t, p, uint64(h)) != 0, v != 0; got != want {
				t.Errorf("%s %#02x -> bool: got %v, want %v", d, h, got, want)
			}
		}
	}
}

// TestFloatToBoolNaN: a float -> bool conversion is x != 0 with NaN true,
// as the interpreter's (ir.FloatToInt); PTX's setp.ne gave false.
func TestFloatToBoolNaN(t *testing.T) {
	for _, d := range []ir.DType{ir.F32, ir.F64, ir.F16, ir.BF16} {
		p := compileConv(t, d, ir.Bool)
		for _, x := range []float64{math.NaN(), 0, math.Copysign(0, -1), 1, math.Inf(-1)} {
			bits := uint64(math.Float32bits(float32(x)))
			switch d {
			case ir.F64:
				bits = math.Float64bits(x)
			case ir.F16:
				bits = uint64(runtime.F16Bits(x))
			case ir.BF16:
				bits = uint64(runtime.BF16Bits(x))
			}
			if got, want := evalConv(t, p, bits) != 0, ir.FloatToInt(ir.Bool, x) == 1; got != want {
				t.Errorf("%s %g -> bool: got %v, want %v", d, x, got, want)
			}
		}
	}
}
