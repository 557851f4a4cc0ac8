package bench

import (
	"fmt"
	"strings"

	"github.com/tilec/tilec/ir"
)

// Peak is a device's peak throughput: the ceiling a benchmark's figures
// are a fraction of.
type Peak struct {
	// Device names the product ("H100 SXM").
	Device string `json:"device"`
	// F16 is the dense f16/bf16 tensor-core rate with f32 accumulation,
	// TF32 the dense tf32 tensor-core rate, F32 the CUDA cores' f32 fma rate
	// (cuTile's exact float32 mma runs there), all in TFLOP/s.
	F16  float64 `json:"f16_tflops"`
	TF32 float64 `json:"tf32_tflops"`
	F32  float64 `json:"f32_tflops"`
	// GBs is the memory bandwidth in GB/s (1e9 bytes per second).
	GBs float64 `json:"gbs"`
	// Source says where the numbers come from.
	Source string `json:"source"`
}

// TFLOPS is the peak for an mma of operand dtype d (0: none known).
func (p Peak) TFLOPS(d ir.DType) float64 {
	switch d {
	case ir.F16, ir.BF16:
		return p.F16
	case ir.TF32:
		return p.TF32
	case ir.F32:
		return p.F32
	}
	return 0
}

func (p Peak) String() string {
	return fmt.Sprintf("%s: %.0f TFLOP/s dense f16/bf16, %.0f tf32, %.1f f32; %.0f GB/s (%s)",
		p.Device, p.F16, p.TF32, p.F32, p.GBs, p.Source)
}

// deviceSpec is one row of the table: the substrings of the driver's device
// name that identify the product (all must occur), its compute capability
// and its peaks.
type deviceSpec struct {
	match []string
	sm    int
	peak  Peak
}

// devices are the datasheet peaks of the GPUs tilec runs on (dense, i.e.
// half the "with sparsity" figures; boost clocks). More specific names come
// first: "H100 NVL" before "H100".
var devices = []deviceSpec{
	{[]string{"H100", "NVL"}, 90, Peak{"H100 NVL", 835.5, 417.5, 60, 3900, "NVIDIA H100 NVL datasheet"}},
	{[]string{"H100", "PCIe"}, 90, Peak{"H100 PCIe", 756.5, 378, 51.2, 2000, "NVIDIA H100 datasheet (PCIe)"}},
	{[]string{"H100"}, 90, Peak{"H100 SXM", 989.4, 494.7, 66.9, 3350, "NVIDIA H100 datasheet (SXM5, HBM3)"}},
	{[]string{"H200", "NVL"}, 90, Peak{"H200 NVL", 835.5, 417.5, 60, 4800, "NVIDIA H200 datasheet (NVL)"}},
	{[]string{"H200"}, 90, Peak{"H200 SXM", 989.4, 494.7, 66.9, 4800, "NVIDIA H200 datasheet (SXM, HBM3e)"}},
	{[]string{"A100", "80GB", "PCIe"}, 80, Peak{"A100 80GB PCIe", 312, 156, 19.5, 1935, "NVIDIA A100 datasheet"}},
	{[]string{"A100", "80GB"}, 80, Peak{"A100 SXM4 80GB", 312, 156, 19.5, 2039, "NVIDIA A100 datasheet"}},
	{[]string{"A100"}, 80, Peak{"A100 40GB", 312, 156, 19.5, 1555, "NVIDIA A100 datasheet"}},
	{[]string{"L40S"}, 89, Peak{"L40S", 362, 183, 91.6, 864, "NVIDIA L40S datasheet"}},
	{[]string{"RTX 4090"}, 89, Peak{"GeForce RTX 4090", 165.2, 82.6, 82.6, 1008, "NVIDIA Ada GPU architecture whitepaper, appendix A"}},
}

// LookupPeak finds the peaks of the device the driver names name (e.g.
// "NVIDIA H100 80GB HBM3") with compute capability sm (90; 0: any). ok
// is false for a device not in the table.
func LookupPeak(name string, sm int) (Peak, bool) {
	for _, d := range devices {
		if sm != 0 && d.sm != sm {
			continue
		}
		all := true
		for _, m := range d.match {
			if !strings.Contains(name, m) {
				all = false
				break
			}
		}
		if all {
			return d.peak, true
		}
	}
	return Peak{}, false
}

func parseDTypeName(s string) (ir.DType, bool) { return ir.ParseDType(s) }
