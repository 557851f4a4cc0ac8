package lower

// barriers.go: the block barriers that the scratch region and a block's
// one-thread atomics need, derived from what each op does (the op table's
// Shared and Global columns) and placed as barrier ops that `--emit
// lowered` shows, instead of each ptxgen emitter bracketing its own use of
// the region with barriers whether or not anything needs them.
//
// Requires: layouts (an exchange's need for scratch depends on them) and
// every pass that adds instructions (this is the last pass).
// Guarantees:
//   - before an exchange (an op that moves tile elements between threads
//     through the scratch region, Exchanges) there is a block barrier on
//     every path from the previous exchange, so that no thread overwrites
//     the region while another may still read it (write after read);
//     paths from the kernel's start, or through a barrier the kernel
//     already has, need none, and loops are followed around their back
//     edges;
//   - a rank-0 atomic (one thread's access on behalf of the block, e.g. a
//     lock) with release order has a barrier before it, so that the whole
//     block's earlier accesses precede it; one with acquire order whose
//     old value is not broadcast has a barrier after it, so that the whole
//     block's later accesses follow it (a broadcast synchronizes inside).
//
// The barrier between an exchange's own writes and reads stays inside the
// op: ptxgen emits it (and only it) with the one barrier emitter. Barriers
// for the shared tiles of mma operand rings are still placed by the
// pipeline, warpspec and epilogue passes that build the rings.

import "github.com/tilec/tilec/ir"

// InsertBarriers is the barriers pass.
func InsertBarriers(f *ir.Func, _ *Target) error {
	b := barrierPass{f: f, uses: Uses(f)}
	b.block(f.Body, false, true)
	return nil
}

type barrierPass struct {
	f    *ir.Func
	uses map[*ir.Value][]*ir.Instr
}

// Exchanges reports whether in moves values between threads through the
// scratch region, given the kernel's uses (Uses): an op the table marks
// SharedExchange whose instance needs scratch (ScratchBytes: a reduce
// inside one warp does not), except a rank-0 atomic whose old value nobody
// reads (only its one owner thread runs it; nothing is broadcast).
func Exchanges(in *ir.Instr, uses map[*ir.Value][]*ir.Instr) bool {
	if in.Op.Info().Shared != ir.SharedExchange {
		return false
	}
	if n, err := ScratchBytes(in); err != nil || n == 0 {
		return false
	}
	if in.Op.Info().Global == ir.GlobalAtomic {
		return len(uses[in.Result()]) > 0
	}
	return true
}

// rank0Atomic reports whether in is an atomic on a rank-0 tile (one owner
// thread accesses memory for the block), with its memory order.
func rank0Atomic(in *ir.Instr) (string, bool) {
	if in.Op.Info().Global != ir.GlobalAtomic || len(in.Results) != 1 {
		return "", false
	}
	t, ok := in.Result().Type.(*ir.Tile)
	if !ok || t.Rank() != 0 {
		return "", false
	}
	return in.Attrs.Str(ir.AttrKeyMemoryOrder), true
}

// blockBarrier reports whether in is a barrier of the whole block (a
// named barrier of some warps orders only those).
func blockBarrier(in *ir.Instr) bool {
	return in.Op.Info().Shared == ir.SharedSync && in.Attrs.Int(ir.AttrKeyThreads) == 0
}

// block follows b from state pending (the scratch region may still be read
// by an exchange that no block barrier has followed) and returns the state
// at its end. With insert it adds the barriers the state asks for; without,
// it only computes (loops run it to their fixed point first).
func (p *barrierPass) block(b *ir.Block, pending, insert bool) bool {
	for i := 0; i < len(b.Instrs); i++ {
		in := b.Instrs[i]
		// barrier adds a block barrier before (at i) or after (at i+1) in.
		barrier := func(at int) {
			if insert {
				s := seq{f: p.f, pos: *in}
				s.barrier()
				insertAt(b, at, s.out)
				if at <= i {
					i++
				}
			}
			pending = false
		}
		if blockBarrier(in) {
			pending = false
			continue
		}
		order, rank0 := rank0Atomic(in)
		if rank0 && (order == ir.OrderRelease || order == ir.OrderAcqRel) && !p.barrierBefore(b, i) {
			barrier(i)
		}
		switch {
		case Exchanges(in, p.uses):
			if pending {
				barrier(i)
			}
			pending = true
		case rank0 && (order == ir.OrderAcquire || order == ir.OrderAcqRel):
			barrier(i + 1)
			i++ // past the new barrier
		}
		switch in.Op {
		case ir.OpFor:
			pending = p.loop(in.Regions[0], nil, pending, insert)
		case ir.OpWhile:
			pending = p.loop(in.Regions[1], in.Regions[0], pending, insert)
		case ir.OpIf:
			out := false
			for _, r := range in.Regions {
				out = p.block(r, pending, insert) || out
			}
			if len(in.Regions) < 2 {
				out = out || pending // no else: the path around the then
			}
			pending = out
		}
	}
	return pending
}

// barrierBefore reports whether b.Instrs[i] directly follows a block
// barrier.
func (p *barrierPass) barrierBefore(b *ir.Block, i int) bool {
	return i > 0 && blockBarrier(b.Instrs[i-1])
}

// loop follows a for body (cond nil) or a while's cond and body from the
// state on entry, around the back edge to the fixed point, and returns
// the state on exit: the state at the top of a for body (zero or more
// iterations), or at the end of a while's cond (the only way out).
func (p *barrierPass) loop(body, cond *ir.Block, entry, insert bool) bool {
	top := entry
	for {
		s := top
		if cond != nil {
			s = p.block(cond, s, false)
		}
		next := entry || p.block(body, s, false)
		if next == top {
			break
		}
		top = next
	}
	s := top
	if cond != nil {
		s = p.block(cond, s, insert)
	}
	p.block(body, s, insert)
	if cond != nil {
		return s
	}
	return top
}
