package lower

// Pass check.
// Requires: fold.
// Guarantees: the kernel uses only ops, dtypes and shapes that ptxgen
// handles for the target; otherwise an error naming the op and the target.

import (
	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/lang"
)

// Check is the check pass. It reports every instruction the target cannot
// run, not only the first (one error per instruction, sorted; see
// checkErrors), so that a user sees at once what keeps a kernel off the GPU.
func Check(f *ir.Func, t *Target) error {
	var errs []error
	f.Body.Walk(func(in *ir.Instr) {
		var err error
		defer func() {
			if err != nil {
				errs = append(errs, err)
			}
		}()
		if err = checkScaled(t, in); err != nil {
			return
		}
		for _, v := range append(append([]*ir.Value(nil), in.Args...), in.Results...) {
			d := v.Type.Elem()
			if d.IsFloat8() {
				if err = checkFloat8(t, in, d); err != nil {
					return
				}
				continue
			}
			if in.Op == ir.OpBitcast && d.IsInt() && d.Bytes() < 4 {
				err = unsupportedAt(t, in, "%s: dtype %s is not supported on the GPU yet", in.Op, d)
				return
			}
		}
		for _, r := range in.Results {
			if tt, ok := r.Type.(*ir.Tile); ok {
				if tt.NumElements() > 1<<20 {
					err = unsupportedAt(t, in, "%s: tile %s is too large", in.Op, tt)
					return
				}
			}
		}
		switch in.Op {
		case ir.OpReduce:
			x := in.Args[0].Type.(*ir.Tile)
			kind := in.Kind()
			switch {
			case x.DType == ir.F64:
				err = unsupportedAt(t, in, "reduce %s of f64 is not supported yet", kind)
			case x.DType == ir.Bool:
				err = unsupportedAt(t, in, "reduce %s of bool is not supported yet", kind)
			case x.DType == ir.I64 && (kind == ir.ReduceArgmax || kind == ir.ReduceArgmin):
				err = unsupportedAt(t, in, "%s of i64 is not supported yet", kind)
			}
		case ir.OpScan:
			if d := in.Result().Type.Elem(); d == ir.F64 || d == ir.Bool {
				err = unsupportedAt(t, in, "scan of %s is not supported on the GPU yet", d)
			}
		case ir.OpPow, ir.OpAtan2:
			if d := in.Result().Type.Elem(); d == ir.F64 {
				err = unsupportedAt(t, in, "%s on f64 is not supported on the GPU yet", in.Op)
			}
		case ir.OpAtomicRMW, ir.OpAtomicCAS, ir.OpAtomicRMWOffset, ir.OpAtomicCASOffset:
			err = checkAtomic(t, in)
		case ir.OpReduceFn, ir.OpScanFn:
			if len(in.Results) != 1 {
				err = unsupportedAt(t, in, "%s of %d tiles is not supported on the GPU yet (one tile is)", in.Op, len(in.Results))
			} else if d := in.Args[0].Type.Elem(); d == ir.Bool {
				err = unsupportedAt(t, in, "%s of bool is not supported on the GPU yet", in.Op)
			}
		case ir.OpPrintf, ir.OpPackBytes, ir.OpUnpackBytes:
			err = unsupportedAt(t, in, "%s is not supported on the GPU yet (the interpreter runs it)", in.Op)
		case ir.OpMMA:
			if !t.MMAImplemented() {
				alt, _ := BestTarget(t.CC)
				err = unsupportedAt(t, in, "mma through %s is not implemented yet; --target %s runs this kernel on the same GPU with mma.sync", t.Emitted, alt)
				return
			}
			a, b, c := in.Args[0].Type.Elem(), in.Args[1].Type.Elem(), in.Result().Type.Elem()
			switch {
			case a.IsFloat8() && b.IsFloat8():
				if err = checkFloat8MMA(t, in, a, b, c); err != nil {
					return
				}
			case a.IsByteInt() && b.IsByteInt() && c == ir.I32:
				// mma.sync m16n8k32 .s32 with .s8/.u8 operands (sm_80 and
				// later; the verifier allows no other accumulator).
			case c == ir.F32 && a == b && (a == ir.F16 || a == ir.BF16 || a == ir.F32 || a == ir.TF32):
			default:
				err = unsupportedAt(t, in, "mma %s x %s -> %s is not supported yet (f16, bf16, f32/tf32 inputs with an f32 accumulator are; float8 inputs on sm_89 and later; int8 and uint8 into i32)", a, b, c)
				return
			}
			s := in.Result().Type.(*ir.Tile).Shape
			ak := in.Args[0].Type.(*ir.Tile).Shape
			if len(s) != 2 {
				err = unsupportedAt(t, in, "batched mma is not supported yet")
				return
			}
			kstep := ir.MMAKStep(a)
			if s[0]%16 != 0 || s[1]%16 != 0 || ak[1]%kstep != 0 {
				err = unsupportedAt(t, in, "mma tile %dx%dx%d: M and N must be multiples of 16 and K of %d", s[0], s[1], ak[1], kstep)
			}
		case ir.OpExp, ir.OpExp2, ir.OpLog, ir.OpSqrt, ir.OpRsqrt, ir.OpTanh,
			ir.OpLog2, ir.OpSin, ir.OpCos, ir.OpTan, ir.OpSinh, ir.OpCosh:
			if d := in.Result().Type.Elem(); d == ir.F64 {
				err = unsupportedAt(t, in, "%s on f64 is not supported yet", in.Op)
			}
		}
	})
	return checkErrors(errs)
}

// checkErrors combines the errors of Check: one error as it is, several
// positioned ones as a sorted lang.ErrorList without duplicates (a helper
// inlined twice gives the same error twice). An unpositioned error (IR read
// from text) is returned alone, first.
func checkErrors(errs []error) error {
	if len(errs) <= 1 {
		if len(errs) == 1 {
			return errs[0]
		}
		return nil
	}
	var list lang.ErrorList
	for _, err := range errs {
		e, ok := err.(*lang.Error)
		if !ok {
			return err
		}
		list.Add(e)
	}
	list.Sort()
	if len(list) == 1 {
		return list[0]
	}
	return list
}

// float8Ops are the ops the GPU runs on float8 (e4m3fn, e5m2) tiles. Their
// values are bit patterns in the low byte of 32-bit registers; ptxgen
// converts them exactly (integer ops matching runtime.F8Bits and F8Float)
// and computes the arithmetic below in float32, rounding once to float8.
// Those are exactly the interpreter's single rounding of the exact result:
// products of two float8 values are exact in float32, and so are sums and
// differences unless the operands' exponents are more than 20 apart, when
// the smaller one is far below half a float8 ulp of the larger and both
// roundings give the larger; a float32 quotient correctly rounded cannot
// land on a float8 rounding midpoint unless the exact quotient is one. Ops
// computed by approximations (exp, sin, ...) and reductions are left to
// the interpreter until their results are shown to round the same way.
var float8Ops = map[ir.Op]bool{
	ir.OpLoad: true, ir.OpStore: true, ir.OpConvert: true, ir.OpMMA: true,
	ir.OpScatter: true, ir.OpGather: true, ir.OpConst: true, ir.OpDim: true, ir.OpStride: true,
	ir.OpLoadOffset: true, ir.OpStoreOffset: true, ir.OpArraySlice: true,
	ir.OpSelect: true, ir.OpBroadcast: true, ir.OpReshape: true, ir.OpPermute: true,
	ir.OpCat: true, ir.OpExtract: true, ir.OpInsert: true, ir.OpSplat: true,
	ir.OpFor: true, ir.OpIf: true, ir.OpWhile: true, ir.OpYield: true,
	ir.OpAdd: true, ir.OpSub: true, ir.OpMul: true, ir.OpDiv: true,
	ir.OpMin: true, ir.OpMax: true, ir.OpNeg: true, ir.OpAbs: true,
	ir.OpCmp: true, ir.OpIsNaN: true,
}

// checkFloat8 rejects the uses of float8 dtype d that the GPU does not run:
// ops outside float8Ops. (Constants are their rounded bit patterns,
// ptxgen's constReg; a gather's padding is one.)
func checkFloat8(t *Target, in *ir.Instr, d ir.DType) error {
	if !float8Ops[in.Op] {
		return unsupportedAt(t, in, "%s: dtype %s is not supported on the GPU yet (convert with ct.astype to float32 first)", in.Op, d)
	}
	return nil
}

// checkFloat8MMA accepts float8 inputs (e4m3 or e5m2, mixed or not) into an
// f32 accumulator: mma.sync m16n8k32 with .e4m3/.e5m2 operands on sm_89 and
// later (PTX ISA 8.4), f16 m16n8k16 on the operands converted before
// (ptxgen's float8FragmentsToF16). The .f16 accumulator form needs PTX ISA
// 8.7, past what the ptxas tilec is checked with.
func checkFloat8MMA(t *Target, in *ir.Instr, a, b, c ir.DType) error {
	if c != ir.F32 {
		return unsupportedAt(t, in, "mma %s x %s -> %s is not supported on the GPU yet (float8 inputs accumulate in f32 there)", a, b, c)
	}
	return nil
}

// checkAtomic rejects the atomics that PTX has no instruction for on the
// target: a bf16 add before sm_90.
func checkAtomic(t *Target, in *ir.Instr) error {
	d := in.Args[0].Type.(*ir.Array).DType
	if (in.Op == ir.OpAtomicRMW || in.Op == ir.OpAtomicRMWOffset) && in.Kind() == ir.AtomicAdd && d == ir.BF16 && t.CC < 90 {
		return unsupportedAt(t, in, "atomic_rmw add of bf16 needs sm_90 (atom.add.bf16); use f32 or f16 on %s", t)
	}
	return nil
}

// maxTileRegs bounds the registers one thread may hold for a single tile
// value. The mma accumulator of the seed's 128x256 tile takes 128; a tile
// needing thousands would make PTX of many megabytes that the JIT cannot
// allocate anyway, so it is a user error with a hint instead.
const maxTileRegs = 512

// checkRegisterBudget runs after AssignLayouts: every register tile must fit
// in maxTileRegs registers per thread.
func checkRegisterBudget(f *ir.Func, t *Target) error {
	var err error
	uses := Uses(f)
	f.Body.Walk(func(in *ir.Instr) {
		if err != nil || len(in.Results) != 1 {
			return
		}
		if in.Op.Info().Global == ir.GlobalAtomic && len(uses[in.Result()]) > 0 {
			// The owner warp's old values would have to reach the warps
			// holding copies through shared memory; not done yet.
			if l, lerr := LayoutOf(in.Result()); lerr == nil && l != nil && l.ReplicatedWarpMask() != 0 {
				err = unsupportedAt(t, in, "%s: the old values of a tile of %s are not supported yet (a tile with fewer elements than the block's threads; use a larger tile or drop the result)", in.Op, in.Result().Type)
				return
			}
		}
		tt, ok := in.Result().Type.(*ir.Tile)
		if !ok {
			return
		}
		l, lerr := LayoutOf(in.Result())
		if lerr != nil || l.Kind == ir.LayoutSmem {
			return
		}
		if n := l.NumRegs(); n > maxTileRegs {
			err = unsupported(t, "%s needs %d registers per thread (at most %d); use smaller tiles", tt, n, maxTileRegs)
		}
	})
	return err
}
