package ir

import (
	"fmt"

	"github.com/tilec/tilec/ir/scalar"
)

// Value is an SSA value: the result of an instruction or a block parameter.
// IDs are dense within a Func and printed as %ID.
type Value struct {
	ID   int
	Type Type
	// Def is the defining instruction; nil for block parameters.
	Def *Instr
	// Block owns the value when it is a block parameter.
	Block *Block
	// Index is the result index within Def, or the parameter index in Block.
	Index int
}

func (v *Value) String() string { return fmt.Sprintf("%%%d", v.ID) }

// Instr is one operation with its operands, results, attributes and regions.
type Instr struct {
	Op      Op
	Args    []*Value
	Results []*Value
	Attrs   Attrs
	Regions []*Block
	// Block is the block that contains the instruction.
	Block *Block
	// Pos is the source position the instruction came from (zero when parsed from IR text).
	Pos Pos
}

// Result returns the single result of an instruction that has one.
func (in *Instr) Result() *Value { return in.Results[0] }

// Block is a straight-line list of instructions with parameters. A kernel
// body's parameters are the kernel parameters; a for body's are the
// induction variable and the carried values.
type Block struct {
	Params []*Value
	Instrs []*Instr
	// Parent is the instruction whose region this is; nil for a kernel body.
	Parent *Instr
}

// Func is one kernel after inlining: parameters, baked constants, the launch
// grid as a host expression, and the body.
type Func struct {
	Name   string
	Pos    Pos
	Params []*Param
	// Consts are the constant parameters with the values baked in, in declaration order.
	Consts []Const
	// Hints are the kernel's performance hints from @ct.kernel(...):
	// num_ctas, occupancy, opt_level, num_worker_warps. A ct.ByTarget value
	// gives one entry per target, named "hint:target" ("occupancy:sm_90",
	// "occupancy:default"). The backends record them; none is an error.
	// One more, stages (the ring depth of pipelined loops), is tilec's:
	// the tuner sets it, the source cannot (lower.Stages).
	Hints []Const
	// Grid is the launch grid, three host expressions over the symbolic dims.
	Grid [3]*HostExpr
	// Facts are what lowering decided about the kernel as a whole
	// (kernel.go); zero in target-free IR.
	Facts KernelFacts
	Body  *Block

	nextID int
}

// Param is a runtime kernel parameter: an array with symbolic dims, or a scalar.
type Param struct {
	Name string
	Type Type // *Array or *Scalar
	// Dims has one entry per array axis: a symbol (Sym != "") or a fixed size.
	Dims []Dim
	// Value is the corresponding parameter of Body.
	Value *Value
}

// Dim is one declared array extent: symbolic (`M`) or literal (`64`).
type Dim struct {
	Sym  string
	Size int64
}

func (d Dim) String() string {
	if d.Sym != "" {
		return d.Sym
	}
	return fmt.Sprint(d.Size)
}

// Const is a compile-time constant parameter and the value baked in:
// int64, float64, bool or DType.
type Const struct {
	Name  string
	Value any
}

// Module is every kernel of one source file.
type Module struct {
	Funcs []*Func
}

// Func returns the kernel with the given name, or nil.
func (m *Module) Func(name string) *Func {
	for _, f := range m.Funcs {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// NewFunc makes an empty kernel with a body block.
func NewFunc(name string) *Func {
	return &Func{Name: name, Body: &Block{}}
}

// ParamIndex is the index in f.Params of the parameter whose value is v,
// or -1 when v is not a kernel parameter.
func (f *Func) ParamIndex(v *Value) int {
	for i, p := range f.Params {
		if p.Value == v {
			return i
		}
	}
	return -1
}

// NewValue allocates a value with the next dense ID.
func (f *Func) NewValue(t Type) *Value {
	v := &Value{ID: f.nextID, Type: t}
	f.nextID++
	return v
}

// NumValues is one more than the largest value ID, for tables indexed by ID.
func (f *Func) NumValues() int { return f.nextID }

// AddParam appends a parameter to the kernel and to its body block.
func (f *Func) AddParam(name string, t Type, dims []Dim) *Param {
	v := f.NewValue(t)
	v.Block = f.Body
	v.Index = len(f.Body.Params)
	f.Body.Params = append(f.Body.Params, v)
	p := &Param{Name: name, Type: t, Dims: dims, Value: v}
	f.Params = append(f.Params, p)
	return p
}

// AddBlockParam appends a parameter to b.
func (f *Func) AddBlockParam(b *Block, t Type) *Value {
	v := f.NewValue(t)
	v.Block = b
	v.Index = len(b.Params)
	b.Params = append(b.Params, v)
	return v
}

// NewInstr makes an instruction with fresh result values of the given types;
// it is not yet in a block.
func (f *Func) NewInstr(op Op, args []*Value, results ...Type) *Instr {
	in := &Instr{Op: op, Args: args}
	for i, t := range results {
		v := f.NewValue(t)
		v.Def = in
		v.Index = i
		in.Results = append(in.Results, v)
	}
	return in
}

// NewRegion adds an empty region to in and returns it.
func (in *Instr) NewRegion() *Block {
	b := &Block{Parent: in}
	in.Regions = append(in.Regions, b)
	return b
}

// Terminator is the instruction that ends b (a kernel body's return, a
// region's yield), or nil when b is empty.
func (b *Block) Terminator() *Instr {
	if len(b.Instrs) == 0 {
		return nil
	}
	return b.Instrs[len(b.Instrs)-1]
}

// Append adds in at the end of b.
func (b *Block) Append(in *Instr) *Instr {
	in.Block = b
	b.Instrs = append(b.Instrs, in)
	return in
}

// Walk calls fn for every instruction in b and its regions, in program order
// (an instruction before the contents of its regions).
func (b *Block) Walk(fn func(*Instr)) {
	for _, in := range b.Instrs {
		fn(in)
		for _, r := range in.Regions {
			r.Walk(fn)
		}
	}
}

// Renumber gives values dense IDs in program order (parameters first), so
// that printing is stable after passes remove or add values.
func (f *Func) Renumber() {
	f.nextID = 0
	var number func(b *Block)
	number = func(b *Block) {
		for _, p := range b.Params {
			p.ID = f.nextID
			f.nextID++
		}
		for _, in := range b.Instrs {
			for _, r := range in.Regions {
				number(r)
			}
			for _, v := range in.Results {
				v.ID = f.nextID
				f.nextID++
			}
		}
	}
	number(f.Body)
}

// HostExpr is a launch-time integer expression over symbolic dims and
// constants: the kernel's grid, evaluated on the host before a launch.
type HostExpr struct {
	Op   HostOp
	Val  int64  // HostConst
	Sym  string // HostSym
	Args []*HostExpr
}

// HostOp is the operator of a HostExpr node.
type HostOp uint8

const (
	HostConst HostOp = iota
	HostSym
	HostAdd
	HostSub
	HostMul
	HostFloorDiv
	HostMod
	HostCdiv
	HostMin
	HostMax
)

// Eval computes the expression with the dims bound at launch.
func (e *HostExpr) Eval(dims map[string]int64) (int64, error) {
	switch e.Op {
	case HostConst:
		return e.Val, nil
	case HostSym:
		v, ok := dims[e.Sym]
		if !ok {
			return 0, fmt.Errorf("grid: dimension %s is not bound", e.Sym)
		}
		return v, nil
	}
	if len(e.Args) != 2 {
		return 0, fmt.Errorf("grid: malformed expression")
	}
	x, err := e.Args[0].Eval(dims)
	if err != nil {
		return 0, err
	}
	y, err := e.Args[1].Eval(dims)
	if err != nil {
		return 0, err
	}
	// Checked: a grid that wrapped would launch the wrong number of blocks.
	var r int64
	ok := true
	switch e.Op {
	case HostAdd:
		r, ok = scalar.AddChecked(x, y)
	case HostSub:
		r, ok = scalar.SubChecked(x, y)
	case HostMul:
		r, ok = scalar.MulChecked(x, y)
	case HostMin:
		r = min(x, y)
	case HostMax:
		r = max(x, y)
	case HostFloorDiv, HostMod, HostCdiv:
		if y == 0 {
			return 0, fmt.Errorf("grid: division by zero in %s", e)
		}
		switch e.Op {
		case HostFloorDiv:
			r, ok = scalar.FloorDivChecked(x, y)
		case HostMod:
			r = scalar.Mod(x, y)
		case HostCdiv:
			// ceil(x / y) = -((-x) // y)
			var nx int64
			if nx, ok = scalar.NegChecked(x); ok {
				if r, ok = scalar.FloorDivChecked(nx, y); ok {
					r, ok = scalar.NegChecked(r)
				}
			}
		}
	default:
		return 0, fmt.Errorf("grid: unknown operator %d", e.Op)
	}
	if !ok {
		return 0, fmt.Errorf("grid: %s overflows 64 bits with operands %d and %d", e, x, y)
	}
	return r, nil
}
