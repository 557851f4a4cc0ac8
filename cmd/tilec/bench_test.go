package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/lower"
	"github.com/tilec/tilec/runtime/bench"
	"github.com/tilec/tilec/runtime/bench/benchtest"
)

// withFakeDevice makes tilec bench time on dev while the test runs.
func withFakeDevice(t *testing.T, dev bench.Device) {
	t.Helper()
	saved := openBenchDevice
	openBenchDevice = func(*lower.Target) (bench.Device, error) { return dev, nil }
	t.Cleanup(func() { openBenchDevice = saved })
}

// tilec bench --entry on the fake device: the host function's flags as
// tilec run --entry takes them, a sweep of its signatures' dims, the table
// with each row's launches, and the JSON report with them.
func TestBenchEntry(t *testing.T) {
	dev := &benchtest.Device{MS: func(f *ir.Func) float64 {
		if f.Name == "softmax_loop_kernel" {
			return 0.010
		}
		return 0.002
	}}
	withFakeDevice(t, dev)
	var stdout, stderr bytes.Buffer
	err := cmdBench([]string{"../../examples/cutile/softmax.py", "--entry", "softmax", "--arg", "X=f16[M,N]",
		"--shape", "M=37,64", "--shape", "N=300", "--scalar", "max_tile=256", "--warmup", "1", "--iters", "20"}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	out := stdout.String()
	for _, want := range []string{
		"softmax (../../examples/cutile/softmax.py), host function, on NVIDIA H100 80GB HBM3, sm_90; median of 20 repetitions after 1 warm-up\n",
		"\n     37     300     0.0100      4.4    0% ok (max rel err ", // X read, Y written: 2*37*300*2 compulsory bytes
		"\n        launch softmax_loop_kernel tm=1 tn=256 grid (37, 1, 1): 0.0100 ms\n",
		"\n        launch softmax_loop_kernel tm=1 tn=256 grid (64, 1, 1): 0.0100 ms\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if dev.Cold != 2*21 {
		t.Errorf("%d launches timed, want 42", dev.Cold)
	}

	// --json: the report alone on stdout, the launches in each row.
	stdout.Reset()
	err = cmdBench([]string{"../../examples/cutile/split_k_matmul.py", "--entry", "split_k_matmul",
		"--arg", "A=f32[M,K]", "--arg", "B=f32[K,N]", "--shape", "M=64,N=64,K=256",
		"--scalar", "split=2", "--scalar", "tm=32", "--scalar", "tn=32", "--scalar", "tk=32", "--json"}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	var rep bench.Report
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("%v:\n%s", err, stdout.String())
	}
	if !rep.Entry || rep.Kernel != "split_k_matmul" || rep.Metric != "tflops" || rep.MMADType != "tf32" || len(rep.Rows) != 1 {
		t.Fatalf("report %+v", rep)
	}
	r := rep.Rows[0]
	if len(r.Launches) != 2 || r.Launches[0].Kernel != "partial_kernel" || r.Launches[1].Kernel != "reduce_kernel" ||
		r.MS != 0.004 || r.FLOPs != 2*64*64*256 || r.Dims["K"] != 256 {
		t.Errorf("row %+v", r)
	}
	if rep.Baseline != "" || r.Note != "no cuBLAS baseline: split_k_matmul launches 2 kernels (partial_kernel, reduce_kernel), not one GEMM" {
		t.Errorf("baseline %q, note %q", rep.Baseline, r.Note)
	}
}

// tilec bench --entry on the plain-cuTile matmuls: their host function's
// one launch is GEMM-shaped, so cuBLAS runs beside it on the launch's
// buffers at the --arg signatures' M, N, K (and Bt), each call timed as
// the launch is (cold, alone), in the table and in --json as the kernel
// path has it. A non-GEMM launch (softmax) has no baseline and a note.
func TestBenchEntryCublas(t *testing.T) {
	var plain [][3]int
	var batched [][4]int
	dev := &benchtest.Device{
		MS: func(*ir.Func) float64 { return 0.002 },
		CublasMS: func(m, n, k int) float64 {
			plain = append(plain, [3]int{m, n, k})
			return 0.001
		},
		CublasBatchedMS: func(batch, m, n, k int) float64 {
			batched = append(batched, [4]int{batch, m, n, k})
			return 0.004
		},
	}
	withFakeDevice(t, dev)
	run := func(args ...string) string {
		t.Helper()
		var stdout, stderr bytes.Buffer
		if err := cmdBench(append(args, "--warmup", "1", "--iters", "20"), &stdout, &stderr); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, stderr.String())
		}
		return stdout.String()
	}
	report := func(out string) *bench.Report {
		t.Helper()
		var rep bench.Report
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("%v:\n%s", err, out)
		}
		return &rep
	}

	out := run("../../examples/cutile/matmul.py", "--entry", "matmul", "--arg", "A=f16[M,K]", "--arg", "B=f16[K,N]", "--shape", "M=128,N=M,K=M")
	for _, want := range []string{
		"\ncuBLAS (when a repetition is one GEMM launch): cublasGemmEx on that launch's buffers right after it in each repetition, timed as the launch is; its TFLOP/s count 2*M*N*K\n",
		"\n      M       N       K   tilec ms  TFLOP/s %peak  cuBLAS ms  TFLOP/s  ratio     GB/s %peak check\n",
		"\n    128     128     128     0.0020      2.1    0%     0.0010      4.2  0.500 ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Count(strings.Join(dev.Timed, " "), "tilec_cold cublas_cold") != 21 || plain[0] != [3]int{128, 128, 128} {
		t.Errorf("timed %v at %v", dev.Timed, plain)
	}

	// examples/matmul.tile at a non-square shape, --json.
	plain = nil
	rep := report(run("../../examples/matmul.tile", "--entry", "matmul", "--arg", "A=f16[M,K]", "--arg", "B=f16[K,N]",
		"--shape", "M=64,N=96,K=32", "--scalar", "tm=32", "--scalar", "tn=32", "--scalar", "tk=32", "--json"))
	if rep.Baseline != "cuBLAS" || rep.BaselineOp != "gemm" || strings.Join(rep.BaselineDims, ",") != "M,N,K" || len(rep.Rows) != 1 {
		t.Fatalf("report %+v", rep)
	}
	if r := rep.Rows[0]; r.CublasMS != 0.001 || r.Ratio != 0.5 || r.CublasTFLOPS == 0 || r.Note != "" || plain[0] != [3]int{64, 96, 32} {
		t.Errorf("row %+v, cuBLAS at %v", r, plain)
	}

	// examples/batched_matmul.tile's bmm: the strided-batched GEMM.
	rep = report(run("../../examples/batched_matmul.tile", "--entry", "bmm", "--arg", "A=f16[Bt,M,K]", "--arg", "B=f16[Bt,K,N]",
		"--shape", "Bt=2,M=64,N=M,K=M", "--scalar", "tm=32", "--scalar", "tn=32", "--scalar", "tk=32", "--json"))
	if rep.Baseline != "cuBLAS" || rep.BaselineOp != "gemm_strided_batched" || strings.Join(rep.BaselineDims, ",") != "Bt,M,N,K" ||
		strings.Join(rep.Dims, ",") != "Bt,M,N,K" {
		t.Fatalf("report %+v", rep)
	}
	if r := rep.Rows[0]; r.CublasMS != 0.004 || r.Ratio != 2 || len(batched) != 21 || batched[0] != [4]int{2, 64, 64, 64} {
		t.Errorf("row %+v, batched cuBLAS at %v", r, batched)
	}

	// softmax: not a GEMM.
	note := "no cuBLAS baseline: softmax_kernel is not GEMM-shaped (A (M, K) and B (K, N) read, C (M, N) stored, or a batch of them)"
	out = run("../../examples/softmax.tile", "--entry", "softmax", "--arg", "X=f32[M,N]", "--shape", "M=64,N=128")
	if !strings.Contains(out, "\n        note: "+note+"\n") || strings.Contains(out, "cuBLAS ms") {
		t.Errorf("output:\n%s", out)
	}
	rep = report(run("../../examples/softmax.tile", "--entry", "softmax", "--arg", "X=f32[M,N]", "--shape", "M=64,N=128", "--json"))
	if rep.Baseline != "" || rep.BaselineOp != "" || rep.Rows[0].Note != note || rep.Rows[0].CublasMS != 0 {
		t.Errorf("report %+v", rep)
	}
}

// tilec bench on a batched matmul: --sizes leaves the batch at 4 and sets
// M, N and K; the baseline is cuBLAS's strided-batched GEMM over the whole
// batch (the fake has the plain GEMM too, which must not be timed), in the
// table and in --json.
func TestBenchBatchedMatmul(t *testing.T) {
	var shapes [][4]int
	dev := &benchtest.Device{
		MS: func(*ir.Func) float64 { return 0.002 },
		CublasMS: func(m, n, k int) float64 {
			t.Errorf("plain cuBLAS timed for a batched matmul")
			return 1
		},
		CublasBatchedMS: func(batch, m, n, k int) float64 {
			shapes = append(shapes, [4]int{batch, m, n, k})
			return 0.001
		},
	}
	withFakeDevice(t, dev)
	var stdout, stderr bytes.Buffer
	common := []string{"../../testdata/kernels/batched_matmul.tile", "-D", "tm=64", "-D", "tn=64", "-D", "tk=32", "--tuned=false", "--warmup", "1", "--iters", "20"}
	if err := cmdBench(append(common, "--sizes", "64"), &stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	for _, want := range []string{
		"cuBLAS: one strided-batched GEMM over Bt (cublasGemmStridedBatchedEx)",
		"\n     Bt       M       N       K   tilec ms  TFLOP/s %peak  cuBLAS ms  TFLOP/s  ratio ",
		"\n      4      64      64      64     0.0020 ",
		" 0.0010      2.1  0.500 ",
	} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, stdout.String())
		}
	}
	if len(shapes) != 3 || shapes[0] != [4]int{4, 64, 64, 64} {
		t.Errorf("batched cuBLAS timed at %v", shapes)
	}

	stdout.Reset()
	if err := cmdBench(append(common, "--shape", "Bt=2,M=128,N=64,K=96", "--json"), &stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	var rep bench.Report
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("%v:\n%s", err, stdout.String())
	}
	if rep.Baseline != "cuBLAS" || rep.BaselineOp != "gemm_strided_batched" || strings.Join(rep.BaselineDims, ",") != "Bt,M,N,K" || len(rep.Rows) != 1 {
		t.Fatalf("report %+v", rep)
	}
	if r := rep.Rows[0]; r.CublasMS != 0.001 || r.Ratio != 0.5 || r.Dims["Bt"] != 2 || shapes[len(shapes)-1] != [4]int{2, 128, 64, 96} {
		t.Errorf("row %+v, cuBLAS at %v", r, shapes)
	}
}

// Mistakes in the flags of bench --entry are reported before any device
// is opened.
func TestBenchEntryErrors(t *testing.T) {
	withFakeDevice(t, &benchtest.Device{MS: func(*ir.Func) float64 {
		t.Error("a launch was timed")
		return 1
	}})
	softmax := "../../examples/cutile/softmax.py"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{softmax, "--entry", "nope", "--arg", "X=f32[M,N]"},
			"../../examples/cutile/softmax.py: no host function named nope (it has bench_softmax, next_power_of_2, softmax)"},
		{[]string{softmax, "--entry", "softmax_row_kernel"},
			"softmax_row_kernel is a kernel: the entry is the host function that launches it"},
		{[]string{softmax, "--entry", "softmax"},
			"softmax needs a value for X: give a tensor's signature (--arg X=f16[M,K])"},
		{[]string{softmax, "--entry", "softmax", "--arg", "X=f32[M,N]", "--shape", "K=4"},
			"--shape K: no --arg signature of softmax has a dim K (their dims: M, N)"},
		{[]string{softmax, "--entry", "softmax", "--arg", "X=f32[M,N]", "--arg", "Y=f32[M,N]"},
			"--arg Y: softmax has no parameter Y"},
		{[]string{softmax, "--entry", "softmax", "--arg", "X=f32[M,N]", "--scalar", "tile=4"},
			"--scalar tile: softmax has no parameter tile"},
		{[]string{softmax, "--entry", "softmax", "--arg", "X=f32[M,N]", "--grid", "4"},
			"--entry and --grid: the host function gives each launch its grid"},
		{[]string{softmax, "--entry", "softmax", "--arg", "X=f32[M,N]", "-D", "tm=4"},
			"--entry and -D: the host function passes the constants to ct.launch"},
		{[]string{softmax, "--entry", "softmax", "--arg", "X=f32[M,N]", "--kernel", "softmax_row_kernel"},
			"--entry and --kernel"},
		{[]string{softmax, "--entry", "softmax", "--arg", "X=f32[M,N]", "--shape", "M=1,2,N=1,2,3"},
			"dims swept together need as many values each"},
		{[]string{softmax, "--entry", "softmax", "--arg", "X=f32", "--shape", "M=4"},
			"--arg X=f32: the entry's scalar parameters take --scalar X=VALUE"},
	} {
		var stdout, stderr bytes.Buffer
		err := cmdBench(c.args, &stdout, &stderr)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: err = %v, want %q", c.args, err, c.want)
		}
	}
}

// A 16x4096x4096 GEMM in 128-row tiles: TFLOP/s is the problem's
// 2*M*N*K over the time, not the 8 times larger mma work of the padded
// tiles (that rate is the row's mma_tflops and a note beside it), and GB/s
// counts A, B and C once each.
func TestBenchUsefulFLOPs(t *testing.T) {
	const ms = 0.044
	withFakeDevice(t, &benchtest.Device{MS: func(*ir.Func) float64 { return ms }})
	var stdout, stderr bytes.Buffer
	err := cmdBench([]string{"../../testdata/kernels/matmul.tile", "--shape", "M=16,N=4096,K=4096", "--check=false",
		"--warmup", "1", "--iters", "20", "--json"}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	var rep bench.Report
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("%v:\n%s", err, stdout.String())
	}
	r := rep.Rows[0]
	useful := 2.0 * 16 * 4096 * 4096
	if r.FLOPs != useful || r.TFLOPS != useful/(ms*1e-3)/1e12 {
		t.Errorf("%g FLOPs, %g TFLOP/s; want 2*M*N*K = %g, %g TFLOP/s", r.FLOPs, r.TFLOPS, useful, useful/(ms*1e-3)/1e12)
	}
	if r.MMAFLOPs != 8*useful || r.MMATFLOPS != 8*r.TFLOPS || !strings.Contains(r.Note, "mma work with tile padding") {
		t.Errorf("mma work %g (%g TFLOP/s), note %q; want 8x the problem's", r.MMAFLOPs, r.MMATFLOPS, r.Note)
	}
	if want := (16*4096 + 4096*4096 + 16*4096) * 2.0; r.Bytes != want || r.GBs != want/(ms*1e-3)/1e9 {
		t.Errorf("%g bytes (%g GB/s), want the arrays once: %g", r.Bytes, r.GBs, want)
	}
}

// bench shows its way through the shapes on a terminal's stderr, one line
// rewritten in place with an ETA from the second shape on, erased before
// each row of the table and at the end; elsewhere (a pipe, a log) nothing.
func TestBenchProgress(t *testing.T) {
	withFakeDevice(t, &benchtest.Device{MS: func(*ir.Func) float64 { return 0.01 }})
	args := []string{"../../testdata/kernels/vector_add.tile", "--shape", "N=1024,2048,4096", "--warmup", "1", "--iters", "20"}
	var stdout, stderr bytes.Buffer
	if err := cmdBench(args, &stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if strings.Contains(stderr.String(), "bench: shape") {
		t.Errorf("progress on a stderr that is not a terminal:\n%q", stderr.String())
	}

	saved := isTerminal
	isTerminal = func(w io.Writer) bool { return w == &stderr }
	t.Cleanup(func() { isTerminal = saved })
	stdout.Reset()
	stderr.Reset()
	if err := cmdBench(args, &stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	got := stderr.String()
	for _, want := range []string{
		"\r\033[Kbench: shape 1 of 3 (N=1024), ",
		"\r\033[Kbench: shape 3 of 3 (N=4096), ",
		" elapsed, ETA at least ",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("stderr lacks %q:\n%q", want, got)
		}
	}
	if strings.Contains(got, "1 of 3 (N=1024), 0s elapsed, ETA") || !strings.HasSuffix(got, "\r\033[K") {
		t.Errorf("an ETA before any shape is done, or the line left at the end:\n%q", got)
	}
	if strings.Count(stdout.String(), "\n") != 7 {
		t.Errorf("the table:\n%s", stdout.String())
	}
}

// bench --plot to a directory that is missing, or that takes no new
// file, is refused before any shape is timed, naming --plot.
func TestBenchPlotCheckedFirst(t *testing.T) {
	timed := 0
	withFakeDevice(t, &benchtest.Device{MS: func(*ir.Func) float64 { timed++; return 0.01 }})
	tmp := t.TempDir()
	bad := map[string]string{filepath.Join(tmp, "missing", "out.png"): "no directory " + filepath.Join(tmp, "missing") + " to write in"}
	if os.Geteuid() != 0 { // root writes in a read-only directory
		ro := filepath.Join(tmp, "ro")
		if err := os.Mkdir(ro, 0o555); err != nil {
			t.Fatal(err)
		}
		bad[filepath.Join(ro, "out.png")] = "cannot write in " + ro
	}
	for path, want := range bad {
		var stdout, stderr bytes.Buffer
		err := cmdBench([]string{"../../testdata/kernels/vector_add.tile", "--shape", "N=1024", "--iters", "20", "--plot", path}, &stdout, &stderr)
		if err == nil || !strings.Contains(err.Error(), "--plot "+path+": "+want) {
			t.Errorf("%s: got %v, want a --plot error %q", path, err, want)
		}
		if timed != 0 || stdout.Len() != 0 {
			t.Errorf("%s: the benchmark ran (%d timings) before the plot path was checked:\n%s", path, timed, stdout.String())
		}
	}
}
