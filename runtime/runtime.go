package runtime

import (
	"context"
	"fmt"
	"io"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/lang"
)

// Kernel is a compiled kernel ready to launch: the IR function, which the
// CPU backend interprets and every launch is checked against. Device
// backends derive their own code from it and cache it themselves (the CUDA
// backend per kernel and target), so a Kernel holds no target code.
type Kernel struct {
	// Func is the kernel's IR; nil for a generic kernel (IsGeneric).
	Func *ir.Func

	generic Specializer

	memoMu sync.Mutex
	memo   map[any]*memoEntry
}

type memoEntry struct {
	once sync.Once
	v    any
	err  error
}

// NewKernel wraps f. What a backend derives from it (the interpreter's
// program) is built on first use (Memo).
func NewKernel(f *ir.Func) *Kernel { return &Kernel{Func: f} }

// Memo returns what build returns for key, calling it on the first call
// for that key only, even when calls race. Backends keep what they derive
// from the kernel here (runtime/interp its compiled program, under a key
// type of its own), so that it lives exactly as long as the Kernel and is
// built once however many launches share it.
func (k *Kernel) Memo(key any, build func() (any, error)) (any, error) {
	k.memoMu.Lock()
	e := k.memo[key]
	if e == nil {
		if k.memo == nil {
			k.memo = map[any]*memoEntry{}
		}
		e = &memoEntry{}
		k.memo[key] = e
	}
	k.memoMu.Unlock()
	e.once.Do(func() { e.v, e.err = build() })
	return e.v, e.err
}

// Name is the kernel's name.
func (k *Kernel) Name() string {
	if k.generic != nil {
		return k.generic.Name()
	}
	return k.Func.Name
}

// Arg is one launch argument: a *Tensor for an array parameter, or a Go
// scalar (float64, float32, int, int64, int32, bool) for a scalar parameter.
type Arg any

// LaunchOptions control one launch.
type LaunchOptions struct {
	// Grid overrides the kernel's declared grid when any entry is non-zero;
	// zero entries of an override are 1. A kernel without a grid needs it.
	Grid [3]int
	// Workers is the number of goroutines that execute blocks on the CPU
	// backend (0: the backend's own setting, then GOMAXPROCS).
	Workers int
	// Blocks, when non-empty, restricts execution to these block ids (for
	// checking a sample of a large launch); the grid is still the full one.
	Blocks [][3]int
	// Context, when set, stops the CPU interpreter when it is done (a
	// cancellation or deadline): between blocks and at every iteration of
	// a for loop. The launch then fails with a *StoppedError wrapping the
	// context's error. nil is context.Background().
	Context context.Context
	// Progress, when set, is called every ProgressEvery (0: one second)
	// during a CPU launch with the blocks done so far, from a goroutine of
	// its own.
	Progress      func(Progress)
	ProgressEvery time.Duration
	// Stderr receives the output of ct.printf and ct.print on the CPU
	// backend, each line prefixed with its block id (nil: os.Stderr).
	Stderr io.Writer
}

// LaunchResult describes a finished launch.
type LaunchResult struct {
	Grid    [3]int
	Dims    map[string]int64 // symbolic dims bound from the arguments
	Blocks  int              // blocks executed
	Elapsed time.Duration
	// Warnings are the interpreter's run-time warnings (see Warning), in
	// source order; device backends report none.
	Warnings []*Warning
	// Float8FastSums says the device summed float8 mma products in the
	// tensor cores' reduced-precision accumulator (float8 wgmma, which
	// use_fast_acc allows): the GPU check's bound for such sums is looser
	// (check.CheckOptions.Float8FastSums).
	Float8FastSums bool
}

// Progress is a report on a running launch (LaunchOptions.Progress).
type Progress struct {
	Done, Total int // blocks finished, blocks in the launch
	Elapsed     time.Duration
}

// ETA estimates the time left from the rate so far (0 before any block is
// done).
func (p Progress) ETA() time.Duration {
	if p.Done <= 0 {
		return 0
	}
	return time.Duration(float64(p.Elapsed) * float64(p.Total-p.Done) / float64(p.Done))
}

// Warning is a run-time event with a defined result that is likely a
// mistake, reported as numpy reports it (ir.IntBinaryWarning): an integer
// division or modulo by zero, an integer to a negative power. Block is the
// first block (smallest linear id) where it happened, Count the number of
// elements over the launch.
type Warning struct {
	Block [3]int
	Pos   lang.Pos
	Op    ir.Op
	Msg   string
	Count int64
}

// String is the warning with its position: `file:line:col: warning: ...`.
func (w *Warning) String() string {
	if w.Pos.IsValid() {
		return fmt.Sprintf("%s:%d:%d: %s", w.Pos.File, w.Pos.Line, w.Pos.Col, w.Message())
	}
	return w.Message()
}

// Message is the warning without its position.
func (w *Warning) Message() string {
	var b strings.Builder
	fmt.Fprintf(&b, "warning: %s in %d element", w.Msg, w.Count)
	if w.Count != 1 {
		b.WriteString("s")
	}
	fmt.Fprintf(&b, ", first in block (%d,%d,%d)", w.Block[0], w.Block[1], w.Block[2])
	return b.String()
}

// Backend executes kernels. The CPU interpreter is one; a CUDA backend
// (build tag cuda) is another.
type Backend interface {
	Name() string
	Launch(k *Kernel, args []Arg, opts LaunchOptions) (*LaunchResult, error)
}

// Binding is the outcome of checking launch arguments against a kernel:
// what every backend needs before it can run the kernel.
type Binding struct {
	Kernel *Kernel
	// Tensors[i] is the i-th parameter's tensor (nil for scalars and lists).
	Tensors []*Tensor
	// Lists[i] is the i-th parameter's arrays when it is a list of arrays
	// (ir.ArrayList; nil otherwise).
	Lists [][]*Tensor
	// Scalars[i] is the i-th scalar parameter's value as int64 (ints and
	// bools) or float64 (floats, already rounded to the declared dtype).
	Scalars []any
	Dims    map[string]int64
	Grid    [3]int
}

// NumBlocks is the product of the grid's extents.
func (b *Binding) NumBlocks() int { return b.Grid[0] * b.Grid[1] * b.Grid[2] }

// Specializer is a generic kernel: one written as cuTile writes kernels,
// with unannotated parameters that take their dtype and rank from each
// launch's arguments. runtime/compile implements it (it builds from the
// source, which runtime does not see).
type Specializer interface {
	// Name is the kernel's name.
	Name() string
	// Specialize returns the kernel built for args' signature.
	Specialize(args []Arg) (*Kernel, error)
}

// NewGenericKernel wraps a generic kernel: its Func is nil, and Bind (every
// launch) specializes it on the arguments first.
func NewGenericKernel(s Specializer) *Kernel { return &Kernel{generic: s} }

// IsGeneric reports whether k takes parameter types from its launch
// arguments; its Func is nil and Specialize gives the launchable kernel.
func (k *Kernel) IsGeneric() bool { return k.generic != nil }

// Specialize returns the kernel built for args' signature (see
// runtime/compile: for each unannotated parameter, an array's dtype and
// rank or a scalar's dtype; builds are cached per signature). A kernel that
// is not generic is returned as is.
func (k *Kernel) Specialize(args []Arg) (*Kernel, error) {
	if k.generic == nil {
		return k, nil
	}
	return k.generic.Specialize(args)
}

// Bind checks args against the kernel's parameters, binds the symbolic
// dims, and evaluates the grid (or takes grid when it is non-zero).
func (k *Kernel) Bind(args []Arg, grid [3]int) (*Binding, error) {
	if k.generic != nil {
		s, err := k.Specialize(args)
		if err != nil {
			return nil, err
		}
		return s.Bind(args, grid)
	}
	f := k.Func
	if len(args) != len(f.Params) {
		return nil, fmt.Errorf("%s", argCountMessage(f, len(args)))
	}
	b := &Binding{Kernel: k, Tensors: make([]*Tensor, len(args)), Scalars: make([]any, len(args)),
		Lists: make([][]*Tensor, len(args)), Dims: map[string]int64{}}
	from := map[string]string{} // symbol -> the argument that bound it
	for i, p := range f.Params {
		switch pt := p.Type.(type) {
		case *ir.Array:
			t, ok := args[i].(*Tensor)
			if ok && t == nil {
				return nil, fmt.Errorf("argument %s: nil tensor", p.Name)
			}
			if !ok {
				return nil, fmt.Errorf("argument %s: want an array (*runtime.Tensor), got %T", p.Name, args[i])
			}
			if t.DType != pt.DType {
				return nil, fmt.Errorf("argument %s: dtype %s, kernel declares %s", p.Name, t.DType, pt.DType)
			}
			if len(t.Shape) != pt.Rank {
				return nil, fmt.Errorf("argument %s: rank %d (shape %v), kernel declares rank %d %s",
					p.Name, len(t.Shape), t.Shape, pt.Rank, dimsString(p.Dims))
			}
			if err := t.CheckBounds(); err != nil {
				return nil, fmt.Errorf("argument %s: %v", p.Name, err)
			}
			for ax, d := range t.Shape {
				if d > math.MaxInt32 {
					return nil, fmt.Errorf("argument %s: dimension %d is %d, more than %d: kernels index arrays with i32",
						p.Name, ax, d, math.MaxInt32)
				}
			}
			for ax, d := range p.Dims {
				if ax >= len(t.Shape) {
					break
				}
				got := int64(t.Shape[ax])
				if d.Sym == "" {
					if got != d.Size {
						return nil, fmt.Errorf("argument %s: dimension %d is %d but the kernel declares %d",
							p.Name, ax, got, d.Size)
					}
					continue
				}
				if v, ok := b.Dims[d.Sym]; ok {
					if v != got {
						return nil, fmt.Errorf("argument %s: dimension %s is %d but %s gives %d",
							p.Name, d.Sym, got, from[d.Sym], v)
					}
					continue
				}
				b.Dims[d.Sym] = got
				from[d.Sym] = p.Name
			}
			b.Tensors[i] = t
		case *ir.ArrayList:
			l, err := bindList(p.Name, pt, args[i])
			if err != nil {
				return nil, err
			}
			b.Lists[i] = l
		case *ir.Scalar:
			v, err := scalarArg(pt.DType, args[i])
			if err != nil {
				return nil, fmt.Errorf("argument %s: %v", p.Name, err)
			}
			b.Scalars[i] = v
		default:
			return nil, fmt.Errorf("parameter %s has unsupported type %s", p.Name, p.Type)
		}
	}
	if grid != [3]int{} {
		for i := range grid {
			if grid[i] == 0 {
				grid[i] = 1
			}
		}
		for i := range grid {
			if grid[i] < 0 {
				return nil, fmt.Errorf("grid %v has a negative extent", grid)
			}
			if grid[i] > MaxGrid[i] {
				return nil, fmt.Errorf("grid %v: axis %s has %d blocks, more than the %d a launch allows", grid, axisNames[i], grid[i], MaxGrid[i])
			}
		}
		b.Grid = grid
		return b, nil
	}
	if f.Grid[0] == nil && f.Grid[1] == nil && f.Grid[2] == nil {
		return nil, fmt.Errorf("%s declares no grid: pass LaunchOptions.Grid", f.Name)
	}
	for ax, e := range f.Grid {
		if e == nil {
			b.Grid[ax] = 1
			continue
		}
		v, err := e.Eval(b.Dims)
		if err != nil {
			return nil, fmt.Errorf("%v%s", err, symsString(e, b.Dims))
		}
		if v <= 0 {
			return nil, fmt.Errorf("grid is empty: axis %s is %s = %d%s; a launch needs at least one block on each axis",
				axisNames[ax], HostExprString(e), v, symsString(e, b.Dims))
		}
		if v > int64(MaxGrid[ax]) {
			return nil, fmt.Errorf("grid axis %s is %s = %d%s, more than the %d blocks a launch allows",
				axisNames[ax], HostExprString(e), v, symsString(e, b.Dims), MaxGrid[ax])
		}
		b.Grid[ax] = int(v)
	}
	return b, nil
}

// MaxGrid is the most blocks a launch has on each axis: CUDA's limits
// (2^31-1 on x, 65535 on y and z), which every backend enforces so that a
// launch the interpreter accepts is one a GPU accepts. Their product fits
// an int64, so NumBlocks cannot overflow.
var MaxGrid = [3]int{math.MaxInt32, 65535, 65535}

var axisNames = [3]string{"x", "y", "z"}

func argCountMessage(f *ir.Func, got int) string {
	names := make([]string, len(f.Params))
	arrays := true
	for i, p := range f.Params {
		names[i] = p.Name
		if _, ok := p.Type.(*ir.Array); !ok {
			arrays = false
		}
	}
	what := "arguments"
	if arrays {
		what = "arrays"
	}
	return fmt.Sprintf("%s takes %d %s (%s), got %d", f.Name, len(f.Params), what, strings.Join(names, ", "), got)
}

func dimsString(dims []ir.Dim) string {
	s := make([]string, len(dims))
	for i, d := range dims {
		s[i] = d.String()
	}
	return "(" + strings.Join(s, ", ") + ")"
}

// scalarArg converts a Go scalar to a scalar parameter's value: int64 for
// integer and bool dtypes, float64 (rounded to the dtype) for floats.
func scalarArg(d ir.DType, a Arg) (any, error) {
	var f float64
	var i int64
	isInt, isBool := false, false
	switch v := a.(type) {
	case float64:
		f = v
	case float32:
		f = float64(v)
	case int:
		i, isInt = int64(v), true
	case int64:
		i, isInt = v, true
	case int32:
		i, isInt = int64(v), true
	case bool:
		isBool = true
		if v {
			i = 1
		}
	default:
		return nil, fmt.Errorf("want a %s scalar, got %T", d, a)
	}
	switch {
	case d == ir.Bool:
		if !isBool {
			return nil, fmt.Errorf("want a bool, got %T", a)
		}
		return i, nil
	case d.IsInt():
		if !isInt {
			return nil, fmt.Errorf("want an integer for %s, got %T", d, a)
		}
		if d != ir.U64 && ir.WrapInt(d, i) != i {
			return nil, fmt.Errorf("%d overflows %s", i, d)
		}
		return i, nil
	case d.IsFloat():
		if isBool {
			return nil, fmt.Errorf("want a float for %s, got bool", d)
		}
		if isInt {
			f = float64(i)
		}
		return RoundTo(d, f), nil
	}
	return nil, fmt.Errorf("unsupported scalar dtype %s", d)
}

// HostExprString prints a grid expression in source form: `cdiv(M, 128) * 2`.
func HostExprString(e *ir.HostExpr) string {
	return hostExprString(e, 0)
}

func hostExprString(e *ir.HostExpr, prec int) string {
	if e == nil {
		return "1"
	}
	infix := func(op string, p int) string {
		if len(e.Args) != 2 {
			return "?"
		}
		s := hostExprString(e.Args[0], p) + " " + op + " " + hostExprString(e.Args[1], p+1)
		if p < prec {
			s = "(" + s + ")"
		}
		return s
	}
	call := func(name string) string {
		args := make([]string, len(e.Args))
		for i, a := range e.Args {
			args[i] = hostExprString(a, 0)
		}
		return name + "(" + strings.Join(args, ", ") + ")"
	}
	switch e.Op {
	case ir.HostConst:
		return fmt.Sprint(e.Val)
	case ir.HostSym:
		return e.Sym
	case ir.HostAdd:
		return infix("+", 1)
	case ir.HostSub:
		return infix("-", 1)
	case ir.HostMul:
		return infix("*", 2)
	case ir.HostFloorDiv:
		return infix("//", 2)
	case ir.HostMod:
		return infix("%", 2)
	case ir.HostCdiv:
		return call("cdiv")
	case ir.HostMin:
		return call("min")
	case ir.HostMax:
		return call("max")
	}
	return "?"
}

// symsString lists the symbols of e with their values, " with M=0": those
// that are <= 0 (the likely culprits), or all of them if none is.
func symsString(e *ir.HostExpr, dims map[string]int64) string {
	var syms, nonPos []string
	seen := map[string]bool{}
	var walk func(e *ir.HostExpr)
	walk = func(e *ir.HostExpr) {
		if e == nil {
			return
		}
		if e.Op == ir.HostSym && !seen[e.Sym] {
			seen[e.Sym] = true
			s := fmt.Sprintf("%s=%d", e.Sym, dims[e.Sym])
			syms = append(syms, s)
			if dims[e.Sym] <= 0 {
				nonPos = append(nonPos, s)
			}
		}
		for _, a := range e.Args {
			walk(a)
		}
	}
	walk(e)
	if len(nonPos) > 0 {
		syms = nonPos
	}
	if len(syms) == 0 {
		return ""
	}
	return " with " + strings.Join(syms, ", ")
}
