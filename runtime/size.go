package runtime

// Size arithmetic that cannot wrap, and the check of a size against the
// host's memory before anything is allocated. A shape from the command line
// or a .npy header can be anything: a byte count that wraps to a small
// number would allocate a short buffer and index past it, and one that does
// not wrap but exceeds memory would end the process in Go's out-of-memory
// crash, which cannot be recovered. Both are errors here, with the bytes in
// the message.

import (
	"bufio"
	"fmt"
	"math"
	"math/bits"
	"os"
	goruntime "runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"

	"github.com/tilec/tilec/ir"
)

// mulInt is a*b, and false if it overflows int. Operands are non-negative.
func mulInt(a, b int) (int, bool) {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	if a < 0 || b < 0 || hi != 0 || lo > math.MaxInt {
		return 0, false
	}
	return int(lo), true
}

// addInt is a+b, and false if it overflows int.
func addInt(a, b int) (int, bool) {
	s := a + b
	if (b > 0 && s < a) || (b < 0 && s > a) {
		return 0, false
	}
	return s, true
}

// SizeError is a shape whose size cannot be allocated: its element or byte
// count overflows, or it needs more memory than there is.
type SizeError struct {
	DType ir.DType
	Shape []int
	// Bytes is the size needed; 0 when it overflows 64 bits.
	Bytes int64
	// Limit is the memory available (0 when the count overflows); Where
	// says whose ("host", "device").
	Limit int64
	Where string
}

func (e *SizeError) Error() string {
	if e.Bytes == 0 {
		return fmt.Sprintf("%s array of shape %v: its size in bytes overflows 64 bits", e.DType, e.Shape)
	}
	return fmt.Sprintf("%s array of shape %v needs %s, more than the %s memory available (%s)",
		e.DType, e.Shape, FormatBytes(e.Bytes), e.Where, FormatBytes(e.Limit))
}

// FormatBytes prints a byte count exactly and, from 1 KiB up, in binary
// units: "400000000000 bytes (372.5 GiB)".
func FormatBytes(n int64) string {
	s := strconv.FormatInt(n, 10) + " bytes"
	units := []string{"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	x, u := float64(n), -1
	for x >= 1024 && u < len(units)-1 {
		x /= 1024
		u++
	}
	if u >= 0 {
		s += fmt.Sprintf(" (%.1f %s)", x, units[u])
	}
	return s
}

// ShapeBytes is the number of bytes a contiguous dtype array of shape
// takes, or an error if a dimension is negative or the count overflows.
func ShapeBytes(dtype ir.DType, shape []int) (int64, error) {
	n := dtype.Bytes()
	if n == 0 {
		return 0, fmt.Errorf("invalid dtype %s", dtype)
	}
	for _, d := range shape {
		if d < 0 {
			return 0, fmt.Errorf("negative dimension in shape %v", shape)
		}
	}
	for _, d := range shape {
		if d == 0 {
			return 0, nil
		}
	}
	for _, d := range shape {
		var ok bool
		if n, ok = mulInt(n, d); !ok {
			return 0, &SizeError{DType: dtype, Shape: append([]int{}, shape...)}
		}
	}
	return int64(n), nil
}

// HostMemoryLimit, when positive, replaces what the host reports as its
// available memory (HostMemory): tests set it, and a program that knows
// its budget better than the kernel can.
var HostMemoryLimit int64

// HostMemory returns the memory, in bytes, that an allocation can count on:
// HostMemoryLimit if set, else the smallest of the kernel's MemAvailable,
// the cgroup's limit less its usage and the address-space limit (`ulimit
// -v`, RLIMIT_AS) less the process's size; 0 when none is known (no check).
func HostMemory() int64 {
	if HostMemoryLimit > 0 {
		return HostMemoryLimit
	}
	return hostAvailable()
}

var hostTotal = sync.OnceValue(func() int64 { return meminfo("MemTotal:") })

func hostAvailable() int64 {
	retained, released := goHeapReusable()
	avail := meminfo("MemAvailable:")
	if lim := cgroupFree(); lim > 0 && (avail == 0 || lim < avail) {
		avail = lim
	}
	if avail == 0 {
		avail = hostTotal()
	}
	if avail > 0 {
		// Pages the Go heap freed but kept are the process's already:
		// the kernel counts them as used.
		avail += retained
	}
	if as := addressSpaceFree(); as > 0 {
		// Freed heap pages, kept or returned to the kernel, stay in the
		// address space and are reused; a new arena is not, and it is
		// mapped whole even for a small allocation.
		as = max(1, as+retained+released-goHeapHeadroom)
		if avail == 0 || as < avail {
			avail = as
		}
	}
	return avail
}

// goHeapHeadroom is the address space the Go runtime may map beyond an
// allocation's own bytes: its heap grows by arenas of 64 MiB (linux/amd64)
// with their metadata, so an allocation that fits the space left to the
// byte can need an arena that does not, and that is Go's unrecoverable
// "fatal error: out of memory".
const goHeapHeadroom = 96 << 20

// goHeapReusable are the bytes of the Go heap that are free for its next
// allocations: retained (still resident) and released (returned to the
// kernel but still mapped).
func goHeapReusable() (retained, released int64) {
	s := []metrics.Sample{{Name: "/memory/classes/heap/free:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	get := func(x metrics.Sample) int64 {
		if x.Value.Kind() != metrics.KindUint64 || x.Value.Uint64() > math.MaxInt64/4 {
			return 0
		}
		return int64(x.Value.Uint64())
	}
	return get(s[0]), get(s[1])
}

// meminfo reads a field of /proc/meminfo in bytes (0 if absent).
func meminfo(field string) int64 { return kbField("/proc/meminfo", field) }

// procStatus reads a field of /proc/self/status in bytes (0 if absent).
func procStatus(field string) int64 { return kbField("/proc/self/status", field) }

// kbField reads a "Field: N kB" line of a /proc file in bytes (0 if absent).
func kbField(path, field string) int64 {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), field)
		if !ok {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		if err != nil || kb <= 0 || kb > math.MaxInt64/1024 {
			return 0
		}
		return kb * 1024
	}
	return 0
}

// cgroupFree is a cgroup v2 memory.max less memory.current (0 if there is
// no limit or no cgroup v2).
func cgroupFree() int64 {
	read := func(name string) int64 {
		b, err := os.ReadFile("/sys/fs/cgroup/" + name)
		if err != nil {
			return 0
		}
		n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		if err != nil {
			return 0 // "max": no limit
		}
		return n
	}
	limit := read("memory.max")
	if limit <= 0 {
		return 0
	}
	return max(1, limit-read("memory.current"))
}

// CheckFixedDims reports a fixed dim of a signature (an --arg's, an
// annotation's) that kernels cannot index: array dims are i32 there. A
// signature may name any size, and an array generated for it would be
// allocated and filled (minutes for gigabytes) before a launch refused it.
func CheckFixedDims(dims []ir.Dim) error {
	for ax, d := range dims {
		if d.Sym == "" && d.Size > math.MaxInt32 {
			return fmt.Errorf("axis %d of its signature is %d, more than %d: array dims are i32 in kernels", ax, d.Size, math.MaxInt32)
		}
	}
	return nil
}

// CheckHostBytes reports a *SizeError if bytes (of the dtype array of shape,
// for the message) is more than HostMemory. Before it refuses, it collects
// the garbage once: memory that host code dropped (a tensor replaced in a
// loop) is reusable only once the collector has seen it.
func CheckHostBytes(dtype ir.DType, shape []int, bytes int64) error {
	limit := HostMemory()
	if limit > 0 && bytes > limit && HostMemoryLimit <= 0 {
		goruntime.GC()
		limit = HostMemory()
	}
	if limit > 0 && bytes > limit {
		return &SizeError{DType: dtype, Shape: append([]int{}, shape...), Bytes: bytes, Limit: limit, Where: "host"}
	}
	return nil
}

// AllocTensor is NewTensor returning an error instead of allocating when a
// dimension is negative, the byte count overflows or it exceeds the host's
// available memory (HostMemory).
func AllocTensor(dtype ir.DType, shape ...int) (*Tensor, error) {
	n, err := ShapeBytes(dtype, shape)
	if err != nil {
		return nil, err
	}
	if err := CheckHostBytes(dtype, shape, n); err != nil {
		return nil, err
	}
	return &Tensor{
		DType:   dtype,
		Shape:   append([]int{}, shape...),
		Strides: RowMajorStrides(shape),
		Data:    make([]byte, n),
	}, nil
}
