//go:build cuda

package cudadrv

/*
#include <stdint.h>
#include <stdlib.h>
#include <cuda.h>

// tilec_module_load JIT-compiles PTX with both logs captured. gorgonia.org/cu's
// LoadDataEx passes Go buffers and drops the "bytes used" outputs, and hands
// back a Module whose handle we could not use with cuFuncSetAttribute, so the
// load is done here. Option ids (cuda.h CUjit_option): INFO_LOG_BUFFER 3,
// INFO_LOG_BUFFER_SIZE_BYTES 4, ERROR_LOG_BUFFER 5, ERROR_LOG_BUFFER_SIZE_BYTES 6,
// LOG_VERBOSE 12 (adds registers, barriers, stack and spill bytes per kernel).
static CUresult tilec_module_load(CUmodule *mod, const char *image,
		char *info, size_t info_cap, char *errlog, size_t err_cap) {
	CUjit_option opts[5] = {
		CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
		CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
		CU_JIT_LOG_VERBOSE,
	};
	void *vals[5] = {
		info, (void *)(uintptr_t)info_cap,
		errlog, (void *)(uintptr_t)err_cap,
		(void *)(uintptr_t)1,
	};
	return cuModuleLoadDataEx(mod, image, 5, opts, vals);
}
*/
import "C"

import (
	"errors"
	"fmt"
	"unsafe"
)

// JIT log buffer sizes. The driver truncates longer logs; verbose info for a
// module is a few hundred bytes per kernel.
const (
	infoLogCap  = 256 << 10
	errorLogCap = 64 << 10
)

// Module is PTX loaded into the device's context.
type Module struct {
	// InfoLog is the JIT's informational log with LOG_VERBOSE: per kernel
	// "Used N registers", stack frame, spill stores/loads, barriers.
	InfoLog string
	// PTX is the text that was loaded, kept so later errors can quote it.
	PTX string

	dev *Device
	mod C.CUmodule
}

// LoadModule JIT-compiles ptx for this device and loads it.
func (d *Device) LoadModule(ptx string) (*Module, error) {
	cptx := C.CString(ptx)
	defer C.free(unsafe.Pointer(cptx))
	info := (*C.char)(C.calloc(infoLogCap, 1))
	defer C.free(unsafe.Pointer(info))
	errlog := (*C.char)(C.calloc(errorLogCap, 1))
	defer C.free(unsafe.Pointer(errlog))

	var mod C.CUmodule
	var res C.CUresult
	if err := d.do(func() error {
		res = C.tilec_module_load(&mod, cptx, info, infoLogCap, errlog, errorLogCap)
		return nil
	}); err != nil {
		return nil, err
	}
	infoLog := C.GoString(info)
	if err := check("cuModuleLoadDataEx", res); err != nil {
		log := C.GoString(errlog)
		return nil, &LoadError{
			Driver:  err.(*Error),
			Log:     log,
			InfoLog: infoLog,
			Lines:   citedLines(log),
			PTX:     ptx,
		}
	}
	return &Module{InfoLog: infoLog, PTX: ptx, dev: d, mod: mod}, nil
}

// Unload releases the module; its Functions become invalid.
func (m *Module) Unload() error {
	if m.mod == nil {
		return nil
	}
	err := m.dev.do(func() error { return check("cuModuleUnload", C.cuModuleUnload(m.mod)) })
	m.mod = nil
	return err
}

// Function is a kernel (.entry) of a loaded module.
type Function struct {
	Name string

	mod *Module
	fn  C.CUfunction
}

// Function looks up the kernel called name.
func (m *Module) Function(name string) (*Function, error) {
	if m.mod == nil {
		return nil, errors.New("cudadrv: module is unloaded")
	}
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	var fn C.CUfunction
	err := m.dev.do(func() error {
		return check("cuModuleGetFunction", C.cuModuleGetFunction(&fn, m.mod, cname))
	})
	if err != nil {
		return nil, fmt.Errorf("%w (kernel %q)", err, name)
	}
	return &Function{Name: name, mod: m, fn: fn}, nil
}

// SetMaxDynamicSharedMemory allows launches of f with up to bytes of dynamic
// shared memory. Above 48 KiB a launch fails with CUDA_ERROR_INVALID_VALUE
// until this is set (CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8);
// the ceiling is Properties.SharedPerBlockOptin less the kernel's static
// shared memory.
func (f *Function) SetMaxDynamicSharedMemory(bytes int) error {
	return f.mod.dev.do(func() error {
		r := C.cuFuncSetAttribute(f.fn, C.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, C.int(bytes))
		if err := check("cuFuncSetAttribute", r); err != nil {
			return fmt.Errorf("%w (kernel %q, max dynamic shared %d bytes)", err, f.Name, bytes)
		}
		return nil
	})
}

// FuncAttributes are the compiled kernel's resource use, as the driver
// reports it after JIT.
type FuncAttributes struct {
	NumRegs            int // registers per thread
	LocalBytes         int // local memory per thread (spills, stack arrays)
	StaticSharedBytes  int // statically declared shared memory
	ConstBytes         int
	MaxThreadsPerBlock int // the most threads a launch can use, given registers
	MaxDynamicShared   int // current CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
	PTXVersion         int // e.g. 80 for PTX ISA 8.0
	BinaryVersion      int // SASS target, e.g. 90
}

// Attributes reads f's attributes.
func (f *Function) Attributes() (FuncAttributes, error) {
	var a FuncAttributes
	err := f.mod.dev.do(func() error {
		for _, q := range []struct {
			dst *int
			a   C.CUfunction_attribute
		}{
			{&a.NumRegs, C.CU_FUNC_ATTRIBUTE_NUM_REGS},
			{&a.LocalBytes, C.CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES},
			{&a.StaticSharedBytes, C.CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES},
			{&a.ConstBytes, C.CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES},
			{&a.MaxThreadsPerBlock, C.CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK},
			{&a.MaxDynamicShared, C.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES},
			{&a.PTXVersion, C.CU_FUNC_ATTRIBUTE_PTX_VERSION},
			{&a.BinaryVersion, C.CU_FUNC_ATTRIBUTE_BINARY_VERSION},
		} {
			var v C.int
			if err := check("cuFuncGetAttribute", C.cuFuncGetAttribute(&v, q.a, f.fn)); err != nil {
				return err
			}
			*q.dst = int(v)
		}
		return nil
	})
	return a, err
}
