package bench

// Plots of a benchmark report (gonum.org/v1/plot): the report's metric
// (TFLOP/s for kernels with mma, GB/s for the others) against the shape,
// tilec and the baseline as lines, the device's peak as a dashed line.

import (
	"fmt"
	"image/color"
	"io"
	"path/filepath"
	"strings"

	"github.com/tilec/tilec/runtime"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// PlotFormats are the file extensions Plot writes.
var PlotFormats = []string{"png", "svg", "pdf"}

// PlotFigures are the figures of a report a reader wants, one plot each:
// "rate", the report's metric against the shape (tilec, the baseline and
// the device's peak), and "ratio", tilec's speed over the baseline's at
// each shape (the baseline's time over tilec's; 1 marked), the figure
// README and docs/perf.md quote, which needs a baseline.
var PlotFigures = []string{"rate", "ratio"}

// newFigure draws figure (PlotFigures) of the report.
func newFigure(r *Report, figure string) (*plot.Plot, error) {
	switch figure {
	case "rate", "":
		return newPlot(r)
	case "ratio":
		return newRatioPlot(r)
	}
	return nil, fmt.Errorf("plot: no figure %q (the figures are %s)", figure, strings.Join(PlotFigures, ", "))
}

// newRatioPlot draws tilec's speed over the baseline's against the shape.
func newRatioPlot(r *Report) (*plot.Plot, error) {
	if r.Baseline == "" {
		return nil, fmt.Errorf("plot: the report of %s has no baseline, which the ratio figure needs (bench times cuBLAS beside GEMMs)", r.Kernel)
	}
	var xys plotter.XYs
	labels, xlabel := shapeLabels(r)
	top := 1.0
	for i, row := range r.Rows {
		if row.Ratio > 0 {
			xys = append(xys, plotter.XY{X: float64(i), Y: row.Ratio})
			top = max(top, row.Ratio)
		}
	}
	if len(xys) == 0 {
		return nil, fmt.Errorf("plot: no shape of the report of %s has a baseline time", r.Kernel)
	}
	p := plot.New()
	p.Title.Text = PlotTitle(r)
	p.X.Label.Text = xlabel
	p.Y.Label.Text = fmt.Sprintf("speed over %s (its time / tilec's)", r.BaselineLabel())
	p.Y.Min, p.Y.Max = 0, top*1.12
	p.NominalX(labels...)
	p.Legend.Top, p.Legend.Left = true, true
	l, s, err := plotter.NewLinePoints(xys)
	if err != nil {
		return nil, err
	}
	blue := color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}
	l.Color, l.Width = blue, vg.Points(1.5)
	s.Color, s.Shape = blue, draw.CircleGlyph{}
	p.Add(l, s)
	p.Legend.Add("tilec / "+r.BaselineLabel(), l, s)
	even, err := plotter.NewLine(plotter.XYs{{X: -0.25, Y: 1}, {X: float64(len(r.Rows)) - 0.75, Y: 1}})
	if err != nil {
		return nil, err
	}
	even.Color = color.Gray{Y: 0x70}
	even.Dashes = []vg.Length{vg.Points(6), vg.Points(3)}
	p.Add(even)
	p.Legend.Add("as fast as "+r.BaselineLabel(), even)
	p.Add(plotter.NewGrid())
	return p, nil
}

// shapeLabels are the x axis's tick labels, one per row, and its label:
// the swept dims' values, one number when they are equal at every shape
// (M = N = K), else MxNxK.
func shapeLabels(r *Report) ([]string, string) {
	swept := r.Swept
	if len(swept) == 0 {
		swept = r.Dims
	}
	same := true
	for _, row := range r.Rows {
		for _, d := range swept {
			same = same && row.Dims[d] == row.Dims[swept[0]]
		}
	}
	sep := " x "
	if same {
		sep = " = "
	}
	labels := make([]string, len(r.Rows))
	for i, row := range r.Rows {
		var vals []string
		for _, d := range swept {
			vals = append(vals, fmt.Sprint(row.Dims[d]))
			if same {
				break
			}
		}
		labels[i] = strings.Join(vals, "x")
	}
	return labels, strings.Join(swept, sep)
}

// newPlot draws the report.
func newPlot(r *Report) (*plot.Plot, error) {
	if len(r.Rows) == 0 {
		return nil, fmt.Errorf("plot: the report of %s has no rows", r.Kernel)
	}
	p := plot.New()
	p.Title.Text = PlotTitle(r)
	unit, peak := "GB/s", 0.0
	if r.Metric == "tflops" {
		unit = "TFLOP/s"
		if r.Peak != nil {
			if d, ok := parseDTypeName(r.MMADType); ok {
				peak = r.Peak.TFLOPS(d)
			}
		}
	} else if r.Peak != nil {
		peak = r.Peak.GBs
	}
	p.Y.Label.Text = unit
	p.Y.Min = 0
	labels, xlabel := shapeLabels(r)
	p.X.Label.Text = xlabel
	ours := make(plotter.XYs, len(r.Rows))
	var base plotter.XYs
	top := peak
	for i, row := range r.Rows {
		v, b := r.Value(row)
		top = max(top, v, b)
		ours[i] = plotter.XY{X: float64(i), Y: v}
		if b > 0 {
			base = append(base, plotter.XY{X: float64(i), Y: b})
		}
	}
	p.Y.Max = top * 1.12
	p.NominalX(labels...)
	p.Legend.Top = true
	p.Legend.Left = true
	add := func(name string, xys plotter.XYs, c color.Color, shape draw.GlyphDrawer) error {
		l, s, err := plotter.NewLinePoints(xys)
		if err != nil {
			return err
		}
		l.Color, l.Width = c, vg.Points(1.5)
		s.Color, s.Shape = c, shape
		p.Add(l, s)
		p.Legend.Add(name, l, s)
		return nil
	}
	if err := add("tilec", ours, color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}, draw.CircleGlyph{}); err != nil {
		return nil, err
	}
	if len(base) > 0 && r.Baseline != "" {
		if err := add(r.BaselineLabel(), base, color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff}, draw.TriangleGlyph{}); err != nil {
			return nil, err
		}
	}
	if peak > 0 {
		l, err := plotter.NewLine(plotter.XYs{{X: -0.25, Y: peak}, {X: float64(len(r.Rows)) - 0.75, Y: peak}})
		if err != nil {
			return nil, err
		}
		l.Color = color.Gray{Y: 0x70}
		l.Dashes = []vg.Length{vg.Points(6), vg.Points(3)}
		p.Add(l)
		p.Legend.Add(fmt.Sprintf("peak %.0f %s (%s)", peak, unit, r.Peak.Device), l)
	}
	p.Add(plotter.NewGrid())
	return p, nil
}

// PlotTitle says what a plot compares: the kernel (or host function) with
// its constants, the dtype, the device and the baseline, so that a plot
// shown alone is not mistaken for another.
func PlotTitle(r *Report) string {
	what := r.Consts
	if r.Entry {
		what = "host function"
	}
	dtype := r.MMADType
	if dtype == "" {
		dtype = r.DType
	}
	if dtype != "" {
		dtype = ", " + dtype
	}
	vs := "tilec (no baseline)"
	if r.Baseline != "" {
		vs = "tilec vs " + r.BaselineLabel()
	}
	return fmt.Sprintf("%s (%s)%s on %s: %s", r.Kernel, what, dtype, r.Device, vs)
}

// Plot writes the report's rate figure to path (PlotFigure).
func Plot(r *Report, path string) error { return PlotFigure(r, path, "rate") }

// PlotFigure writes figure (PlotFigures) of the report to path; the
// extension picks the format (PlotFormats). The file is written whole or
// not at all (runtime.WriteFileAtomic): a failed write leaves an existing
// plot as it was.
func PlotFigure(r *Report, path, figure string) error {
	ext := strings.TrimPrefix(strings.ToLower(filepath.Ext(path)), ".")
	ok := false
	for _, f := range PlotFormats {
		ok = ok || f == ext
	}
	if !ok {
		return fmt.Errorf("plot %s: the extension names the format: .%s", path, strings.Join(PlotFormats, ", ."))
	}
	return runtime.WriteFileAtomic(path, func(w io.Writer) error { return WriteFigure(w, r, ext, figure) })
}

// WritePlot writes the report's rate figure as format to w (WriteFigure).
func WritePlot(w io.Writer, r *Report, format string) error { return WriteFigure(w, r, format, "rate") }

// WriteFigure writes figure (PlotFigures) of the report as format
// (PlotFormats) to w. A panic in the drawing library (gonum's PDF backend
// panics where TMPDIR is missing or unwritable) is returned as an error.
func WriteFigure(w io.Writer, r *Report, format, figure string) (err error) {
	defer func() {
		if e := recover(); e != nil {
			err = fmt.Errorf("drawing the %s plot failed: %v (is TMPDIR a writable directory?)", format, e)
		}
	}()
	p, err := newFigure(r, figure)
	if err != nil {
		return err
	}
	wt, err := p.WriterTo(8*vg.Inch, 5*vg.Inch, format)
	if err != nil {
		return err
	}
	_, err = wt.WriteTo(w)
	return err
}
