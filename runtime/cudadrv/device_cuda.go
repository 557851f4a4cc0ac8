//go:build cuda

package cudadrv

/*
#cgo LDFLAGS: -lcuda -ldl
#include <cuda.h>

static const char *tilec_error_name(CUresult r) {
	const char *s = 0;
	if (cuGetErrorName(r, &s) != CUDA_SUCCESS || s == 0) {
		return "CUDA_ERROR_UNKNOWN_CODE";
	}
	return s;
}

static const char *tilec_error_string(CUresult r) {
	const char *s = 0;
	if (cuGetErrorString(r, &s) != CUDA_SUCCESS || s == 0) {
		return "";
	}
	return s;
}
*/
import "C"

import (
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"sync"
	"unsafe"

	"gorgonia.org/cu"
)

// DevicePtr is a device address (CUdeviceptr). Offsets are plain arithmetic:
// p + DevicePtr(bytes).
type DevicePtr uint64

// check turns a CUresult from a direct C call into an *Error.
func check(call string, r C.CUresult) error {
	if r == C.CUDA_SUCCESS {
		return nil
	}
	return &Error{
		Call: call,
		Code: int(r),
		Name: C.GoString(C.tilec_error_name(r)),
		Msg:  C.GoString(C.tilec_error_string(r)),
	}
}

// wrap turns an error from gorgonia.org/cu into an *Error. cu's error type is
// an unexported integer type holding the CUresult; its own names ("InvalidValue")
// differ from the driver's, so the code is recovered and named by the driver.
func wrap(call string, err error) error {
	if err == nil {
		return nil
	}
	v := reflect.ValueOf(err)
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return check(call, C.CUresult(v.Int()))
	}
	return fmt.Errorf("cudadrv: %s: %w", call, err)
}

// Properties are the device facts that code generation and launch
// configuration depend on.
type Properties struct {
	Ordinal int
	Name    string
	// Major and Minor are the compute capability, e.g. 9 and 0 for H100.
	Major, Minor int
	// SMs is the multiprocessor count; persistent kernels size their grid by it.
	SMs int
	// SharedPerBlock is the shared memory a block gets without opting in (48 KiB).
	SharedPerBlock int
	// SharedPerBlockOptin is the most dynamic shared memory a block can get after
	// Function.SetMaxDynamicSharedMemory (attribute 97; 232448 on H100).
	SharedPerBlockOptin int
	// SharedPerSM is the shared memory of one SM (attribute 81).
	SharedPerSM        int
	MaxThreadsPerBlock int
	RegistersPerSM     int
	TotalMemory        int64
	// DriverVersion is the CUDA version the driver supports, e.g. 13000.
	DriverVersion int
}

// SM returns the compute capability as the number used in target names,
// e.g. 90 for sm_90.
func (p Properties) SM() int { return p.Major*10 + p.Minor }

// Device is an open GPU: its primary context and, once Gemm is used, a cuBLAS
// handle. The primary context is the one the CUDA runtime (and so cuBLAS)
// uses, which lets cuBLAS share memory and stream order with our kernels.
type Device struct {
	Props Properties

	dev cu.Device
	ctx cu.CUContext

	blasMu sync.Mutex // serialises cuBLAS use: a handle is not for concurrent calls
	mu     sync.Mutex // guards closed and blas; taken after blasMu
	closed bool
	blas   *cublas
}

// Open makes device ordinal ready for use and reads its properties.
func Open(ordinal int) (*Device, error) {
	n, err := cu.NumDevices()
	if err != nil {
		return nil, wrap("cuDeviceGetCount", err)
	}
	if ordinal < 0 || ordinal >= n {
		return nil, fmt.Errorf("cudadrv: device %d does not exist (%d devices)", ordinal, n)
	}
	dev, err := cu.GetDevice(ordinal)
	if err != nil {
		return nil, wrap("cuDeviceGet", err)
	}
	ctx, err := dev.RetainPrimaryCtx()
	if err != nil {
		return nil, wrap("cuDevicePrimaryCtxRetain", err)
	}
	d := &Device{dev: dev, ctx: ctx}
	if err := d.readProps(ordinal); err != nil {
		d.Close()
		return nil, err
	}
	return d, nil
}

func (d *Device) readProps(ordinal int) error {
	p := Properties{Ordinal: ordinal, DriverVersion: cu.Version()}
	var err error
	if p.Name, err = d.dev.Name(); err != nil {
		return wrap("cuDeviceGetName", err)
	}
	attrs := []struct {
		dst *int
		a   C.CUdevice_attribute
	}{
		{&p.Major, C.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR},
		{&p.Minor, C.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR},
		{&p.SMs, C.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT},
		{&p.SharedPerBlock, C.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK},
		{&p.SharedPerBlockOptin, C.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN}, // 97
		{&p.SharedPerSM, C.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR},      // 81
		{&p.MaxThreadsPerBlock, C.CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK},
		{&p.RegistersPerSM, C.CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR},
	}
	for _, a := range attrs {
		v, err := d.dev.Attribute(cu.DeviceAttribute(a.a))
		if err != nil {
			return wrap("cuDeviceGetAttribute", err)
		}
		*a.dst = v
	}
	var total C.size_t
	if err := check("cuDeviceTotalMem", C.cuDeviceTotalMem(&total, C.CUdevice(d.dev))); err != nil {
		return err
	}
	p.TotalMemory = int64(total)
	d.Props = p
	return nil
}

// Close releases the cuBLAS handle and the primary context. Memory and modules
// still allocated stay valid while another user of the primary context (in
// this process) holds it, and are freed when the last one releases it.
func (d *Device) Close() error {
	d.blasMu.Lock()
	defer d.blasMu.Unlock()
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil
	}
	var errs []error
	if d.blas != nil {
		errs = append(errs, d.onThread(d.blas.destroy))
		d.blas = nil
	}
	d.closed = true
	errs = append(errs, wrap("cuDevicePrimaryCtxRelease", d.dev.ReleasePrimaryCtx()))
	return errors.Join(errs...)
}

// do runs f with the device's context current on the calling OS thread.
func (d *Device) do(f func() error) error {
	d.mu.Lock()
	closed := d.closed
	d.mu.Unlock()
	if closed {
		return ErrClosed
	}
	return d.onThread(f)
}

func (d *Device) onThread(f func() error) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := cu.SetCurrentContext(d.ctx); err != nil {
		return wrap("cuCtxSetCurrent", err)
	}
	return f()
}

// Synchronize waits for all work on the device and returns the first
// asynchronous error (a faulting kernel reports here, not at launch).
func (d *Device) Synchronize() error {
	return d.do(func() error { return wrap("cuCtxSynchronize", cu.Synchronize()) })
}

// MemInfo returns the free and total device memory in bytes.
func (d *Device) MemInfo() (free, total int64, err error) {
	err = d.do(func() error {
		var e error
		free, total, e = cu.MemInfo()
		return wrap("cuMemGetInfo", e)
	})
	return free, total, err
}

// Alloc allocates bytes of device memory (256-byte aligned, uninitialised).
func (d *Device) Alloc(bytes int) (DevicePtr, error) {
	if bytes <= 0 {
		return 0, fmt.Errorf("cudadrv: Alloc(%d): size must be positive", bytes)
	}
	var p cu.DevicePtr
	err := d.do(func() error {
		var e error
		p, e = cu.MemAlloc(int64(bytes))
		if e != nil {
			return fmt.Errorf("%w (%d bytes)", wrap("cuMemAlloc", e), bytes)
		}
		return nil
	})
	return DevicePtr(p), err
}

// Free releases memory from Alloc. Freeing 0 is a no-op.
func (d *Device) Free(p DevicePtr) error {
	if p == 0 {
		return nil
	}
	return d.do(func() error { return wrap("cuMemFree", cu.MemFree(cu.DevicePtr(p))) })
}

// CopyHtoD copies src to device address dst. It returns when the copy is done
// (so src may be reused), after the preceding work on the default stream.
func (d *Device) CopyHtoD(dst DevicePtr, src []byte) error {
	if len(src) == 0 {
		return nil
	}
	return d.do(func() error {
		return wrap("cuMemcpyHtoD", cu.MemcpyHtoD(cu.DevicePtr(dst), unsafe.Pointer(&src[0]), int64(len(src))))
	})
}

// CopyDtoH copies len(dst) bytes from device address src into dst, after the
// preceding work on the default stream (so it also waits for kernels).
func (d *Device) CopyDtoH(dst []byte, src DevicePtr) error {
	if len(dst) == 0 {
		return nil
	}
	return d.do(func() error {
		return wrap("cuMemcpyDtoH", cu.MemcpyDtoH(unsafe.Pointer(&dst[0]), cu.DevicePtr(src), int64(len(dst))))
	})
}

// Memset sets bytes bytes at p to b.
func (d *Device) Memset(p DevicePtr, b byte, bytes int) error {
	if bytes <= 0 {
		return nil
	}
	return d.do(func() error { return wrap("cuMemsetD8", cu.MemsetD8(cu.DevicePtr(p), b, int64(bytes))) })
}
