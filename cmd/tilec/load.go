package main

import (
	"errors"
	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/ir/build"
	"github.com/tilec/tilec/lang"
	"github.com/tilec/tilec/runtime/compile"
)

// loadKernel compiles one kernel of a file: the one named by kernel, or the
// file's only kernel.
// Unannotated parameters take their signatures from args (--arg); the
// build error names every one that is missing.
// strict makes tilec's extensions to cuTile 1.6 errors.
func loadKernel(path, kernel string, consts map[string]string, args argSigs, strict bool) (*ir.Func, error) {
	k, err := compile.File(path, compile.Options{Kernel: kernel, Consts: consts, Args: args, Strict: strict})
	var several *compile.SeveralKernelsError
	if errors.As(err, &several) {
		return nil, usagef("%s", several.Choose("--kernel NAME"))
	}
	if err != nil {
		return nil, err
	}
	if k.IsGeneric() {
		src, err := compile.ReadSource(path)
		if err != nil {
			return nil, err
		}
		file, err := lang.ParseProgram(path, src)
		if err != nil {
			return nil, err
		}
		_, err = build.File(file, build.Options{Kernel: k.Name(), Consts: consts, Args: args, Strict: strict})
		if err == nil {
			panic("tilec: a generic kernel built without its signature")
		}
		return nil, err
	}
	return k.Func, nil
}

// quoteSource adds the source line and caret to a positioned error from a
// stage that has no source text (lowering for the GPU, at launch).
func quoteSource(path string, err error) error {
	src, rerr := compile.ReadSource(path)
	if rerr != nil {
		return err
	}
	return (&lang.Source{Name: path, Text: string(src)}).Quote(err)
}
