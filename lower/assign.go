package lower

// Pass layout.
// Requires: check (every op is supported on the target).
// Guarantees: every instruction that defines a tile has a layout attribute:
//   - smem: loads whose tile feeds an mma operand (and permutes of them,
//     and the reshape of a 2-D window of a higher-rank array to 2-D); the
//     tile is copied to shared memory and read with ldmatrix. An mma
//     operand computed in registers in the mma's block instead keeps its
//     register layout and gets staged=true (ptxgen writes it to shared
//     memory for the mma);
//   - mma: the accumulator of mma and every value joined to it by
//     elementwise ops, converts, loops and stores (the epilogue stays in
//     the registers the mma left it in);
//   - slice: a layout derived from a consumer's layout (the operand of a
//     broadcast, a size-1 reshape, a register permute) or from an operand's
//     (a reduce's result: the operand's layout without the reduced axis);
//   - blocked: everything else, spread row-major over the block's threads.
// Values joined by elementwise ops, for/if carried values and yields share
// one layout. The return gets num_warps. Every mma accumulator is spread
// over those warps in a grid chosen in warps.go.

import (
	"github.com/tilec/tilec/ir"
)

type unionFind struct{ parent map[*ir.Value]*ir.Value }

func (u *unionFind) find(v *ir.Value) *ir.Value {
	p, ok := u.parent[v]
	if !ok || p == v {
		u.parent[v] = v
		return v
	}
	r := u.find(p)
	u.parent[v] = r
	return r
}

func (u *unionFind) union(a, b *ir.Value) {
	ra, rb := u.find(a), u.find(b)
	if ra != rb {
		u.parent[ra] = rb
	}
}

func isTile(v *ir.Value) bool { _, ok := v.Type.(*ir.Tile); return ok }

// derived says that the layout of value from is fn(layout of value to).
// A soft edge (a forward one: a reduce's result from its operand, a
// reshape's or permute's result from its operand) only propagates layouts;
// a mismatch is not checked (ptxgen converts where layouts disagree).
type derived struct {
	from, to *ir.Value
	fn       func(*Layout) (*Layout, error)
	soft     bool
}

// AssignLayouts is the layout pass.
func AssignLayouts(f *ir.Func, t *Target) error { return assignLayouts(f, t, false) }

// assignLayouts is the layout pass; warpgroups gives the accumulators of a
// kernel that the warpspec pass runs on wgmma the warpgroup grid (rows
// over warps, 16 each) instead of the mma.sync grid: warpspec re-lays its
// own variant that way, and the general variant keeps the mma.sync grid.
func assignLayouts(f *ir.Func, t *Target, warpgroups bool) error {
	u := &unionFind{parent: map[*ir.Value]*ir.Value{}}
	var order []*ir.Value // tile values in program order
	var edges []derived
	var reduced []*ir.Value // operands of reduces, in program order
	smemLoads := map[*ir.Instr]bool{}
	smemPermutes := map[*ir.Instr]bool{}
	staged := map[*ir.Instr]bool{} // register tiles also written to shared memory for an mma
	var mmas []*ir.Instr
	var err error

	// markSmem follows an mma operand back to the load that must go
	// through shared memory.
	var markSmem func(v *ir.Value, mma *ir.Instr) error
	markSmem = func(v *ir.Value, mma *ir.Instr) error {
		if v.Def != nil && v.Def.Op == ir.OpLoad {
			smemLoads[v.Def] = true
			return nil
		}
		if v.Def != nil && v.Def.Op == ir.OpPermute {
			if d := v.Def.Args[0].Def; d == nil || !(d.Op == ir.OpLoad || isWindowReshape(d)) {
				return unsupported(t, "mma operand %s: a transposed tile computed in registers is not supported yet", v)
			}
			smemPermutes[v.Def] = true
			return markSmem(v.Def.Args[0], mma)
		}
		if v.Def != nil && isWindowReshape(v.Def) {
			// A reshape that drops the size-1 dims of a loaded tile (a
			// 2-D window of a higher-rank array): part of the load, the
			// window goes to shared memory like a 2-D load.
			smemPermutes[v.Def] = true
			return markSmem(v.Def.Args[0], mma)
		}
		if v.Def != nil && len(v.Def.Results) == 1 && len(v.Def.Regions) == 0 && v.Def.Block == mma.Block {
			// A tile computed in registers: it keeps its register layout
			// and is also written to shared memory for the mma (staged).
			staged[v.Def] = true
			return nil
		}
		return unsupported(t, "mma operand %s must come straight from ct.load (optionally transposed); register operands are not supported yet", v)
	}

	f.Body.Walk(func(in *ir.Instr) {
		if err != nil {
			return
		}
		for _, r := range in.Results {
			if isTile(r) {
				order = append(order, r)
				u.find(r)
			}
		}
		for _, r := range in.Regions {
			for _, p := range r.Params {
				if isTile(p) {
					order = append(order, p)
					u.find(p)
				}
			}
		}
		switch {
		case in.Op == ir.OpMMA:
			acc := in.Result().Type.(*ir.Tile)
			if acc.Rank() != 2 {
				err = unsupported(t, "batched mma (rank %d) is not supported yet", acc.Rank())
				return
			}
			u.union(in.Result(), in.Args[2])
			mmas = append(mmas, in)
			if e := markSmem(in.Args[0], in); e != nil {
				err = e
				return
			}
			if e := markSmem(in.Args[1], in); e != nil {
				err = e
			}
		case in.Op.Info().Elementwise:
			for _, a := range in.Args {
				if isTile(a) {
					u.union(in.Result(), a)
				}
			}
		case ir.ElementAccess(in.Op):
			// Element e of every index, value and mask tile (and of the
			// result) is one access: one layout for all of them.
			var first *ir.Value
			for _, a := range append(append([]*ir.Value(nil), in.Args...), in.Results...) {
				if !isTile(a) {
					continue
				}
				if first == nil {
					first = a
				} else {
					u.union(first, a)
				}
			}
		case in.Op == ir.OpFor:
			body := in.Regions[0]
			y := body.Instrs[len(body.Instrs)-1]
			for i, r := range in.Results {
				if isTile(r) {
					u.union(r, in.Args[3+i])
					u.union(r, body.Params[1+i])
					u.union(r, y.Args[i])
				}
			}
		case in.Op == ir.OpWhile:
			cond, body := in.Regions[0], in.Regions[1]
			y := body.Instrs[len(body.Instrs)-1]
			for i, r := range in.Results {
				if isTile(r) {
					u.union(r, in.Args[i])
					u.union(r, cond.Params[i])
					u.union(r, body.Params[i])
					u.union(r, y.Args[i])
				}
			}
		case in.Op == ir.OpIf:
			for ri := range in.Regions {
				b := in.Regions[ri]
				y := b.Instrs[len(b.Instrs)-1]
				for i, r := range in.Results {
					if isTile(r) {
						u.union(r, y.Args[i])
					}
				}
			}
		case in.Op == ir.OpBroadcast:
			shape := in.Args[0].Type.(*ir.Tile).Shape
			edges = append(edges, derived{from: in.Args[0], to: in.Result(), fn: func(l *Layout) (*Layout, error) {
				return l.Project(shape), nil
			}})
		case in.Op == ir.OpReshape && GeneralReshape(in):
			// Through scratch: the result's layout is its own.
		case in.Op == ir.OpReshape:
			shape := in.Args[0].Type.(*ir.Tile).Shape
			rshape := in.Result().Type.(*ir.Tile).Shape
			edges = append(edges, derived{from: in.Args[0], to: in.Result(), fn: func(l *Layout) (*Layout, error) {
				s, ok := l.Squeeze(shape)
				if !ok {
					return nil, unsupported(t, "reshape other than inserting or removing size-1 dims is not supported yet")
				}
				return s, nil
			}})
			edges = append(edges, derived{from: in.Result(), to: in.Args[0], soft: true, fn: func(l *Layout) (*Layout, error) {
				s, _ := l.Squeeze(rshape)
				return s, nil
			}})
		case in.Op == ir.OpPermute:
			perm := in.Perm()
			shape := in.Args[0].Type.(*ir.Tile).Shape
			rshape := in.Result().Type.(*ir.Tile).Shape
			edges = append(edges, derived{from: in.Args[0], to: in.Result(), fn: func(l *Layout) (*Layout, error) {
				return l.Permute(perm, shape), nil
			}})
			edges = append(edges, derived{from: in.Result(), to: in.Args[0], soft: true, fn: func(l *Layout) (*Layout, error) {
				return l.unpermute(perm, rshape), nil
			}})
		case in.Op == ir.OpReduce:
			axis := in.Axis()
			reduced = append(reduced, in.Args[0])
			edges = append(edges, derived{from: in.Result(), to: in.Args[0], soft: true, fn: func(l *Layout) (*Layout, error) {
				return l.Reduce(axis), nil
			}})
		}
	})
	if err != nil {
		return err
	}

	// Warp grids (warps.go): one per accumulator, that is per class of
	// mma results, all over the same number of warps.
	var accs []accumulator
	seen := map[*ir.Value]bool{}
	for _, in := range mmas {
		r := u.find(in.Result())
		if seen[r] {
			continue
		}
		seen[r] = true
		s := in.Result().Type.(*ir.Tile).Shape
		accs = append(accs, accumulator{root: r, m: s[0], n: s[1], mma: in})
	}
	grids, nwarps, err := chooseMMAGrids(t, accs)
	if err != nil {
		return err
	}
	if nwarps == 0 {
		nwarps = elementwiseWarps(f)
	}
	if !warpgroups {
		// the mma.sync grids above
	} else if lp, _ := findWGMMALoop(f, t); lp != nil && len(accs) == 1 {
		// wgmma's accumulator: each consumer warpgroup owns 64 rows, each
		// of its warps 16 of them across all columns (warpspec.go).
		grids[accs[0].root] = [2]int{lp.m / 16, 1}
		nwarps = lp.m / 16
	} else if al, _ := findAttnLoop(f, t); al != nil {
		// Attention on wgmma: every accumulator in the warpgroup layout
		// (warpspec_attn.go); rows stay split over warps.
		for _, a := range accs {
			grids[a.root] = [2]int{al.tq / 16, 1}
		}
		nwarps = al.tq / 16
	}

	// The narrowest element of a global load or store in each class: the
	// vector width of a blocked layout is chosen for it.
	accessBytes := map[*ir.Value]int{}
	f.Body.Walk(func(in *ir.Instr) {
		var v *ir.Value
		switch in.Op {
		case ir.OpLoad:
			v = in.Result()
		case ir.OpStore:
			v = in.Args[len(in.Args)-1]
		default:
			return
		}
		at, ok := in.Args[0].Type.(*ir.Array)
		if !ok || !isTile(v) || at.DType == ir.Bool {
			return
		}
		r := u.find(v)
		if b, seen := accessBytes[r]; !seen || at.DType.Bytes() < b {
			accessBytes[r] = at.DType.Bytes()
		}
	})

	// Layout per class root.
	layouts := map[*ir.Value]*Layout{}
	for _, a := range accs {
		g := grids[a.root]
		layouts[a.root] = MMALayout(a.m, a.n, g[0], g[1])
	}
	smemVals := map[*ir.Value]bool{}
	for in := range smemLoads {
		smemVals[in.Result()] = true
	}
	for in := range smemPermutes {
		smemVals[in.Result()] = true
	}
	pos := map[*ir.Value]int{}
	for i, v := range order {
		pos[v] = i
	}
	for {
		// Propagate derived layouts from consumers to operands.
		for changed := true; changed; {
			changed = false
			for _, e := range edges {
				if smemVals[e.from] {
					continue
				}
				rt, rf := u.find(e.to), u.find(e.from)
				lt := layouts[rt]
				if lt == nil || layouts[rf] != nil {
					continue
				}
				if smemVals[e.to] {
					continue
				}
				lf, err := e.fn(lt)
				if err != nil {
					return err
				}
				if lf == nil {
					continue
				}
				layouts[rf] = lf
				changed = true
			}
		}
		// Give the latest unassigned class a blocked layout: first the
		// operands of reductions (so that their results, and the row
		// statistics computed from them, take the slice layout and
		// broadcast back for free), then everything else.
		var pick *ir.Value
		for i := len(reduced) - 1; i >= 0 && pick == nil; i-- {
			v := reduced[i]
			if !smemVals[v] && layouts[u.find(v)] == nil {
				pick = v
			}
		}
		for i := len(order) - 1; i >= 0 && pick == nil; i-- {
			v := order[i]
			if !smemVals[v] && layouts[u.find(v)] == nil {
				pick = v
			}
		}
		if pick == nil {
			break
		}
		s := pick.Type.(*ir.Tile).Shape
		n := pick.Type.(*ir.Tile).NumElements()
		vec := 4
		if b, ok := accessBytes[u.find(pick)]; ok && b < 4 {
			// 16 bytes a thread per global access: 8 elements of a
			// 16-bit array (ptxgen packs them in pairs), as 4 of f32.
			vec = 8
		}
		for vec > 1 && (n < vec*32*nwarps || len(s) == 0 || s[len(s)-1]%vec != 0) {
			vec /= 2
		}
		layouts[u.find(pick)] = Blocked(s, nwarps, vec)
	}
	// Check derived edges can be computed. An operand whose layout is not
	// the one its consumer derives (it is needed in two layouts) is
	// converted through shared memory by ptxgen (the smem pass reserves
	// the scratch for it).
	for _, e := range edges {
		if e.soft || smemVals[e.from] || smemVals[e.to] {
			continue
		}
		if _, err := e.fn(layouts[u.find(e.to)]); err != nil {
			return err
		}
	}
	// Record.
	var rec func(b *ir.Block)
	rec = func(b *ir.Block) {
		for _, in := range b.Instrs {
			for _, r := range in.Regions {
				rec(r)
			}
			if len(in.Results) != 1 || !isTile(in.Result()) || in.Op == ir.OpFor || in.Op == ir.OpIf || in.Op == ir.OpWhile {
				continue
			}
			if smemLoads[in] || smemPermutes[in] {
				setLayoutAttrs(in, &Layout{Layout: &ir.Layout{Kind: ir.LayoutSmem}})
				continue
			}
			setLayoutAttrs(in, layouts[u.find(in.Result())])
			if staged[in] && !aInRegisters(in.Result(), layouts[u.find(in.Result())], mmas, func(v *ir.Value) *Layout { return layouts[u.find(v)] }) {
				in.Attrs.Set(ir.AttrKeyStaged, true)
			}
		}
	}
	rec(f.Body)
	f.Facts.NumWarps = nwarps
	return nil
}

// isWindowReshape reports whether in reshapes a loaded tile of rank > 2
// with exactly two dims larger than 1 to those two dims: the load is then
// of a 2-D window of its array, at a fixed index along the other axes.
func isWindowReshape(in *ir.Instr) bool {
	if in.Op != ir.OpReshape || in.Args[0].Def == nil || in.Args[0].Def.Op != ir.OpLoad {
		return false
	}
	src := in.Args[0].Type.(*ir.Tile)
	res := in.Result().Type.(*ir.Tile)
	ax, ok := WindowAxes(src.Shape)
	return ok && src.Rank() > 2 && res.Rank() == 2 && res.Shape[0] == src.Shape[ax[0]] && res.Shape[1] == src.Shape[ax[1]]
}

// WindowAxes are the two axes of a shared tile's shape that are larger
// than 1 (the rows and columns of its 2-D window); ok is false unless there
// are exactly two (a rank-2 shape gives 0, 1).
func WindowAxes(shape []int) (ax [2]int, ok bool) {
	if len(shape) == 2 {
		return [2]int{0, 1}, true
	}
	n := 0
	for d, x := range shape {
		if x != 1 {
			if n == 2 {
				return ax, false
			}
			ax[n] = d
			n++
		}
	}
	return ax, n == 2
}

// aInRegisters reports whether register tile v, laid out as lay, is read
// by mmas only as their A operand and can be, fragment by fragment, from
// the registers that hold it: lay is an mma accumulator layout of 16-bit
// elements over warps along M only (a converted S = Q K^T in attention:
// each warp holds whole rows), and every mma that reads v has its
// accumulator over the same warps, so the A fragments of a warp's rows are
// its own registers. mma.sync's accumulator fragment of an m16n8 tile is,
// two n-tiles side by side, the A fragment of an m16k16 step (FlashAttention
// 2's P in registers): no shared-memory copy and no barriers. accOf gives
// a value's layout.
func aInRegisters(v *ir.Value, lay *Layout, mmas []*ir.Instr, accOf func(*ir.Value) *Layout) bool {
	t, ok := v.Type.(*ir.Tile)
	if !ok || lay == nil || lay.Kind != ir.LayoutMMA || lay.WarpsN() != 1 || t.Rank() != 2 || t.DType.Bytes() != 2 {
		return false
	}
	m, k := t.Shape[0], t.Shape[1]
	if m%(16*lay.WarpsM()) != 0 || k%16 != 0 || !SameLayout(lay, MMALayout(m, k, lay.WarpsM(), 1)) {
		return false
	}
	used := false
	for _, mma := range mmas {
		for i, a := range mma.Args[:2] {
			if a != v {
				continue
			}
			acc := accOf(mma.Result())
			if i != 0 || exactF32(mma) || acc == nil || acc.Kind != ir.LayoutMMA || acc.WarpsM() != lay.WarpsM() || acc.WarpsN() != 1 {
				return false
			}
			used = true
		}
	}
	return used
}
