package ir

import (
	"math"
	"testing"
)

// The arithmetic is tested in package scalar; these tests pin how dtypes
// and ops map onto it.

func TestWrapIntByDType(t *testing.T) {
	for _, tc := range []struct {
		d    DType
		x    int64
		want int64
	}{
		{I32, math.MaxInt32 + 1, math.MinInt32},
		{I32, 1<<32 + 5, 5},
		{I32, -1, -1},
		{I64, math.MinInt64, math.MinInt64},
		{Bool, 2, 1},
		{Bool, 0, 0},
		{Bool, -1, 1},
	} {
		if got := WrapInt(tc.d, tc.x); got != tc.want {
			t.Errorf("WrapInt(%v, %d) = %d, want %d", tc.d, tc.x, got, tc.want)
		}
	}
}

func TestFloatToIntByDType(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		d    DType
		x    float64
		want int64
	}{
		{I32, 2.9, 2},
		{I32, -2.9, -2},
		{I32, 3e9, math.MaxInt32},
		{I32, -3e9, math.MinInt32},
		{I32, nan, 0},
		{I64, 1e19, math.MaxInt64},
		{I64, -1e19, math.MinInt64},
		{I64, nan, 0},
		{Bool, nan, 1}, // NaN != 0, as Python's bool(nan)
		{Bool, 0.5, 1},
		{Bool, math.Copysign(0, -1), 0},
	} {
		if got := FloatToInt(tc.d, tc.x); got != tc.want {
			t.Errorf("FloatToInt(%v, %g) = %d, want %d", tc.d, tc.x, got, tc.want)
		}
	}
}

// TestEvalCoversElementwiseOps checks that every elementwise op of the
// table has an evaluation (cmp, select, convert, isnan and bitcast are
// evaluated by their users: they need a predicate, a condition or two
// dtypes).
func TestEvalCoversElementwiseOps(t *testing.T) {
	for op := Op(1); op < NumOps; op++ {
		if !op.Info().Elementwise || op == OpCmp || op == OpSelect || op == OpConvert || op == OpIsNaN || op == OpBitcast {
			continue
		}
		_, fb := EvalFloatBinary(op, 1, 2)
		_, ib := EvalIntBinary(op, 1, 2)
		_, fu := EvalFloatUnary(op, 1)
		_, iu := EvalIntUnary(op, I32, 1)
		if op.Info().NumArgs == 2 && !fb && !ib || op.Info().NumArgs == 1 && !fu && !iu {
			t.Errorf("%s has no evaluation", op)
		}
	}
	if r, ok := EvalIntBinary(OpFloorDiv, -7, 2); !ok || r != -4 {
		t.Errorf("floordiv -7, 2 = %d, %v", r, ok)
	}
	if r, ok := EvalFloatBinary(OpMax, 1, math.NaN()); !ok || !math.IsNaN(r) {
		t.Errorf("max 1, NaN = %g, %v", r, ok)
	}
	if r, ok := EvalIntUnary(OpNot, Bool, 1); !ok || r != 0 {
		t.Errorf("not true = %d, %v", r, ok)
	}
}
