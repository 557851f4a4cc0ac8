// Package benchtest is a fake bench.Device for tests of benchmarks and the
// tuner without a GPU: kernels run on the interpreter (so the checks
// against it pass, unless Corrupt says otherwise), and every timing is a
// deterministic function of the kernel chosen by the test.
package benchtest

import (
	"errors"
	"fmt"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/lower"
	"github.com/tilec/tilec/runtime"
	"github.com/tilec/tilec/runtime/bench"
	"github.com/tilec/tilec/runtime/interp"
)

// Device is a fake bench.Device.
type Device struct {
	DeviceName string // default "NVIDIA H100 80GB HBM3"
	SMVersion  int    // default 90
	TargetName string // default "sm_90"
	// MS is the time of one launch of f (required).
	MS func(f *ir.Func) float64
	// CublasMS, when set, makes GEMM baselines available (on 2-D arrays,
	// as the CUDA backend's TimeCublas).
	CublasMS func(m, n, k int) float64
	// CublasBatchedMS, when set, makes batched GEMM baselines available
	// (on 3-D arrays, as TimeCublasBatched). Without it, a batched kernel
	// gets no baseline: the fake's Prepared does not offer the interface.
	CublasBatchedMS func(batch, m, n, k int) float64
	// Corrupt, when set and true for f, makes f's results wrong (every
	// stored array's first element is changed after the launch).
	Corrupt func(f *ir.Func) bool
	// Spills, when set, is f's local memory a thread after the "JIT"
	// (bench.LocalMemory); 0 without it.
	Spills func(f *ir.Func) int
	// Prepared counts Prepare calls; Launches the kernel runs; Cold the
	// launches timed with TimeCold.
	Prepared, Launches, Cold int
	// Timed records, in order, what was timed: "tilec" for each Times
	// call, "cublas" and "cublas_batched" for each baseline's, and
	// "tilec_cold", "cublas_cold" and "cublas_batched_cold" for each launch
	// or call timed alone with a cold L2 (TimeCold, TimeCublasCold,
	// TimeCublasBatchedCold), so that a test sees which baseline ran, that
	// it alternated with tilec and that both were timed the same way.
	Timed []string
}

var _ bench.Device = (*Device)(nil)

func (d *Device) Name() string {
	if d.DeviceName == "" {
		return "NVIDIA H100 80GB HBM3"
	}
	return d.DeviceName
}

func (d *Device) SM() int {
	if d.SMVersion == 0 {
		return 90
	}
	return d.SMVersion
}

func (d *Device) Target() (*lower.Target, error) {
	name := d.TargetName
	if name == "" {
		name = "sm_90"
	}
	return lower.LookupTarget(name)
}

func (d *Device) Prepare(k *runtime.Kernel, args []runtime.Arg, grid [3]int) (bench.Prepared, error) {
	b, err := k.Bind(args, grid)
	if err != nil {
		return nil, err
	}
	d.Prepared++
	// The specialization of a generic kernel, so that MS and Corrupt see
	// the kernel that runs.
	p := &prepared{d: d, k: b.Kernel, args: args, grid: grid}
	if d.CublasBatchedMS != nil {
		return batchedPrepared{p}, nil
	}
	return p, nil
}

type prepared struct {
	d    *Device
	k    *runtime.Kernel
	args []runtime.Arg
	grid [3]int
	free bool
}

var _ bench.LocalMemory = (*prepared)(nil)

func (p *prepared) LocalBytes() int {
	if p.d.Spills == nil {
		return 0
	}
	return p.d.Spills(p.k.Func)
}

func (p *prepared) Run() error {
	if p.free {
		return errors.New("benchtest: Run after Free")
	}
	p.d.Launches++
	if _, err := interp.Launch(p.k, p.args, runtime.LaunchOptions{Grid: p.grid}); err != nil {
		return err
	}
	if p.d.Corrupt != nil && p.d.Corrupt(p.k.Func) {
		for _, i := range ir.WrittenParams(p.k.Func) {
			t := p.args[i].(*runtime.Tensor)
			t.Fill(12345)
		}
	}
	return nil
}

func (p *prepared) Download() error { return nil }

func (p *prepared) Times(warmup, iters int) ([]float64, error) {
	p.d.Timed = append(p.d.Timed, "tilec")
	ms := p.d.MS(p.k.Func)
	out := make([]float64, iters)
	for i := range out {
		// A spread around the median, the same every time.
		out[i] = ms * (1 + 0.01*float64(i%3-1))
	}
	return out, nil
}

// TimeCold runs the kernel (a host function's next launch may read what it
// stored) and returns MS exactly, whatever the host took around it.
func (p *prepared) TimeCold() (float64, error) {
	if err := p.Run(); err != nil {
		return 0, err
	}
	p.d.Cold++
	p.d.Timed = append(p.d.Timed, "tilec_cold")
	return p.d.MS(p.k.Func), nil
}

func (p *prepared) Free() error { p.free = true; return nil }

func (p *prepared) TimeCublas(a, b, c string, warmup, iters int) (float64, error) {
	if p.d.CublasMS == nil {
		return 0, errors.New("benchtest: no cuBLAS")
	}
	s, err := p.shapes(2, a, b, c)
	if err != nil {
		return 0, err
	}
	p.d.Timed = append(p.d.Timed, "cublas")
	return p.d.CublasMS(s[0][0], s[1][1], s[0][1]), nil
}

// TimeCublasCold returns CublasMS exactly, as TimeCold returns MS.
func (p *prepared) TimeCublasCold(a, b, c string) (float64, error) {
	if p.d.CublasMS == nil {
		return 0, errors.New("benchtest: no cuBLAS")
	}
	s, err := p.shapes(2, a, b, c)
	if err != nil {
		return 0, err
	}
	p.d.Timed = append(p.d.Timed, "cublas_cold")
	return p.d.CublasMS(s[0][0], s[1][1], s[0][1]), nil
}

// batchedPrepared is a prepared that also offers the batched baseline.
type batchedPrepared struct{ *prepared }

var _ bench.BatchedGEMMBaseline = batchedPrepared{}

func (p batchedPrepared) TimeCublasBatched(a, b, c string, warmup, iters int) (float64, error) {
	s, err := p.shapes(3, a, b, c)
	if err != nil {
		return 0, err
	}
	p.d.Timed = append(p.d.Timed, "cublas_batched")
	return p.d.CublasBatchedMS(s[0][0], s[0][1], s[1][2], s[0][2]), nil
}

func (p batchedPrepared) TimeCublasBatchedCold(a, b, c string) (float64, error) {
	s, err := p.shapes(3, a, b, c)
	if err != nil {
		return 0, err
	}
	p.d.Timed = append(p.d.Timed, "cublas_batched_cold")
	return p.d.CublasBatchedMS(s[0][0], s[0][1], s[1][2], s[0][2]), nil
}

// shapes are the shapes of the arrays named a, b, c, which must have the
// given rank (the CUDA backend refuses other ranks too).
func (p *prepared) shapes(rank int, a, b, c string) ([3][]int, error) {
	var shapes [3][]int
	for j, name := range []string{a, b, c} {
		for i, par := range p.k.Func.Params {
			if par.Name == name {
				shapes[j] = p.args[i].(*runtime.Tensor).Shape
			}
		}
		if len(shapes[j]) != rank {
			return shapes, fmt.Errorf("benchtest: cuBLAS needs %d-D arrays; %s is %v", rank, name, shapes[j])
		}
	}
	return shapes, nil
}
