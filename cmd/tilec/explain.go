package main

// tilec compile --explain: the code path each kernel takes on the target
// and why it is not the fastest the target has (lower.Explain).

import (
	"flag"
	"io"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/lang"
	"github.com/tilec/tilec/lower"
)

// explainKernels prints lower.Explain's account of every kernel, a blank
// line between kernels; the errors of kernels that do not lower come out
// together after the others' accounts.
func explainKernels(w io.Writer, source *lang.Source, funcs []*ir.Func, t *lower.Target) error {
	var errs []error
	for i, f := range funcs {
		e, err := lower.Explain(f, t)
		if err != nil {
			errs = append(errs, source.Quote(err))
			continue
		}
		if i > 0 {
			io.WriteString(w, "\n")
		}
		e.Format(w)
	}
	return lang.JoinErrors(errs...)
}

// flagSet reports whether the command line set flag name.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) {
		if f.Name == name {
			set = true
		}
	})
	return set
}
