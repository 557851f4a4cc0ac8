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
//     through the scratch region, Exchanges) there is a barrier on every
//     path from the previous exchange, so that no thread overwrites the
//     region while another may still read it (write after read); paths
//     from the kernel's start, or through a barrier the kernel already
//     has, need none, and loops are followed around their back edges;
//   - a rank-0 atomic (one thread's access on behalf of the block, e.g. a
//     lock) with release order has a barrier before it, so that the whole
//     block's earlier accesses precede it; one with acquire order whose
//     old value is not broadcast has a barrier after it, so that the whole
//     block's later accesses follow it (a broadcast synchronizes inside);
//   - inside a role of a warp-specialized kernel (a region of the if that
//     splits the block into roles, which names each region's threads and
//     barrier: AttrKeyRoleThreads, AttrKeyRoleBarriers) that barrier is
//     the role's named barrier (bar.sync id, threads), since the other
//     role never arrives at the block's; the exchange carries the same
//     barrier ({id, threads}) for the sync between its own writes and
//     reads. An exchange in a role without a barrier is an error. Before
//     the split, a pending exchange gets the block's barrier (its readers
//     may be in either role).
//
// The barrier between an exchange's own writes and reads stays inside the
// op: ptxgen emits it (and only it) with the one barrier emitter. Barriers
// for the shared tiles of mma operand rings are still placed by the
// pipeline, warpspec and epilogue passes that build the rings.

import "github.com/tilec/tilec/ir"

// InsertBarriers is the barriers pass.
func InsertBarriers(f *ir.Func, t *Target) error {
	b := barrierPass{f: f, t: t, uses: Uses(f)}
	b.block(f.Body, blockRole, false, true)
	return b.err
}

type barrierPass struct {
	f    *ir.Func
	t    *Target
	uses map[*ir.Value][]*ir.Instr
	err  error // the first exchange in a role without a barrier
}

// role is the threads that run a region and the barrier they synchronize
// on: the whole block (blockRole), or one role of a warp-specialized
// kernel, whose threads synchronize on named barrier id (0: they have
// none, and nothing in the region may need one).
type role struct {
	threads, id int
	block       bool
}

var blockRole = role{block: true}

// roles are the roles of the regions of in, an if that splits the block
// into warp-specialized roles (nil for any other op).
func roles(in *ir.Instr) []role {
	if in.Op != ir.OpIf {
		return nil
	}
	threads, ids := in.Attrs.Ints(ir.AttrKeyRoleThreads), in.Attrs.Ints(ir.AttrKeyRoleBarriers)
	if threads == nil || len(threads) != len(in.Regions) || len(ids) != len(threads) {
		return nil
	}
	out := make([]role, len(threads))
	for i := range out {
		out[i] = role{threads: threads[i], id: ids[i]}
	}
	return out
}

// barrierOp is the barrier of role r (the block's, or the role's named one).
func (r role) barrierOp(s *seq) {
	if r.block {
		s.barrier()
		return
	}
	s.op(ir.OpBarrier, nil, nil, ir.AttrKeyBarrierID, int64(r.id), ir.AttrKeyThreads, int64(r.threads))
}

// orders reports whether in is a barrier that every thread of r passes
// together: the block's, or (in a role) a named barrier of the role's
// thread count (its threads are the role's: no other thread reaches it).
func (r role) orders(in *ir.Instr) bool {
	if in.Op.Info().Shared != ir.SharedSync {
		return false
	}
	n := in.Attrs.Int(ir.AttrKeyThreads)
	return n == 0 || (!r.block && n == r.threads)
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

// block follows b, run by the threads of role r, from state pending (the
// scratch region may still be read by an exchange that no barrier of r's
// threads has followed) and returns the state at its end. With insert it
// adds the barriers the state asks for (and names the role's barrier on
// the exchanges); without, it only computes (loops run it to their fixed
// point first).
func (p *barrierPass) block(b *ir.Block, r role, pending, insert bool) bool {
	for i := 0; i < len(b.Instrs); i++ {
		in := b.Instrs[i]
		// barrier adds a barrier of r before (at i) or after (at i+1) in.
		barrier := func(at int, r role) {
			if insert {
				s := seq{f: p.f, pos: *in}
				r.barrierOp(&s)
				insertAt(b, at, s.out)
				if at <= i {
					i++
				}
			}
			pending = false
		}
		if r.orders(in) {
			pending = false
			continue
		}
		order, rank0 := rank0Atomic(in)
		release := rank0 && (order == ir.OrderRelease || order == ir.OrderAcqRel)
		acquire := rank0 && (order == ir.OrderAcquire || order == ir.OrderAcqRel)
		exchanges := Exchanges(in, p.uses)
		if (release || acquire || exchanges) && !r.block && r.id == 0 {
			if p.err == nil {
				p.err = unsupportedAt(p.t, in, "internal: %s needs a barrier of its role's threads, and its role of the warp-specialized kernel has none", in.Op)
			}
			return pending
		}
		if release && !(i > 0 && r.orders(b.Instrs[i-1])) {
			barrier(i, r)
		}
		switch {
		case exchanges:
			if pending {
				barrier(i, r)
			}
			if insert && !r.block {
				in.Attrs.Set(ir.AttrKeyBarrierID, int64(r.id))
				in.Attrs.Set(ir.AttrKeyThreads, int64(r.threads))
			}
			pending = true
		case acquire:
			barrier(i+1, r)
			if insert {
				i++ // past the new barrier (without insert, there is none)
			}
		}
		switch in.Op {
		case ir.OpFor:
			pending = p.loop(in.Regions[0], nil, r, pending, insert)
		case ir.OpWhile:
			pending = p.loop(in.Regions[1], in.Regions[0], r, pending, insert)
		case ir.OpIf:
			rs := roles(in)
			if rs != nil && pending {
				// The pending exchange's readers may be in any role: only
				// the block's barrier, before the split, orders them all.
				barrier(i, blockRole)
			}
			out := false
			for k, reg := range in.Regions {
				rr := r
				if rs != nil {
					rr = rs[k]
				}
				out = p.block(reg, rr, pending, insert) || out
			}
			if len(in.Regions) < 2 {
				out = out || pending // no else: the path around the then
			}
			pending = out
		}
	}
	return pending
}

// loop follows a for body (cond nil) or a while's cond and body, run by
// role r, from the state on entry, around the back edge to the fixed
// point, and returns the state on exit: the state at the top of a for
// body (zero or more iterations), or at the end of a while's cond (the
// only way out).
func (p *barrierPass) loop(body, cond *ir.Block, r role, entry, insert bool) bool {
	top := entry
	for {
		s := top
		if cond != nil {
			s = p.block(cond, r, s, false)
		}
		next := entry || p.block(body, r, s, false)
		if next == top {
			break
		}
		top = next
	}
	s := top
	if cond != nil {
		s = p.block(cond, r, s, insert)
	}
	p.block(body, r, s, insert)
	if cond != nil {
		return s
	}
	return top
}
