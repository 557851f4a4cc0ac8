package ptxgen

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/lower"
	"github.com/tilec/tilec/ptxgen/internal/handir"
)

var outDir = flag.String("out", "", "TestWritePTX: directory to write PTX and JSON launch descriptions into")

// devKernel is one kernel variant for the device check script.
type devKernel struct {
	Name      string
	Ref       string // the Python reference to compare with
	DType     string
	File      string            // examples/ file, or "" for Func
	Consts    map[string]string // -D overrides
	Func      *ir.Func
	Target    string // lower.LookupTarget name ("": sm_90, what the H100 runs)
	Stages    int    // Tuning.MaxStages for this variant (0: default)
	NoDB      bool   // Tuning.FragmentDoubleBuffer off
	NoOverlap bool   // Tuning.OverlapStageWait off (the v2 schedule)
	Warps     int    // Tuning.MaxMMAWarps (0: default)
	NoStage   bool   // Tuning.StagedEpilogue off (v3's epilogue from registers)
	NoSpread  bool   // Tuning.SpreadCopies off (all copies after the first k-step)
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
		{Name: "matmul_f32", Ref: "matmul", DType: "f32", File: "matmul.tile", Consts: map[string]string{"T": "float32"}},
		{Name: "matmul_f32_tk32", Ref: "matmul", DType: "f32", File: "matmul.tile", Consts: map[string]string{"T": "float32", "tk": "32"}},
		{Name: "matmul_bt_f16", Ref: "matmul_bt", DType: "f16", File: "matmul_bt.tile", Consts: big},
		{Name: "matmul_bt_f16_64", Ref: "matmul_bt", DType: "f16", File: "matmul_bt.tile"},
		{Name: "matmul_bias_relu_f16", Ref: "matmul_bias_relu", DType: "f16", File: "matmul_bias_relu.tile", Consts: big},
		{Name: "matmul_bias_relu_f16_64", Ref: "matmul_bias_relu", DType: "f16", File: "matmul_bias_relu.tile"},
		{Name: "vector_add_f32", Ref: "vector_add", DType: "f32", File: "vector_add.tile"},
		{Name: "vector_add_f16", Ref: "vector_add", DType: "f16", File: "vector_add.tile", Consts: map[string]string{"T": "float16"}},
		{Name: "broadcast", Ref: "broadcast", DType: "f32", File: "broadcast.tile"},
		{Name: "row_bias", Ref: "row_bias", DType: "f32", Func: handir.RowBias(32, 64)},
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

// TestWritePTX writes every device kernel's PTX and launch description:
//
//	go test ./ptxgen -run TestWritePTX -args -out .dev/ptx
func TestWritePTX(t *testing.T) {
	if *outDir == "" {
		t.Skip("no -out")
	}
	if err := os.MkdirAll(*outDir, 0o755); err != nil {
		t.Fatal(err)
	}
	var index []map[string]any
	for _, dk := range devKernels() {
		if dk.Target == "" {
			dk.Target = "sm_90"
		}
		tg := lower.MustTarget(dk.Target)
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
		var k *Kernel
		if dk.File != "" {
			dk.Func, _, k = compileExample(t, dk.File, dk.Consts, tg)
		} else {
			g, err := lower.LowerOpts(dk.Func, tg, lower.Options{Verify: true})
			if err != nil {
				t.Fatalf("%s: %v", dk.Name, err)
			}
			if k, err = EmitKernel(g, tg); err != nil {
				t.Fatalf("%s: %v", dk.Name, err)
			}
		}
		path := filepath.Join(*outDir, dk.Name+".ptx")
		if err := os.WriteFile(path, []byte(k.PTX), 0o644); err != nil {
			t.Fatal(err)
		}
		var params []map[string]any
		for _, p := range dk.Func.Params {
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
		grid := []string{pyExpr(dk.Func.Grid[0]), pyExpr(dk.Func.Grid[1]), pyExpr(dk.Func.Grid[2])}
		index = append(index, map[string]any{
			"name": dk.Name, "entry": k.Name, "ptx": dk.Name + ".ptx", "target": k.Target, "ref": dk.Ref,
			"dtype": dk.DType, "block": k.Block, "smem": k.SharedBytes, "slots": slots, "params": params, "grid": grid,
		})
		t.Logf("%s: %d lines of PTX, block %v, smem %d", dk.Name, strings.Count(k.PTX, "\n"), k.Block, k.SharedBytes)
	}
	b, _ := json.MarshalIndent(index, "", "  ")
	if err := os.WriteFile(filepath.Join(*outDir, "kernels.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
}
