package interp

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/lower"
	"github.com/tilec/tilec/runtime"
	"github.com/tilec/tilec/runtime/compile"
)

// The int8 GEMMs of the GPU cases (runtime/testdata/kernels/int8_matmul.tile)
// on the interpreter, against products summed here in int64 and wrapped to
// int32 by Go's conversion (two's complement, as integer mma.sync without
// .satfinite adds).

// randBytes is a tensor of dtype d (int8 or uint8) with every byte drawn
// uniformly, so the extremes -128, 127 and 255 all occur.
func randBytes(rng *rand.Rand, d ir.DType, shape ...int) *runtime.Tensor {
	t := runtime.NewTensor(d, shape...)
	for i := range t.Data {
		t.Data[i] = byte(rng.Uint32())
	}
	return t
}

// byteValue is the value of element e of an int8 or uint8 tensor.
func byteValue(t *runtime.Tensor, e int) int64 {
	if t.DType == ir.U8 {
		return int64(t.Data[e])
	}
	return int64(int8(t.Data[e]))
}

// refInt8Matmul is c0 + a@b for a (M, K) and b (K, N), or b (N, K) used
// transposed when bt, each sum exact in int64 and then wrapped to int32.
func refInt8Matmul(a, b *runtime.Tensor, c0 []int32, M, N, K int, bt bool) []int32 {
	out := make([]int32, M*N)
	for i := 0; i < M; i++ {
		for j := 0; j < N; j++ {
			var s int64
			if c0 != nil {
				s = int64(c0[i*N+j])
			}
			for k := 0; k < K; k++ {
				be := k*N + j
				if bt {
					be = j*K + k
				}
				s += byteValue(a, i*K+k) * byteValue(b, be)
			}
			out[i*N+j] = int32(s)
		}
	}
	return out
}

func compileInt8(t *testing.T, kernel string, consts map[string]string) *runtime.Kernel {
	t.Helper()
	k, err := compile.File("../testdata/kernels/int8_matmul.tile", compile.Options{Kernel: kernel, Consts: consts})
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func checkInt32(t *testing.T, name string, got *runtime.Tensor, want []int32) {
	t.Helper()
	bad := 0
	for e, w := range want {
		if g := got.ElemIntAt(e); g != int64(w) {
			if bad++; bad <= 10 {
				t.Errorf("%s[%d] = %d, want %d", name, e, g, w)
			}
		}
	}
	if bad > 10 {
		t.Errorf("%s: %d of %d elements differ", name, bad, len(want))
	}
}

// TestInt8MatmulKernel: int8_matmul (B as (K, N)) for every pair of int8
// and uint8 inputs, at an aligned size and the ragged 127x129x65 (partial
// tiles in M, N and K, zero-padded).
func TestInt8MatmulKernel(t *testing.T) {
	for _, c := range []struct {
		ta, tb  ir.DType
		M, N, K int
	}{
		{ir.I8, ir.I8, 128, 64, 192},
		{ir.I8, ir.I8, 127, 129, 65},
		{ir.I8, ir.U8, 127, 129, 65},
		{ir.U8, ir.I8, 65, 127, 129},
		{ir.U8, ir.U8, 127, 129, 65},
	} {
		t.Run(fmt.Sprintf("%vx%v_%dx%dx%d", c.ta, c.tb, c.M, c.N, c.K), func(t *testing.T) {
			k := compileInt8(t, "int8_matmul", map[string]string{"TA": c.ta.String(), "TB": c.tb.String()})
			rng := rand.New(rand.NewPCG(uint64(c.M), uint64(c.K)))
			A, B := randBytes(rng, c.ta, c.M, c.K), randBytes(rng, c.tb, c.K, c.N)
			C := runtime.NewTensor(ir.I32, c.M, c.N)
			if _, err := (CPU{}).Launch(k, []runtime.Arg{A, B, C}, runtime.LaunchOptions{}); err != nil {
				t.Fatal(err)
			}
			checkInt32(t, "C", C, refInt8Matmul(A, B, nil, c.M, c.N, c.K, false))
		})
	}
}

// TestInt8MatmulBTWraps: int8_matmul_bt (B as (N, K), used transposed)
// accumulates onto C's values; starting within 2**14 of the int32 limits,
// most sums leave int32's range and must wrap, not saturate. With -D
// bias=2147483647 (the GPU case's way there) C's small values are moved
// next to the limits in the kernel, the add wrapping too.
func TestInt8MatmulBTWraps(t *testing.T) {
	const M, N, K = 127, 129, 65
	for _, tc := range []struct {
		tb   ir.DType
		bias int32
	}{{ir.I8, 0}, {ir.U8, 0}, {ir.U8, math.MaxInt32}} {
		t.Run(fmt.Sprintf("%v/bias=%d", tc.tb, tc.bias), func(t *testing.T) {
			k := compileInt8(t, "int8_matmul_bt", map[string]string{"TB": tc.tb.String(), "bias": fmt.Sprint(tc.bias)})
			rng := rand.New(rand.NewPCG(127, 65))
			A, B := randBytes(rng, ir.I8, M, K), randBytes(rng, tc.tb, N, K)
			C := runtime.NewTensor(ir.I32, M, N)
			c0 := make([]int32, M*N)
			for e := range c0 {
				var c int32
				switch {
				case tc.bias != 0:
					c = int32(rng.IntN(64)) - 32
				case e%2 == 0:
					c = math.MaxInt32 - int32(rng.IntN(1<<14))
				default:
					c = math.MinInt32 + int32(rng.IntN(1<<14))
				}
				C.SetElemIntAt(e, int64(c))
				c0[e] = c + tc.bias // wraps as the kernel's add does
			}
			want := refInt8Matmul(A, B, c0, M, N, K, true)
			wrapped := 0
			for e, w := range want {
				if (w < 0) != (c0[e] < 0) {
					wrapped++
				}
			}
			if wrapped < M*N/4 {
				t.Fatalf("only %d of %d sums wrap; the test does not test wrapping", wrapped, M*N)
			}
			if _, err := (CPU{}).Launch(k, []runtime.Arg{A, B, C}, runtime.LaunchOptions{}); err != nil {
				t.Fatal(err)
			}
			checkInt32(t, "C", C, want)
		})
	}
}

// TestInt8MatmulSmall: int8_matmul_small, an 8x8x16 mma of int8 by uint8
// onto 7 and ct.matmul's int8 product A @ D^T, wrapped to int8.
func TestInt8MatmulSmall(t *testing.T) {
	const M, N, K = 8, 8, 16
	k := compileInt8(t, "int8_matmul_small", nil)
	rng := rand.New(rand.NewPCG(8, 16))
	A, B, D := randBytes(rng, ir.I8, M, K), randBytes(rng, ir.U8, K, N), randBytes(rng, ir.I8, M, K)
	C, E := runtime.NewTensor(ir.I32, M, N), runtime.NewTensor(ir.I8, M, M)
	if _, err := (CPU{}).Launch(k, []runtime.Arg{A, B, C, D, E}, runtime.LaunchOptions{}); err != nil {
		t.Fatal(err)
	}
	seven := make([]int32, M*N)
	for e := range seven {
		seven[e] = 7
	}
	checkInt32(t, "C", C, refInt8Matmul(A, B, seven, M, N, K, false))
	want := refInt8Matmul(A, D, nil, M, M, K, true)
	for e, w := range want {
		if g := int8(E.Data[e]); g != int8(w) {
			t.Errorf("E[%d] = %d, want %d (the int32 sum %d wrapped to int8)", e, g, int8(w), w)
		}
	}
}

// lower's pad pass widens int8 mma tiles below the instruction's 16x16x32
// (K to 32, the one-byte k-step) with integer zeros: the padded kernel,
// run here as tile IR, gives the original's int32 results exactly.
func TestPadMMAInt8KeepsResults(t *testing.T) {
	for _, tc := range []struct {
		kernel  string
		consts  map[string]string
		M, N, K int
	}{
		{"int8_matmul_small", nil, 8, 8, 16},
		{"int8_matmul", map[string]string{"TA": "u8", "tm": "8", "tn": "16", "tk": "16"}, 37, 30, 50},
		{"int8_matmul_bt", map[string]string{"TB": "u8", "tm": "16", "tn": "8", "tk": "8"}, 37, 30, 50},
	} {
		t.Run(fmt.Sprintf("%s/%v", tc.kernel, tc.consts), func(t *testing.T) {
			k := compileInt8(t, tc.kernel, tc.consts)
			g := lower.Clone(k.Func)
			if err := lower.PadMMA(g, lower.MustTarget("sm_80")); err != nil {
				t.Fatal(err)
			}
			if err := ir.Verify(g); err != nil {
				t.Fatalf("padded kernel: %v", err)
			}
			n := 0
			g.Body.Walk(func(in *ir.Instr) {
				if in.Op == ir.OpMMA {
					n++
					s := in.Result().Type.(*ir.Tile).Shape
					if k := in.Args[0].Type.(*ir.Tile).Shape[1]; s[0]%16 != 0 || s[1]%16 != 0 || k%32 != 0 {
						t.Errorf("mma %dx%dx%d left below 16x16x32", s[0], s[1], k)
					}
				}
			})
			if n == 0 {
				t.Fatal("no mma")
			}
			run := func(kern *runtime.Kernel) []runtime.Arg {
				rng := rand.New(rand.NewPCG(37, 50))
				var args []runtime.Arg
				for _, p := range kern.Func.Params {
					at := p.Type.(*ir.Array)
					shape := map[string][]int{"A": {tc.M, tc.K}, "B": {tc.K, tc.N}, "C": {tc.M, tc.N}, "D": {tc.M, tc.K}, "E": {tc.M, tc.M}}[p.Name]
					if tc.kernel == "int8_matmul_bt" && p.Name == "B" {
						shape = []int{tc.N, tc.K}
					}
					if at.DType == ir.I32 {
						args = append(args, runtime.RandNormal(rng, ir.I32, shape...))
					} else {
						args = append(args, randBytes(rng, at.DType, shape...))
					}
				}
				if _, err := (CPU{}).Launch(kern, args, runtime.LaunchOptions{}); err != nil {
					t.Fatal(err)
				}
				return args
			}
			want, got := run(k), run(runtime.NewKernel(g))
			for i := range want {
				w, x := want[i].(*runtime.Tensor), got[i].(*runtime.Tensor)
				if !slices.Equal(w.Data, x.Data) {
					t.Errorf("%s differs between the padded kernel and the original", k.Func.Params[i].Name)
				}
			}
		})
	}
}
