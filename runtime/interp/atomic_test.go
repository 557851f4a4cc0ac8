package interp

import (
	"math"
	"strings"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/runtime"
)

// TestAtomicRMW: 64 blocks update 16 counters at once with every kind; the
// final values are exact (the updates commute), and the old values each
// block sees are a permutation consistent with some order.
func TestAtomicRMW(t *testing.T) {
	const src = `
@ct.kernel
def k(Add: ct.Array[ct.int32, (16,)], Max: ct.Array[ct.int64, (16,)], Min: ct.Array[ct.uint32, (16,)],
      And: ct.Array[ct.int32, (16,)], Or: ct.Array[ct.uint64, (16,)], Xor: ct.Array[ct.int32, (16,)],
      F: ct.Array[ct.float32, (16,)], H: ct.Array[ct.float16, (16,)], Old: ct.Array[ct.int32, (64, 16)]):
    b = ct.bid(0)
    i = ct.arange(16, dtype=ct.int32)
    old = ct.atomic_add(Add, i, i + b, memory_order=ct.MemoryOrder.RELAXED, memory_scope=ct.MemoryScope.BLOCK)
    ct.store(Old, index=(b, 0), tile=ct.reshape(old, (1, 16)))
    ct.atomic_max(Max, i, ct.astype((b * 37 + i * 11) % 101, ct.int64) - 50)
    ct.atomic_min(Min, i, ct.astype(b * 1000 + i, ct.uint32))
    ct.atomic_and(And, i, ~(1 << (b % 31)))
    ct.atomic_or(Or, i, ct.astype(1 << (b % 31), ct.uint64))
    ct.atomic_xor(Xor, i, b * 7 + i)
    ct.atomic_add(F, i, 0.5)
    ct.atomic_add(H, i, 1.0)
    ct.atomic_add(Add, (40,), 1)
`
	const nb = 64
	Add, Max, Min := runtime.NewTensor(ir.I32, 16), runtime.NewTensor(ir.I64, 16), runtime.NewTensor(ir.U32, 16)
	And, Or, Xor := runtime.NewTensor(ir.I32, 16), runtime.NewTensor(ir.U64, 16), runtime.NewTensor(ir.I32, 16)
	F, H, Old := runtime.NewTensor(ir.F32, 16), runtime.NewTensor(ir.F16, 16), runtime.NewTensor(ir.I32, nb, 16)
	for i := 0; i < 16; i++ {
		Max.SetInt(-1000, i)
		Min.SetInt(math.MaxUint32, i)
		And.SetInt(-1, i)
		Or.SetInt(1<<40, i)
	}
	if err := launchSrc(t, src, runtime.LaunchOptions{Grid: [3]int{nb, 1, 1}, Workers: 8}, Add, Max, Min, And, Or, Xor, F, H, Old); err != nil {
		t.Fatal(err)
	}
	var wAdd, wMax, wMin, wAnd, wOr, wXor []int64
	var wF, wH []float64
	for i := int64(0); i < 16; i++ {
		add, mx, mn, and, or, xor := int64(0), int64(-1000), int64(math.MaxUint32), int64(-1), int64(1<<40), int64(0)
		for b := int64(0); b < nb; b++ {
			add += i + b
			mx = max(mx, (b*37+i*11)%101-50)
			mn = min(mn, b*1000+i)
			and &= ^(int64(1) << (b % 31))
			or |= 1 << (b % 31)
			xor ^= b*7 + i
		}
		wAdd, wMax, wMin = append(wAdd, add), append(wMax, mx), append(wMin, mn)
		wAnd, wOr, wXor = append(wAnd, int64(int32(and))), append(wOr, or), append(wXor, xor)
		wF, wH = append(wF, nb*0.5), append(wH, nb)
	}
	wantInts(t, "atomic_add", Add, wAdd...)
	wantInts(t, "atomic_max", Max, wMax...)
	wantInts(t, "atomic_min", Min, wMin...)
	wantInts(t, "atomic_and", And, wAnd...)
	wantInts(t, "atomic_or", Or, wOr...)
	wantInts(t, "atomic_xor", Xor, wXor...)
	wantFloats(t, "atomic_add f32", F, wF)
	wantFloats(t, "atomic_add f16", H, wH)
	// The old values of counter i are the prefix sums of the blocks' updates
	// in the order the updates happened: each block's own update added to
	// its old value is another block's old value, or the final value.
	for i := 0; i < 16; i++ {
		seen := map[int64]bool{}
		for b := 0; b < nb; b++ {
			seen[Old.AtInt(b, i)] = true
		}
		for b := 0; b < nb; b++ {
			next := Old.AtInt(b, i) + int64(i+b)
			if next != wAdd[i] && !seen[next] {
				t.Fatalf("counter %d: block %d saw %d, and %d is nobody's old value", i, b, Old.AtInt(b, i), next)
			}
		}
	}
}

// TestAtomicCASAndXchg: a spin-free ticket with compare-and-swap, and
// exchange returning the old values; out-of-bounds elements give expected.
func TestAtomicCASAndXchg(t *testing.T) {
	const src = `
@ct.kernel
def k(X: ct.Array[ct.int32, (4,)], Old: ct.Array[ct.int32, (8,)], Y: ct.Array[ct.float64, (4,)], OldY: ct.Array[ct.float64, (4,)]):
    i = ct.arange(8, dtype=ct.int32)
    ct.store(Old, index=(0,), tile=ct.atomic_cas(X, i, ct.full((8,), 0, dtype=ct.int32), i + 40))
    ct.store(OldY, index=(0,), tile=ct.atomic_xchg(Y, ct.arange(4, dtype=ct.int32), 2.5))
`
	X, Old := ints(ir.I32, 0, 1, 0, 1), runtime.NewTensor(ir.I32, 8)
	Y, OldY := runtime.FromFloat64(ir.F64, []int{4}, []float64{1, -2, 3, math.Inf(1)}), runtime.NewTensor(ir.F64, 4)
	runSrc(t, src, X, Old, Y, OldY)
	wantInts(t, "atomic_cas array", X, 40, 1, 42, 1)
	wantInts(t, "atomic_cas old", Old, 0, 1, 0, 1, 0, 0, 0, 0)
	wantFloats(t, "atomic_xchg array", Y, []float64{2.5, 2.5, 2.5, 2.5})
	wantFloats(t, "atomic_xchg old", OldY, []float64{1, -2, 3, math.Inf(1)})
}

func TestAtomicErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{`
@ct.kernel
def k(A: ct.Array[ct.float32, (4,)]):
    ct.atomic_max(A, ct.arange(4, dtype=ct.int32), 1.0)
`, "k.py:4:19: atomic_max: A holds f32; atomic_max supports int32, int64, uint32 and uint64"},
		{`
@ct.kernel
def k(A: ct.Array[ct.int32, (4,)]):
    ct.atomic_and(A, ct.arange(4, dtype=ct.int32), ct.full((4,), 1, dtype=ct.int16))
`, "atomic_and: update is i16 but A holds i32; use ct.astype"},
		{`
@ct.kernel
def k(A: ct.Array[ct.int32, (4,)]):
    ct.atomic_add(A, ct.arange(4, dtype=ct.int32), 1, memory_order=ct.MemoryOrder.WEAK)
`, "atomic_add: ct.MemoryOrder.WEAK is not valid for atomics"},
		{`
@ct.kernel
def k(A: ct.Array[ct.int32, (4,)]):
    ct.atomic_add(A, ct.arange(4, dtype=ct.int32), 1, memory_scope=ct.MemoryScope.GPU)
`, "ct.MemoryScope has no member GPU (it has BLOCK, CLUSTER, DEVICE, NONE, SYS)"},
		{`
@ct.kernel
def k(A: ct.Array[ct.int32, (4,)]):
    ct.atomic_add(A, ct.arange(4, dtype=ct.int32), 1, memory_scope=ct.MemoryOrder.RELAXED)
`, "atomic_add: memory_scope must be a ct.MemoryScope member, got ct.MemoryOrder.RELAXED"},
	} {
		if msg := compileErr(tc.src); !strings.Contains(msg, tc.want) {
			t.Errorf("got %q, want %q", msg, tc.want)
		}
	}
}
