package ptxgen

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/ir/build"
	"github.com/tilec/tilec/lang"
	"github.com/tilec/tilec/lang/golden"
	"github.com/tilec/tilec/lower"
)

func TestPrinter(t *testing.T) {
	p := Reg{Pred, 3}
	for _, c := range []struct {
		in   Instr
		want string
	}{
		{Instr{Op: "add.s32", Args: []Operand{Reg{B32, 1}, Reg{B32, 2}, Imm(-5)}}, "add.s32 %r1, %r2, -5;"},
		{Instr{Op: "ld.global.v2.b16", Args: []Operand{Vec{Reg{B16, 1}, Reg{B16, 2}}, Addr{Base: Reg{B64, 7}, Off: 4}}, Guard: &p}, "@%p3 ld.global.v2.b16 {%h1, %h2}, [%rd7+4];"},
		{Instr{Op: "bra.uni", Args: []Operand{Label("$L_loop_1")}, Guard: &p, Neg: true}, "@!%p3 bra.uni $L_loop_1;"},
		{Instr{Op: "mov.f32", Args: []Operand{Reg{F32, 2}, F32Imm(1)}}, "mov.f32 %f2, 0f3F800000;"},
		{Instr{Op: "mov.f64", Args: []Operand{Reg{F64, 2}, F64Imm(-0.5)}}, "mov.f64 %fd2, 0dBFE0000000000000;"},
		{Instr{Op: "cp.async.cg.shared.global", Args: []Operand{Addr{Base: Reg{B32, 4}, Off: 8192}, Addr{Base: Reg{B64, 2}}, Imm(16), Reg{B32, 9}}}, "cp.async.cg.shared.global [%r4+8192], [%rd2], 16, %r9;"},
		{Instr{Op: "ld.param.u64", Args: []Operand{Reg{B64, 1}, Addr{Base: Sym("p_A_ptr")}}}, "ld.param.u64 %rd1, [p_A_ptr];"},
		{Instr{Label: "$L_endloop_2"}, "$L_endloop_2:"},
		{Instr{Op: "cp.async.commit_group"}, "cp.async.commit_group;"},
	} {
		if got := c.in.String(); got != c.want {
			t.Errorf("got  %s\nwant %s", got, c.want)
		}
	}
}

// compileExample parses, builds, lowers and emits one example kernel.
func compileExample(tb testing.TB, file string, consts map[string]string, t *lower.Target) (*ir.Func, *ir.Func, *Kernel) {
	tb.Helper()
	return compileFile(tb, filepath.Join("..", "testdata", "kernels", file), consts, t)
}

// compileFile parses, builds, lowers and emits the first kernel of a .tile file.
func compileFile(tb testing.TB, path string, consts map[string]string, t *lower.Target) (*ir.Func, *ir.Func, *Kernel) {
	tb.Helper()
	f := buildFile(tb, path, consts)
	g, k := lowerEmit(tb, f, t)
	return f, g, k
}

// buildFile parses and builds the first kernel of a .tile file.
func buildFile(tb testing.TB, path string, consts map[string]string) *ir.Func {
	tb.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	af, err := lang.Parse(filepath.Base(path), src)
	if err != nil {
		tb.Fatal(err)
	}
	m, err := build.File(af, build.Options{Consts: consts})
	if err != nil {
		tb.Fatal(err)
	}
	return m.Funcs[0]
}

// lowerEmit lowers f (verifying the IR after every pass) and emits its
// variants; it returns the first variant's IR and kernel (the fast one,
// with General set, where there are two).
func lowerEmit(tb testing.TB, f *ir.Func, t *lower.Target) (*ir.Func, *Kernel) {
	tb.Helper()
	vs, err := lower.LowerVariants(f, t, lower.Options{Verify: true})
	if err != nil {
		tb.Fatalf("%s: %v", f.Name, err)
	}
	k, err := EmitVariants(vs, t)
	if err != nil {
		tb.Fatalf("%s: %v", f.Name, err)
	}
	return vs[0].Func, k
}

func count(ptx, pat string) int { return len(regexp.MustCompile(pat).FindAllString(ptx, -1)) }

func TestMatmulPatterns(t *testing.T) {
	for _, c := range []struct {
		file, mma string
		consts    map[string]string
		ldm       string
	}{
		{"matmul.tile", `mma\.sync\.aligned\.m16n8k16\.row\.col\.f32\.f16\.f16\.f32`, nil, `ldmatrix\.sync\.aligned\.m8n8\.x4\.trans\.shared\.b16`},
		{"matmul.tile", `mma\.sync\.aligned\.m16n8k16\.row\.col\.f32\.bf16\.bf16\.f32`, map[string]string{"T": "bfloat16"}, `ldmatrix`},
		{"matmul.tile", `mma\.sync\.aligned\.m16n8k8\.row\.col\.f32\.tf32\.tf32\.f32`, map[string]string{"T": "tfloat32", "tk": "32"}, `cvt\.rna\.tf32\.f32`},
		{"matmul_bt.tile", `mma\.sync\.aligned\.m16n8k16`, nil, `ldmatrix\.sync\.aligned\.m8n8\.x4\.shared\.b16`},
		{"matmul_bias_relu.tile", `mma\.sync\.aligned\.m16n8k16`, nil, `max\.f32`},
	} {
		_, _, k := compileExample(t, c.file, c.consts, lower.MustTarget("sm_80"))
		ptx := k.PTX
		for _, want := range []string{c.mma, c.ldm, `cp\.async\.cg\.shared\.global \[%r\d+(\+\d+)?\], \[%rd\d+\], 16, %r\d+;`, `cp\.async\.wait_group`, `bar\.sync 0`, `\.reqntid \d+, 1, 1`, `\.extern \.shared \.align 1024 \.b8 smem\[\];`} {
			if count(ptx, want) == 0 {
				t.Errorf("%s %v: no %s", c.file, c.consts, want)
			}
		}
		for _, bad := range []string{`ld\.local`, `st\.local`} {
			if count(ptx, bad) != 0 {
				t.Errorf("%s: %s present", c.file, bad)
			}
		}
		if k.SharedBytes == 0 || k.SharedBytes > 232448 {
			t.Errorf("%s: SharedBytes %d", c.file, k.SharedBytes)
		}
	}
	// The seed kernel: 8 warps, 4 mma m16 x 8 n8 per warp per k16, 4 k16 steps per 64-wide k tile.
	_, _, k := compileExample(t, "matmul.tile", nil, lower.MustTarget("sm_80"))
	if k.Block != [3]int{256, 1, 1} {
		t.Errorf("block %v", k.Block)
	}
	// One loop in each variant.
	for _, v := range []*Kernel{k, k.General} {
		if n := count(v.PTX, `mma\.sync`); n != 4*8*4 {
			t.Errorf("%s variant: %d mma.sync, want %d", v.Variant, n, 4*8*4)
		}
	}
	if !strings.Contains(k.PTX, ".version 7.0\n.target sm_80\n.address_size 64") {
		t.Errorf("header")
	}
	_, _, k120 := compileExample(t, "matmul.tile", nil, lower.MustTarget("sm_120a"))
	if !strings.Contains(k120.PTX, ".version 8.7\n.target sm_120a\n") {
		t.Errorf("sm_120a header")
	}
}

func TestParamSlots(t *testing.T) {
	f, _, k := compileExample(t, "matmul_bias_relu.tile", nil, lower.MustTarget("sm_80"))
	var got []string
	for _, s := range k.Params {
		got = append(got, f.Params[s.Param].Name+"."+s.Kind.String()+string(rune('0'+s.Axis)))
	}
	want := "A.pointer0 A.dim0 A.dim1 A.stride0 A.stride1 B.pointer0 B.dim0 B.dim1 B.stride0 B.stride1 bias.pointer0 bias.dim0 bias.stride0 C.pointer0 C.dim0 C.dim1 C.stride0 C.stride1"
	if strings.Join(got, " ") != want {
		t.Errorf("slots %s\nwant  %s", strings.Join(got, " "), want)
	}
	if n := count(k.PTX, `\.param \.`); n != len(k.Params) {
		t.Errorf("%d .param declarations for %d slots", n, len(k.Params))
	}
}

func TestElementwisePatterns(t *testing.T) {
	_, _, k := compileExample(t, "vector_add.tile", nil, lower.MustTarget("sm_80"))
	for _, bad := range []string{`mma`, `ldmatrix`, `cp\.async`, `ld\.local`, `st\.local`, `bar\.sync`} {
		if count(k.PTX, bad) != 0 {
			t.Errorf("vector_add: %s present", bad)
		}
	}
	for _, want := range []string{`ld\.global\.v4\.b32`, `st\.global\.v4\.b32`, `add\.rn\.f32`} {
		if count(k.PTX, want) == 0 {
			t.Errorf("vector_add: no %s", want)
		}
	}
	if k.SharedBytes != 0 {
		t.Errorf("vector_add uses shared memory")
	}
	_, _, k = compileExample(t, "broadcast.tile", nil, lower.MustTarget("sm_80"))
	for _, want := range []string{`tanh\.approx\.f32`, `selp\.f32`, `abs\.f32`} {
		if count(k.PTX, want) == 0 {
			t.Errorf("broadcast: no %s", want)
		}
	}
}

// TestRowTilePatterns: a kernel keeping 8192-element rows of a 16-bit
// array in one tile runs on 16 warps (lower's elementwiseWarps) and
// moves each thread's 8 consecutive elements with one 16-byte access,
// packed in pairs (no .v8 of b16 exists in PTX).
func TestRowTilePatterns(t *testing.T) {
	_, g, k := compileExample(t, "softmax.tile", map[string]string{"T": "f16", "tm": "1", "tn": "8192"}, lower.MustTarget("sm_80"))
	if n := lower.NumWarps(g); n != 16 {
		t.Errorf("softmax tm=1 tn=8192: %d warps, want 16", n)
	}
	if k.Block != [3]int{512, 1, 1} {
		t.Errorf("block %v, want 512 threads", k.Block)
	}
	for _, want := range []string{`@%p\d+ ld\.global\.v4\.b32 \{%r\d+, %r\d+, %r\d+, %r\d+\}`, `mov\.b32 \{%h\d+, %h\d+\}, %r\d+;`,
		`@%p\d+ st\.global\.v4\.b32 \[%rd\d+\], \{%r\d+, %r\d+, %r\d+, %r\d+\}`, `mov\.b32 %r\d+, \{%h\d+, %h\d+\};`} {
		if count(k.PTX, want) == 0 {
			t.Errorf("softmax f16: no %s", want)
		}
	}
	for _, bad := range []string{`\.v8\.`, `ld\.global\.v4\.b16`, `ld\.local`} {
		if count(k.PTX, bad) != 0 {
			t.Errorf("softmax f16: %s present", bad)
		}
	}
	// Small tiles keep 4 warps.
	if _, g, _ := compileExample(t, "softmax.tile", map[string]string{"T": "f16"}, lower.MustTarget("sm_80")); lower.NumWarps(g) != 4 {
		t.Errorf("softmax 16x64: %d warps, want 4", lower.NumWarps(g))
	}
}

// TestGolden compares the PTX of small examples with testdata/<name>.txtar
// (go test ./ptxgen -update rewrites them).
func TestGolden(t *testing.T) {
	for _, name := range []string{"vector_add", "broadcast", "matmul_bt", "softmax", "layernorm", "reduction"} {
		t.Run(name, func(t *testing.T) {
			_, _, k := compileExample(t, name+".tile", nil, lower.MustTarget("sm_80"))
			a := golden.Read(t, filepath.Join("testdata", name+".txtar"))
			if len(a.Files) == 0 {
				a.Comment = []byte("PTX of testdata/kernels/" + name + ".tile for sm_80 (go test ./ptxgen -update rewrites it).\n")
			}
			a.Check(t, "ptx", k.PTX)
		})
	}
}

// TestHandIRMatchesExample checks that the seed matmul written by hand as
// IR text (testdata/matmul_hand.txtar) lowers to the same schedule as the
// IR the builder makes from testdata/kernels/matmul.tile.
func TestHandIRMatchesExample(t *testing.T) {
	f, err := ir.ParseFunc(golden.Read(t, filepath.Join("testdata", "matmul_hand.txtar")).MustSection(t, "ir"))
	if err != nil {
		t.Fatal(err)
	}
	g1, err := lower.LowerOpts(f, lower.MustTarget("sm_80"), lower.Options{Verify: true})
	if err != nil {
		t.Fatal(err)
	}
	_, g2, _ := compileExample(t, "matmul.tile", nil, lower.MustTarget("sm_80"))
	if lower.SmemBytes(g1) != lower.SmemBytes(g2) || lower.NumWarps(g1) != lower.NumWarps(g2) {
		t.Errorf("hand IR and example differ: smem %d vs %d, warps %d vs %d", lower.SmemBytes(g1), lower.SmemBytes(g2), lower.NumWarps(g1), lower.NumWarps(g2))
	}
}

// TestNoRuntimeNoCgo keeps the backend free of the runtime and of cgo.
func TestNoRuntimeNoCgo(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}} {{len .CgoFiles}}", "github.com/tilec/tilec/ptxgen", "github.com/tilec/tilec/lower").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) != 2 {
			continue
		}
		if strings.HasPrefix(f[0], "github.com/tilec/tilec/runtime") || f[0] == "C" || f[0] == "gorgonia.org/cu" {
			t.Errorf("lower/ptxgen depend on %s", f[0])
		}
		if f[1] != "0" && strings.HasPrefix(f[0], "github.com/tilec/") {
			t.Errorf("%s has cgo files", f[0])
		}
	}
}

func BenchmarkSourceToPTXMatmul(b *testing.B) {
	src, err := os.ReadFile("../testdata/kernels/matmul.tile")
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < b.N; i++ {
		af, err := lang.Parse("matmul.tile", src)
		if err != nil {
			b.Fatal(err)
		}
		m, err := build.File(af, build.Options{})
		if err != nil {
			b.Fatal(err)
		}
		g, err := lower.Lower(m.Funcs[0], lower.MustTarget("sm_80"))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := EmitKernel(g, lower.MustTarget("sm_80")); err != nil {
			b.Fatal(err)
		}
	}
}

// Integer // and % by zero give 0 on the GPU as in the interpreter
// (ir/scalar): PTX leaves div and rem by zero unspecified, so every
// quotient and remainder is selected against a zero divisor.
func TestIntDivByZeroGuard(t *testing.T) {
	src := `import cuda.tile as ct

@ct.kernel(grid=(1,))
def k(X: ct.Array[ct.int32, (N,)], Y: ct.Array[ct.int32, (N,)], Z: ct.Array[ct.int32, (N,)]):
    x = ct.load(X, index=(0,), shape=(128,))
    y = ct.load(Y, index=(0,), shape=(128,))
    ct.store(Z, index=(0,), tile=x // y + x % y)
`
	af, err := lang.Parse("k.tile", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	m, err := build.File(af, build.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tg := lower.MustTarget("sm_80")
	g, err := lower.Lower(m.Funcs[0], tg)
	if err != nil {
		t.Fatal(err)
	}
	k, err := EmitKernel(g, tg)
	if err != nil {
		t.Fatal(err)
	}
	divs := count(k.PTX, `\bdiv\.s32`) + count(k.PTX, `\brem\.s32`)
	guards := count(k.PTX, `selp\.b32 %r\d+, 0, %r\d+, %p\d+;`)
	if divs == 0 || guards*2 != divs {
		t.Errorf("%d div/rem (each op computes both), %d zero-divisor guards; want one guard per op", divs, guards)
	}
}

// float32 inputs multiply exactly (cuTile): fma chains on the CUDA cores,
// one fma.rn.f32 per accumulator element per k, no tensor cores (they
// would round the inputs to tf32).
func TestExactF32MMA(t *testing.T) {
	_, g, k := compileExample(t, "matmul.tile", map[string]string{"T": "f32", "tm": "64", "tn": "64", "tk": "32"}, lower.MustTarget("sm_80"))
	for _, bad := range []string{`mma\.sync`, `cvt\.rna\.tf32`, `ldmatrix`, `ld\.local`} {
		if n := count(k.PTX, bad); n != 0 {
			t.Errorf("%d %s in the f32 matmul", n, bad)
		}
	}
	// 64x64 accumulator over 4 warps: 32 elements per thread, 32 k per tile.
	if n := count(k.PTX, `fma\.rn\.f32`); n != 32*32 {
		t.Errorf("%d fma.rn.f32, want %d", n, 32*32)
	}
	var fma int
	g.Body.Walk(func(in *ir.Instr) {
		if in.Op == ir.OpMMAFMA {
			fma++
		}
		if in.Op == ir.OpMMAStep || in.Op == ir.OpFragLoad {
			t.Errorf("tensor-core op %s in the f32 matmul", in.Op)
		}
	})
	if fma != 1 {
		t.Errorf("%d mma_fma ops, want 1", fma)
	}
}

// log2, sin, cos, tan, sinh and cosh use PTX's approximate instructions;
// sin, cos and tan reduce their argument to [-pi, pi] first (one
// round-to-nearest of x/2pi and two fmas per call).
func TestMathSetPatterns(t *testing.T) {
	_, _, k := compileFile(t, filepath.Join("..", "runtime", "testdata", "kernels", "math_approx.tile"), nil, lower.MustTarget("sm_80"))
	for _, want := range []string{`lg2\.approx\.f32`, `sin\.approx\.f32`, `cos\.approx\.f32`, `ex2\.approx\.f32`, `div\.rn\.f32`} {
		if count(k.PTX, want) == 0 {
			t.Errorf("no %s", want)
		}
	}
	// Each element computes sin, cos and tan: two sin.approx (sin, tan) and
	// three reductions.
	if n, s := count(k.PTX, `cvt\.rni\.f32\.f32`), count(k.PTX, `sin\.approx\.f32`); n == 0 || 2*n != 3*s {
		t.Errorf("%d argument reductions (cvt.rni.f32.f32) for %d sin.approx, want 3 per 2", n, s)
	}
}

// floor, ceil, isnan, bitcast and run-time shifts are single PTX
// instructions (shift counts clamped by PTX as ir/scalar defines them).
func TestExactElementwiseOps(t *testing.T) {
	_, _, k := compileFile(t, filepath.Join("..", "runtime", "testdata", "kernels", "bits_math.tile"), nil, lower.MustTarget("sm_80"))
	for _, want := range []string{`cvt\.rmi\.f32\.f32`, `cvt\.rpi\.f32\.f32`, `testp\.notanumber\.f32`, `shl\.b32`, `shr\.s32`, `mov\.b32 %r\d+, %f\d+;`} {
		if count(k.PTX, want) == 0 {
			t.Errorf("no %s", want)
		}
	}
}

// A float remainder takes x - floor(x/y)*y in one rounding (an fma), not a
// rounded product subtracted: exact for quotients below 2^24, where the
// two roundings lost the remainder's low bits (cast_specials.tile's Rem).
func TestFloatRemainderOneRounding(t *testing.T) {
	_, _, k := compileFile(t, filepath.Join("..", "runtime", "testdata", "kernels", "cast_specials.tile"), nil, lower.MustTarget("sm_80"))
	for _, want := range []string{`cvt\.rmi\.f32\.f32`, `fma\.rn\.f32 %f\d+, %f\d+, %f\d+, %f\d+;`, `copysign\.f32`} {
		if count(k.PTX, want) == 0 {
			t.Errorf("no %s", want)
		}
	}
}
