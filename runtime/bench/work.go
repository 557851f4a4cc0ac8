package bench

// Counting a launch's work from its IR: the mma FLOPs and the bytes its
// loads and stores move, for TFLOP/s and GB/s. The figures a report rates
// a kernel by are the problem's (Row.FLOPs, Row.Bytes): the mma count
// includes the padding of tiles larger than the problem and the traffic
// includes re-reads, which would flatter a kernel that wastes work.
//
// The count runs the kernel's scalar code (block ids, dims, integer
// arithmetic, loop bounds, if conditions) once per block, like the
// interpreter but without any tile: every mma adds 2*M*N*K (times its
// batch), every load and store adds the bytes of the part of its tile that
// lies inside the array (what the hardware moves; out-of-bounds parts are
// padding or dropped). Loops run their scalar code per iteration, so
// causal masks that shorten a loop per block are counted exactly. Large
// grids are counted on an even sample of blocks and scaled.

import (
	"errors"
	"fmt"
	"math"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/runtime"
)

// Work is what one launch of a kernel does.
type Work struct {
	// FLOPs counts 2*M*N*K per mma of (M, K) x (K, N) tiles: the tensor-core
	// work (elementwise math is not counted).
	FLOPs float64
	// UsefulFLOPs is the problem's work where the caller knows it from the
	// shapes (a GEMM's 2*M*N*K); 0: not known, FLOPs stands for it.
	UsefulFLOPs float64
	// MMADType is the dtype of the mma operands (the peak to compare with);
	// InvalidDType when the kernel has no mma.
	MMADType ir.DType
	// LoadBytes and StoreBytes are the bytes moved by loads (gathers,
	// atomics' reads) and stores (scatters, atomics' writes), summed over
	// the blocks. Tiles re-read by several blocks count each time, so a
	// GEMM's figure is its traffic to the SMs (mostly from L2), not DRAM's.
	LoadBytes, StoreBytes float64
	// ArrayBytes is the size of the arrays the kernel loads from or stores
	// to.
	ArrayBytes float64
	// CompulsoryBytes is the traffic with every re-read taken out: each
	// array read once (as far as the launch reads it) and written once
	// (as far as it writes it), the least DRAM traffic of the launch and
	// the roofline's figure. An array both read and written counts twice.
	CompulsoryBytes float64
	// Blocks is the grid's block count; Counted how many were counted (all
	// of them, or an even sample whose counts were scaled).
	Blocks, Counted int
}

// Useful is the problem's work: UsefulFLOPs where the caller knew it
// (a GEMM's 2*M*N*K), else the mma work.
func (w Work) Useful() float64 {
	if w.UsefulFLOPs > 0 {
		return w.UsefulFLOPs
	}
	return w.FLOPs
}

// Bytes is the total traffic of loads and stores.
func (w Work) Bytes() float64 { return w.LoadBytes + w.StoreBytes }

// Add adds the work of another launch to w (a host function's launches
// of one repetition); the first mma dtype is kept.
func (w *Work) Add(o Work) {
	w.FLOPs += o.FLOPs
	w.UsefulFLOPs += o.Useful()
	if w.MMADType == ir.InvalidDType {
		w.MMADType = o.MMADType
	}
	w.LoadBytes += o.LoadBytes
	w.StoreBytes += o.StoreBytes
	w.ArrayBytes += o.ArrayBytes
	w.CompulsoryBytes += o.CompulsoryBytes
	w.Blocks += o.Blocks
	w.Counted += o.Counted
}

// Exact reports whether every block was counted.
func (w Work) Exact() bool { return w.Counted == w.Blocks }

// countLimits: grids up to countAllBlocks blocks are counted whole; larger
// ones on countSample blocks. countMaxSteps bounds the instructions the
// count evaluates (a kernel whose scalar code alone runs longer is not
// counted).
const (
	countAllBlocks = 4096
	countSample    = 1024
	countMaxSteps  = 200_000_000
)

// ErrNotCountable is wrapped by Count's errors for kernels whose work
// depends on data (a loop bound or if condition computed from a tile).
var ErrNotCountable = errors.New("work not countable from the IR")

// Count counts the work of the launch b (the kernel's specialization for
// its arguments, its dims and grid).
func Count(b *runtime.Binding) (Work, error) {
	f := b.Kernel.Func
	w := Work{Blocks: b.NumBlocks()}
	c := &counter{b: b, f: f, vals: make([]cval, f.NumValues()),
		loadsOf: make([]float64, len(b.Tensors)), storesOf: make([]float64, len(b.Tensors))}
	used := map[int]bool{}
	f.Body.Walk(func(in *ir.Instr) {
		switch in.Op {
		case ir.OpLoad, ir.OpStore, ir.OpGather, ir.OpScatter, ir.OpAtomicRMW, ir.OpAtomicCAS:
			if p := in.Args[0]; p.Block == f.Body {
				used[p.Index] = true
			}
		case ir.OpMMA:
			if w.MMADType == ir.InvalidDType {
				w.MMADType = in.Args[0].Type.Elem()
			}
		}
	})
	for i := range used {
		if t := b.Tensors[i]; t != nil {
			w.ArrayBytes += float64(t.NumElements() * t.DType.Bytes())
		}
	}
	for i, p := range f.Params {
		v := &c.vals[p.Value.ID]
		switch s := b.Scalars[i].(type) {
		case int64:
			*v = cval{known: true, i: s}
		}
	}
	total := w.Blocks
	ids := make([]int, 0, min(total, countAllBlocks))
	if total <= countAllBlocks {
		for id := 0; id < total; id++ {
			ids = append(ids, id)
		}
	} else {
		for j := 0; j < countSample; j++ {
			ids = append(ids, int(int64(j)*int64(total)/countSample))
		}
		ids[countSample-1] = total - 1 // the last block holds the partial tiles
	}
	g := b.Grid
	for _, id := range ids {
		c.bid = [3]int64{int64(id % g[0]), int64(id / g[0] % g[1]), int64(id / (g[0] * g[1]))}
		if err := c.block(f.Body); err != nil {
			return w, fmt.Errorf("%s: %w", f.Name, err)
		}
	}
	scale := float64(total) / float64(len(ids))
	w.FLOPs = c.flops * scale
	w.LoadBytes = c.loads * scale
	w.StoreBytes = c.stores * scale
	for i, t := range b.Tensors {
		if t == nil {
			continue
		}
		size := float64(t.NumElements() * t.DType.Bytes())
		w.CompulsoryBytes += min(c.loadsOf[i]*scale, size) + min(c.storesOf[i]*scale, size)
	}
	w.Counted = len(ids)
	return w, nil
}

// cval is a scalar's value during the count: known integers and bools
// (as 0/1); floats and tiles are unknown.
type cval struct {
	known bool
	i     int64
}

type counter struct {
	b     *runtime.Binding
	f     *ir.Func
	vals  []cval
	bid   [3]int64
	steps int

	flops, loads, stores float64
	// loadsOf and storesOf split loads and stores by array (parameter
	// index), for CompulsoryBytes.
	loadsOf, storesOf []float64
}

func (c *counter) get(v *ir.Value) cval { return c.vals[v.ID] }

func (c *counter) set(v *ir.Value, x cval) {
	if x.known {
		if s, ok := v.Type.(*ir.Scalar); ok {
			x.i = ir.WrapInt(s.DType, x.i)
		}
	}
	c.vals[v.ID] = x
}

// block evaluates one block of instructions and returns at its yield (the
// caller reads the yielded values from the yield's operands).
func (c *counter) block(b *ir.Block) error {
	for _, in := range b.Instrs {
		if c.steps++; c.steps > countMaxSteps {
			return fmt.Errorf("%w: more than %d scalar steps", ErrNotCountable, countMaxSteps)
		}
		if err := c.instr(in); err != nil {
			return err
		}
	}
	return nil
}

func isIntScalar(v *ir.Value) (ir.DType, bool) {
	s, ok := v.Type.(*ir.Scalar)
	if !ok || !(s.DType.IsInt() || s.DType == ir.Bool) {
		return ir.InvalidDType, false
	}
	return s.DType, true
}

func (c *counter) instr(in *ir.Instr) error {
	switch in.Op {
	case ir.OpConst:
		if _, ok := isIntScalar(in.Result()); ok {
			switch x := in.AttrOf(ir.AttrKeyValue).(type) {
			case int64:
				c.set(in.Result(), cval{known: true, i: x})
			case bool:
				c.set(in.Result(), cval{known: true, i: b2i(x)})
			}
		}
		return nil
	case ir.OpBlockID:
		c.set(in.Result(), cval{known: true, i: c.bid[in.Axis()]})
		return nil
	case ir.OpNumBlocks:
		c.set(in.Result(), cval{known: true, i: int64(c.b.Grid[in.Axis()])})
		return nil
	case ir.OpDim:
		if t := c.tensor(in.Args[0]); t != nil {
			c.set(in.Result(), cval{known: true, i: int64(t.Shape[in.Axis()])})
		}
		return nil
	case ir.OpStride:
		if t := c.tensor(in.Args[0]); t != nil {
			c.set(in.Result(), cval{known: true, i: ir.WrapInt(ir.I32, int64(t.Strides[in.Axis()]))})
		}
		return nil
	case ir.OpMMA:
		a := in.Args[0].Type.(*ir.Tile).Shape
		bs := in.Args[1].Type.(*ir.Tile).Shape
		n := 2.0
		for _, d := range a {
			n *= float64(d)
		}
		c.flops += n * float64(bs[len(bs)-1])
		return nil
	case ir.OpLoad, ir.OpStore:
		return c.access(in)
	case ir.OpGather, ir.OpScatter, ir.OpAtomicRMW, ir.OpAtomicCAS:
		t := c.tensor(in.Args[0])
		if t == nil {
			return nil
		}
		n := 1.0
		if tl, ok := in.Args[1].Type.(*ir.Tile); ok {
			n = float64(tl.NumElements())
		}
		bytes := n * float64(t.DType.Bytes())
		i := in.Args[0].Index
		if in.Op != ir.OpScatter {
			c.loads += bytes
			c.loadsOf[i] += bytes
		}
		if in.Op != ir.OpGather {
			c.stores += bytes
			c.storesOf[i] += bytes
		}
		return nil
	case ir.OpFor:
		return c.loop(in)
	case ir.OpWhile:
		return c.whileLoop(in)
	case ir.OpIf:
		cond := c.get(in.Args[0])
		if !cond.known {
			return fmt.Errorf("%w: the condition of the if at %s depends on data", ErrNotCountable, in.Pos)
		}
		r := in.Regions[1]
		if cond.i != 0 {
			r = in.Regions[0]
		}
		if err := c.block(r); err != nil {
			return err
		}
		c.results(in, r)
		return nil
	case ir.OpYield, ir.OpReturn:
		return nil
	}
	if len(in.Results) != 1 {
		return nil
	}
	d, ok := isIntScalar(in.Result())
	if !ok {
		return nil
	}
	var xs [3]cval
	for i, a := range in.Args {
		if i < 3 {
			xs[i] = c.get(a)
			if !xs[i].known {
				return nil
			}
		}
	}
	info := in.Op.Info()
	switch {
	case in.Op == ir.OpSelect:
		if xs[0].i != 0 {
			c.set(in.Result(), xs[1])
		} else {
			c.set(in.Result(), xs[2])
		}
	case in.Op == ir.OpConvert:
		if ad, ok := isIntScalar(in.Args[0]); ok {
			x := xs[0].i
			if d == ir.Bool {
				x = b2i(x != 0)
			} else if ad == ir.Bool {
				x = b2i(x != 0)
			}
			c.set(in.Result(), cval{known: true, i: x})
		}
	case in.Op == ir.OpCmp:
		ad, ok := isIntScalar(in.Args[0])
		if !ok {
			return nil
		}
		x, y := ir.IntOrderKey(ad, xs[0].i), ir.IntOrderKey(ad, xs[1].i)
		var r bool
		switch in.Pred() {
		case ir.PredEQ:
			r = x == y
		case ir.PredNE:
			r = x != y
		case ir.PredLT:
			r = x < y
		case ir.PredLE:
			r = x <= y
		case ir.PredGT:
			r = x > y
		case ir.PredGE:
			r = x >= y
		}
		c.set(in.Result(), cval{known: true, i: b2i(r)})
	case info.Elementwise && len(in.Args) == 2:
		if r, ok := ir.EvalIntBinaryOf(in.Op, d, xs[0].i, xs[1].i); ok {
			c.set(in.Result(), cval{known: true, i: r})
		}
	case info.Elementwise && len(in.Args) == 1:
		if r, ok := ir.EvalIntUnary(in.Op, d, xs[0].i); ok {
			c.set(in.Result(), cval{known: true, i: r})
		}
	}
	return nil
}

// results copies the values a region yields into its instruction's results.
func (c *counter) results(in *ir.Instr, r *ir.Block) {
	if len(r.Instrs) == 0 {
		return
	}
	y := r.Instrs[len(r.Instrs)-1]
	if y.Op != ir.OpYield {
		return
	}
	for j, v := range in.Results {
		if j < len(y.Args) {
			c.set(v, c.get(y.Args[j]))
		}
	}
}

func (c *counter) loop(in *ir.Instr) error {
	lo, hi, step := c.get(in.Args[0]), c.get(in.Args[1]), c.get(in.Args[2])
	if !lo.known || !hi.known || !step.known {
		return fmt.Errorf("%w: the bounds of the loop at %s depend on data", ErrNotCountable, in.Pos)
	}
	if step.i == 0 {
		return fmt.Errorf("the loop at %s has step 0", in.Pos)
	}
	body := in.Regions[0]
	for j := range in.Results {
		c.set(body.Params[1+j], c.get(in.Args[3+j]))
	}
	var yield *ir.Instr
	if n := len(body.Instrs); n > 0 && body.Instrs[n-1].Op == ir.OpYield {
		yield = body.Instrs[n-1]
	}
	next := make([]cval, len(in.Results))
	for iv := lo.i; (step.i > 0 && iv < hi.i) || (step.i < 0 && iv > hi.i); iv += step.i {
		c.set(body.Params[0], cval{known: true, i: iv})
		if err := c.block(body); err != nil {
			return err
		}
		if yield != nil {
			for j := range next {
				next[j] = c.get(yield.Args[j])
			}
			for j, v := range next {
				c.set(body.Params[1+j], v)
			}
		}
		if (step.i > 0 && iv > math.MaxInt64-step.i) || (step.i < 0 && iv < math.MinInt64-step.i) {
			break
		}
	}
	for j, v := range in.Results {
		c.set(v, c.get(body.Params[1+j]))
	}
	return nil
}

// whileLoop counts a while loop, whose condition must be known at every
// iteration (it depends on scalars only, not on loaded data).
func (c *counter) whileLoop(in *ir.Instr) error {
	cond, body := in.Regions[0], in.Regions[1]
	cur := make([]cval, len(in.Args))
	for j, a := range in.Args {
		cur[j] = c.get(a)
	}
	for {
		for j, v := range cur {
			c.set(cond.Params[j], v)
		}
		if err := c.block(cond); err != nil {
			return err
		}
		y := cond.Instrs[len(cond.Instrs)-1]
		p := c.get(y.Args[0])
		if !p.known {
			return fmt.Errorf("%w: the condition of the while loop at %s depends on data", ErrNotCountable, in.Pos)
		}
		if p.i == 0 {
			break
		}
		for j, v := range cur {
			c.set(body.Params[j], v)
		}
		if err := c.block(body); err != nil {
			return err
		}
		y = body.Instrs[len(body.Instrs)-1]
		for j := range cur {
			cur[j] = c.get(y.Args[j])
		}
	}
	for j, v := range in.Results {
		c.set(v, cur[j])
	}
	return nil
}

// tensor is the launch's tensor for an array-typed value (a kernel
// parameter), or nil.
func (c *counter) tensor(v *ir.Value) *runtime.Tensor {
	if v.Block != c.f.Body || v.Def != nil || v.Index >= len(c.b.Tensors) {
		return nil
	}
	return c.b.Tensors[v.Index]
}

// access counts a load's or store's in-bounds elements: the tile at tile
// index (i, j, ...) covers [i*tm, (i+1)*tm) x ..., clipped to the array.
func (c *counter) access(in *ir.Instr) error {
	t := c.tensor(in.Args[0])
	if t == nil {
		return nil
	}
	var shape []int
	if in.Op == ir.OpLoad {
		shape = in.Result().Type.(*ir.Tile).Shape
	} else {
		tile := in.Args[len(in.Args)-1]
		tt, ok := tile.Type.(*ir.Tile)
		if !ok {
			return nil
		}
		shape = tt.Shape
	}
	n := 1.0
	for d, s := range shape {
		if 1+d >= len(in.Args) || d >= len(t.Shape) {
			break
		}
		idx := c.get(in.Args[1+d])
		if !idx.known {
			return fmt.Errorf("%w: the tile index of the %s at %s depends on data", ErrNotCountable, in.Op, in.Pos)
		}
		lo := idx.i * int64(s)
		hi := lo + int64(s)
		lo, hi = max(lo, 0), min(hi, int64(t.Shape[d]))
		if hi <= lo {
			return nil
		}
		n *= float64(hi - lo)
	}
	bytes := n * float64(t.DType.Bytes())
	i := in.Args[0].Index
	if in.Op == ir.OpLoad {
		c.loads += bytes
		c.loadsOf[i] += bytes
	} else {
		c.stores += bytes
		c.storesOf[i] += bytes
	}
	return nil
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}
