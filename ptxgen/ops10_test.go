package ptxgen

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/lower"
)

// kernelsDir holds the GPU tests of issue 10's ops (scripts/gpu-check.sh
// runs them on the GPU against the interpreter).
var kernelsDir = filepath.Join("..", "runtime", "testdata", "kernels")

// checkPatterns compiles a kernel of kernelsDir for sm_80 and checks the
// PTX instructions it must and must not contain.
func checkPatterns(t *testing.T, file string, consts map[string]string, must, not []string) {
	t.Helper()
	_, _, k := compileFile(t, filepath.Join(kernelsDir, file), consts, lower.MustTarget("sm_80"))
	checkPTXHas(t, file, k.PTX, must, not)
}

// checkPTXHas checks that ptx matches every pattern of must and none of
// not (regular expressions); name says whose PTX it is.
func checkPTXHas(t *testing.T, name, ptx string, must, not []string) {
	t.Helper()
	for _, pat := range must {
		if count(ptx, pat) == 0 {
			t.Errorf("%s: no %s", name, pat)
		}
	}
	for _, pat := range not {
		if count(ptx, pat) != 0 {
			t.Errorf("%s: has %s", name, pat)
		}
	}
}

// Gather and scatter are predicated element loads and stores (bounds as
// unsigned 64-bit compares); atomics are atom (red when the old values are
// unused and the order allows) with the order and scope as .sem and .scope;
// integer NEG_INF/POS_INF padding is the dtype's minimum and maximum.
func TestIndexedAtomicsPatterns(t *testing.T) {
	checkPatterns(t, "indexed_atomics.tile", nil, []string{
		`setp\.lt\.u64`, `@%p\d+ ld\.global\.b32 %f\d+`, `@%p\d+ st\.global\.b32 \[%rd\d+\], %f\d+`,
		`atom\.acq_rel\.gpu\.global\.add\.u32`, `atom\.acquire\.cta\.global\.max\.s32`, `atom\.release\.sys\.global\.min\.s32`,
		`atom\.acq_rel\.gpu\.global\.cas\.b32`, `atom\.acq_rel\.gpu\.global\.cas\.b64`, `atom\.acq_rel\.gpu\.global\.exch\.b32`,
		`atom\.relaxed\.gpu\.global\.add\.noftz\.f16`, `atom\.acq_rel\.gpu\.global\.(and|or)\.b64`, `atom\.acq_rel\.gpu\.global\.xor\.b32`,
		`red\.relaxed\.gpu\.global\.add\.u32`, `mov\.b32 %r\d+, -2147483648;`, `mov\.b32 %r\d+, 2147483647;`,
		`atom\.relaxed\.gpu\.global\.exch\.b32`,
	}, []string{`ld\.local`, `red\.acq_rel`, `red\.[a-z.]*exch`})
}

// Float pow is ex2/lg2 with its special cases selected; integer pow a loop
// of multiplications; atan2 a polynomial (fma) with quadrant selects.
func TestPowAtan2Patterns(t *testing.T) {
	checkPatterns(t, "pow_atan2.tile", nil, []string{
		`lg2\.approx\.f32`, `ex2\.approx\.f32`, `cvt\.rzi\.f32\.f32`, `\$L_pow_\d+:`, `@%p\d+ mul\.lo\.s32`, `@%p\d+ mul\.lo\.s64`,
		`fma\.rn\.f32 %f\d+, %f\d+, 0f3DA4F0D1`, `setp\.nan\.f32`,
	}, []string{`ld\.local`})
}

// cat, extract, insert, general reshapes and scans go through the scratch
// region between barriers; scans loop along the axis with predicated
// combines; prod reduces with mul.
func TestScratchOpsPatterns(t *testing.T) {
	checkPatterns(t, "scan_cat.tile", nil, []string{
		`bar\.sync 0;\n(\s*[^\n]*\n)*?\s*st\.shared\.b32[^\n]*\n(\s*[^\n]*\n)*?\s*bar\.sync 0;\n(\s*[^\n]*\n)*?\s*ld\.shared\.b32`,
		`\$L_scan_\d+:`, `@%p\d+ add\.rn\.f32`, `@%p\d+ mul\.lo\.s32`, `@%p\d+ add\.s32`, `@%p\d+ bra\.uni \$L_scan_\d+;`,
		`st\.shared\.b16`, `mul\.rn\.f32`,
	}, []string{`ld\.local`})
}

// reduce_fn and scan_fn emit their combiner region inside a loop along the
// axis; assert traps where an element is false.
func TestFoldFnAssertPatterns(t *testing.T) {
	checkPatterns(t, "fold_fn.tile", nil, []string{
		`\$L_fold_\d+:`, `@%p\d+ bra\.uni \$L_fold_\d+;`, `@!%p\d+ trap;`, `max\.f32`, `xor\.b32`, `mul\.lo\.s32`,
	}, []string{`ld\.local`})
}

// Sub-word integers load and store with their sign (s8, u16, ...) into
// 32-bit registers and wrap after arithmetic (bfe / and); unsigned dtypes
// divide and compare as unsigned; float -> int8 clamps after cvt.
func TestIntDTypesPatterns(t *testing.T) {
	checkPatterns(t, "int_dtypes.tile", nil, []string{
		`ld\.global\.s8`, `ld\.global\.u8`, `ld\.global\.s16`, `ld\.global\.u16`, `st\.global\.s8`, `st\.global\.u16`,
		`bfe\.s32 %r\d+, %r\d+, 0, 8;`, `and\.b32 %r\d+, %r\d+, 255;`, `div\.u32`, `rem\.u32`, `shr\.u32`, `mul\.lo\.u64`,
		`cvt\.rzi\.s32\.f32`, `min\.s32 %r\d+, %r\d+, 127;`, `max\.s32 %r\d+, %r\d+, -128;`,
	}, []string{`ld\.local`})
}

// flush_to_zero=True is the instructions' .ftz forms: exp2 one
// ex2.approx.ftz (no subnormal fix-up around it), no compare and select.
func TestFlushToZeroPatterns(t *testing.T) {
	checkPatterns(t, "flush_to_zero.tile", nil, []string{
		`ex2\.approx\.ftz\.f32`, `mul\.rn\.ftz\.f32`, `div\.rn\.ftz\.f32`, `add\.rn\.ftz\.f32`, `max\.ftz\.f32`,
	}, []string{`ex2\.approx\.f32`, `abs\.f32`, `selp\.f32`, `ld\.local`})
}

// Every op that takes the ftz attribute has its .ftz instruction.
func TestFTZFormsCoverFTZOps(t *testing.T) {
	for op := ir.Op(0); op < ir.NumOps; op++ {
		if _, ok := ftzForms[op]; ok != ir.FTZOp(op) {
			t.Errorf("%s: ir.FTZOp %v, .ftz form %v", op, ir.FTZOp(op), ok)
		}
	}
}

// A rank-0 tile is held by every thread of the block. Its atomics are
// performed by thread 0 alone; a used old value reaches every thread
// through shared memory with a barrier between the owner's store and the
// loads; a release is preceded by a barrier (the block's writes come
// first), and so is the spin lock's compare-and-swap, on the loop's back
// edge (a slow thread may still read the last broadcast).
// Before, each of the 128 threads ran the compare-and-swap of a spin lock:
// one took the lock and the others spun with it held (cuTile's split-K
// matmul test hung on the H100).
func TestRankZeroAtomicsOneThread(t *testing.T) {
	src := `import cuda.tile as ct


@ct.kernel(grid=(B,))
def lock(Acc: ct.Array[ct.int32, (1, 64)], Lock: ct.Array[ct.int32, (1,)], Count: ct.Array[ct.int32, (1,)], Seen: ct.Array[ct.int32, (B,)]):
    while ct.atomic_cas(Lock, 0, 0, 1, memory_order=ct.MemoryOrder.ACQUIRE) == 1:
        pass
    acc = ct.load(Acc, index=(0, 0), shape=(1, 64))
    ct.store(Acc, index=(0, 0), tile=acc + 1)
    ct.atomic_xchg(Lock, 0, 0, memory_order=ct.MemoryOrder.RELEASE)
    ticket = ct.atomic_add(Count, 0, 1)
    ct.scatter(Seen, ticket, 1)
`
	path := filepath.Join(t.TempDir(), "lock.tile")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, k := compileFile(t, path, nil, lower.MustTarget("sm_80"))
	for _, pat := range []string{
		// The owner: thread 0.
		`setp\.eq\.u32 (%p\d+), %r\d+, 0;`,
		// cas under the owner's predicate, then the broadcast.
		`bar\.sync 0;(\s+[^\n]*\n){0,8}\s*@%p\d+ atom\.acquire\.gpu\.global\.cas\.b32 (%r\d+), \[%rd\d+\], %r\d+, %r\d+;\s+@%p\d+ st\.shared\.b32 \[%r\d+\], %r\d+;\s+bar\.sync 0;\s+ld\.shared\.b32`,
		// A barrier before the release.
		`bar\.sync 0;(\s+[^\n]*\n){0,8}\s*@%p\d+ atom\.release\.gpu\.global\.exch\.b32`,
		// The ticket: add with its old value broadcast.
		`bar\.sync 0;(\s+[^\n]*\n){0,8}\s*@%p\d+ atom\.acq_rel\.gpu\.global\.add\.u32 %r\d+, \[%rd\d+\], %r\d+;\s+@%p\d+ st\.shared\.b32 [^\n]*\n\s*bar\.sync 0;\s+ld\.shared`,
	} {
		if count(k.PTX, pat) == 0 {
			t.Errorf("no %s", pat)
		}
	}
	// Every atomic is predicated (the owner, and the bounds).
	if n := count(k.PTX, `\n\s*atom\.`); n != 0 {
		t.Errorf("%d atomics without a predicate", n)
	}
	// Five barriers: before the compare-and-swap and inside its broadcast,
	// before the release, before the add and inside its broadcast (the
	// add's release barrier serves its broadcast too).
	if n := count(k.PTX, `bar\.sync 0;`); n != 5 {
		t.Errorf("%d barriers, want 5", n)
	}
}
