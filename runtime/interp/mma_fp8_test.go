package interp

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/runtime"
	"github.com/tilec/tilec/runtime/compile"
)

// ct.mma of float8 tiles on the interpreter: the products are exact (at
// most 4 significant bits each), summed in the float32 or float16
// accumulator, against a float64 reference of the same float8 inputs.
func TestMMAFloat8(t *testing.T) {
	src := `import cuda.tile as ct


@ct.kernel(grid=(ct.cdiv(M, 32), ct.cdiv(N, 32)))
def f8mm(A: ct.Array[ct.float8_e4m3fn, (M, K)], B: ct.Array[ct.float8_e5m2, (K, N)], C: ct.Array[ct.float32, (M, N)],
         H: ct.Array[ct.float16, (M, N)]):
    acc = ct.zeros((32, 32), dtype=ct.float32)
    acc16 = ct.zeros((32, 32), dtype=ct.float16)
    for k in range(ct.cdiv(K, 32)):
        a = ct.load(A, index=(ct.bid(0), k), shape=(32, 32))
        b = ct.load(B, index=(k, ct.bid(1)), shape=(32, 32))
        acc = ct.mma(a, b, acc)
        acc16 = ct.mma(a, b, acc16, use_fast_acc=True)
    ct.store(C, index=(ct.bid(0), ct.bid(1)), tile=acc)
    ct.store(H, index=(ct.bid(0), ct.bid(1)), tile=acc16)
`
	path := filepath.Join(t.TempDir(), "f8mm.tile")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	k, err := compile.File(path, compile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(8, 8))
	A, B := runtime.RandNormal(rng, ir.F8E4M3, 45, 70), runtime.RandNormal(rng, ir.F8E5M2, 70, 37)
	C, H := runtime.NewTensor(ir.F32, 45, 37), runtime.NewTensor(ir.F16, 45, 37)
	if _, err := (CPU{}).Launch(k, []runtime.Arg{A, B, C, H}, runtime.LaunchOptions{}); err != nil {
		t.Fatal(err)
	}
	want := refMatmul(A, B)
	checkClose(t, "f8 mma into f32", C.Float64s(), want, 1e-6)
	checkClose(t, "f8 mma into f16", H.Float64s(), want, 1e-2)
}
