package bench

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"

	"github.com/tilec/tilec/lower"
	"github.com/tilec/tilec/runtime"
	"github.com/tilec/tilec/runtime/cuda"
	"github.com/tilec/tilec/runtime/host"
)

// Device is where kernels are timed: the CUDA backend (CUDADevice), or a
// fake in tests.
type Device interface {
	// Name is the device's name as the driver reports it ("NVIDIA H100
	// 80GB HBM3"); SM its compute capability (90).
	Name() string
	SM() int
	// Target is what kernels are compiled for on the device.
	Target() (*lower.Target, error)
	// Prepare compiles k, uploads args once and binds them: the launches
	// of the returned Prepared use these buffers. grid overrides the
	// kernel's declared grid (zero: the kernel's own).
	Prepare(k *runtime.Kernel, args []runtime.Arg, grid [3]int) (Prepared, error)
}

// Prepared is a kernel bound to arguments on a device (*runtime.Prepared
// for the CUDA backend).
type Prepared interface {
	// Run enqueues one launch; Download waits for the device and copies
	// every array back into the host tensors given to Prepare.
	Run() error
	Download() error
	Timer
	// TimeCold times one launch on its own with a cold L2 cache (the CUDA
	// backend clears a buffer larger than L2 first, as do_bench does), in
	// milliseconds: how RunEntry times each launch of a host function,
	// right after its arguments were uploaded.
	TimeCold() (float64, error)
	// Free releases the device buffers.
	Free() error
}

// Timer times launches: warmup launches untimed, then iters launches, each
// timed on the device (CUDA events), in milliseconds.
type Timer interface {
	Times(warmup, iters int) ([]float64, error)
}

// GEMMBaseline is a Prepared that can also time a vendor GEMM (cuBLAS)
// C = A @ B on its own buffers of the array parameters named a, b and c
// (overwriting c), in either of the two ways the Prepared's launches are
// timed: TimeCublas as Times (the median milliseconds of iters runs after
// warmup, back to back), TimeCublasCold as TimeCold (one call alone, after
// an L2 clear, in milliseconds).
type GEMMBaseline interface {
	TimeCublas(a, b, c string, warmup, iters int) (float64, error)
	TimeCublasCold(a, b, c string) (float64, error)
}

// BatchedGEMMBaseline is a Prepared that can also time a vendor batched
// GEMM (cuBLAS strided-batched, one call over the batch as torch.bmm makes)
// C[i] = A[i] @ B[i] along the leading axis of its 3-D arrays named a, b
// and c (overwriting c): the median milliseconds of iters runs after
// warmup (TimeCublasBatchedCold: one call alone, as GEMMBaseline's
// TimeCublasCold). It is an interface of its own, not TimeCublas on 3-D
// arrays, so that a device that only has the plain GEMM offers no batched
// baseline rather than a wrong one.
type BatchedGEMMBaseline interface {
	TimeCublasBatched(a, b, c string, warmup, iters int) (float64, error)
	TimeCublasBatchedCold(a, b, c string) (float64, error)
}

// ErrNeedsGPU is the error of tilec bench and tune in a build without the
// CUDA backend or on a machine without a GPU.
var ErrNeedsGPU = errors.New("timing kernels needs a GPU and a cuda build of tilec (go build -tags cuda ./cmd/tilec, " +
	"on a machine with the NVIDIA driver); this one has no CUDA backend")

// OpenCUDA opens GPU 0 for timing with the given target (nil: the device's
// best). In a build without cuda it returns ErrNeedsGPU.
func OpenCUDA(target *lower.Target) (Device, error) {
	if !cuda.Available {
		return nil, ErrNeedsGPU
	}
	gpu, err := cuda.New(0)
	if err != nil {
		return nil, fmt.Errorf("%w (%v)", ErrNeedsGPU, err)
	}
	gpu.Target = target
	return CUDADevice(gpu), nil
}

// The CUDA backend's Prepared (in every build: the stand-in's methods fail
// with runtime.ErrNoCUDA) times kernels and cuBLAS.
var (
	_ Prepared            = (*cuda.Prepared)(nil)
	_ FastSums            = (*cuda.Prepared)(nil)
	_ LocalMemory         = (*cuda.Prepared)(nil)
	_ GEMMBaseline        = (*cuda.Prepared)(nil)
	_ BatchedGEMMBaseline = (*cuda.Prepared)(nil)
)

// CUDADevice is the CUDA backend as a Device.
func CUDADevice(gpu *cuda.GPU) Device { return cudaDevice{gpu} }

type cudaDevice struct{ gpu *cuda.GPU }

var deviceNameRE = regexp.MustCompile(`^(.*) \(sm_(\d+)`)

func (d cudaDevice) Name() string {
	name := d.gpu.DeviceName()
	if m := deviceNameRE.FindStringSubmatch(name); m != nil {
		return m[1]
	}
	return name
}

func (d cudaDevice) SM() int {
	if m := deviceNameRE.FindStringSubmatch(d.gpu.DeviceName()); m != nil {
		sm, _ := strconv.Atoi(m[2])
		return sm
	}
	return 0
}

func (d cudaDevice) Target() (*lower.Target, error) { return d.gpu.CompileTarget() }

// HostDevice is the GPU as a host function's torch.cuda queries see it.
func (d cudaDevice) HostDevice() *host.Device {
	f := d.gpu.Facts()
	return &f
}

// hostDevice is what host code run on dev sees through torch.cuda's
// device queries: the device's own facts where it has them (HostDevice),
// else its name and compute capability; never the interpreter's.
func hostDevice(dev Device) *host.Device {
	if h, ok := dev.(interface{ HostDevice() *host.Device }); ok {
		return h.HostDevice()
	}
	return &host.Device{Name: dev.Name(), Major: dev.SM() / 10, Minor: dev.SM() % 10}
}

func (d cudaDevice) Prepare(k *runtime.Kernel, args []runtime.Arg, grid [3]int) (Prepared, error) {
	p, err := d.gpu.Prepare(k, args, runtime.LaunchOptions{Grid: grid})
	if err != nil {
		return nil, err
	}
	return p, nil
}

// Median is the middle of ms (the mean of the two middle values for an
// even count): the figure to report, since kernel timings have a long
// upper tail.
func Median(ms []float64) float64 {
	if len(ms) == 0 {
		return 0
	}
	s := append([]float64(nil), ms...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
