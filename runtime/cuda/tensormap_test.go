package cuda

import (
	"slices"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/runtime"
)

// TestTensorMapGeometry: the dims, byte strides and box of the TMA maps of
// 2-D, 3-D and 4-D arrays, innermost first; (B, H, S, D) attention arrays
// get boxes {64, rows, 1, 1} so that a copy's coordinates are {col, row,
// h, b}.
func TestTensorMapGeometry(t *testing.T) {
	for _, c := range []struct {
		shape, strides []int
		dims, bytes    []uint64
		box            []uint32
	}{
		{[]int{100, 72}, []int{72, 1}, []uint64{72, 100}, []uint64{144}, []uint32{64, 128}},
		{[]int{3, 100, 72}, []int{7200, 72, 1}, []uint64{72, 100, 3}, []uint64{144, 14400}, []uint32{64, 128, 1}},
		{[]int{2, 3, 333, 64}, []int{3 * 333 * 64, 333 * 64, 64, 1}, []uint64{64, 333, 3, 2}, []uint64{128, 333 * 128, 3 * 333 * 128}, []uint32{64, 128, 1, 1}},
		// Empty arrays still get a valid map: extents 1, strides at least
		// the extent below.
		{[]int{0, 3, 0, 64}, []int{0, 0, 64, 1}, []uint64{64, 1, 3, 1}, []uint64{128, 128, 384}, []uint32{64, 128, 1, 1}},
	} {
		tn := &runtime.Tensor{DType: ir.F16, Shape: c.shape, Strides: c.strides}
		dims, bytes, box, err := tensorMapGeometry(tn, [2]int{64, 128})
		if err != nil {
			t.Errorf("%v: %v", c.shape, err)
			continue
		}
		if !slices.Equal(dims, c.dims) || !slices.Equal(bytes, c.bytes) || !slices.Equal(box, c.box) {
			t.Errorf("%v strides %v: dims %v strides %v box %v, want %v %v %v", c.shape, c.strides, dims, bytes, box, c.dims, c.bytes, c.box)
		}
	}
	for _, shape := range [][]int{{64}, {1, 2, 3, 4, 64}} {
		tn := &runtime.Tensor{DType: ir.F16, Shape: shape, Strides: runtime.RowMajorStrides(shape)}
		if _, _, _, err := tensorMapGeometry(tn, [2]int{64, 64}); err == nil {
			t.Errorf("%v: no error", shape)
		}
	}
}
