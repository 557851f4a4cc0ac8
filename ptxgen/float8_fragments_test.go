package ptxgen

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/lower"
)

// TestFloat8FragmentLoads runs the frag_loads of float8_matmul.tile's
// lowered kernels (A as (M, K) and (K, M); B as (K, N) and (N, K)) for
// every warp, its 32 lanes in lockstep, on shared tiles filled with random bytes where
// the swizzled copy puts them, and checks each register against the
// m16n8k32 fragment layout (PTX ISA; CuTe's SM89 e4m3 traits): a_q =
// A[g+8(q&1)][4t+16(q>>1)+0..3], b_q = B[4t+16q+0..3][g], lowest k in the
// low byte. ldmatrix is modelled as PTX defines it: lanes 8i..8i+7 give
// the row addresses of matrix i, lane l receives the 4 bytes of row l/4 at
// byte 4(l%4) of each matrix.
func TestFloat8FragmentLoads(t *testing.T) {
	for _, tc := range []struct {
		kernel, target string
		tm, tn, tk     int
	}{
		{"float8_matmul", "sm_89", 64, 64, 64},
		{"float8_matmul_bt", "sm_89", 64, 64, 64},
		{"float8_matmul", "sm_90a", 128, 128, 128},
		{"float8_matmul_bt", "sm_90a", 128, 64, 32},
		{"float8_matmul", "sm_89", 32, 128, 64},
		{"float8_matmul_at", "sm_89", 64, 64, 64},
		{"float8_matmul_at", "sm_90a", 128, 32, 32},
	} {
		name := fmt.Sprintf("%s/%s/%dx%dx%d", tc.kernel, tc.target, tc.tm, tc.tn, tc.tk)
		t.Run(name, func(t *testing.T) {
			consts := map[string]string{"tm": fmt.Sprint(tc.tm), "tn": fmt.Sprint(tc.tn), "tk": fmt.Sprint(tc.tk)}
			tg := lower.MustTarget(tc.target)
			vs, err := lower.LowerVariants(float8MatmulKernel(t, tc.kernel, consts), tg, lower.Options{Verify: true})
			if err != nil {
				t.Fatal(err)
			}
			g := vs[0].Func
			var loads []*ir.Instr
			g.Body.Walk(func(in *ir.Instr) {
				if in.Op == ir.OpFragLoad {
					loads = append(loads, in)
				}
			})
			if len(loads) == 0 {
				t.Fatal("no frag_load")
			}
			for _, fl := range loads {
				checkByteFragLoad(t, g, tg, fl)
			}
		})
	}
}

// checkByteFragLoad checks one frag_load of one-byte elements (float8,
// int8, uint8: their m16n8k32 fragments are laid out alike) lane by lane.
func checkByteFragLoad(t *testing.T, f *ir.Func, tg *lower.Target, fl *ir.Instr) {
	t.Helper()
	// The shared tile: a ring's slot, maybe a transposed view of it.
	v, trans := fl.Args[0], false
	for v.Def.Op != ir.OpSmemAlloc {
		if v.Def.Op == ir.OpPermute {
			trans = !trans
		}
		v = v.Def.Args[0]
	}
	alloc := v.Def
	st := alloc.Result().Type.(*ir.Tile)
	R, C := st.Shape[0], st.Shape[1]
	rb := alloc.Attrs.Int(ir.AttrKeyRowBytes)
	if rb != C {
		t.Fatalf("row_bytes %d for %d one-byte columns", rb, C)
	}
	rng := rand.New(rand.NewPCG(uint64(R), uint64(C)))
	stor := make([][]byte, R)
	smem := make([]byte, R*C)
	for r := range stor {
		stor[r] = make([]byte, C)
		for c := range stor[r] {
			stor[r][c] = byte(rng.Uint32())
			// ptxgen's swizzled: 16-byte chunks XOR the row's pattern.
			sw := r & 7
			if rb < 128 {
				sw = r * rb >> 7 & 7
			}
			smem[(r*rb+c)^sw<<4] = stor[r][c]
		}
	}
	e := &emitter{f: f, t: tg, inv: map[string]Reg{}, vals: map[*ir.Value]*value{}}
	e.cur = &e.code
	e.lane, e.warp = e.newReg(B32), e.newReg(B32)
	base := e.newReg(B32)
	e.vals[fl.Args[0]] = &value{smem: &smemVal{tile: alloc, base: base, trans: trans}}
	e.emitFragLoad(fl)
	out := e.vals[fl.Result()].regs
	lay := e.layout(fl.Result())
	wm, wn := lay.WarpsM(), lay.WarpsN()
	ft := fl.Result().Type.(*ir.Tile)
	ks := int(fl.Attrs.Int("kstep"))
	opA := fl.Attrs.Str("operand") == "a"
	// elem is the logical operand's element: A (M, K) or B (K, N).
	elem := func(row, col int) byte {
		if trans {
			return stor[col][row]
		}
		return stor[row][col]
	}
	for w := 0; w < wm*wn; w++ {
		lanes := make([]map[Reg]uint64, 32)
		for l := range lanes {
			lanes[l] = map[Reg]uint64{e.lane: uint64(l), e.warp: uint64(w), base: 0}
		}
		for _, in := range e.code {
			if !strings.HasPrefix(in.Op, "ldmatrix") {
				for l := range lanes {
					evalInstr(t, in, lanes[l], smem)
				}
				continue
			}
			if strings.Contains(in.Op, ".trans") || !strings.HasSuffix(in.Op, ".shared.b16") {
				t.Fatalf("unexpected %s", in)
			}
			dst, ad := in.Args[0].(Vec), in.Args[1].(Addr)
			rows := make([]int, 32)
			for l := range lanes {
				rows[l] = int(lanes[l][ad.Base.(Reg)]) + int(ad.Off)
			}
			for i, d := range dst {
				for l := range lanes {
					a := rows[8*i+l/4] + 4*(l%4)
					lanes[l][d.(Reg)] = uint64(smem[a]) | uint64(smem[a+1])<<8 | uint64(smem[a+2])<<16 | uint64(smem[a+3])<<24
				}
			}
		}
		for l := range lanes {
			g, tq := l>>2, l&3
			for i, r := range out {
				var want [4]byte
				for j := range want {
					if opA {
						m0 := (w / wn) * (ft.Shape[0] / wm)
						mi, q := i/4, i%4
						want[j] = elem(m0+16*mi+g+8*(q&1), 32*ks+4*tq+16*(q>>1)+j)
					} else {
						n0 := (w % wn) * (ft.Shape[1] / wn)
						ni, q := i/2, i%2
						want[j] = elem(32*ks+4*tq+16*q+j, n0+8*ni+g)
					}
				}
				got := lanes[l][r]
				if bits := uint64(want[0]) | uint64(want[1])<<8 | uint64(want[2])<<16 | uint64(want[3])<<24; got != bits {
					t.Fatalf("%s (kstep %d, trans %v) warp %d lane %d register %d: %#08x, want %#08x", fl.Attrs.Str("operand"), ks, trans, w, l, i, got, bits)
				}
			}
		}
	}
}
