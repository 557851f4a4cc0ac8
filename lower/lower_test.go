package lower_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/ir/build"
	"github.com/tilec/tilec/lang"
	"github.com/tilec/tilec/lang/golden"
	"github.com/tilec/tilec/lower"
)

// buildExample compiles the first kernel of an example to IR.
func buildExample(t testing.TB, file string, consts map[string]string) *ir.Func {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "testdata", "kernels", file))
	if err != nil {
		t.Fatal(err)
	}
	return buildSource(t, file, string(src), consts)
}

// buildSource compiles the first kernel of src to IR.
func buildSource(t testing.TB, name, src string, consts map[string]string) *ir.Func {
	t.Helper()
	af, err := lang.Parse(name, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	m, err := build.File(af, build.Options{Consts: consts})
	if err != nil {
		t.Fatal(err)
	}
	return m.Funcs[0]
}

// TestGolden lowers each example for sm_80 (verifying the IR after every
// pass), checks that the lowered text round-trips, and compares it with
// testdata/<name>.txtar.
func TestGolden(t *testing.T) {
	for _, name := range []string{"matmul", "matmul_bt", "matmul_bias_relu", "vector_add", "broadcast", "softmax", "layernorm", "reduction"} {
		t.Run(name, func(t *testing.T) {
			f := buildExample(t, name+".tile", nil)
			before := ir.Print(f)
			vs, err := lower.LowerVariants(f, lower.MustTarget("sm_80"), lower.Options{Verify: true})
			if err != nil {
				t.Fatal(err)
			}
			if ir.Print(f) != before {
				t.Errorf("Lower changed its input")
			}
			var all strings.Builder
			for _, v := range vs {
				text := ir.Print(v.Func)
				// The lowered text reads back (layout aliases included)
				// and prints the same.
				h, err := ir.ParseFunc(text)
				if err != nil {
					t.Fatalf("Parse(lowered): %v", err)
				}
				if err := ir.Verify(h); err != nil {
					t.Fatalf("Verify(Parse(lowered)): %v", err)
				}
				if again := ir.Print(h); again != text {
					t.Errorf("Print(Parse(lowered)) differs:\n%s", cmp.Diff(text, again))
				}
				if v.Name != "" {
					all.WriteString("// variant " + v.Name + "\n")
				}
				all.WriteString(text)
			}
			got := all.String()
			a := golden.Read(t, filepath.Join("testdata", name+".txtar"))
			if len(a.Files) == 0 {
				a.Comment = []byte("Lowered IR of testdata/kernels/" + name + ".tile for sm_80 (go test ./lower -update rewrites it).\n")
			}
			a.Check(t, "lowered", got)
		})
	}
}

func TestLayoutsOnMatmul(t *testing.T) {
	g, err := lower.Lower(buildExample(t, "matmul.tile", nil), lower.MustTarget("sm_80"))
	if err != nil {
		t.Fatal(err)
	}
	if n := lower.NumWarps(g); n != 8 {
		t.Errorf("num_warps = %d, want 8", n)
	}
	var rings, loopCopies int
	var sawMMA bool
	g.Body.Walk(func(in *ir.Instr) {
		switch in.Op {
		case ir.OpSmemAlloc:
			rings++
			if s := in.Attrs.Int("stages"); s < 3 {
				t.Errorf("ring: stages = %d, want >= 3", s)
			}
		case ir.OpLoad:
			t.Errorf("load %v left after lowering", in.Attrs)
		case ir.OpAsyncCopy:
			if in.Block.Parent != nil && in.Block.Parent.Op == ir.OpFor {
				loopCopies++
			}
		case ir.OpMMAStep:
			sawMMA = true
			l, err := lower.LayoutOf(in.Result())
			if err != nil || l.Kind != "mma" || l.WarpsM() != 2 || l.WarpsN() != 4 || l.NumRegs() != 128 {
				t.Errorf("mma layout = %+v, %v", l, err)
			}
		}
	})
	if rings != 2 || loopCopies == 0 || !sawMMA {
		t.Errorf("%d rings (want 2), %d copies in the loop, mma_step %v", rings, loopCopies, sawMMA)
	}
	if b := lower.SmemBytes(g); b > lower.MustTarget("sm_80").KernelSharedBytes() || b < 3*48*1024 {
		t.Errorf("smem_bytes = %d", b)
	}
}

// TestLayoutCoversTile checks that every layout the pass builds maps the
// threads' registers onto every element of the tile.
func TestLayoutCoversTile(t *testing.T) {
	check := func(name string, l *lower.Layout, nwarps int) {
		n := 1
		for _, d := range l.Shape {
			n *= d
		}
		seen := map[string]bool{}
		for w := 0; w < nwarps; w++ {
			for ln := 0; ln < 32; ln++ {
				for r := 0; r < l.NumRegs(); r++ {
					c := make([]int, len(l.Shape))
					for d := range c {
						c[d] = l.WarpCoord(w)[d] + l.LaneCoord(ln)[d] + l.RegCoord(r)[d]
						if c[d] >= l.Shape[d] {
							t.Fatalf("%s: coordinate %v out of %v", name, c, l.Shape)
						}
					}
					seen[strings.Trim(strings.Join(strings.Fields(fmtInts(c)), ","), "[]")] = true
				}
			}
		}
		if len(seen) != n {
			t.Errorf("%s: covers %d of %d elements", name, len(seen), n)
		}
	}
	check("mma 128x256", lower.MMALayout(128, 256, 2, 4), 8)
	check("mma 64x64", lower.MMALayout(64, 64, 2, 2), 4)
	check("blocked 1024", lower.Blocked([]int{1024}, 4, 4), 4)
	check("blocked 32x64", lower.Blocked([]int{32, 64}, 4, 4), 4)
	check("blocked 8 (replicated)", lower.Blocked([]int{8}, 4, 1), 4)
	check("blocked 2x4x8", lower.Blocked([]int{2, 4, 8}, 8, 2), 8)
}

func fmtInts(c []int) string {
	s := make([]string, len(c))
	for i, x := range c {
		s[i] = strings.Repeat(" ", 0) + itoa(x)
	}
	return strings.Join(s, " ")
}

func itoa(x int) string {
	if x == 0 {
		return "0"
	}
	var b []byte
	for x > 0 {
		b = append([]byte{byte('0' + x%10)}, b...)
		x /= 10
	}
	return string(b)
}

func TestChooseMMAWarps(t *testing.T) {
	for _, c := range []struct{ m, n, wm, wn int }{
		{128, 256, 2, 4}, {64, 64, 2, 2}, {128, 128, 2, 4}, {16, 16, 1, 2}, {256, 128, 4, 2},
	} {
		wm, wn := lower.ChooseMMAWarps(c.m, c.n, 8)
		if wm != c.wm || wn != c.wn {
			t.Errorf("ChooseMMAWarps(%d, %d) = %d, %d; want %d, %d", c.m, c.n, wm, wn, c.wm, c.wn)
		}
	}
}

// unsupportedSrc uses an op that the sm_80 backend does not handle yet.
const unsupportedSrc = `import cuda.tile as ct


@ct.kernel(grid=(1,))
def unsupported(X: ct.Array[ct.float64, (M, N)]):
    x = ct.load(X, index=(0, 0), shape=(16, 16))
    ct.store(X, index=(0, 0), tile=x ** x)
`

func TestUnsupported(t *testing.T) {
	f := buildSource(t, "unsupported.tile", unsupportedSrc, nil)
	_, err := lower.Lower(f, lower.MustTarget("sm_80"))
	if err == nil || !strings.Contains(err.Error(), "ptxgen sm_80: pow on f64 is not supported on the GPU yet") {
		t.Errorf("err = %v, want pow unsupported", err)
	}
}

func TestDumpAfter(t *testing.T) {
	var b strings.Builder
	if _, err := lower.LowerWithDump(buildExample(t, "vector_add.tile", nil), lower.MustTarget("sm_80"), "layout", &b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "// after layout") || !strings.Contains(b.String(), "#blocked0 = blocked<") || !strings.Contains(b.String(), "{layout=#blocked0, pad=zero}") {
		t.Errorf("dump:\n%s", b.String())
	}
	if _, err := lower.LowerWithDump(buildExample(t, "vector_add.tile", nil), lower.MustTarget("sm_80"), "nosuch", &b); err == nil {
		t.Errorf("unknown pass accepted")
	}
}

func TestFold(t *testing.T) {
	f := ir.NewFunc("k")
	c := func(v int64) *ir.Value {
		in := f.NewInstr(ir.OpConst, nil, ir.ScalarOf(ir.I32))
		in.Attrs.Set("value", v)
		f.Body.Append(in)
		return in.Result()
	}
	a, b := c(-7), c(2)
	d := f.Body.Append(f.NewInstr(ir.OpFloorDiv, []*ir.Value{a, b}, ir.ScalarOf(ir.I32)))
	m := f.Body.Append(f.NewInstr(ir.OpMod, []*ir.Value{a, b}, ir.ScalarOf(ir.I32)))
	f.Body.Append(f.NewInstr(ir.OpAdd, []*ir.Value{a, b}, ir.ScalarOf(ir.I32))) // dead
	f.Body.Append(f.NewInstr(ir.OpReturn, nil))
	if err := lower.Fold(f); err != nil {
		t.Fatal(err)
	}
	if d.Op != ir.OpConst || d.Attrs.Get("value") != int64(-4) {
		t.Errorf("-7 // 2 folded to %v %v, want const -4", d.Op, d.Attrs)
	}
	if m.Op != ir.OpConst || m.Attrs.Get("value") != int64(1) {
		t.Errorf("-7 %% 2 folded to %v %v, want const 1", m.Op, m.Attrs)
	}
	if n := len(f.Body.Instrs); n != 1 {
		t.Errorf("after fold+DCE %d instructions remain, want only return:\n%s", n, ir.Print(f))
	}
}
