package bench_test

import (
	"bytes"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/lang"
	"github.com/tilec/tilec/runtime"
	"github.com/tilec/tilec/runtime/bench"
	"github.com/tilec/tilec/runtime/bench/benchtest"
	"github.com/tilec/tilec/runtime/host"
)

func loadProgram(t *testing.T, path string, src []byte) *host.Program {
	t.Helper()
	if src == nil {
		var err error
		if src, err = os.ReadFile(path); err != nil {
			t.Fatal(err)
		}
	}
	file, err := lang.Parse(path, src)
	if err != nil {
		t.Fatal(err)
	}
	p, err := host.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// randArgs returns an EntryConfig.Args that makes random arrays of dtype
// dt with the given shapes (dim names) and adds the scalars.
func randArgs(dt ir.DType, shapes map[string][]string, scalars map[string]any) func(map[string]int64, uint64) (map[string]any, error) {
	return func(dims map[string]int64, seed uint64) (map[string]any, error) {
		rng := rand.New(rand.NewPCG(seed, 0))
		args := map[string]any{}
		for name, ds := range shapes {
			shape := make([]int, len(ds))
			for i, d := range ds {
				shape[i] = int(dims[d])
			}
			x := runtime.NewTensor(dt, shape...)
			x.FillRandNormal(rng)
			args[name] = x
		}
		for name, v := range scalars {
			args[name] = v
		}
		return args, nil
	}
}

// softmax.py's host function over two shapes: its one launch checked
// against the interpreter, then timed. The time is the device's kernel
// time alone: the fake device's 4 µs per launch, exactly, though running
// the host code, the uploads and the interpreter took far longer.
func TestRunEntrySoftmax(t *testing.T) {
	sw, err := bench.ParseSweep([]string{"M=37,64", "N=300"}, "", nil, false)
	if err != nil {
		t.Fatal(err)
	}
	dev := &benchtest.Device{MS: func(f *ir.Func) float64 {
		if f.Name != "softmax_row_kernel" {
			t.Errorf("launched %s", f.Name)
		}
		return 0.004
	}}
	var table bytes.Buffer
	var rep *bench.Report
	cfg := &bench.EntryConfig{
		Program: loadProgram(t, "../../examples/cutile/softmax.py", nil), Entry: "softmax", File: "softmax.py",
		Dims: []string{"M", "N"}, Sweep: sw, Warmup: 2, Iters: 20, Check: true,
		Args:  randArgs(ir.F32, map[string][]string{"X": {"M", "N"}}, nil),
		Start: func(r *bench.Report) { rep = r; bench.WriteHeader(&table, r) },
		Row: func(r bench.Row) {
			if rep == nil {
				t.Fatal("a row before Start")
			}
			bench.WriteRow(&table, rep, r)
		},
	}
	got, err := bench.RunEntry(dev, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got != rep || !got.Entry || got.Kernel != "softmax" || got.Metric != "gbs" || len(got.Rows) != 2 {
		t.Fatalf("report %+v", got)
	}
	if dev.Cold != 2*(2+20) {
		t.Errorf("%d launches timed, want 44 (22 repetitions at 2 shapes)", dev.Cold)
	}
	r := got.Rows[0]
	bytesMoved := 2 * 37 * 300 * 4.0 // X read, Y written
	if r.MS != 0.004 || r.Bytes != bytesMoved || r.GBs != bytesMoved/0.004e-3/1e9 || r.PeakGBs != r.GBs/3350 {
		t.Errorf("row %+v", r)
	}
	if len(r.Launches) != 1 || r.Launches[0] != (bench.LaunchRow{Kernel: "softmax_row_kernel", Consts: "tm=16 TILE_N=512",
		Grid: [3]int{3, 1, 1}, MS: 0.004, Bytes: bytesMoved, Check: r.Check}) || r.Grid != [3]int{3, 1, 1} {
		t.Errorf("launches %+v", r.Launches)
	}
	if !strings.HasPrefix(r.Check, "ok (max rel err ") {
		t.Errorf("check %q", r.Check)
	}
	tableHas(t, table.String(),
		"softmax (softmax.py), host function, on NVIDIA H100 80GB HBM3, sm_90; median of 20 repetitions after 2 warm-up",
		"      M       N   tilec ms     GB/s %peak check",
		"     37     300     0.0040     22.2    1% ok (max rel err ",
		"        launch softmax_row_kernel tm=16 TILE_N=512 grid (3, 1, 1): 0.0040 ms",
		"     64     300     0.0040",
		"        launch softmax_row_kernel tm=16 TILE_N=512 grid (4, 1, 1): 0.0040 ms")
	if title := bench.PlotTitle(got); title != "softmax (host function), f32 on NVIDIA H100 80GB HBM3: tilec (no baseline)" {
		t.Errorf("plot title %q", title)
	}
	var svg bytes.Buffer
	if err := bench.WritePlot(&svg, got, "svg"); err != nil || !strings.Contains(svg.String(), "softmax (host function), f32 on NVIDIA H100") {
		t.Errorf("plot: %v", err)
	}
}

// split_k_matmul.py's two launches: the work is the sum over them, the
// time the median over repetitions of their sum, each launch's own median
// beside it.
func TestRunEntrySplitK(t *testing.T) {
	sw, _ := bench.ParseSweep([]string{"M=64,N=64,K=256"}, "", nil, false)
	calls := 0
	dev := &benchtest.Device{MS: func(f *ir.Func) float64 {
		switch f.Name {
		case "partial_kernel":
			// Every third repetition is slow: a median, not a mean.
			if calls++; calls%3 == 0 {
				return 1
			}
			return 0.010
		case "reduce_kernel":
			return 0.003
		}
		t.Errorf("launched %s", f.Name)
		return 0
	}}
	cfg := &bench.EntryConfig{
		Program: loadProgram(t, "../../examples/cutile/split_k_matmul.py", nil), Entry: "split_k_matmul",
		Dims: []string{"M", "K", "N"}, Sweep: sw, Warmup: 1, Iters: 20, Check: true,
		Args: randArgs(ir.F16, map[string][]string{"A": {"M", "K"}, "B": {"K", "N"}},
			map[string]any{"split": int64(2), "tm": int64(32), "tn": int64(32), "tk": int64(32)}),
	}
	rep, err := bench.RunEntry(dev, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Metric != "tflops" || rep.MMADType != "f16" {
		t.Errorf("metric %s %s", rep.Metric, rep.MMADType)
	}
	r := rep.Rows[0]
	if len(r.Launches) != 2 || r.Launches[0].Kernel != "partial_kernel" || r.Launches[1].Kernel != "reduce_kernel" {
		t.Fatalf("launches %+v", r.Launches)
	}
	p, red := r.Launches[0], r.Launches[1]
	if p.Consts != "tm=32 tn=32 tk=32 SPLIT=2" || p.Grid != [3]int{4, 2, 1} || red.Grid != [3]int{2, 1, 1} {
		t.Errorf("launches %+v", r.Launches)
	}
	// partial: A read once per column of tiles, B once per row of tiles
	// (2 each), W (2, 64, 64) f32 written; reduce: W read, C written. The
	// compulsory bytes count A and B once; the traffic, twice.
	a, b, w, c := 64*256*2.0, 256*64*2.0, 2*64*64*4.0, 64*64*2.0
	if p.Bytes != a+b+w || red.Bytes != w+c || r.Bytes != p.Bytes+red.Bytes || r.TrafficBytes != 2*a+2*b+w+w+c {
		t.Errorf("bytes: partial %g, reduce %g, row %g (traffic %g)", p.Bytes, red.Bytes, r.Bytes, r.TrafficBytes)
	}
	if flops := 2 * 64 * 64 * 256.0; p.FLOPs != flops || red.FLOPs != 0 || r.FLOPs != flops || r.TFLOPS != flops/(r.MS*1e-3)/1e12 {
		t.Errorf("flops: partial %g, reduce %g, row %g (%g TFLOP/s)", p.FLOPs, red.FLOPs, r.FLOPs, r.TFLOPS)
	}
	if math.Abs(r.MS-0.013) > 1e-12 || p.MS != 0.010 || red.MS != 0.003 {
		t.Errorf("ms %g (partial %g, reduce %g), want 0.013 (0.010 + 0.003)", r.MS, p.MS, red.MS)
	}
	if !strings.HasPrefix(r.Check, "ok (2 launches, max rel err ") || !strings.HasPrefix(red.Check, "ok (") {
		t.Errorf("check %q, %q", r.Check, red.Check)
	}
	// Two launches: no cuBLAS (the fake has none to time anyway), and why.
	if r.Note != "no cuBLAS baseline: split_k_matmul launches 2 kernels (partial_kernel, reduce_kernel), not one GEMM" ||
		r.CublasMS != 0 || rep.Baseline != "" || rep.BaselineOp != "" {
		t.Errorf("baseline %q %q, note %q", rep.Baseline, rep.BaselineOp, r.Note)
	}
}

// A launch whose device result is wrong stops the benchmark before
// anything is timed, and says which launch.
func TestRunEntryWrongResult(t *testing.T) {
	sw, _ := bench.ParseSweep([]string{"M=64,N=64,K=256"}, "", nil, false)
	dev := &benchtest.Device{MS: func(*ir.Func) float64 { return 1 },
		Corrupt: func(f *ir.Func) bool { return f.Name == "reduce_kernel" }}
	_, err := bench.RunEntry(dev, &bench.EntryConfig{
		Program: loadProgram(t, "../../examples/cutile/split_k_matmul.py", nil), Entry: "split_k_matmul",
		Dims: []string{"M", "K", "N"}, Sweep: sw, Warmup: 1, Iters: 20, Check: true,
		Args: randArgs(ir.F16, map[string][]string{"A": {"M", "K"}, "B": {"K", "N"}},
			map[string]any{"split": int64(2), "tm": int64(32), "tn": int64(32), "tk": int64(32)}),
	})
	// (The launch's line is not pinned: the example's host code changes.)
	if err == nil || !strings.HasPrefix(err.Error(), "64x256x64: ../../examples/cutile/split_k_matmul.py:") ||
		!strings.Contains(err.Error(), ":5: ct.launch of reduce_kernel: wrong result, not timed") {
		t.Errorf("err = %v", err)
	}
	if dev.Cold != 0 {
		t.Errorf("%d launches timed after a wrong result", dev.Cold)
	}
}

const hostOnly = `import cuda.tile as ct
import torch

@ct.kernel
def fill(Y, BLOCK: ct.Constant[int]):
    ct.store(Y, index=(ct.bid(0),), tile=ct.full((BLOCK,), 1.0, dtype=Y.dtype))

def nothing(X):
    return X.shape[0]

def no_blocks(X):
    ct.launch(torch.cuda.current_stream(), (X.shape[0] // 2000,), fill, (X, 256))
`

// Host functions that launch nothing, or fail at their launch, are errors
// of the shape they happened at.
func TestRunEntryErrors(t *testing.T) {
	sw, _ := bench.ParseSweep([]string{"N=1000"}, "", nil, false)
	dev := &benchtest.Device{MS: func(*ir.Func) float64 { return 1 }}
	prog := loadProgram(t, "host.py", []byte(hostOnly))
	for entry, want := range map[string]string{
		"nothing":   "N=1000: nothing launched no kernel: nothing to time",
		"no_blocks": "N=1000: host.py:12:44: ct.launch: grid axis x is 0: a launch needs at least one block on every axis",
		"missing":   "N=1000: host.py: no host function named missing (it has no_blocks, nothing)",
	} {
		_, err := bench.RunEntry(dev, &bench.EntryConfig{Program: prog, Entry: entry, Dims: []string{"N"}, Sweep: sw,
			Warmup: 1, Iters: 20, Check: true, Args: randArgs(ir.F32, map[string][]string{"X": {"N"}}, nil)})
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: err = %v, want %s...", entry, err, want)
		}
	}
	// Without dims, one point and no label.
	_, err := bench.RunEntry(dev, &bench.EntryConfig{Program: prog, Entry: "nothing", Sweep: &bench.Sweep{Points: []map[string]int64{{}}},
		Warmup: 1, Iters: 20, Args: func(map[string]int64, uint64) (map[string]any, error) {
			return map[string]any{"X": runtime.NewTensor(ir.F32, 4)}, nil
		}})
	if err == nil || err.Error() != "nothing launched no kernel: nothing to time" {
		t.Errorf("err = %v", err)
	}
}

// entryTable runs cfg on dev and returns the report and the table printed
// as it filled.
func entryTable(t *testing.T, dev bench.Device, cfg *bench.EntryConfig) (*bench.Report, string) {
	t.Helper()
	var table bytes.Buffer
	var rep *bench.Report
	cfg.Start = func(r *bench.Report) { rep = r; bench.WriteHeader(&table, r) }
	cfg.Row = func(r bench.Row) { bench.WriteRow(&table, rep, r) }
	got, err := bench.RunEntry(dev, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return got, table.String()
}

// alternating is what the fake device records for shapes x (warmup +
// iters) repetitions that time tilec's launch, then the baseline, each
// alone with a cold L2.
func alternating(baseline string, reps int) string {
	return strings.TrimSpace(strings.Repeat("tilec_cold "+baseline+"_cold ", reps))
}

// matmul.tile's host function launches one GEMM-shaped kernel: cuBLAS runs
// on that launch's buffers at its M, N and K, timed as the launch is (cold,
// alone), right after it in every repetition. The baseline's dims are named
// by the --arg signatures, at a square shape too, where the sizes alone
// cannot tell M, N and K apart; the table and the JSON have cuBLAS as the
// kernel path has it.
func TestRunEntryMatmulBaseline(t *testing.T) {
	sw, err := bench.ParseSweep([]string{"M=64,96", "N=128,96", "K=32,96"}, "", nil, false)
	if err != nil {
		t.Fatal(err)
	}
	var cublasAt [][3]int
	dev := &benchtest.Device{
		MS: func(*ir.Func) float64 { return 0.004 },
		CublasMS: func(m, n, k int) float64 {
			cublasAt = append(cublasAt, [3]int{m, n, k})
			return 0.003
		},
		CublasBatchedMS: func(batch, m, n, k int) float64 {
			t.Errorf("the batched baseline was timed for a plain GEMM")
			return 1
		},
	}
	shapes := map[string][]string{"A": {"M", "K"}, "B": {"K", "N"}}
	rep, table := entryTable(t, dev, &bench.EntryConfig{
		Program: loadProgram(t, "../../examples/matmul.tile", nil), Entry: "matmul", File: "matmul.tile",
		Dims: []string{"M", "K", "N"}, ArgDims: shapes, Sweep: sw, Warmup: 2, Iters: 20, Check: true,
		Args: randArgs(ir.F16, shapes, map[string]any{"tm": int64(32), "tn": int64(32), "tk": int64(32)}),
	})
	if rep.Baseline != "cuBLAS" || rep.BaselineOp != "gemm" || strings.Join(rep.BaselineDims, " ") != "M N K" ||
		strings.Join(rep.Dims, " ") != "M N K" || len(rep.Rows) != 2 {
		t.Fatalf("report %+v", rep)
	}
	if got, want := strings.Join(dev.Timed, " "), alternating("cublas", 2*22); got != want {
		t.Errorf("timed %s, want tilec and cuBLAS alternating, each cold: %s", got, want)
	}
	if len(cublasAt) != 2*22 || cublasAt[0] != [3]int{64, 128, 32} || cublasAt[len(cublasAt)-1] != [3]int{96, 96, 96} {
		t.Errorf("cuBLAS timed at %v", cublasAt)
	}
	for i, mnk := range [][3]float64{{64, 128, 32}, {96, 96, 96}} {
		r := rep.Rows[i]
		flops := 2 * mnk[0] * mnk[1] * mnk[2]
		if r.MS != 0.004 || r.CublasMS != 0.003 || r.Ratio != 0.003/0.004 || r.Note != "" ||
			math.Abs(r.CublasTFLOPS/(flops/0.003e-3/1e12)-1) > 1e-12 || r.FLOPs != flops {
			t.Errorf("row %d: %+v", i, r)
		}
	}
	tableHas(t, table,
		"cuBLAS (when a repetition is one GEMM launch): cublasGemmEx on that launch's buffers right after it in each repetition, timed as the launch is; its TFLOP/s count 2*M*N*K",
		"      M       N       K   tilec ms  TFLOP/s %peak  cuBLAS ms  TFLOP/s  ratio     GB/s %peak check",
		"     64     128      32     0.0040      0.1    0%     0.0030      0.2  0.750 ",
		"     96      96      96     0.0040      0.4    0%     0.0030      0.6  0.750 ",
		"        launch matmul_kernel tm=32 tn=32 tk=32 grid (8, 1, 1): 0.0040 ms")
	if strings.Contains(table, "note:") {
		t.Errorf("a note in the table:\n%s", table)
	}
	var js bytes.Buffer
	if err := bench.WriteJSON(&js, rep); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{`"entry": true`, `"baseline": "cuBLAS"`, `"baseline_op": "gemm"`,
		"\"baseline_dims\": [\n    \"M\",\n    \"N\",\n    \"K\"\n  ]", `"cublas_ms": 0.003`, `"cublas_tflops": `, `"ratio": 0.75`} {
		if !strings.Contains(js.String(), w) {
			t.Errorf("JSON lacks %s:\n%s", w, js.String())
		}
	}
}

// batched_matmul.tile's bmm launches one batched GEMM: the baseline is the
// strided-batched GEMM over the whole batch (never the plain one), at the
// launch's Bt, M, N and K, alternating with tilec launch by launch.
func TestRunEntryBatchedMatmulBaseline(t *testing.T) {
	sw, err := bench.ParseSweep([]string{"Bt=3,M=64,N=96,K=32"}, "", nil, false)
	if err != nil {
		t.Fatal(err)
	}
	var batched [][4]int
	dev := &benchtest.Device{
		MS: func(*ir.Func) float64 { return 0.005 },
		CublasMS: func(m, n, k int) float64 {
			t.Errorf("the plain GEMM baseline was timed for a batched GEMM (%dx%dx%d)", m, n, k)
			return 1
		},
		CublasBatchedMS: func(batch, m, n, k int) float64 {
			batched = append(batched, [4]int{batch, m, n, k})
			return 0.004
		},
	}
	shapes := map[string][]string{"A": {"Bt", "M", "K"}, "B": {"Bt", "K", "N"}}
	rep, table := entryTable(t, dev, &bench.EntryConfig{
		Program: loadProgram(t, "../../examples/batched_matmul.tile", nil), Entry: "bmm", File: "batched_matmul.tile",
		Dims: []string{"Bt", "M", "K", "N"}, Batch: map[string]bool{"Bt": true}, ArgDims: shapes, Sweep: sw,
		Warmup: 1, Iters: 20, Check: true,
		Args: randArgs(ir.F16, shapes, map[string]any{"tm": int64(32), "tn": int64(32), "tk": int64(32)}),
	})
	if rep.Baseline != "cuBLAS" || rep.BaselineOp != "gemm_strided_batched" || strings.Join(rep.BaselineDims, " ") != "Bt M N K" ||
		strings.Join(rep.Dims, " ") != "Bt M N K" {
		t.Fatalf("report %+v", rep)
	}
	if got, want := strings.Join(dev.Timed, " "), alternating("cublas_batched", 21); got != want {
		t.Errorf("timed %s, want %s", got, want)
	}
	if len(batched) != 21 || batched[0] != [4]int{3, 64, 96, 32} {
		t.Errorf("batched cuBLAS timed at %v", batched)
	}
	r := rep.Rows[0]
	flops := 2 * 3 * 64 * 96 * 32.0
	if r.CublasMS != 0.004 || r.Ratio != 0.8 || math.Abs(r.CublasTFLOPS/(flops/0.004e-3/1e12)-1) > 1e-12 || r.Note != "" {
		t.Errorf("row %+v", r)
	}
	tableHas(t, table,
		"cuBLAS (when a repetition is one GEMM launch): one strided-batched GEMM over Bt (cublasGemmStridedBatchedEx) on that launch's buffers right after it in each repetition, timed as the launch is; its TFLOP/s count 2*Bt*M*N*K",
		"     Bt       M       N       K   tilec ms  TFLOP/s %peak  cuBLAS ms  TFLOP/s  ratio",
		"      3      64      96      32     0.0050      0.2    0%     0.0040      0.3  0.800 ")
	var js bytes.Buffer
	if err := bench.WriteJSON(&js, rep); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{`"baseline_op": "gemm_strided_batched"`, "\"baseline_dims\": [\n    \"Bt\",", `"ratio": 0.8`} {
		if !strings.Contains(js.String(), w) {
			t.Errorf("JSON lacks %s:\n%s", w, js.String())
		}
	}
}

// softmax.tile's one launch is not a GEMM, and matmul_bt.tile's is not
// either, though at M=N=K its arrays' sizes are a GEMM's: the signatures
// name B's axes N, K. Neither is timed against cuBLAS; each row's note says
// why, in one line, and the report names no baseline.
func TestRunEntryNotGEMM(t *testing.T) {
	for _, c := range []struct {
		file, entry string
		dt          ir.DType
		shapes      map[string][]string
		dims        []string
		sweep       string
		note        string
	}{
		{"softmax.tile", "softmax", ir.F32, map[string][]string{"X": {"M", "N"}}, []string{"M", "N"}, "M=64,N=96",
			"no cuBLAS baseline: softmax_kernel is not GEMM-shaped (A (M, K) and B (K, N) read, C (M, N) stored, or a batch of them)"},
		{"matmul_bt.tile", "matmul_bt", ir.F16, map[string][]string{"A": {"M", "K"}, "B": {"N", "K"}}, []string{"M", "K", "N"}, "M=64,N=M,K=M",
			"no cuBLAS baseline: matmul_bt_kernel is not GEMM-shaped (A (M, K) and B (K, N) read, C (M, N) stored, or a batch of them)"},
	} {
		sw, err := bench.ParseSweep([]string{c.sweep}, "", nil, false)
		if err != nil {
			t.Fatal(err)
		}
		dev := &benchtest.Device{MS: func(*ir.Func) float64 { return 0.002 },
			CublasMS: func(m, n, k int) float64 { t.Errorf("%s: cuBLAS timed", c.file); return 1 }}
		rep, table := entryTable(t, dev, &bench.EntryConfig{
			Program: loadProgram(t, "../../examples/"+c.file, nil), Entry: c.entry, Dims: c.dims, ArgDims: c.shapes,
			Sweep: sw, Warmup: 1, Iters: 20, Check: true,
			Args: randArgs(c.dt, c.shapes, map[string]any{"tm": int64(32), "tn": int64(32)}),
		})
		if rep.Baseline != "" || rep.BaselineOp != "" || rep.BaselineDims != nil {
			t.Errorf("%s: baseline %q %q %v", c.file, rep.Baseline, rep.BaselineOp, rep.BaselineDims)
		}
		if r := rep.Rows[0]; r.Note != c.note || r.CublasMS != 0 || r.Ratio != 0 {
			t.Errorf("%s: row %+v, want the note %q", c.file, r, c.note)
		}
		if got := strings.Join(dev.Timed, " "); got != strings.TrimSpace(strings.Repeat("tilec_cold ", 21)) {
			t.Errorf("%s: timed %s", c.file, got)
		}
		tableHas(t, table, "\n        note: "+c.note+"\n")
		var js bytes.Buffer
		if err := bench.WriteJSON(&js, rep); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(js.String(), `"baseline`) || strings.Contains(js.String(), `"cublas_ms"`) {
			t.Errorf("%s: JSON names a baseline:\n%s", c.file, js.String())
		}
	}
}

// split_k_matmul.py launches two kernels where it splits K (no baseline:
// the note says why) and one GEMM where it does not (the baseline): the
// table has cuBLAS's columns, since its kernels do mma, with a "-" in the
// first row.
func TestRunEntrySplitKBaseline(t *testing.T) {
	// tiles = 4; K=256 has 8 k-tiles (split 2), K=64 has 2 (split 1).
	sw, err := bench.ParseSweep([]string{"M=64,N=64,K=256,64"}, "", nil, false)
	if err != nil {
		t.Fatal(err)
	}
	var cublasAt [][3]int
	dev := &benchtest.Device{MS: func(*ir.Func) float64 { return 0.002 },
		CublasMS: func(m, n, k int) float64 { cublasAt = append(cublasAt, [3]int{m, n, k}); return 0.001 }}
	shapes := map[string][]string{"A": {"M", "K"}, "B": {"K", "N"}}
	rep, table := entryTable(t, dev, &bench.EntryConfig{
		Program: loadProgram(t, "../../examples/cutile/split_k_matmul.py", nil), Entry: "split_k_matmul",
		Dims: []string{"M", "K", "N"}, ArgDims: shapes, Sweep: sw, Warmup: 1, Iters: 20, Check: true,
		Args: randArgs(ir.F16, shapes, map[string]any{"tm": int64(32), "tn": int64(32), "tk": int64(32)}),
	})
	split, one := rep.Rows[0], rep.Rows[1]
	note := "no cuBLAS baseline: split_k_matmul launches 2 kernels (partial_kernel, reduce_kernel), not one GEMM"
	if len(split.Launches) != 2 || split.Note != note || split.CublasMS != 0 {
		t.Errorf("split row %+v", split)
	}
	if len(one.Launches) != 1 || one.Launches[0].Kernel != "matmul_kernel" || one.Note != "" || one.CublasMS != 0.001 || one.Ratio != 0.5 {
		t.Errorf("one-launch row %+v", one)
	}
	if len(cublasAt) != 21 || cublasAt[0] != [3]int{64, 64, 64} {
		t.Errorf("cuBLAS timed at %v", cublasAt)
	}
	if rep.Baseline != "cuBLAS" || rep.BaselineOp != "gemm" || strings.Join(rep.BaselineDims, " ") != "M N K" {
		t.Errorf("report %+v", rep)
	}
	tableHas(t, table,
		"cuBLAS (when a repetition is one GEMM launch): cublasGemmEx (cublasGemmStridedBatchedEx for a batch) on that launch's buffers",
		"      M       K       N   tilec ms  TFLOP/s %peak  cuBLAS ms  TFLOP/s  ratio",
		"     64     256      64     0.0040      0.5    0%          -        -      - ",
		"        note: "+note+"\n",
		"     64      64      64     0.0020      0.3    0%     0.0010      0.5  0.500 ")
}

// A host function's torch.cuda queries see the device it is timed on, not
// the interpreter: attention.py picks its key tiles by compute capability
// (128 keys at D=64 on Hopper's wgmma kernel, 64 elsewhere).
func TestRunEntrySeesTheDevice(t *testing.T) {
	for _, c := range []struct {
		sm     int
		consts string
	}{{90, "tkv=128"}, {80, "tkv=64"}} {
		sw, err := bench.ParseSweep([]string{"B=1", "H=1", "S=128", "D=64"}, "", nil, false)
		if err != nil {
			t.Fatal(err)
		}
		dev := &benchtest.Device{SMVersion: c.sm, MS: func(*ir.Func) float64 { return 0.01 }}
		qkv := []string{"B", "H", "S", "D"}
		cfg := &bench.EntryConfig{
			Program: loadProgram(t, "../../examples/cutile/attention.py", nil), Entry: "attention", File: "attention.py",
			Dims: qkv, Sweep: sw, Warmup: 1, Iters: 1, Check: true,
			Args: randArgs(ir.F16, map[string][]string{"Q": qkv, "K": qkv, "V": qkv}, nil),
		}
		got, err := bench.RunEntry(dev, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if l := got.Rows[0].Launches; len(l) != 1 || !strings.Contains(l[0].Consts, c.consts) {
			t.Errorf("sm_%d: launches %+v, want %s", c.sm, l, c.consts)
		}
	}
}
