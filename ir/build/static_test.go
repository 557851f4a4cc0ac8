package build

import (
	"math"
	"testing"
)

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
