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

// PyRange against Python's range: lengths and items of rising, falling and
// empty ranges, the limit checked before anything is built (a range of 2^64
// - 1 items), and extreme bounds whose distance does not fit an int64.
func TestPyRange(t *testing.T) {
	for _, c := range []struct {
		xs   []int64
		want []int64
	}{
		{[]int64{4}, []int64{0, 1, 2, 3}},
		{[]int64{0}, []int64{}},
		{[]int64{-2}, []int64{}},
		{[]int64{2, 9, 3}, []int64{2, 5, 8}},
		{[]int64{2, 8, 3}, []int64{2, 5}},
		{[]int64{5, 0, -2}, []int64{5, 3, 1}},
		{[]int64{5, 5, -1}, []int64{}},
		{[]int64{0, 5, -1}, []int64{}},
		{[]int64{math.MaxInt64 - 1, math.MaxInt64, 7}, []int64{math.MaxInt64 - 1}},
		{[]int64{math.MinInt64, math.MaxInt64, math.MaxInt64}, []int64{math.MinInt64, -1, math.MaxInt64 - 1}},
	} {
		got, ok := PyRange(c.xs, 10)
		if !ok || len(got) != len(c.want) {
			t.Errorf("PyRange(%v) = %v, %v; want %v", c.xs, got, ok, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("PyRange(%v) = %v, want %v", c.xs, got, c.want)
				break
			}
		}
	}
	if got, ok := PyRange([]int64{math.MinInt64, math.MaxInt64}, 1000); ok {
		t.Errorf("PyRange(min, max) = %d items, want over the limit", len(got))
	}
	if _, ok := PyRange([]int64{11}, 10); ok {
		t.Errorf("PyRange(11) with limit 10: want over the limit")
	}
	if got, ok := PyRange([]int64{10}, 10); !ok || len(got) != 10 {
		t.Errorf("PyRange(10) with limit 10 = %d items, %v; want 10", len(got), ok)
	}
}
