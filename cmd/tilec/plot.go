package main

// tilec plot: a plot of a `tilec bench --json` report, without a GPU.

import (
	"fmt"
	"io"

	"github.com/tilec/tilec/runtime/bench"
)

func cmdPlot(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("plot", stdout, stderr)
	out := fs.String("o", "", "the plot to write (.png, .svg or .pdf)")
	path, err := sourceArg(fs, args)
	if err != nil {
		return err
	}
	if *out == "" {
		return usagef("plot needs -o OUT.png")
	}
	if err := checkPlotPath(*out); err != nil {
		return err
	}
	rep, err := bench.ReadReport(path)
	if err != nil {
		return fmt.Errorf("tilec plot: %v", err)
	}
	if err := bench.Plot(rep, *out); err != nil {
		return fmt.Errorf("tilec plot: %v", err)
	}
	fmt.Fprintf(stdout, "wrote %s: %s of %s, %d shapes\n", *out, map[string]string{"tflops": "TFLOP/s", "gbs": "GB/s"}[rep.Metric], rep.Kernel, len(rep.Rows))
	return nil
}
