package ir

// Views and element offsets of an array: array_slice (cuTile's
// Array.slice) and the raw-memory accesses load_offset, store_offset,
// atomic_rmw_offset and atomic_cas_offset (cuTile's
// Array.get_raw_memory().load_offset and friends), which address an
// array's memory by element offsets from its first element, without its
// shape or strides.

// inferArraySlice: an array of the operand's dtype and rank, sliced along
// an axis in range, between integer scalar or rank-0 tile bounds.
func inferArraySlice(in *Instr) ([]Type, string) {
	arr, ok := in.Args[0].Type.(*Array)
	if !ok {
		return fail("operand %v has type %v, want an array", in.Args[0], in.Args[0].Type)
	}
	if ax := in.Attrs.Int(AttrKeyAxis); ax < 0 || ax >= arr.Rank {
		return fail("axis %v out of range for %v", in.Attrs.Get(AttrKeyAxis), arr)
	}
	for _, x := range in.Args[1:] {
		if sh, ok := ValueShape(x.Type); !ok || len(sh) != 0 || !x.Type.Elem().IsInt() {
			return fail("bound %v has type %v, want an integer scalar or rank-0 tile", x, x.Type)
		}
	}
	return one(&Array{Rank: arr.Rank, DType: arr.DType})
}

// OffsetValues is the number of value operands of an element-offset
// access after its offset tile: pad, value or update (1), expected and
// desired (2).
func OffsetValues(op Op) int {
	if op == OpAtomicCASOffset {
		return 2
	}
	return 1
}

// OffsetAccess reports whether op is one of the element-offset accesses.
func OffsetAccess(op Op) bool {
	switch op {
	case OpLoadOffset, OpStoreOffset, OpAtomicRMWOffset, OpAtomicCASOffset:
		return true
	}
	return false
}

// ElementAccess reports whether op accesses an array element by element,
// each element of its index or offset tiles one access: gather, scatter,
// the atomics and the element-offset accesses. Every index, offset, value
// and mask tile of such an op has the shape of the access.
func ElementAccess(op Op) bool {
	switch op {
	case OpGather, OpScatter, OpAtomicRMW, OpAtomicCAS:
		return true
	}
	return OffsetAccess(op)
}

// inferOffsetAccess: load_offset and the atomics give a tile of the
// array's dtype and the offset shape; store_offset none. The offset is an
// integer tile; the value operands are tiles of the array's dtype and the
// offset shape; an optional last operand is a bool mask of that shape.
func inferOffsetAccess(in *Instr) ([]Type, string) {
	a := in.Args
	if len(a) < 2 {
		return fail("%s needs an array and an offset tile", in.Op)
	}
	arr, ok := a[0].Type.(*Array)
	if !ok {
		return fail("operand %v has type %v, want an array", a[0], a[0].Type)
	}
	nv := OffsetValues(in.Op)
	if n := len(a) - 2 - nv; n < 0 || n > 1 {
		return fail("%s has %d operands, want the array, the offset, %d value%s and an optional mask", in.Op, len(a), nv, map[bool]string{true: "s"}[nv > 1])
	}
	off, ok := a[1].Type.(*Tile)
	if !ok || !off.DType.IsInt() {
		return fail("offset %v has type %v, want an integer tile", a[1], a[1].Type)
	}
	want := TileOf(arr.DType, off.Shape...)
	for _, x := range a[2 : 2+nv] {
		if !TypesEqual(x.Type, want) {
			return fail("operand %v has type %v, want %v", x, x.Type, want)
		}
	}
	if len(a) == 3+nv {
		if m := a[len(a)-1]; !TypesEqual(m.Type, WithElem(want, Bool)) {
			return fail("mask %v has type %v, want %v", m, m.Type, WithElem(want, Bool))
		}
	}
	switch in.Op {
	case OpStoreOffset:
		return nil, ""
	case OpAtomicRMWOffset, OpAtomicCASOffset:
		if msg := atomicDTypeMsg(in.Op == OpAtomicCASOffset, in.Attrs.Str(AttrKeyKind), arr.DType); msg != "" {
			return nil, msg
		}
	}
	return one(want)
}

// Sliced reports whether array value v is an array_slice's result: its
// base is an element of another array's, so its alignment is known only
// in the kernel (no tensor map, no launch-time alignment check covers it).
func Sliced(v *Value) bool {
	return v != nil && v.Def != nil && v.Def.Op == OpArraySlice
}
