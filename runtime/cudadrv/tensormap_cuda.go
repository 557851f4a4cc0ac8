//go:build cuda

package cudadrv

/*
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cuda.h>

// cuTensorMapEncodeTiled arrived in CUDA 12.0, after the 11.8 cuda.h we build
// against, so its prototype is declared here and the symbol is looked up in
// the already-loaded driver at run time. The enum parameters are C enums,
// passed as int. Signature: CUDA Driver API, "Tensor Map Object Management".
typedef CUresult (*tilec_encode_tiled_fn)(void *map, int dtype, uint32_t rank,
	void *global, const uint64_t *dims, const uint64_t *strides,
	const uint32_t *box, const uint32_t *elem_strides,
	int interleave, int swizzle, int l2promo, int oob);

static tilec_encode_tiled_fn tilec_encode_tiled;

// tilec_find_encode_tiled returns 0 when the driver has the symbol.
static int tilec_find_encode_tiled(void) {
	if (tilec_encode_tiled) return 0;
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
	if (!h) return -1;
	tilec_encode_tiled = (tilec_encode_tiled_fn)dlsym(h, "cuTensorMapEncodeTiled");
	return tilec_encode_tiled ? 0 : -1;
}

// tilec_encode_tiled_into writes the 128-byte map to out. The driver wants a
// 64-byte aligned CUtensorMap; out need not be aligned.
static CUresult tilec_encode_tiled_into(void *out, int dtype, uint32_t rank,
		uint64_t global, const uint64_t *dims, const uint64_t *strides,
		const uint32_t *box, const uint32_t *elem_strides,
		int interleave, int swizzle, int l2promo, int oob) {
	_Alignas(64) unsigned char map[128];
	CUresult r = tilec_encode_tiled(map, dtype, rank, (void *)(uintptr_t)global,
		dims, strides, box, elem_strides, interleave, swizzle, l2promo, oob);
	memcpy(out, map, sizeof map);
	return r;
}
*/
import "C"

import (
	"errors"
	"fmt"
	"unsafe"
)

// TensorMap is an encoded CUtensorMap (TMA descriptor), passed to Launch by
// value; the kernel declares it as `.param .align 64 .b8 name[128]`.
type TensorMap [128]byte

// TensorMapDataType is CUtensorMapDataType.
type TensorMapDataType int

// CUtensorMapDataType values (cuda.h, CUDA 12+).
const (
	TMUint8    TensorMapDataType = 0
	TMUint16   TensorMapDataType = 1
	TMUint32   TensorMapDataType = 2
	TMInt32    TensorMapDataType = 3
	TMUint64   TensorMapDataType = 4
	TMInt64    TensorMapDataType = 5
	TMFloat16  TensorMapDataType = 6
	TMFloat32  TensorMapDataType = 7
	TMFloat64  TensorMapDataType = 8
	TMBFloat16 TensorMapDataType = 9
	TMTFloat32 TensorMapDataType = 11
)

// CUtensorMapSwizzle values: the shared-memory layout TMA writes.
const (
	SwizzleNone = 0
	Swizzle32B  = 1
	Swizzle64B  = 2
	Swizzle128B = 3
)

// CUtensorMapL2promotion values.
const (
	L2PromotionNone = 0
	L2Promotion64B  = 1
	L2Promotion128B = 2
	L2Promotion256B = 3
)

// TiledTensor describes a tensor in global memory and the box one TMA copy
// moves. Dimension 0 is the innermost (contiguous) one: a row-major M x K
// matrix has Dims {K, M} and Strides {K * elemSize}.
type TiledTensor struct {
	DataType TensorMapDataType
	Global   DevicePtr // 16-byte aligned
	Dims     []uint64  // elements per dimension, innermost first
	Strides  []uint64  // bytes, for dimensions 1..rank-1; multiples of 16
	Box      []uint32  // elements per dimension; Box[0]*elemSize <= swizzle span
	// ElementStrides defaults to all ones.
	ElementStrides []uint32
	Interleave     int // 0: none
	Swizzle        int // Swizzle*
	L2Promotion    int // L2Promotion*
	OOBFillNaN     bool
}

// EncodeTensorMap builds a tiled TMA descriptor (cuTensorMapEncodeTiled).
// It needs a CUDA 12+ driver and a device of compute capability 9.0 or more.
func (d *Device) EncodeTensorMap(t TiledTensor) (TensorMap, error) {
	var m TensorMap
	rank := len(t.Dims)
	if rank < 1 || rank > 5 || len(t.Box) != rank || len(t.Strides) != rank-1 ||
		(t.ElementStrides != nil && len(t.ElementStrides) != rank) {
		return m, fmt.Errorf("cudadrv: EncodeTensorMap: rank %d needs %d box dims and %d strides (have %d, %d)",
			rank, rank, rank-1, len(t.Box), len(t.Strides))
	}
	if C.tilec_find_encode_tiled() != 0 {
		return m, errors.New("cudadrv: the driver has no cuTensorMapEncodeTiled (needs CUDA 12+)")
	}
	es := t.ElementStrides
	if es == nil {
		es = make([]uint32, rank)
		for i := range es {
			es[i] = 1
		}
	}
	// Copy the arrays to C memory: they are read during the call only, but
	// keeping all C-visible data in C memory keeps the cgo rules obvious.
	n64 := C.size_t(8 * (2*rank - 1))
	arr64 := unsafe.Slice((*uint64)(C.malloc(n64)), 2*rank-1)
	defer C.free(unsafe.Pointer(&arr64[0]))
	copy(arr64, t.Dims)
	copy(arr64[rank:], t.Strides)
	arr32 := unsafe.Slice((*uint32)(C.malloc(C.size_t(4*2*rank))), 2*rank)
	defer C.free(unsafe.Pointer(&arr32[0]))
	copy(arr32, t.Box)
	copy(arr32[rank:], es)
	out := C.malloc(128)
	defer C.free(out)

	oob := 0
	if t.OOBFillNaN {
		oob = 1
	}
	var strides *C.uint64_t
	if rank > 1 {
		strides = (*C.uint64_t)(unsafe.Pointer(&arr64[rank]))
	}
	err := d.do(func() error {
		return check("cuTensorMapEncodeTiled", C.tilec_encode_tiled_into(out,
			C.int(t.DataType), C.uint32_t(rank), C.uint64_t(t.Global),
			(*C.uint64_t)(unsafe.Pointer(&arr64[0])), strides,
			(*C.uint32_t)(unsafe.Pointer(&arr32[0])), (*C.uint32_t)(unsafe.Pointer(&arr32[rank])),
			C.int(t.Interleave), C.int(t.Swizzle), C.int(t.L2Promotion), C.int(oob)))
	})
	if err != nil {
		return m, fmt.Errorf("%w (dims %v strides %v box %v swizzle %d)", err, t.Dims, t.Strides, t.Box, t.Swizzle)
	}
	copy(m[:], unsafe.Slice((*byte)(out), 128))
	return m, nil
}
