package check

// This file derives, for each element a kernel writes, the scale its
// rounding errors are bounded by: the same computation done on magnitudes
// (|a| for every input a, sums of absolute values instead of sums). For a
// polynomial kernel (adds, multiplies, mmas, max/min, selects, data
// movement) an element computed as sum_k a_ik*b_kj + c differs between two
// correct implementations (other summation orders, fused multiply-adds,
// tensor cores) by at most a few units of the accumulator's precision times
// sum_k |a_ik||b_kj| + |c|, which is what the magnitude run computes. The
// check bounds each element by that, instead of by the largest value of the
// whole output (where an error of 1.5 on an element of size 1 passes when
// another element is 155).

import (
	"fmt"
	"math"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/runtime"
)

// magnitudeKernel returns a copy of f that computes, from the magnitudes of
// f's float inputs, an upper bound of the magnitudes of every partial result
// of f: sub becomes add, neg becomes abs, float constants their absolute
// value, select the larger of its two values and min the larger of its two
// operands (|min(a, b)| <= max(|a|, |b|)), padding of -inf or NaN becomes
// zero. Integer computations (indices, masks, loop bounds) are unchanged:
// the magnitude run takes the same control flow and writes the same
// elements as the kernel.
//
// It returns nil and the reason when f is not polynomial in its float
// inputs: an op whose result's error is not bounded by its operands'
// magnitudes times a unit roundoff (div, exp, sqrt, pow, ...), or a float
// that decides control flow, an index or an integer (a float compare that
// feeds anything but a select, a float-to-integer conversion, isnan,
// bitcast). The caller falls back to the output's largest value as the scale.
func magnitudeKernel(f *ir.Func) (*ir.Func, string) {
	if reason := notPolynomial(f); reason != "" {
		return nil, reason
	}
	g, err := ir.ParseFunc(ir.Print(f))
	if err != nil {
		return nil, fmt.Sprintf("the kernel's IR does not round-trip: %v", err)
	}
	g.Body.Walk(func(in *ir.Instr) {
		float := len(in.Results) > 0 && isFloatValue(in.Results[0])
		if to, ok := magnitudeOps[in.Op]; ok && float {
			in.Op = to
		}
		switch in.Op {
		case ir.OpSelect:
			if float {
				in.Op = ir.OpMax
				in.Args = in.Args[1:]
			}
		case ir.OpConst:
			if x, ok := in.AttrOf(ir.AttrKeyValue).(float64); ok {
				in.Attrs.Set(ir.AttrKeyValue, math.Abs(x))
			}
		case ir.OpReduce:
			if float && in.Kind() == ir.ReduceMin {
				in.Attrs.Set(ir.AttrKeyKind, ir.ReduceMax)
			}
		case ir.OpAtomicRMW, ir.OpAtomicRMWOffset:
			if in.Kind() == ir.AtomicMin && isFloatValue(in.Results[0]) {
				in.Attrs.Set(ir.AttrKeyKind, ir.AtomicMax)
			}
		case ir.OpLoad:
			switch in.Pad() {
			case ir.PadNegInf, ir.PadNaN, ir.PadPosInf, ir.PadNegZero:
				in.Attrs.Set(ir.AttrKeyPad, ir.PadZero)
			}
		}
	})
	return g, ""
}

// magnitudeOps are the float ops whose magnitude form is another op:
// |x - y| <= |x| + |y|, |-x| = |x|, |min(x, y)| <= max(|x|, |y|).
var magnitudeOps = map[ir.Op]ir.Op{ir.OpSub: ir.OpAdd, ir.OpNeg: ir.OpAbs, ir.OpMin: ir.OpMax}

// notPolynomial says why f's float results are not a polynomial of its
// float inputs that magnitudeKernel can bound, or "" when they are.
func notPolynomial(f *ir.Func) string {
	if f.Body == nil {
		return "no body"
	}
	// Uses of each float compare: only select conditions are allowed.
	condOnly := map[*ir.Value]bool{}
	var reason string
	f.Body.Walk(func(in *ir.Instr) {
		if in.Op == ir.OpCmp && isFloatValue(in.Args[0]) {
			condOnly[in.Results[0]] = true
		}
	})
	f.Body.Walk(func(in *ir.Instr) {
		for i, a := range in.Args {
			if condOnly[a] && !(in.Op == ir.OpSelect && i == 0) {
				if reason == "" {
					reason = fmt.Sprintf("a float comparison decides %s", in.Op.Info().Name)
				}
			}
		}
		if reason != "" {
			return
		}
		floatArg := len(in.Args) > 0 && isFloatValue(in.Args[0])
		switch in.Op {
		case ir.OpAdd, ir.OpSub, ir.OpMul, ir.OpNeg, ir.OpAbs, ir.OpMin, ir.OpMax, ir.OpMMA,
			ir.OpSelect, ir.OpSplat, ir.OpIota, ir.OpBroadcast, ir.OpReshape, ir.OpPermute,
			ir.OpCat, ir.OpExtract, ir.OpInsert, ir.OpLoad, ir.OpStore, ir.OpGather, ir.OpScatter,
			ir.OpFor, ir.OpIf, ir.OpWhile, ir.OpYield, ir.OpReturn, ir.OpConst, ir.OpBlockID,
			ir.OpNumBlocks, ir.OpDim, ir.OpStride, ir.OpAssert, ir.OpPrintf, ir.OpCmp,
			ir.OpReduceFn, ir.OpScanFn, ir.OpLoadOffset, ir.OpStoreOffset, ir.OpArraySlice:
			return
		case ir.OpAnd, ir.OpOr, ir.OpXor, ir.OpNot, ir.OpShl, ir.OpShr, ir.OpFloorDiv, ir.OpMod:
			if !floatArg {
				return
			}
		case ir.OpConvert:
			// float -> float and int -> int keep the bound; int -> float may be
			// negative and float -> int makes a float decide an integer.
			if floatArg == isFloatValue(in.Results[0]) {
				return
			}
		case ir.OpReduce:
			switch in.Kind() {
			case ir.ReduceSum, ir.ReduceMax, ir.ReduceMin, ir.ReduceProd:
				return
			}
		case ir.OpScan:
			return // sum or product
		case ir.OpAtomicRMW, ir.OpAtomicRMWOffset:
			if !isFloatValue(in.Results[0]) {
				return
			}
			switch in.Kind() {
			case ir.AtomicAdd, ir.AtomicMax, ir.AtomicMin, ir.AtomicXchg:
				return
			}
		case ir.OpAtomicCAS, ir.OpAtomicCASOffset:
			if !isFloatValue(in.Results[0]) {
				return
			}
		}
		if !floatArg && len(in.Results) > 0 && !isFloatValue(in.Results[0]) {
			return // integer arithmetic: indices, masks, bounds
		}
		reason = fmt.Sprintf("%s is not polynomial", in.Op.Info().Name)
		if in.Pos.IsValid() {
			reason += fmt.Sprintf(" at %d:%d", in.Pos.Line, in.Pos.Col)
		}
	})
	return reason
}

// isFloatValue reports whether v is a float scalar or tile.
func isFloatValue(v *ir.Value) bool {
	if v == nil || v.Type == nil {
		return false
	}
	switch t := v.Type.(type) {
	case *ir.Scalar, *ir.Tile:
		return t.Elem().IsFloat()
	}
	return false
}

// absArgs returns a copy of args with every float tensor and float scalar
// replaced by its absolute value (NaN stays NaN).
func absArgs(args []runtime.Arg) []runtime.Arg {
	out := CloneArgs(args)
	for i, a := range out {
		switch x := a.(type) {
		case *runtime.Tensor, []*runtime.Tensor:
			for _, t := range runtime.ArgTensors(x) {
				if t != nil && t.DType.IsFloat() {
					t.ForEachElem(func(e int) {
						if v := t.ElemAt(e); v < 0 || (v == 0 && math.Signbit(v)) {
							t.SetElemAt(e, -v)
						}
					})
				}
			}
		case float64:
			out[i] = math.Abs(x)
		case float32:
			out[i] = float32(math.Abs(float64(x)))
		}
	}
	return out
}

// unitRoundoff is half the distance from 1 to the next value of d (u, the
// relative error of one correctly rounded operation); 0 for non-floats.
func unitRoundoff(d ir.DType) float64 {
	if m := mantissaBits(d); m > 0 {
		return math.Ldexp(1, -m-1)
	}
	return 0
}

// mantissaBits is the number of stored fraction bits of a float dtype.
func mantissaBits(d ir.DType) int {
	switch d {
	case ir.F64:
		return 52
	case ir.F32:
		return 23
	case ir.TF32, ir.F16:
		return 10
	case ir.BF16:
		return 7
	case ir.F8E4M3:
		return 3
	case ir.F8E5M2:
		return 2
	}
	return 0
}

// minNormalExp is the exponent of the smallest normal value of a float dtype.
func minNormalExp(d ir.DType) int {
	switch d {
	case ir.F64:
		return -1022
	case ir.F32, ir.TF32, ir.BF16:
		return -126
	case ir.F16, ir.F8E5M2:
		return -14
	case ir.F8E4M3:
		return -6
	}
	return 0
}

// ulpOf is the spacing of d's values at |x| (the unit in the last place;
// subnormal spacing below the smallest normal); 0 for non-floats and
// non-finite x.
func ulpOf(d ir.DType, x float64) float64 {
	m := mantissaBits(d)
	if m == 0 || math.IsInf(x, 0) || x != x {
		return 0
	}
	e := minNormalExp(d)
	if x != 0 {
		_, exp := math.Frexp(math.Abs(x)) // |x| = frac * 2^exp, frac in [0.5, 1)
		e = max(exp-1, e)
	}
	return math.Ldexp(1, e-m)
}

// kernelRoundoff is the unit roundoff that bounds f's arithmetic: the
// largest u among the float results of its arithmetic ops (the mma
// accumulators, the dtypes elementwise math runs in), and tf32's where an
// mma takes tf32 inputs (tensor cores may round them otherwise than the
// interpreter). Conversions are not arithmetic: the output's own rounding
// is the bound's separate ulp term.
func kernelRoundoff(f *ir.Func) float64 {
	u := 0.0
	if f == nil || f.Body == nil {
		return u
	}
	f.Body.Walk(func(in *ir.Instr) {
		switch in.Op {
		case ir.OpAdd, ir.OpSub, ir.OpMul, ir.OpMMA, ir.OpReduce, ir.OpScan, ir.OpAtomicRMW, ir.OpAtomicRMWOffset,
			ir.OpDiv, ir.OpPow, ir.OpExp, ir.OpExp2, ir.OpLog, ir.OpLog2, ir.OpSqrt, ir.OpRsqrt, ir.OpTanh:
			if len(in.Results) > 0 && isFloatValue(in.Results[0]) {
				u = max(u, unitRoundoff(in.Results[0].Type.Elem()))
			}
		}
		if in.Op == ir.OpMMA && isFloatValue(in.Args[0]) && in.Args[0].Type.Elem() == ir.TF32 {
			u = max(u, unitRoundoff(ir.TF32))
		}
	})
	return u
}
