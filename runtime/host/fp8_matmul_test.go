package host

import (
	"path/filepath"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/runtime"
)

// examples/cutile/fp8_matmul.py (per-tensor scaled float8 GEMM, W8A8)
// through its host function at sizes that are not multiples of the tiles:
// (A @ B^T) * scale_a * scale_b in float64 from the same float8 inputs,
// within bfloat16's rounding of the output.
func fp8MatmulRef(t map[string]*runtime.Tensor) [][]float64 {
	A, B := t["A"], t["B"]
	M, K, N := A.Shape[0], A.Shape[1], B.Shape[0]
	out := make([]float64, 0, M*N)
	for i := range M {
		for j := range N {
			s := 0.0
			for k := range K {
				s += A.At(i, k) * B.At(j, k)
			}
			out = append(out, s*0.5*0.25)
		}
	}
	return [][]float64{out}
}

func init() {
	exampleCases = append(exampleCases, exampleCase{file: "fp8_matmul.py", entry: "fp8_matmul",
		inputs:  []exampleInput{in("A", ir.F8E4M3, 130, 200), in("B", ir.F8E4M3, 70, 200)},
		scalars: map[string]any{"scale_a": 0.5, "scale_b": 0.25},
		ref:     fp8MatmulRef, atol: 1e-3, rtol: 1e-2})
}

// TestFP8MatmulScript: the example's __main__ block quantizes, launches and
// checks against the float8 product with assert_close; every kernel it
// launches also lowers to sm_80.
func TestFP8MatmulScript(t *testing.T) {
	runCheckingScript(t, filepath.Join("..", "..", "examples", "cutile", "fp8_matmul.py"))
}
