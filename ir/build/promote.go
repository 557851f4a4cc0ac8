package build

// Loop-carried scalars that become rank-0 tiles. In cuTile a scalar is a
// rank-0 tile, so `s = 0.0` followed by `for ...: s += ct.sum(x)` is one
// variable of one type; in tilec's IR a scalar and a rank-0 tile are
// distinct types, and a loop's carried types are fixed before its body is
// built. A loop whose body turns a carried scalar (or compile-time number)
// into a rank-0 tile is therefore built twice: the first build records the
// variables that changed (loopBody, promoteReq), the builder's state is
// rolled back to before the loop (builderSnapshot), and the loop is built
// again with those variables' initial values splat to rank-0 tiles
// (loopCarried). Nested loops repeat this on their own; an outer loop sees
// the promoted result of an inner one and promotes in turn.

import (
	"fmt"
	"maps"
	"strings"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/lang"
)

// promoteReq is a carried variable of a loop that its body made a rank-0
// tile of dtype dt.
type promoteReq struct {
	loop string
	name string
	dt   ir.DType
}

// loopKey names a loop statement in the helper being inlined (a helper's
// loop may be built once per call).
func (b *builder) loopKey(pos lang.Pos) string {
	return fmt.Sprint(pos, "/", strings.Join(b.stack, "/"))
}

// promotedInit is init (the value of carried variable n before the loop)
// as a rank-0 tile when an earlier build of the loop found that the body
// makes n one of a dtype init can take without changing its value's kind:
// a compile-time number that the dtype holds (weakJoin), or a scalar of
// that dtype. Otherwise init is returned as it is (and the body's type
// change is reported as before).
func (b *builder) promotedInit(loop lang.Pos, n string, old value, init *ir.Value) *ir.Value {
	dt, ok := b.promoted[b.loopKey(loop)][n]
	if !ok {
		return init
	}
	s, isScalar := init.Type.(*ir.Scalar)
	switch {
	case !isScalar:
		return init
	case isNumber(old):
		if weakJoin(dt, old) != dt {
			return init
		}
		init = b.constant(loop, old, dt)
	case s.DType != dt:
		return init
	}
	return b.emit(loop, ir.OpSplat, ir.TileOf(dt), init)
}

// wantPromotion records, from a loop body's end, that carried variable n
// went from scalar type before to the value after.
func (b *builder) wantPromotion(loop lang.Pos, n string, before ir.Type, after value) {
	x, ok := after.(*ir.Value)
	if !ok {
		return
	}
	if _, isScalar := before.(*ir.Scalar); !isScalar {
		return
	}
	if t, isTile := x.Type.(*ir.Tile); isTile && t.Rank() == 0 {
		b.promoteReqs = append(b.promoteReqs, promoteReq{loop: b.loopKey(loop), name: n, dt: t.DType})
	}
}

// buildLoop builds a loop statement at pos with build, again while the
// build asks for carried variables to be promoted that were not yet (each
// round promotes at least one more, so it ends).
func (b *builder) buildLoop(pos lang.Pos, build func()) {
	key := b.loopKey(pos)
	outer := b.promoteReqs
	for {
		b.promoteReqs = nil
		snap := b.snapshot()
		build()
		var fresh bool
		var others []promoteReq
		for _, r := range b.promoteReqs {
			if r.loop != key {
				others = append(others, r)
				continue
			}
			if _, done := b.promoted[key][r.name]; done {
				continue
			}
			if b.promoted == nil {
				b.promoted = map[string]map[string]ir.DType{}
			}
			if b.promoted[key] == nil {
				b.promoted[key] = map[string]ir.DType{}
			}
			b.promoted[key][r.name] = r.dt
			fresh = true
		}
		if !fresh || b.aborted {
			b.promoteReqs = append(outer, others...)
			return
		}
		b.restore(snap)
	}
}

// builderSnapshot is what building a statement changes outside the
// instructions it appends: restoring it undoes the statement. Array dims
// that it emitted at the top of the kernel body stay (they are cached in
// b.dims and used again).
type builderSnapshot struct {
	cur            *ir.Block
	ninstrsInCur   int
	dimInsert      int
	nerrs          int
	scope          map[string]binding
	consts         map[constKey]*ir.Value
	extensionsSeen map[lang.Pos]bool
	deferredSeen   map[string]bool
	rootsReported  map[string]bool
	ninstrs        int
	inlined        int
}

func (b *builder) snapshot() builderSnapshot {
	return builderSnapshot{
		cur:            b.cur,
		ninstrsInCur:   len(b.cur.Instrs),
		dimInsert:      b.dimInsert,
		nerrs:          len(b.errs),
		scope:          copyScope(b.fn.scope),
		consts:         maps.Clone(b.consts[b.cur]),
		extensionsSeen: maps.Clone(b.extensionsSeen),
		deferredSeen:   maps.Clone(b.deferredSeen),
		rootsReported:  maps.Clone(b.rootsReported),
		ninstrs:        b.ninstrs,
		inlined:        b.inlined,
	}
}

func (b *builder) restore(s builderSnapshot) {
	b.cur = s.cur
	n := s.ninstrsInCur
	if b.cur == b.f.Body {
		n += b.dimInsert - s.dimInsert // dims emitted since sit above
	}
	clear(b.cur.Instrs[n:])
	b.cur.Instrs = b.cur.Instrs[:n]
	b.errs = b.errs[:s.nerrs]
	b.fn.scope = s.scope
	if s.consts == nil {
		delete(b.consts, b.cur)
	} else {
		b.consts[b.cur] = s.consts
	}
	b.extensionsSeen = s.extensionsSeen
	b.deferredSeen = s.deferredSeen
	b.rootsReported = s.rootsReported
	b.ninstrs = s.ninstrs
	b.inlined = s.inlined
}
