package cuda

// Types of the CUDA backend that exist in every build, so that callers
// (cmd/tilec) compile with and without the cuda build tag: the backend
// itself is in cuda.go (tag cuda), its stand-in in cuda_stub.go (no tag).

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tilec/tilec/ptxgen"
)

// ErrNoCUDA is returned by every CUDA method in a build without the cuda
// tag.
var ErrNoCUDA = errors.New("this tilec was built without CUDA support (build with -tags cuda)")

// CompileInfo describes a kernel compiled and loaded for a device: what
// `tilec run` prints about the code besides the launch.
type CompileInfo struct {
	Kernel string // the PTX .entry name
	Target string // e.g. "sm_80"
	Device string // e.g. "NVIDIA H100 80GB HBM3 (sm_90)"

	Block       [3]int // threads per block
	SharedBytes int    // dynamic shared memory per block
	PTX         string // the module text

	// RegsEstimate is ptxgen's register estimate (0: none).
	RegsEstimate int
	// Regs, LocalBytes (per-thread local memory: spills and stack) and
	// StaticSharedBytes are the driver's figures after JIT.
	Regs              int
	LocalBytes        int
	StaticSharedBytes int
	// MaxThreadsPerBlock is the most threads a launch can use given the
	// registers; below the block size the launch fails.
	MaxThreadsPerBlock int
	// JITLog is the driver JIT's verbose info log (registers, barriers,
	// stack frame, spill stores and loads).
	JITLog string
	// HintNotes are the kernel's hints that the target's code does not
	// act on (lower.HintNotes).
	HintNotes []string

	CompileTime time.Duration // lower + ptxgen, or reading the disk cache when Cached
	JITTime     time.Duration // cuModuleLoadDataEx: PTX to machine code and load

	// Variant is "" for a kernel compiled as one variant; for the matmul
	// family (pipelined shared-memory copies) "fast" (16-byte cp.async
	// copies only: every array copied through shared memory is 16-byte
	// aligned with unit last stride) or "general" (element-wise copies,
	// any strides), chosen at each launch (ptxgen.Kernel.FastPathOK).
	Variant string
	// Path is the code path the variant takes (ptxgen.Kernel.Path).
	Path string

	// Cached says that the PTX came from the disk cache of compiled
	// kernels (kcache.Cache): lower and ptxgen did not run.
	Cached bool

	// Resident is, for a persistent kernel, the most blocks launched (the
	// blocks the device holds at once); Cluster its blocks per cluster
	// (0: no clusters).
	Resident, Cluster int
}

// Summary is one line: target, code path, block, shared memory,
// registers, spills, compile and JIT times.
func (c *CompileInfo) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", c.Kernel, c.Target)
	if c.Variant != "" {
		fmt.Fprintf(&b, " (%s variant)", c.Variant)
	}
	if c.Path != "" {
		fmt.Fprintf(&b, ", %s", c.Path)
	}
	fmt.Fprintf(&b, ": block %dx%dx%d, %d B dynamic shared, %d registers",
		c.Block[0], c.Block[1], c.Block[2], c.SharedBytes, c.Regs)
	if c.LocalBytes > 0 {
		fmt.Fprintf(&b, ", %d B local (spills)", c.LocalBytes)
	}
	if c.Resident > 0 {
		fmt.Fprintf(&b, ", persistent on up to %d blocks", c.Resident)
		if c.Cluster > 1 {
			fmt.Fprintf(&b, " (%d clusters of %d)", c.Resident/c.Cluster, c.Cluster)
		}
	}
	if c.Cached {
		fmt.Fprintf(&b, "; PTX from the cache in %s, JIT %s", c.CompileTime.Round(time.Microsecond), c.JITTime.Round(time.Microsecond))
	} else {
		fmt.Fprintf(&b, "; compile %s, JIT %s", c.CompileTime.Round(time.Microsecond), c.JITTime.Round(time.Microsecond))
	}
	return b.String()
}

// TFLOPS is the rate of a matmul of m x n x k (2mnk operations) that took ms
// milliseconds.
func TFLOPS(m, n, k int, ms float64) float64 {
	if ms <= 0 {
		return 0
	}
	return 2 * float64(m) * float64(n) * float64(k) / (ms * 1e-3) / 1e12
}

// launchGrid is the grid a launch of pk uses for the kernel's grid: the
// grid itself, or for a persistent kernel as many blocks as are resident
// at once (one per SM; fewer when the grid has fewer blocks), in 1-D, a
// multiple of the cluster size (a block without a tile of its own then
// keeps its partner company).
func launchGrid(pk *ptxgen.Kernel, grid [3]int, resident int) [3]int {
	if !pk.Persistent {
		return grid
	}
	n := max(1, grid[0]*grid[1]*grid[2])
	if c := pk.Cluster; c > 1 {
		n = (n + c - 1) / c * c
	}
	return [3]int{min(n, resident), 1, 1}
}

// DeviceFacts are what host code asks about the GPU (a script's
// torch.cuda.get_device_capability and get_device_properties).
type DeviceFacts struct {
	Name         string
	Major, Minor int
	SMs          int
	TotalBytes   int64
}
