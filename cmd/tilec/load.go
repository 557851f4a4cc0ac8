package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/lang"
)

// loadKernel parses and builds one kernel of a file: the one named by
// kernel, or the file's only (or first) kernel.
func loadKernel(path, kernel string, consts map[string]string) (*ir.Func, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	file, err := lang.Parse(path, src)
	if err != nil {
		return nil, err
	}
	mod, err := ir.Build(file, ir.BuildOptions{Kernel: kernel, Consts: consts})
	if err != nil {
		return nil, err
	}
	if len(mod.Funcs) == 0 {
		if kernel != "" {
			return nil, fmt.Errorf("%s: no kernel named %s", path, kernel)
		}
		return nil, fmt.Errorf("%s: no kernel (a def decorated with @ct.kernel)", path)
	}
	if kernel == "" && len(mod.Funcs) > 1 {
		names := make([]string, len(mod.Funcs))
		for i, f := range mod.Funcs {
			names[i] = f.Name
		}
		return nil, usagef("%s has %d kernels (%s): pick one with --kernel", path, len(names), strings.Join(names, ", "))
	}
	return mod.Funcs[0], nil
}
