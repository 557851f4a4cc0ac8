package interp

import (
	"math"

	"github.com/tilec/tilec/ir"
)

// execMMAScaled runs mma_scaled %a, %sa, %b, %sb, %acc: acc + (a*sa) @
// (b*sb), where sa[i, k/32] scales a[i, k] and sb[k/32, j] scales b[k, j].
// Each product a[i,k]*sa * b[k,j]*sb is exact in float64 (float8
// significands of at most 4 bits, power-of-two scales, exponents within
// 2^±300), and is added to the float32 accumulator k ascending with one
// rounding to float32 per step, as the float8 ct.mma sums (scalar.
// SumRoundOdd keeps the float64 sum from rounding twice). A NaN scale
// (0xff) makes its whole block NaN, and through it every sum it enters,
// zeros included; sums past float32's range are infinities.
func execMMAScaled(fr *frame, c *cinstr) error {
	a, sa := fr.regs[c.args[0]].t, fr.regs[c.args[1]].t
	b, sb := fr.regs[c.args[2]].t, fr.regs[c.args[3]].t
	acc := fr.regs[c.args[4]].t
	batch, M, K, N := mmaDims(c.ashape[0], c.ashape[2])
	KS := K / ir.MMAScaledBlock
	A := dequantizeRows(a.f, sa.f, batch, M, K, KS)
	B := dequantizeCols(b.f, sb.f, batch, K, N, KS)
	// The float32 accumulator's values, summed as the plain float8 mma's
	// (the dequantized products are exact in float64, not in float32).
	out := &tile{f: append([]float64(nil), acc.f...)}
	if err := fr.mmaRounded(ir.F32, batch, M, K, N, A, B, out.f); err != nil {
		return err
	}
	fr.regs[c.res[0]] = val{t: out}
	return nil
}

// dequantizeRows is a (batch, M, K) times its scales s (batch, M, K/32),
// each scale applied to 32 consecutive elements of a row; the products are
// exact in float64 (a NaN scale gives NaN).
func dequantizeRows(a, s []float64, batch, M, K, KS int) []float64 {
	out := make([]float64, len(a))
	for p := 0; p < batch; p++ {
		for i := 0; i < M; i++ {
			for k := 0; k < K; k++ {
				e := (p*M+i)*K + k
				out[e] = scaled(a[e], s[(p*M+i)*KS+k/ir.MMAScaledBlock])
			}
		}
	}
	return out
}

// dequantizeCols is b (batch, K, N) times its scales s (batch, K/32, N),
// each scale applied to 32 consecutive elements of a column.
func dequantizeCols(b, s []float64, batch, K, N, KS int) []float64 {
	out := make([]float64, len(b))
	for p := 0; p < batch; p++ {
		for k := 0; k < K; k++ {
			for j := 0; j < N; j++ {
				e := (p*K+k)*N + j
				out[e] = scaled(b[e], s[(p*KS+k/ir.MMAScaledBlock)*N+j])
			}
		}
	}
	return out
}

// scaled is x * 2^e for the e8m0 scale s = 2^e (exact: Ldexp of a float8
// value by at most 127 stays within float64's normal range), or NaN for a
// NaN scale.
func scaled(x, s float64) float64 {
	if math.IsNaN(s) {
		return math.NaN()
	}
	_, e := math.Frexp(s)
	return math.Ldexp(x, e-1)
}
