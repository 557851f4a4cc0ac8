package ir

import "fmt"

// KernelFacts are what lowering decides about a kernel as a whole rather
// than about one instruction: its block shape, its shared memory, which
// variant it is. They are zero in target-free IR. The text form prints the
// decided ones in the kernel's header, keys sorted, in the attribute
// syntax:
//
//	kernel @matmul(...)
//	    grid(cdiv(M, 128) * cdiv(N, 256), 1, 1)
//	    lowered(num_warps=8, smem_bytes=147456, variant=fast) {
type KernelFacts struct {
	// NumWarps is the warps per block that the layouts were chosen for
	// (pass layout); 0 before.
	NumWarps int
	// SmemBytes is the shared memory the kernel uses (pass smem), once
	// SmemSized.
	SmemBytes int
	// SmemSized says the smem pass has sized the kernel's shared memory
	// (so that a kernel that needs none prints smem_bytes=0).
	SmemSized bool
	// Scratch is the byte offset of the scratch region for reductions and
	// layout conversions (pass smem), when HasScratch.
	Scratch    int
	HasScratch bool
	// Variant is which of a kernel's variants this is (pass variants):
	// "fast" (launches whose arrays are 16-byte aligned) or "general"
	// (every launch); "" before.
	Variant string
	// BlockThreads is the threads per block when it is not 32*NumWarps:
	// the layouts' warps plus a producer warpgroup (pass warpspec); 0
	// otherwise.
	BlockThreads int
	// MaxRegs is the registers per thread at entry (.maxnreg), which
	// set_max_regs moves between warpgroups (pass warpspec); 0: none.
	MaxRegs int
	// Persistent kernels loop over their grid's blocks themselves: launch
	// at most one block per SM and pass the grid (pass warpspec).
	Persistent bool
	// Cluster is the blocks per cluster (.reqnctapercluster): a persistent
	// kernel whose pairs of blocks share TMA copies by multicast (pass
	// warpspec); 0: none.
	Cluster int
}

// Keys of the kernel facts in the text form.
const (
	AttrKeyNumWarps     = "num_warps"
	AttrKeyScratch      = "scratch"
	AttrKeySmemBytes    = "smem_bytes"
	AttrKeyVariant      = "variant"
	AttrKeyBlockThreads = "block_threads"
	AttrKeyMaxRegs      = "max_regs"
	AttrKeyPersistent   = "persistent"
	AttrKeyCluster      = "cluster"
)

// attrs is the decided facts as attributes sorted by key, the order the
// text form prints them in.
func (k *KernelFacts) attrs() Attrs {
	var a Attrs
	if k.BlockThreads != 0 {
		a.Set(AttrKeyBlockThreads, k.BlockThreads)
	}
	if k.Cluster != 0 {
		a.Set(AttrKeyCluster, k.Cluster)
	}
	if k.MaxRegs != 0 {
		a.Set(AttrKeyMaxRegs, k.MaxRegs)
	}
	if k.NumWarps != 0 {
		a.Set(AttrKeyNumWarps, k.NumWarps)
	}
	if k.Persistent {
		a.Set(AttrKeyPersistent, true)
	}
	if k.HasScratch {
		a.Set(AttrKeyScratch, k.Scratch)
	}
	if k.SmemSized {
		a.Set(AttrKeySmemBytes, k.SmemBytes)
	}
	if k.Variant != "" {
		a.Set(AttrKeyVariant, k.Variant)
	}
	return a
}

// set records the fact key with a value read from the text form; it
// returns a message when the key is unknown or the value of another kind.
func (k *KernelFacts) set(key string, val any) string {
	i, isInt := val.(int64)
	switch key {
	case AttrKeyPersistent:
		b, ok := val.(bool)
		if !ok {
			return fmt.Sprintf("kernel fact %s=%s, want a bool", key, formatAttrValue(val))
		}
		k.Persistent = b
		return ""
	case AttrKeyVariant:
		s, ok := val.(string)
		if !ok {
			return fmt.Sprintf("kernel fact %s=%s, want fast or general", key, formatAttrValue(val))
		}
		k.Variant = s
		return ""
	case AttrKeyNumWarps, AttrKeyScratch, AttrKeySmemBytes, AttrKeyBlockThreads, AttrKeyMaxRegs, AttrKeyCluster:
		if !isInt {
			return fmt.Sprintf("kernel fact %s=%s, want an int", key, formatAttrValue(val))
		}
	default:
		return fmt.Sprintf("unknown kernel fact %s", key)
	}
	n := int(i)
	switch key {
	case AttrKeyNumWarps:
		k.NumWarps = n
	case AttrKeyScratch:
		k.Scratch, k.HasScratch = n, true
	case AttrKeySmemBytes:
		k.SmemBytes, k.SmemSized = n, true
	case AttrKeyBlockThreads:
		k.BlockThreads = n
	case AttrKeyMaxRegs:
		k.MaxRegs = n
	case AttrKeyCluster:
		k.Cluster = n
	}
	return ""
}

// check returns a message for a fact out of its range, or "".
func (k *KernelFacts) check() string {
	for _, a := range k.attrs() {
		if n, ok := a.Val.(int64); ok && n < 0 {
			return fmt.Sprintf("kernel fact %s=%d is negative", a.Key, n)
		}
	}
	if k.Variant != "" && k.Variant != "fast" && k.Variant != "general" {
		return fmt.Sprintf("kernel fact variant=%s, want fast or general", formatAttrValue(k.Variant))
	}
	return ""
}
