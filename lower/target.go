package lower

import (
	"fmt"
	"slices"
	"strings"
)

// Target is one GPU architecture as tilec compiles for it: what the PTX
// says (.target and .version), what the hardware allows per block, which
// tensor-core and copy instructions it has, and the tuning defaults the
// passes use. Every part of tilec that depends on the GPU reads it from
// here; the values come from one table (targets) and LookupTarget returns
// a copy, so a caller (a test, `tilec tune`) may change its Tuning without
// affecting anyone else.
type Target struct {
	// Name is the architecture as PTX spells it: "sm_80", "sm_90a".
	Name string
	// CC is the compute capability the code is for, as major*10+minor.
	CC int
	// ArchSpecific targets (the "a" suffix) use instructions that exist on
	// exactly this compute capability (wgmma, setmaxnreg, tcgen05): their
	// code runs only there, never on later GPUs.
	ArchSpecific bool
	// PTXVersion is the ISA version of the module (.version): the oldest
	// that accepts the target and every instruction tilec emits for it.
	PTXVersion string

	// SharedBytes is the most dynamic shared memory one block may use
	// (the device's opt-in maximum, cudaDevAttrMaxSharedMemoryPerBlockOptin).
	SharedBytes int
	// RegsPerThread is the most registers one thread may use.
	RegsPerThread int
	// RegsPerBlock is the register file one block may use.
	RegsPerBlock int
	// MaxThreads is the most threads one block may have.
	MaxThreads int

	// MMA lists the tensor-core instruction families the hardware has.
	MMA []MMAFamily
	// TMA: cp.async.bulk.tensor with tensor maps, completing on mbarriers.
	TMA bool
	// Clusters: thread block clusters (distributed shared memory, multicast).
	Clusters bool

	// Emitted names the MMA family tilec's back end uses for this target's
	// mma ops today. A target whose best family has no emitter yet still
	// compiles every kernel without mma; an mma there is an error that
	// says so (see Check).
	Emitted MMAFamily

	// Tuning holds the passes' defaults for this target.
	Tuning Tuning
}

// MMAFamily is a family of tensor-core instructions.
type MMAFamily string

const (
	// MMASync is warp-level mma.sync.m16n8k16 (and k8 for tf32), with
	// operands in registers loaded by ldmatrix: Ampere and later.
	MMASync MMAFamily = "mma.sync"
	// WGMMA is warpgroup-level wgmma.mma_async.m64nNk16 with operands in
	// shared memory (descriptors): Hopper's sm_90a only.
	WGMMA MMAFamily = "wgmma"
	// TCGen05 is tcgen05.mma with the accumulator in tensor memory:
	// datacenter Blackwell's sm_100a.
	TCGen05 MMAFamily = "tcgen05"
)

// Tuning is the set of choices the passes make that have no single right
// answer: each is a default here, measured on the GPU (docs/perf.md), and a
// test or a tuner changes it on its own copy of the Target.
type Tuning struct {
	// MaxMMAWarps bounds the warps of a kernel with mma (8: a 128x256
	// accumulator in 2x4 warps of 64x64).
	MaxMMAWarps int
	// MaxStages bounds the depth of a pipelined loop's shared-memory ring;
	// the smem pass uses fewer where SharedBytes does not hold them. The
	// warp-specialized GEMM ring of a small accumulator tile may go deeper
	// (warpspec's ringStages), unless the kernel's stages hint set it.
	MaxStages int
	// StagedEpilogue stores mma-layout results through shared memory with
	// 16-byte global stores (false: straight from the mma fragments).
	StagedEpilogue bool
	// OverlapStageWait moves a pipelined loop's wait for the next stage
	// into the current iteration's last k-step, so the tensor pipe does
	// not drain at every barrier.
	OverlapStageWait bool
	// EarlyStageWait places that wait before the last k-step's A fragment
	// loads (needs OverlapStageWait, FragmentDoubleBuffer and 3+ stages).
	EarlyStageWait bool
	// SpreadCopies issues the next stage's copies over the k-steps of an
	// iteration instead of all after the first.
	SpreadCopies bool
	// FragmentDoubleBuffer loads the fragments of k-step s+1 before the
	// mmas of step s.
	FragmentDoubleBuffer bool
	// ClusterPairs launches the sm_90a GEMM kernels in clusters of two
	// blocks whose TMA copies of a tile both need (the same B columns, or
	// the same A rows) are multicast, each block fetching half
	// (warpspec's pair mode; PTX.md 3.7).
	ClusterPairs bool
}

// defaultTuning is what every target starts from today: the v8 schedule of
// docs/perf.md.
var defaultTuning = Tuning{
	MaxMMAWarps:          8,
	MaxStages:            4,
	StagedEpilogue:       true,
	OverlapStageWait:     true,
	EarlyStageWait:       true,
	SpreadCopies:         true,
	FragmentDoubleBuffer: true,
	ClusterPairs:         true,
}

// targets is the table. Shared memory per block is the opt-in maximum of
// the CUDA programming guide's table of compute capabilities: 163 KiB on
// A100, 99 KiB on GA10x / AD10x / GB20x consumer parts, 227 KiB on H100 and
// B200. PTX versions are the first ISA that names the target (sm_86: 7.1,
// sm_89 and sm_90: 7.8, sm_90a: 8.0, sm_100a: 8.6, sm_120a: 8.7); sm_80
// keeps 7.0.
var targets = []Target{
	{Name: "sm_80", CC: 80, PTXVersion: "7.0", SharedBytes: 163 << 10,
		MMA: []MMAFamily{MMASync}, Emitted: MMASync},
	{Name: "sm_86", CC: 86, PTXVersion: "7.1", SharedBytes: 99 << 10,
		MMA: []MMAFamily{MMASync}, Emitted: MMASync},
	{Name: "sm_89", CC: 89, PTXVersion: "7.8", SharedBytes: 99 << 10,
		MMA: []MMAFamily{MMASync}, Emitted: MMASync},
	// sm_90 is Hopper without the arch-specific instructions: the mma.sync
	// path with Hopper's shared memory, and what runs on an H100 until the
	// sm_90a path exists.
	{Name: "sm_90", CC: 90, PTXVersion: "7.8", SharedBytes: 227 << 10,
		MMA: []MMAFamily{MMASync}, TMA: true, Clusters: true, Emitted: MMASync},
	{Name: "sm_90a", CC: 90, ArchSpecific: true, PTXVersion: "8.0", SharedBytes: 227 << 10,
		MMA: []MMAFamily{MMASync, WGMMA}, TMA: true, Clusters: true, Emitted: WGMMA},
	{Name: "sm_100a", CC: 100, ArchSpecific: true, PTXVersion: "8.6", SharedBytes: 227 << 10,
		MMA: []MMAFamily{MMASync, TCGen05}, TMA: true, Clusters: true, Emitted: TCGen05},
	// sm_120a (RTX 50) has no wgmma or tcgen05: the mma.sync path.
	{Name: "sm_120a", CC: 120, ArchSpecific: true, PTXVersion: "8.7", SharedBytes: 99 << 10,
		MMA: []MMAFamily{MMASync}, TMA: true, Clusters: true, Emitted: MMASync},
}

func init() {
	for i := range targets {
		t := &targets[i]
		t.RegsPerThread, t.RegsPerBlock, t.MaxThreads = 255, 64<<10, 1024
		t.Tuning = defaultTuning
	}
}

// emitters lists the MMA families ptxgen has emitters for. A target whose
// Emitted family is missing here compiles kernels without mma only.
var emitters = []MMAFamily{MMASync, WGMMA}

// MMAImplemented reports whether tilec can emit this target's mma ops.
func (t *Target) MMAImplemented() bool { return slices.Contains(emitters, t.Emitted) }

// Has reports whether the hardware has an MMA family.
func (t *Target) Has(f MMAFamily) bool { return slices.Contains(t.MMA, f) }

// RunsOn reports whether code for t runs on a device of compute capability
// cc: arch-specific code only on its own, other code on it and later ones.
func (t *Target) RunsOn(cc int) bool {
	if t.ArchSpecific {
		return cc == t.CC
	}
	return cc >= t.CC
}

func (t *Target) String() string { return t.Name }

// TargetNames lists the table's targets in order.
func TargetNames() []string {
	names := make([]string, len(targets))
	for i, t := range targets {
		names[i] = t.Name
	}
	return names
}

// LookupTarget returns a copy of the table's entry for name, or an error
// that lists the known targets.
func LookupTarget(name string) (*Target, error) {
	for _, t := range targets {
		if t.Name == name {
			c := t
			c.MMA = slices.Clone(t.MMA)
			return &c, nil
		}
	}
	return nil, fmt.Errorf("unknown target %q (targets: %s)", name, strings.Join(TargetNames(), ", "))
}

// MustTarget is LookupTarget for names known to be in the table.
func MustTarget(name string) *Target {
	t, err := LookupTarget(name)
	if err != nil {
		panic(err)
	}
	return t
}

// BestTarget returns the target tilec compiles for by default on a device
// of compute capability cc: the device's own arch-specific target where its
// mma path is implemented, and otherwise the newest target whose code runs
// on the device and whose mma path is implemented (sm_90 on an H100 until
// the sm_90a path exists). It fails for devices older than every target.
func BestTarget(cc int) (*Target, error) {
	var best *Target
	for i := range targets {
		t := &targets[i]
		if !t.RunsOn(cc) || !t.MMAImplemented() {
			continue
		}
		switch {
		case best == nil,
			t.ArchSpecific && !best.ArchSpecific,
			t.ArchSpecific == best.ArchSpecific && t.CC > best.CC:
			best = t
		}
	}
	if best == nil {
		return nil, fmt.Errorf("no target runs on compute capability %d.%d (tilec needs 8.0 or later)", cc/10, cc%10)
	}
	return MustTarget(best.Name), nil
}

// SMSharedBytes is the shared memory of one SM, which the blocks resident
// on it share: on every target in the table 1 KiB more than one block may
// opt in to (H100 228 KiB, A100 164 KiB, the consumer parts 100 KiB). The
// driver reserves 1 KiB of it per resident block.
func (t *Target) SMSharedBytes() int { return t.SharedBytes + 1024 }

// KernelSharedBytes is the shared memory a kernel may lay out: SharedBytes
// less the 1 KiB the kernel spends rounding its base up to 1024 bytes (the
// period of the shared tiles' swizzle).
func (t *Target) KernelSharedBytes() int { return t.SharedBytes - 1024 }
