// Command writeptx writes the PTX and a JSON launch description of every
// kernel variant that scripts/gpu/ptx_check.py checks on a GPU:
//
//	go run ./ptxgen/internal/writeptx -out .dev/ptx
//
// It writes DIR/NAME.ptx for each variant and DIR/kernels.json, the index.
package main

import (
	_ "embed"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/ir/build"
	"github.com/tilec/tilec/lang"
	"github.com/tilec/tilec/lower"
	"github.com/tilec/tilec/ptxgen"
)

// rowBiasIR is out[i, j] = exp(x[i, j]) * scale + bias[j] over 32x64
// tiles: 2-D blocked layouts, broadcast, a scalar parameter and unary math.
//
//go:embed row_bias.ir
var rowBiasIR string

func main() {
	out := flag.String("out", "", "directory to write PTX and kernels.json into")
	flag.Parse()
	if *out == "" || flag.NArg() != 0 {
		fmt.Fprintln(os.Stderr, "usage: go run ./ptxgen/internal/writeptx -out DIR")
		os.Exit(2)
	}
	if err := write(*out, "."); err != nil {
		fmt.Fprintln(os.Stderr, "writeptx:", err)
		os.Exit(1)
	}
}

// devKernel is one kernel variant for the device check script.
type devKernel struct {
	Name      string
	Ref       string // the Python reference to compare with
	DType     string
	File      string            // testdata/kernels/ file, or "" for IR
	Consts    map[string]string // -D overrides
	IR        string            // IR text (ir.ParseFunc) when File is ""
	Target    string            // lower.LookupTarget name ("": sm_90, what the H100 runs)
	Stages    int               // Tuning.MaxStages for this variant (0: default)
	NoDB      bool              // Tuning.FragmentDoubleBuffer off
	NoOverlap bool              // Tuning.OverlapStageWait off (the v2 schedule)
	Warps     int               // Tuning.MaxMMAWarps (0: default)
	NoStage   bool              // Tuning.StagedEpilogue off (v3's epilogue from registers)
	NoSpread  bool              // Tuning.SpreadCopies off (all copies after the first k-step)
}

var big = map[string]string{"tm": "128", "tn": "256", "tk": "64"}

func with(m map[string]string, kv ...string) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i]] = kv[i+1]
	}
	return out
}

func devKernels() []devKernel {
	return []devKernel{
		{Name: "matmul_f16", Ref: "matmul", DType: "f16", File: "matmul.tile"},
		{Name: "matmul_bf16", Ref: "matmul", DType: "bf16", File: "matmul.tile", Consts: map[string]string{"T": "bfloat16"}},
		{Name: "matmul_f32", Ref: "matmul", DType: "f32", File: "matmul.tile", Consts: map[string]string{"T": "tfloat32"}},
		{Name: "matmul_f32_tk32", Ref: "matmul", DType: "f32", File: "matmul.tile", Consts: map[string]string{"T": "tfloat32", "tk": "32"}},
		{Name: "matmul_bt_f16", Ref: "matmul_bt", DType: "f16", File: "matmul_bt.tile", Consts: big},
		{Name: "matmul_bt_f16_64", Ref: "matmul_bt", DType: "f16", File: "matmul_bt.tile"},
		{Name: "matmul_bias_relu_f16", Ref: "matmul_bias_relu", DType: "f16", File: "matmul_bias_relu.tile", Consts: big},
		{Name: "matmul_bias_relu_f16_64", Ref: "matmul_bias_relu", DType: "f16", File: "matmul_bias_relu.tile"},
		{Name: "vector_add_f32", Ref: "vector_add", DType: "f32", File: "vector_add.tile"},
		{Name: "vector_add_f16", Ref: "vector_add", DType: "f16", File: "vector_add.tile", Consts: map[string]string{"T": "float16"}},
		{Name: "broadcast", Ref: "broadcast", DType: "f32", File: "broadcast.tile"},
		{Name: "row_bias", Ref: "row_bias", DType: "f32", IR: rowBiasIR},
		{Name: "matmul_f16_s3", Ref: "matmul", DType: "f16", File: "matmul.tile", Stages: 3},
		{Name: "matmul_f16_nodb", Ref: "matmul", DType: "f16", File: "matmul.tile", NoDB: true},
		{Name: "matmul_f16_v2", Ref: "matmul", DType: "f16", File: "matmul.tile", NoOverlap: true},
		{Name: "matmul_f16_v3", Ref: "matmul", DType: "f16", File: "matmul.tile", NoStage: true, NoSpread: true},
		{Name: "matmul_f16_nospread", Ref: "matmul", DType: "f16", File: "matmul.tile", NoSpread: true},
		{Name: "matmul_bf16_nospread", Ref: "matmul", DType: "bf16", File: "matmul.tile", Consts: map[string]string{"T": "bfloat16"}, NoSpread: true},
		{Name: "matmul_f16_128x128", Ref: "matmul", DType: "f16", File: "matmul.tile", Consts: map[string]string{"tn": "128"}},
		{Name: "matmul_f16_128x128_w4s3", Ref: "matmul", DType: "f16", File: "matmul.tile", Consts: map[string]string{"tn": "128"}, Warps: 4, Stages: 3},
		{Name: "matmul_f16_128x128_w4s2", Ref: "matmul", DType: "f16", File: "matmul.tile", Consts: map[string]string{"tn": "128"}, Warps: 4, Stages: 2},
		{Name: "matmul_f16_256x128", Ref: "matmul", DType: "f16", File: "matmul.tile", Consts: map[string]string{"tm": "256", "tn": "128"}},
		{Name: "matmul_f16_tk32", Ref: "matmul", DType: "f16", File: "matmul.tile", Consts: map[string]string{"tk": "32"}},
		{Name: "matmul_f16_sm120a", Ref: "", DType: "f16", File: "matmul.tile", Target: "sm_120a"},
	}
}

// pyExpr prints a grid host expression as Python.
func pyExpr(e *ir.HostExpr) string {
	if e == nil {
		return "1"
	}
	switch e.Op {
	case ir.HostConst:
		return fmt.Sprint(e.Val)
	case ir.HostSym:
		return e.Sym
	}
	a, b := pyExpr(e.Args[0]), pyExpr(e.Args[1])
	switch e.Op {
	case ir.HostAdd:
		return "(" + a + " + " + b + ")"
	case ir.HostSub:
		return "(" + a + " - " + b + ")"
	case ir.HostMul:
		return "(" + a + " * " + b + ")"
	case ir.HostFloorDiv:
		return "(" + a + " // " + b + ")"
	case ir.HostMod:
		return "(" + a + " % " + b + ")"
	case ir.HostCdiv:
		return "(-((-" + a + ") // " + b + "))"
	case ir.HostMin:
		return "min(" + a + ", " + b + ")"
	case ir.HostMax:
		return "max(" + a + ", " + b + ")"
	}
	return "1"
}

// compile builds (from a testdata/kernels/ file under root, or from IR text),
// lowers and emits one variant.
func compile(dk devKernel, root string, tg *lower.Target) (*ir.Func, *ptxgen.Kernel, error) {
	var f *ir.Func
	if dk.File != "" {
		src, err := os.ReadFile(filepath.Join(root, "testdata", "kernels", dk.File))
		if err != nil {
			return nil, nil, err
		}
		af, err := lang.Parse(dk.File, src)
		if err != nil {
			return nil, nil, err
		}
		m, err := build.File(af, build.Options{Consts: dk.Consts})
		if err != nil {
			return nil, nil, err
		}
		f = m.Funcs[0]
	} else {
		var err error
		if f, err = ir.ParseFunc(dk.IR); err != nil {
			return nil, nil, err
		}
	}
	// The first variant: the fast one (valid for 16-byte aligned arrays
	// only, see kernels.json's variant and fast_arrays) where there are two.
	vs, err := lower.LowerVariants(f, tg, lower.Options{Verify: true})
	if err != nil {
		return nil, nil, err
	}
	k, err := ptxgen.EmitVariants(vs, tg)
	return f, k, err
}

// write writes every variant's PTX and kernels.json into dir; root is the
// repository root (where testdata/kernels/ is).
func write(dir, root string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var index []map[string]any
	for _, dk := range devKernels() {
		if dk.Target == "" {
			dk.Target = "sm_90"
		}
		tg, err := lower.LookupTarget(dk.Target)
		if err != nil {
			return err
		}
		if dk.Stages != 0 {
			tg.Tuning.MaxStages = dk.Stages
		}
		if dk.Warps != 0 {
			tg.Tuning.MaxMMAWarps = dk.Warps
		}
		tg.Tuning.StagedEpilogue = !dk.NoStage
		tg.Tuning.SpreadCopies = !dk.NoSpread
		tg.Tuning.FragmentDoubleBuffer = !dk.NoDB
		tg.Tuning.OverlapStageWait = !dk.NoOverlap
		f, k, err := compile(dk, root, tg)
		if err != nil {
			return fmt.Errorf("%s: %v", dk.Name, err)
		}
		if err := os.WriteFile(filepath.Join(dir, dk.Name+".ptx"), []byte(k.PTX), 0o644); err != nil {
			return err
		}
		var params []map[string]any
		for _, p := range f.Params {
			var dims []string
			for _, d := range p.Dims {
				dims = append(dims, d.String())
			}
			params = append(params, map[string]any{"name": p.Name, "type": p.Type.String(), "dtype": p.Type.Elem().String(), "dims": dims})
		}
		var slots []map[string]any
		for _, s := range k.Params {
			slots = append(slots, map[string]any{"kind": s.Kind.String(), "param": s.Param, "axis": s.Axis})
		}
		grid := []string{pyExpr(f.Grid[0]), pyExpr(f.Grid[1]), pyExpr(f.Grid[2])}
		index = append(index, map[string]any{
			"name": dk.Name, "entry": k.Name, "ptx": dk.Name + ".ptx", "target": k.Target, "ref": dk.Ref,
			"dtype": dk.DType, "block": k.Block, "smem": k.SharedBytes, "slots": slots, "params": params, "grid": grid,
			"variant": k.Variant, "fast_arrays": k.FastArrays,
		})
	}
	b, err := json.MarshalIndent(index, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "kernels.json"), b, 0o644)
}
