package compile

// This file is the Go API's front door: source text to a launchable Kernel,
// and a Kernel to PTX for a target, without the caller touching lang, ir,
// lower or ptxgen.

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/ir/build"
	"github.com/tilec/tilec/lang"
	"github.com/tilec/tilec/lower"
	"github.com/tilec/tilec/ptxgen"
	"github.com/tilec/tilec/runtime"
)

// Options select a kernel of a source file and bake its constants.
type Options struct {
	// Kernel names the kernel to compile; "" means the file's only kernel.
	Kernel string
	// Consts bake constant parameters, as `-D name=value` does on the
	// command line: "tm": "64", "T": "bf16".
	Consts map[string]string
	// Args give unannotated parameters (`def k(A, B, n)`, as cuTile writes
	// kernels) their signature, as `--arg A=f16[M,K]` does. Without them
	// such a kernel is generic: it is specialized at each launch on its
	// arguments' dtypes and ranks (Kernel.Specialize), one build per
	// signature.
	Args map[string]build.ArgSig
	// Strict makes tilec's extensions to cuTile 1.6 build errors
	// (build.Options.Strict; tilec --strict).
	Strict bool
}

// buildOptions are the builder's options for the kernel opts selects.
func (opts Options) buildOptions() build.Options {
	return build.Options{Kernel: opts.Kernel, Consts: opts.Consts, Args: opts.Args, Strict: opts.Strict}
}

// Source parses src (named filename in error messages), builds and verifies
// the IR of one kernel with its constants baked in, and returns it ready to
// launch on any backend. User mistakes come back as a lang.ErrorList, every
// error of the file with its position.
func Source(filename string, src []byte, opts Options) (*runtime.Kernel, error) {
	file, err := lang.ParseProgram(filename, src)
	if err != nil {
		if file == nil || isGeneric(file, opts) {
			// A generic kernel's types come at launch: without them the
			// builder could only say that they are missing.
			return nil, err
		}
		return nil, build.AfterParseErrors(file, err, opts.buildOptions())
	}
	return Parsed(file, opts)
}

// isGeneric reports whether the kernel that opts selects has unannotated
// parameters that opts.Args does not give: it is specialized at launch.
func isGeneric(file *lang.File, opts Options) bool {
	_, params, err := build.KernelLaunchParams(file, opts.Kernel)
	if err != nil {
		return false
	}
	for _, p := range params {
		if _, given := opts.Args[p.Name]; p.Typed && !given {
			return true
		}
	}
	return false
}

// Parsed is Source on a file already parsed (the host launch
// function compiles each kernel it launches from the file it runs).
func Parsed(file *lang.File, opts Options) (*runtime.Kernel, error) {
	filename := ""
	if file.Src != nil {
		filename = file.Src.Name
	}
	if isGeneric(file, opts) {
		name, params, _ := build.KernelLaunchParams(file, opts.Kernel)
		return runtime.NewGenericKernel(&genericKernel{file: file, opts: opts, name: name, params: params,
			cache: map[string]*runtime.Kernel{}}), nil
	}
	mod, err := build.File(file, opts.buildOptions())
	if err != nil {
		return nil, err
	}
	switch {
	case len(mod.Funcs) == 1:
		return runtime.NewKernel(mod.Funcs[0]), nil
	case len(mod.Funcs) == 0 && opts.Kernel != "":
		return nil, fmt.Errorf("%s: no kernel named %s", filename, opts.Kernel)
	case len(mod.Funcs) == 0:
		return nil, fmt.Errorf("%s: no kernel (a def decorated with @ct.kernel)", filename)
	}
	names := make([]string, len(mod.Funcs))
	for i, f := range mod.Funcs {
		names[i] = f.Name
	}
	return nil, &SeveralKernelsError{File: filename, Kernels: names}
}

// SeveralKernelsError is Source's error for a file with several kernels
// and no Options.Kernel; front ends name their own way to choose.
type SeveralKernelsError struct {
	File    string
	Kernels []string
}

func (e *SeveralKernelsError) Error() string { return e.Choose("compile.Options.Kernel") }

// Choose is the error's message with how to choose one (a flag, a field).
func (e *SeveralKernelsError) Choose(how string) string {
	return fmt.Sprintf("%s has %d kernels (%s): choose one with %s", e.File, len(e.Kernels), strings.Join(e.Kernels, ", "), how)
}

// File is Source on the contents of a file (read with ReadSource).
func File(path string, opts Options) (*runtime.Kernel, error) {
	src, err := ReadSource(path)
	if err != nil {
		return nil, err
	}
	return Source(path, src, opts)
}

// MaxSourceBytes bounds a source file: kernels are short, and a path such
// as /dev/zero or a misnamed data file must not be read until memory runs
// out.
const MaxSourceBytes = 16 << 20

// ReadSource reads a kernel source file of at most MaxSourceBytes bytes; a
// longer file, or an empty one (nothing but white space), is an error.
func ReadSource(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	src, err := io.ReadAll(io.LimitReader(f, MaxSourceBytes+1))
	if err != nil {
		return nil, err
	}
	if len(src) > MaxSourceBytes {
		return nil, fmt.Errorf("%s: more than %s: not a kernel source file", path, runtime.FormatBytes(MaxSourceBytes))
	}
	if len(bytes.TrimSpace(src)) == 0 {
		return nil, fmt.Errorf("%s: empty file: no kernel (a def decorated with @ct.kernel)", path)
	}
	return src, nil
}

// PTX lowers f for the target named target (one of
// lower.TargetNames: "sm_80", "sm_90", "sm_120a", ...) and emits its PTX
// with the launch ABI (block size, shared memory, parameter slots). It
// needs no GPU: the CUDA backend calls it before loading the module.
//
// Kernels with pipelined shared-memory copies (the matmul family) come back
// as two variants (ptxgen.EmitVariants): the returned Kernel is the fast
// one, valid only where its FastPathOK holds for the launch's arrays, and
// its General field is the one for every other launch (ForLaunch picks).
func PTX(f *ir.Func, target string) (*ptxgen.Kernel, error) {
	t, err := lower.LookupTarget(target)
	if err != nil {
		return nil, err
	}
	return PTXFor(f, t)
}

// PTXFor is PTX for a Target value, whose Tuning the caller
// may have changed.
func PTXFor(f *ir.Func, t *lower.Target) (*ptxgen.Kernel, error) {
	if f == nil {
		// A plain cuTile kernel (unannotated parameters) has no IR until a
		// launch signature specializes it: its Kernel.Func is nil.
		return nil, errors.New("compile: no kernel IR to compile: a kernel with unannotated parameters is compiled per launch signature; " +
			"call Kernel.Specialize(args) (or give Options.Args) and compile the specialized kernel's Func")
	}
	vs, err := lower.LowerVariants(f, t, lower.Options{})
	var pos *lang.Error
	if errors.As(err, &pos) {
		return nil, err // positioned: file:line:col says where already
	}
	if err != nil {
		return nil, fmt.Errorf("lowering %s for %s: %w", f.Name, t, err)
	}
	pk, err := ptxgen.EmitVariants(vs, t)
	if err != nil {
		return nil, fmt.Errorf("emitting PTX for %s (%s): %w", f.Name, t, err)
	}
	pk.Path = string(vs[0].Path.Path)
	if pk.General != nil {
		pk.General.Path = string(vs[len(vs)-1].Path.Path)
	}
	return pk, nil
}
