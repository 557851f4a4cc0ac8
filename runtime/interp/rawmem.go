package interp

// Views and element offsets of an array: array_slice, and the
// element-offset accesses (load_offset, store_offset, atomic_rmw_offset,
// atomic_cas_offset), which run through the gather, scatter and atomic
// handlers with rawOffset in place of the index bounds check.

import (
	"fmt"
	"slices"
)

// rawOffset is the Data element at offset x (in elements) from array
// ar's first element. cuTile adds the offset to the base address with no
// check (an offset outside the array's memory is undefined, and a
// negative one, or one wrapped around from an unsigned offset, reaches the
// memory before it, as address arithmetic wraps); the interpreter, the
// reference, accepts exactly the offsets inside the tensor's storage and
// reports the others.
func rawOffset(c *cinstr, ar *arrayRef, x int64) (int, bool, error) {
	t := ar.t
	n := int64(len(t.Data) / t.DType.Bytes())
	lo, hi := -int64(t.Offset), n-int64(t.Offset)
	if x < lo || x >= hi {
		return 0, false, fmt.Errorf("%s: element offset %d is outside the memory of %s (offsets %d to %d from its first element)", c.op, x, ar.name, lo, hi-1)
	}
	return t.Offset + int(x), true, nil
}

// execArraySlice makes the view of an array between start and stop along
// the axis: the same storage, the base moved to start, the extent
// stop - start. cuTile asks 0 <= start <= stop <= extent and leaves
// others undefined; the interpreter reports them.
func execArraySlice(fr *frame, c *cinstr) error {
	a := fr.regs[c.args[0]].a
	bound := func(k int) int64 {
		v := fr.regs[c.args[k]]
		if v.t != nil {
			return v.t.i[0] // a rank-0 tile
		}
		return v.i
	}
	start, stop := bound(1), bound(2)
	n := int64(a.t.Shape[c.axis])
	if start < 0 || stop < start || stop > n {
		return fmt.Errorf("slice of %s along axis %d: start %d and stop %d must satisfy 0 <= start <= stop <= %d (the extent)", a.name, c.axis, start, stop, n)
	}
	t := *a.t
	t.Shape = slices.Clone(a.t.Shape)
	t.Shape[c.axis] = int(stop - start)
	t.Offset += int(start) * t.Strides[c.axis]
	fr.regs[c.res[0]] = val{a: &arrayRef{name: fmt.Sprintf("%s.slice(%d, %d, %d)", a.name, c.axis, start, stop), t: &t}}
	return nil
}
