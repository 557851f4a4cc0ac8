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
	swept := r.Swept
	if len(swept) == 0 {
		swept = r.Dims
	}
	// Ticks are the swept dims' values: one number when they are equal at
	// every shape (M = N = K), else MxNxK.
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
	p.X.Label.Text = strings.Join(swept, sep)
	labels := make([]string, len(r.Rows))
	ours := make(plotter.XYs, len(r.Rows))
	var base plotter.XYs
	top := peak
	for i, row := range r.Rows {
		var vals []string
		for _, d := range swept {
			vals = append(vals, fmt.Sprint(row.Dims[d]))
			if same {
				break
			}
		}
		labels[i] = strings.Join(vals, "x")
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

// Plot writes the report's plot to path; the extension picks the format
// (PlotFormats). The file is written whole or not at all
// (runtime.WriteFileAtomic): a failed write leaves an existing plot as it
// was.
func Plot(r *Report, path string) error {
	ext := strings.TrimPrefix(strings.ToLower(filepath.Ext(path)), ".")
	ok := false
	for _, f := range PlotFormats {
		ok = ok || f == ext
	}
	if !ok {
		return fmt.Errorf("plot %s: the extension names the format: .%s", path, strings.Join(PlotFormats, ", ."))
	}
	return runtime.WriteFileAtomic(path, func(w io.Writer) error { return WritePlot(w, r, ext) })
}

// WritePlot writes the report's plot as format (PlotFormats) to w. A panic
// in the drawing library (gonum's PDF backend panics where TMPDIR is
// missing or unwritable) is returned as an error.
func WritePlot(w io.Writer, r *Report, format string) (err error) {
	defer func() {
		if e := recover(); e != nil {
			err = fmt.Errorf("drawing the %s plot failed: %v (is TMPDIR a writable directory?)", format, e)
		}
	}()
	p, err := newPlot(r)
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
