package lower

// Scratch shared memory for reductions across warps and for layout
// conversions (see the smem pass): one region, reused by every such
// instruction (the barriers pass puts a barrier between two uses where a
// thread may still read the first when another writes the second).

import "github.com/tilec/tilec/ir"

// ScratchSlot is the bytes per element of the scratch region for values of
// dtype d (with an i32 index beside it for argmax/argmin): a power of two,
// at least 4. The index, when present, is at byte offset ScratchValBytes(d).
func ScratchSlot(d ir.DType, withIndex bool) int {
	n := ScratchValBytes(d)
	if withIndex {
		n += 4
	}
	s := 4
	for s < n {
		s *= 2
	}
	return s
}

// ScratchValBytes is the bytes of one value of dtype d in the scratch
// region (bools are stored as 32-bit 0/1, halves as 16 bits).
func ScratchValBytes(d ir.DType) int {
	if d == ir.Bool {
		return 4
	}
	return max(d.Bytes(), 4)
}

// ReduceAccType is the dtype a reduction of x's dtype combines values in:
// f32 for float sums, maxima and minima (halves widen exactly), the dtype
// itself for integers.
func ReduceAccType(d ir.DType) ir.DType {
	switch d {
	case ir.F16, ir.BF16, ir.F32, ir.TF32:
		return ir.F32
	}
	return d
}

// ReduceWarpBits are the warp bits of the operand layout l that map to
// the reduced axis (their partial results are combined through scratch).
func ReduceWarpBits(l *Layout, axis int) []int {
	var out []int
	for b, v := range l.Warp {
		if v[axis] != 0 {
			out = append(out, b)
		}
	}
	return out
}

// ScratchBytes is the scratch an instruction needs (0 for none): a reduce
// across warps its partials, a convert_layout (pass convert) its tile, cat,
// extract, insert and scan the tile they move elements through, a rank-0
// atomic its old value.
func ScratchBytes(in *ir.Instr) (int, error) {
	if len(in.Results) != 1 {
		return 0, nil
	}
	if in.Op == ir.OpReduceFn && in.Result().Type.(*ir.Tile).Rank() == 0 {
		x := in.Args[0].Type.(*ir.Tile)
		return x.NumElements() * ScratchSlot(x.DType, false), nil
	}
	rt, ok := in.Result().Type.(*ir.Tile)
	if !ok {
		return 0, nil
	}
	switch in.Op {
	case ir.OpAtomicRMW, ir.OpAtomicCAS, ir.OpAtomicRMWOffset, ir.OpAtomicCASOffset:
		// A rank-0 atomic's old value goes from its one owner thread to
		// the whole block through scratch (ptxgen's broadcastOwned).
		if rt.Rank() == 0 {
			return ScratchSlot(rt.DType, false), nil
		}
	case ir.OpReduce:
		src, err := LayoutOf(in.Args[0])
		if err != nil || src == nil || src.Kind == ir.LayoutSmem {
			return 0, err
		}
		axis := in.Axis()
		kind := in.Kind()
		arg := kind == ir.ReduceArgmax || kind == ir.ReduceArgmin
		if wb := ReduceWarpBits(src, axis); len(wb) > 0 {
			return rt.NumElements() << len(wb) * ScratchSlot(ReduceAccType(in.Args[0].Type.Elem()), arg), nil
		}
		return 0, nil
	case ir.OpConvertLayout, ir.OpCat, ir.OpInsert:
		// The result's tile (cat and insert assemble it there).
		return rt.NumElements() * ScratchSlot(rt.DType, false), nil
	case ir.OpReshape:
		if GeneralReshape(in) {
			return rt.NumElements() * ScratchSlot(rt.DType, false), nil
		}
	case ir.OpExtract, ir.OpScan, ir.OpScanFn, ir.OpReduceFn:
		// The operand's tile.
		x := in.Args[0].Type.(*ir.Tile)
		return x.NumElements() * ScratchSlot(x.DType, false), nil
	}
	return 0, nil
}

// ScratchOffset is the byte offset of the scratch region from the shared
// base, or -1 when the kernel has none.
func ScratchOffset(f *ir.Func) int {
	if f.Facts.HasScratch {
		return f.Facts.Scratch
	}
	return -1
}

// GeneralReshape reports whether in is a reshape that does more than
// insert or remove size-1 dims: its elements move between threads, through
// the scratch region (row-major in both shapes), and its result has a
// layout of its own.
func GeneralReshape(in *ir.Instr) bool {
	if in.Op != ir.OpReshape {
		return false
	}
	squeeze := func(s []int) []int {
		var out []int
		for _, x := range s {
			if x != 1 {
				out = append(out, x)
			}
		}
		return out
	}
	return !equalInts(squeeze(in.Args[0].Type.(*ir.Tile).Shape), squeeze(in.Result().Type.(*ir.Tile).Shape))
}
