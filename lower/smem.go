package lower

// Pass smem.
// Requires: layout (loads feeding mma carry layout=smem).
// Guarantees: every smem load (and every staged register tile) has
// row_bytes (bytes of one tile row), stage_bytes (bytes of one copy of the tile, a multiple of 1024), stages
// (copies in the ring: S >= 2 for a load in a pipelinable for body, at
// most Tuning.MaxStages and fewer where the shared memory, or the blocks
// per SM of the occupancy hint (occupancyRingBudget), do not hold more; 1
// otherwise) and smem (byte offset of copy 0 from the 1024-aligned base);
// the return has smem_bytes, the total, and scratch (the byte offset of the
// scratch region that reductions across warps and layout conversions share)
// when some instruction needs it (ScratchBytes).
//
// Shared tiles are row-major with a 16-byte-chunk XOR swizzle (SwizzleXor),
// which keeps cp.async writes and ldmatrix reads free of bank conflicts.

import (
	"strings"

	"github.com/tilec/tilec/ir"
)

// SwizzleXor is the value XORed into bits 4..6 of the byte offset of an
// element of row `row` of a shared tile with rows of rowBytes bytes: with
// rows of at least 128 bytes the 16-byte chunk index is XORed with
// row&7; narrower rows are packed into 128-byte lines, and the line index
// is used instead (CuTe's Swizzle<3,4,3> on byte addresses).
func SwizzleXor(row, rowBytes int) int {
	if rowBytes >= 128 {
		return row & 7
	}
	return (row * rowBytes >> 7) & 7
}

func roundUp(x, m int) int { return (x + m - 1) / m * m }

// AllocShared is the smem pass.
func AllocShared(f *ir.Func, t *Target) error {
	var loads []*ir.Instr
	f.Body.Walk(func(in *ir.Instr) {
		if in.Op == ir.OpLoad && InSmem(in) {
			loads = append(loads, in)
		}
	})
	uses := Uses(f)
	for _, in := range loads {
		tt := in.Result().Type.(*ir.Tile)
		// A tile of rank > 2 is a 2-D window (its other dims are 1),
		// reshaped to 2-D for the mma.
		ax, ok := WindowAxes(tt.Shape)
		if !ok {
			return unsupported(t, "mma operand tiles of rank %d are not supported yet", tt.Rank())
		}
		if tt.Rank() > 2 && ax[1] != tt.Rank()-1 {
			return unsupported(t, "mma operand tile %s: a window whose columns are not the array's last axis is not supported yet", tt)
		}
		if err := setTileBytes(t, in, tt, tt.Shape[ax[1]]); err != nil {
			return err
		}
		for _, u := range uses[in.Result()] {
			smemUse := (u.Op == ir.OpPermute || u.Op == ir.OpReshape) && InSmem(u)
			if tt.Rank() > 2 && u.Op != ir.OpReshape {
				smemUse = false // only the reshape to 2-D reads the window
			}
			if (u.Op != ir.OpMMA || tt.Rank() > 2) && !smemUse {
				return unsupported(t, "a tile loaded for mma is also used by %s; not supported yet", u.Op)
			}
			if u.Op == ir.OpReshape {
				for _, w := range uses[u.Result()] {
					if w.Op != ir.OpMMA && !(w.Op == ir.OpPermute && InSmem(w)) {
						return unsupported(t, "a tile loaded for mma is also used by %s; not supported yet", w.Op)
					}
				}
			}
		}
	}
	// Stage counts: loads in the same for body share a ring depth.
	groups := map[*ir.Instr][]*ir.Instr{} // for -> its smem loads
	var outside []*ir.Instr
	for _, in := range loads {
		if p := in.Block.Parent; p != nil && p.Op == ir.OpFor && pipelinable(in) {
			groups[p] = append(groups[p], in)
		} else {
			outside = append(outside, in)
		}
	}
	// Register tiles staged through shared memory for an mma: one copy each,
	// like the unpipelined loads.
	var staged []*ir.Instr
	f.Body.Walk(func(in *ir.Instr) {
		if in.Attrs.Bool(ir.AttrKeyStaged) {
			staged = append(staged, in)
		}
	})
	for _, in := range staged {
		tt := in.Result().Type.(*ir.Tile)
		if tt.Rank() != 2 {
			return unsupported(t, "mma operand tiles of rank %d are not supported yet", tt.Rank())
		}
		if err := setTileBytes(t, in, tt, tt.Shape[1]); err != nil {
			return err
		}
	}
	outside = append(outside, staged...)
	total := 0
	for _, in := range outside {
		in.Attrs.Set(ir.AttrKeyStages, 1)
		in.Attrs.Set(ir.AttrKeySmem, total)
		total += in.Attrs.Int(ir.AttrKeyStageBytes)
	}
	// Scratch for reductions across warps and layout conversions: one
	// region after the mma tiles, sized for the largest user (known before
	// the rings, which the occupancy budget below bounds together with it).
	scratch, serr := kernelScratchBytes(f, t)
	if serr != nil {
		return serr
	}
	occBudget := occupancyRingBudget(f, t, scratch)
	// Sibling loops do not overlap in time, so their rings share the space
	// after the unpipelined tiles. A loop nested in another pipelining loop
	// runs while the outer ring is live, so its ring starts after the
	// outer one's (sortedFors visits outer loops first).
	maxTotal := total
	ringEnd := map[*ir.Instr]int{}
	for _, g := range sortedFors(f, groups) {
		base := total
		for b := g.Block; b != nil && b.Parent != nil; b = b.Parent.Block {
			if end, ok := ringEnd[b.Parent]; ok {
				base = max(base, end)
			}
		}
		ls := groups[g]
		per := 0
		for _, in := range ls {
			per += in.Attrs.Int(ir.AttrKeyStageBytes)
		}
		// The deepest ring that fits, down to one copy (not pipelined).
		s := t.Tuning.MaxStages
		for s > 1 && base+s*per > t.KernelSharedBytes() {
			s--
		}
		// The occupancy hint shortens the ring so that its blocks fit an
		// SM together, but never below two stages: a hint does not
		// unpipeline a loop (with a ring of two that still does not fit,
		// fewer blocks are resident than asked).
		for s > 2 && base+s*per > occBudget {
			s--
		}
		if base+s*per > t.KernelSharedBytes() {
			return unsupportedAt(t, ls[0], "the mma operand tiles of this loop (%s) need %d bytes of shared memory, %d with the kernel's other shared tiles; %s allows %d per block: use smaller tiles",
				tileList(ls), per, base+per, t, t.KernelSharedBytes())
		}
		off := base
		for _, in := range ls {
			in.Attrs.Set(ir.AttrKeyStages, s)
			in.Attrs.Set(ir.AttrKeySmem, off)
			off += s * in.Attrs.Int(ir.AttrKeyStageBytes)
		}
		ringEnd[g] = off
		maxTotal = max(maxTotal, off)
	}
	if scratch > 0 {
		off := roundUp(maxTotal, 16)
		f.Facts.Scratch, f.Facts.HasScratch = off, true
		maxTotal = off + roundUp(scratch, 16)
	}
	if maxTotal > t.KernelSharedBytes() {
		return unsupportedPos(t, f.Pos, "kernel %s needs %d bytes of shared memory (%d of mma tiles, %d of reduction and conversion scratch); %s allows %d per block: use smaller tiles",
			f.Name, maxTotal, maxTotal-roundUp(scratch, 16), roundUp(scratch, 16), t, t.KernelSharedBytes())
	}
	f.Facts.SmemBytes, f.Facts.SmemSized = maxTotal, true
	return nil
}

// setTileBytes records the row_bytes and stage_bytes of a shared tile
// whose rows hold cols elements. ldmatrix reads 16-byte rows, so narrower
// tile rows are rejected; a stage is a multiple of 1024 bytes so that every
// copy starts on the swizzle pattern's period.
func setTileBytes(t *Target, in *ir.Instr, tt *ir.Tile, cols int) error {
	rb := cols * tt.DType.Bytes()
	if rb < 16 {
		return unsupported(t, "mma operand tile %s: rows of %d bytes (need >= 16)", tt, rb)
	}
	in.Attrs.Set(ir.AttrKeyRowBytes, rb)
	in.Attrs.Set(ir.AttrKeyStageBytes, roundUp(tt.NumElements()*tt.DType.Bytes(), 1024))
	return nil
}

// tileList names the tiles that loads produce, for messages.
func tileList(loads []*ir.Instr) string {
	names := make([]string, len(loads))
	for i, in := range loads {
		names[i] = in.Result().Type.String()
	}
	return strings.Join(names, ", ")
}

func sortedFors(f *ir.Func, groups map[*ir.Instr][]*ir.Instr) []*ir.Instr {
	var out []*ir.Instr
	f.Body.Walk(func(in *ir.Instr) {
		if _, ok := groups[in]; ok {
			out = append(out, in)
		}
	})
	return out
}

// pipelinable reports whether a load's tile index can be computed for a
// later iteration: every index is defined outside the loop, is the
// induction variable, or is pure scalar arithmetic on those in the body;
// and its array is defined outside the loop (not a slice or list element
// taken in the body, which the copies for a later iteration would need
// before it is made).
func pipelinable(in *ir.Instr) bool {
	loop := in.Block.Parent
	body := in.Block
	if a := in.Args[0]; a.Def != nil && inside(a.Def.Block, loop) {
		return false
	}
	var ok func(v *ir.Value) bool
	ok = func(v *ir.Value) bool {
		if v.Block == body {
			return v.Index == 0 // the induction variable
		}
		if v.Def == nil {
			return !inside(v.Block, loop)
		}
		if !inside(v.Def.Block, loop) {
			return true
		}
		if v.Def.Block != body || len(v.Def.Regions) > 0 || v.Def.Op.Info().SideEffect || v.Def.Op == ir.OpLoad {
			return false
		}
		if _, s := v.Type.(*ir.Scalar); !s {
			return false
		}
		for _, a := range v.Def.Args {
			if !ok(a) {
				return false
			}
		}
		return true
	}
	for _, a := range in.Args[1:] {
		if !ok(a) {
			return false
		}
	}
	return true
}

// inside reports whether block b is loop's body or nested in it.
func inside(b *ir.Block, loop *ir.Instr) bool {
	for b != nil {
		if b.Parent == loop {
			return true
		}
		if b.Parent == nil {
			return false
		}
		b = b.Parent.Block
	}
	return false
}

// occupancyRingBudget is the end offset that the rings of kernel f may
// reach on t so that the blocks its occupancy hint asks for (n > 1) are
// resident on one SM together: each block takes its layout, rounded up to
// 16 and followed by scratch bytes of scratch, plus 1 KiB of base
// alignment (ptxgen asks for the layout + 1024) and the 1 KiB the driver
// reserves per block, out of t.SMSharedBytes(). Without the hint, or with
// a stages hint (a demand, which `tilec tune` pairs with an occupancy and
// prunes when the pair does not fit), the budget is the whole block's.
// Without this, a loop's ring takes every stage that one block's shared
// memory holds (Tuning.MaxStages) and .minnctapersm n cannot be met: a
// flash-decode loop of 64x128 f16 K and V tiles has 4 stages of 32 KiB,
// one block per SM, where 3 stages let two blocks overlap their copies.
func occupancyRingBudget(f *ir.Func, t *Target, scratch int) int {
	n := Occupancy(f, t)
	if n <= 1 || Stages(f, t) != 0 {
		return t.KernelSharedBytes()
	}
	perBlock := t.SMSharedBytes()/n - 2*1024
	if scratch > 0 {
		perBlock -= roundUp(scratch, 16)
	}
	return perBlock
}

// kernelScratchBytes is the scratch region kernel f's exchanges need: the
// largest of them (they take turns, separated by barriers), 0 for none.
func kernelScratchBytes(f *ir.Func, t *Target) (int, error) {
	scratch := 0
	var serr error
	f.Body.Walk(func(in *ir.Instr) {
		if serr != nil {
			return
		}
		n, err := ScratchBytes(in)
		if err != nil {
			serr = unsupported(t, "%v", err)
			return
		}
		scratch = max(scratch, n)
	})
	return scratch, serr
}
