package lang

import (
	"fmt"
	"strings"
)

// This file defines the abstract syntax tree that the parser produces and the
// IR builder consumes. It is the contract between the two: the participle
// grammar structs (grammar.go) are converted into these nodes, so the grammar
// can change shape without touching the builder.

// Pos is a position in a source file. Line and Col are 1-based; Col counts
// bytes. Offset is the 0-based byte offset.
type Pos struct {
	File   string
	Line   int
	Col    int
	Offset int
}

// IsValid reports whether the position was set.
func (p Pos) IsValid() bool { return p.Line > 0 }

// Node is implemented by every AST node.
type Node interface {
	Position() Pos
}

// File is one parsed source file.
type File struct {
	Src     *Source
	Imports []*Import
	// Globals are the module-level assignments (`ConstInt = ct.Constant[int]`,
	// `PAD = ct.PaddingMode.ZERO`, `BLOCK = 128`), in source order.
	Globals []*AssignStmt
	Funcs   []*FuncDef
	// Classes are the module's class definitions, host code's (kernels
	// have none: each class's name is also in Deferred, so that a kernel
	// using one is told so where it does).
	Classes []*ClassDef
	// Broken names what the top-level items with errors would have defined
	// (a def's name, an assignment's targets, an import's names), each at
	// its item's first token. Parse drops those items and returns the rest,
	// so that a later stage can still check the parts that are fine;
	// a use of a broken name must say nothing more (its error is out).
	Broken map[string]Pos
	// BrokenUnknown is set when an item with errors defines names that
	// cannot be told (a mangled line at top level): a later stage should
	// then not report undefined module-level names at all.
	BrokenUnknown bool
	// Main is the script's `if __name__ == "__main__":` block (its driver:
	// inputs, the launch, a check against a reference), read as the body of
	// a def named __main__ so that host code can run it (tilec run FILE).
	// Compiling kernels ignores it, and its errors are kept apart in
	// MainErr: a driver that uses what tilec does not have must not stop
	// the kernels from compiling. Nil when the file has no such block or
	// the block has errors.
	Main    *FuncDef
	MainErr error
	// Deferred holds the errors of top-level items that are host code, not
	// kernels: a def without @ct.kernel or a class, by the name it
	// defines. A cuTile program's host code may use Python that tilec does
	// not have (a class feature, yield, try); that must not stop its
	// kernels from compiling. An error is reported where the item is used:
	// a kernel calling the def (ir), host code calling it or running it
	// (--entry). A class that parsed is here too, as a *HostOnlyError
	// (Parse and ParseProgram alike): host code runs it (Classes), and a
	// kernel that uses its name is told that only host code may.
	Deferred map[string]error
}

// Import is `import cuda.tile as ct` or `import tile as ct`.
type Import struct {
	Pos   Pos
	Path  string // dotted, e.g. "cuda.tile"; a relative import's starts with its dots (".utils.f")
	Alias string // "" when there is no `as`
	// From is set for `from m import x` (Path "m.x"), which binds x, where
	// `import m.x` binds m.
	From bool
}

// BoundName is the name the import binds: its alias, else x for `from m
// import x`, else the first component of the path (`import os.path`
// binds os).
func (imp *Import) BoundName() string {
	if imp.Alias != "" {
		return imp.Alias
	}
	if i := strings.LastIndex(imp.Path, "."); imp.From && i >= 0 {
		return imp.Path[i+1:]
	}
	root, _, _ := strings.Cut(imp.Path, ".")
	return root
}

// FuncDef is a `def`, with its decorators. A kernel is a FuncDef with a
// `@ct.kernel` or `@ct.kernel(...)` decorator; every other def is a helper.
type FuncDef struct {
	Pos        Pos // of the `def` keyword
	NamePos    Pos
	Name       string
	Decorators []Expr // each an Attr/Name or a Call
	Params     []*Param
	Body       []Stmt
}

// ClassDef is a top-level `class Name(Base):` of host code: its methods
// (defs, each with its @staticmethod or @classmethod decorator, if any)
// and its class attributes (assignments in the body), each in source
// order. Bases has at most one entry (tilec has no multiple
// inheritance); the parser refuses what else a class body may hold.
type ClassDef struct {
	Pos     Pos // of the `class` keyword
	NamePos Pos
	Name    string
	Bases   []Expr
	Methods []*FuncDef
	Attrs   []*AssignStmt
}

// HostOnlyError is File.Deferred's entry for a class that parsed: not a
// mistake in the class, but in a kernel that uses it (kernels have no
// classes). Its text follows the name it is reported with.
type HostOnlyError struct {
	Name string
	Pos  Pos // of the class's name
}

func (e *HostOnlyError) Error() string {
	return fmt.Sprintf("a class (line %d), which only host code may use: kernels have no classes", e.Pos.Line)
}

// Param is one parameter: `A: ct.Array[T, (M, K)]`, `tm: ct.Constant[int] = 128`, `x`.
type Param struct {
	Pos     Pos
	Name    string
	Annot   Expr // nil when absent
	Default Expr // nil when absent
}

// Stmt is a statement.
type Stmt interface {
	Node
	stmt()
}

// AssignStmt is `a = e` or `a, b = e` (Targets has several entries for
// unpacking; each target is a *Name, or a *Tuple of names for nesting), or
// the annotated `a: T = e` (Annot is T, and Targets has one entry). An
// annotation without a value (`a: T`) binds nothing and is a *PassStmt.
type AssignStmt struct {
	Pos     Pos
	Targets []Expr
	Value   Expr
	Annot   Expr // nil when not annotated
}

// AugAssignStmt is `a += e` (Op is the binary operator without '=').
type AugAssignStmt struct {
	Pos    Pos
	Target Expr
	Op     string // "+", "-", "*", "/", "//", "%", "**", "@"
	Value  Expr
}

// ExprStmt is an expression evaluated for its effect, e.g. `ct.store(...)`.
type ExprStmt struct {
	Pos Pos
	X   Expr
}

// ForStmt is `for i in range(...):` or `for i, x in ct.static_iter(...):`
// (Iter is the call expression; the builder checks what it is). Target is a
// *Name or a *Tuple of names (the builder allows a tuple only in a
// static_iter loop).
type ForStmt struct {
	Pos    Pos
	Target Expr
	Iter   Expr
	Body   []Stmt
}

// IfStmt is `if cond: ... elif ...: ... else: ...`; an elif is an IfStmt
// as the only statement of Else.
type IfStmt struct {
	Pos  Pos
	Cond Expr
	Then []Stmt
	Else []Stmt // nil when absent
}

// ReturnStmt is `return`, `return e` or `return a, b` (Value is a *Tuple).
type ReturnStmt struct {
	Pos   Pos
	Value Expr // nil for a bare return
}

// RaiseStmt is `raise` or `raise Exc(...)`: in host code an error of the
// program; in a kernel an error at compile time where the builder reaches
// it (only under compile-time conditions).
type RaiseStmt struct {
	Pos Pos
	Exc Expr // nil for a bare raise
}

// PassStmt is `pass`.
type PassStmt struct{ Pos Pos }

// WhileStmt is `while cond: ...`.
type WhileStmt struct {
	Pos  Pos
	Cond Expr
	Body []Stmt
}

// WithStmt is `with ctx [as name], ...: body`. Kernels have none; host
// code runs the body inside the contexts it knows (torch.no_grad(),
// sdpa_kernel(...), ct.compiler_timeout(...): none changes what tilec
// computes).
type WithStmt struct {
	Pos   Pos
	Items []WithItem
	Body  []Stmt
}

// WithItem is one `ctx [as name]` of a with statement.
type WithItem struct {
	X     Expr
	As    string // "" without `as`
	AsPos Pos
}

// BreakStmt is `break`; ContinueStmt is `continue`.
type BreakStmt struct{ Pos Pos }
type ContinueStmt struct{ Pos Pos }

// AssertStmt is `assert cond` or `assert cond, msg` (cuTile's assert_).
type AssertStmt struct {
	Pos  Pos
	Cond Expr
	Msg  Expr // nil when absent
}

func (s *WhileStmt) Position() Pos    { return s.Pos }
func (s *WithStmt) Position() Pos     { return s.Pos }
func (*WithStmt) stmt()               {}
func (s *BreakStmt) Position() Pos    { return s.Pos }
func (s *ContinueStmt) Position() Pos { return s.Pos }
func (s *AssertStmt) Position() Pos   { return s.Pos }
func (s *RaiseStmt) Position() Pos    { return s.Pos }
func (*WhileStmt) stmt()              {}
func (*BreakStmt) stmt()              {}
func (*ContinueStmt) stmt()           {}
func (*AssertStmt) stmt()             {}
func (*RaiseStmt) stmt()              {}

func (s *AssignStmt) Position() Pos    { return s.Pos }
func (s *AugAssignStmt) Position() Pos { return s.Pos }
func (s *ExprStmt) Position() Pos      { return s.Pos }
func (s *ForStmt) Position() Pos       { return s.Pos }
func (s *IfStmt) Position() Pos        { return s.Pos }
func (s *ReturnStmt) Position() Pos    { return s.Pos }
func (s *PassStmt) Position() Pos      { return s.Pos }
func (*AssignStmt) stmt()              {}
func (*AugAssignStmt) stmt()           {}
func (*ExprStmt) stmt()                {}
func (*ForStmt) stmt()                 {}
func (*IfStmt) stmt()                  {}
func (*ReturnStmt) stmt()              {}
func (*PassStmt) stmt()                {}

// Expr is an expression.
type Expr interface {
	Node
	expr()
}

// Name is an identifier.
type Name struct {
	Pos  Pos
	Name string
}

// Attr is `X.Name`, e.g. `ct.float16`, `A.dtype`, `ct.PaddingMode.ZERO`.
type Attr struct {
	Pos     Pos // of X's start
	X       Expr
	Name    string
	NamePos Pos
}

// Subscript is `X[Index]`; `X[a, b]` has a *Tuple index.
type Subscript struct {
	Pos   Pos
	X     Expr
	Index Expr
}

// Call is `Fun(Args..., Kwargs...)`.
type Call struct {
	Pos    Pos
	Fun    Expr
	Args   []Expr
	Kwargs []*Keyword
}

// Starred is `*X` among a call's positional arguments: X's items are
// passed one by one (host code; kernels refuse it).
type Starred struct {
	Pos Pos // of the '*'
	X   Expr
}

func (e *Starred) Position() Pos { return e.Pos }
func (*Starred) expr()           {}

// Keyword is `name=value` in a call.
type Keyword struct {
	Pos   Pos
	Name  string
	Value Expr
}

// Tuple is `(a, b)` or a bare `a, b` where allowed. A parenthesised single
// expression is not a tuple; `(a,)` is.
type Tuple struct {
	Pos   Pos
	Elems []Expr
}

// Slice is the full slice `:` in a subscript (`t[:, None]`); slices with
// bounds are not part of the language.
type Slice struct {
	Pos          Pos
	Lo, Hi, Step Expr // nil when absent; all nil for the full slice `:`
}

// Full reports whether the slice is `:` (or `::`).
func (s *Slice) Full() bool { return s.Lo == nil && s.Hi == nil && s.Step == nil }

// ListComp is `[elem for target in iter if cond]` (host code; Cond nil
// when absent), or with Gen the generator expression `(elem for ...)`,
// which host code evaluates as the list (all of its items, in order).
type ListComp struct {
	Pos    Pos
	Gen    bool
	Elem   Expr
	Target Expr
	Iter   Expr
	Cond   Expr
}

// Dict is the dict display `{k: v, ...}` (`{}` is an empty dict): host
// code's dicts; kernels have none (the builder refuses it where used).
type Dict struct {
	Pos    Pos // of the '{'
	Keys   []Expr
	Values []Expr
}

// Set is the set display `{a, b, ...}` (host code; never empty: `{}` is
// a dict).
type Set struct {
	Pos   Pos // of the '{'
	Elems []Expr
}

// DictComp is `{key: value for target in iter if cond}` (host code; Cond
// nil when absent).
type DictComp struct {
	Pos        Pos
	Key, Value Expr
	Target     Expr
	Iter       Expr
	Cond       Expr
}

// SetComp is `{elem for target in iter if cond}` (host code).
type SetComp struct {
	Pos    Pos
	Elem   Expr
	Target Expr
	Iter   Expr
	Cond   Expr
}

// Lambda is `lambda params: body`, an anonymous function of host code
// (a key for sorted, a grid or argument function for an autotuner). Its
// params have no annotations; they may have defaults.
type Lambda struct {
	Pos    Pos // of the 'lambda' keyword
	Params []*Param
	Body   Expr
}

// IntLit is an integer literal (decimal, hex 0x, binary 0b, octal 0o, `_`
// separators allowed).
type IntLit struct {
	Pos   Pos
	Value int64
	Text  string
}

// FloatLit is a floating-point literal, including `inf`-free forms like 1e-5, 1., .5.
type FloatLit struct {
	Pos   Pos
	Value float64
	Text  string
}

// ImagLit is an imaginary literal, `1j` or `2.5J`: Value is its
// imaginary part. Host code's complex numbers (NVIDIA's FFT sample makes
// its twiddle factors with `1j`); kernels have none.
type ImagLit struct {
	Pos   Pos
	Value float64
	Text  string
}

func (e *ImagLit) Position() Pos { return e.Pos }
func (*ImagLit) expr()           {}

// BoolLit is True or False.
type BoolLit struct {
	Pos   Pos
	Value bool
}

// NoneLit is None.
type NoneLit struct{ Pos Pos }

// StringLit is a string literal (single or double quotes), kept for
// messages in static_assert.
type StringLit struct {
	Pos   Pos
	Value string
}

// BinaryExpr is `X Op Y`. Op is one of + - * / // % ** @ & | ^ << >>
// == != < <= > >= is "is not" in "not in" and or.
type BinaryExpr struct {
	Pos   Pos // of X's start
	OpPos Pos
	Op    string
	X, Y  Expr
}

// UnaryExpr is `Op X`; Op is "-", "+", "~" or "not".
type UnaryExpr struct {
	Pos Pos
	Op  string
	X   Expr
}

// CondExpr is `X if Cond else Y`.
type CondExpr struct {
	Pos  Pos
	Cond Expr
	X, Y Expr
}

func (e *Name) Position() Pos       { return e.Pos }
func (e *Attr) Position() Pos       { return e.Pos }
func (e *Subscript) Position() Pos  { return e.Pos }
func (e *Call) Position() Pos       { return e.Pos }
func (e *Keyword) Position() Pos    { return e.Pos }
func (e *Tuple) Position() Pos      { return e.Pos }
func (e *Slice) Position() Pos      { return e.Pos }
func (e *ListComp) Position() Pos   { return e.Pos }
func (*ListComp) expr()             {}
func (e *Dict) Position() Pos       { return e.Pos }
func (e *Set) Position() Pos        { return e.Pos }
func (e *DictComp) Position() Pos   { return e.Pos }
func (e *SetComp) Position() Pos    { return e.Pos }
func (e *Lambda) Position() Pos     { return e.Pos }
func (*Dict) expr()                 {}
func (*Set) expr()                  {}
func (*DictComp) expr()             {}
func (*SetComp) expr()              {}
func (*Lambda) expr()               {}
func (e *IntLit) Position() Pos     { return e.Pos }
func (e *FloatLit) Position() Pos   { return e.Pos }
func (e *BoolLit) Position() Pos    { return e.Pos }
func (e *NoneLit) Position() Pos    { return e.Pos }
func (e *StringLit) Position() Pos  { return e.Pos }
func (e *BinaryExpr) Position() Pos { return e.Pos }
func (e *UnaryExpr) Position() Pos  { return e.Pos }
func (e *CondExpr) Position() Pos   { return e.Pos }
func (*Name) expr()                 {}
func (*Attr) expr()                 {}
func (*Subscript) expr()            {}
func (*Call) expr()                 {}
func (*Tuple) expr()                {}
func (*Slice) expr()                {}
func (*IntLit) expr()               {}
func (*FloatLit) expr()             {}
func (*BoolLit) expr()              {}
func (*NoneLit) expr()              {}
func (*StringLit) expr()            {}
func (*BinaryExpr) expr()           {}
func (*UnaryExpr) expr()            {}
func (*CondExpr) expr()             {}
