package ptxgen

import (
	"strings"
	"testing"

	"github.com/tilec/tilec/ir/build"
	"github.com/tilec/tilec/lang"
	"github.com/tilec/tilec/lower"
)

// Element-offset accesses are the indexed accesses without bounds: the
// address is base + offset*bytes (no setp on the offsets), guarded only
// by a mask or the owner of replicated elements; atomics keep their order
// and scope (red where the old values are unused and the order allows);
// a rank-0 atomic of the block sits between barriers. Slices make array
// registers from their array's: the base moved by start*stride, the
// extent stop-start.
func TestArrayViewsPatterns(t *testing.T) {
	checkPatterns(t, "array_views.tile", nil, []string{
		`\n\tld\.global\.b32 %f\d+, \[%rd\d+\];`, // the scalar offset, unmasked
		`@%p\d+ ld\.global\.b32 %f\d+, \[%rd\d+\];`,
		`@%p\d+ st\.global\.b32 \[%rd\d+\], %f\d+;`,
		`@%p\d+ atom\.acq_rel\.gpu\.global\.add\.u32`, `@%p\d+ atom\.acq_rel\.gpu\.global\.cas\.b32`,
		`@%p\d+ atom\.acquire\.cta\.global\.exch\.b32`,
		`\n\tred\.relaxed\.gpu\.global\.add\.u32`, `\n\tatom\.acq_rel\.gpu\.global\.max\.s32`,
		`bar\.sync 0;\n(\s*[^\n]*\n){0,6}?\s*@%p\d+ atom\.acq_rel\.gpu\.global\.add\.u32 %r\d+, \[%rd\d+\], %r\d+;\n\tbar\.sync 0;`,
		`mad\.lo\.s64 %rd\d+, %rd\d+, 4, %rd\d+;\n\tsub\.s64 %rd\d+, %rd\d+, %rd\d+;\n\tcvt\.u32\.u64`,
	}, []string{`ld\.local`})
	for _, target := range []string{"sm_80", "sm_90a"} {
		_, _, k := compileFile(t, kernelsDir+"/array_views.tile", nil, lower.MustTarget(target))
		if bad := readBeforeWrite(k.PTX); len(bad) > 0 {
			t.Errorf("%s: registers read before they are written:\n%s", target, strings.Join(bad, "\n"))
		}
	}
}

// A GEMM whose operands are slices of its arrays: a slice's base is an
// element of the array, which no tensor map or launch-time alignment
// check covers, so sm_90a stays off TMA and wgmma's TMA path and there is
// no fast variant (the kernel checks alignment itself); a slice taken
// inside the loop (a new start each iteration) keeps what is computed
// from it inside the loop.
func TestSlicedGEMMPTX(t *testing.T) {
	const src = `import cuda.tile as ct

@ct.kernel
def sliced_gemm(A, B, C, off, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    As = A.slice(0, off, A.shape[0])
    acc = ct.full((tm, tn), 0, dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        Bk = B.slice(axis=0, start=k * tk, stop=B.shape[0])
        a = ct.load(As, (ct.bid(0), k), shape=(tm, tk), padding_mode=ct.PaddingMode.ZERO)
        b = ct.load(Bk, (0, ct.bid(1)), shape=(tk, tn), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, (ct.bid(0), ct.bid(1)), acc.astype(C.dtype))
`
	af, err := lang.Parse("sliced_gemm.py", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	args := map[string]build.ArgSig{}
	for name, s := range map[string]string{"A": "f16[M,K]", "B": "f16[K,N]", "C": "f16[M,N]", "off": "i32"} {
		if args[name], err = build.ParseArgSig(s); err != nil {
			t.Fatal(err)
		}
	}
	m, err := build.File(af, build.Options{Kernel: "sliced_gemm", Args: args, Consts: map[string]string{"tm": "64", "tn": "64", "tk": "32"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, target := range []string{"sm_80", "sm_90a"} {
		_, k := lowerEmit(t, m.Funcs[0], lower.MustTarget(target))
		if k.General != nil || k.Variant == VariantFast {
			t.Errorf("%s: a fast variant, whose launch-time alignment check does not cover slices", target)
		}
		if !strings.Contains(k.PTX, "mma.sync") {
			t.Errorf("%s: no mma.sync", target)
		}
		if strings.Contains(k.PTX, "wgmma") || strings.Contains(k.PTX, "cp.async.bulk.tensor") {
			t.Errorf("%s: TMA or wgmma on a slice", target)
		}
		if bad := readBeforeWrite(k.PTX); len(bad) > 0 {
			t.Errorf("%s: registers read before they are written:\n%s", target, strings.Join(bad, "\n"))
		}
	}
}
