package interp

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/runtime"
	"github.com/tilec/tilec/runtime/internal/irtest"
)

func TestLoadPadding(t *testing.T) {
	negZero := math.Copysign(0, -1)
	for _, tc := range []struct {
		pad  string
		want float64
	}{
		{ir.PadZero, 0}, {ir.PadNegZero, negZero}, {ir.PadNaN, nan},
		{ir.PadPosInf, math.Inf(1)}, {ir.PadNegInf, math.Inf(-1)},
	} {
		A := runtime.FromFloat64(ir.F32, []int{3, 3}, seq(9))
		C := runtime.NewTensor(ir.F32, 4, 4)
		C.Fill(7)
		if _, err := Launch(runtime.NewKernel(irtest.CopyTile(ir.F32, 4, 4, tc.pad)), []runtime.Arg{A, C}, runtime.LaunchOptions{}); err != nil {
			t.Fatal(err)
		}
		p := tc.want
		expect(t, tc.pad, C, 0, 1, 2, p, 3, 4, 5, p, 6, 7, 8, p, p, p, p, p)
	}
	// integer loads pad with the dtype's meaning of the mode
	for _, tc := range []struct {
		pad  string
		want float64
	}{{ir.PadZero, 0}, {ir.PadNegZero, 0}, {ir.PadPosInf, math.MaxInt32}, {ir.PadNegInf, math.MinInt32}} {
		A := runtime.FromFloat64(ir.I32, []int{1, 1}, []float64{5})
		C := runtime.NewTensor(ir.I32, 2, 2)
		if _, err := Launch(runtime.NewKernel(irtest.CopyTile(ir.I32, 2, 2, tc.pad)), []runtime.Arg{A, C}, runtime.LaunchOptions{}); err != nil {
			t.Fatal(err)
		}
		expect(t, "i32 "+tc.pad, C, 5, tc.want, tc.want, tc.want)
	}
}

// Partial tiles on every edge: loads pad, stores drop, and every element of
// an odd-sized array is copied exactly once, for all dtypes.
func TestCopyOddSizes(t *testing.T) {
	for _, d := range []ir.DType{ir.F16, ir.BF16, ir.F32, ir.TF32, ir.F64, ir.I32, ir.I64, ir.Bool} {
		rng := rand.New(rand.NewPCG(3, 4))
		A := runtime.RandNormal(rng, d, 37, 21)
		C := runtime.NewTensor(d, 37, 21)
		C.Fill(nan)
		pad := ir.PadNaN
		if !d.IsFloat() {
			pad = ir.PadNegInf
		}
		if _, err := Launch(runtime.NewKernel(irtest.CopyTile(d, 8, 16, pad)), []runtime.Arg{A, C}, runtime.LaunchOptions{}); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(A.Data, C.Data) {
			t.Errorf("%s: copy differs", d)
		}
	}
}

func TestStridedViews(t *testing.T) {
	// A is the transpose of a contiguous 5x3 array: logical 3x5.
	base := runtime.FromFloat64(ir.F32, []int{5, 3}, seq(15))
	A := base.Transpose()
	C := runtime.NewTensor(ir.F32, 3, 5)
	if _, err := Launch(runtime.NewKernel(irtest.CopyTile(ir.F32, 2, 4, ir.PadZero)), []runtime.Arg{A, C}, runtime.LaunchOptions{}); err != nil {
		t.Fatal(err)
	}
	expect(t, "transposed load", C, A.Float64s()...)
	// Store through a transposed view of the output.
	outBase := runtime.NewTensor(ir.F32, 5, 3)
	src := runtime.FromFloat64(ir.F32, []int{3, 5}, seq(15))
	if _, err := Launch(runtime.NewKernel(irtest.CopyTile(ir.F32, 2, 4, ir.PadZero)), []runtime.Arg{src, outBase.Transpose()}, runtime.LaunchOptions{}); err != nil {
		t.Fatal(err)
	}
	expect(t, "transposed store", outBase.Transpose(), seq(15)...)
	// A view with an offset and a row stride larger than the row (a window of a bigger array).
	big := runtime.FromFloat64(ir.F16, []int{6, 8}, seq(48))
	win, err := big.View([]int{3, 5}, []int{16, 1})
	if err != nil {
		t.Fatal(err)
	}
	win.Offset = 2
	C2 := runtime.NewTensor(ir.F16, 3, 5)
	if _, err := Launch(runtime.NewKernel(irtest.CopyTile(ir.F16, 4, 2, ir.PadZero)), []runtime.Arg{win, C2}, runtime.LaunchOptions{}); err != nil {
		t.Fatal(err)
	}
	expect(t, "window", C2, 2, 3, 4, 5, 6, 18, 19, 20, 21, 22, 34, 35, 36, 37, 38)
	// A broadcast view (stride 0).
	row := runtime.FromFloat64(ir.F32, []int{1, 4}, []float64{1, 2, 3, 4})
	bc, err := row.View([]int{3, 4}, []int{0, 1})
	if err != nil {
		t.Fatal(err)
	}
	C3 := runtime.NewTensor(ir.F32, 3, 4)
	if _, err := Launch(runtime.NewKernel(irtest.CopyTile(ir.F32, 2, 2, ir.PadZero)), []runtime.Arg{bc, C3}, runtime.LaunchOptions{}); err != nil {
		t.Fatal(err)
	}
	expect(t, "broadcast view", C3, 1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4)
}

func TestMatmulTransposedOperand(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	A := runtime.RandNormal(rng, ir.F16, 40, 30)
	Bt := runtime.RandNormal(rng, ir.F16, 50, 40) // B = Bt^T is 40x50, column-major
	B := Bt.Transpose()
	C := runtime.NewTensor(ir.F16, 30, 50)
	// C = A^T @ B with A^T a transposed view too.
	k := runtime.NewKernel(irtest.Matmul(ir.F16, 16, 32, 16, 2))
	if _, err := Launch(k, []runtime.Arg{A.Transpose(), B, C}, runtime.LaunchOptions{}); err != nil {
		t.Fatal(err)
	}
	checkClose(t, "C", C.Float64s(), refMatmul(A.Transpose(), B), 1e-2)
}

func TestParallelMatchesSerial(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	A := runtime.RandNormal(rng, ir.BF16, 100, 70)
	B := runtime.RandNormal(rng, ir.BF16, 70, 90)
	k := runtime.NewKernel(irtest.Matmul(ir.BF16, 16, 32, 16, 3))
	var outs [][]byte
	for _, w := range []int{1, 2, 7} {
		C := runtime.NewTensor(ir.BF16, 100, 90)
		C.Fill(nan)
		res, err := CPU{Workers: w}.Launch(k, []runtime.Arg{A, B, C}, runtime.LaunchOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Blocks != 7*3 || res.Grid != [3]int{21, 1, 1} || res.Dims["K"] != 70 {
			t.Errorf("result %+v", res)
		}
		outs = append(outs, C.Data)
	}
	for i := 1; i < len(outs); i++ {
		if !bytes.Equal(outs[0], outs[i]) {
			t.Errorf("run %d differs from the serial run", i)
		}
	}
}

func TestGridOverrideAndBlocks(t *testing.T) {
	A := runtime.FromFloat64(ir.F32, []int{4, 4}, seq(16))
	C := runtime.NewTensor(ir.F32, 4, 4)
	C.Fill(-1)
	k := runtime.NewKernel(irtest.CopyTile(ir.F32, 2, 2, ir.PadZero))
	// Only block (1,0): rows 2-3, cols 0-1.
	res, err := Launch(k, []runtime.Arg{A, C}, runtime.LaunchOptions{Blocks: [][3]int{{1, 0, 0}}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Blocks != 1 {
		t.Errorf("ran %d blocks", res.Blocks)
	}
	expect(t, "one block", C, -1, -1, -1, -1, -1, -1, -1, -1, 8, 9, -1, -1, 12, 13, -1, -1)
	C.Fill(-1)
	if _, err := Launch(k, []runtime.Arg{A, C}, runtime.LaunchOptions{Grid: [3]int{1}}); err != nil {
		t.Fatal(err)
	}
	expect(t, "grid (1,1,1)", C, 0, 1, -1, -1, 4, 5, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1)
	if _, err := Launch(k, []runtime.Arg{A, C}, runtime.LaunchOptions{Blocks: [][3]int{{2, 0, 0}}}); err == nil ||
		!strings.Contains(err.Error(), "outside the grid") {
		t.Errorf("block outside the grid: %v", err)
	}
}

func TestScalarParams(t *testing.T) {
	k := irtest.NewBuilder("axpy")
	X := k.Array("X", ir.F32, "N")
	Y := k.Array("Y", ir.F32, "N")
	alpha := k.ScalarParam("alpha", ir.F32)
	n := k.ScalarParam("n", ir.I32)
	k.F.Grid[0] = &ir.HostExpr{Op: ir.HostCdiv, Args: []*ir.HostExpr{irtest.Sym("N"), irtest.HConst(4)}}
	bid := k.Op(ir.OpBlockID, ir.ScalarOf(ir.I32), map[string]any{"axis": 0})
	x := k.Load(X, []int{4}, ir.PadZero, bid)
	a := k.Op(ir.OpSplat, x.Type, nil, alpha)
	nf := k.Op(ir.OpConvert, ir.ScalarOf(ir.F32), nil, n)
	y := k.Bin(ir.OpAdd, k.Bin(ir.OpMul, a, x), k.Op(ir.OpSplat, x.Type, nil, nf))
	k.Store(Y, y, bid)
	kern := runtime.NewKernel(k.Ret())
	Xt := vec(ir.F32, 1, 2, 3, 4, 5, 6)
	Yt := runtime.NewTensor(ir.F32, 6)
	if _, err := Launch(kern, []runtime.Arg{Xt, Yt, 0.5, 10}, runtime.LaunchOptions{}); err != nil {
		t.Fatal(err)
	}
	expect(t, "axpy", Yt, 10.5, 11, 11.5, 12, 12.5, 13)
	for _, tc := range []struct {
		args []runtime.Arg
		want string
	}{
		{[]runtime.Arg{Xt, Yt, 0.5}, "axpy takes 4 arguments (X, Y, alpha, n), got 3"},
		{[]runtime.Arg{Xt, Yt, "x", 1}, "argument alpha: want a f32 scalar, got string"},
		{[]runtime.Arg{Xt, Yt, 0.5, 1.5}, "argument n: want an integer for i32, got float64"},
		{[]runtime.Arg{Xt, Yt, 0.5, int64(1) << 40}, "argument n: 1099511627776 overflows i32"},
		{[]runtime.Arg{Xt, 1.0, 0.5, 1}, "argument Y: want an array (*runtime.Tensor), got float64"},
	} {
		_, err := Launch(kern, tc.args, runtime.LaunchOptions{})
		if err == nil || err.Error() != tc.want {
			t.Errorf("got error %v, want %q", err, tc.want)
		}
	}
}

func TestLaunchErrors(t *testing.T) {
	mm := runtime.NewKernel(irtest.Matmul(ir.F16, 128, 256, 64, 8))
	f16 := func(shape ...int) *runtime.Tensor { return runtime.NewTensor(ir.F16, shape...) }
	for _, tc := range []struct {
		args []runtime.Arg
		want string
	}{
		{[]runtime.Arg{f16(4, 4), f16(4, 4)}, "matmul takes 3 arrays (A, B, C), got 2"},
		{[]runtime.Arg{f16(4, 4), runtime.NewTensor(ir.F32, 4, 4), f16(4, 4)}, "argument B: dtype f32, kernel declares f16"},
		{[]runtime.Arg{f16(4, 4), f16(4, 4, 1), f16(4, 4)}, "argument B: rank 3 (shape [4 4 1]), kernel declares rank 2 (K, N)"},
		{[]runtime.Arg{f16(256, 256), f16(512, 64), f16(256, 64)}, "argument B: dimension K is 512 but A gives 256"},
		{[]runtime.Arg{f16(256, 256), f16(256, 64), f16(256, 32)}, "argument C: dimension N is 32 but B gives 64"},
		{[]runtime.Arg{f16(0, 256), f16(256, 64), f16(0, 64)}, "grid is empty: axis x is cdiv(M, 128) * cdiv(N, 256) = 0 with M=0; a launch needs at least one block on each axis"},
		{[]runtime.Arg{f16(4, 4), (*runtime.Tensor)(nil), f16(4, 4)}, "argument B: nil tensor"},
		{[]runtime.Arg{f16(4, 4), &runtime.Tensor{DType: ir.F16, Shape: []int{4, 4}, Strides: []int{4, 1}, Data: make([]byte, 8)}, f16(4, 4)},
			"argument B: shape [4 4] with strides [4 1] and offset 0 reaches elements [0, 15], outside the storage's 4"},
	} {
		_, err := Launch(mm, tc.args, runtime.LaunchOptions{})
		if err == nil || err.Error() != tc.want {
			t.Errorf("got error %v\nwant %q", err, tc.want)
		}
	}
	// A literal dim.
	k := irtest.NewBuilder("fixed")
	k.Array("A", ir.F32, "M", 64)
	k.F.Grid[0] = irtest.HConst(1)
	_, err := Launch(runtime.NewKernel(k.Ret()), []runtime.Arg{runtime.NewTensor(ir.F32, 3, 30)}, runtime.LaunchOptions{})
	if want := "argument A: dimension 1 is 30 but the kernel declares 64"; err == nil || err.Error() != want {
		t.Errorf("got %v, want %q", err, want)
	}
	// No grid.
	k = irtest.NewBuilder("nogrid")
	k.Array("A", ir.F32, "M")
	_, err = Launch(runtime.NewKernel(k.Ret()), []runtime.Arg{runtime.NewTensor(ir.F32, 3)}, runtime.LaunchOptions{})
	if want := "nogrid declares no grid: pass LaunchOptions.Grid"; err == nil || err.Error() != want {
		t.Errorf("got %v, want %q", err, want)
	}
}

func TestOutOfBoundsTile(t *testing.T) {
	// A kernel that loads tile (bid+2, 0) of A: block 3 reads tile row 5.
	k := irtest.NewBuilder("oob")
	A := k.Array("A", ir.F16, "M", "K")
	k.F.Grid[0] = irtest.HConst(4)
	bid := k.Op(ir.OpBlockID, ir.ScalarOf(ir.I32), map[string]any{"axis": 0})
	row := k.Bin(ir.OpAdd, bid, k.CInt(2))
	k.Load(A, []int{128, 64}, ir.PadZero, row, k.CInt(0))
	kern := runtime.NewKernel(k.Ret())
	_, err := Launch(kern, []runtime.Arg{runtime.NewTensor(ir.F16, 512, 256)}, runtime.LaunchOptions{})
	want := "block (2,0,0): load of A at tile index (4, 0) with shape (128, 64) lies entirely outside A's shape (512, 256)"
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %q", err, want)
	}
	_, err = Launch(kern, []runtime.Arg{runtime.NewTensor(ir.F16, 512, 256)}, runtime.LaunchOptions{Blocks: [][3]int{{3, 0, 0}}})
	want = "block (3,0,0): load of A at tile index (5, 0) with shape (128, 64) lies entirely outside A's shape (512, 256)"
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %q", err, want)
	}
	// Negative tile index, on a store.
	k = irtest.NewBuilder("neg")
	C := k.Array("C", ir.F32, "N")
	k.F.Grid[0] = irtest.HConst(1)
	z := k.Op(ir.OpSplat, ir.TileOf(ir.F32, 4), nil, k.CFloat(ir.F32, 0))
	k.Store(C, z, k.CInt(-1))
	_, err = Launch(runtime.NewKernel(k.Ret()), []runtime.Arg{runtime.NewTensor(ir.F32, 8)}, runtime.LaunchOptions{})
	want = "block (0,0,0): store of C at tile index (-1) with shape (4) lies entirely outside C's shape (8)"
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %q", err, want)
	}
}

func TestCompileErrors(t *testing.T) {
	k := irtest.NewBuilder("bad")
	A := k.Array("A", ir.F32, "N")
	k.F.Grid[0] = irtest.HConst(1)
	x := k.Load(A, []int{4}, "sideways", k.CInt(0))
	_ = x
	_, err := Launch(runtime.NewKernel(k.Ret()), []runtime.Arg{runtime.NewTensor(ir.F32, 4)}, runtime.LaunchOptions{})
	if want := "interpreter: kernel is not valid IR: ir: kernel @bad: `%2 = load %0[%1] {pad=sideways} : tile<4xf32>`: attribute pad=sideways, want one of zero, neg_zero, nan, pos_inf, neg_inf"; err == nil || err.Error() != want {
		t.Errorf("got %v, want %q", err, want)
	}
	k = irtest.NewBuilder("bad2")
	a := k.Op(ir.OpSplat, ir.TileOf(ir.F32, 4), nil, k.CFloat(ir.F32, 0))
	k.Op(ir.OpMMA, ir.TileOf(ir.F32, 4), nil, a, a, a)
	k.F.Grid[0] = irtest.HConst(1)
	_, err = Launch(runtime.NewKernel(k.Ret()), nil, runtime.LaunchOptions{})
	if err == nil || !strings.Contains(err.Error(), "mma ranks 1, 1, 1, want all 2 or all 3") {
		t.Errorf("got %v", err)
	}
}
