package interp

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/lower"
	"github.com/tilec/tilec/runtime"
)

// TestAttentionThroughRescale runs the attention kernel after lower's
// rescale rewrite (acc * alpha as vote_all and an if that keeps acc or
// multiplies it), applied to the kernel as the layout pass leaves it (the
// interpreter runs no GPU-level ops, and the rewrite needs only the
// layouts), and checks its output against the float64 reference and bit
// for bit against the kernel without the rewrite. Two inputs: random
// ones, where the row maxima move at many steps (the multiplying arm
// matters); and keys whose first block holds every query's maximum, so
// that every later step's alpha is exactly 1 and the vote over the whole
// tile keeps acc.
func TestAttentionThroughRescale(t *testing.T) {
	const S, D, tq = 512, 64, 64
	for _, settled := range []bool{false, true} {
		rng := rand.New(rand.NewPCG(41, 0))
		Q, K, V := runtime.RandNormal(rng, ir.F16, S, D), runtime.RandNormal(rng, ir.F16, S, D), runtime.RandNormal(rng, ir.F16, S, D)
		if settled {
			for i := range S {
				for d := range D {
					Q.Set(math.Abs(Q.At(i, d)), i, d)
					if i < tq {
						K.Set(1.5, i, d)
					}
				}
			}
			for i := range S {
				first, later := math.Inf(-1), math.Inf(-1)
				for j := range S {
					s := 0.0
					for d := range D {
						s += Q.At(i, d) * K.At(j, d)
					}
					if j < tq {
						first = math.Max(first, s)
					} else {
						later = math.Max(later, s)
					}
				}
				if later > first-8 {
					t.Fatalf("query %d: a later key block comes within 8 of the first block's maximum score (%g, %g)", i, later, first)
				}
			}
		}
		k := compileExample(t, "attention", "attention", nil)
		target := lower.MustTarget("sm_80")
		vs, err := lower.LowerVariants(k.Func, target, lower.Options{StopAfter: "layout", Verify: true})
		if err != nil {
			t.Fatal(err)
		}
		g := vs[0].Func
		if err := lower.RowRescale(g, target); err != nil {
			t.Fatal(err)
		}
		if err := ir.Verify(g); err != nil {
			t.Fatalf("after the rescale rewrite: %v\n%s", err, ir.Print(g))
		}
		votes := 0
		g.Body.Walk(func(in *ir.Instr) {
			if in.Op == ir.OpVoteAll {
				votes++
			}
		})
		if votes != 1 {
			t.Fatalf("%d vote_all after the rewrite, want 1:\n%s", votes, ir.Print(g))
		}
		plain, rewritten := poisoned(ir.F16, S, D), poisoned(ir.F16, S, D)
		runExample(t, k, Q, K, V, plain)
		runExample(t, runtime.NewKernel(g), Q, K, V, rewritten)
		want := attentionRows(S, D, false,
			func(i, d int) float64 { return Q.At(i, d) },
			func(j, d int) float64 { return K.At(j, d) },
			func(j, d int) float64 { return V.At(j, d) })
		checkClose(t, "attention through the rescale rewrite", rewritten.Float64s(), want, 1e-2)
		p, r := plain.Float64s(), rewritten.Float64s()
		for i := range p {
			if math.Float64bits(p[i]) != math.Float64bits(r[i]) {
				t.Fatalf("settled=%v: element %d is %g with the rewrite, %g without", settled, i, r[i], p[i])
			}
		}
	}
}
