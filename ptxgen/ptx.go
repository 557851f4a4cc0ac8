package ptxgen

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// RegClass is a PTX register type; each class has its own name prefix.
type RegClass uint8

const (
	Pred RegClass = iota // .pred %p
	B16                  // .b16 %h (f16, bf16 elements)
	B32                  // .b32 %r (i32, packed halves, shared addresses)
	B64                  // .b64 %rd (i64, global addresses)
	F32                  // .f32 %f
	F64                  // .f64 %fd
	numClasses
)

var classInfo = [numClasses]struct{ decl, prefix string }{
	Pred: {".pred", "%p"},
	B16:  {".b16", "%h"},
	B32:  {".b32", "%r"},
	B64:  {".b64", "%rd"},
	F32:  {".f32", "%f"},
	F64:  {".f64", "%fd"},
}

// Operand is a PTX instruction operand.
type Operand interface{ ptx() string }

// Reg is a virtual register; ptxas allocates the real ones.
type Reg struct {
	Class RegClass
	N     int
}

func (r Reg) ptx() string    { return classInfo[r.Class].prefix + strconv.Itoa(r.N) }
func (r Reg) String() string { return r.ptx() }

// Imm is an integer immediate.
type Imm int64

func (i Imm) ptx() string { return strconv.FormatInt(int64(i), 10) }

// F32Imm is a single-precision immediate, printed in PTX's exact hex form.
type F32Imm float32

func (f F32Imm) ptx() string { return fmt.Sprintf("0f%08X", math.Float32bits(float32(f))) }

// F64Imm is a double-precision immediate.
type F64Imm float64

func (f F64Imm) ptx() string { return fmt.Sprintf("0d%016X", math.Float64bits(float64(f))) }

// Sym is a named symbol or special register (%tid.x, a .param name).
type Sym string

func (s Sym) ptx() string { return string(s) }

// Addr is a memory operand [Base+Off].
type Addr struct {
	Base Operand
	Off  int64
}

func (a Addr) ptx() string {
	if a.Off == 0 {
		return "[" + a.Base.ptx() + "]"
	}
	if a.Off < 0 {
		return "[" + a.Base.ptx() + strconv.FormatInt(a.Off, 10) + "]"
	}
	return "[" + a.Base.ptx() + "+" + strconv.FormatInt(a.Off, 10) + "]"
}

// Vec is a brace-enclosed operand list {a, b, c, d}.
type Vec []Operand

func (v Vec) ptx() string {
	s := make([]string, len(v))
	for i, o := range v {
		s[i] = o.ptx()
	}
	return "{" + strings.Join(s, ", ") + "}"
}

// Instr is one PTX instruction or a label.
type Instr struct {
	// Op is the full opcode with its modifiers: "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32".
	Op   string
	Args []Operand
	// Guard, when set, predicates the instruction: @%p (or @!%p with Neg).
	Guard *Reg
	Neg   bool
	// Label, when set (and Op empty), makes this a label line "Label:".
	Label string
}

// String prints the instruction as one line of PTX (without indentation).
func (in Instr) String() string {
	if in.Label != "" && in.Op == "" {
		return in.Label + ":"
	}
	var b strings.Builder
	if in.Guard != nil {
		b.WriteByte('@')
		if in.Neg {
			b.WriteByte('!')
		}
		b.WriteString(in.Guard.ptx())
		b.WriteByte(' ')
	}
	b.WriteString(in.Op)
	for i, a := range in.Args {
		if i == 0 {
			b.WriteByte(' ')
		} else {
			b.WriteString(", ")
		}
		b.WriteString(a.ptx())
	}
	b.WriteByte(';')
	return b.String()
}

// Label is a branch target operand and label line.
type Label string

func (l Label) ptx() string { return string(l) }
