package interp

import (
	"context"
	"errors"
	"math"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/runtime"
	"github.com/tilec/tilec/runtime/internal/irtest"
)

// Sizes from users are checked before anything is allocated: a byte count
// that overflows is an error, not a short buffer; one that exceeds the
// host's memory is an error with the bytes, not Go's fatal out-of-memory.
func TestAllocSizes(t *testing.T) {
	for _, tc := range []struct {
		shape []int
		want  string
	}{
		{[]int{1 << 62, 4}, "overflows 64 bits"},
		{[]int{1 << 31, 1 << 31, 1 << 2}, "overflows 64 bits"},
		{[]int{math.MaxInt}, "overflows 64 bits"},
		{[]int{-1, 4}, "negative dimension"},
		{[]int{1 << 40}, "needs 4398046511104 bytes (4.0 TiB), more than the host memory available (1048576 bytes (1.0 MiB))"},
	} {
		old := runtime.HostMemoryLimit
		runtime.HostMemoryLimit = 1 << 20
		_, err := runtime.AllocTensor(ir.F32, tc.shape...)
		runtime.HostMemoryLimit = old
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("AllocTensor(f32, %v) = %v, want an error containing %q", tc.shape, err, tc.want)
		}
	}
	n, err := runtime.ShapeBytes(ir.F16, []int{0, 1 << 62, 1 << 62})
	if n != 0 || err != nil {
		t.Errorf("ShapeBytes of an empty shape = %d, %v; want 0, nil", n, err)
	}
	func() {
		defer func() {
			if r := recover(); r == nil || !strings.Contains(r.(string), "overflows") {
				t.Errorf("NewTensor with an overflowing shape: recovered %v", r)
			}
		}()
		runtime.NewTensor(ir.F32, 1<<62, 4)
	}()
	var se *runtime.SizeError
	if _, err := runtime.AllocTensor(ir.F32, 1<<62, 4); !errors.As(err, &se) {
		t.Errorf("AllocTensor overflow: %T is not a *SizeError", err)
	}
}

// A view whose stride arithmetic overflows must not pass the bounds check
// by wrapping back into the storage.
func TestViewStrideOverflow(t *testing.T) {
	base := runtime.NewTensor(ir.F32, 4)
	for _, tc := range []struct {
		shape, strides []int
	}{
		{[]int{3, 2}, []int{math.MaxInt / 2, 1}},
		{[]int{2}, []int{math.MinInt}},
		{[]int{1 << 32, 1 << 32}, []int{1 << 32, 1}},
		{[]int{5}, []int{1 << 62}}, // (5-1) * 2^62 wraps to 0
	} {
		if v, err := base.View(tc.shape, tc.strides); err == nil {
			t.Errorf("View(%v, %v) = %v, want an error", tc.shape, tc.strides, v)
		}
	}
}

// Array dims are i32 in kernels (the PTX ABI passes them as .s32, and
// X.shape[0] is an i32): a dim of 2^31 or more is an error at bind time
// naming the argument and axis, not a negative shape.
func TestBindI32Dims(t *testing.T) {
	k := irtest.NewBuilder("dims")
	X := k.Array("X", ir.F32, "M", "N")
	k.F.Grid[0] = irtest.HConst(1)
	_ = X
	kern := runtime.NewKernel(k.Ret())
	// A broadcast view: 2^31 rows over 4 elements of storage.
	big := &runtime.Tensor{DType: ir.F32, Shape: []int{4, 1 << 31}, Strides: []int{1, 0}, Data: make([]byte, 16)}
	_, err := kern.Bind([]runtime.Arg{big}, [3]int{})
	if err == nil || !strings.Contains(err.Error(), "argument X: dimension 1 is 2147483648") {
		t.Errorf("Bind with a 2^31 dim: %v", err)
	}
	ok := &runtime.Tensor{DType: ir.F32, Shape: []int{4, math.MaxInt32}, Strides: []int{1, 0}, Data: make([]byte, 16)}
	if _, err := kern.Bind([]runtime.Arg{ok}, [3]int{}); err != nil {
		t.Errorf("Bind with a 2^31-1 dim: %v", err)
	}
}

// A tile index whose element offset overflows 64 bits lies outside the
// array; before, 2^62 * 4 wrapped to 0 and loaded the first tile.
func TestTileIndexOverflow(t *testing.T) {
	k := irtest.NewBuilder("far")
	X := k.Array("X", ir.F32, "N")
	Y := k.Array("Y", ir.F32, "N")
	i := k.ScalarParam("i", ir.I64)
	k.F.Grid[0] = irtest.HConst(1)
	k.Store(Y, k.Load(X, []int{4}, ir.PadZero, i), k.CInt(0))
	kern := runtime.NewKernel(k.Ret())
	X0 := runtime.FromFloat64(ir.F32, []int{8}, seq(8))
	Y0 := runtime.NewTensor(ir.F32, 8)
	_, err := CPU{}.Launch(kern, []runtime.Arg{X0, Y0, int64(1) << 62}, runtime.LaunchOptions{})
	if err == nil || !strings.Contains(err.Error(), "lies entirely outside") {
		t.Errorf("load at tile index 2^62: err = %v, Y = %v", err, Y0.Float64s())
	}
}

// Explicit grids (LaunchOptions.Grid) get the same limits as declared ones.
func TestGridLimits(t *testing.T) {
	k := irtest.NewBuilder("g")
	k.Array("X", ir.F32, "N")
	k.F.Grid[0] = irtest.Sym("N")
	kern := runtime.NewKernel(k.Ret())
	X := runtime.NewTensor(ir.F32, 4)
	for _, tc := range []struct {
		grid [3]int
		want string
	}{
		{[3]int{1, 65536, 1}, "grid [1 65536 1]: axis y has 65536 blocks, more than the 65535 a launch allows"},
		{[3]int{1, 1, 1 << 40}, "axis z has 1099511627776 blocks"},
		{[3]int{1 << 31, 0, 0}, "grid [2147483648 1 1]: axis x has 2147483648 blocks"},
		{[3]int{-1, 1, 1}, "negative extent"},
	} {
		_, err := CPU{}.Launch(kern, []runtime.Arg{X}, runtime.LaunchOptions{Grid: tc.grid})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("grid %v: %v, want %q", tc.grid, err, tc.want)
		}
	}
}

// A context stops the interpreter inside a loop of 2^60 iterations, with a
// *StoppedError that wraps the context's error; progress is reported.
func TestLaunchContext(t *testing.T) {
	k := irtest.NewBuilder("forever")
	X := k.Array("X", ir.I64, 4)
	k.F.Grid[0] = irtest.HConst(3)
	i64 := ir.ScalarOf(ir.I64)
	lo := k.Op(ir.OpConst, i64, map[string]any{"value": int64(0)})
	hi := k.Op(ir.OpConst, i64, map[string]any{"value": int64(1) << 60})
	one := k.Op(ir.OpConst, i64, map[string]any{"value": int64(1)})
	acc := k.ForLoop(lo, hi, one, []*ir.Value{lo}, func(iv *ir.Value, c []*ir.Value) []*ir.Value {
		return []*ir.Value{k.Bin(ir.OpAdd, c[0], one)}
	})
	tl := k.Op(ir.OpSplat, ir.TileOf(ir.I64, 4), nil, acc[0])
	k.Store(X, tl, k.CInt(0))
	kern := runtime.NewKernel(k.Ret())
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	var reports atomic.Int32
	start := time.Now()
	_, err := CPU{}.Launch(kern, []runtime.Arg{runtime.NewTensor(ir.I64, 4)}, runtime.LaunchOptions{Context: ctx,
		Progress: func(p runtime.Progress) {
			if p.Total != 3 || p.Done != 0 {
				t.Errorf("progress %+v", p)
			}
			reports.Add(1)
		}, ProgressEvery: 20 * time.Millisecond})
	var se *StoppedError
	if !errors.As(err, &se) || !errors.Is(err, context.DeadlineExceeded) || se.Done != 0 || se.Total != 3 {
		t.Fatalf("err = %v, want a *StoppedError after 0 of 3 blocks wrapping the deadline", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("stopping took %s", d)
	}
	if reports.Load() == 0 {
		t.Errorf("no progress reported")
	}
	// A context already done starts nothing.
	cancel()
	if _, err := (CPU{}).Launch(kern, []runtime.Arg{runtime.NewTensor(ir.I64, 4)}, runtime.LaunchOptions{Context: ctx}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("done context: %v", err)
	}
}
