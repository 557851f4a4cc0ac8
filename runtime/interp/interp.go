package interp

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	goruntime "runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/ir/scalar"
	"github.com/tilec/tilec/lang"
	"github.com/tilec/tilec/runtime"
)

// CPU is the interpreter backend: it executes the IR of a kernel block by
// block, running blocks in parallel on Workers goroutines (0: GOMAXPROCS).
// Each block executes the kernel body independently, as on a GPU; blocks
// that write the same elements race, as they would on a GPU.
type CPU struct {
	Workers int
}

// Name implements Backend.
func (CPU) Name() string { return "cpu" }

// Launch runs k on the interpreter with the default number of workers.
func Launch(k *runtime.Kernel, args []runtime.Arg, opts runtime.LaunchOptions) (*runtime.LaunchResult, error) {
	return CPU{}.Launch(k, args, opts)
}

// programKey is the interpreter's key in Kernel.Memo.
type programKey struct{}

// programOf returns the interpreter's compiled form of k, built once per
// Kernel however many launches share it.
func programOf(k *runtime.Kernel) (*program, error) {
	p, err := k.Memo(programKey{}, func() (any, error) { return compileProgram(k.Func) })
	prog, _ := p.(*program)
	return prog, err
}

// Launch implements Backend: it checks the arguments (Kernel.Bind), then
// runs every block of the grid (or opts.Blocks). The error of the failing
// block with the smallest linear id is reported.
func (c CPU) Launch(k *runtime.Kernel, args []runtime.Arg, opts runtime.LaunchOptions) (*runtime.LaunchResult, error) {
	start := time.Now()
	b, err := k.Bind(args, opts.Grid)
	if err != nil {
		return nil, err
	}
	k = b.Kernel // the specialization of a generic kernel
	prog, err := programOf(k)
	if err != nil {
		return nil, err
	}
	blocks := opts.Blocks
	n := b.NumBlocks()
	if len(blocks) > 0 {
		for _, id := range blocks {
			for ax := range id {
				if id[ax] < 0 || id[ax] >= b.Grid[ax] {
					return nil, fmt.Errorf("block %v is outside the grid %v", id, b.Grid)
				}
			}
		}
		n = len(blocks)
	}
	blockAt := func(i int) [3]int {
		if len(blocks) > 0 {
			return blocks[i]
		}
		g := b.Grid
		return [3]int{i % g[0], i / g[0] % g[1], i / (g[0] * g[1])}
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = c.Workers
	}
	asked := workers > 0
	if workers <= 0 {
		workers = goruntime.GOMAXPROCS(0)
	}
	workers = min(workers, n)
	if workers, err = fitWorkers(k, workers, asked); err != nil {
		return nil, err
	}
	ctx := opts.Context
	if ctx == nil {
		ctx = context.Background()
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("launch of %s not started: %w", k.Name(), err)
	}

	var (
		next     atomic.Int64
		done     atomic.Int64 // blocks finished
		failed   atomic.Bool
		stop     atomic.Bool // the context is done: blocks and loops stop
		mu       sync.Mutex
		firstErr error
		firstID  = n
		wg       sync.WaitGroup
	)
	// The watcher turns the context's end into a flag that the workers
	// read between blocks and the for loops read every iteration, so that
	// a loop of 2^60 iterations stops too; it also reports progress.
	finished := make(chan struct{})
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		var tick <-chan time.Time
		if opts.Progress != nil {
			every := opts.ProgressEvery
			if every <= 0 {
				every = time.Second
			}
			t := time.NewTicker(every)
			defer t.Stop()
			tick = t.C
		}
		for {
			select {
			case <-ctx.Done():
				stop.Store(true)
				failed.Store(true)
				return
			case <-finished:
				return
			case <-tick:
				opts.Progress(runtime.Progress{Done: int(done.Load()), Total: n, Elapsed: time.Since(start)})
			}
		}
	}()
	frames := make([]*frame, workers)
	out := &printer{w: opts.Stderr}
	if out.w == nil {
		out.w = os.Stderr
	}
	for w := 0; w < workers; w++ {
		wg.Add(1)
		fr := newFrame(prog, b)
		fr.stop = &stop
		fr.out = out
		frames[w] = fr
		go func() {
			defer wg.Done()
			for !failed.Load() {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				id := blockAt(i)
				if err := fr.runBlock(id); err != nil {
					mu.Lock()
					if i < firstID {
						firstID, firstErr = i, err
					}
					mu.Unlock()
					failed.Store(true)
					return
				}
				done.Add(1)
			}
		}()
	}
	wg.Wait()
	close(finished)
	<-watched
	if stop.Load() && int(done.Load()) < n {
		return nil, &StoppedError{Kernel: k.Name(), Done: int(done.Load()), Total: n,
			Elapsed: time.Since(start), Err: ctx.Err()}
	}
	if firstErr != nil {
		return nil, firstErr
	}
	return &runtime.LaunchResult{Grid: b.Grid, Dims: b.Dims, Blocks: n, Elapsed: time.Since(start),
		Warnings: mergeWarnings(frames)}, nil
}

// program is a kernel compiled for the interpreter: value slots instead of
// *ir.Value, an exec handler per instruction, decoded attributes.
type program struct {
	f      *ir.Func
	nslots int
	body   *cblock
	// params[i] is the slot of kernel parameter i.
	params []int
}

type cblock struct {
	params []int
	instrs []*cinstr
}

type handler func(fr *frame, c *cinstr) error

// cinstr is one instruction with everything its handler needs precomputed.
type cinstr struct {
	in      *ir.Instr
	op      ir.Op
	exec    handler
	args    []int
	res     []int
	regions []*cblock

	dtype  ir.DType   // result element type (first result)
	shape  []int      // result tile shape; nil for scalars
	n      int        // result element count
	tile   bool       // the result is a tile
	adt    []ir.DType // argument element types
	ashape [][]int    // argument tile shapes (nil for scalars and arrays)

	axis    int
	pred    int
	kind    string
	perm    []int
	pad     float64
	reverse bool  // scan
	ftz     bool  // flush float32 subnormal operands and results to zero (ir.AttrKeyFTZ)
	propNaN bool  // min/max/argmin/argmax of floats: NaN wins (ir.AttrKeyPropagateNaN); else ignored
	padI    int64 // the padding of an integer or bool load
	cval    val   // const
}

// val is a register: a scalar (i for ints and bools, f for floats), a tile
// or an array.
type val struct {
	i int64
	f float64
	t *tile
	a *arrayRef
	l *listRef // a list of arrays (ir.ArrayList)
}

// tile holds a tile's elements in row-major order: f for float dtypes
// (values already rounded to the dtype), i for integer and bool dtypes.
// Tiles are immutable once made, so reshape shares them.
type tile struct {
	f []float64
	i []int64
}

type arrayRef struct {
	name string
	t    *runtime.Tensor
}

type frame struct {
	p    *program
	regs []val
	bid  [3]int
	grid [3]int
	tmp  []val
	cur  *cinstr // the instruction executing, for errors

	warns map[*cinstr]*warning // this worker's warnings, by instruction
	stop  *atomic.Bool         // set when the launch's context is done
	out   *printer             // where printf writes
	line  []byte               // this block's printf output not yet written (no newline yet)
}

// errStopped ends a block whose launch was stopped; Launch reports the
// context's error instead.
var errStopped = errors.New("launch stopped")

// StoppedError is a launch stopped by its context (LaunchOptions.Context:
// a cancellation or a deadline, `tilec run --timeout`) before every block
// ran. Err is the context's error, so errors.Is(err,
// context.DeadlineExceeded) holds for a timeout. The outputs are partly
// written.
type StoppedError struct {
	Kernel      string
	Done, Total int // blocks finished, blocks in the launch
	Elapsed     time.Duration
	Err         error
}

func (e *StoppedError) Error() string {
	return fmt.Sprintf("launch of %s stopped after %s with %d of %d blocks done: %v",
		e.Kernel, e.Elapsed.Round(time.Millisecond), e.Done, e.Total, e.Err)
}

func (e *StoppedError) Unwrap() error { return e.Err }

// warning is a Warning being counted, with the linear id of its Block, by
// which the first block where it happened is chosen.
type warning struct {
	runtime.Warning
	linear int
}

// warn records one element of a warning at c, in the current block.
func (fr *frame) warn(c *cinstr, y int64) {
	lin := fr.bid[0] + fr.grid[0]*(fr.bid[1]+fr.grid[1]*fr.bid[2])
	w := fr.warns[c]
	if w == nil {
		if fr.warns == nil {
			fr.warns = map[*cinstr]*warning{}
		}
		w = &warning{Warning: runtime.Warning{Block: fr.bid, Pos: lang.Pos(c.in.Pos), Op: c.op, Msg: ir.IntBinaryWarning(c.op, y)}, linear: lin}
		fr.warns[c] = w
	}
	w.Count++
	if lin < w.linear {
		w.Block, w.linear = fr.bid, lin
	}
}

// mergeWarnings combines the workers' warnings into one per instruction,
// in source order.
func mergeWarnings(frames []*frame) []*runtime.Warning {
	by := map[*cinstr]*warning{}
	var out []*runtime.Warning
	for _, fr := range frames {
		for c, w := range fr.warns {
			m := by[c]
			if m == nil {
				cp := *w
				by[c] = &cp
				out = append(out, &cp.Warning)
				continue
			}
			m.Count += w.Count
			if w.linear < m.linear {
				m.Block, m.linear = w.Block, w.linear
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i].Pos, out[j].Pos
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
	return out
}

func newFrame(p *program, b *runtime.Binding) *frame {
	fr := &frame{p: p, regs: make([]val, p.nslots), grid: b.Grid}
	for i, s := range p.params {
		param := p.f.Params[i]
		switch {
		case b.Tensors[i] != nil:
			fr.regs[s] = val{a: &arrayRef{name: param.Name, t: b.Tensors[i]}}
		case b.Lists[i] != nil:
			fr.regs[s] = val{l: listRefs(param.Name, b.Lists[i])}
		default:
			switch v := b.Scalars[i].(type) {
			case int64:
				fr.regs[s] = val{i: v}
			case float64:
				fr.regs[s] = val{f: v}
			}
		}
	}
	return fr
}

// ExecError is a run-time error of one block: a load or store entirely out
// of bounds, a for loop with step 0, or (Bug set) an internal error of the
// interpreter.
type ExecError struct {
	Block [3]int
	Pos   lang.Pos // the instruction's source position, when known
	Op    ir.Op
	Msg   string
	Bug   bool
}

func (e *ExecError) Error() string {
	var b strings.Builder
	if e.Pos.IsValid() {
		fmt.Fprintf(&b, "%s:%d:%d: ", e.Pos.File, e.Pos.Line, e.Pos.Col)
	}
	fmt.Fprintf(&b, "block (%d,%d,%d): ", e.Block[0], e.Block[1], e.Block[2])
	if e.Bug {
		fmt.Fprintf(&b, "interpreter bug in %s: ", e.Op)
	}
	b.WriteString(e.Msg)
	return b.String()
}

func (fr *frame) runBlock(id [3]int) (err error) {
	fr.bid = id
	fr.cur = nil
	defer func() {
		if r := recover(); r != nil {
			e := &ExecError{Block: id, Msg: fmt.Sprint(r), Bug: true}
			if fr.cur != nil {
				e.Pos, e.Op = lang.Pos(fr.cur.in.Pos), fr.cur.op
			}
			err = e
		}
	}()
	fr.line = fr.line[:0]
	_, err = fr.run(fr.p.body)
	fr.printLines(true)
	if err != nil {
		e := &ExecError{Block: id, Msg: err.Error()}
		if fr.cur != nil {
			e.Pos, e.Op = lang.Pos(fr.cur.in.Pos), fr.cur.op
		}
		err = e
	}
	return err
}

// run executes b up to its terminator (a region's yield or the body's
// return), which it returns.
func (fr *frame) run(b *cblock) (*cinstr, error) {
	for _, c := range b.instrs {
		if c.op == ir.OpYield || c.op == ir.OpReturn {
			return c, nil
		}
		fr.cur = c
		if err := c.exec(fr, c); err != nil {
			return nil, err
		}
	}
	return nil, nil
}

func isFloat(d ir.DType) bool { return d.IsFloat() }

// compile turns f into a program. The IR must pass ir.Verify, which is the
// one statement of what valid IR is; the handlers rely on it and do not
// check operand counts, types or shapes again.
func compileProgram(f *ir.Func) (*program, error) {
	if err := ir.Verify(f); err != nil {
		return nil, fmt.Errorf("interpreter: kernel is not valid IR: %w", err)
	}
	c := &compiler{slots: map[*ir.Value]int{}}
	p := &program{f: f}
	for _, prm := range f.Params {
		p.params = append(p.params, c.slot(prm.Value))
	}
	body, err := c.block(f.Body)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.Name, err)
	}
	p.body = body
	p.nslots = len(c.slots)
	return p, nil
}

type compiler struct {
	slots map[*ir.Value]int
}

func (c *compiler) slot(v *ir.Value) int {
	if s, ok := c.slots[v]; ok {
		return s
	}
	s := len(c.slots)
	c.slots[v] = s
	return s
}

func (c *compiler) block(b *ir.Block) (*cblock, error) {
	cb := &cblock{}
	for _, p := range b.Params {
		cb.params = append(cb.params, c.slot(p))
	}
	for _, in := range b.Instrs {
		ci, err := c.instr(in)
		if err != nil {
			if in.Pos.IsValid() {
				return nil, fmt.Errorf("%s:%d:%d: %s: %w", in.Pos.File, in.Pos.Line, in.Pos.Col, in.Op, err)
			}
			return nil, fmt.Errorf("%s: %w", in.Op, err)
		}
		cb.instrs = append(cb.instrs, ci)
	}
	return cb, nil
}

func tileShape(t ir.Type) []int {
	if tt, ok := t.(*ir.Tile); ok {
		if tt.Shape == nil {
			return []int{}
		}
		return tt.Shape
	}
	return nil
}

func numel(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}

var predCodes = map[string]int{ir.PredEQ: 0, ir.PredNE: 1, ir.PredLT: 2, ir.PredLE: 3, ir.PredGT: 4, ir.PredGE: 5}

// instr precomputes what in's handler needs. The kernel passed ir.Verify,
// so operand counts, types, shapes, attributes and region terminators are
// as the op table and the verifier's typing rules say.
func (c *compiler) instr(in *ir.Instr) (*cinstr, error) {
	ci := &cinstr{in: in, op: in.Op}
	for _, a := range in.Args {
		ci.args = append(ci.args, c.slot(a))
		ci.adt = append(ci.adt, a.Type.Elem())
		ci.ashape = append(ci.ashape, tileShape(a.Type))
	}
	for _, r := range in.Results {
		ci.res = append(ci.res, c.slot(r))
	}
	if len(in.Results) > 0 {
		t := in.Results[0].Type
		ci.dtype = t.Elem()
		ci.shape = tileShape(t)
		ci.tile = ci.shape != nil
		ci.n = numel(ci.shape)
	}
	for _, r := range in.Regions {
		cb, err := c.block(r)
		if err != nil {
			return nil, err
		}
		ci.regions = append(ci.regions, cb)
	}
	h := &interpOps[in.Op]
	if h.exec == nil {
		// Only a lowered-only op gets here: the table covers every other
		// op (checked in init) and ir.Verify rejects unknown ones.
		return nil, fmt.Errorf("op %s belongs to lowered IR, which the interpreter does not run", in.Op)
	}
	if h.prepare != nil {
		h.prepare(ci)
	}
	ci.exec = h.exec
	return ci, nil
}

// opHandler is how the interpreter runs one op. prepare, when set, decodes
// at compile time what exec needs from the instruction (attributes, the
// stored tile's shape); exec runs the instruction in a block's frame.
type opHandler struct {
	prepare func(ci *cinstr)
	exec    handler
}

// interpOps has the handler of every op of ir's table except the lowered-only
// ones; init checks that, so an op added to ir without a handler here fails
// every test and every program at once.
var interpOps = [ir.NumOps]opHandler{
	ir.OpConst:     {prepareConst, execConst},
	ir.OpBlockID:   {prepareAxis, execGridQuery},
	ir.OpNumBlocks: {prepareAxis, execGridQuery},
	ir.OpDim:       {prepareAxis, execDim},

	ir.OpAdd:      {prepareFTZ, execBinary},
	ir.OpSub:      {prepareFTZ, execBinary},
	ir.OpMul:      {prepareFTZ, execBinary},
	ir.OpDiv:      {prepareFTZ, execBinary},
	ir.OpFloorDiv: {nil, execBinary},
	ir.OpMod:      {nil, execBinary},
	ir.OpPow:      {nil, execBinary},
	ir.OpMin:      {prepareMinMax, execBinary},
	ir.OpMax:      {prepareMinMax, execBinary},
	ir.OpAnd:      {nil, execBinary},
	ir.OpOr:       {nil, execBinary},
	ir.OpXor:      {nil, execBinary},
	ir.OpCmp:      {preparePred, execCmp},

	ir.OpNeg:   {nil, execUnary},
	ir.OpNot:   {nil, execUnary},
	ir.OpAbs:   {nil, execUnary},
	ir.OpExp:   {nil, execUnary},
	ir.OpExp2:  {prepareFTZ, execUnary},
	ir.OpLog:   {nil, execUnary},
	ir.OpSqrt:  {nil, execUnary},
	ir.OpRsqrt: {prepareFTZ, execUnary},
	ir.OpTanh:  {nil, execUnary},

	ir.OpSelect:  {nil, execSelect},
	ir.OpConvert: {nil, execConvert},

	ir.OpSplat:     {nil, execSplat},
	ir.OpIota:      {nil, execIota},
	ir.OpBroadcast: {nil, execBroadcast},
	ir.OpReshape:   {nil, execReshape},
	ir.OpPermute:   {preparePermute, execPermute},
	ir.OpReduce:    {prepareReduce, execReduce},
	ir.OpMMA:       {nil, execMMA},
	ir.OpMMAScaled: {nil, execMMAScaled},

	ir.OpLoad:  {prepareLoad, execLoad},
	ir.OpStore: {prepareStore, execStore},

	ir.OpFor:    {nil, execFor},
	ir.OpIf:     {nil, execIf},
	ir.OpYield:  {nil, execTerminator},
	ir.OpReturn: {nil, execTerminator},

	ir.OpShl:     {nil, execBinary},
	ir.OpShr:     {nil, execBinary},
	ir.OpAtan2:   {nil, execBinary},
	ir.OpSin:     {nil, execUnary},
	ir.OpCos:     {nil, execUnary},
	ir.OpTan:     {nil, execUnary},
	ir.OpSinh:    {nil, execUnary},
	ir.OpCosh:    {nil, execUnary},
	ir.OpFloor:   {nil, execUnary},
	ir.OpCeil:    {nil, execUnary},
	ir.OpLog2:    {nil, execUnary},
	ir.OpIsNaN:   {nil, execIsNaN},
	ir.OpBitcast: {nil, execBitcast},
	ir.OpScan:    {prepareScan, execScan},
	ir.OpCat:     {prepareCat, execCat},
	ir.OpExtract: {nil, execExtract},
	ir.OpInsert:  {nil, execInsert},

	ir.OpGather:      {prepareIndexed, execGather},
	ir.OpScatter:     {prepareIndexed, execScatter},
	ir.OpAtomicRMW:   {prepareIndexed, execAtomic},
	ir.OpAtomicCAS:   {prepareIndexed, execAtomic},
	ir.OpReduceFn:    {prepareCombiner, execCombiner},
	ir.OpScanFn:      {prepareCombiner, execCombiner},
	ir.OpPrintf:      {nil, execPrintf},
	ir.OpAssert:      {nil, execAssert},
	ir.OpPackBytes:   {nil, execPackBytes},
	ir.OpUnpackBytes: {nil, execUnpackBytes},
	ir.OpWhile:       {nil, execWhile},
	ir.OpStride:      {prepareAxis, execStride},
	ir.OpListGet:     {nil, execListGet},
	ir.OpListLen:     {nil, execListLen},

	ir.OpArraySlice:      {prepareAxis, execArraySlice},
	ir.OpLoadOffset:      {prepareIndexed, execGather},
	ir.OpStoreOffset:     {prepareIndexed, execScatter},
	ir.OpAtomicRMWOffset: {prepareIndexed, execAtomic},
	ir.OpAtomicCASOffset: {prepareIndexed, execAtomic},

	ir.OpVoteAll: {nil, execVoteAll},
}

func init() {
	if missing := missingHandlers(&interpOps); len(missing) > 0 {
		panic(fmt.Sprintf("runtime: the interpreter has no handler for %v; add one to interpOps, or mark the op LoweredOnly in ir's op table if only lowered IR has it", missing))
	}
}

// missingHandlers lists the ops of ir's table, other than the lowered-only
// ones, that have no exec handler in table.
func missingHandlers(table *[ir.NumOps]opHandler) []ir.Op {
	var missing []ir.Op
	for op := ir.Op(1); op < ir.NumOps; op++ {
		if table[op].exec == nil && !op.Info().LoweredOnly {
			missing = append(missing, op)
		}
	}
	return missing
}

func prepareConst(ci *cinstr) { ci.cval = constVal(ci.dtype, ci.in.AttrOf(ir.AttrKeyValue)) }

func prepareAxis(ci *cinstr) { ci.axis = ci.in.Axis() }

func preparePred(ci *cinstr) { ci.pred = predCodes[ci.in.Pred()] }

func prepareFTZ(ci *cinstr) { ci.ftz = ci.in.Attrs.Get(ir.AttrKeyFTZ) == true }

func prepareMinMax(ci *cinstr) {
	prepareFTZ(ci)
	ci.propNaN = ci.in.Attrs.Get(ir.AttrKeyPropagateNaN) == true
}

// floatBinary is the float op of c on x and y: ir.EvalFloatBinary, with
// min and max ignoring NaN unless c propagates it (cuTile's default).
func (c *cinstr) floatBinary(x, y float64) float64 {
	if !c.propNaN {
		switch c.op {
		case ir.OpMax:
			return scalar.MaxFloatNum(x, y)
		case ir.OpMin:
			return scalar.MinFloatNum(x, y)
		}
	}
	r, _ := ir.EvalFloatBinary(c.op, x, y)
	return r
}

// flushed returns xs with float32 subnormals flushed to signed zeros
// (PTX's .ftz), copying only when there is one to flush: xs may be a
// register's tile.
func flushed(xs []float64) []float64 {
	for i, x := range xs {
		if scalar.SubnormalF32(x) {
			out := slices.Clone(xs)
			for j := i; j < len(out); j++ {
				out[j] = scalar.FlushF32(out[j])
			}
			return out
		}
	}
	return xs
}

func preparePermute(ci *cinstr) { ci.perm = ci.in.Perm() }

func prepareReduce(ci *cinstr) {
	ci.kind = ci.in.Kind()
	ci.axis = ci.in.Axis()
	ci.propNaN = ci.in.Attrs.Get(ir.AttrKeyPropagateNaN) == true
}

// prepareLoad decodes the padding value. On integer and bool dtypes the
// infinities mean the dtype's extremes (NEG_INF the minimum, POS_INF the
// maximum; false and true for bool), the zeros 0; NAN on them is rejected
// by the builder and ir.Verify.
func prepareLoad(ci *cinstr) {
	pad := ci.in.Pad()
	if ci.dtype.IsFloat() {
		ci.pad = runtime.RoundTo(ci.dtype, padValues[pad])
		return
	}
	lo, hi := ir.IntRange(ci.dtype)
	switch pad {
	case ir.PadNegInf:
		ci.padI = lo
	case ir.PadPosInf:
		ci.padI = hi
	}
}

// prepareStore takes the shape from the stored tile: a store has no result.
func prepareStore(ci *cinstr) {
	last := len(ci.args) - 1
	ci.shape, ci.dtype = ci.ashape[last], ci.adt[last]
	ci.n = numel(ci.shape)
}

// execTerminator runs for yield and return only if called directly: run
// stops at them and hands them to the region's owner.
func execTerminator(*frame, *cinstr) error { return nil }

// padValues are the element values of the load padding modes, before
// rounding to the loaded dtype.
var padValues = map[string]float64{
	ir.PadZero:    0,
	ir.PadNegZero: math.Copysign(0, -1),
	ir.PadNaN:     math.NaN(),
	ir.PadPosInf:  math.Inf(1),
	ir.PadNegInf:  math.Inf(-1),
}

// constVal is the register value of a const of dtype d whose value
// attribute x passed ir.Verify: an int64 (for integer or float dtypes), a
// float64 (float dtypes) or a bool (bool).
func constVal(d ir.DType, x any) val {
	var i int64
	var f float64
	switch x := x.(type) {
	case int64:
		i, f = x, float64(x)
	case float64:
		f = x
	case bool:
		if x {
			i = 1
		}
	}
	switch {
	case d == ir.TF32:
		return val{f: float64(runtime.RoundTF32(float32(f)))}
	case isFloat(d):
		return val{f: runtime.RoundTo(d, f)}
	}
	return val{i: ir.WrapInt(d, i)}
}

func splatTile(d ir.DType, n int, s val) *tile {
	t := &tile{}
	if isFloat(d) {
		t.f = make([]float64, n)
		for i := range t.f {
			t.f[i] = s.f
		}
	} else {
		t.i = make([]int64, n)
		for i := range t.i {
			t.i[i] = s.i
		}
	}
	return t
}

func execConst(fr *frame, c *cinstr) error {
	fr.regs[c.res[0]] = c.cval
	return nil
}

func execGridQuery(fr *frame, c *cinstr) error {
	v := fr.bid[c.axis]
	if c.op == ir.OpNumBlocks {
		v = fr.grid[c.axis]
	}
	fr.regs[c.res[0]] = val{i: ir.WrapInt(c.dtype, int64(v))}
	return nil
}

// execStride is an array's stride in elements, wrapped to the result's
// dtype (i32, as cuTile's Array.strides).
func execStride(fr *frame, c *cinstr) error {
	a := fr.regs[c.args[0]].a
	fr.regs[c.res[0]] = val{i: ir.WrapInt(c.dtype, int64(a.t.Strides[c.axis]))}
	return nil
}

func execDim(fr *frame, c *cinstr) error {
	a := fr.regs[c.args[0]].a
	fr.regs[c.res[0]] = val{i: ir.WrapInt(c.dtype, int64(a.t.Shape[c.axis]))}
	return nil
}

// floatsOf returns operand k as a float slice of the result's length; a
// scalar operand is splatted.
func (fr *frame) floatsOf(c *cinstr, k int) []float64 {
	v := fr.regs[c.args[k]]
	if v.t != nil {
		return v.t.f
	}
	x := v.f
	if !isFloat(c.adt[k]) {
		x = ir.IntToFloat(c.adt[k], v.i)
	}
	s := make([]float64, c.n)
	for i := range s {
		s[i] = x
	}
	return s
}

func (fr *frame) intsOf(c *cinstr, k int) []int64 {
	v := fr.regs[c.args[k]]
	if v.t != nil {
		return v.t.i
	}
	s := make([]int64, c.n)
	for i := range s {
		s[i] = v.i
	}
	return s
}

// round rounds a float result to the instruction's dtype, then flushes it
// when the instruction has ftz.
func (c *cinstr) round(r float64) float64 {
	r = runtime.RoundTo(c.dtype, r)
	if c.ftz {
		r = scalar.FlushF32(r)
	}
	return r
}

// roundSlice is round on a tile's elements.
func (c *cinstr) roundSlice(out []float64) {
	roundSlice(c.dtype, out)
	if c.ftz {
		for i, r := range out {
			out[i] = scalar.FlushF32(r)
		}
	}
}

func execBinary(fr *frame, c *cinstr) error {
	if !c.tile {
		x, y := fr.regs[c.args[0]], fr.regs[c.args[1]]
		if isFloat(c.dtype) {
			if c.ftz {
				x.f, y.f = scalar.FlushF32(x.f), scalar.FlushF32(y.f)
			}
			fr.regs[c.res[0]] = val{f: c.round(c.floatBinary(x.f, y.f))}
		} else {
			r, _ := ir.EvalIntBinaryOf(c.op, c.dtype, x.i, y.i)
			fr.regs[c.res[0]] = val{i: ir.WrapInt(c.dtype, r)}
			if ir.IntBinaryWarning(c.op, y.i) != "" {
				fr.warn(c, y.i)
			}
		}
		return nil
	}
	if isFloat(c.dtype) {
		x, y := fr.floatsOf(c, 0), fr.floatsOf(c, 1)
		out := make([]float64, c.n)
		x, y = x[:len(out)], y[:len(out)]
		if c.ftz {
			x, y = flushed(x), flushed(y)
		}
		switch c.op {
		case ir.OpAdd:
			for i := range out {
				out[i] = x[i] + y[i]
			}
		case ir.OpSub:
			for i := range out {
				out[i] = x[i] - y[i]
			}
		case ir.OpMul:
			for i := range out {
				out[i] = x[i] * y[i]
			}
		case ir.OpDiv:
			for i := range out {
				out[i] = x[i] / y[i]
			}
		default:
			for i := range out {
				out[i] = c.floatBinary(x[i], y[i])
			}
		}
		c.roundSlice(out)
		fr.regs[c.res[0]] = val{t: &tile{f: out}}
		return nil
	}
	x, y := fr.intsOf(c, 0), fr.intsOf(c, 1)
	out := make([]int64, c.n)
	x, y = x[:len(out)], y[:len(out)]
	switch c.op {
	case ir.OpAdd:
		for i := range out {
			out[i] = x[i] + y[i]
		}
	case ir.OpMul:
		for i := range out {
			out[i] = x[i] * y[i]
		}
	default:
		for i := range out {
			out[i], _ = ir.EvalIntBinaryOf(c.op, c.dtype, x[i], y[i])
		}
		if c.op == ir.OpFloorDiv || c.op == ir.OpMod || c.op == ir.OpPow {
			for _, v := range y {
				if ir.IntBinaryWarning(c.op, v) != "" {
					fr.warn(c, v)
				}
			}
		}
	}
	wrapSlice(c.dtype, out)
	fr.regs[c.res[0]] = val{t: &tile{i: out}}
	return nil
}

// applyPred applies predicate code p (see predCodes) to x and y.
func applyPred[T int64 | float64](p int, x, y T) bool {
	switch p {
	case 0:
		return x == y
	case 1:
		return x != y
	case 2:
		return x < y
	case 3:
		return x <= y
	case 4:
		return x > y
	}
	return x >= y
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func execCmp(fr *frame, c *cinstr) error {
	fl := isFloat(c.adt[0])
	if !c.tile {
		x, y := fr.regs[c.args[0]], fr.regs[c.args[1]]
		var r bool
		if fl {
			r = applyPred(c.pred, x.f, y.f)
		} else {
			r = applyPred(c.pred, ir.IntOrderKey(c.adt[0], x.i), ir.IntOrderKey(c.adt[0], y.i))
		}
		fr.regs[c.res[0]] = val{i: b2i(r)}
		return nil
	}
	out := make([]int64, c.n)
	if fl {
		x, y := fr.floatsOf(c, 0), fr.floatsOf(c, 1)
		for i := range out {
			out[i] = b2i(applyPred(c.pred, x[i], y[i]))
		}
	} else {
		x, y := fr.intsOf(c, 0), fr.intsOf(c, 1)
		d := c.adt[0]
		for i := range out {
			out[i] = b2i(applyPred(c.pred, ir.IntOrderKey(d, x[i]), ir.IntOrderKey(d, y[i])))
		}
	}
	fr.regs[c.res[0]] = val{t: &tile{i: out}}
	return nil
}

func execUnary(fr *frame, c *cinstr) error {
	if !c.tile {
		x := fr.regs[c.args[0]]
		if isFloat(c.dtype) {
			if c.ftz {
				x.f = scalar.FlushF32(x.f)
			}
			r, _ := ir.EvalFloatUnary(c.op, x.f)
			fr.regs[c.res[0]] = val{f: c.round(r)}
		} else {
			r, _ := ir.EvalIntUnary(c.op, c.dtype, x.i)
			fr.regs[c.res[0]] = val{i: ir.WrapInt(c.dtype, r)}
		}
		return nil
	}
	if isFloat(c.dtype) {
		x := fr.floatsOf(c, 0)
		if c.ftz {
			x = flushed(x)
		}
		out := make([]float64, c.n)
		for i := range out {
			out[i], _ = ir.EvalFloatUnary(c.op, x[i])
		}
		c.roundSlice(out)
		fr.regs[c.res[0]] = val{t: &tile{f: out}}
		return nil
	}
	x := fr.intsOf(c, 0)
	out := make([]int64, c.n)
	for i := range out {
		out[i], _ = ir.EvalIntUnary(c.op, c.dtype, x[i])
	}
	wrapSlice(c.dtype, out)
	fr.regs[c.res[0]] = val{t: &tile{i: out}}
	return nil
}

func execSelect(fr *frame, c *cinstr) error {
	if !c.tile {
		cond, x, y := fr.regs[c.args[0]], fr.regs[c.args[1]], fr.regs[c.args[2]]
		if cond.i != 0 {
			fr.regs[c.res[0]] = x
		} else {
			fr.regs[c.res[0]] = y
		}
		return nil
	}
	cond := fr.intsOf(c, 0)
	if isFloat(c.dtype) {
		fr.regs[c.res[0]] = val{t: &tile{f: selectElems(cond, fr.floatsOf(c, 1), fr.floatsOf(c, 2))}}
		return nil
	}
	fr.regs[c.res[0]] = val{t: &tile{i: selectElems(cond, fr.intsOf(c, 1), fr.intsOf(c, 2))}}
	return nil
}

// selectElems is x[i] where cond[i] is nonzero, else y[i].
func selectElems[T any](cond []int64, x, y []T) []T {
	out := make([]T, len(cond))
	for i := range out {
		if cond[i] != 0 {
			out[i] = x[i]
		} else {
			out[i] = y[i]
		}
	}
	return out
}

// convertFloat converts the float x to the float dtype d (TF32: PTX's
// cvt.rna.tf32.f32 after rounding to f32).
func convertFloat(d ir.DType, x float64) float64 {
	if d == ir.TF32 {
		return float64(runtime.RoundTF32(float32(x)))
	}
	return runtime.RoundTo(d, x)
}

func execConvert(fr *frame, c *cinstr) error {
	from, to := c.adt[0], c.dtype
	if !c.tile {
		x := fr.regs[c.args[0]]
		var r val
		switch {
		case isFloat(from) && isFloat(to):
			r.f = convertFloat(to, x.f)
		case isFloat(from):
			r.i = ir.FloatToInt(to, x.f)
		case isFloat(to):
			r.f = convertFloat(to, ir.IntToFloat(from, x.i))
		default:
			r.i = ir.WrapInt(to, x.i)
		}
		fr.regs[c.res[0]] = r
		return nil
	}
	src := fr.regs[c.args[0]].t
	out := &tile{}
	switch {
	case isFloat(from) && isFloat(to):
		out.f = make([]float64, c.n)
		if to == ir.TF32 {
			for i, x := range src.f {
				out.f[i] = convertFloat(to, x)
			}
		} else {
			copy(out.f, src.f)
			roundSlice(to, out.f)
		}
	case isFloat(from):
		out.i = make([]int64, c.n)
		for i, x := range src.f {
			out.i[i] = ir.FloatToInt(to, x)
		}
	case isFloat(to):
		out.f = make([]float64, c.n)
		for i, x := range src.i {
			out.f[i] = ir.IntToFloat(from, x)
		}
		if to == ir.TF32 {
			for i, x := range out.f {
				out.f[i] = convertFloat(to, x)
			}
		} else {
			roundSlice(to, out.f)
		}
	default:
		out.i = make([]int64, c.n)
		copy(out.i, src.i)
		wrapSlice(to, out.i)
	}
	fr.regs[c.res[0]] = val{t: out}
	return nil
}

func execSplat(fr *frame, c *cinstr) error {
	fr.regs[c.res[0]] = val{t: splatTile(c.dtype, c.n, fr.regs[c.args[0]])}
	return nil
}

func execIota(fr *frame, c *cinstr) error {
	t := &tile{i: make([]int64, c.n)}
	for i := range t.i {
		t.i[i] = int64(i)
	}
	wrapSlice(c.dtype, t.i)
	fr.regs[c.res[0]] = val{t: t}
	return nil
}

// gather builds a tile of shape c.shape whose element at index idx is the
// source's element at flat offset sum(idx[i]*strides[i]).
func gather(src *tile, shape, strides []int, n int) *tile {
	out := &tile{}
	if src.f != nil {
		out.f = make([]float64, n)
	} else {
		out.i = make([]int64, n)
	}
	if n == 0 {
		return out
	}
	r := len(shape)
	if r == 0 {
		if src.f != nil {
			out.f[0] = src.f[0]
		} else {
			out.i[0] = src.i[0]
		}
		return out
	}
	idx := make([]int, r)
	last, ls := shape[r-1], strides[r-1]
	e := 0
	for o := 0; o < n; o += last {
		if src.f != nil {
			dst := out.f[o : o+last]
			for j := range dst {
				dst[j] = src.f[e+j*ls]
			}
		} else {
			dst := out.i[o : o+last]
			for j := range dst {
				dst[j] = src.i[e+j*ls]
			}
		}
		for i := r - 2; i >= 0; i-- {
			idx[i]++
			e += strides[i]
			if idx[i] < shape[i] {
				break
			}
			e -= idx[i] * strides[i]
			idx[i] = 0
		}
	}
	return out
}

// execBroadcast stretches the operand's size-1 dims (the ranks are
// equal): a stretched dim reads its one element with stride 0.
func execBroadcast(fr *frame, c *cinstr) error {
	strides := runtime.RowMajorStrides(c.ashape[0])
	for i, d := range c.ashape[0] {
		if d == 1 {
			strides[i] = 0
		}
	}
	fr.regs[c.res[0]] = val{t: gather(fr.regs[c.args[0]].t, c.shape, strides, c.n)}
	return nil
}

func execReshape(fr *frame, c *cinstr) error {
	fr.regs[c.res[0]] = fr.regs[c.args[0]]
	return nil
}

func execPermute(fr *frame, c *cinstr) error {
	src := runtime.RowMajorStrides(c.ashape[0])
	strides := make([]int, len(c.perm))
	for i, p := range c.perm {
		strides[i] = src[p]
	}
	fr.regs[c.res[0]] = val{t: gather(fr.regs[c.args[0]].t, c.shape, strides, c.n)}
	return nil
}
