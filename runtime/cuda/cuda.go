//go:build cuda

package cuda

// The CUDA backend: compiles a kernel's IR through lower and ptxgen, loads
// the PTX with the driver's JIT (cached), uploads the arguments, launches,
// times the kernel with CUDA events and copies the arrays back. The
// device-resident API for benchmarks (Prepare, cuBLAS) is in bench_cuda.go.
//
// Arrays and strides: each distinct host storage (a Tensor's Data; views
// made by Transpose or View share it) becomes one device buffer holding the
// span of the storage that the arguments reach, and each array parameter is
// passed as a pointer into it with the tensor's own strides. So strided,
// transposed and broadcast views keep their layout on the device, arguments
// that alias each other alias on the device too, and the copy back writes
// the span back over the host storage.

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/lower"
	"github.com/tilec/tilec/ptxgen"
	"github.com/tilec/tilec/runtime"
	"github.com/tilec/tilec/runtime/compile"
	"github.com/tilec/tilec/runtime/cudadrv"
	"github.com/tilec/tilec/runtime/kcache"
)

// Available reports whether this build has the CUDA backend.
const Available = true

// DefaultTarget is the target `tilec compile` emits for when none is
// named: the mma.sync path of sm_80, which runs on every GPU tilec supports.
// The CUDA backend instead compiles for its device (lower.BestTarget).
const DefaultTarget = "sm_80"

// GPU is the CUDA backend. Its methods are safe for concurrent use; work
// from all of them goes to the device's default stream, in order.
type GPU struct {
	// Dev is the open device (available only in cuda builds).
	Dev *cudadrv.Device
	// Target is what kernels are compiled for; nil means the best target
	// for the device (lower.BestTarget: sm_90 on an H100). Set it before
	// the first launch.
	Target *lower.Target
	// Cache is the disk cache of compiled kernels (nil: none). New
	// opens the one the environment names (kcache.Open).
	Cache *kcache.Cache

	mu    sync.Mutex
	cache map[string]*cudaKernel // key: target + "\x00" + ir.Print(func)
	// l2Flush is the buffer Prepared.TimeCold clears (0 until its first use).
	l2Flush cudadrv.DevicePtr
}

// cudaKernel is a kernel compiled for one target and loaded on the device.
// For a kernel with variants (ptxgen.EmitVariants) the cache holds the fast
// variant; its general variant is loaded on the first launch that needs it.
type cudaKernel struct {
	pk   *ptxgen.Kernel
	mod  *cudadrv.Module
	fn   *cudadrv.Function
	info CompileInfo

	// general is pk.General loaded (nil until a launch needs it); last is
	// the variant the latest Launch or Prepare chose (nil before the
	// first). Both are guarded by CUDA.mu.
	general *cudaKernel
	last    *cudaKernel
	// resident is the most blocks of a persistent kernel that the device
	// holds at once: one per SM, or for a kernel in clusters the resident
	// clusters' blocks (their blocks wait on each other, so a cluster
	// that could not start until another finished would stall it).
	resident int
	// fastSums is pk.Float8FastSums(), read from the PTX once at load
	// rather than at every launch.
	fastSums bool
}

var _ runtime.Backend = (*GPU)(nil)

// New opens GPU ordinal (0 for the first) for the CUDA backend.
func New(ordinal int) (*GPU, error) {
	d, err := cudadrv.Open(ordinal)
	if err != nil {
		return nil, err
	}
	return &GPU{Dev: d, Cache: kcache.Open(), cache: map[string]*cudaKernel{}}, nil
}

// Name implements Backend.
func (c *GPU) Name() string { return "cuda" }

// DeviceName describes the device: name, compute capability, SMs, memory
// and driver version.
func (c *GPU) DeviceName() string {
	p := c.Dev.Props
	return fmt.Sprintf("%s (sm_%d, %d SMs, %.0f GiB, driver CUDA %d.%d)", p.Name, p.SM(), p.SMs,
		float64(p.TotalMemory)/(1<<30), p.DriverVersion/1000, p.DriverVersion%1000/10)
}

// Facts reports the device's name, compute capability, SMs and memory.
func (c *GPU) Facts() DeviceFacts {
	p := c.Dev.Props
	return DeviceFacts{Name: p.Name, Major: p.Major, Minor: p.Minor, SMs: p.SMs, TotalBytes: p.TotalMemory}
}

// Close unloads every cached module and releases the device.
func (c *GPU) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	var first error
	for key, ck := range c.cache {
		if err := ck.mod.Unload(); err != nil && first == nil {
			first = err
		}
		if ck.general != nil {
			if err := ck.general.mod.Unload(); err != nil && first == nil {
				first = err
			}
		}
		delete(c.cache, key)
	}
	if err := c.Dev.Free(c.l2Flush); err != nil && first == nil {
		first = err
	}
	c.l2Flush = 0
	if err := c.Dev.Close(); err != nil && first == nil {
		first = err
	}
	return first
}

// CompileTarget returns the target kernels are compiled for: c.Target, or
// the device's best target when it is nil.
func (c *GPU) CompileTarget() (*lower.Target, error) {
	if c.Target != nil {
		return c.Target, nil
	}
	return lower.BestTarget(c.Dev.Props.SM())
}

// Launch implements Backend: it checks the arguments (Kernel.Bind),
// compiles and loads k (once per IR text and target), uploads every array,
// launches the grid (the kernel's, or opts.Grid), waits for it, copies every
// array back into its host tensor (kernels store into their arrays) and
// frees the device memory. LaunchResult.Elapsed is the kernel's own time,
// measured with CUDA events around the launch (no copies, no compilation).
// opts.Workers is ignored; opts.Blocks (a sample of blocks) is refused: the
// GPU runs whole grids.
//
// A fault inside the kernel (an illegal address, say) leaves the device's
// context unusable: later calls on this CUDA fail too.
// DeviceTimeoutError is a launch whose kernel was still running on the GPU
// when its LaunchOptions.Context ended (a --timeout): a kernel that never
// finishes, such as a spin lock that is never released. The host cannot
// stop a running kernel; the CUDA context stays busy until the process
// exits, which ends it.
type DeviceTimeoutError struct {
	Kernel string
	Err    error // the context's error
}

func (e *DeviceTimeoutError) Error() string {
	return fmt.Sprintf("cuda: %s was still running on the GPU when the launch's time ran out (%v); a running kernel cannot be stopped from the host: the process must exit to end it", e.Kernel, e.Err)
}

func (e *DeviceTimeoutError) Unwrap() error { return e.Err }

// plantedFault, set only in a build with the tag plantfault
// (planted_fault.go), corrupts a launch's results after they are copied
// back: the GPU check must catch it.
var plantedFault func(f *ir.Func, args []runtime.Arg)

func (c *GPU) Launch(k *runtime.Kernel, args []runtime.Arg, opts runtime.LaunchOptions) (*runtime.LaunchResult, error) {
	if len(opts.Blocks) > 0 {
		return nil, errors.New("cuda: LaunchOptions.Blocks selects blocks for the interpreter; the GPU runs the whole grid")
	}
	p, err := c.Prepare(k, args, opts)
	if err != nil {
		return nil, err
	}
	defer p.Free()
	ms, err := c.timedCallContext(opts.Context, false, p.Run)
	var te *DeviceTimeoutError
	if errors.As(err, &te) {
		// The kernel still runs: freeing its buffers would wait for it.
		te.Kernel = p.ck.pk.Name
		p.da = nil
		return nil, te
	}
	if err != nil {
		return nil, fmt.Errorf("cuda: %s: %w", p.ck.pk.Name, err)
	}
	if err := p.Download(); err != nil {
		return nil, err
	}
	if plantedFault != nil {
		plantedFault(p.b.Kernel.Func, args)
	}
	return &runtime.LaunchResult{Grid: p.b.Grid, Dims: p.b.Dims, Blocks: p.b.NumBlocks(),
		Elapsed: time.Duration(ms * float64(time.Millisecond)), Float8FastSums: p.Float8FastSums()}, nil
}

// CompileInfo compiles and loads k for the device if that was not done yet
// and describes the result: registers, spills, JIT log, compile and JIT
// times. The times are those of the first compilation. For a kernel with
// variants (CompileInfo.Variant "fast" or "general") it describes the
// variant that k's latest Launch or Prepare on c ran, or the fast one
// before any.
func (c *GPU) CompileInfo(k *runtime.Kernel) (*CompileInfo, error) {
	ck, err := c.compile(k)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if ck.last != nil {
		ck = ck.last
	}
	info := ck.info
	return &info, nil
}

// forLaunch returns the variant of ck to launch with the binding's arrays
// on the device (ptxgen.Kernel.ForLaunch: the fast variant when every array
// it copies with cp.async is 16-byte aligned with unit last stride, else
// the general one, loaded here the first time it is needed), and records
// it for CompileInfo.
func (c *GPU) forLaunch(ck *cudaKernel, b *runtime.Binding, da *devArgs) (*cudaKernel, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v := ck
	if ck.pk.General != nil && ck.pk.ForLaunch(arrayArgs(b, da)) == ck.pk.General {
		if ck.general == nil {
			g, err := c.load(ck.pk.General, ck.info.Target, ck.info.CompileTime)
			if err != nil {
				return nil, err
			}
			g.info.Cached = ck.info.Cached
			ck.general = g
		}
		v = ck.general
	}
	ck.last = v
	return v, nil
}

// arrayArgs are the array arguments as the kernel receives them: device
// address of element [0, ...], element size, strides (ptxgen.ArrayArg).
func arrayArgs(b *runtime.Binding, da *devArgs) []ptxgen.ArrayArg {
	out := make([]ptxgen.ArrayArg, len(b.Tensors))
	for i, t := range b.Tensors {
		if t == nil {
			continue
		}
		a := ptxgen.ArrayArg{Addr: uint64(da.ptrs[i]), ElemBytes: t.DType.Bytes()}
		if at, ok := b.Kernel.Func.Params[i].Type.(*ir.Array); ok {
			a.ElemBytes = at.DType.Bytes()
		}
		for _, s := range t.Strides {
			a.Strides = append(a.Strides, int64(s))
		}
		out[i] = a
	}
	for i, l := range b.Lists {
		for j, t := range l {
			a := ptxgen.ArrayArg{Addr: uint64(da.lists[i][j]), ElemBytes: t.DType.Bytes()}
			for _, s := range t.Strides {
				a.Strides = append(a.Strides, int64(s))
			}
			out[i].Elems = append(out[i].Elems, a)
		}
	}
	return out
}

// compile returns k compiled for c's target and loaded, from the cache when
// a kernel with the same IR text (which includes the baked constants) was
// compiled for the same target before; the PTX comes from the disk cache
// (c.Cache) when another process compiled it.
func (c *GPU) compile(k *runtime.Kernel) (*cudaKernel, error) {
	if k == nil || k.Func == nil {
		return nil, errors.New("cuda: nil kernel")
	}
	target, err := c.CompileTarget()
	if err != nil {
		return nil, fmt.Errorf("cuda: %s: %w", k.Name(), err)
	}
	// The key holds the whole target value: the same name with other
	// tuning is another kernel.
	key := fmt.Sprintf("%+v\x00%s", *target, ir.Print(k.Func))
	c.mu.Lock()
	defer c.mu.Unlock()
	if ck, ok := c.cache[key]; ok {
		return ck, nil
	}
	if c.cache == nil {
		c.cache = map[string]*cudaKernel{}
	}
	if sm := c.Dev.Props.SM(); !target.RunsOn(sm) {
		return nil, fmt.Errorf("cuda: %s: code for %s does not run on compute capability %d.%d (%s)",
			k.Name(), target, sm/10, sm%10, c.Dev.Props.Name)
	}

	start := time.Now()
	pk, cached, err := c.Cache.CompilePTXFor(k.Func, target)
	if err != nil {
		return nil, err
	}
	if cached && checkABI(pk, k.Func) != nil {
		// A cache entry that does not fit its IR (it cannot happen unless
		// the key misses an input of the compiler): compile afresh and
		// replace it.
		if pk, err = compile.PTXFor(k.Func, target); err != nil {
			return nil, err
		}
		cached = false
		_ = c.Cache.Put(c.Cache.Key(k.Func, target), pk)
	}
	compileTime := time.Since(start)
	if err := checkABI(pk, k.Func); err != nil {
		return nil, fmt.Errorf("cuda: %s: compiled kernel does not match its IR: %w", k.Name(), err)
	}
	ck, err := c.load(pk, target.Name, compileTime)
	if err != nil {
		return nil, err
	}
	ck.info.Cached = cached
	ck.info.HintNotes = lower.HintNotes(k.Func, target, pk.Persistent)
	c.cache[key] = ck
	return ck, nil
}

// load JIT-compiles and loads one compiled kernel (a variant) and reads its
// attributes; compileTime is the lower + ptxgen time to report.
func (c *GPU) load(pk *ptxgen.Kernel, target string, compileTime time.Duration) (*cudaKernel, error) {
	start := time.Now()
	mod, err := c.Dev.LoadModule(pk.PTX)
	if err != nil {
		return nil, fmt.Errorf("cuda: JIT of %s for %s on %s failed: %w", pk.Name, target, c.Dev.Props.Name, err)
	}
	jitTime := time.Since(start)
	ck := &cudaKernel{pk: pk, mod: mod, fastSums: pk.Float8FastSums()}
	fail := func(err error) (*cudaKernel, error) {
		mod.Unload()
		return nil, err
	}
	if ck.fn, err = mod.Function(pk.Name); err != nil {
		return fail(fmt.Errorf("cuda: %w", err))
	}
	props := c.Dev.Props
	if pk.SharedBytes > props.SharedPerBlock {
		if pk.SharedBytes > props.SharedPerBlockOptin {
			return fail(fmt.Errorf("cuda: %s needs %d bytes of shared memory; %s allows at most %d per block",
				pk.Name, pk.SharedBytes, props.Name, props.SharedPerBlockOptin))
		}
		if err := ck.fn.SetMaxDynamicSharedMemory(pk.SharedBytes); err != nil {
			return fail(fmt.Errorf("cuda: %w", err))
		}
	}
	attrs, err := ck.fn.Attributes()
	if err != nil {
		return fail(fmt.Errorf("cuda: %w", err))
	}
	threads := pk.Block[0] * pk.Block[1] * pk.Block[2]
	if attrs.MaxThreadsPerBlock > 0 && threads > attrs.MaxThreadsPerBlock {
		return fail(fmt.Errorf("cuda: %s uses %d registers per thread, so at most %d threads per block, but its block is %d threads",
			pk.Name, attrs.NumRegs, attrs.MaxThreadsPerBlock, threads))
	}
	ck.resident = props.SMs
	if pk.Cluster > 1 {
		n, err := ck.fn.MaxActiveClusters(pk.Cluster*props.SMs, pk.Block, pk.SharedBytes)
		if err != nil {
			return fail(fmt.Errorf("cuda: %s runs in clusters of %d blocks: %w", pk.Name, pk.Cluster, err))
		}
		if n < 1 {
			return fail(fmt.Errorf("cuda: %s runs in clusters of %d blocks of %d threads with %d bytes of shared memory, and %s cannot hold one",
				pk.Name, pk.Cluster, threads, pk.SharedBytes, props.Name))
		}
		ck.resident = n * pk.Cluster
	}
	ck.info = CompileInfo{
		Kernel:             pk.Name,
		Target:             target,
		Device:             fmt.Sprintf("%s (sm_%d)", props.Name, props.SM()),
		Block:              pk.Block,
		SharedBytes:        pk.SharedBytes,
		PTX:                pk.PTX,
		RegsEstimate:       pk.Regs,
		Regs:               attrs.NumRegs,
		LocalBytes:         attrs.LocalBytes,
		StaticSharedBytes:  attrs.StaticSharedBytes,
		MaxThreadsPerBlock: attrs.MaxThreadsPerBlock,
		JITLog:             strings.TrimSpace(mod.InfoLog),
		CompileTime:        compileTime,
		JITTime:            jitTime,
		Variant:            pk.Variant,
		Path:               pk.Path,
		Cluster:            pk.Cluster,
	}
	if pk.Persistent {
		ck.info.Resident = ck.resident
	}
	return ck, nil
}

// checkABI checks that the kernel's parameter slots refer to parameters of
// f of the right kind, so that marshalling cannot go wrong silently.
func checkABI(pk *ptxgen.Kernel, f *ir.Func) error {
	if g := pk.General; g != nil {
		// Each variant has its own block, shared memory and parameters (an
		// sm_90a fast variant adds tensor maps and the grid); marshal
		// follows the one launched.
		if g.Name != pk.Name {
			return fmt.Errorf("variants differ in name: %s vs %s", pk.Name, g.Name)
		}
		if err := checkABI(g, f); err != nil {
			return fmt.Errorf("general variant: %w", err)
		}
		if pk.Variant != ptxgen.VariantFast {
			return fmt.Errorf("kernel with a general variant is %q, not fast", pk.Variant)
		}
		for _, i := range pk.FastArrays {
			if i < 0 || i >= len(f.Params) {
				return fmt.Errorf("fast-path array %d of %d params", i, len(f.Params))
			}
			switch f.Params[i].Type.(type) {
			case *ir.Array, *ir.ArrayList: // a list's every array is checked (ArrayArg.Elems)
			default:
				return fmt.Errorf("fast-path array %d (%s) is not an array or a list of arrays", i, f.Params[i].Name)
			}
		}
	}
	if pk.Block[0] <= 0 || pk.Block[1] <= 0 || pk.Block[2] <= 0 {
		return fmt.Errorf("block %v", pk.Block)
	}
	for i, s := range pk.Params {
		if s.Param < 0 || s.Param >= len(f.Params) {
			return fmt.Errorf("param slot %d (%s) names parameter %d of %d", i, s.Kind, s.Param, len(f.Params))
		}
		p := f.Params[s.Param]
		switch s.Kind {
		case ptxgen.SlotPointer, ptxgen.SlotDim, ptxgen.SlotStride:
			a, ok := p.Type.(*ir.Array)
			if !ok {
				return fmt.Errorf("param slot %d (%s) names %s, which is not an array", i, s.Kind, p.Name)
			}
			if s.Kind != ptxgen.SlotPointer && (s.Axis < 0 || s.Axis >= a.Rank) {
				return fmt.Errorf("param slot %d (%s) names axis %d of rank-%d %s", i, s.Kind, s.Axis, a.Rank, p.Name)
			}
		case ptxgen.SlotScalar:
			if _, ok := p.Type.(*ir.Scalar); !ok {
				return fmt.Errorf("param slot %d (scalar) names %s, which is not a scalar", i, p.Name)
			}
		case ptxgen.SlotListTable, ptxgen.SlotListLen:
			if _, ok := p.Type.(*ir.ArrayList); !ok {
				return fmt.Errorf("param slot %d (%s) names %s, which is not a list of arrays", i, s.Kind, p.Name)
			}
		case ptxgen.SlotTensorMap:
			if a, ok := p.Type.(*ir.Array); !ok || a.Rank < 2 || a.Rank > 4 || pk.Variant != ptxgen.VariantFast {
				return fmt.Errorf("param slot %d (tensormap) names %s, which is not a 2-D, 3-D or 4-D array of a fast variant", i, p.Name)
			}
		case ptxgen.SlotGrid:
			if s.Axis < 0 || s.Axis > 2 || !pk.Persistent {
				return fmt.Errorf("param slot %d (grid) has axis %d (persistent: %v)", i, s.Axis, pk.Persistent)
			}
		default:
			return fmt.Errorf("param slot %d has kind %d", i, s.Kind)
		}
	}
	return nil
}

// devSpan is one device buffer: a copy of the span of a host storage that
// the arguments sharing it reach.
type devSpan struct {
	host []byte // the host bytes mirrored (a subslice of the tensors' Data)
	dev  cudadrv.DevicePtr
}

// devArgs are a binding's arrays on the device.
type devArgs struct {
	spans []*devSpan
	// ptrs[i] is the device address of element [0, 0, ...] of array
	// parameter i (0 for scalars and empty arrays).
	ptrs []cudadrv.DevicePtr
	// lists[i] is list parameter i's arrays' device addresses, tables[i]
	// its table (arraylist.go).
	lists  map[int][]cudadrv.DevicePtr
	tables map[int]cudadrv.DevicePtr
}

// elemSpan is the range [lo, hi] of element indices of t's Data that t's
// elements occupy; ok is false for a tensor without elements.
func elemSpan(t *runtime.Tensor) (lo, hi int, ok bool) {
	lo, hi = t.Offset, t.Offset
	for i, d := range t.Shape {
		if d == 0 {
			return 0, 0, false
		}
		if s := t.Strides[i]; s > 0 {
			hi += (d - 1) * s
		} else {
			lo += (d - 1) * s
		}
	}
	return lo, hi, true
}

// upload copies the binding's arrays to the device: one buffer per
// distinct host storage, covering the union of the byte spans its tensors
// reach.
func (c *GPU) upload(b *runtime.Binding) (*devArgs, error) {
	tensors, names := launchTensors(b)
	da := &devArgs{ptrs: make([]cudadrv.DevicePtr, len(tensors))}
	type group struct {
		data   []byte // the longest Data seen with this base
		lo, hi int    // byte span [lo, hi)
		span   *devSpan
	}
	groups := map[*byte]*group{}
	var order []*byte
	for _, t := range tensors {
		if t == nil || len(t.Data) == 0 {
			continue
		}
		lo, hi, ok := elemSpan(t)
		if !ok {
			continue
		}
		bs := t.DType.Bytes()
		base := unsafe.SliceData(t.Data)
		g := groups[base]
		if g == nil {
			g = &group{data: t.Data, lo: lo * bs, hi: (hi + 1) * bs}
			groups[base] = g
			order = append(order, base)
			continue
		}
		if len(t.Data) > len(g.data) {
			g.data = t.Data
		}
		g.lo = min(g.lo, lo*bs)
		g.hi = max(g.hi, (hi+1)*bs)
	}
	// Checked before any allocation, so that arrays too large for the
	// device fail with their sizes rather than with cuMemAlloc's code.
	var need int64
	var sizes []string
	for i, t := range tensors {
		if t == nil || len(t.Data) == 0 {
			continue
		}
		if lo, hi, ok := elemSpan(t); ok {
			sizes = append(sizes, fmt.Sprintf("%s %d", names[i], int64(hi-lo+1)*int64(t.DType.Bytes())))
		}
	}
	for _, base := range order {
		need += int64(groups[base].hi - groups[base].lo)
	}
	if free, total, err := c.Dev.MemInfo(); err == nil && need > free {
		return nil, fmt.Errorf("cuda: the arrays need %s of device memory (%s), more than the %s free of %s",
			runtime.FormatBytes(need), strings.Join(sizes, ", "), runtime.FormatBytes(free), runtime.FormatBytes(total))
	}
	for _, base := range order {
		g := groups[base]
		host := g.data[g.lo:g.hi]
		p, err := c.Dev.Alloc(len(host))
		if err != nil {
			c.free(da)
			return nil, fmt.Errorf("cuda: allocating %d bytes: %w", len(host), err)
		}
		g.span = &devSpan{host: host, dev: p}
		da.spans = append(da.spans, g.span)
		if err := c.Dev.CopyHtoD(p, host); err != nil {
			c.free(da)
			return nil, fmt.Errorf("cuda: upload: %w", err)
		}
	}
	for i, t := range tensors {
		if t == nil || len(t.Data) == 0 {
			continue
		}
		if _, _, ok := elemSpan(t); !ok {
			continue
		}
		g := groups[unsafe.SliceData(t.Data)]
		da.ptrs[i] = g.span.dev + cudadrv.DevicePtr(t.Offset*t.DType.Bytes()-g.lo)
	}
	if err := c.uploadLists(b, da); err != nil {
		c.free(da)
		return nil, err
	}
	da.ptrs = da.ptrs[:len(b.Tensors)]
	return da, nil
}

// reupload copies the host storage to the device buffers again.
func (c *GPU) reupload(da *devArgs) error {
	for _, s := range da.spans {
		if err := c.Dev.CopyHtoD(s.dev, s.host); err != nil {
			return fmt.Errorf("cuda: upload: %w", err)
		}
	}
	return nil
}

// download copies every device buffer back over its host span.
func (c *GPU) download(da *devArgs) error {
	for _, s := range da.spans {
		if err := c.Dev.CopyDtoH(s.host, s.dev); err != nil {
			return fmt.Errorf("cuda: copying results back: %w", err)
		}
	}
	return nil
}

// free releases the device buffers.
func (c *GPU) free(da *devArgs) error {
	var first error
	for _, s := range da.spans {
		if err := c.Dev.Free(s.dev); err != nil && first == nil {
			first = err
		}
	}
	da.spans = nil
	return first
}

// marshal builds the launch arguments in the order of the kernel's
// parameter slots: pointers as DevicePtr, dims as int32, strides as int64
// (elements), scalars in their dtype (f16 and bf16 as their bits), the
// grid's extents as uint32, and tensor maps encoded for the arrays as
// bound (ptxgen.SlotTensorMap).
func (c *GPU) marshal(pk *ptxgen.Kernel, b *runtime.Binding, da *devArgs) ([]any, error) {
	f := b.Kernel.Func
	out := make([]any, len(pk.Params))
	for i, s := range pk.Params {
		p := f.Params[s.Param]
		switch s.Kind {
		case ptxgen.SlotGrid:
			out[i] = uint32(b.Grid[s.Axis])
			continue
		case ptxgen.SlotTensorMap:
			m, err := c.tensorMap(b.Tensors[s.Param], da.ptrs[s.Param], s.Box)
			if err != nil {
				return nil, fmt.Errorf("cuda: %s: tensor map of %s: %w", pk.Name, p.Name, err)
			}
			out[i] = m
			continue
		case ptxgen.SlotPointer:
			out[i] = da.ptrs[s.Param]
		case ptxgen.SlotDim:
			d := b.Tensors[s.Param].Shape[s.Axis]
			if d > math.MaxInt32 {
				return nil, fmt.Errorf("cuda: %s: dimension %d is %d, more than the kernel's 32-bit extents hold",
					p.Name, s.Axis, d)
			}
			out[i] = int32(d)
		case ptxgen.SlotStride:
			out[i] = int64(b.Tensors[s.Param].Strides[s.Axis])
		case ptxgen.SlotListTable:
			out[i] = da.tables[s.Param]
		case ptxgen.SlotListLen:
			out[i] = int32(len(b.Lists[s.Param]))
		case ptxgen.SlotScalar:
			v, err := scalarParam(p.Type.(*ir.Scalar).DType, b.Scalars[s.Param])
			if err != nil {
				return nil, fmt.Errorf("cuda: argument %s: %w", p.Name, err)
			}
			out[i] = v
		}
	}
	return out, nil
}

// scalarParam converts a bound scalar (int64 or float64, see Binding) to the
// Go value of the kernel parameter's width.
func scalarParam(d ir.DType, v any) (any, error) {
	switch x := v.(type) {
	case int64:
		switch d {
		case ir.I32:
			return int32(x), nil
		case ir.I64:
			return x, nil
		case ir.Bool:
			return uint8(x & 1), nil
		}
	case float64:
		switch d {
		case ir.F32, ir.TF32:
			return float32(x), nil
		case ir.F64:
			return x, nil
		case ir.F16:
			return runtime.F16Bits(x), nil
		case ir.BF16:
			return runtime.BF16Bits(x), nil
		}
	}
	return nil, fmt.Errorf("unsupported scalar %T for %s", v, d)
}

// tensorMap encodes the TMA descriptor of a row-major 2-D array for boxes
// of box[0] columns by box[1] rows, swizzled by the box's row bytes (128:
// the 128-byte swizzle; 64, a K tile of 32: the 64-byte one, which is what
// ptxgen's descriptors for such slabs read), zero-filled out of bounds
// (PTX.md 3.5). A 3-D or 4-D array's map has boxes one element deep
// along its outer axes (the copies take one matrix: a batch, or a batch
// and a head of (B, H, S, D) attention arrays). The fast variant that takes
// it is launched only when the array is Aligned16 (16-byte base and row
// stride, unit last stride), which is what TMA needs.
func (c *GPU) tensorMap(t *runtime.Tensor, ptr cudadrv.DevicePtr, box [2]int) (cudadrv.TensorMap, error) {
	var dt cudadrv.TensorMapDataType
	switch t.DType {
	case ir.F16:
		dt = cudadrv.TMFloat16
	case ir.BF16:
		dt = cudadrv.TMBFloat16
	case ir.F8E4M3, ir.F8E5M2, ir.I8, ir.U8:
		// TMA copies bytes: float8 and int8 travel as uint8 (wgmma reads
		// the type).
		dt = cudadrv.TMUint8
	default:
		return cudadrv.TensorMap{}, fmt.Errorf("no TMA data type for %s", t.DType)
	}
	dims, strides, boxes, err := tensorMapGeometry(t, box)
	if err != nil {
		return cudadrv.TensorMap{}, err
	}
	return c.Dev.EncodeTensorMap(cudadrv.TiledTensor{
		DataType:    dt,
		Global:      ptr,
		Dims:        dims,
		Strides:     strides,
		Box:         boxes,
		Swizzle:     swizzleFor(box[0] * t.DType.Bytes()),
		L2Promotion: cudadrv.L2Promotion256B,
	})
}

// swizzleFor is the TMA swizzle of boxes rowBytes wide.
func swizzleFor(rowBytes int) int {
	if rowBytes == 64 {
		return cudadrv.Swizzle64B
	}
	return cudadrv.Swizzle128B
}
