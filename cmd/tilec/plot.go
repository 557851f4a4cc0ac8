package main

// tilec plot: a plot of a `tilec bench --json` report, without a GPU.

import (
	"fmt"
	"io"
	"os"

	"github.com/tilec/tilec/runtime/bench"
)

func cmdPlot(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("plot", stdout, stderr)
	out := fs.String("o", "", "the plot to write (.png, .svg or .pdf)")
	figure := fs.String("figure", "rate", "rate (TFLOP/s or GB/s: tilec, the baseline, the peak) or ratio (tilec's speed over the baseline's)")
	path, err := sourceArg(fs, args)
	if err != nil {
		return err
	}
	if *out == "" {
		return usagef("plot needs -o OUT.png")
	}
	if err := checkFigure(*figure); err != nil {
		return err
	}
	if err := checkPlotPath(*out); err != nil {
		return err
	}
	if err := checkReportFile(path); err != nil {
		return fmt.Errorf("tilec plot: %v", err)
	}
	rep, err := bench.ReadReport(path)
	if err != nil {
		return fmt.Errorf("tilec plot: %v", err)
	}
	if err := bench.PlotFigure(rep, *out, *figure); err != nil {
		return fmt.Errorf("tilec plot: %v", err)
	}
	what := map[string]string{"tflops": "TFLOP/s", "gbs": "GB/s"}[rep.Metric]
	if *figure == "ratio" {
		what = "speed over " + rep.BaselineLabel()
	}
	fmt.Fprintf(stdout, "wrote %s: %s of %s, %d shapes\n", *out, what, rep.Kernel, len(rep.Rows))
	return nil
}

// maxReportBytes bounds a report tilec plot reads: tilec bench --json
// writes well under a megabyte even for a sweep of 10000 shapes.
const maxReportBytes = 64 << 20

// checkReportFile refuses what is not a regular file of bounded size
// before it is read: /dev/zero or a FIFO would be read without end.
func checkReportFile(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file (a tilec bench --json report)", path)
	}
	if fi.Size() > maxReportBytes {
		return fmt.Errorf("%s is %d bytes, more than the %d a tilec bench --json report may have", path, fi.Size(), maxReportBytes)
	}
	return nil
}
