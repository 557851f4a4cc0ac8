package lower

import "github.com/tilec/tilec/ir"

// checkScaled refuses block-scaled mma (mma_scaled) and any use of its
// float8_e8m0fnu scale factors on the GPU: ptxgen has neither the
// block-scaled tensor-core instructions of sm_100 (not a tilec target)
// nor a dequantizing form of mma_scaled for sm_80 and sm_90a, and no
// loads, stores or conversions of e8m0 values. The interpreter runs both.
func checkScaled(t *Target, in *ir.Instr) error {
	if in.Op == ir.OpMMAScaled {
		return unsupportedAt(t, in, "mma_scaled is not supported on the GPU yet (block-scaled mma runs on the interpreter: --backend cpu)")
	}
	for _, v := range append(append([]*ir.Value(nil), in.Args...), in.Results...) {
		if v.Type.Elem() == ir.F8E8M0 {
			return unsupportedAt(t, in, "%s: float8_e8m0fnu (mma_scaled's scale factors) is not supported on the GPU yet", in.Op)
		}
	}
	return nil
}
