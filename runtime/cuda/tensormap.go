package cuda

import "fmt"
import "github.com/tilec/tilec/runtime"

// tensorMapGeometry is the shape part of a TMA descriptor of t (the CUDA
// backend's tensorMap; PTX.md 3.5), innermost dimension first: the
// extents, the byte strides of dimensions 1.. and the box, box[0]
// columns by box[1] rows, one element deep along the outer axes of a 3-D
// or 4-D array (a copy takes one matrix: a batch, or a batch and a head of
// (B, H, S, D) attention arrays, whose indices are then the coordinates).
//
// TMA wants every extent at least 1 and every stride at least the extent
// below it; an empty array is never read (its loops run no iteration) but
// still needs a valid map, so both are raised to those minimums.
func tensorMapGeometry(t *runtime.Tensor, box [2]int) (dims, strides []uint64, boxes []uint32, err error) {
	r := len(t.Shape)
	if r < 2 || r > 4 || len(t.Strides) != r || t.Strides[r-1] != 1 {
		return nil, nil, nil, fmt.Errorf("shape %v strides %v is not a row-major 2-D, 3-D or 4-D array", t.Shape, t.Strides)
	}
	dims = make([]uint64, r)
	strides = make([]uint64, r-1)
	boxes = []uint32{uint32(box[0]), uint32(box[1]), 1, 1}[:r]
	below := 1
	for i := 0; i < r; i++ {
		ax := r - 1 - i
		dims[i] = uint64(max(t.Shape[ax], 1))
		if i > 0 {
			strides[i-1] = uint64(max(t.Strides[ax], below) * t.DType.Bytes())
		}
		below = max(t.Strides[ax], below) * int(dims[i])
	}
	return dims, strides, boxes, nil
}
