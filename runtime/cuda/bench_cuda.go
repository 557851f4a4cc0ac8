//go:build cuda

package cuda

// The device-resident API for benchmarks: upload once, launch many times,
// time with CUDA events, compare with cuBLAS on the same buffers.
//
//	p, err := gpu.Prepare(k, []runtime.Arg{A, B, C}, runtime.LaunchOptions{})
//	defer p.Free()
//	ms, err := p.Time(5, 50)                     // median of 50 launches after 5 warm-ups
//	err = p.Download()                           // C now holds tilec's result
//	blas, err := p.TimeCublas("A", "B", "C", 5, 50) // cuBLAS on the same A, B (overwrites C)
//	tflops := 2*M*N*K / (ms * 1e-3) / 1e12

import (
	"context"
	"fmt"
	"slices"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/runtime"
	"github.com/tilec/tilec/runtime/cudadrv"
)

// Prepared is a kernel bound to arguments that live on the device: Run and
// Time launch it without any copy. Free releases the device memory.
type Prepared struct {
	c    *GPU
	ck   *cudaKernel
	b    *runtime.Binding
	da   *devArgs
	args []any // the marshalled launch arguments
}

// Prepare compiles and loads k (cached as for Launch), checks args
// (Kernel.Bind, with opts.Grid as the grid override), uploads every array
// once and picks the kernel variant these device arrays allow (see
// GPU.CompileInfo; Info says which). The host tensors stay bound to the Prepared: Download copies into
// them, Upload copies from them.
func (c *GPU) Prepare(k *runtime.Kernel, args []runtime.Arg, opts runtime.LaunchOptions) (*Prepared, error) {
	b, err := k.Bind(args, opts.Grid)
	if err != nil {
		return nil, err
	}
	k = b.Kernel // the specialization of a generic kernel
	ck, err := c.compile(k)
	if err != nil {
		return nil, err
	}
	da, err := c.upload(b)
	if err != nil {
		return nil, err
	}
	// The variant is chosen from the device addresses and strides (a fast
	// variant needs 16-byte aligned rows); the arguments are the same.
	if ck, err = c.forLaunch(ck, b, da); err != nil {
		c.free(da)
		return nil, err
	}
	vals, err := c.marshal(ck.pk, b, da)
	if err != nil {
		c.free(da)
		return nil, err
	}
	return &Prepared{c: c, ck: ck, b: b, da: da, args: vals}, nil
}

// Run enqueues one launch of the kernel on the default stream and returns;
// errors inside the kernel show at the next synchronising call (Time,
// Download, Sync).
func (p *Prepared) Run() error {
	if p.da == nil {
		return fmt.Errorf("cuda: %s: Prepared used after Free", p.ck.pk.Name)
	}
	pk := p.ck.pk
	return p.c.Dev.Launch(p.ck.fn, launchGrid(pk, p.b.Grid, p.ck.resident), pk.Block, pk.SharedBytes, p.args...)
}

// Float8FastSums reports whether the variant the Prepared launches sums
// float8 products in the tensor cores' reduced-precision accumulator
// (ptxgen.Kernel.Float8FastSums).
func (p *Prepared) Float8FastSums() bool { return p.ck.fastSums }

// Sync waits for all enqueued work and returns its first error.
func (p *Prepared) Sync() error {
	if err := p.c.Dev.Synchronize(); err != nil {
		return fmt.Errorf("cuda: %s: %w", p.ck.pk.Name, err)
	}
	return nil
}

// timedCall enqueues fn (a launch, a cuBLAS call) between two CUDA events,
// waits, and returns the milliseconds between them. With cold set, the L2
// cache is flushed first (TimeCold, TimeCublasCold).
func (c *GPU) timedCall(cold bool, fn func() error) (float64, error) {
	return c.timedCallContext(nil, cold, fn)
}

// timedCallContext is timedCall that stops waiting when ctx (if not nil)
// ends first, with a *DeviceTimeoutError: the work stays on the device.
func (c *GPU) timedCallContext(ctx context.Context, cold bool, fn func() error) (float64, error) {
	d := c.Dev
	start, err := d.NewEvent()
	if err != nil {
		return 0, err
	}
	defer start.Destroy()
	end, err := d.NewEvent()
	if err != nil {
		return 0, err
	}
	defer end.Destroy()
	if cold {
		if err := c.flushL2(); err != nil {
			return 0, err
		}
	}
	if err := start.Record(); err != nil {
		return 0, err
	}
	if err := fn(); err != nil {
		return 0, err
	}
	if err := end.Record(); err != nil {
		return 0, err
	}
	if ctx != nil {
		if err := end.WaitContext(ctx); err != nil {
			if ctx.Err() != nil {
				return 0, &DeviceTimeoutError{Err: ctx.Err()}
			}
			return 0, err
		}
	}
	if err := d.Synchronize(); err != nil {
		return 0, err
	}
	return start.Elapsed(end)
}

// TimeCold times one launch with none of the kernel's data in the L2 cache,
// as triton.testing.do_bench times a call: it clears a device buffer larger
// than L2 (l2FlushBytes), then launches between two CUDA events. Both
// matter for a launch timed on its own right after Prepare: the upload
// leaves the last arrays it copied in L2, and events around a launch on an
// idle stream count the host's launch latency (microseconds, a large part
// of a memory-bound kernel on a few MB), which the clearing hides: the
// device is still busy with it when the launch is enqueued.
func (p *Prepared) TimeCold() (float64, error) {
	ms, err := p.c.timedCall(true, p.Run)
	if err != nil {
		return 0, fmt.Errorf("cuda: timing %s: %w", p.ck.pk.Name, err)
	}
	return ms, nil
}

// l2FlushBytes is the buffer TimeCold clears: more than any supported
// GPU's L2 (50 MB on an H100, 126 MB on a B200); do_bench clears 256 MB too.
const l2FlushBytes = 256 << 20

// flushL2 enqueues a memset of l2FlushBytes on the default stream (the
// buffer is allocated on first use and freed by Close).
func (c *GPU) flushL2() error {
	c.mu.Lock()
	if c.l2Flush == 0 {
		buf, err := c.Dev.Alloc(l2FlushBytes)
		if err != nil {
			c.mu.Unlock()
			return fmt.Errorf("cuda: the L2 flush buffer: %w", err)
		}
		c.l2Flush = buf
	}
	buf := c.l2Flush
	c.mu.Unlock()
	return c.Dev.Memset(buf, 0, l2FlushBytes)
}

// Times launches the kernel warmup times untimed, then iters times, each
// between CUDA events, and returns each timed launch's milliseconds.
func (p *Prepared) Times(warmup, iters int) ([]float64, error) {
	ts, err := p.c.Dev.TimeLaunches(p.Run, warmup, iters)
	if err != nil {
		return nil, fmt.Errorf("cuda: timing %s: %w", p.ck.pk.Name, err)
	}
	return ts, nil
}

// Time is Times reduced to the median, in milliseconds: the figure to
// report (kernel timings have a long upper tail).
func (p *Prepared) Time(warmup, iters int) (float64, error) {
	ts, err := p.Times(warmup, iters)
	if err != nil {
		return 0, err
	}
	return cudadrv.Median(ts), nil
}

// Download waits for the device and copies every array back into the host
// tensors given to Prepare.
func (p *Prepared) Download() error {
	if p.da == nil {
		return fmt.Errorf("cuda: %s: Prepared used after Free", p.ck.pk.Name)
	}
	if err := p.Sync(); err != nil {
		return err
	}
	return p.c.download(p.da)
}

// Upload copies the host tensors given to Prepare to the device again (after
// changing them on the host, e.g. to poison an output before a checked run).
func (p *Prepared) Upload() error {
	if p.da == nil {
		return fmt.Errorf("cuda: %s: Prepared used after Free", p.ck.pk.Name)
	}
	return p.c.reupload(p.da)
}

// Free releases the device memory. The Prepared is unusable afterwards;
// the compiled kernel stays cached.
func (p *Prepared) Free() error {
	if p.da == nil {
		return nil
	}
	p.c.Dev.Synchronize()
	err := p.c.free(p.da)
	p.da = nil
	return err
}

// Info describes the compiled kernel variant this Prepared launches (see
// GPU.CompileInfo).
func (p *Prepared) Info() *CompileInfo {
	info := p.ck.info
	return &info
}

// LocalBytes is the kernel's local memory a thread after the JIT (spilled
// registers; Info().LocalBytes).
func (p *Prepared) LocalBytes() int { return p.ck.info.LocalBytes }

// Grid is the launch grid.
func (p *Prepared) Grid() [3]int { return p.b.Grid }

// Dims are the symbolic dims bound from the arguments.
func (p *Prepared) Dims() map[string]int64 { return p.b.Dims }

// Ptr returns the device address of element [0, 0, ...] of the array
// parameter called name.
func (p *Prepared) Ptr(name string) (uint64, error) {
	i, t, err := p.array(name)
	if err != nil {
		return 0, err
	}
	if t.NumElements() == 0 {
		return 0, fmt.Errorf("cuda: argument %s is empty", name)
	}
	return uint64(p.da.ptrs[i]), nil
}

func (p *Prepared) array(name string) (int, *runtime.Tensor, error) {
	if p.da == nil {
		return 0, nil, fmt.Errorf("cuda: %s: Prepared used after Free", p.ck.pk.Name)
	}
	for i, par := range p.b.Kernel.Func.Params {
		if par.Name == name {
			if p.b.Tensors[i] == nil {
				return 0, nil, fmt.Errorf("cuda: parameter %s is not an array", name)
			}
			return i, p.b.Tensors[i], nil
		}
	}
	return 0, nil, fmt.Errorf("cuda: %s has no parameter %s", p.b.Kernel.Name(), name)
}

// TimeCublas times cuBLAS computing C = A @ B on the Prepared's device
// buffers of the array parameters named a, b and c, which must be row-major
// contiguous 2-D arrays of one dtype (f16, bf16, f32 or tf32; f32 uses TF32
// tensor cores) with shapes (M, K), (K, N), (M, N). It returns the median
// milliseconds of iters runs after warmup. It overwrites c's device buffer:
// Download tilec's result first if it is needed.
func (p *Prepared) TimeCublas(a, b, c string, warmup, iters int) (float64, error) {
	op, err := p.gemmOperands(2, a, b, c)
	if err != nil {
		return 0, err
	}
	return p.c.TimeCublasGemm(op.dt, op.m, op.n, op.k, op.ptrs[0], op.ptrs[1], op.ptrs[2], warmup, iters)
}

// TimeCublasBatched times cuBLAS's strided-batched GEMM computing
// C[i] = A[i] @ B[i] for every i of the leading axis, on the Prepared's
// device buffers of the array parameters named a, b and c: row-major
// contiguous 3-D arrays of one dtype (as TimeCublas) with shapes
// (Bt, M, K), (Bt, K, N), (Bt, M, N). One cuBLAS call covers the batch, as
// torch.bmm's does. It returns the median milliseconds of iters runs after
// warmup, and overwrites c's device buffer as TimeCublas does.
func (p *Prepared) TimeCublasBatched(a, b, c string, warmup, iters int) (float64, error) {
	op, err := p.gemmOperands(3, a, b, c)
	if err != nil {
		return 0, err
	}
	return p.c.TimeCublasGemmBatched(op.dt, op.batch, op.m, op.n, op.k, op.ptrs[0], op.ptrs[1], op.ptrs[2], warmup, iters)
}

// TimeCublasCold times one cuBLAS GEMM C = A @ B on the arrays named a, b
// and c (as TimeCublas) the way TimeCold times one launch: L2 cleared,
// then the call alone between two CUDA events. tilec bench --entry times a
// host function's GEMM launch with TimeCold and this call right after it,
// so that neither side gets a warm L2 or back-to-back calls the other
// lacks. It overwrites c's device buffer as TimeCublas does.
func (p *Prepared) TimeCublasCold(a, b, c string) (float64, error) {
	op, err := p.gemmOperands(2, a, b, c)
	if err != nil {
		return 0, err
	}
	return p.timeCublasCold(op, func() error { return p.c.CublasGemm(op.dt, op.m, op.n, op.k, op.ptrs[0], op.ptrs[1], op.ptrs[2]) })
}

// TimeCublasBatchedCold times one strided-batched GEMM (as
// TimeCublasBatched) the way TimeCublasCold times a GEMM.
func (p *Prepared) TimeCublasBatchedCold(a, b, c string) (float64, error) {
	op, err := p.gemmOperands(3, a, b, c)
	if err != nil {
		return 0, err
	}
	return p.timeCublasCold(op, func() error {
		return p.c.CublasGemmBatched(op.dt, op.batch, op.m, op.n, op.k, op.ptrs[0], op.ptrs[1], op.ptrs[2])
	})
}

func (p *Prepared) timeCublasCold(op gemmOperands, call func() error) (float64, error) {
	if _, err := gemmType(op.dt); err != nil {
		return 0, err
	}
	ms, err := p.c.timedCall(true, call)
	if err != nil {
		shape := fmt.Sprintf("%dx%dx%d", op.m, op.n, op.k)
		if op.batch > 1 {
			shape = fmt.Sprintf("%d x %s", op.batch, shape)
		}
		return 0, fmt.Errorf("cuda: timing cuBLAS %s %s: %w", op.dt, shape, err)
	}
	return ms, nil
}

// gemmOperands are the device buffers and the shape of a GEMM (batch 1) or
// a batched GEMM on a Prepared's arrays.
type gemmOperands struct {
	dt             ir.DType
	batch, m, n, k int
	ptrs           [3]uint64
}

// gemmOperands checks that the arrays named a, b and c are row-major
// contiguous of the given rank (2: a GEMM, 3: a batch of them along the
// leading axis), of one dtype, and form (Bt,) M x K @ (Bt,) K x N ->
// (Bt,) M x N; cuBLAS reads them with exactly these strides, so anything
// else would time a different product or read out of bounds.
func (p *Prepared) gemmOperands(rank int, a, b, c string) (gemmOperands, error) {
	var op gemmOperands
	var ts [3]*runtime.Tensor
	for j, name := range []string{a, b, c} {
		_, t, err := p.array(name)
		if err != nil {
			return op, err
		}
		if t.Rank() != rank || !rowMajorContiguous(t) {
			return op, fmt.Errorf("cuda: cuBLAS needs row-major contiguous %d-D arrays; %s is %v", rank, name, t)
		}
		if op.ptrs[j], err = p.Ptr(name); err != nil {
			return op, err
		}
		ts[j] = t
	}
	A, B, C := ts[0].Shape, ts[1].Shape, ts[2].Shape
	op.batch = 1
	if rank == 3 {
		op.batch = A[0]
		if B[0] != op.batch || C[0] != op.batch {
			return op, fmt.Errorf("cuda: cuBLAS: batches %d, %d, %d of %v @ %v -> %v differ", A[0], B[0], C[0], A, B, C)
		}
		A, B, C = A[1:], B[1:], C[1:]
	}
	op.m, op.k, op.n = A[0], A[1], B[1]
	if B[0] != op.k || C[0] != op.m || C[1] != op.n {
		return op, fmt.Errorf("cuda: cuBLAS: shapes %v @ %v -> %v do not form a matmul", ts[0].Shape, ts[1].Shape, ts[2].Shape)
	}
	if ts[1].DType != ts[0].DType || ts[2].DType != ts[0].DType {
		return op, fmt.Errorf("cuda: cuBLAS: dtypes %s, %s, %s differ", ts[0].DType, ts[1].DType, ts[2].DType)
	}
	op.dt = ts[0].DType
	return op, nil
}

// rowMajorContiguous reports whether t's elements are packed in row-major
// order (the last axis fastest, no gaps).
func rowMajorContiguous(t *runtime.Tensor) bool {
	want := 1
	for ax := t.Rank() - 1; ax >= 0; ax-- {
		if t.Strides[ax] != want {
			return false
		}
		want *= t.Shape[ax]
	}
	return true
}

// gemmType maps a tensor dtype to cuBLAS's.
func gemmType(d ir.DType) (cudadrv.DType, error) {
	switch d {
	case ir.F16:
		return cudadrv.F16, nil
	case ir.BF16:
		return cudadrv.BF16, nil
	case ir.F32, ir.TF32:
		return cudadrv.F32, nil
	}
	return 0, fmt.Errorf("cuda: cuBLAS GEMM does not take %s", d)
}

// CublasGemm enqueues C = A @ B with cuBLAS on device buffers: row-major
// A (m x k), B (k x n), C (m x n) of dtype dt (f16, bf16; f32 and tf32 use
// TF32 tensor cores), accumulating in f32. Device addresses come from
// Prepared.Ptr.
func (c *GPU) CublasGemm(dt ir.DType, m, n, k int, a, b, cc uint64) error {
	gt, err := gemmType(dt)
	if err != nil {
		return err
	}
	return c.Dev.Gemm(gt, m, n, k, cudadrv.DevicePtr(a), cudadrv.DevicePtr(b), cudadrv.DevicePtr(cc))
}

// TimeCublasGemm times CublasGemm: warmup untimed runs, then the median
// milliseconds of iters runs, each between CUDA events.
func (c *GPU) TimeCublasGemm(dt ir.DType, m, n, k int, a, b, cc uint64, warmup, iters int) (float64, error) {
	if _, err := gemmType(dt); err != nil {
		return 0, err
	}
	ts, err := c.Dev.TimeLaunches(func() error { return c.CublasGemm(dt, m, n, k, a, b, cc) }, warmup, iters)
	if err != nil {
		return 0, fmt.Errorf("cuda: timing cuBLAS %s %dx%dx%d: %w", dt, m, n, k, err)
	}
	return cudadrv.Median(ts), nil
}

// CublasGemmBatched enqueues C[i] = A[i] @ B[i] for i < batch with one
// cuBLAS strided-batched call on device buffers: row-major packed
// A (batch x m x k), B (batch x k x n), C (batch x m x n) of dtype dt, as
// CublasGemm.
func (c *GPU) CublasGemmBatched(dt ir.DType, batch, m, n, k int, a, b, cc uint64) error {
	gt, err := gemmType(dt)
	if err != nil {
		return err
	}
	return c.Dev.GemmStridedBatched(gt, batch, m, n, k, cudadrv.DevicePtr(a), cudadrv.DevicePtr(b), cudadrv.DevicePtr(cc))
}

// TimeCublasGemmBatched times CublasGemmBatched as TimeCublasGemm times
// CublasGemm.
func (c *GPU) TimeCublasGemmBatched(dt ir.DType, batch, m, n, k int, a, b, cc uint64, warmup, iters int) (float64, error) {
	if _, err := gemmType(dt); err != nil {
		return 0, err
	}
	ts, err := c.Dev.TimeLaunches(func() error { return c.CublasGemmBatched(dt, batch, m, n, k, a, b, cc) }, warmup, iters)
	if err != nil {
		return 0, fmt.Errorf("cuda: timing cuBLAS batched %s %d x %dx%dx%d: %w", dt, batch, m, n, k, err)
	}
	return cudadrv.Median(ts), nil
}

// BLASInfo loads cuBLAS if needed and says which library file was loaded
// and its version (e.g. 130001), for bench output.
func (c *GPU) BLASInfo() (path string, version int, err error) {
	return c.Dev.BLASInfo()
}

// Matmul computes A @ B for row-major float16 or bfloat16 matrices, or
// batches of them of one batch shape, with cuBLAS on the device (float32
// accumulation), as torch does for tensors on a GPU: host code's
// `A @ B` under `tilec run --backend cuda` (host.Options.Matmul). The
// result is packed, of A's dtype.
func (c *GPU) Matmul(a, b *runtime.Tensor) (*runtime.Tensor, error) {
	r := a.Rank()
	if r < 2 || r != b.Rank() || a.DType != b.DType || !slices.Equal(a.Shape[:r-2], b.Shape[:r-2]) || a.Shape[r-1] != b.Shape[r-2] {
		return nil, fmt.Errorf("cuda: matmul of %s%v and %s%v", a.DType, a.Shape, b.DType, b.Shape)
	}
	gt, err := gemmType(a.DType)
	if err != nil {
		return nil, err
	}
	m, k, n := a.Shape[r-2], a.Shape[r-1], b.Shape[r-1]
	batch := 1
	for _, s := range a.Shape[:r-2] {
		batch *= s
	}
	out := runtime.NewTensor(a.DType, append(slices.Clone(a.Shape[:r-2]), m, n)...)
	if out.NumElements() == 0 || k == 0 {
		return out, nil // empty, or sums of no products: zeros
	}
	ac, bc := a.Clone(), b.Clone() // packed row-major
	var bufs []cudadrv.DevicePtr
	defer func() {
		for _, p := range bufs {
			c.Dev.Free(p)
		}
	}()
	upload := func(data []byte, bytes int) (cudadrv.DevicePtr, error) {
		p, err := c.Dev.Alloc(bytes)
		if err != nil {
			return 0, err
		}
		bufs = append(bufs, p)
		if data != nil {
			err = c.Dev.CopyHtoD(p, data)
		}
		return p, err
	}
	multiply := func() error {
		pa, err := upload(ac.Data, len(ac.Data))
		if err != nil {
			return err
		}
		pb, err := upload(bc.Data, len(bc.Data))
		if err != nil {
			return err
		}
		pc, err := upload(nil, len(out.Data))
		if err != nil {
			return err
		}
		if batch == 1 {
			err = c.Dev.Gemm(gt, m, n, k, pa, pb, pc)
		} else {
			err = c.Dev.GemmStridedBatched(gt, batch, m, n, k, pa, pb, pc)
		}
		if err == nil {
			err = c.Dev.Synchronize()
		}
		if err == nil {
			err = c.Dev.CopyDtoH(out.Data, pc)
		}
		return err
	}
	if err := multiply(); err != nil {
		return nil, fmt.Errorf("cuda: matmul %v @ %v: %w", a.Shape, b.Shape, err)
	}
	return out, nil
}
