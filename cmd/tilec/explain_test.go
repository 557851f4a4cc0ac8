package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/ir/build"
	"github.com/tilec/tilec/lang"
	"github.com/tilec/tilec/lang/golden"
	"github.com/tilec/tilec/lower"
	"github.com/tilec/tilec/runtime"
	"github.com/tilec/tilec/runtime/compile"
	"github.com/tilec/tilec/runtime/cuda"
	"github.com/tilec/tilec/runtime/host"
	"github.com/tilec/tilec/runtime/interp"
)

// hasMMA picks the kernel files of testdata/gpu/cases.txt that have an
// mma (ct.mma, ct.matmul or the @ operator); TestExplainGoldens checks
// that each one it picks does.
var hasMMA = regexp.MustCompile(`ct\.mma\(|ct\.matmul\(| @ `)

// TestExplainGoldens: `tilec compile --explain` for every kernel with an
// mma that gpu-check runs, as it is compiled there (testdata/kernels and
// the other kernel rows with their -D flags; examples/*.tile through their
// scripts; examples/cutile and the seed GEMM through their host functions,
// at the tiles those pick for the row's sizes), for sm_90a and sm_80. One
// archive per file and flags under testdata/explain, named after the first
// case; `go test ./cmd/tilec -update` rewrites them.
func TestExplainGoldens(t *testing.T) {
	root := repoRoot(t)
	cases, err := readGPUCases(filepath.Join(root, "testdata/gpu/cases.txt"))
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("TILEC_CACHE", "off")
	// One job per file and compile flags: the first row's sizes stand for
	// the others (a host function's tiles may differ at other sizes).
	seen := map[string]bool{}
	var jobs []*gpuCaseJob
	for _, j := range gpuCaseJobs(t, root, cases) {
		src, err := os.ReadFile(filepath.Join(root, j.file))
		if err != nil {
			t.Fatal(err)
		}
		key := j.file + "\x00" + strings.Join(compileFlags(j), "\x00")
		if seen[key] || !hasMMA.Match(src) {
			continue
		}
		seen[key] = true
		jobs = append(jobs, j)
	}
	for _, j := range jobs {
		t.Run(j.cases[0], func(t *testing.T) {
			a := golden.Read(t, filepath.Join("testdata/explain", j.cases[0]+".txtar"))
			a.Comment = []byte(fmt.Sprintf("tilec compile --explain of %s (go test ./cmd/tilec -update rewrites it).\n",
				strings.Join(append([]string{j.file}, j.flags...), " ")))
			for _, target := range gpuCaseTargets {
				got, err := explainJob(root, j, target)
				if err != nil {
					t.Fatalf("%s: %v", target, err)
				}
				if !strings.Contains(got, ": ") || strings.Count(got, ": "+string(lower.PathNoMMA)) == strings.Count(got, "\nkernel ")+1 {
					t.Errorf("%s on %s: no kernel with an mma; hasMMA picked it wrongly:\n%s", j.file, target, got)
				}
				a.Check(t, target, got)
			}
		})
	}
}

// repoRoot is the repository's root directory, absolute.
func repoRoot(t *testing.T) string {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// compileFlags are a job's flags without the sizes, which change what a
// host function launches but not a kernel row's compile.
func compileFlags(j *gpuCaseJob) []string {
	if j.kind == "kernel" {
		return j.flags
	}
	var out []string
	for i := 0; i < len(j.flags); i++ {
		if j.flags[i] == "--shape" || j.flags[i] == "--grid" {
			i++
			continue
		}
		out = append(out, j.flags[i])
	}
	return out
}

// explainJob is the explanation of every kernel a job compiles, with the
// repository root taken off the positions: a kernel row through the CLI,
// a script or host function through lower.Explain of each kernel it
// launches (once per specialization).
func explainJob(root string, j *gpuCaseJob, target string) (string, error) {
	path := filepath.Join(root, j.file)
	var out string
	if j.kind == "kernel" {
		var stdout, stderr bytes.Buffer
		args := append([]string{"compile", "--explain", path, "--target", target}, j.flags...)
		if rc := runCommand(args, &stdout, &stderr); rc != 0 {
			return "", fmt.Errorf("tilec %s: exit %d: %s", strings.Join(args, " "), rc, stderr.String())
		}
		out = stdout.String()
	} else {
		tg, err := lower.LookupTarget(target)
		if err != nil {
			return "", err
		}
		device := gpuCaseDevices[target]
		var b strings.Builder
		explained := map[string]bool{}
		opts := host.Options{Stdout: io.Discard, Device: &device, Launch: func(l *host.Launch) error {
			k, err := l.Kernel.Specialize(l.Args)
			if err != nil {
				return err
			}
			if key := ir.Print(k.Func); !explained[key] {
				explained[key] = true
				e, err := lower.Explain(k.Func, tg)
				if err != nil {
					return err
				}
				if b.Len() > 0 {
					b.WriteString("\n")
				}
				e.Format(&b)
			}
			if j.kind == "script" {
				// A script checks what its kernels wrote.
				_, err := interp.CPU{}.Launch(k, l.Args, runtime.LaunchOptions{Grid: l.Grid})
				return err
			}
			return nil
		}}
		switch j.kind {
		case "script":
			prog, err := loadScript(path)
			if err != nil {
				return "", err
			}
			opts.Seed = 1
			err = prog.RunMain(opts)
		case "entry":
			err = runHostCase(path, j.flags, opts)
		}
		if err != nil {
			return "", err
		}
		out = b.String()
	}
	return strings.ReplaceAll(out, root+string(filepath.Separator), ""), nil
}

// TestExplainNamesTheDecidingOp: a kernel that misses the wgmma path names
// the reason and the position of what decided it, and one that takes it
// over its own tile loop says which options it went without and why.
// guarded_matmul's k-loop sits inside an if (line 14), which is what
// decides; examples/cutile's persistent GEMM loops over its tiles itself
// (line 25), which keeps it out of 2-CTA clusters.
func TestExplainNamesTheDecidingOp(t *testing.T) {
	for _, tc := range []struct {
		name, kind, file string
		flags            []string
		want             []string
	}{
		{"guarded_matmul", "kernel", "cmd/tilec/testdata/kernels/guarded_matmul.tile",
			[]string{"--arg", "A=f16[M,K]", "--arg", "B=f16[K,N]", "--arg", "C=f16[M,N]", "-D", "tm=128", "-D", "tn=256", "-D", "tk=64"},
			[]string{"fast variant (A, B 16-byte aligned): pipelined mma.sync",
				"because cmd/tilec/testdata/kernels/guarded_matmul.tile:14:5: the mma's loop is inside this if;"}},
		{"counted_matmul", "kernel", "cmd/tilec/testdata/kernels/counted_matmul.tile",
			[]string{"--arg", "A=f16[M,K]", "--arg", "B=f16[K,N]", "--arg", "C=f16[M,N]", "--arg", "Cnt=i32[8]", "-D", "tm=128", "-D", "tn=256", "-D", "tk=64"},
			[]string{"fast variant (A, B 16-byte aligned): pipelined mma.sync",
				"because cmd/tilec/testdata/kernels/counted_matmul.tile:13:5: atomic_rmw before the mma's loop: both roles run that code"}},
		{"persistent_matmul", "entry", "examples/cutile/persistent_matmul.py",
			[]string{"--entry", "persistent_matmul", "--arg", "A=f16[M,K]", "--arg", "B=f16[K,N]", "--scalar", "num_sms=5", "--shape", "M=256,K=256,N=256"},
			[]string{"fast variant (A, B, C 16-byte aligned): warp-specialized TMA + wgmma over the kernel's tile loop",
				"examples/cutile/persistent_matmul.py:25:5: no 2-CTA clusters: the kernel's own tile loop picks each block's tiles"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := explainJob(repoRoot(t), &gpuCaseJob{kind: tc.kind, file: tc.file, flags: tc.flags}, "sm_90a")
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("explanation lacks %q:\n%s", w, got)
				}
			}
		})
	}
}

// TestExplainCLI: --explain prints every kernel of a file, goes without
// --emit, and a kernel that is on the fastest path has no reason.
func TestExplainCLI(t *testing.T) {
	var stdout, stderr bytes.Buffer
	rc := runCommand([]string{"compile", "--explain", "../../testdata/kernels/matmul.tile", "-D", "T=f16", "--target", "sm_80"}, &stdout, &stderr)
	if rc != 0 {
		t.Fatalf("exit %d: %s", rc, stderr.String())
	}
	got := stdout.String()
	if !strings.Contains(got, "kernel matmul on sm_80 (fastest path: pipelined mma.sync)") || strings.Contains(got, "because") {
		t.Errorf("sm_80 matmul: want the fastest path with no reason, got\n%s", got)
	}
	stdout.Reset()
	stderr.Reset()
	rc = runCommand([]string{"compile", "--explain", "--emit", "ptx", "../../testdata/kernels/matmul.tile", "-D", "T=f16"}, &stdout, &stderr)
	if rc == 0 || !strings.Contains(stderr.String(), "--explain prints the path choices only") {
		t.Errorf("--explain --emit ptx: exit %d, stderr %q; want a usage error", rc, stderr.String())
	}
}

// TestCompiledLineNamesThePath: the kernels compile.PTXFor returns carry
// each variant's path, and the compiled line of tilec run (CompileInfo's
// Summary) shows it.
func TestCompiledLineNamesThePath(t *testing.T) {
	src, err := os.ReadFile("../../testdata/kernels/matmul.tile")
	if err != nil {
		t.Fatal(err)
	}
	file, err := lang.ParseProgram("matmul.tile", src)
	if err != nil {
		t.Fatal(err)
	}
	mod, err := build.File(file, build.Options{Consts: map[string]string{"T": "f16"}})
	if err != nil {
		t.Fatal(err)
	}
	pk, err := compile.PTXFor(mod.Funcs[0], lower.MustTarget("sm_90a"))
	if err != nil {
		t.Fatal(err)
	}
	if pk.Path != string(lower.PathWarpSpecialized) || pk.General == nil || pk.General.Path != string(lower.PathPipelinedMMASync) {
		t.Errorf("paths %q and %v, want the fast variant's %q and the general one's %q", pk.Path, pk.General, lower.PathWarpSpecialized, lower.PathPipelinedMMASync)
	}
	info := &cuda.CompileInfo{Kernel: pk.Name, Target: pk.Target, Variant: pk.Variant, Path: pk.Path, Block: pk.Block}
	if got, want := info.Summary(), "matmul sm_90a (fast variant), warp-specialized persistent TMA + wgmma: block 384x1x1"; !strings.HasPrefix(got, want) {
		t.Errorf("compiled line %q, want it to start %q", got, want)
	}
}

// The GEMM family of testdata/kernels (plain, bias + ReLU epilogue, B
// transposed, batched, row softmax epilogue) takes the warp-specialized
// wgmma path on sm_90a at small and at the seed's tiles (64x64x32 with the
// 64-byte swizzle, 128x256x64), in f16 and bf16: their PTX issues
// wgmma.mma_async. A change that drops one of them off the path fails
// here, without a GPU.
func TestGEMMFamilyTakesWGMMA(t *testing.T) {
	root := repoRoot(t)
	for _, k := range []string{"matmul", "matmul_bias_relu", "matmul_bt", "batched_matmul", "matmul_softmax"} {
		for _, tiles := range [][3]string{{"64", "64", "32"}, {"128", "256", "64"}} {
			for _, dt := range []string{"f16", "bf16"} {
				kern, err := compile.File(filepath.Join(root, "testdata", "kernels", k+".tile"), compile.Options{
					Consts: map[string]string{"T": dt, "tm": tiles[0], "tn": tiles[1], "tk": tiles[2]}})
				if err != nil {
					t.Fatalf("%s: %v", k, err)
				}
				pk, err := compile.PTX(kern.Func, "sm_90a")
				if err != nil {
					t.Fatalf("%s %v %s: %v", k, tiles, dt, err)
				}
				if !strings.Contains(pk.PTX, "wgmma.mma_async") {
					t.Errorf("%s at %sx%sx%s, %s: no wgmma on sm_90a (path %q)", k, tiles[0], tiles[1], tiles[2], dt, pk.Path)
				}
			}
		}
	}
}

// float8 GEMMs with B given as (N, K) and use_fast_acc take wgmma on
// sm_90a (k32, both operands K-major) at 64 and 128 bytes of K per stage,
// e4m3 and e5m2 B; with B given as (K, N), or without use_fast_acc, they
// keep mma.sync, and --explain says why.
func TestFloat8GEMMTakesWGMMA(t *testing.T) {
	root := repoRoot(t)
	file := filepath.Join(root, "runtime", "testdata", "kernels", "float8_matmul.tile")
	for _, tc := range []struct {
		kernel, tm, tn, tk, tb, fast string
		wgmma                        bool
	}{
		{"float8_matmul_bt", "64", "64", "64", "f8e4m3", "True", true},
		{"float8_matmul_bt", "128", "256", "128", "f8e4m3", "True", true},
		{"float8_matmul_bt", "64", "128", "64", "f8e5m2", "True", true},
		{"float8_matmul_bt", "128", "256", "128", "f8e4m3", "False", false},
		{"float8_matmul", "128", "256", "128", "f8e4m3", "", false},
	} {
		consts := map[string]string{"TB": tc.tb, "tm": tc.tm, "tn": tc.tn, "tk": tc.tk}
		if tc.fast != "" {
			consts["FAST"] = tc.fast
		}
		kern, err := compile.File(file, compile.Options{Kernel: tc.kernel, Consts: consts})
		if err != nil {
			t.Fatalf("%s: %v", tc.kernel, err)
		}
		pk, err := compile.PTX(kern.Func, "sm_90a")
		if err != nil {
			t.Fatalf("%s %sx%sx%s: %v", tc.kernel, tc.tm, tc.tn, tc.tk, err)
		}
		want := fmt.Sprintf("wgmma.mma_async.sync.aligned.m64n%sk32.f32.e4m3.%s ", tc.tn, strings.TrimPrefix(tc.tb, "f8"))
		if got := strings.Contains(pk.PTX, want); got != tc.wgmma {
			t.Errorf("%s at %sx%sx%s, B %s, FAST=%s: %q in the PTX is %v, want %v (path %q)", tc.kernel, tc.tm, tc.tn, tc.tk, tc.tb, tc.fast, want, got, tc.wgmma, pk.Path)
		}
	}
}

// Attention with float8 Q, K and V compiles for sm_90a on mma.sync: the
// attention path's P V reads P from registers, which wgmma takes for
// 16-bit types only (it was an internal error once the TMA operands
// admitted float8 for the GEMM path).
func TestFloat8AttentionKeepsMMASync(t *testing.T) {
	args := map[string]build.ArgSig{}
	for name, sig := range map[string]string{"Q": "f8e4m3[S,128]", "K": "f8e4m3[S,128]", "V": "f8e4m3[S,128]", "O": "f16[S,128]"} {
		a, err := build.ParseArgSig(sig)
		if err != nil {
			t.Fatal(err)
		}
		args[name] = a
	}
	kern, err := compile.File(filepath.Join(repoRoot(t), "examples", "attention.tile"), compile.Options{Kernel: "attention_kernel",
		Args: args, Consts: map[string]string{"D": "128", "tq": "64", "tkv": "64", "CAUSAL": "False"}})
	if err != nil {
		t.Fatal(err)
	}
	pk, err := compile.PTX(kern.Func, "sm_90a")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(pk.PTX, "wgmma") || !strings.Contains(pk.PTX, "mma.sync") {
		t.Errorf("float8 attention on sm_90a: path %q, want mma.sync", pk.Path)
	}
}
