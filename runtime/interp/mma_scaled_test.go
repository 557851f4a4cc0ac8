package interp

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/lower"
	"github.com/tilec/tilec/runtime"
	"github.com/tilec/tilec/runtime/compile"
)

// runScaledMatmul compiles runtime/testdata/kernels/mma_scaled.tile (tiles of
// 32x32 over K tiles of 64: two scale blocks per K tile) and runs it over A (M,K), its
// scales (M,K/32), B (K,N) and its scales (K/32,N), returning C. With
// expanded it runs the kernel as lower's scaled pass rewrites it for the
// GPU (one float8 mma per scale block), so that the rewrite's arithmetic is
// checked here too.
func runScaledMatmul(t *testing.T, A, AS, B, BS *runtime.Tensor, expanded bool) *runtime.Tensor {
	t.Helper()
	path := "../testdata/kernels/mma_scaled.tile"
	M, N := A.Shape[0], B.Shape[1]
	k, err := compile.File(path, compile.Options{Kernel: "scaled_mm",
		Consts: map[string]string{"tm": "32", "tn": "32", "tk": "64"}})
	if err != nil {
		t.Fatal(err)
	}
	C := runtime.NewTensor(ir.F32, M, N)
	args := []runtime.Arg{A, AS, B, BS, C}
	if expanded {
		if k, err = k.Specialize(args); err != nil {
			t.Fatal(err)
		}
		vs, err := lower.LowerVariants(k.Func, lower.MustTarget("sm_80"), lower.Options{StopAfter: "scaled", Verify: true})
		if err != nil {
			t.Fatal(err)
		}
		g := vs[0].Func
		g.Body.Walk(func(in *ir.Instr) {
			if in.Op == ir.OpMMAScaled {
				t.Fatalf("mma_scaled left after the scaled pass:\n%s", ir.Print(g))
			}
		})
		k = runtime.NewKernel(g)
	}
	grid := [3]int{(M + 31) / 32, (N + 31) / 32, 1}
	if _, err := (CPU{}).Launch(k, args, runtime.LaunchOptions{Grid: grid}); err != nil {
		t.Fatal(err)
	}
	return C
}

// scaledRef is the float64 reference of (A*AS) @ (B*BS), scales repeated
// over 32 elements along K, and the sum of the products' magnitudes (for
// the float32 accumulation's error bound).
func scaledRef(A, AS, B, BS *runtime.Tensor) (want, mag []float64) {
	M, K, N := A.Shape[0], A.Shape[1], B.Shape[1]
	a, sa, b, sb := A.Float64s(), AS.Float64s(), B.Float64s(), BS.Float64s()
	want, mag = make([]float64, M*N), make([]float64, M*N)
	for i := 0; i < M; i++ {
		for j := 0; j < N; j++ {
			for k := 0; k < K; k++ {
				p := a[i*K+k] * sa[i*(K/32)+k/32] * b[k*N+j] * sb[(k/32)*N+j]
				want[i*N+j] += p
				mag[i*N+j] += math.Abs(p)
			}
		}
	}
	return want, mag
}

// e8m0Tensor makes a float8_e8m0fnu tensor from the exponents e (values
// 2^e; e == 128 stands for the NaN encoding 0xff).
func e8m0Tensor(shape []int, exp func(i int) int) *runtime.Tensor {
	t := runtime.NewTensor(ir.F8E8M0, shape...)
	for i := range t.Data {
		if e := exp(i); e == 128 {
			t.Data[i] = 0xff
		} else {
			t.Data[i] = byte(e + 127)
		}
	}
	return t
}

// TestMMAScaledRandom: float8 operands with scales from 2^-60 to 2^60
// (powers of two far from 1), M, N, K not multiples of the tiles, against
// the float64 reference within float32 accumulation's bound K*u*sum|p|,
// on the interpreter and through lower's scaled rewrite (partial sums of
// 32 products, then scaled: within the same bound).
func TestMMAScaledRandom(t *testing.T) {
	for _, c := range []struct {
		dt       ir.DType
		expanded bool
	}{{ir.F8E4M3, false}, {ir.F8E5M2, false}, {ir.F8E4M3, true}, {ir.F8E5M2, true}} {
		dt := c.dt
		name := dt.String()
		if c.expanded {
			name += "/expanded"
		}
		t.Run(name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(23, uint64(dt)))
			M, K, N := 45, 160, 37
			A, B := runtime.RandNormal(rng, dt, M, K), runtime.RandNormal(rng, dt, K, N)
			AS := e8m0Tensor([]int{M, K / 32}, func(int) int { return rng.IntN(121) - 60 })
			BS := e8m0Tensor([]int{K / 32, N}, func(int) int { return rng.IntN(121) - 60 })
			got := runScaledMatmul(t, A, AS, B, BS, c.expanded).Float64s()
			want, mag := scaledRef(A, AS, B, BS)
			bad := 0
			for i := range want {
				if d := math.Abs(got[i] - want[i]); !(d <= float64(K)*0x1p-24*mag[i]) {
					if bad++; bad <= 5 {
						t.Errorf("C[%d] = %g, want %g (bound %g)", i, got[i], want[i], float64(K)*0x1p-24*mag[i])
					}
				}
			}
			// The scales matter: the same product without them differs.
			plain, _ := scaledRef(A, e8m0Tensor(AS.Shape, func(int) int { return 0 }), B, e8m0Tensor(BS.Shape, func(int) int { return 0 }))
			if math.Abs(plain[0]-got[0]) <= 1e-3*math.Abs(got[0]) {
				t.Errorf("C[0] = %g equals the unscaled product %g", got[0], plain[0])
			}
		})
	}
}

// TestMMAScaledSpecials: exact sums at the ends of the scale range, the
// NaN scale encoding, float32 overflow and underflow of scaled products;
// the same on the interpreter and through lower's scaled rewrite.
func TestMMAScaledSpecials(t *testing.T) {
	M, K, N := 32, 64, 32
	ones := func(d ir.DType, r, c int) *runtime.Tensor {
		x := runtime.NewTensor(d, r, c)
		x.Fill(1)
		return x
	}
	A, B := ones(ir.F8E4M3, M, K), ones(ir.F8E4M3, K, N)
	// Row i of A_scale: block 0 is 2^(a0[i]), block 1 is 2^(a1[i]);
	// column j of B_scale: 2^(b0[j]) and 2^(b1[j]).
	type row struct {
		name           string
		a0, a1, b0, b1 int
		want           float64
	}
	rows := []row{
		{"2^127 * 2^-127", 127, 127, -127, -127, 64},
		{"2^100 * 2^-90", 100, 100, -90, -90, 64 * 1024},
		{"one block 2^-127 * 2^-127 underflows", -127, 0, -127, 0, 32},
		{"2^127 * 2^10 overflows to inf", 127, 0, 10, 0, math.Inf(1)},
		{"NaN scale of x", 128, 0, 0, 0, math.NaN()},
		{"NaN scale of y in the second block", 0, 0, 0, 128, math.NaN()},
		{"2^-20 and 2^20 cancel", -20, 20, 20, -20, 64},
	}
	AS := e8m0Tensor([]int{M, 2}, func(i int) int {
		r := rows[(i/2)%len(rows)]
		if i%2 == 0 {
			return r.a0
		}
		return r.a1
	})
	BS := e8m0Tensor([]int{2, N}, func(i int) int {
		r := rows[(i%N)%len(rows)]
		if i/N == 0 {
			return r.b0
		}
		return r.b1
	})
	for _, expanded := range []bool{false, true} {
		C := runScaledMatmul(t, A, AS, B, BS, expanded).Float64s()
		for i := 0; i < len(rows); i++ {
			r := rows[i]
			got := C[i*N+i]
			if !(got == r.want || math.IsNaN(r.want) && math.IsNaN(got)) {
				t.Errorf("%s (expanded %v): C[%d,%d] = %g, want %g", r.name, expanded, i, i, got, r.want)
			}
		}
	}
}

// TestE8M0Convert: a float8_e8m0fnu tile converted to float32 holds 2^e
// exactly (2^-127 as a float32 subnormal), NaN for 0xff; storing it back
// and bitcasting it to uint8 keep every encoding.
func TestE8M0Convert(t *testing.T) {
	src := `import cuda.tile as ct


@ct.kernel
def widen(S: ct.Array[ct.float8_e8m0fnu, (256,)], F: ct.Array[ct.float32, (256,)], T: ct.Array[ct.float8_e8m0fnu, (256,)],
          U: ct.Array[ct.uint8, (256,)]):
    s = ct.load(S, index=(0,), shape=(256,))
    ct.store(F, index=(0,), tile=ct.astype(s, ct.float32))
    ct.store(T, index=(0,), tile=s.reshape((16, 16)).permute((1, 0)).permute((1, 0)).reshape((256,)))
    ct.store(U, index=(0,), tile=ct.bitcast(s, ct.uint8))
`
	path := filepath.Join(t.TempDir(), "widen.py")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	k, err := compile.File(path, compile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	S := runtime.NewTensor(ir.F8E8M0, 256)
	for i := range S.Data {
		S.Data[i] = byte(i)
	}
	F, T, U := runtime.NewTensor(ir.F32, 256), runtime.NewTensor(ir.F8E8M0, 256), runtime.NewTensor(ir.U8, 256)
	if _, err := (CPU{}).Launch(k, []runtime.Arg{S, F, T, U}, runtime.LaunchOptions{Grid: [3]int{1, 1, 1}}); err != nil {
		t.Fatal(err)
	}
	var bad []string
	for i, got := range F.Float64s() {
		want := math.Ldexp(1, i-127)
		if i == 255 {
			want = math.NaN()
		}
		if !(got == want || math.IsNaN(want) && math.IsNaN(got)) {
			bad = append(bad, fmt.Sprintf("%#x: %g, want %g", i, got, want))
		}
		if T.Data[i] != byte(i) || U.Data[i] != byte(i) {
			bad = append(bad, fmt.Sprintf("stored %#x as %#x, bitcast to %#x", i, T.Data[i], U.Data[i]))
		}
	}
	if len(bad) > 0 {
		t.Errorf("e8m0 conversions:\n%s", strings.Join(bad, "\n"))
	}
}

// TestE8M0Constants: float8_e8m0fnu constants round as cuTile encodes
// them: 3.0 (1.5 * 2) up to 4, 0.0 to the smallest value 2^-127, 2^127
// exactly, inf to NaN.
func TestE8M0Constants(t *testing.T) {
	src := `import cuda.tile as ct


@ct.kernel
def consts(F: ct.Array[ct.float32, (4,)]):
    a = ct.cat((ct.full((1,), 3.0, dtype=ct.float8_e8m0fnu), ct.full((1,), 0.0, dtype=ct.float8_e8m0fnu)), 0)
    b = ct.cat((ct.full((1,), 2.0 ** 127, dtype=ct.float8_e8m0fnu), ct.full((1,), float("inf"), dtype=ct.float8_e8m0fnu)), 0)
    ct.store(F, index=(0,), tile=ct.astype(ct.cat((a, b), 0), ct.float32))
`
	path := filepath.Join(t.TempDir(), "consts.py")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	k, err := compile.File(path, compile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	F := runtime.NewTensor(ir.F32, 4)
	if _, err := (CPU{}).Launch(k, []runtime.Arg{F}, runtime.LaunchOptions{Grid: [3]int{1, 1, 1}}); err != nil {
		t.Fatal(err)
	}
	got := F.Float64s()
	want := []float64{4, math.Ldexp(1, -127), math.Ldexp(1, 127)}
	for i, w := range want {
		if got[i] != w {
			t.Errorf("constant %d = %g, want %g", i, got[i], w)
		}
	}
	if !math.IsNaN(got[3]) {
		t.Errorf("inf as float8_e8m0fnu = %g, want NaN", got[3])
	}
}

// TestMMAScaledTimeout: one 1024x1024x1024 mma_scaled (about 10^9 steps)
// stops within its launch's deadline, row by row, with a *StoppedError.
func TestMMAScaledTimeout(t *testing.T) {
	src := `import cuda.tile as ct


@ct.kernel
def big(A: ct.Array[ct.float8_e4m3fn, (1024, 1024)], S: ct.Array[ct.float8_e8m0fnu, (1024, 32)], C: ct.Array[ct.float32, (1024, 1024)]):
    a = ct.load(A, index=(0, 0), shape=(1024, 1024))
    s = ct.load(S, index=(0, 0), shape=(1024, 32))
    ct.store(C, index=(0, 0), tile=ct.mma_scaled(a, s, a, ct.transpose(s), ct.zeros((1024, 1024), dtype=ct.float32)))
`
	path := filepath.Join(t.TempDir(), "big.py")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	k, err := compile.File(path, compile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	A, S, C := runtime.NewTensor(ir.F8E4M3, 1024, 1024), runtime.NewTensor(ir.F8E8M0, 1024, 32), runtime.NewTensor(ir.F32, 1024, 1024)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = (CPU{}).Launch(k, []runtime.Arg{A, S, C}, runtime.LaunchOptions{Grid: [3]int{1, 1, 1}, Context: ctx})
	var se *StoppedError
	if !errors.As(err, &se) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want a *StoppedError wrapping the deadline", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("stopping took %s", d)
	}
}
