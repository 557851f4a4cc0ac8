package main

import (
	"errors"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/ir/build"
	"github.com/tilec/tilec/lang"
	"github.com/tilec/tilec/runtime/compile"
)

// source is a source file read once. A command reads its file for several
// steps (is it a script, which kernel, the quoted line of an error); a
// pipe (`cat k.tile | tilec run /dev/stdin`) can be read only once, and a
// file edited during a run must not give two steps two texts.
type source struct {
	path string
	text []byte
}

// readSource reads path once (compile.ReadSource's bounds).
func readSource(path string) (*source, error) {
	text, err := compile.ReadSource(path)
	if err != nil {
		return nil, err
	}
	return &source{path: path, text: text}, nil
}

// parse parses the source as a program (kernels, host code, __main__).
func (s *source) parse() (*lang.File, error) { return lang.ParseProgram(s.path, s.text) }

// quote adds the source line and caret to a positioned error from a stage
// that has no source text (lowering for the GPU, at launch).
func (s *source) quote(err error) error {
	return (&lang.Source{Name: s.path, Text: string(s.text)}).Quote(err)
}

// loadKernel compiles one kernel of a file: the one named by kernel, or the
// file's only kernel.
// Unannotated parameters take their signatures from args (--arg); the
// build error names every one that is missing.
// strict makes tilec's extensions to cuTile 1.6 errors.
func loadKernel(path, kernel string, consts map[string]string, args argSigs, strict bool) (*ir.Func, error) {
	s, err := readSource(path)
	if err != nil {
		return nil, err
	}
	return s.kernel(kernel, consts, args, strict)
}

// kernel is loadKernel on a source already read.
func (s *source) kernel(kernel string, consts map[string]string, args argSigs, strict bool) (*ir.Func, error) {
	k, err := compile.Source(s.path, s.text, compile.Options{Kernel: kernel, Consts: consts, Args: args, Strict: strict})
	var several *compile.SeveralKernelsError
	if errors.As(err, &several) {
		return nil, usagef("%s", several.Choose("--kernel NAME"))
	}
	if err != nil {
		return nil, err
	}
	if k.IsGeneric() {
		file, err := s.parse()
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
// stage that has no source text, reading path for it (commands that hold
// the source use source.quote).
func quoteSource(path string, err error) error {
	s, rerr := readSource(path)
	if rerr != nil {
		return err
	}
	return s.quote(err)
}
