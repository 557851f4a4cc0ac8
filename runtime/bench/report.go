package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
)

// WriteHeader prints the benchmark's description and the table's column
// names: the kernel's dims, tilec's time, TFLOP/s and its fraction of the
// peak (kernels with mma), cuBLAS side by side (GEMM-shaped kernels, and a
// line that names the strided-batched call for batched ones; for a host
// function, a line that says when and how cuBLAS runs), GB/s and its
// fraction of the peak, and the check against the interpreter.
func WriteHeader(w io.Writer, r *Report) {
	file := ""
	if r.File != "" {
		file = " (" + r.File + ")"
	}
	if r.Entry {
		fmt.Fprintf(w, "%s%s, host function, on %s, %s; median of %d repetitions after %d warm-up\n",
			r.Kernel, file, r.Device, r.Target, r.Iters, r.Warmup)
		fmt.Fprintf(w, "a repetition's time is the sum of its launches' kernel times (CUDA events around each launch, L2 cleared before it; host code and copies not timed)\n")
	} else {
		fmt.Fprintf(w, "%s%s %s on %s, %s; median of %d launches after %d warm-up\n",
			r.Kernel, file, r.Consts, r.Device, r.Target, r.Iters, r.Warmup)
	}
	if r.Peak != nil {
		fmt.Fprintf(w, "peak %s\n", r.Peak)
	} else {
		fmt.Fprintf(w, "peak unknown for %s (not in runtime/bench/devices.go; give --peak-tflops and --peak-gbs)\n", r.Device)
	}
	gbs := "GB/s counts each array read once and written once (the compulsory bytes; re-reads not counted)"
	if r.Metric == "tflops" || r.Entry {
		gbs = flopsRule(r) + "; " + gbs
	}
	fmt.Fprintln(w, gbs)
	if r.Entry && r.Baseline != "" {
		// Timed as the launches are, not as the kernel path times both.
		// The op is known once a shape had a GEMM (not yet when the first
		// shape's repetition launched several kernels).
		call := "cublasGemmEx (cublasGemmStridedBatchedEx for a batch)"
		switch {
		case r.BaselineOp == "gemm":
			call = "cublasGemmEx"
		case r.BaselineOp == "gemm_strided_batched" && len(r.BaselineDims) > 0:
			call = fmt.Sprintf("one strided-batched GEMM over %s (cublasGemmStridedBatchedEx)", r.BaselineDims[0])
		}
		work := "2*M*N*K"
		if len(r.BaselineDims) > 0 {
			work = "2*" + strings.Join(r.BaselineDims, "*")
		}
		fmt.Fprintf(w, "cuBLAS (when a repetition is one GEMM launch): %s on that launch's buffers right after it in each repetition, timed as the launch is; its TFLOP/s count %s\n",
			call, work)
	} else if r.BaselineOp == "gemm_strided_batched" && len(r.BaselineDims) > 0 {
		// A plain GEMM's baseline goes without saying; a batched one could
		// be a loop of GEMMs, whose launch gaps would flatter tilec.
		fmt.Fprintf(w, "cuBLAS: one strided-batched GEMM over %s (cublasGemmStridedBatchedEx) on the same buffers, alternating with tilec; its TFLOP/s count 2*%s\n",
			r.BaselineDims[0], strings.Join(r.BaselineDims, "*"))
	}
	var cols []string
	for _, d := range r.Dims {
		cols = append(cols, fmt.Sprintf("%7s", d))
	}
	cols = append(cols, fmt.Sprintf("%10s", "tilec ms"))
	if r.Metric == "tflops" {
		cols = append(cols, fmt.Sprintf("%8s", "TFLOP/s"), fmt.Sprintf("%5s", "%peak"))
	}
	if r.Baseline != "" {
		cols = append(cols, fmt.Sprintf("%10s", r.Baseline+" ms"), fmt.Sprintf("%8s", "TFLOP/s"), fmt.Sprintf("%6s", "ratio"))
	}
	cols = append(cols, fmt.Sprintf("%8s", "GB/s"), fmt.Sprintf("%5s", "%peak"), "check")
	fmt.Fprintln(w, strings.Join(cols, " "))
}

// WriteRow prints one row of the table WriteHeader started, then on lines
// of their own its constants (when tuned), a host function's launches and
// the note.
func WriteRow(w io.Writer, r *Report, row Row) {
	var cols []string
	for _, d := range r.Dims {
		cols = append(cols, fmt.Sprintf("%7d", row.Dims[d]))
	}
	cols = append(cols, fmt.Sprintf("%10.4f", row.MS))
	if r.Metric == "tflops" {
		cols = append(cols, fmt.Sprintf("%8.1f", row.TFLOPS), pct(row.PeakTFLOPS))
	}
	if r.Baseline != "" {
		if row.CublasMS > 0 {
			cols = append(cols, fmt.Sprintf("%10.4f", row.CublasMS), fmt.Sprintf("%8.1f", row.CublasTFLOPS), fmt.Sprintf("%6.3f", row.Ratio))
		} else {
			cols = append(cols, fmt.Sprintf("%10s", "-"), fmt.Sprintf("%8s", "-"), fmt.Sprintf("%6s", "-"))
		}
	}
	cols = append(cols, fmt.Sprintf("%8.1f", row.GBs), pct(row.PeakGBs), row.Check)
	fmt.Fprintln(w, strings.Join(cols, " "))
	if row.Consts != r.Consts {
		fmt.Fprintf(w, "        consts %s\n", row.Consts)
	}
	for _, l := range row.Launches {
		fmt.Fprintf(w, "        launch %s %s grid (%d, %d, %d): %.4f ms\n", l.Kernel, l.Consts, l.Grid[0], l.Grid[1], l.Grid[2], l.MS)
	}
	if row.Note != "" {
		fmt.Fprintf(w, "        note: %s\n", row.Note)
	}
}

// flopsRule says what TFLOP/s counts: the problem's 2*M*N*K for a GEMM,
// the mma work for other kernels (which the IR cannot tell from padding).
func flopsRule(r *Report) string {
	if r.Entry {
		return "TFLOP/s counts the problem's 2*M*N*K for a GEMM-shaped launch (tile padding not counted), 2*M*N*K per mma for others"
	}
	if r.BaselineOp != "" {
		return "TFLOP/s counts the problem's 2*M*N*K (tile padding not counted)"
	}
	return "TFLOP/s counts 2*M*N*K per mma (the tiles' work, padding included)"
}

func pct(f float64) string {
	if f <= 0 {
		return fmt.Sprintf("%5s", "-")
	}
	return fmt.Sprintf("%4.0f%%", 100*f)
}

// BaselineLabel names the baseline in a plot's legend: the library, and
// the call when it is the batched one.
func (r *Report) BaselineLabel() string {
	if r.BaselineOp == "gemm_strided_batched" {
		return r.Baseline + " strided-batched"
	}
	return r.Baseline
}

// WriteJSON writes the report as indented JSON.
func WriteJSON(w io.Writer, r *Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// ReadReport reads a report written by WriteJSON (tilec bench --json).
func ReadReport(path string) (*Report, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r Report
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%s: not a tilec bench --json report: %v", path, err)
	}
	if r.Kernel == "" || (r.Metric != "tflops" && r.Metric != "gbs") {
		return nil, fmt.Errorf("%s: not a tilec bench --json report (no kernel or metric)", path)
	}
	if err := r.checkFigures(); err != nil {
		return nil, fmt.Errorf("%s: not a tilec bench --json report: %v", path, err)
	}
	return &r, nil
}

// MaxFigure bounds a time (ms) or rate (TFLOP/s, GB/s) that a report read
// back may hold, and a peak given to bench: no device comes near it, and a
// plot's axis up to an absurd figure (1e308 beside -1e308 overflowed to an
// infinite one, on which the plotting library's tick loop never ended)
// says nothing.
const MaxFigure = 1e12

// checkFigures refuses what tilec bench cannot have written: more rows
// than a sweep has shapes, a time or rate that is negative or absurd.
func (r *Report) checkFigures() error {
	if len(r.Rows) > maxSweepValues {
		return fmt.Errorf("%d rows, more than the %d shapes a sweep has", len(r.Rows), maxSweepValues)
	}
	type figure struct {
		name string
		v    float64
	}
	check := func(where string, fs ...figure) error {
		for _, f := range fs {
			if !(f.v >= 0 && f.v < MaxFigure) {
				return fmt.Errorf("%s: %s is %g (a time or rate in a report is at least 0 and below %g)", where, f.name, f.v, MaxFigure)
			}
		}
		return nil
	}
	if p := r.Peak; p != nil {
		if err := check("peak", figure{"f16_tflops", p.F16}, figure{"tf32_tflops", p.TF32}, figure{"f32_tflops", p.F32}, figure{"gbs", p.GBs}); err != nil {
			return err
		}
	}
	for i, row := range r.Rows {
		if err := check(fmt.Sprintf("row %d", i), figure{"tilec_ms", row.MS}, figure{"tilec_tflops", row.TFLOPS}, figure{"tilec_gbs", row.GBs},
			figure{"cublas_ms", row.CublasMS}, figure{"cublas_tflops", row.CublasTFLOPS}, figure{"ratio", row.Ratio}); err != nil {
			return err
		}
	}
	return nil
}
