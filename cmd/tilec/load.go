package main

import (
	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/runtime"
)

// loadKernel compiles one kernel of a file: the one named by kernel, or the
// file's only kernel.
func loadKernel(path, kernel string, consts map[string]string) (*ir.Func, error) {
	k, err := runtime.CompileFile(path, runtime.CompileOptions{Kernel: kernel, Consts: consts})
	if err != nil {
		return nil, err
	}
	return k.Func, nil
}
