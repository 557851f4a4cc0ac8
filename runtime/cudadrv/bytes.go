package cudadrv

import (
	"slices"
	"unsafe"
)

// Scalar is an element type whose slices can be viewed as raw bytes for
// host/device copies.
type Scalar interface {
	~int8 | ~uint8 | ~int16 | ~uint16 | ~int32 | ~uint32 | ~int64 | ~uint64 | ~float32 | ~float64
}

// Bytes views s as its underlying bytes (host byte order), without copying,
// so typed host data can be passed to CopyHtoD and CopyDtoH.
func Bytes[T Scalar](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(s[0])))
}

// Median returns the median of xs (the mean of the middle two for an even
// count), or 0 for an empty slice. Kernel timings have a long upper tail from
// clock ramps and interference, so the median is the figure to report.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
