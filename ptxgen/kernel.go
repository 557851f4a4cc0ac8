package ptxgen

// This file is the ABI between ptxgen and the runtime's CUDA backend: what a
// compiled kernel needs at launch besides its PTX text.

// Kernel is one compiled kernel: PTX text for one target plus everything a
// launcher needs. The grid is not here: it is the IR's Func.Grid (host
// expressions over the symbolic dims), which the runtime evaluates.
type Kernel struct {
	Name   string // the .entry name in PTX
	Target string // "sm_80", "sm_120a"
	PTX    string // a complete module: .version, .target, .address_size, one .entry
	// Block is the number of threads per block (x, y, z); the PTX also
	// declares it with .reqntid, so launching with another block fails.
	Block [3]int
	// SharedBytes is the dynamic shared memory to pass at launch. Above
	// 48 KiB the runtime must first set CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
	// (attribute 8) to at least this value. It already includes the slack
	// the kernel needs to round the base of its shared memory up to 1024 bytes.
	SharedBytes int
	// Params is the kernel's .param list, in order: kernelParams[i] of
	// cuLaunchKernel must point at the bytes of Params[i].
	Params []ParamSlot
	// Regs is an estimate of the registers per thread the kernel was laid out
	// for (0 if unknown); informational.
	Regs int
}

// SlotKind says what a .param slot holds.
type SlotKind uint8

const (
	// SlotPointer is a .u64 device address of array f.Params[Param] (the
	// address of its element [0, 0, ...]).
	SlotPointer SlotKind = iota + 1
	// SlotDim is a .s32 extent of axis Axis of array f.Params[Param].
	SlotDim
	// SlotStride is a .s64 stride, in elements (not bytes), of axis Axis of
	// array f.Params[Param]. Strides may be any value (a transposed view has
	// stride 1 on axis 0); the kernel checks alignment itself and falls back
	// to slower copies when the fast path's alignment does not hold.
	SlotStride
	// SlotScalar is the value of scalar parameter f.Params[Param] in its own
	// dtype: .s32 for i32, .s64 for i64, .f32 for f32, .f64 for f64, .u8 for
	// bool (0 or 1); Axis is unused.
	SlotScalar
)

func (k SlotKind) String() string {
	switch k {
	case SlotPointer:
		return "pointer"
	case SlotDim:
		return "dim"
	case SlotStride:
		return "stride"
	case SlotScalar:
		return "scalar"
	}
	return "invalid"
}

// ParamSlot is one .param of a kernel.
//
// The order ptxgen uses: for each f.Params[i] in order, an array contributes
// SlotPointer, then SlotDim for axes 0..rank-1, then SlotStride for axes
// 0..rank-1; a scalar contributes one SlotScalar. Launchers should follow
// Params rather than rely on that order.
type ParamSlot struct {
	Kind  SlotKind
	Param int // index into f.Params
	Axis  int // the array axis for SlotDim and SlotStride
}

// Bytes is the size of the slot's value in the kernel parameter buffer.
// For SlotScalar it depends on the dtype and the caller must know it
// (ScalarBytes gives it from the IR type).
func (s ParamSlot) Bytes() int {
	switch s.Kind {
	case SlotPointer, SlotStride:
		return 8
	case SlotDim:
		return 4
	}
	return 0
}
