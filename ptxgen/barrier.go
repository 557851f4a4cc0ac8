package ptxgen

import "github.com/tilec/tilec/ir"

// exchangeBarrier is the barrier inside exchange in (an op that moves tile
// elements between threads through the scratch region), between its
// threads' writes and their reads: the named barrier of the role that runs
// it where lower's barriers pass put one on the op (a role of a
// warp-specialized kernel, whose other role never arrives at the block's),
// the whole block's (exchangeSync) otherwise.
func (e *emitter) exchangeBarrier(in *ir.Instr) {
	if id := in.Attrs.Int(ir.AttrKeyBarrierID); id > 0 {
		e.barrier(id, in.Attrs.Int(ir.AttrKeyThreads))
		return
	}
	e.exchangeSync()
}
