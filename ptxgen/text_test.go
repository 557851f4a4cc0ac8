package ptxgen

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/lower"
)

// TestLoweredTextDeterminesPTX checks that the text form of the lowered IR
// carries every decision ptxgen reads: the lowered kernel printed, parsed
// back (layout aliases included) and emitted gives the same PTX as the
// lowered kernel itself.
func TestLoweredTextDeterminesPTX(t *testing.T) {
	for _, ex := range []string{"matmul.tile", "matmul_bt.tile", "matmul_bias_relu.tile", "vector_add.tile", "broadcast.tile", "softmax.tile", "layernorm.tile", "reduction.tile", "attention.tile", "batched_matmul.tile"} {
		t.Run(ex, func(t *testing.T) {
			target := lower.MustTarget("sm_80")
			_, g, k := compileExample(t, ex, nil, target)
			text := ir.Print(g)
			h, err := ir.ParseFunc(text)
			if err != nil {
				t.Fatalf("Parse(lowered): %v", err)
			}
			if err := ir.Verify(h); err != nil {
				t.Fatalf("Verify(Parse(lowered)): %v", err)
			}
			if again := ir.Print(h); again != text {
				t.Fatalf("Print(Parse(lowered)) differs:\n%s", cmp.Diff(text, again))
			}
			k2, err := EmitKernel(h, target)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(k.PTX, k2.PTX); d != "" {
				t.Errorf("PTX of the parsed lowered IR differs (-lowered +parsed):\n%s", d)
			}
		})
	}
}
