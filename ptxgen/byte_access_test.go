package ptxgen

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/lower"
)

// TestPackedByteAccess: 8 and 16 1-byte elements (int8 sign-extended in
// their registers, uint8 and float8 zero-extended) go to memory as their
// bytes in order and come back as the registers held them; a load whose
// predicate is false leaves the registers (the padding) unchanged.
func TestPackedByteAccess(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 8))
	for _, dt := range []ir.DType{ir.I8, ir.U8, ir.F8E4M3} {
		for _, n := range []int{8, 16} {
			e := &emitter{t: lower.MustTarget("sm_80"), inv: map[string]Reg{}}
			e.cur = &e.code
			p, addr := e.newReg(Pred), e.newReg(B64)
			el := make([]Reg, n)
			regs := map[Reg]uint64{p: 1, addr: 16}
			want := make([]byte, n)
			for i := range el {
				el[i] = e.newReg(B32)
				want[i] = byte(rng.Uint32())
				v := uint32(want[i])
				if dt == ir.I8 {
					v = uint32(int32(int8(want[i])))
				}
				regs[el[i]] = uint64(v)
			}
			held := map[Reg]uint64{}
			for _, r := range el {
				held[r] = regs[r]
			}
			e.packedByteAccess(true, p, addr, el, dt)
			mem := make([]byte, 64)
			evalCode(t, e.code, regs, mem)
			if got := mem[16 : 16+n]; string(got) != string(want) {
				t.Fatalf("%s x%d store: memory % x, want % x", dt, n, got, want)
			}
			for _, on := range []uint64{1, 0} {
				e.code = nil
				for _, r := range el {
					regs[r] = held[r] ^ 0x5a // changed: a load must restore, a masked one keep
				}
				if on == 0 {
					for _, r := range el {
						held[r] = regs[r]
					}
				}
				regs[p] = on
				e.packedByteAccess(false, p, addr, el, dt)
				evalCode(t, e.code, regs, mem)
				for i, r := range el {
					if regs[r]&0xffffffff != held[r]&0xffffffff {
						t.Errorf("%s x%d load (predicate %d): element %d is %#x, want %#x", dt, n, on, i, regs[r], held[r])
					}
				}
			}
		}
	}
}

// TestByteTileVectorAccess: a tile of one-byte elements with 16 per
// thread (int8, uint8, float8) loads and stores 16 bytes per access; it
// was an internal error ("packed access of 8 registers of class 2").
func TestByteTileVectorAccess(t *testing.T) {
	const src = `import cuda.tile as ct


@ct.kernel(grid=(ct.cdiv(N, 4096),))
def bytes_copy(X: ct.Array[T, (N,)], Y: ct.Array[T, (N,)], T: ct.Constant[ct.DType] = ct.int8):
    ct.store(Y, index=(ct.bid(0),), tile=ct.load(X, index=(ct.bid(0),), shape=(4096,)))
`
	path := filepath.Join(t.TempDir(), "bytes_copy.tile")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, dt := range []string{"int8", "uint8", "float8_e4m3fn"} {
		f := buildFile(t, path, map[string]string{"T": dt})
		_, k := lowerEmit(t, f, lower.MustTarget("sm_80"))
		for _, p := range []string{`ld\.global\.v[24]\.b32`, `st\.global\.v[24]\.b32`, `bfi\.b32`} {
			if !regexp.MustCompile(p).MatchString(k.PTX) {
				t.Errorf("%s: PTX lacks %s", dt, p)
			}
		}
	}
}
