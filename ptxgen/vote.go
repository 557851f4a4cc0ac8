package ptxgen

import "github.com/tilec/tilec/ir"

// emitVoteAll emits vote_all: the and of the thread's elements of the bool
// tile (each distinct register once), then vote.sync.all over the whole
// warp. Every lane of the warp reaches it: control flow in lowered IR is
// uniform within a warp, and the result feeds only an if (ir's verifier),
// whose branch on it is then uniform within the warp too.
func (e *emitter) emitVoteAll(in *ir.Instr) {
	x := e.vals[in.Args[0]]
	if x == nil || x.regs == nil {
		e.fail("internal: vote_all of a tile that is not in registers")
	}
	var mine Reg
	seen := map[Reg]bool{}
	for r, p := range x.regs {
		if x.lay.CanonicalReg(r) != r || seen[p] {
			continue
		}
		seen[p] = true
		if len(seen) == 1 {
			mine = p
			continue
		}
		q := e.newReg(Pred)
		e.emit("and.pred", q, mine, p)
		mine = q
	}
	all := e.newReg(Pred)
	e.emit("vote.sync.all.pred", all, mine, Imm(-1))
	e.vals[in.Result()] = &value{reg: all}
}
