package build

import (
	"strings"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/lang"
)

// TestOps10bRoundTrip builds the indexed, atomic, combiner, printing and
// byte ops from source; the IR verifies, prints, parses back and prints the
// same (the region of reduce_fn and the quoted format of printf included).
func TestOps10bRoundTrip(t *testing.T) {
	const src = `import cuda.tile as ct

def add(a, b):
    return a + b

@ct.kernel
def k(A: ct.Array[ct.int32, (M, N)], B: ct.Array[ct.int32, (M,)]):
    i = ct.arange(16, dtype=ct.int32)
    x = ct.gather(A, (i[:, None], i[None, :]), padding_value=-1, latency=3)
    ct.scatter(A, (i, 2), ct.sum(x, axis=1), mask=i > 3, check_bounds=False)
    old = ct.atomic_xor(B, i, i, memory_order=ct.MemoryOrder.RELEASE, memory_scope=ct.MemoryScope.SYS)
    c = ct.atomic_cas(B, i, old, i)
    s = ct.scan(ct.reduce(x, 1, add, 0), 0, add, 0, reverse=True)
    ct.printf("s=%d \"q\" %%\n", s)
    print("c", c, sep=", ")
    ct.assert_(s > -100, "bad")
    ct.store(B, index=(0,), tile=ct.unpack_from_bytes(ct.pack_to_bytes(s), ct.int32))
`
	file, err := lang.Parse("k.py", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	m, err := File(file, Options{})
	if err != nil {
		t.Fatal(err)
	}
	text := ir.Print(m.Funcs[0])
	for _, want := range []string{" = gather %", "{check_bounds=true, latency=3}", "\n  scatter %", "check_bounds=false",
		" = atomic_rmw %", "kind=xor, memory_order=release, memory_scope=sys", " = atomic_cas %", " = reduce_fn %", " = scan_fn %",
		"reverse=true", `{format="s=%d \"q\" %%\n"}`, `{format="c, %d\n"}`, `{message=bad}`, " = pack_bytes %", " = unpack_bytes %"} {
		if !strings.Contains(text, want) {
			t.Errorf("printed IR lacks %q:\n%s", want, text)
		}
	}
	f, err := ir.ParseFunc(text)
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	if err := ir.Verify(f); err != nil {
		t.Fatal(err)
	}
	if again := ir.Print(f); again != text {
		t.Errorf("round trip changed the text:\n%s\nwant:\n%s", again, text)
	}
}

func TestVerifyRejectsOps10b(t *testing.T) {
	const head = "kernel @k(%0 A: array<?xi32> [N], %1 F: array<?xf32> [N], %2 n: i32) {\n%3 = iota : tile<16xi32>\n%4 = splat %2 : tile<16xi32>\n"
	for _, tc := range []struct{ body, want string }{
		{"%5 = gather %0, %3 {check_bounds=true} : tile<16xi32>\nreturn", "gather on a rank-1 array has 2 operands"},
		{"%5 = gather %0, %3, %4 : tile<16xi32>\nreturn", "missing attribute check_bounds"},
		{"%5 = gather %0, %3, %4 {check_bounds=true} : tile<16xf32>\nreturn", "result tile<16xf32>, want tile<16xi32>"},
		{"%5 = gather %0, %2, %4 {check_bounds=true} : tile<16xi32>\nreturn", "index %2 has type i32, want an integer tile"},
		{"%5 = gather %0, %3, %4, %4 {check_bounds=true} : tile<16xi32>\nreturn", "mask %4 has type tile<16xi32>, want tile<16xbool>"},
		{"%5 = convert %4 : tile<16xf32>\n%6 = atomic_rmw %1, %3, %5 {check_bounds=true, kind=max, memory_order=relaxed, memory_scope=device} : tile<16xf32>\nreturn", "atomic_rmw max on f32, want i32, i64, u32 or u64"},
		{"%5 = atomic_rmw %0, %3, %4 {check_bounds=true, kind=add, memory_order=weak, memory_scope=device} : tile<16xi32>\nreturn", "attribute memory_order=weak, want one of relaxed, acquire, release, acq_rel"},
		{"%5 = atomic_cas %0, %3, %4 {check_bounds=true, memory_order=relaxed, memory_scope=device} : tile<16xi32>\nreturn", "atomic_cas on a rank-1 array has 3 operands"},
		{"%5 = reduce_fn %4, %2 {axis=0} : tile<i32> {\n^(%6: tile<i32>, %7: tile<i32>)\n%8 = add %6, %7 : tile<i32>\nyield %8\n}\n%9 = reduce_fn %4, %2 {axis=1} : tile<i32> {\n^(%10: tile<i32>, %11: tile<i32>)\nyield %10\n}\nreturn", "axis 1 out of range for tile<16xi32>"},
		{"%5 = scan_fn %4, %2 {axis=0} : tile<i32> {\n^(%6: tile<i32>, %7: tile<i32>)\nyield %6\n}\nreturn", "result %5 has type tile<i32>, want tile<16xi32>"},
		{"%5 = reduce_fn %4, %2 {axis=0} : tile<i32> {\n^(%6: tile<i32>, %7: tile<i32>)\nyield %2\n}\nreturn", "region yields %2 of type i32, want tile<i32>"},
		{"printf %4, %2 {format=\"%d\\n\"}\nreturn", "format has 1 conversions for 2 operands"},
		{"printf %4 {format=\"%s\\n\"}\nreturn", "conversion at byte 0 is not"},
		{"assert %4\nreturn", "assert of tile<16xi32>, want a bool scalar or tile"},
		{"%5 = pack_bytes %4 : tile<32xu8>\nreturn", "pack_bytes of tile<16xi32> to tile<32xu8> changes the byte count"},
		{"%5 = unpack_bytes %4 : tile<16xi32>\nreturn", "the bytes are a rank-1 u8 tile"},
	} {
		f, err := ir.ParseFunc(head + tc.body + "\n}\n")
		if err == nil {
			err = ir.Verify(f)
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want %q", tc.body, err, tc.want)
		}
	}
}
