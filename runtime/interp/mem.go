package interp

// Handlers of the indexed memory ops (gather, scatter, atomic_rmw,
// atomic_cas), the combiner ops (reduce_fn, scan_fn), printf, assert and
// pack_bytes/unpack_bytes.

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/runtime"
)

// prepareIndexed decodes gather's, scatter's and the atomics' operands:
// ci.axis is the array's rank (the index tiles are args 1..rank), ci.kind
// the atomic kind, ci.reverse whether a mask follows the value operands,
// ci.pred whether bounds are checked; the shape is the index shape.
//
// The element-offset accesses (ir.OffsetAccess) take the same form with
// one offset tile in place of the index tiles (ci.axis 1).
func prepareIndexed(ci *cinstr) {
	r := ci.in.Args[0].Type.(*ir.Array).Rank
	if ir.OffsetAccess(ci.op) {
		r = 1
	}
	ci.axis = r
	ci.kind = ci.in.Attrs.Str(ir.AttrKeyKind)
	if !ir.OffsetAccess(ci.op) {
		ci.pred = int(b2i(ci.in.BoolAttr(ir.AttrKeyCheckBounds)))
	}
	nv := 1
	if ci.op == ir.OpAtomicCAS || ci.op == ir.OpAtomicCASOffset {
		nv = 2
	}
	ci.reverse = len(ci.args) > 1+r+nv
	if ci.op == ir.OpScatter || ci.op == ir.OpStoreOffset {
		ci.shape, ci.dtype = ci.ashape[1], ci.adt[0]
		ci.n = numel(ci.shape)
	}
}

// elemOffset is the Data element of index e of the index tiles, or ok false
// when it is out of bounds. With bounds checks off, an out-of-bounds index
// is an error (cuTile: undefined behaviour).
func (fr *frame) elemOffset(c *cinstr, ar *arrayRef, e int) (int, bool, error) {
	t := ar.t
	if ir.OffsetAccess(c.op) {
		return rawOffset(c, ar, fr.regs[c.args[1]].t.i[e])
	}
	off := t.Offset
	for k := 0; k < c.axis; k++ {
		x := fr.regs[c.args[1+k]].t.i[e]
		if x < 0 || x >= int64(t.Shape[k]) {
			if c.pred == 0 {
				idx := make([]string, c.axis)
				for j := range idx {
					idx[j] = strconv.FormatInt(fr.regs[c.args[1+j]].t.i[e], 10)
				}
				return 0, false, fmt.Errorf("%s with check_bounds=False: index (%s) is outside %s's shape %v", c.op, strings.Join(idx, ", "), ar.name, t.Shape)
			}
			return 0, false, nil
		}
		off += int(x) * t.Strides[k]
	}
	return off, true, nil
}

// masked reports whether element e is masked off (the mask operand is last).
func (fr *frame) masked(c *cinstr, e int) bool {
	return c.reverse && fr.regs[c.args[len(c.args)-1]].t.i[e] == 0
}

func execGather(fr *frame, c *cinstr) error {
	ar := fr.regs[c.args[0]].a
	pad := fr.regs[c.args[1+c.axis]].t
	out := newTileLike(pad, c.n)
	for e := 0; e < c.n; e++ {
		off, in := 0, false
		if !fr.masked(c, e) {
			var err error
			if off, in, err = fr.elemOffset(c, ar, e); err != nil {
				return err
			}
		}
		switch {
		case out.f != nil && in:
			out.f[e] = ar.t.ElemAt(off)
		case out.f != nil:
			out.f[e] = pad.f[e]
		case in:
			out.i[e] = ar.t.ElemIntAt(off)
		default:
			out.i[e] = pad.i[e]
		}
	}
	fr.regs[c.res[0]] = val{t: out}
	return nil
}

// execScatter stores in row-major order of the index shape, so that of two
// elements with one index the later one's value stays.
func execScatter(fr *frame, c *cinstr) error {
	ar := fr.regs[c.args[0]].a
	v := fr.regs[c.args[1+c.axis]].t
	for e := 0; e < c.n; e++ {
		if fr.masked(c, e) {
			continue
		}
		off, in, err := fr.elemOffset(c, ar, e)
		if err != nil {
			return err
		}
		if !in {
			continue
		}
		if v.f != nil {
			ar.t.SetElemAt(off, v.f[e])
		} else {
			ar.t.SetElemIntAt(off, v.i[e])
		}
	}
	return nil
}

// atomicStripes serialise the interpreter's atomics: an atomic op holds the
// stripe of its array's storage for all its elements, so that blocks
// running in parallel never interleave inside one read-modify-write (the
// whole tile is one atomic step, which cuTile's per-element atomicity
// allows).
var atomicStripes [64]sync.Mutex

func atomicLock(t *runtime.Tensor) *sync.Mutex {
	if len(t.Data) == 0 {
		return &atomicStripes[0]
	}
	p := uintptr(unsafe.Pointer(&t.Data[0]))
	return &atomicStripes[(p>>4)%uintptr(len(atomicStripes))]
}

// execAtomic runs atomic_rmw and atomic_cas element by element in row-major
// order of the index shape; the result holds the old values.
func execAtomic(fr *frame, c *cinstr) error {
	ar := fr.regs[c.args[0]].a
	t := ar.t
	d := c.dtype
	fl := isFloat(d)
	out := &tile{}
	if fl {
		out.f = make([]float64, c.n)
	} else {
		out.i = make([]int64, c.n)
	}
	upd := fr.regs[c.args[1+c.axis]].t
	var desired *tile
	if c.op == ir.OpAtomicCAS || c.op == ir.OpAtomicCASOffset {
		desired = fr.regs[c.args[2+c.axis]].t
	}
	mu := atomicLock(t)
	mu.Lock()
	defer mu.Unlock()
	for e := 0; e < c.n; e++ {
		off, in := 0, false
		if !fr.masked(c, e) {
			var err error
			if off, in, err = fr.elemOffset(c, ar, e); err != nil {
				return err
			}
		}
		if !in {
			// cuTile: no operation; atomic_cas gives expected, the others
			// an implementation-defined value (tilec: 0). The same where
			// a mask (the offset forms') is false.
			if desired != nil {
				if fl {
					out.f[e] = upd.f[e]
				} else {
					out.i[e] = upd.i[e]
				}
			}
			continue
		}
		if fl {
			old := t.ElemAt(off)
			out.f[e] = old
			var nv float64
			switch {
			case desired != nil:
				if elemBits(d, old, 0) != elemBits(d, upd.f[e], 0) {
					continue
				}
				nv = desired.f[e]
			case c.kind == ir.AtomicXchg:
				nv = upd.f[e]
			case d == ir.F32:
				nv = float64(float32(old) + float32(upd.f[e]))
			default:
				nv = runtime.RoundTo(d, old+upd.f[e])
			}
			t.SetElemAt(off, nv)
			continue
		}
		old := t.ElemIntAt(off)
		out.i[e] = old
		u := upd.i[e]
		var nv int64
		switch {
		case desired != nil:
			if old != u {
				continue
			}
			nv = desired.i[e]
		case c.kind == ir.AtomicXchg:
			nv = u
		case c.kind == ir.AtomicAdd:
			nv = old + u
		case c.kind == ir.AtomicMax:
			nv, _ = ir.EvalIntBinaryOf(ir.OpMax, d, old, u)
		case c.kind == ir.AtomicMin:
			nv, _ = ir.EvalIntBinaryOf(ir.OpMin, d, old, u)
		case c.kind == ir.AtomicAnd:
			nv = old & u
		case c.kind == ir.AtomicOr:
			nv = old | u
		case c.kind == ir.AtomicXor:
			nv = old ^ u
		}
		t.SetElemIntAt(off, ir.WrapInt(d, nv))
	}
	fr.regs[c.res[0]] = val{t: out}
	return nil
}

func prepareCombiner(ci *cinstr) {
	ci.axis = ci.in.Axis()
	ci.reverse = ci.in.Attrs.Bool(ir.AttrKeyReverse)
}

// execCombiner runs reduce_fn and scan_fn: for every position of the other
// axes, acc starts as the identities and takes acc = f(acc, x[l]) for l in
// ascending order along the axis (descending for a reverse scan); a scan
// stores every acc, a reduction the last.
func execCombiner(fr *frame, c *cinstr) error {
	n := len(c.args) / 2
	s := c.ashape[0]
	outer, length, inner := 1, s[c.axis], 1
	for _, d := range s[:c.axis] {
		outer *= d
	}
	for _, d := range s[c.axis+1:] {
		inner *= d
	}
	xs := make([]*tile, n)
	outs := make([]*tile, n)
	for i := range xs {
		xs[i] = fr.regs[c.args[i]].t
		m := outer * inner
		if c.op == ir.OpScanFn {
			m *= length
		}
		outs[i] = newTileLike(xs[i], m)
	}
	body := c.regions[0]
	scalarTile := func(x *tile, e int) val {
		if x.f != nil {
			return val{t: &tile{f: []float64{x.f[e]}}}
		}
		return val{t: &tile{i: []int64{x.i[e]}}}
	}
	acc := make([]val, n)
	for o := 0; o < outer; o++ {
		for in := 0; in < inner; in++ {
			for i := range acc {
				id := fr.regs[c.args[n+i]]
				if xs[i].f != nil {
					acc[i] = val{t: &tile{f: []float64{id.f}}}
				} else {
					acc[i] = val{t: &tile{i: []int64{id.i}}}
				}
			}
			for step := 0; step < length; step++ {
				if fr.stopped() {
					return errStopped // up to 2^24 region runs: --timeout ends them
				}
				l := step
				if c.reverse {
					l = length - 1 - step
				}
				e := o*length*inner + l*inner + in
				for i := range acc {
					fr.regs[body.params[i]] = acc[i]
					fr.regs[body.params[n+i]] = scalarTile(xs[i], e)
				}
				term, err := fr.run(body)
				if err != nil {
					return err
				}
				for i, a := range term.args {
					acc[i] = fr.regs[a]
				}
				if c.op == ir.OpScanFn {
					for i := range acc {
						copyElem(outs[i], e, acc[i].t, 0)
					}
				}
			}
			if c.op == ir.OpReduceFn {
				for i := range acc {
					copyElem(outs[i], o*inner+in, acc[i].t, 0)
				}
			}
		}
	}
	for i, r := range c.res {
		fr.regs[r] = val{t: outs[i]}
	}
	return nil
}

func copyElem(dst *tile, e int, src *tile, k int) {
	if dst.f != nil {
		dst.f[e] = src.f[k]
	} else {
		dst.i[e] = src.i[k]
	}
}

// execVoteAll runs vote_all over the whole tile: true when every element
// is true, as if the block were one warp. On the GPU each warp votes over
// the elements its threads hold, so a warp may vote true where the whole
// tile does not (never the other way round). The IR branches on a vote
// only where both arms give the same results (the verifier's rules on
// vote_all; lower's rescale rewrite, whose arms are x and x*1), so taking
// the arm of the whole tile is a conservative reading, not another answer.
func execVoteAll(fr *frame, c *cinstr) error {
	all := int64(1)
	for _, x := range fr.regs[c.args[0]].t.i {
		if x == 0 {
			all = 0
			break
		}
	}
	fr.regs[c.res[0]] = val{i: all}
	return nil
}

func execAssert(fr *frame, c *cinstr) error {
	v := fr.regs[c.args[0]]
	bad := -1
	if v.t == nil {
		if v.i == 0 {
			bad = 0
		}
	} else {
		for e, x := range v.t.i {
			if x == 0 {
				bad = e
				break
			}
		}
	}
	if bad < 0 {
		return nil
	}
	msg := "assertion failed"
	if m := c.in.StrAttr(ir.AttrKeyMessage); m != "" {
		msg += ": " + m
	}
	if sh := c.ashape[0]; len(sh) > 0 {
		idx := make([]string, len(sh))
		rest := bad
		for k := len(sh) - 1; k >= 0; k-- {
			idx[k] = strconv.Itoa(rest % sh[k])
			rest /= sh[k]
		}
		msg += fmt.Sprintf(" (element (%s) of the condition is false)", strings.Join(idx, ", "))
	}
	return fmt.Errorf("%s", msg)
}

// ---- printf ----

// printer is where a launch's printf output goes: whole lines, each
// prefixed with its block id, written under one lock so that blocks
// running in parallel do not interleave inside a line.
type printer struct {
	mu sync.Mutex
	w  io.Writer
}

// printLine writes the complete lines of fr.line and keeps the rest; at the
// end of a block (flush) the rest is written as a line too.
func (fr *frame) printLines(flush bool) {
	if fr.out == nil || len(fr.line) == 0 {
		return
	}
	text := string(fr.line)
	end := strings.LastIndexByte(text, '\n') + 1
	if flush && end < len(text) {
		text += "\n"
		end = len(text)
	}
	if end == 0 {
		return
	}
	var b strings.Builder
	prefix := fmt.Sprintf("[block (%d,%d,%d)] ", fr.bid[0], fr.bid[1], fr.bid[2])
	for _, l := range strings.SplitAfter(text[:end], "\n") {
		if l != "" {
			b.WriteString(prefix)
			b.WriteString(l)
		}
	}
	fr.out.mu.Lock()
	io.WriteString(fr.out.w, b.String())
	fr.out.mu.Unlock()
	fr.line = append(fr.line[:0], text[end:]...)
}

func execPrintf(fr *frame, c *cinstr) error {
	f := c.in.StrAttr(ir.AttrKeyFormat)
	var b strings.Builder
	k := 0
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			b.WriteByte(f[i])
			continue
		}
		if f[i+1] == '%' {
			b.WriteByte('%')
			i++
			continue
		}
		j := i + 1
		for strings.IndexByte("-+ #0123456789.", f[j]) >= 0 {
			j++
		}
		flags := f[i+1 : j]
		for strings.IndexByte("hlLqjzt", f[j]) >= 0 {
			j++
		}
		fr.printValue(&b, c, k, flags, f[j])
		k++
		i = j
	}
	fr.line = append(fr.line, b.String()...)
	fr.printLines(false)
	return nil
}

// printValue writes argument k with conversion %<flags><verb> (C's
// meaning): a scalar, or a tile as nested [a, b, ...] lists.
func (fr *frame) printValue(b *strings.Builder, c *cinstr, k int, flags string, verb byte) {
	d := c.adt[k]
	v := fr.regs[c.args[k]]
	elem := func(f float64, i int64) {
		switch verb {
		case 'd', 'i', 'u', 'o', 'x', 'X':
			x := i
			if isFloat(d) {
				x = ir.FloatToInt(ir.I64, f)
			}
			gv := map[byte]byte{'i': 'd', 'u': 'd'}[verb]
			if gv == 0 {
				gv = verb
			}
			if verb != 'd' && verb != 'i' && x < 0 && !isFloat(d) {
				// C prints the two's complement of the argument's width.
				fmt.Fprintf(b, "%"+flags+string(gv), uint64(x)&(math.MaxUint64>>uint(64-max(d.Bits(), 8))))
				return
			}
			if d == ir.U64 && x < 0 {
				fmt.Fprintf(b, "%"+flags+string(gv), uint64(x))
				return
			}
			fmt.Fprintf(b, "%"+flags+string(gv), x)
		default:
			x := f
			if !isFloat(d) {
				x = ir.IntToFloat(d, i)
			}
			gv := verb
			switch verb {
			case 'F':
				gv = 'f'
			case 'a':
				gv = 'x'
			case 'A':
				gv = 'X'
			}
			if !strings.Contains(flags, ".") && (verb == 'f' || verb == 'F' || verb == 'e' || verb == 'E') {
				flags += ".6"
			}
			fmt.Fprintf(b, "%"+flags+string(gv), x)
		}
	}
	if v.t == nil {
		elem(v.f, v.i)
		return
	}
	sh := c.ashape[k]
	var rec func(dim, base, stride int)
	rec = func(dim, base, stride int) {
		if dim == len(sh) {
			if v.t.f != nil {
				elem(v.t.f[base], 0)
			} else {
				elem(0, v.t.i[base])
			}
			return
		}
		b.WriteByte('[')
		st := stride / sh[dim]
		for j := 0; j < sh[dim]; j++ {
			if j > 0 {
				b.WriteString(", ")
			}
			rec(dim+1, base+j*st, st)
		}
		b.WriteByte(']')
	}
	rec(0, 0, numel(sh))
}

// ---- bytes ----

func execPackBytes(fr *frame, c *cinstr) error {
	x := fr.regs[c.args[0]].t
	d := c.adt[0]
	w := d.Bytes()
	out := make([]int64, c.n)
	for e := 0; e < c.n/w; e++ {
		var f float64
		var i int64
		if x.f != nil {
			f = x.f[e]
		} else {
			i = x.i[e]
		}
		bits := elemBits(d, f, i)
		for k := 0; k < w; k++ {
			out[e*w+k] = int64(bits >> (8 * k) & 0xff)
		}
	}
	fr.regs[c.res[0]] = val{t: &tile{i: out}}
	return nil
}

func execUnpackBytes(fr *frame, c *cinstr) error {
	x := fr.regs[c.args[0]].t
	d := c.dtype
	w := d.Bytes()
	out := &tile{}
	if isFloat(d) {
		out.f = make([]float64, c.n)
	} else {
		out.i = make([]int64, c.n)
	}
	for e := 0; e < c.n; e++ {
		var bits uint64
		for k := 0; k < w; k++ {
			bits |= uint64(x.i[e*w+k]&0xff) << (8 * k)
		}
		f, i := fromBits(d, bits)
		if out.f != nil {
			out.f[e] = f
		} else {
			out.i[e] = i
		}
	}
	fr.regs[c.res[0]] = val{t: out}
	return nil
}
