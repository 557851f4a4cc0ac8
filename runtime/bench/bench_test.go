package bench_test

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/ir/build"
	"github.com/tilec/tilec/runtime/bench"
	"github.com/tilec/tilec/runtime/bench/benchtest"
	"github.com/tilec/tilec/runtime/compile"
)

func compileFunc(t *testing.T, path string, consts map[string]string) *ir.Func {
	t.Helper()
	k, err := compile.File(path, compile.Options{Consts: consts})
	if err != nil {
		t.Fatal(err)
	}
	return k.Func
}

// A matmul sweep on the fake device: every size checked against the
// interpreter, TFLOP/s from the IR's mma work, cuBLAS side by side, the
// fractions of the H100's peak.
func TestRunMatmul(t *testing.T) {
	f := compileFunc(t, "../../testdata/kernels/matmul.tile", map[string]string{"tm": "64", "tn": "64", "tk": "32"})
	sw, err := bench.ParseSweep(nil, "128,256", bench.SymDims(f), false)
	if err != nil {
		t.Fatal(err)
	}
	dev := &benchtest.Device{
		MS:       func(*ir.Func) float64 { return 0.001 },
		CublasMS: func(m, n, k int) float64 { return 0.0005 },
	}
	var table bytes.Buffer
	cfg := &bench.Config{Func: f, File: "matmul.tile", Sweep: sw, Warmup: 1, Iters: 20, Check: true}
	rep, err := bench.NewReport(dev, cfg)
	if err != nil {
		t.Fatal(err)
	}
	bench.WriteHeader(&table, rep)
	cfg.Row = func(r bench.Row) { bench.WriteRow(&table, rep, r) }
	rep, err = bench.Run(dev, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Rows) != 2 || rep.Metric != "tflops" || rep.Baseline != "cuBLAS" || rep.Peak == nil || rep.Peak.Device != "H100 SXM" {
		t.Fatalf("report %+v", rep)
	}
	if rep.BaselineOp != "gemm" || strings.Join(rep.BaselineDims, " ") != "M N K" {
		t.Errorf("baseline %s over %v, want gemm over M N K", rep.BaselineOp, rep.BaselineDims)
	}
	// Plain cuBLAS alternates with tilec in three rounds per shape.
	if got := strings.Join(dev.Timed, " "); got != strings.Repeat("tilec cublas ", 6)[:len(got)] || len(dev.Timed) != 12 {
		t.Errorf("timed %v", dev.Timed)
	}
	r := rep.Rows[1]
	flops := 2.0 * 256 * 256 * 256
	if r.FLOPs != flops || r.TFLOPS != flops/1e-6/1e12 || r.Ratio != 0.5 || r.CublasTFLOPS != 2*r.TFLOPS {
		t.Errorf("row %+v", r)
	}
	if r.PeakTFLOPS != r.TFLOPS/989.4 {
		t.Errorf("fraction of peak %g", r.PeakTFLOPS)
	}
	if !strings.HasPrefix(r.Check, "ok (") {
		t.Errorf("check %q", r.Check)
	}
	tableHas(t, table.String(),
		"matmul (matmul.tile) T=f16 tm=64 tn=64 tk=32 GROUP_SIZE_M=8 on NVIDIA H100 80GB HBM3, sm_90; median of 20 launches after 1 warm-up",
		"peak H100 SXM: 989 TFLOP/s dense f16/bf16",
		"      M       N       K   tilec ms  TFLOP/s %peak  cuBLAS ms  TFLOP/s  ratio     GB/s %peak check",
		"    256     256     256     0.0010     33.6    3%     0.0005     67.1  0.500")

	// JSON round trip, and the plot of it.
	var js bytes.Buffer
	if err := bench.WriteJSON(&js, rep); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "r.json")
	if err := os.WriteFile(path, js.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	back, err := bench.ReadReport(path)
	if err != nil {
		t.Fatal(err)
	}
	if back.Rows[1].TFLOPS != r.TFLOPS || back.Peak.F16 != 989.4 || back.Label(back.Rows[1]) != "M=N=K=256" {
		t.Errorf("read back %+v", back)
	}
	if title := bench.PlotTitle(back); title != "matmul (T=f16 tm=64 tn=64 tk=32 GROUP_SIZE_M=8), f16 on NVIDIA H100 80GB HBM3: tilec vs cuBLAS" {
		t.Errorf("plot title %q", title)
	}
	png := filepath.Join(t.TempDir(), "r.png")
	if err := bench.Plot(back, png); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(png)
	if err != nil || !bytes.HasPrefix(data, []byte("\x89PNG")) || len(data) < 1000 {
		t.Errorf("plot: %d bytes, %v", len(data), err)
	}
	if err := bench.Plot(back, "r.jpg"); err == nil {
		t.Error("plot to .jpg: no error")
	}
}

// A batched matmul (3-D arrays) is timed against cuBLAS's strided-batched
// GEMM, alternating with tilec in the same rounds as a plain GEMM's
// baseline, never against the plain GEMM, whose call on these arrays would
// time one product of the batch or none. Non-square shapes, so that the
// fake's shapes catch a mix-up of M, N and K.
func TestRunBatchedMatmul(t *testing.T) {
	f := compileFunc(t, "../../testdata/kernels/batched_matmul.tile", map[string]string{"tm": "64", "tn": "64", "tk": "32"})
	sw, err := bench.ParseSweep([]string{"Bt=3,2,M=128,64,N=64,128,K=96,32"}, "", nil, false)
	if err != nil {
		t.Fatal(err)
	}
	var batched [][4]int
	dev := &benchtest.Device{
		MS: func(*ir.Func) float64 { return 0.001 },
		CublasMS: func(m, n, k int) float64 {
			t.Errorf("the plain GEMM baseline was timed for a batched kernel (%dx%dx%d)", m, n, k)
			return 0.0005
		},
		CublasBatchedMS: func(batch, m, n, k int) float64 {
			batched = append(batched, [4]int{batch, m, n, k})
			return 0.0004
		},
	}
	cfg := &bench.Config{Func: f, File: "batched_matmul.tile", Sweep: sw, Warmup: 1, Iters: 20, Check: true}
	rep, err := bench.NewReport(dev, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var table bytes.Buffer
	bench.WriteHeader(&table, rep)
	cfg.Row = func(r bench.Row) { bench.WriteRow(&table, rep, r) }
	rep, err = bench.Run(dev, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Baseline != "cuBLAS" || rep.BaselineOp != "gemm_strided_batched" || strings.Join(rep.BaselineDims, " ") != "Bt M N K" ||
		strings.Join(rep.Dims, " ") != "Bt M N K" || len(rep.Rows) != 2 {
		t.Fatalf("report %+v", rep)
	}
	if got := strings.Join(dev.Timed, " "); got != strings.TrimSpace(strings.Repeat("tilec cublas_batched ", 6)) {
		t.Errorf("timed %s, want tilec and the batched cuBLAS alternating, 3 rounds per shape", got)
	}
	want := [][4]int{{3, 128, 64, 96}, {3, 128, 64, 96}, {3, 128, 64, 96}, {2, 64, 128, 32}, {2, 64, 128, 32}, {2, 64, 128, 32}}
	if len(batched) != len(want) {
		t.Fatalf("batched cuBLAS timed at %v, want %v", batched, want)
	}
	for i := range want {
		if batched[i] != want[i] {
			t.Errorf("batched cuBLAS timed at %v, want %v", batched, want)
			break
		}
	}
	for i, bt := range []float64{3 * 128 * 64 * 96, 2 * 64 * 128 * 32} {
		r := rep.Rows[i]
		flops := 2 * bt
		if r.FLOPs != flops || r.CublasMS != 0.0004 || r.Ratio != 0.4 || math.Abs(r.CublasTFLOPS/(flops/0.0004e-3/1e12)-1) > 1e-12 || r.Note != "" {
			t.Errorf("row %d: %+v (want %g FLOPs, cuBLAS 0.0004 ms, ratio 0.4)", i, r, flops)
		}
		if !strings.HasPrefix(r.Check, "ok (") {
			t.Errorf("row %d: check %q", i, r.Check)
		}
	}
	tableHas(t, table.String(),
		"cuBLAS: one strided-batched GEMM over Bt (cublasGemmStridedBatchedEx) on the same buffers, alternating with tilec; its TFLOP/s count 2*Bt*M*N*K",
		"     Bt       M       N       K   tilec ms  TFLOP/s %peak  cuBLAS ms  TFLOP/s  ratio",
		"      3     128      64      96     0.0010      4.7    0%     0.0004     11.8  0.400")

	var js bytes.Buffer
	if err := bench.WriteJSON(&js, rep); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{`"baseline": "cuBLAS"`, `"baseline_op": "gemm_strided_batched"`, `"cublas_ms": 0.0004`, `"ratio": 0.4`} {
		if !strings.Contains(js.String(), w) {
			t.Errorf("JSON lacks %s:\n%s", w, js.String())
		}
	}
	if !strings.Contains(js.String(), "\"baseline_dims\": [\n    \"Bt\",") {
		t.Errorf("JSON lacks baseline_dims Bt, ...:\n%s", js.String())
	}
	if rep.BaselineLabel() != "cuBLAS strided-batched" {
		t.Errorf("plot label %q", rep.BaselineLabel())
	}
}

// A device with only the plain GEMM gives a batched kernel no baseline, and
// the row's note says why, rather than timing the plain GEMM.
func TestRunBatchedMatmulNoBatchedBaseline(t *testing.T) {
	f := compileFunc(t, "../../testdata/kernels/batched_matmul.tile", map[string]string{"tm": "64", "tn": "64", "tk": "32"})
	sw, _ := bench.ParseSweep([]string{"Bt=2,M=64,N=64,K=32"}, "", nil, false)
	dev := &benchtest.Device{MS: func(*ir.Func) float64 { return 0.001 }, CublasMS: func(m, n, k int) float64 { return 0.0005 }}
	rep, err := bench.Run(dev, &bench.Config{Func: f, Sweep: sw, Warmup: 1, Iters: 20})
	if err != nil {
		t.Fatal(err)
	}
	r := rep.Rows[0]
	if r.CublasMS != 0 || r.Ratio != 0 || !strings.Contains(r.Note, "not the batched GEMM") {
		t.Errorf("row %+v", r)
	}
	if got := strings.Join(dev.Timed, " "); got != "tilec" {
		t.Errorf("timed %s, want tilec alone", got)
	}
}

// Which examples are GEMM-shaped, plain or batched: only the matmuls with
// (M, K) @ (K, N) -> (M, N) and the (Bt, M, K) @ (Bt, K, N) batched one;
// not transposed B, attention's (BH, S, D) arrays, or one-pass kernels.
func TestGEMMOperandsOfExamples(t *testing.T) {
	for file, want := range map[string]string{
		"matmul.tile":           "gemm A B C",
		"matmul_bias_relu.tile": "gemm A B C",
		"batched_matmul.tile":   "batched A B C",
		"matmul_bt.tile":        "",
		"mha.tile":              "",
		"attention.tile":        "",
		"softmax.tile":          "",
		"vector_add.tile":       "",
		"broadcast.tile":        "",
	} {
		f := compileFunc(t, "../../testdata/kernels/"+file, nil)
		got := ""
		if a, b, c, ok := bench.GEMMOperands(f); ok {
			got = "gemm " + f.Params[a].Name + " " + f.Params[b].Name + " " + f.Params[c].Name
		}
		if a, b, c, ok := bench.BatchedGEMMOperands(f); ok {
			got += "batched " + f.Params[a].Name + " " + f.Params[b].Name + " " + f.Params[c].Name
		}
		if got != want {
			t.Errorf("%s: %q, want %q", file, got, want)
		}
	}
}

// A kernel without mma is judged by GB/s; an unknown device has no peak.
func TestRunSoftmaxGBs(t *testing.T) {
	f := compileFunc(t, "../../testdata/kernels/softmax.tile", nil)
	sw, err := bench.ParseSweep([]string{"M=64:128,N=300"}, "", nil, false)
	if err != nil {
		t.Fatal(err)
	}
	dev := &benchtest.Device{DeviceName: "Some GPU", MS: func(*ir.Func) float64 { return 0.002 }}
	rep, err := bench.Run(dev, &bench.Config{Func: f, Sweep: sw, Warmup: 1, Iters: 20, Check: true})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Metric != "gbs" || rep.Baseline != "" || rep.Peak != nil || len(rep.Rows) != 2 {
		t.Fatalf("report %+v", rep)
	}
	r := rep.Rows[0]
	// GB/s counts X read once and Y written once, though the kernel reads
	// X twice (the traffic, apart).
	if want := 2 * 64 * 300 * 4.0; r.Bytes != want || r.TrafficBytes != 3*64*300*4 || r.GBs != want/2e-6/1e9 || r.PeakGBs != 0 {
		t.Errorf("row %+v", r)
	}
	var svg bytes.Buffer
	if err := bench.WritePlot(&svg, rep, "svg"); err != nil || !strings.Contains(svg.String(), "<svg") {
		t.Errorf("svg plot: %v", err)
	}
}

// A kernel whose device result differs from the interpreter's is not timed.
func TestRunWrongResult(t *testing.T) {
	f := compileFunc(t, "../../testdata/kernels/vector_add.tile", nil)
	sw, _ := bench.ParseSweep([]string{"N=5000"}, "", nil, false)
	dev := &benchtest.Device{MS: func(*ir.Func) float64 { return 1 }, Corrupt: func(*ir.Func) bool { return true }}
	_, err := bench.Run(dev, &bench.Config{Func: f, Sweep: sw, Warmup: 1, Iters: 20, Check: true})
	var wrong *bench.WrongResultError
	if !errors.As(err, &wrong) || !strings.HasPrefix(err.Error(), "N=5000: wrong result, not timed") {
		t.Errorf("err = %v", err)
	}
}

// Specialize swaps in another kernel per shape (tuned constants) and says so.
func TestRunSpecialize(t *testing.T) {
	f := compileFunc(t, "../../testdata/kernels/vector_add.tile", nil)
	g := compileFunc(t, "../../testdata/kernels/vector_add.tile", map[string]string{"tile": "256"})
	sw, _ := bench.ParseSweep([]string{"N=1000,5000"}, "", nil, false)
	dev := &benchtest.Device{MS: func(f *ir.Func) float64 { return 1 }}
	rep, err := bench.Run(dev, &bench.Config{Func: f, Sweep: sw, Warmup: 1, Iters: 20,
		Specialize: func(dims map[string]int64) (*ir.Func, string, error) {
			if dims["N"] == 5000 {
				return g, "tuned constants from cache: tile=256", nil
			}
			return nil, "", nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Rows[0].Consts != "T=f32 tile=1024" || rep.Rows[1].Consts != "T=f32 tile=256" || rep.Rows[1].Note != "tuned constants from cache: tile=256" {
		t.Errorf("rows %+v", rep.Rows)
	}
	if rep.Rows[1].Grid != [3]int{20, 1, 1} {
		t.Errorf("grid %v", rep.Rows[1].Grid)
	}
}

func TestLookupPeak(t *testing.T) {
	for name, want := range map[string]string{
		"NVIDIA H100 80GB HBM3": "H100 SXM",
		"NVIDIA H100 PCIe":      "H100 PCIe",
		"NVIDIA H100 NVL":       "H100 NVL",
		"NVIDIA H200":           "H200 SXM",
		"NVIDIA A100-SXM4-80GB": "A100 SXM4 80GB",
		"NVIDIA A100 80GB PCIe": "A100 80GB PCIe",
		"NVIDIA A100-SXM4-40GB": "A100 40GB",
	} {
		p, ok := bench.LookupPeak(name, 0)
		if !ok || p.Device != want {
			t.Errorf("%s: %v %v, want %s", name, p.Device, ok, want)
		}
	}
	if _, ok := bench.LookupPeak("NVIDIA H100 80GB HBM3", 80); ok {
		t.Error("an H100 with compute capability 8.0")
	}
	if p, _ := bench.LookupPeak("NVIDIA H100 80GB HBM3", 90); p.F16 != 989.4 || p.GBs != 3350 || p.TFLOPS(ir.BF16) != 989.4 || p.TFLOPS(ir.TF32) != 494.7 {
		t.Errorf("H100 SXM peaks %+v", p)
	}
}

// A kernel that declares no grid (plain cuTile) runs on the grid the
// benchmark gives, checked against the interpreter on that grid; without
// one it is an error, not a launch.
func TestRunGivenGrid(t *testing.T) {
	k, err := compile.File("../../examples/cutile/vector_add.py", compile.Options{
		Consts: map[string]string{"TILE": "256"},
		Args: map[string]build.ArgSig{
			"a": mustSig(t, "f32[N]"), "b": mustSig(t, "f32[N]"), "c": mustSig(t, "f32[N]"),
		}})
	if err != nil {
		t.Fatal(err)
	}
	sw, _ := bench.ParseSweep([]string{"N=1024"}, "", nil, false)
	var grids [][3]int
	dev := &benchtest.Device{MS: func(*ir.Func) float64 { return 0.004 }}
	rep, err := bench.Run(dev, &bench.Config{Func: k.Func, Sweep: sw, Grid: [3]int{4, 1, 1}, Warmup: 1, Iters: 20, Check: true,
		Row: func(r bench.Row) { grids = append(grids, r.Grid) }})
	if err != nil {
		t.Fatal(err)
	}
	r := rep.Rows[0]
	if r.Grid != [3]int{4, 1, 1} || grids[0] != r.Grid || !strings.HasPrefix(r.Check, "ok (") {
		t.Errorf("row %+v", r)
	}
	// 4 blocks of 256 elements: a and b read, c written, 4 bytes each.
	if want := 3 * 1024 * 4.0; r.Bytes != want {
		t.Errorf("bytes %g, want %g", r.Bytes, want)
	}
	// The grid is the user's: half of it covers half of c, and the
	// interpreter, run on the same grid, agrees; the work counted halves.
	rep, err = bench.Run(dev, &bench.Config{Func: k.Func, Sweep: sw, Grid: [3]int{2, 1, 1}, Warmup: 1, Iters: 20, Check: true})
	if err != nil || rep.Rows[0].Bytes != 3*512*4.0 {
		t.Errorf("a launch over half the grid: %v %+v", err, rep.Rows)
	}
	_, err = bench.Run(dev, &bench.Config{Func: k.Func, Sweep: sw, Warmup: 1, Iters: 20, Check: true})
	if err == nil || !strings.Contains(err.Error(), "grid") {
		t.Errorf("no grid: err = %v", err)
	}
}

// tableHas fails t for each line of want that the printed table lacks.
func tableHas(t *testing.T, table string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(table, w) {
			t.Errorf("table lacks %q:\n%s", w, table)
		}
	}
}

func mustSig(t *testing.T, s string) build.ArgSig {
	t.Helper()
	sig, err := build.ParseArgSig(s)
	if err != nil {
		t.Fatal(err)
	}
	return sig
}
