package ptxgen

import (
	"math/rand/v2"
	"testing"

	"github.com/tilec/tilec/lower"
	"github.com/tilec/tilec/runtime"
)

// TestFloat8FragmentsToF16: on targets without float8 mma, the m16n8k32
// float8 fragments of a warp, turned into f16 fragments and multiplied as
// two m16n8k16 f16 mmas (PTX's fragment layouts, PTX.md 2.1), give A @ B:
// both operands' f16 columns/rows take the 32 k in the same order, and
// every value converts exactly.
func TestFloat8FragmentsToF16(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 32))
	for _, d := range float8Types {
		var A [16][32]uint8
		var B [32][8]uint8
		for i := range A {
			for k := range A[i] {
				A[i][k] = uint8(rng.Uint32())&^0x7f | uint8(rng.IntN(0x70)) // finite values
			}
		}
		for k := range B {
			for j := range B[k] {
				B[k][j] = uint8(rng.Uint32())&^0x7f | uint8(rng.IntN(0x70))
			}
		}
		word := func(b0, b1, b2, b3 uint8) uint64 {
			return uint64(b0) | uint64(b1)<<8 | uint64(b2)<<16 | uint64(b3)<<24
		}
		f16 := func(h uint64) float64 { return runtime.F16Float(uint16(h)) }
		// Per lane: the float8 fragments (m16n8k32), converted, and the
		// f16 elements they give to the two k16 steps' A (16x16) and B
		// (16x8).
		var A16 [2][16][16]float64
		var B16 [2][16][8]float64
		for lane := 0; lane < 32; lane++ {
			g, tq := lane>>2, lane&3
			a := [4]uint64{}
			for q := range a {
				row, k0 := g+8*(q&1), 4*tq+16*(q>>1)
				a[q] = word(A[row][k0], A[row][k0+1], A[row][k0+2], A[row][k0+3])
			}
			b := [2]uint64{}
			for q := range b {
				k0 := 4*tq + 16*q
				b[q] = word(B[k0][g], B[k0+1][g], B[k0+2][g], B[k0+3][g])
			}
			for opA, in := range map[bool][]uint64{true: a[:], false: b[:]} {
				e := &emitter{t: lower.MustTarget("sm_80"), inv: map[string]Reg{}}
				e.cur = &e.code
				regs := map[Reg]uint64{}
				var src []Reg
				for _, v := range in {
					r := e.newReg(B32)
					regs[r] = v
					src = append(src, r)
				}
				out := e.float8FragmentsToF16(src, d, opA)
				evalCode(t, e.code, regs, nil)
				for i, r := range out {
					h, q := i/4, i%4 // step, register of that step (A: 4 per step)
					lo, hi := f16(regs[r]&0xffff), f16(regs[r]>>16)
					if opA {
						// a0 = A[g][2t..], a1 = A[g+8][2t..], a2 = A[g][2t+8..], a3 = A[g+8][2t+8..]
						row, col := g+8*(q&1), 2*tq+8*(q>>1)
						A16[h][row][col], A16[h][row][col+1] = lo, hi
					} else {
						// per step: b0 = B[2t..][g], b1 = B[2t+8..][g]
						h, q = i/2, i%2
						row := 2*tq + 8*q
						B16[h][row][g], B16[h][row+1][g] = lo, hi
					}
				}
			}
		}
		vals := func(h uint8) float64 { return runtime.F8Float(d, h) }
		for i := 0; i < 16; i++ {
			for j := 0; j < 8; j++ {
				want, got := 0.0, 0.0
				for k := 0; k < 32; k++ {
					want += vals(A[i][k]) * vals(B[k][j])
				}
				for h := 0; h < 2; h++ {
					for k := 0; k < 16; k++ {
						got += A16[h][i][k] * B16[h][k][j]
					}
				}
				if got != want {
					t.Fatalf("%s: C[%d][%d] = %g, want %g", d, i, j, got, want)
				}
			}
		}
	}
}
