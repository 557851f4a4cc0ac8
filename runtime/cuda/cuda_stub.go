//go:build !cuda

package cuda

// The CUDA backend's stand-in for builds without the cuda tag: the same
// API, every call failing with ErrNoCUDA, so that callers need no build tags
// of their own. The real one is cuda.go and bench_cuda.go.

import (
	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/lower"
	"github.com/tilec/tilec/runtime"
	"github.com/tilec/tilec/runtime/kcache"
)

// Available reports whether this build has the CUDA backend.
const Available = false

// DefaultTarget is the target `tilec compile` emits for when none is named.
const DefaultTarget = "sm_80"

// GPU is the CUDA backend; in this build it cannot be opened.
type GPU struct {
	Target *lower.Target
	Cache  *kcache.Cache
}

var _ runtime.Backend = (*GPU)(nil)

// New fails with ErrNoCUDA in this build.
func New(ordinal int) (*GPU, error) { return nil, ErrNoCUDA }

func (c *GPU) Name() string                          { return "cuda" }
func (c *GPU) CompileTarget() (*lower.Target, error) { return nil, ErrNoCUDA }
func (c *GPU) DeviceName() string                    { return "none (built without cuda)" }
func (c *GPU) Facts() DeviceFacts                    { return DeviceFacts{} }
func (c *GPU) Close() error                          { return nil }
func (c *GPU) Launch(k *runtime.Kernel, args []runtime.Arg, opts runtime.LaunchOptions) (*runtime.LaunchResult, error) {
	return nil, ErrNoCUDA
}
func (c *GPU) CompileInfo(k *runtime.Kernel) (*CompileInfo, error) { return nil, ErrNoCUDA }
func (c *GPU) Prepare(k *runtime.Kernel, args []runtime.Arg, opts runtime.LaunchOptions) (*Prepared, error) {
	return nil, ErrNoCUDA
}
func (c *GPU) CublasGemm(dt ir.DType, m, n, k int, a, b, cc uint64) error { return ErrNoCUDA }
func (c *GPU) TimeCublasGemm(dt ir.DType, m, n, k int, a, b, cc uint64, warmup, iters int) (float64, error) {
	return 0, ErrNoCUDA
}
func (c *GPU) CublasGemmBatched(dt ir.DType, batch, m, n, k int, a, b, cc uint64) error {
	return ErrNoCUDA
}
func (c *GPU) TimeCublasGemmBatched(dt ir.DType, batch, m, n, k int, a, b, cc uint64, warmup, iters int) (float64, error) {
	return 0, ErrNoCUDA
}
func (c *GPU) BLASInfo() (path string, version int, err error)      { return "", 0, ErrNoCUDA }
func (c *GPU) Matmul(a, b *runtime.Tensor) (*runtime.Tensor, error) { return nil, ErrNoCUDA }

// Prepared is a kernel bound to device-resident arguments; in this build
// there are none.
type Prepared struct{}

func (p *Prepared) Run() error                                 { return ErrNoCUDA }
func (p *Prepared) Float8FastSums() bool                       { return false }
func (p *Prepared) Sync() error                                { return ErrNoCUDA }
func (p *Prepared) Times(warmup, iters int) ([]float64, error) { return nil, ErrNoCUDA }
func (p *Prepared) Time(warmup, iters int) (float64, error)    { return 0, ErrNoCUDA }
func (p *Prepared) TimeCold() (float64, error)                 { return 0, ErrNoCUDA }
func (p *Prepared) Download() error                            { return ErrNoCUDA }
func (p *Prepared) Upload() error                              { return ErrNoCUDA }
func (p *Prepared) Free() error                                { return nil }
func (p *Prepared) Info() *CompileInfo                         { return &CompileInfo{} }
func (p *Prepared) LocalBytes() int                            { return 0 }
func (p *Prepared) Grid() [3]int                               { return [3]int{} }
func (p *Prepared) Dims() map[string]int64                     { return nil }
func (p *Prepared) Ptr(name string) (uint64, error)            { return 0, ErrNoCUDA }
func (p *Prepared) TimeCublas(a, b, c string, warmup, iters int) (float64, error) {
	return 0, ErrNoCUDA
}
func (p *Prepared) TimeCublasBatched(a, b, c string, warmup, iters int) (float64, error) {
	return 0, ErrNoCUDA
}
func (p *Prepared) TimeCublasCold(a, b, c string) (float64, error)        { return 0, ErrNoCUDA }
func (p *Prepared) TimeCublasBatchedCold(a, b, c string) (float64, error) { return 0, ErrNoCUDA }
