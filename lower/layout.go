package lower

import (
	"fmt"
	"math/bits"

	"github.com/tilec/tilec/ir"
)

// Layout says which elements of a tile each thread of the block holds in
// its registers. It is linear over GF(2) in the sense of Triton's linear
// layouts: a thread with warp index w and lane l holds registers
// r = 0..NumRegs()-1, and the coordinate of register r is the XOR (here
// always a plain sum: the bases of a layout built by this package never
// share a bit) of the bases of the set bits of r, l and w. A zero basis
// means replication: registers (or threads) that differ only in that bit
// hold the same element.
//
// A Layout is a view of the IR's layout attribute, not a second copy of
// it: the embedded *ir.Layout (kind, warp grid and bases) is the value
// recorded on the defining instruction (setLayoutAttrs) and read back by
// LayoutOf, and the view adds only what the attribute leaves to the tile's
// type or to the IR around it: the tile's shape and, for a tile in shared
// memory, the load that put it there. Like the attribute, a Layout is
// immutable once built; the constructors (Blocked, MMALayout,
// OperandLayoutFor and the transforms) are the only writers.
type Layout struct {
	*ir.Layout
	Shape []int
	// Smem is set for Kind ir.LayoutSmem: the value lives in shared memory.
	Smem *SmemTile
}

// WarpsM and WarpsN are the accumulator's warps along M and N for Kind
// ir.LayoutMMA and the operand kinds (the attribute's warp grid), 0 for
// the other kinds.
func (l *Layout) WarpsM() int { return l.warps(0) }
func (l *Layout) WarpsN() int { return l.warps(1) }

func (l *Layout) warps(i int) int {
	if len(l.Warps) != 2 {
		return 0
	}
	return l.Warps[i]
}

// newLayout is an empty view of the given kind over a copy of shape.
func newLayout(kind string, shape []int) *Layout {
	return &Layout{Layout: &ir.Layout{Kind: kind}, Shape: append([]int(nil), shape...)}
}

// SmemTile describes a tile held in shared memory: the load that put it
// there and whether the value is its transpose (a permute of the load).
type SmemTile struct {
	Load       *ir.Instr
	Transposed bool
}

// NumRegs is the number of registers (elements, with duplicates) per
// thread; for mma operand fragments, b32 registers: 4 per 16 rows of A
// and 2 per 8 columns of B a warp owns.
func (l *Layout) NumRegs() int {
	switch l.Kind {
	case ir.LayoutMMAOperandA:
		return l.Shape[0] / l.WarpsM() / 16 * 4
	case ir.LayoutMMAOperandB:
		return l.Shape[1] / l.WarpsN() / 8 * 2
	}
	return 1 << len(l.Reg)
}

// OperandLayoutFor is the fragment layout of an mma k-step operand of the
// given shape for an accumulator laid out as acc (kind mma).
func OperandLayoutFor(kind string, shape []int, acc *Layout) *Layout {
	l := newLayout(kind, shape)
	l.Warps = []int{acc.WarpsM(), acc.WarpsN()}
	return l
}

// IsOperand reports whether l is an mma operand fragment layout.
func (l *Layout) IsOperand() bool {
	return l.Kind == ir.LayoutMMAOperandA || l.Kind == ir.LayoutMMAOperandB
}

// RegCoord is the coordinate contributed by register index r.
func (l *Layout) RegCoord(r int) []int { return combine(l.Reg, r, len(l.Shape)) }

// LaneCoord is the coordinate contributed by lane index x.
func (l *Layout) LaneCoord(x int) []int { return combine(l.Lane, x, len(l.Shape)) }

// WarpCoord is the coordinate contributed by warp index x.
func (l *Layout) WarpCoord(x int) []int { return combine(l.Warp, x, len(l.Shape)) }

func combine(bases [][]int, x, rank int) []int {
	c := make([]int, rank)
	for b := 0; b < len(bases); b++ {
		if x>>b&1 == 1 {
			for d := range c {
				c[d] ^= bases[b][d]
			}
		}
	}
	return c
}

func isZero(v []int) bool {
	for _, x := range v {
		if x != 0 {
			return false
		}
	}
	return true
}

// CanonicalReg maps a register index to the smallest index holding the
// same element (registers differing only in zero-basis bits are copies).
func (l *Layout) CanonicalReg(r int) int {
	for b, v := range l.Reg {
		if isZero(v) {
			r &^= 1 << b
		}
	}
	return r
}

// ReplicatedLaneMask / ReplicatedWarpMask have the bits of lane / warp
// indices whose bases are zero: threads with such a bit set hold copies.
func (l *Layout) ReplicatedLaneMask() int { return zeroMask(l.Lane) }
func (l *Layout) ReplicatedWarpMask() int { return zeroMask(l.Warp) }

func zeroMask(bases [][]int) int {
	m := 0
	for b, v := range bases {
		if isZero(v) {
			m |= 1 << b
		}
	}
	return m
}

// ContigRegs is the number of consecutive registers (a power of two) that
// hold consecutive elements along the last dimension: the vector width of
// a global access.
func (l *Layout) ContigRegs() int {
	n := 1
	last := len(l.Shape) - 1
	for b := 0; b < len(l.Reg); b++ {
		want := make([]int, len(l.Shape))
		if last >= 0 {
			want[last] = 1 << b
		}
		if !equalInts(l.Reg[b], want) {
			break
		}
		n <<= 1
	}
	return n
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func log2(n int) int { return bits.Len(uint(n)) - 1 }

// unravel gives the row-major coordinate of linear index e in shape.
func unravel(e int, shape []int) []int {
	c := make([]int, len(shape))
	for d := len(shape) - 1; d >= 0; d-- {
		c[d] = e % shape[d]
		e /= shape[d]
	}
	return c
}

// Blocked spreads a tile over nwarps warps row-major: each thread holds vec
// consecutive elements, lanes then warps take the next chunks, and the
// pattern repeats over the rest of the tile in more registers. Threads
// beyond the tile's size hold copies.
func Blocked(shape []int, nwarps, vec int) *Layout {
	n := 1
	for _, d := range shape {
		n *= d
	}
	nb := log2(n)
	l := newLayout(ir.LayoutBlocked, shape)
	bit := 0
	next := func() []int {
		if bit >= nb {
			return make([]int, len(shape))
		}
		v := unravel(1<<bit, shape)
		bit++
		return v
	}
	for i := 0; i < log2(vec) && bit < nb; i++ {
		l.Reg = append(l.Reg, next())
	}
	for i := 0; i < 5; i++ {
		l.Lane = append(l.Lane, next())
	}
	for i := 0; i < log2(nwarps); i++ {
		l.Warp = append(l.Warp, next())
	}
	for bit < nb {
		l.Reg = append(l.Reg, next())
	}
	return l
}

// MMALayout is the accumulator layout of mma.sync m16n8 tiles over a
// (M, N) tile: warps form a wm x wn grid (warp w at (w/wn, w%wn)), each
// owns an (M/wm) x (N/wn) block made of m16n8 tiles; a thread's registers
// are ordered c (4 per m16n8 tile, as in PTX's C fragment), then n8 tiles,
// then m16 tiles: register 4*(ni + NI*mi) + c.
func MMALayout(m, n, wm, wn int) *Layout {
	l := newLayout(ir.LayoutMMA, []int{m, n})
	l.Warps = []int{wm, wn}
	rc := func(r, c int) []int { return []int{r, c} }
	tm, tn := m/wm, n/wn
	l.Reg = append(l.Reg, rc(0, 1), rc(8, 0))
	for x := 8; x < tn; x <<= 1 {
		l.Reg = append(l.Reg, rc(0, x))
	}
	for x := 16; x < tm; x <<= 1 {
		l.Reg = append(l.Reg, rc(x, 0))
	}
	l.Lane = [][]int{rc(0, 2), rc(0, 4), rc(1, 0), rc(2, 0), rc(4, 0)}
	for x := tn; x < n; x <<= 1 {
		l.Warp = append(l.Warp, rc(0, x))
	}
	for x := tm; x < m; x <<= 1 {
		l.Warp = append(l.Warp, rc(x, 0))
	}
	return l
}

// ChooseMMAWarps picks the warp grid for an (m, n) accumulator: up to
// maxWarps warps (Tuning.MaxMMAWarps; 4 gives a 128x128 tile 64x64 warp
// tiles and room for two blocks per SM), splitting the longer side while
// it is at least 64 (so warp tiles stay at least 32x32: 128x256 gives 2x4
// warps of 64x64, 64x64 gives 2x2 of 32x32), then down to one mma (16x8)
// per warp while fewer than 4 warps.
func ChooseMMAWarps(m, n, maxWarps int) (wm, wn int) {
	wm, wn = 1, 1
	for wm*wn < maxWarps {
		tm, tn := m/wm, n/wn
		switch {
		case tn >= tm && tn >= 64:
			wn *= 2
		case tm >= 64:
			wm *= 2
		default:
			goto small
		}
	}
	return wm, wn
small:
	for wm*wn < 4 {
		tm, tn := m/wm, n/wn
		switch {
		case tn >= 16 && tn >= tm/2:
			wn *= 2
		case tm >= 32:
			wm *= 2
		case tn >= 16:
			wn *= 2
		default:
			return wm, wn
		}
	}
	return wm, wn
}

// transform builds a layout of another shape from l, each basis mapped by fn.
func (l *Layout) transform(kind string, shape []int, fn func([]int) []int) *Layout {
	m := func(bs [][]int) [][]int {
		out := make([][]int, len(bs))
		for i, b := range bs {
			out[i] = fn(b)
		}
		return out
	}
	t := newLayout(kind, shape)
	t.Reg, t.Lane, t.Warp = m(l.Reg), m(l.Lane), m(l.Warp)
	return t
}

// Project is l restricted to a broadcast operand's shape: dims of size 1 in
// shape (where l's shape is larger) lose their component.
func (l *Layout) Project(shape []int) *Layout {
	return l.transform(ir.LayoutSlice, shape, func(b []int) []int {
		c := append([]int(nil), b...)
		for d := range c {
			if shape[d] == 1 {
				c[d] = 0
			}
		}
		return c
	})
}

// Squeeze maps l to a shape that has the same non-1 dims in the same order
// (a reshape that only inserts or removes size-1 dims).
func (l *Layout) Squeeze(shape []int) (*Layout, bool) {
	var from, to []int
	for d, x := range l.Shape {
		if x != 1 {
			from = append(from, d)
		}
	}
	for d, x := range shape {
		if x != 1 {
			to = append(to, d)
		}
	}
	if len(from) != len(to) {
		return nil, false
	}
	for i := range from {
		if l.Shape[from[i]] != shape[to[i]] {
			return nil, false
		}
	}
	return l.transform(ir.LayoutSlice, shape, func(b []int) []int {
		c := make([]int, len(shape))
		for i := range from {
			c[to[i]] = b[from[i]]
		}
		return c
	}), true
}

// Permute maps the layout of a permute's result to its operand: result dim
// i is operand dim perm[i].
func (l *Layout) Permute(perm []int, shape []int) *Layout {
	return l.transform(ir.LayoutSlice, shape, func(b []int) []int {
		c := make([]int, len(shape))
		for i, p := range perm {
			c[p] = b[i]
		}
		return c
	})
}

// setLayoutAttrs records l on in (the instruction defining the value) as
// its layout attribute: l's own *ir.Layout, shared, not copied. A rank-0
// tile's attribute has no bases (they would have no components); the
// layouts built here for one keep their empty lane and warp bases, which
// carry the thread counts into a reshape to size-1 dims (Squeeze), so the
// attribute recorded for them is the kind alone.
func setLayoutAttrs(in *ir.Instr, l *Layout) {
	a := l.Layout
	if len(l.Shape) == 0 && (a.Reg != nil || a.Lane != nil || a.Warp != nil) {
		a = &ir.Layout{Kind: a.Kind, Warps: a.Warps}
	}
	in.Attrs.Set(ir.AttrKeyLayout, a)
}

// InSmem reports whether in defines a tile that lives in shared memory.
func InSmem(in *ir.Instr) bool {
	l, _ := in.Attrs.Get(ir.AttrKeyLayout).(*ir.Layout)
	return l != nil && l.Kind == ir.LayoutSmem
}

// LayoutOf reads back the layout of a tile value from the lowered IR; nil
// for scalars and arrays.
func LayoutOf(v *ir.Value) (*Layout, error) {
	t, ok := v.Type.(*ir.Tile)
	if !ok {
		return nil, nil
	}
	def := v.Def
	if def == nil {
		// A loop-carried value: it has the layout of the loop's init operand.
		b := v.Block
		if b != nil && b.Parent != nil && b.Parent.Op == ir.OpWhile {
			return LayoutOf(b.Parent.Args[v.Index])
		}
		if b == nil || b.Parent == nil || b.Parent.Op != ir.OpFor || v.Index == 0 {
			return nil, fmt.Errorf("lower: no layout for block parameter %s", v)
		}
		return LayoutOf(b.Parent.Args[3+v.Index-1])
	}
	switch def.Op {
	case ir.OpFor:
		return LayoutOf(def.Args[3+v.Index])
	case ir.OpWhile:
		return LayoutOf(def.Args[v.Index])
	case ir.OpIf:
		return LayoutOf(def.Regions[0].Instrs[len(def.Regions[0].Instrs)-1].Args[v.Index])
	}
	a, _ := def.Attrs.Get(ir.AttrKeyLayout).(*ir.Layout)
	switch {
	case a == nil:
		return nil, fmt.Errorf("lower: %s (%s) has no layout", v, def.Op)
	case a.Kind == ir.LayoutSmem:
		st := &SmemTile{Load: def}
		if def.Op == ir.OpPermute || def.Op == ir.OpReshape {
			src, err := LayoutOf(def.Args[0])
			if err != nil {
				return nil, err
			}
			if src.Smem == nil {
				return nil, fmt.Errorf("lower: smem %s of a register tile", def.Op)
			}
			st = &SmemTile{Load: src.Smem.Load, Transposed: src.Smem.Transposed != (def.Op == ir.OpPermute)}
		}
		return &Layout{Layout: a, Shape: t.Shape, Smem: st}, nil
	}
	return &Layout{Layout: a, Shape: t.Shape}, nil
}

// NumWarps is the number of warps per block the lowered kernel was laid out for.
func NumWarps(f *ir.Func) int {
	if n := f.Facts.NumWarps; n > 0 {
		return n
	}
	return 4
}

// SmemBytes is the shared memory the lowered kernel uses (without alignment slack).
func SmemBytes(f *ir.Func) int { return f.Facts.SmemBytes }

// Reduce is the layout of a reduction of l along axis: every basis loses its
// axis component (threads and registers that differed only along the axis
// hold copies of the reduced value), so broadcasting the result back over
// the axis needs no data movement.
func (l *Layout) Reduce(axis int) *Layout {
	shape := append(append([]int(nil), l.Shape[:axis]...), l.Shape[axis+1:]...)
	return l.transform(ir.LayoutSlice, shape, func(b []int) []int {
		return append(append([]int(nil), b[:axis]...), b[axis+1:]...)
	})
}

// unpermute is the layout of a permute's result given its operand's
// layout: result dim i is operand dim perm[i].
func (l *Layout) unpermute(perm []int, shape []int) *Layout {
	return l.transform(ir.LayoutSlice, shape, func(b []int) []int {
		c := make([]int, len(shape))
		for i, p := range perm {
			c[i] = b[p]
		}
		return c
	})
}

// SameLayout reports whether two register layouts put every element in the
// same registers of the same threads.
func SameLayout(a, b *Layout) bool {
	if a == nil || b == nil {
		return a == b
	}
	return equalInts(flatten(a.Reg), flatten(b.Reg)) && equalInts(flatten(a.Lane), flatten(b.Lane)) &&
		equalInts(flatten(a.Warp), flatten(b.Warp)) && len(a.Reg) == len(b.Reg)
}

func flatten(bs [][]int) []int {
	out := []int{}
	for _, b := range bs {
		out = append(out, b...)
	}
	return out
}

// OperandLayout is the layout a broadcast, reshape or register permute
// wants its operand in, given the layout of its result: with it, the
// operand's registers are the result's registers. When the operand was
// given another layout (it has other consumers), ptxgen converts it
// through shared memory.
func OperandLayout(in *ir.Instr, res *Layout) (*Layout, error) {
	shape := in.Args[0].Type.(*ir.Tile).Shape
	switch in.Op {
	case ir.OpBroadcast:
		return res.Project(shape), nil
	case ir.OpReshape:
		s, ok := res.Squeeze(shape)
		if !ok {
			return nil, fmt.Errorf("reshape other than inserting or removing size-1 dims is not supported yet")
		}
		return s, nil
	case ir.OpPermute:
		return res.Permute(in.Perm(), shape), nil
	}
	return nil, fmt.Errorf("%s has no derived operand layout", in.Op)
}

// RegisterMap says how to read a tile held in layout from as layout to
// without moving data between threads: to's register r is from's register
// m[r]. That works when the two put every element in the same threads and
// differ only in how a thread numbers its registers, e.g. a row statistic
// of attention broadcast into S (tq x tkv) and into O (tq x D): both
// slices have the same lanes and warps, but O's has more (replicated)
// registers. ok is false when some element would have to move to another
// thread (a conversion through shared memory).
func RegisterMap(from, to *Layout) (m []int, ok bool) {
	if from != nil && to != nil && len(from.Shape) == 0 && len(to.Shape) == 0 {
		// A rank-0 tile is its one element in every thread, however many
		// (zero) bases its layouts list.
		return make([]int, to.NumRegs()), true
	}
	if from == nil || to == nil || !equalInts(from.Shape, to.Shape) ||
		len(from.Lane) != len(to.Lane) || len(from.Warp) != len(to.Warp) ||
		!equalInts(flatten(from.Lane), flatten(to.Lane)) || !equalInts(flatten(from.Warp), flatten(to.Warp)) {
		return nil, false
	}
	// With the same thread bases a thread's part of the coordinate is the
	// same in both layouts, and combining it with a register's part is one
	// to one: a thread holds the same element in from's register s and
	// to's register r exactly when their register parts are equal.
	reg := map[int]int{} // linear index of a register coordinate -> from's register
	lin := func(c []int) int {
		n := 0
		for d, x := range c {
			n = n*to.Shape[d] + x
		}
		return n
	}
	for r := from.NumRegs() - 1; r >= 0; r-- {
		reg[lin(from.RegCoord(r))] = r
	}
	m = make([]int, to.NumRegs())
	for r := range m {
		c := lin(to.RegCoord(r))
		if r < from.NumRegs() && lin(from.RegCoord(r)) == c {
			m[r] = r // the same numbering: keep it (SameLayout gives the identity)
			continue
		}
		s, ok := reg[c]
		if !ok {
			return nil, false
		}
		m[r] = s
	}
	return m, true
}
