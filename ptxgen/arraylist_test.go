package ptxgen

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tilec/tilec/ir/build"
	"github.com/tilec/tilec/lang"
	"github.com/tilec/tilec/lower"
)

// readBeforeWrite returns the registers that an instruction reads before
// any instruction above it (in the text) writes them. The emitter writes
// straight-line code for each region and copies a loop's carried values
// into their registers before the loop, so every read follows a write in
// text order; a computation hoisted out of the loop that defines its
// operands breaks that.
func readBeforeWrite(ptx string) []string {
	written := map[string]bool{}
	var bad []string
	for _, l := range strings.Split(ptx, "\n") {
		for _, r := range readRegs(l) {
			if !written[r] && !strings.HasPrefix(r, "%tid") && !strings.HasPrefix(r, "%ctaid") && !strings.HasPrefix(r, "%nctaid") {
				bad = append(bad, r+" in: "+strings.TrimSpace(l))
			}
		}
		for _, r := range writtenRegs(l) {
			written[r] = true
		}
	}
	return bad
}

// The grouped GEMM of examples/cutile/group_gemm.py: each list is a table
// address and a length; As[g] at the loop's index loads the item's
// address, extents and strides from the table inside the loop, and
// nothing computed from them is hoisted above it (the copy offsets and
// alignment checks that array parameters get once per kernel).
func TestListOfArraysPTX(t *testing.T) {
	path := filepath.Join("..", "examples", "cutile", "group_gemm.py")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	af, err := lang.Parse("group_gemm.py", src)
	if err != nil {
		t.Fatal(err)
	}
	args := map[string]build.ArgSig{}
	for name, s := range map[string]string{"As": "[f16[M0,K0],f16[M1,K1]]", "Bs": "[f16[K0,N0],f16[K1,N1]]", "Cs": "[f16[M0,N0],f16[M1,N1]]"} {
		if args[name], err = build.ParseArgSig(s); err != nil {
			t.Fatal(err)
		}
	}
	for _, target := range []string{"sm_80", "sm_90a"} {
		for _, nk := range []string{"False", "True"} {
			if nk == "True" {
				args["Bs"], _ = build.ParseArgSig("[f16[N0,K0],f16[N1,K1]]")
			}
			m, err := build.File(af, build.Options{Kernel: "group_gemm_kernel", Args: args,
				Consts: map[string]string{"tm": "64", "tn": "64", "tk": "32", "b_is_nk": nk}})
			if err != nil {
				t.Fatal(err)
			}
			_, k := lowerEmit(t, m.Funcs[0], lower.MustTarget(target))
			for _, v := range []*Kernel{k, k.General} {
				if v == nil {
					t.Fatalf("%s: no general variant", target)
				}
				for _, want := range []string{`\.param \.u64 p_As_table`, `\.param \.s32 p_As_len`, `\.param \.u64 p_Cs_table`,
					`mad\.lo\.s64 %rd\d+, %rd\d+, 40, %rd\d+;`, `ld\.global\.u64 %rd\d+, \[%rd\d+\+32\];`} {
					if count(v.PTX, want) == 0 {
						t.Errorf("%s b_is_nk=%s %s: no %s", target, nk, v.Variant, want)
					}
				}
				if strings.Contains(v.PTX, "wgmma") || strings.Contains(v.PTX, "cp.async.bulk.tensor") {
					t.Errorf("%s %s: TMA or wgmma on arrays known only in the kernel", target, v.Variant)
				}
				if bad := readBeforeWrite(v.PTX); len(bad) > 0 {
					t.Errorf("%s b_is_nk=%s %s: registers read before they are written:\n%s", target, nk, v.Variant, strings.Join(bad, "\n"))
				}
				// The launcher fills the slots from the lists.
				kinds := map[SlotKind]int{}
				for _, s := range v.Params {
					kinds[s.Kind]++
				}
				if kinds[SlotListTable] != 3 || kinds[SlotListLen] != 3 || kinds[SlotPointer] != 0 {
					t.Errorf("%s: slots %v, want 3 tables and 3 lengths", target, kinds)
				}
			}
			// The fast variant's 16-byte copies need every array of As and Bs aligned.
			if len(k.FastArrays) != 2 {
				t.Errorf("%s: fast variant checks %v, want the lists As and Bs", target, k.FastArrays)
			}
		}
	}
}

// A list's alignment for the fast variant is every item's.
func TestListArrayArgAligned16(t *testing.T) {
	ok := ArrayArg{Addr: 256, ElemBytes: 2, Strides: []int64{64, 1}}
	odd := ArrayArg{Addr: 258, ElemBytes: 2, Strides: []int64{64, 1}}
	if !(ArrayArg{Elems: []ArrayArg{ok, ok}}).Aligned16() || (ArrayArg{Elems: []ArrayArg{ok, odd}}).Aligned16() {
		t.Error("a list is aligned when every item is")
	}
}
