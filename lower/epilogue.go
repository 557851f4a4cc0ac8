package lower

// Pass epilogue.
// Requires: mma (the schedule is ops: nothing after a store but ops whose
// use of shared memory shows in the IR).
// Guarantees: a store of an mma-layout register tile that can go through
// shared memory (Tuning.StagedEpilogue and stagedStoreOK) is
//
//	async_wait {pending=0}
//	barrier
//	%s = smem_stage %t {layout=smem, pitch=P} : tile<...>
//	barrier
//	store %C[%i, %j], %s
//
// so that the global stores are whole 16-byte chunks of rows instead of the
// mma fragments' 4-byte pairs (docs/perf.md: the v4 epilogue).

import "github.com/tilec/tilec/ir"

// StagedEpilogue is the epilogue pass.
func StagedEpilogue(f *ir.Func, t *Target) error {
	if !t.Tuning.StagedEpilogue || SmemBytes(f) == 0 {
		return nil
	}
	threads := 32 * NumWarps(f)
	var stores []*ir.Instr
	for i, in := range f.Body.Instrs {
		if in.Op == ir.OpStore && stagedStoreOK(in, threads, SmemBytes(f)) && !smemAfter(f.Body.Instrs[i+1:]) {
			stores = append(stores, in)
		}
	}
	for _, st := range stores {
		v := st.Args[len(st.Args)-1]
		tt := v.Type.(*ir.Tile)
		s := &seq{f: f}
		s.pos.Pos = st.Pos
		// The ring may still be read (the last k-step) or written (the
		// trailing, possibly empty, copy groups).
		s.wait(0)
		s.barrier()
		staged := s.op(ir.OpSmemStage, []*ir.Value{v}, tt, ir.AttrKeyLayout, &ir.Layout{Kind: ir.LayoutSmem},
			ir.AttrKeyPitch, int64(tt.Shape[1]*tt.DType.Bytes()+16))
		s.barrier()
		st.Args[len(st.Args)-1] = staged
		s.add(st)
		for i, x := range f.Body.Instrs {
			if x == st {
				f.Body.Instrs = append(f.Body.Instrs[:i], f.Body.Instrs[i+1:]...)
				insertAt(f.Body, i, s.out)
				break
			}
		}
	}
	return nil
}

// stagedStoreOK says whether store in can go through shared memory: a 2-D
// mma-layout tile at the top level of the kernel (every thread reaches
// it), without replicated elements, whose threads split it into whole
// 16-byte chunks, and whose rows padded by 16 bytes (so that the eight rows
// of a fragment store hit different banks) fit in the kernel's shared
// memory (the ring, free once the loop is done).
func stagedStoreOK(in *ir.Instr, threads, smemBytes int) bool {
	v := in.Args[len(in.Args)-1]
	tt, ok := v.Type.(*ir.Tile)
	if !ok || tt.Rank() != 2 || tt.DType == ir.Bool {
		return false
	}
	lay, err := LayoutOf(v)
	if err != nil || lay.Kind != ir.LayoutMMA || lay.ReplicatedLaneMask() != 0 || lay.ReplicatedWarpMask() != 0 || lay.ContigRegs() < 2 {
		return false
	}
	R, C := tt.Shape[0], tt.Shape[1]
	bytes := tt.DType.Bytes()
	if C*bytes%16 != 0 {
		return false
	}
	cpr := C * bytes / 16
	if threads%cpr != 0 || (R*cpr)%threads != 0 {
		return false
	}
	return R*(C*bytes+16) <= smemBytes
}

// smemAfter reports whether any of the instructions (the rest of the
// kernel after a store) uses shared memory or holds regions that might.
func smemAfter(rest []*ir.Instr) bool {
	for _, x := range rest {
		switch {
		case x.Op == ir.OpFor, x.Op == ir.OpIf, x.Op == ir.OpWhile, x.Op.Info().LoweredOnly, InSmem(x), x.Attrs.Get(ir.AttrKeyStaged) == true:
			return true
		}
	}
	return false
}
