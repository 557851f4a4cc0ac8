//go:build cuda

package cudadrv

/*
#include <stdlib.h>
#include <cuda.h>
*/
import "C"

import (
	"encoding/binary"
	"fmt"
	"math"
	"unsafe"
)

// blobAlign is the alignment of []byte and TensorMap arguments in the
// parameter buffer: a CUtensorMap must be 64-byte aligned.
const blobAlign = 64

// Launch enqueues f on the default stream with grid x block threads and
// sharedBytes of dynamic shared memory. It returns once the launch is queued;
// errors inside the kernel surface at the next Synchronize or copy.
//
// Each argument is passed by value as the kernel's next .param:
//
//	DevicePtr, uint64, int64, float64   8 bytes (.u64/.s64/.f64; pointers as .u64)
//	int32, uint32, float32              4 bytes
//	int16, uint16                       2 bytes
//	int8, uint8                         1 byte
//	TensorMap, []byte                   the bytes, 64-byte aligned (.param .align 64 .b8 p[128])
//
// Go int, uint and uintptr are refused: their size is the host's, not the
// kernel's, so the caller must say which width the PTX declares.
func (d *Device) Launch(f *Function, grid, block [3]int, sharedBytes int, args ...any) error {
	for i := range 3 {
		if grid[i] <= 0 || block[i] <= 0 || grid[i] > math.MaxUint32 || block[i] > math.MaxUint32 {
			return fmt.Errorf("cudadrv: launch %s: bad grid %v or block %v", f.Name, grid, block)
		}
	}
	if sharedBytes < 0 || sharedBytes > math.MaxUint32 {
		return fmt.Errorf("cudadrv: launch %s: bad shared memory size %d", f.Name, sharedBytes)
	}
	vals, err := encodeArgs(args)
	if err != nil {
		return fmt.Errorf("cudadrv: launch %s: %w", f.Name, err)
	}

	// The argument bytes and the pointer array live in C memory: cgo forbids
	// handing C a Go pointer to memory that holds Go pointers.
	var params *unsafe.Pointer
	if len(vals) > 0 {
		size, offs := layoutArgs(vals)
		raw := C.malloc(C.size_t(size + blobAlign))
		defer C.free(raw)
		base := unsafe.Add(raw, (blobAlign-int(uintptr(raw)%blobAlign))%blobAlign)
		buf := unsafe.Slice((*byte)(base), size)
		ptrs := unsafe.Slice((*unsafe.Pointer)(C.malloc(C.size_t(len(vals))*C.size_t(unsafe.Sizeof(uintptr(0))))), len(vals))
		defer C.free(unsafe.Pointer(&ptrs[0]))
		for i, v := range vals {
			copy(buf[offs[i]:], v.b)
			ptrs[i] = unsafe.Add(base, offs[i])
		}
		params = &ptrs[0]
	}

	return d.do(func() error {
		r := C.cuLaunchKernel(f.fn,
			C.uint(grid[0]), C.uint(grid[1]), C.uint(grid[2]),
			C.uint(block[0]), C.uint(block[1]), C.uint(block[2]),
			C.uint(sharedBytes), nil, params, nil)
		if err := check("cuLaunchKernel", r); err != nil {
			return fmt.Errorf("%w (kernel %q grid %v block %v shared %d)", err, f.Name, grid, block, sharedBytes)
		}
		return nil
	})
}

type argVal struct {
	b     []byte
	align int
}

func encodeArgs(args []any) ([]argVal, error) {
	vals := make([]argVal, len(args))
	ne := binary.NativeEndian
	for i, a := range args {
		var b []byte
		align := 0
		switch v := a.(type) {
		case DevicePtr:
			b = ne.AppendUint64(nil, uint64(v))
		case uint64:
			b = ne.AppendUint64(nil, v)
		case int64:
			b = ne.AppendUint64(nil, uint64(v))
		case float64:
			b = ne.AppendUint64(nil, math.Float64bits(v))
		case uint32:
			b = ne.AppendUint32(nil, v)
		case int32:
			b = ne.AppendUint32(nil, uint32(v))
		case float32:
			b = ne.AppendUint32(nil, math.Float32bits(v))
		case uint16:
			b = ne.AppendUint16(nil, v)
		case int16:
			b = ne.AppendUint16(nil, uint16(v))
		case uint8:
			b = []byte{v}
		case int8:
			b = []byte{byte(v)}
		case TensorMap:
			b, align = v[:], blobAlign
		case *TensorMap:
			b, align = v[:], blobAlign
		case []byte:
			if len(v) == 0 {
				return nil, fmt.Errorf("argument %d: empty []byte", i)
			}
			b, align = v, blobAlign
		case int, uint, uintptr:
			return nil, fmt.Errorf("argument %d: %T has no fixed width; use int32/int64 or uint32/uint64", i, a)
		default:
			return nil, fmt.Errorf("argument %d: unsupported type %T", i, a)
		}
		if align == 0 {
			align = len(b)
		}
		vals[i] = argVal{b: b, align: align}
	}
	return vals, nil
}

// layoutArgs places each value at its natural alignment in one buffer.
func layoutArgs(vals []argVal) (size int, offs []int) {
	offs = make([]int, len(vals))
	for i, v := range vals {
		size = (size + v.align - 1) / v.align * v.align
		offs[i] = size
		size += len(v.b)
	}
	return size, offs
}
