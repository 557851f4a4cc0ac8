package ir

// This file prints the IR's text form, which Parse reads back. The form of
// each instruction is the one shown in ops.go's comments:
//
//	kernel @matmul(%0 A: array<?x?xf16> [M, K], %1 B: array<?x?xf16> [K, N], %2 C: array<?x?xf16> [M, N])
//	    consts(T=f16, tm=128, tn=256, tk=64)
//	    grid(cdiv(M, 128) * cdiv(N, 256), 1, 1) {
//	  %3 = bid {axis=0} : i32
//	  %9 = for %6, %7, %8, %5 : tile<128x256xf32> {
//	    ^(%10: i32, %11: tile<128x256xf32>)
//	    %12 = load %0[%3, %10] {pad=zero} : tile<128x64xf16>
//	    ...
//	    yield %14
//	  }
//	  store %2[%3, %4], %15
//	  return
//	}
//
// Values keep their IDs (gaps included); a kernel parameter prints its value
// and its name; attributes print sorted by key; nested regions indent by two
// spaces. Register layouts (lowered IR) print once each, before the kernel,
// as aliases that the instructions name:
//
//	#mma0 = mma<warps=[2, 4], reg=[[0, 1], ...], lane=[...], warp=[...]>
//	kernel @matmul(...) {
//	  %30 = splat %29 {layout=#mma0} : tile<128x256xf32>
//
// Instr.String, which has no kernel to print aliases for, prints layouts in
// full. Printing never mutates the Func, and it prints malformed IR too
// (unknown pieces as `?`), so that the verifier can show what it rejects.

import (
	"math"
	"sort"
	"strconv"
	"strings"
)

// Print returns the text form of one kernel, ending in a newline.
func Print(f *Func) string {
	var p textPrinter
	p.fn(f)
	return p.b.String()
}

// PrintModule returns the text form of every kernel of m, separated by blank lines.
func PrintModule(m *Module) string {
	var p textPrinter
	for i, f := range m.Funcs {
		if i > 0 {
			p.b.WriteByte('\n')
		}
		p.fn(f)
	}
	return p.b.String()
}

// String returns the instruction's first line: results, op, operands,
// attributes and result types, with any regions elided as `{...}`.
func (in *Instr) String() string {
	var p textPrinter
	p.instrHead(in)
	for i := range in.Regions {
		if i > 0 {
			p.b.WriteString(" " + regionSep(in.Op))
		}
		p.b.WriteString(" {...}")
	}
	return p.b.String()
}

// regionSep is the word between an instruction's regions: `do` before a
// while's body, `else` otherwise.
func regionSep(op Op) string {
	if op == OpWhile {
		return "do"
	}
	return "else"
}

type textPrinter struct {
	b strings.Builder
	// aliases names the register layouts of the kernel being printed, by
	// their printed form; nil when printing one instruction.
	aliases map[string]string
}

func (p *textPrinter) s(s string) { p.b.WriteString(s) }

func (p *textPrinter) fn(f *Func) {
	if f == nil {
		p.s("kernel ?\n")
		return
	}
	p.layoutAliases(f)
	p.s("kernel @")
	p.s(textName(f.Name))
	p.s("(")
	for i, prm := range f.Params {
		if i > 0 {
			p.s(", ")
		}
		if prm == nil {
			p.s("?")
			continue
		}
		p.value(prm.Value)
		if prm.Name != "" {
			p.s(" ")
			p.s(textName(prm.Name))
		}
		p.s(": ")
		p.typ(prm.Type)
		if len(prm.Dims) > 0 {
			p.s(" [")
			for j, d := range prm.Dims {
				if j > 0 {
					p.s(", ")
				}
				if d.Sym != "" {
					p.s(textName(d.Sym))
				} else {
					p.s(strconv.FormatInt(d.Size, 10))
				}
			}
			p.s("]")
		}
	}
	p.s(")")
	if len(f.Consts) > 0 {
		p.s("\n    consts(")
		for i, c := range f.Consts {
			if i > 0 {
				p.s(", ")
			}
			p.s(textName(c.Name))
			p.s("=")
			p.s(formatConstValue(c.Value))
		}
		p.s(")")
	}
	if len(f.Hints) > 0 {
		p.s("\n    hints(")
		for i, c := range f.Hints {
			if i > 0 {
				p.s(", ")
			}
			p.s(textName(c.Name))
			p.s("=")
			p.s(formatConstValue(c.Value))
		}
		p.s(")")
	}
	if f.Grid != [3]*HostExpr{} {
		p.s("\n    grid(")
		for i, e := range f.Grid {
			if i > 0 {
				p.s(", ")
			}
			if e == nil {
				p.s("_")
			} else {
				p.host(e, 0)
			}
		}
		p.s(")")
	}
	if facts := f.Facts.attrs(); len(facts) > 0 {
		p.s("\n    lowered(")
		for i, a := range facts {
			if i > 0 {
				p.s(", ")
			}
			p.s(textName(a.Key))
			p.s("=")
			p.s(formatAttrValue(a.Val))
		}
		p.s(")")
	}
	p.s(" {\n")
	if f.Body != nil {
		p.instrs(f.Body, 1)
	}
	p.s("}\n")
}

// layoutAliases prints a definition `#mma0 = mma<...>` for each distinct
// register layout of f, in the order of first use, and records the names
// for the instructions to refer to. The names are the kind and a count per
// kind, so a reader can tell an mma layout from a blocked one at the use.
// Layouts without bases (smem) are short enough to print in place.
func (p *textPrinter) layoutAliases(f *Func) {
	p.aliases = map[string]string{}
	count := map[string]int{}
	var walk func(b *Block)
	walk = func(b *Block) {
		if b == nil {
			return
		}
		for _, in := range b.Instrs {
			if in == nil {
				continue
			}
			for _, a := range in.Attrs {
				l, ok := a.Val.(*Layout)
				if !ok || l == nil || l.bare() {
					continue
				}
				text := l.String()
				if p.aliases[text] != "" {
					continue
				}
				kind := l.Kind
				if !isTextIdent(kind) {
					kind = "layout"
				}
				name := kind + strconv.Itoa(count[kind])
				count[kind]++
				p.aliases[text] = name
				p.s("#")
				p.s(name)
				p.s(" = ")
				p.s(text)
				p.s("\n")
			}
			for _, r := range in.Regions {
				walk(r)
			}
		}
	}
	walk(f.Body)
}

func (p *textPrinter) indent(depth int) {
	for range depth {
		p.s("  ")
	}
}

// instrs prints b's instructions (not its parameters) at the given depth.
func (p *textPrinter) instrs(b *Block, depth int) {
	for _, in := range b.Instrs {
		p.indent(depth)
		p.instr(in, depth)
		p.s("\n")
	}
}

func (p *textPrinter) instr(in *Instr, depth int) {
	p.instrHead(in)
	if in == nil {
		return
	}
	for i, r := range in.Regions {
		if i > 0 {
			p.s(" " + regionSep(in.Op))
		}
		p.s(" {\n")
		if r != nil {
			if len(r.Params) > 0 {
				p.indent(depth + 1)
				p.s("^(")
				for j, v := range r.Params {
					if j > 0 {
						p.s(", ")
					}
					p.value(v)
					p.s(": ")
					if v != nil {
						p.typ(v.Type)
					}
				}
				p.s(")\n")
			}
			p.instrs(r, depth+1)
		}
		p.indent(depth)
		p.s("}")
	}
}

func (p *textPrinter) instrHead(in *Instr) {
	if in == nil {
		p.s("?")
		return
	}
	p.values(in.Results)
	if len(in.Results) > 0 {
		p.s(" = ")
	}
	p.s(in.Op.String())
	switch info := in.Op.Info(); {
	case info.ArrayIndexed && len(in.Args) >= 1+info.TrailingArgs:
		// An array access and its other operands: store %A[%i, %j], %t.
		n := len(in.Args) - info.TrailingArgs
		p.s(" ")
		p.indexed(in.Args[0], in.Args[1:n])
		for _, v := range in.Args[n:] {
			p.s(", ")
			p.value(v)
		}
	default:
		for i, v := range in.Args {
			if i > 0 {
				p.s(",")
			}
			p.s(" ")
			p.value(v)
		}
	}
	if len(in.Attrs) > 0 {
		attrs := append(Attrs(nil), in.Attrs...)
		sort.SliceStable(attrs, func(i, j int) bool { return attrs[i].Key < attrs[j].Key })
		p.s(" {")
		for i, a := range attrs {
			if i > 0 {
				p.s(", ")
			}
			p.s(textName(a.Key))
			p.s("=")
			if l, ok := a.Val.(*Layout); ok && p.aliases[l.String()] != "" {
				p.s("#")
				p.s(p.aliases[l.String()])
			} else {
				p.s(formatAttrValue(a.Val))
			}
		}
		p.s("}")
	}
	if len(in.Results) > 0 {
		p.s(" : ")
		for i, v := range in.Results {
			if i > 0 {
				p.s(", ")
			}
			if v != nil {
				p.typ(v.Type)
			} else {
				p.s("?")
			}
		}
	}
}

// indexed prints `%A[%i, %j]`.
func (p *textPrinter) indexed(a *Value, idx []*Value) {
	p.value(a)
	p.s("[")
	p.values(idx)
	p.s("]")
}

// values prints vs separated by ", ".
func (p *textPrinter) values(vs []*Value) {
	for i, v := range vs {
		if i > 0 {
			p.s(", ")
		}
		p.value(v)
	}
}

func (p *textPrinter) value(v *Value) {
	if v == nil {
		p.s("%?")
		return
	}
	p.s("%")
	p.s(strconv.Itoa(v.ID))
}

func (p *textPrinter) typ(t Type) {
	if t == nil {
		p.s("?")
		return
	}
	p.s(t.String())
}

// Precedences of HostExpr operators; calls, symbols and literals bind tightest.
func gridPrec(e *HostExpr) int {
	if e == nil {
		return 3
	}
	switch e.Op {
	case HostAdd, HostSub:
		return 1
	case HostMul, HostFloorDiv, HostMod:
		return 2
	}
	return 3
}

var gridInfix = map[HostOp]string{
	HostAdd: "+", HostSub: "-", HostMul: "*", HostFloorDiv: "//", HostMod: "%",
}

var gridCallName = map[HostOp]string{HostCdiv: "cdiv", HostMin: "min", HostMax: "max"}

// host prints e, in parentheses when it binds looser than its context
// requires (prec); operators are left-associative, so the caller passes
// one more than the operator's own precedence for a right operand.
func (p *textPrinter) host(e *HostExpr, prec int) {
	if e == nil {
		p.s("?")
		return
	}
	switch e.Op {
	case HostConst:
		p.s(strconv.FormatInt(e.Val, 10))
		return
	case HostSym:
		if e.Sym == "_" { // `_` alone is an absent grid axis
			p.s(`"_"`)
		} else {
			p.s(textName(e.Sym))
		}
		return
	}
	if name, ok := gridCallName[e.Op]; ok {
		p.s(name)
		p.s("(")
		for i, a := range e.Args {
			if i > 0 {
				p.s(", ")
			}
			p.host(a, 0)
		}
		p.s(")")
		return
	}
	op, ok := gridInfix[e.Op]
	if !ok || len(e.Args) != 2 {
		p.s("?(")
		for i, a := range e.Args {
			if i > 0 {
				p.s(", ")
			}
			p.host(a, 0)
		}
		p.s(")")
		return
	}
	my := gridPrec(e)
	if my < prec {
		p.s("(")
	}
	p.host(e.Args[0], my)
	p.s(" ")
	p.s(op)
	p.s(" ")
	p.host(e.Args[1], my+1)
	if my < prec {
		p.s(")")
	}
}

// String returns the expression in infix form with minimal parentheses:
// `cdiv(M, 128) * cdiv(N, 256)`.
func (e *HostExpr) String() string { return formatHostExpr(e) }

// formatHostExpr returns e in the printed infix form.
func formatHostExpr(e *HostExpr) string {
	var p textPrinter
	p.host(e, 0)
	return p.b.String()
}

// formatFloatText prints x so that it re-parses as a float with the same bits
// (NaN payloads aside). Infinities and NaN carry a sign (+inf, -inf, +nan)
// so that bare `inf` and `nan` stay identifiers, as in {pad=nan}.
func formatFloatText(x float64) string {
	switch {
	case math.IsInf(x, 1):
		return "+inf"
	case math.IsInf(x, -1):
		return "-inf"
	case math.IsNaN(x):
		return "+nan"
	}
	s := strconv.FormatFloat(x, 'g', -1, 64)
	if !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	return s
}

// formatAttrValue prints an attribute value: int64, float64, bool, an identifier
// (quoted when it is not one, or when it would read back as another kind),
// an int list or a layout (in full: the printer's aliases are not known here).
func formatAttrValue(v any) string {
	switch v := v.(type) {
	case int64:
		return strconv.FormatInt(v, 10)
	case int:
		return strconv.Itoa(v)
	case float64:
		return formatFloatText(v)
	case bool:
		return strconv.FormatBool(v)
	case string:
		if isTextIdent(v) && !textReserved[v] {
			return v
		}
		return strconv.Quote(v)
	case *Layout:
		return v.String()
	case []int:
		var b strings.Builder
		b.WriteByte('[')
		for i, x := range v {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(strconv.Itoa(x))
		}
		b.WriteByte(']')
		return b.String()
	}
	return "?"
}

// formatConstValue prints a baked constant: int64, float64, bool or DType.
func formatConstValue(v any) string {
	switch v := v.(type) {
	case DType:
		return v.String()
	case string:
		return "?"
	}
	return formatAttrValue(v)
}

// textReserved are identifiers that read back as something other than an
// identifier attribute; such strings print quoted.
var textReserved = map[string]bool{"true": true, "false": true}

func isTextIdent(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || i > 0 && '0' <= c && c <= '9' {
			continue
		}
		return false
	}
	return true
}

// textName returns a name bare when it is an identifier, quoted otherwise.
func textName(s string) string {
	if isTextIdent(s) {
		return s
	}
	return strconv.Quote(s)
}
