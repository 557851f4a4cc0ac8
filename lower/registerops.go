package lower

import "github.com/tilec/tilec/ir"

// attnRegisterOp reports whether an op in the attention loop runs in
// registers without the block's barrier, so that the consumer warpgroups
// can run it on their own between the two wgmmas (findAttnLoop,
// registerOnlyRegions). It is read off the op table, as wsStraightOp is:
// an op of the target-free IR (not LoweredOnly, no regions) that touches
// no memory (Global none, no side effect) and moves nothing between
// threads (Shared none): element-wise and scalar code, const, dim, views,
// iota and splat; and of the ops that may exchange elements (Shared
// exchange) the reduce, along a row, which the rows-split layout keeps
// inside a warp, and the reshape (the warpspec pass checks on the
// warpgroup layouts that neither needed the scratch region).
//
// Left out although the table calls them register code: mma (the loop's
// two are the pass's to place), and attnLaunchReads. pack_bytes and
// unpack_bytes pass the test, but the check pass refuses them on the GPU
// before any caller runs.
func attnRegisterOp(in *ir.Instr) bool {
	info := in.Op.Info()
	switch {
	case info.LoweredOnly || len(in.Regions) > 0 || info.Global != 0 || info.SideEffect:
		return false
	case in.Op == ir.OpMMA || attnLaunchReads[in.Op]:
		return false
	}
	switch info.Shared {
	case ir.SharedNone:
		return true
	case ir.SharedExchange:
		return in.Op == ir.OpReduce || in.Op == ir.OpReshape
	}
	return false
}

// attnLaunchReads are the reads of the launch (the block's place in the
// grid, an array's strides, a list of arrays) that the attention path
// does not take inside its loop: register code by the table, but a block
// id there would have to be the persistent tile's, as the GEMM path's
// kLoop maps it (blockIDs), which the attention loops do not do and no
// case exercises. dim, the extent that a masking step reads, is taken.
var attnLaunchReads = map[ir.Op]bool{
	ir.OpBlockID: true, ir.OpNumBlocks: true, ir.OpStride: true, ir.OpListGet: true, ir.OpListLen: true,
	ir.OpArraySlice: true,
}
