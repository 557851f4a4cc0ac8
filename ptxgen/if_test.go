package ptxgen

import (
	"regexp"
	"strings"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/lower"
)

// armsKernel has two loops that carry a 64x64 float32 tile in the mma
// layout (32 registers a thread) through an if: the first multiplies it
// in one arm and passes it through in the other; the second multiplies it
// and then adds it again, so the tile is read after the product exists.
const armsKernel = `#mma0 = mma<warps=[4, 1], reg=[[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane=[[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp=[[16, 0], [32, 0]]>
kernel @arms(%0 O: array<?x?xf32> [64, 64], %1 n: i32, %2 c: f32)
    grid(1, 1, 1)
    lowered(num_warps=4, smem_bytes=0) {
  %3 = const {value=0} : i32
  %4 = const {value=1} : i32
  %5 = const {value=0.0} : f32
  %6 = splat %5 {layout=#mma0} : tile<64x64xf32>
  %7 = splat %2 {layout=#mma0} : tile<64x64xf32>
  %14 = for %3, %1, %4, %6 : tile<64x64xf32> {
    ^(%8: i32, %9: tile<64x64xf32>)
    %10 = cmp %8, %4 {pred=lt} : bool
    %13 = if %10 : tile<64x64xf32> {
      yield %9
    } else {
      %11 = mul %9, %7 {layout=#mma0} : tile<64x64xf32>
      yield %11
    }
    yield %13
  }
  store %0[%3, %3], %14
  %21 = for %3, %1, %4, %6 : tile<64x64xf32> {
    ^(%15: i32, %16: tile<64x64xf32>)
    %17 = cmp %15, %4 {pred=lt} : bool
    %20 = if %17 : tile<64x64xf32> {
      %18 = mul %16, %7 {layout=#mma0} : tile<64x64xf32>
      %19 = add %18, %16 {layout=#mma0} : tile<64x64xf32>
      yield %19
    } else {
      yield %16
    }
    yield %20
  }
  store %0[%3, %3], %21
  return
}
`

// TestIfArms: an if whose result takes over a dying loop-carried tile
// costs one branch past the arm that does something (no else for the arm
// that passes the tile through), and that arm updates the tile in place
// when nothing reads the old value after it is overwritten (the first
// loop: 32 mul.rn.f32 %fX, %fX); where the old value is read again (the
// second loop's add), the arm computes into registers of its own and
// copies them over at its end.
func TestIfArms(t *testing.T) {
	f, err := ir.ParseFunc(armsKernel)
	if err != nil {
		t.Fatal(err)
	}
	if err := ir.Verify(f); err != nil {
		t.Fatal(err)
	}
	k, err := EmitKernel(f, lower.MustTarget("sm_80"))
	if err != nil {
		t.Fatal(err)
	}
	if n := count(k.PTX, `\$L_else_`); n != 0 {
		t.Errorf("%d else labels, want none: every if here has an arm of no instructions", n)
	}
	arm := regexp.MustCompile(`\t@(!?)%p\d+ bra\.uni (\$L_endif_\d+);\n((?:\t[^\n]*\n)*?)(\$L_endif_\d+):`)
	m := arm.FindAllStringSubmatch(k.PTX, -1)
	if len(m) != 2 {
		t.Fatalf("%d branches past an arm, want 2:\n%s", len(m), k.PTX)
	}
	for i, x := range m {
		if x[2] != x[4] {
			t.Errorf("if %d: the branch goes to %s, not to the arm's end %s", i, x[2], x[4])
		}
	}
	// The first if skips the multiplying else arm when its condition holds.
	if m[0][1] != "" {
		t.Errorf("if 0 branches on the negated condition, want the condition itself (its then arm is empty)")
	}
	muls := strings.Split(strings.TrimSuffix(m[0][3], "\n"), "\n")
	inPlace := regexp.MustCompile(`^\tmul\.rn\.f32 (%f\d+), (%f\d+), %f\d+;$`)
	if len(muls) != 32 {
		t.Errorf("if 0 skips %d instructions, want 32 multiplications", len(muls))
	}
	for _, l := range muls {
		if x := inPlace.FindStringSubmatch(l); x == nil || x[1] != x[2] {
			t.Errorf("if 0 skips %q, want a multiplication in place", l)
			break
		}
	}
	// The second skips its then arm when the condition fails; the arm
	// ends with the copies of the sums into the carried tile's registers.
	if m[1][1] != "!" {
		t.Errorf("if 1 branches on the condition itself, want its negation (its else arm is empty)")
	}
	body := m[1][3]
	if a, b, c := strings.Count(body, "mul.rn.f32"), strings.Count(body, "add.rn.f32"), strings.Count(body, "mov.f32"); a != 32 || b != 32 || c != 32 {
		t.Errorf("if 1's arm has %d mul, %d add, %d mov, want 32 of each", a, b, c)
	}
}
