package ptxgen

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/lower"
)

// TestStagedOperandFragments checks, without a GPU, that a register
// operand (attention's P in P @ V) reaches the mma as the m16n8k16 A
// fragments (PTX.md 2.1): read from the registers that hold it where its
// layout allows (checkRegisterAFragments), else staged. The staging must
// put every element where the mma's ldmatrix reads expect it: from the layouts lower assigns, it
// enumerates the (warp, lane, register) -> element map the staging writes
// use and their swizzled shared addresses, emulates ldmatrix.x4 for every
// A fragment (PTX.md 2.2: lane i addresses row i%8 of matrix i/8; lane l
// receives row l/4, cols 2*(l%4)+{0,1}) and compares each fragment
// register with the m16n8k16 A layout (PTX.md 2.1).
func TestStagedOperandFragments(t *testing.T) {
	type kase struct {
		file   string
		consts map[string]string
		regs   bool // P read from registers, not staged
	}
	attn := filepath.Join("..", "testdata", "kernels", "attention.tile")
	kases := []kase{{attn, nil, true}, {attn, map[string]string{"tq": "128", "tkv": "128", "D": "128"}, true},
		{attn, map[string]string{"tq": "32", "tkv": "32", "D": "32"}, true}, {attn, map[string]string{"tq": "64", "tkv": "128", "D": "128"}, true},
		{attn, map[string]string{"tq": "16", "tkv": "64", "D": "64"}, true},
		{filepath.Join("testdata", "staged_a.tile"), nil, false}} // a blocked-layout A: staged
	for _, k := range kases {
		c := k.consts
		_, g, _ := compileFile(t, k.file, c, lower.MustTarget("sm_80"))
		// The mma k-step whose A fragments come from a register tile
		// staged to shared memory (smem_stage in the swizzled form).
		var frag, mma, regFrag, regMMA *ir.Instr
		g.Body.Walk(func(in *ir.Instr) {
			if d := in.Args; in.Op == ir.OpFragLoad && d[0].Def != nil && d[0].Def.Op == ir.OpSmemStage {
				frag = in
			}
			if d := in.Args; in.Op == ir.OpFragLoad && d[0].Def != nil && d[0].Def.Op == ir.OpConvert {
				regFrag = in
			}
			if in.Op == ir.OpMMAStep && frag != nil && in.Args[0] == frag.Result() {
				mma = in
			}
			if in.Op == ir.OpMMAStep && regFrag != nil && in.Args[0] == regFrag.Result() {
				regMMA = in
			}
		})
		if (regMMA != nil) != k.regs {
			t.Fatalf("%s %v: A operand from registers: %v, want %v", k.file, c, regMMA != nil, k.regs)
		}
		if regMMA != nil {
			checkRegisterAFragments(t, c, g, regFrag, regMMA)
			continue
		}
		if mma == nil {
			t.Fatalf("%v: no mma with a staged or register operand", c)
		}
		st := frag.Args[0].Def
		lay, err := lower.LayoutOf(st.Args[0]) // the register tile's
		if err != nil {
			t.Fatal(err)
		}
		acc, err := lower.LayoutOf(mma.Result())
		if err != nil {
			t.Fatal(err)
		}
		tt := st.Result().Type.(*ir.Tile)
		R, K := tt.Shape[0], tt.Shape[1]
		bytes := tt.DType.Bytes()
		rb := st.Attrs.Int(ir.AttrKeyRowBytes)
		addr := func(row, col int) int { return (row*rb + col*bytes) ^ lower.SwizzleXor(row, rb)<<4 }
		// The staging writes.
		smem := map[int][2]int{}
		nw := lower.NumWarps(g)
		for w := 0; w < nw; w++ {
			for l := 0; l < 32; l++ {
				for r := 0; r < lay.NumRegs(); r++ {
					wc, lc, rc := lay.WarpCoord(w), lay.LaneCoord(l), lay.RegCoord(r)
					row, col := wc[0]^lc[0]^rc[0], wc[1]^lc[1]^rc[1]
					if row >= R || col >= K {
						t.Fatalf("%v: element (%d, %d) outside %dx%d", c, row, col, R, K)
					}
					a := addr(row, col)
					if old, ok := smem[a]; ok && old != [2]int{row, col} {
						t.Fatalf("%v: address %d written with (%d,%d) and %v", c, a, row, col, old)
					}
					smem[a] = [2]int{row, col}
				}
			}
		}
		if len(smem) != R*K {
			t.Fatalf("%v: staging writes %d elements of %d", c, len(smem), R*K)
		}
		// The ldmatrix reads of the mma (emitMMA's loadA, K contiguous).
		wm, wn := acc.WarpsM(), acc.WarpsN()
		tm := acc.Shape[0] / wm
		for w := 0; w < wm*wn; w++ {
			m0 := (w / wn) * tm
			for mi := 0; mi < tm/16; mi++ {
				for ks := 0; ks < K/16; ks++ {
					var rowAddr [32]int
					for i := 0; i < 32; i++ {
						rowAddr[i] = addr(m0+8*((i>>3)&1)+(i&7)+16*mi, 8*(i>>4)+16*ks)
					}
					for l := 0; l < 32; l++ {
						gq, tq := l/4, l%4
						for q := 0; q < 4; q++ {
							for h := 0; h < 2; h++ {
								got, ok := smem[rowAddr[8*q+gq]+(2*tq+h)*bytes]
								want := [2]int{m0 + 16*mi + gq + 8*(q&1), 16*ks + 2*tq + 8*(q>>1) + h}
								if !ok || got != want {
									t.Fatalf("%v: warp %d lane %d a%d.%d (mi %d, ks %d) reads %v (written %v), want %v", c, w, l, q, h, mi, ks, got, ok, want)
								}
							}
						}
					}
				}
			}
		}
	}
}

// checkRegisterAFragments: for every warp, lane, m-tile, k-step and
// fragment register, the accumulator register that fragAFromRegs packs
// holds, in that thread, the element the m16n8k16 A layout puts there.
func checkRegisterAFragments(t *testing.T, c map[string]string, g *ir.Func, frag, mma *ir.Instr) {
	t.Helper()
	lay, err := lower.LayoutOf(frag.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	acc, err := lower.LayoutOf(mma.Result())
	if err != nil {
		t.Fatal(err)
	}
	tt := frag.Args[0].Type.(*ir.Tile)
	K := tt.Shape[1]
	if acc.WarpsN() != 1 || lay.WarpsM() != acc.WarpsM() {
		t.Fatalf("%v: register A operand over warps %dx%d for an accumulator over %dx%d", c, lay.WarpsM(), lay.WarpsN(), acc.WarpsM(), acc.WarpsN())
	}
	tm := acc.Shape[0] / acc.WarpsM()
	checked := 0
	for w := 0; w < acc.WarpsM(); w++ {
		for l := 0; l < 32; l++ {
			gq, tq := l/4, l%4
			for mi := 0; mi < tm/16; mi++ {
				for ks := 0; ks < K/16; ks++ {
					for q := 0; q < 4; q++ {
						for h := 0; h < 2; h++ {
							r, ok := accRegIndex(lay, 16*mi+8*(q&1), 16*ks+8*(q>>1)+h)
							if !ok || r >= lay.NumRegs() {
								t.Fatalf("%v: no register for a%d.%d (mi %d, ks %d)", c, q, h, mi, ks)
							}
							wc, lc, rc := lay.WarpCoord(w), lay.LaneCoord(l), lay.RegCoord(r)
							got := [2]int{wc[0] ^ lc[0] ^ rc[0], wc[1] ^ lc[1] ^ rc[1]}
							want := [2]int{w*tm + 16*mi + gq + 8*(q&1), 16*ks + 2*tq + 8*(q>>1) + h}
							if got != want {
								t.Fatalf("%v: warp %d lane %d a%d.%d (mi %d, ks %d) packs register %d = %v, want %v", c, w, l, q, h, mi, ks, r, got, want)
							}
							checked++
						}
					}
				}
			}
		}
	}
	if checked != acc.Shape[0]*K {
		t.Fatalf("%v: %d A elements checked, want %d", c, checked, acc.Shape[0]*K)
	}
}

// TestMMAAccumulatorRegsDistinct: an mma whose accumulator is ct.zeros in
// a loop body must not update the splat's (shared) register in place.
func TestMMAAccumulatorRegsDistinct(t *testing.T) {
	_, _, k := compileExample(t, "attention.tile", nil, lower.MustTarget("sm_80"))
	re := regexp.MustCompile(`mma\.sync\.\S+ \{([^}]*)\}`)
	n := 0
	for _, m := range re.FindAllStringSubmatch(k.PTX, -1) {
		seen := map[string]bool{}
		for _, r := range strings.Split(m[1], ",") {
			r = strings.TrimSpace(r)
			if seen[r] {
				t.Fatalf("mma destination repeats %s: %s", r, m[0])
			}
			seen[r] = true
		}
		n++
	}
	if n == 0 {
		t.Fatal("no mma in attention")
	}
}
