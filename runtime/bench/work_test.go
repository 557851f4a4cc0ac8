package bench

import (
	"errors"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/runtime"
	"github.com/tilec/tilec/runtime/compile"
)

// bind compiles an example with constants and binds random arguments of
// the dims given.
func bind(t *testing.T, path string, consts map[string]string, dims map[string]int64) *runtime.Binding {
	t.Helper()
	k, err := compile.File(path, compile.Options{Consts: consts})
	if err != nil {
		t.Fatal(err)
	}
	args, err := MakeArgs(k.Func, FillDims(k.Func, dims), nil, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	b, err := k.Bind(args, [3]int{})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestCountMatmul(t *testing.T) {
	b := bind(t, "../../testdata/kernels/matmul.tile", nil, map[string]int64{"M": 512, "N": 1024, "K": 256})
	w, err := Count(b)
	if err != nil {
		t.Fatal(err)
	}
	if want := 2.0 * 512 * 1024 * 256; w.FLOPs != want {
		t.Errorf("FLOPs = %g, want 2*M*N*K = %g", w.FLOPs, want)
	}
	// 4 x 4 blocks of 128x256: each reads a 128x256 strip of A and a
	// 256x256 strip of B (f16), and writes its 128x256 tile of C.
	blocks := 16.0
	if want := blocks * (128*256 + 256*256) * 2; w.LoadBytes != want {
		t.Errorf("LoadBytes = %g, want %g", w.LoadBytes, want)
	}
	if want := 512.0 * 1024 * 2; w.StoreBytes != want {
		t.Errorf("StoreBytes = %g, want %g", w.StoreBytes, want)
	}
	if want := (512.0*256 + 256*1024 + 512*1024) * 2; w.ArrayBytes != want {
		t.Errorf("ArrayBytes = %g, want %g", w.ArrayBytes, want)
	}
	// A and B are re-read by every block row and column: the compulsory
	// bytes count each array once.
	if want := (512.0*256 + 256*1024 + 512*1024) * 2; w.CompulsoryBytes != want {
		t.Errorf("CompulsoryBytes = %g, want %g", w.CompulsoryBytes, want)
	}
	if w.MMADType.String() != "f16" || !w.Exact() {
		t.Errorf("MMADType %s, exact %v", w.MMADType, w.Exact())
	}
}

// Partial tiles: loads and stores count the elements inside the arrays;
// mmas count whole tiles (the work the tensor cores do).
func TestCountPartialTiles(t *testing.T) {
	b := bind(t, "../../testdata/kernels/matmul.tile", map[string]string{"tm": "64", "tn": "64", "tk": "32"},
		map[string]int64{"M": 100, "N": 70, "K": 40})
	w, err := Count(b)
	if err != nil {
		t.Fatal(err)
	}
	// 2 x 2 blocks, 2 k-steps each, 64x64x32 per mma.
	if want := 2.0 * 2 * 2 * 2 * 64 * 64 * 32; w.FLOPs != want {
		t.Errorf("FLOPs = %g, want %g", w.FLOPs, want)
	}
	// Each block row reads its rows of A whole (K = 40), once per block column.
	if want := (2*100*40 + 2*40*70) * 2.0; w.LoadBytes != want {
		t.Errorf("LoadBytes = %g, want %g", w.LoadBytes, want)
	}
	if want := 100 * 70 * 2.0; w.StoreBytes != want {
		t.Errorf("StoreBytes = %g, want %g", w.StoreBytes, want)
	}
}

func TestCountSoftmax(t *testing.T) {
	b := bind(t, "../../testdata/kernels/softmax.tile", nil, map[string]int64{"M": 1000, "N": 300})
	w, err := Count(b)
	if err != nil {
		t.Fatal(err)
	}
	// Two passes over X, one write of Y (f32), no mma.
	if w.FLOPs != 0 || w.LoadBytes != 2*1000*300*4 || w.StoreBytes != 1000*300*4 {
		t.Errorf("softmax: %+v", w)
	}
}

// A causal mask that ends each block's loop early is counted per block.
func TestCountCausalAttention(t *testing.T) {
	b := bind(t, "../../testdata/kernels/attention.tile", map[string]string{"CAUSAL": "True"}, map[string]int64{"S": 256})
	w, err := Count(b)
	if err != nil {
		t.Fatal(err)
	}
	full := bind(t, "../../testdata/kernels/attention.tile", nil, map[string]int64{"S": 256})
	wf, err := Count(full)
	if err != nil {
		t.Fatal(err)
	}
	// 4 query blocks of 64; per key block two 64x64x64 mmas.
	per := 2 * 2.0 * 64 * 64 * 64
	if wf.FLOPs != 4*4*per {
		t.Errorf("full attention FLOPs = %g, want %g", wf.FLOPs, 4*4*per)
	}
	if w.FLOPs > wf.FLOPs {
		t.Errorf("causal attention FLOPs %g > full %g", w.FLOPs, wf.FLOPs)
	}
}

// Grids over countAllBlocks blocks are counted on a sample and scaled:
// exact for a uniform kernel.
func TestCountSampled(t *testing.T) {
	b := bind(t, "../../testdata/kernels/vector_add.tile", map[string]string{"tile": "16"}, map[string]int64{"N": 16 * 10000})
	w, err := Count(b)
	if err != nil {
		t.Fatal(err)
	}
	if w.Exact() || w.Counted != countSample {
		t.Errorf("counted %d of %d blocks", w.Counted, w.Blocks)
	}
	if w.LoadBytes != 2*16*10000*4 || w.StoreBytes != 16*10000*4 {
		t.Errorf("vector_add: %+v", w)
	}
}

// A loop bound computed from a float scalar is not counted (floats are
// not evaluated): an error, not a wrong figure.
func TestCountNotCountable(t *testing.T) {
	f, err := ir.ParseFunc(`kernel @k(%0 X: array<?xf32> [N], %1 s: f32)
    consts()
    grid(1, 1, 1) {
  %2 = convert %1 : i32
  %3 = const {value=0} : i32
  %4 = const {value=1} : i32
  for %3, %2, %4 {
    ^(%5: i32)
    %6 = load %0[%5] {pad=zero} : tile<16xf32>
    yield
  }
  return
}
`)
	if err != nil {
		t.Fatal(err)
	}
	k := runtime.NewKernel(f)
	b, err := k.Bind([]runtime.Arg{runtime.NewTensor(ir.F32, 64), 3.0}, [3]int{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Count(b); !errors.Is(err, ErrNotCountable) {
		t.Errorf("Count = %v, want ErrNotCountable", err)
	}
}
