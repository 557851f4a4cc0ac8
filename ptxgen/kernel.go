package ptxgen

// This file is the ABI between ptxgen and the runtime's CUDA backend: what a
// compiled kernel needs at launch besides its PTX text.

import "strings"

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
	// Persistent kernels loop over their grid: launch at most one block
	// per SM (and never more than the grid's blocks), in 1-D, with the
	// grid's extents in the SlotGrid params.
	Persistent bool
	// Cluster is the number of blocks per cluster the PTX requires
	// (.reqnctapercluster; 0 or 1: no clusters). A persistent kernel with
	// clusters must be launched with a multiple of Cluster blocks, no more
	// than can be resident together (their producers wait on each other).
	Cluster int
	// Regs is an estimate of the registers per thread the kernel was laid out
	// for (0 if unknown); informational.
	Regs int
	// Path is the code path this variant takes (lower.Path: "pipelined
	// mma.sync", say; "" where the compiler did not say); informational,
	// for `tilec run`'s compiled line.
	Path string

	// Variant says which launches this PTX is valid for: "" (EmitKernel,
	// or a kernel without variants) and VariantGeneral: every launch;
	// VariantFast: only launches for which FastPathOK holds. A launcher
	// given a fast variant (EmitVariants) must check FastPathOK at every
	// launch, with the values it passes, and launch General when it fails.
	Variant string
	// FastArrays, on a fast variant, are the indices into f.Params of the
	// arrays whose shared-tile copies it makes with 16-byte cp.async
	// without checking their alignment: FastPathOK checks them.
	FastArrays []int
	// General, on a fast variant, is the kernel to launch when FastPathOK
	// fails: same name, block, shared memory and Params (so the same
	// launch arguments), valid for every launch.
	General *Kernel
}

// Kernel variants (Kernel.Variant).
const (
	VariantFast    = "fast"
	VariantGeneral = "general"
)

// ArrayArg is what a launch passes for one array parameter: the
// SlotPointer value (device address of element [0, 0, ...]), the element
// size in bytes and the SlotStride values (in elements).
type ArrayArg struct {
	Addr      uint64
	ElemBytes int
	Strides   []int64
	// Elems, for a list-of-arrays parameter, are its arrays' (Addr and
	// Strides unused): a fast variant that copies from the list's arrays
	// needs every one of them aligned.
	Elems []ArrayArg
}

// Aligned16 is the condition under which the kernels copy an array's tiles
// with 16-byte cp.async (the uniform flag the general kernels compute
// in PTX, alignedFlag, checks the same): unit last stride, Addr a multiple
// of 16, and every other stride times ElemBytes a multiple of 16 (so every
// row starts on a 16-byte boundary).
func (a ArrayArg) Aligned16() bool {
	if a.Elems != nil {
		for _, x := range a.Elems {
			if !x.Aligned16() {
				return false
			}
		}
		return true
	}
	n := len(a.Strides)
	if n == 0 || a.Strides[n-1] != 1 || a.Addr%16 != 0 {
		return false
	}
	for _, s := range a.Strides[:n-1] {
		if s*int64(a.ElemBytes)%16 != 0 {
			return false
		}
	}
	return true
}

// FastPathOK reports whether k may be launched with the given arrays,
// indexed like f.Params (entries of scalar parameters are ignored; a
// missing entry counts as unaligned): always for a kernel that is not a
// fast variant, and for a fast variant when every array of FastArrays is
// Aligned16.
func (k *Kernel) FastPathOK(arrays []ArrayArg) bool {
	if k.Variant != VariantFast {
		return true
	}
	for _, i := range k.FastArrays {
		if i >= len(arrays) || !arrays[i].Aligned16() {
			return false
		}
	}
	return true
}

// Float8FastSums reports whether k sums float8 products in the tensor
// cores' reduced-precision accumulator: float8 wgmma, which lower takes
// only where ct.mma's use_fast_acc allows it (mma.sync float8 sums in
// float32). The GPU check bounds such sums more loosely
// (check.CheckOptions.Float8FastSums).
func (k *Kernel) Float8FastSums() bool {
	for line := range strings.Lines(k.PTX) {
		if strings.Contains(line, "wgmma.mma_async") && (strings.Contains(line, ".e4m3") || strings.Contains(line, ".e5m2")) {
			return true
		}
	}
	return false
}

// ForLaunch returns the variant of k to launch with the given arrays (see
// FastPathOK): k itself, or k.General.
func (k *Kernel) ForLaunch(arrays []ArrayArg) *Kernel {
	if k.General != nil && !k.FastPathOK(arrays) {
		return k.General
	}
	return k
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
	// to slower copies when the fast path's alignment does not hold, except
	// in a fast variant, where the launcher checks it (Kernel.FastPathOK).
	SlotStride
	// SlotScalar is the value of scalar parameter f.Params[Param] in its own
	// dtype: .s32 for i32, .s64 for i64, .f32 for f32, .f64 for f64, .u8 for
	// bool (0 or 1); Axis is unused.
	SlotScalar
	// SlotTensorMap is a 128-byte TMA descriptor (CUtensorMap) of 2-D array
	// f.Params[Param], row-major with unit last stride: dims {cols, rows},
	// the row stride in bytes, box {Box[0], Box[1]} elements (Box[0] is one
	// swizzle span: 128 bytes, 64 16-bit or 128 one-byte columns, with
	// SWIZZLE_128B; 64 bytes with SWIZZLE_64B for a K tile that narrow),
	// zero fill out of bounds. Only fast variants have them (the launch's arrays are
	// Aligned16, which TMA needs).
	SlotTensorMap
	// SlotGrid is a .u32 extent of the kernel's grid along axis Axis, for a
	// persistent kernel (Kernel.Persistent), which is launched with fewer
	// blocks and loops over the grid itself; Param is unused.
	SlotGrid
	// SlotListTable is the .u64 device address of the table of list-of-
	// arrays parameter f.Params[Param] (ir.ArrayList): for each array in
	// order, 1 + 2*rank 64-bit words: its address, its extents, its
	// strides in elements (cuTile's layout of a List[Array] argument).
	// The launcher builds the table and copies it to the device.
	SlotListTable
	// SlotListLen is the .s32 length of list parameter f.Params[Param].
	SlotListLen
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
	case SlotTensorMap:
		return "tensormap"
	case SlotGrid:
		return "grid"
	case SlotListTable:
		return "list table"
	case SlotListLen:
		return "list length"
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
	Axis  int // the array axis for SlotDim and SlotStride, the grid axis for SlotGrid
	// Box is a SlotTensorMap's box: elements along the array's last axis,
	// then rows.
	Box [2]int
}

// Bytes is the size of the slot's value in the kernel parameter buffer.
// For SlotScalar it depends on the dtype and the caller must know it
// (ScalarBytes gives it from the IR type).
func (s ParamSlot) Bytes() int {
	switch s.Kind {
	case SlotPointer, SlotStride, SlotListTable:
		return 8
	case SlotDim, SlotGrid, SlotListLen:
		return 4
	case SlotTensorMap:
		return 128
	}
	return 0
}
