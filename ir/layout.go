package ir

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Layout is the value of the lowered "layout" attribute: how the elements
// of the tile that an instruction defines are spread over the registers,
// lanes and warps of a block (the lower package builds and interprets it,
// through lower.Layout, a view that adds the tile's shape to this value
// without copying it; ir only holds, prints, parses and checks it).
//
// A register layout is linear, as in Triton's linear layouts: a thread
// with warp index w and lane l holds 1<<len(Reg) registers, and the tile
// coordinate of its register r is the XOR of the bases of the set bits of
// r, l and w. Each basis has one component per tile dimension; a zero
// basis means that the registers or threads differing in that bit hold
// copies. A layout of kind smem has no bases: the tile lives in shared
// memory.
//
// A Layout is immutable once set on an instruction: several instructions
// may share one. Its printed form is
//
//	mma<warps=[2, 4], reg=[[0, 1], [8, 0]], lane=[[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp=[[0, 64]]>
//	smem
//
// and the printer names each distinct register layout of a kernel once,
// before the kernel, as an alias (`#mma0 = mma<...>`) that instructions
// refer to: {layout=#mma0}.
type Layout struct {
	// Kind is LayoutBlocked, LayoutMMA, LayoutSlice or LayoutSmem.
	Kind string
	// Warps is the warp grid [along M, along N] of an mma layout; nil for
	// the other kinds.
	Warps []int
	// Reg, Lane and Warp are the bases of register, lane and warp index
	// bits. Lane has 5 bases (32 lanes), except for a rank-0 tile, whose
	// bases would all be empty and are left out.
	Reg, Lane, Warp [][]int
}

// Layout kinds.
const (
	// LayoutBlocked spreads a tile row-major over lanes and then warps,
	// a few consecutive elements per thread.
	LayoutBlocked = "blocked"
	// LayoutMMA is the accumulator layout of mma.sync m16n8 tiles over a
	// grid of warps.
	LayoutMMA = "mma"
	// LayoutSlice is derived from a neighbour's layout (a broadcast
	// operand, a reduction result, a reshape or permute).
	LayoutSlice = "slice"
	// LayoutSmem is a tile in shared memory, not in registers.
	LayoutSmem = "smem"
	// LayoutMMAOperandA and LayoutMMAOperandB are the register fragments
	// of one mma k-step's A (M x k) and B (k x N) operands, as ldmatrix
	// leaves them for mma.sync over the warp grid `warps` (the
	// accumulator's): packed pairs of 16-bit elements (or single tf32
	// elements) in b32 registers, 4 per 16 rows of A and 2 per 8 columns
	// of B that a warp owns. They have no bases: mma_step and frag_load
	// are their only users.
	LayoutMMAOperandA = "mma_a"
	LayoutMMAOperandB = "mma_b"
)

// String returns the printed form of l.
func (l *Layout) String() string {
	if l == nil {
		return "?"
	}
	var b strings.Builder
	b.WriteString(textName(l.Kind))
	if l.bare() {
		return b.String()
	}
	b.WriteString("<")
	if l.Warps != nil {
		b.WriteString("warps=")
		b.WriteString(formatAttrValue(l.Warps))
		if l.operand() {
			b.WriteString(">")
			return b.String()
		}
		b.WriteString(", ")
	}
	for i, f := range []struct {
		name  string
		bases [][]int
	}{{"reg", l.Reg}, {"lane", l.Lane}, {"warp", l.Warp}} {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(f.name)
		b.WriteString("=[")
		for j, v := range f.bases {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString(formatAttrValue(v))
		}
		b.WriteString("]")
	}
	b.WriteString(">")
	return b.String()
}

// operand reports whether l is an mma operand fragment layout.
func (l *Layout) operand() bool {
	return l.Kind == LayoutMMAOperandA || l.Kind == LayoutMMAOperandB
}

// bare reports whether l prints as its kind alone: an smem layout.
func (l *Layout) bare() bool {
	return l.Kind == LayoutSmem && l.Warps == nil && l.Reg == nil && l.Lane == nil && l.Warp == nil
}

// Equal reports whether two layouts are the same value.
func (l *Layout) Equal(m *Layout) bool {
	if l == nil || m == nil {
		return l == m
	}
	eq := func(a, b [][]int) bool { return slices.EqualFunc(a, b, slices.Equal) }
	return l.Kind == m.Kind && slices.Equal(l.Warps, m.Warps) && eq(l.Reg, m.Reg) && eq(l.Lane, m.Lane) && eq(l.Warp, m.Warp)
}

// check returns "" when l is a well-formed layout for a tile of the given
// shape, and otherwise what is wrong.
func (l *Layout) check(shape []int) string {
	if l == nil {
		return "nil layout"
	}
	switch l.Kind {
	case LayoutSmem:
		if l.Warps != nil || l.Reg != nil || l.Lane != nil || l.Warp != nil {
			return "smem layout with bases"
		}
		return ""
	case LayoutMMAOperandA, LayoutMMAOperandB:
		if len(shape) != 2 || len(l.Warps) != 2 || l.Reg != nil || l.Lane != nil || l.Warp != nil {
			return l.Kind + " layout: want a rank-2 tile, warps=[M, N] and no bases"
		}
		for _, w := range l.Warps {
			if w <= 0 || w&(w-1) != 0 {
				return fmt.Sprintf("%s layout: warps %s are not positive powers of two", l.Kind, formatAttrValue(l.Warps))
			}
		}
		return ""
	case LayoutMMA:
		if len(shape) != 2 || len(l.Warps) != 2 {
			return "mma layout: want a rank-2 tile and warps=[M, N]"
		}
		for _, w := range l.Warps {
			if w <= 0 || w&(w-1) != 0 {
				return fmt.Sprintf("mma layout: warps %s are not positive powers of two", formatAttrValue(l.Warps))
			}
		}
	case LayoutBlocked, LayoutSlice:
		if l.Warps != nil {
			return fmt.Sprintf("%s layout with warps", l.Kind)
		}
	default:
		return fmt.Sprintf("unknown layout kind %s", strconv.Quote(l.Kind))
	}
	lanes := 5 // 32 lanes
	if len(shape) == 0 {
		lanes = 0
	}
	if len(l.Lane) != lanes {
		return fmt.Sprintf("layout of a rank-%d tile has %d lane bases, want %d", len(shape), len(l.Lane), lanes)
	}
	for _, f := range []struct {
		name  string
		bases [][]int
	}{{"reg", l.Reg}, {"lane", l.Lane}, {"warp", l.Warp}} {
		for _, v := range f.bases {
			if len(shape) == 0 {
				return fmt.Sprintf("layout of a rank-0 tile has %s bases", f.name)
			}
			if len(v) != len(shape) {
				return fmt.Sprintf("layout %s basis %s, want %d components", f.name, formatAttrValue(v), len(shape))
			}
			for d, x := range v {
				if x < 0 || x >= shape[d] || x&(x-1) != 0 {
					return fmt.Sprintf("layout %s basis %s: component %d is not 0 or a power of two below %d", f.name, formatAttrValue(v), d, shape[d])
				}
			}
		}
	}
	return ""
}
