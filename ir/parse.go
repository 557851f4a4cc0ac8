package ir

// This file reads the text form that print.go writes. The grammar, with
// whitespace (newlines included) insignificant:
//
//	module   = { func } .
//	func     = { alias } "kernel" "@" name "(" [ param { "," param } ] ")"
//	           [ "consts" "(" [ const { "," const } ] ")" ]
//	           [ "hints" "(" [ const { "," const } ] ")" ]
//	           [ "grid" "(" axis "," axis "," axis ")" ]
//	           [ "lowered" "(" [ fact { "," fact } ] ")" ]
//	           "{" { instr } "}" .
//	fact     = name "=" attrval .
//	param    = VALUE [ name ] ":" type [ "[" [ dim { "," dim } ] "]" ] .
//	const    = name "=" ( INT | FLOAT | "true" | "false" | DTYPE ) .
//	axis     = "_" | host .
//	host     = term { ( "+" | "-" ) term } .
//	term     = factor { ( "*" | "//" | "%" ) factor } .
//	factor   = INT | name | ( "cdiv" | "min" | "max" ) "(" host "," host ")" | "(" host ")" .
//	instr    = [ VALUE { "," VALUE } "=" ] OP [ operands ] [ attrs ] [ ":" type { "," type } ]
//	           [ region { ( "else" | "do" ) region } ] .
//	operands = VALUE { "," VALUE }                          (most ops)
//	         | VALUE "[" [ VALUE { "," VALUE } ] "]"         (load)
//	         | VALUE "[" [ VALUE { "," VALUE } ] "]" "," VALUE   (store) .
//	attrs    = "{" name "=" attrval { "," name "=" attrval } "}" .
//	attrval  = INT | FLOAT | "true" | "false" | name | ints | layout | ALIAS .
//	ints     = "[" [ INT { "," INT } ] "]" .
//	alias    = ALIAS "=" layout .
//	layout   = name [ "<" [ lfield { "," lfield } ] ">" ] .
//	lfield   = "warps" "=" ints | ( "reg" | "lane" | "warp" ) "=" "[" [ ints { "," ints } ] "]" .
//	region   = "{" [ "^" "(" [ VALUE ":" type { "," VALUE ":" type } ] ")" ] { instr } "}" .
//	type     = DTYPE | "tile" "<" { INT "x" } DTYPE ">" | "array" "<" { "?x" } DTYPE ">" .
//	name     = IDENT | STRING .
//
// FLOAT has a fraction or an exponent (`1.0`, `1e+21`), or is one of `+inf`,
// `-inf`, `+nan`; a bare `inf` or `nan` is an identifier. VALUE is `%` and a
// decimal ID; IDs are kept as written, and the Func's
// next ID is one more than the largest. ALIAS is `#` and an identifier: a
// layout alias, defined before the kernel that uses it and known only in
// that kernel.
//
// An attribute's value is read by its form, except that a bare name is a
// layout (`smem`) where the key is declared as a layout (see AttrSpecOf):
// the printer writes every value so that its form gives its kind back.
// Undeclared keys are left for the verifier to reject.

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ParseError is a syntax error in IR text, at a 1-based line and byte column.
type ParseError struct {
	Line, Col int
	Msg       string
}

func (e *ParseError) Error() string { return fmt.Sprintf("ir:%d:%d: %s", e.Line, e.Col, e.Msg) }

// maxValueID bounds parsed value IDs, since passes size tables by NumValues.
const maxValueID = 1 << 20

// Parse reads the text form of a module (one or more kernels). It reports
// the first syntax error; it does not verify the IR (see Verify).
func Parse(text string) (m *Module, err error) {
	p := &textParser{src: text}
	defer func() {
		if r := recover(); r != nil {
			pe, ok := r.(*ParseError)
			if !ok {
				panic(r)
			}
			m, err = nil, pe
		}
	}()
	p.lex()
	m = &Module{}
	for p.tok().kind != tokEOF {
		m.Funcs = append(m.Funcs, p.fn())
	}
	return m, nil
}

// ParseFunc reads text holding exactly one kernel.
func ParseFunc(text string) (*Func, error) {
	m, err := Parse(text)
	if err != nil {
		return nil, err
	}
	if len(m.Funcs) != 1 {
		return nil, fmt.Errorf("ir: want one kernel, found %d", len(m.Funcs))
	}
	return m.Funcs[0], nil
}

type textTokKind uint8

const (
	tokEOF textTokKind = iota
	tokIdent
	tokInt
	tokFloat
	tokString
	tokValue
	tokAlias
	tokPunct
)

type textToken struct {
	kind     textTokKind
	text     string // the source text (for tokString, the unquoted string)
	off, end int
}

func (t textToken) describe() string {
	if t.kind == tokEOF {
		return "end of input"
	}
	return strconv.Quote(t.text)
}

type textParser struct {
	src  string
	toks []textToken
	pos  int

	values map[int]*Value
	maxID  int
	// aliases are the layout aliases defined before the current kernel.
	aliases map[string]*Layout
}

func (p *textParser) failAt(off int, format string, args ...any) {
	line, col := 1, 1
	for i := 0; i < off && i < len(p.src); i++ {
		if p.src[i] == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	panic(&ParseError{Line: line, Col: col, Msg: fmt.Sprintf(format, args...)})
}

func (p *textParser) fail(format string, args ...any) {
	p.failAt(p.tok().off, format, args...)
}

func (p *textParser) lex() {
	s := p.src
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
			j := i + 1
			for j < len(s) && (s[j] == '_' || 'a' <= s[j] && s[j] <= 'z' || 'A' <= s[j] && s[j] <= 'Z' || isDecDigit(s[j])) {
				j++
			}
			p.toks = append(p.toks, textToken{tokIdent, s[i:j], i, j})
			i = j
		case isDecDigit(c) || c == '-' && i+1 < len(s) && isDecDigit(s[i+1]):
			j := i + 1
			for j < len(s) && isDecDigit(s[j]) {
				j++
			}
			kind := tokInt
			if j+1 < len(s) && s[j] == '.' && isDecDigit(s[j+1]) {
				kind = tokFloat
				j++
				for j < len(s) && isDecDigit(s[j]) {
					j++
				}
			}
			if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
				k := j + 1
				if k < len(s) && (s[k] == '+' || s[k] == '-') {
					k++
				}
				if k < len(s) && isDecDigit(s[k]) {
					kind = tokFloat
					j = k
					for j < len(s) && isDecDigit(s[j]) {
						j++
					}
				}
			}
			p.toks = append(p.toks, textToken{kind, s[i:j], i, j})
			i = j
		case c == '%' && i+1 < len(s) && isDecDigit(s[i+1]):
			j := i + 1
			for j < len(s) && isDecDigit(s[j]) {
				j++
			}
			p.toks = append(p.toks, textToken{tokValue, s[i:j], i, j})
			i = j
		case c == '#' && i+1 < len(s) && isIdentStart(s[i+1]):
			j := i + 2
			for j < len(s) && (isIdentStart(s[j]) || isDecDigit(s[j])) {
				j++
			}
			p.toks = append(p.toks, textToken{tokAlias, s[i:j], i, j})
			i = j
		case c == '"':
			j := i + 1
			for j < len(s) && s[j] != '"' && s[j] != '\n' {
				if s[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(s) || s[j] != '"' {
				p.failAt(i, "unterminated string")
			}
			j++
			u, err := strconv.Unquote(s[i:j])
			if err != nil {
				p.failAt(i, "malformed string %s", s[i:j])
			}
			p.toks = append(p.toks, textToken{tokString, u, i, j})
			i = j
		case c == '/' && i+1 < len(s) && s[i+1] == '/':
			p.toks = append(p.toks, textToken{tokPunct, "//", i, i + 2})
			i += 2
		case strings.IndexByte("()[]{}<>,:=@^*+-%?", c) >= 0:
			p.toks = append(p.toks, textToken{tokPunct, s[i : i+1], i, i + 1})
			i++
		default:
			p.failAt(i, "unexpected character %q", rune(c))
		}
	}
	p.toks = append(p.toks, textToken{kind: tokEOF, off: len(s), end: len(s)})
}

func isDecDigit(c byte) bool { return '0' <= c && c <= '9' }

func isIdentStart(c byte) bool { return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

func (p *textParser) tok() textToken { return p.toks[p.pos] }

func (p *textParser) peek(n int) textToken {
	if p.pos+n < len(p.toks) {
		return p.toks[p.pos+n]
	}
	return p.toks[len(p.toks)-1]
}

func (p *textParser) next() textToken {
	t := p.toks[p.pos]
	if t.kind != tokEOF {
		p.pos++
	}
	return t
}

func (p *textParser) is(punct string) bool {
	t := p.tok()
	return t.kind == tokPunct && t.text == punct
}

func (p *textParser) isWord(w string) bool {
	t := p.tok()
	return t.kind == tokIdent && t.text == w
}

func (p *textParser) got(punct string) bool {
	if p.is(punct) {
		p.pos++
		return true
	}
	return false
}

func (p *textParser) want(punct string) {
	if !p.got(punct) {
		p.fail("expected %q, found %s", punct, p.tok().describe())
	}
}

func (p *textParser) wantWord(w string) {
	if !p.isWord(w) {
		p.fail("expected %q, found %s", w, p.tok().describe())
	}
	p.pos++
}

// name = IDENT | STRING.
func (p *textParser) name(what string) string {
	t := p.tok()
	if t.kind != tokIdent && t.kind != tokString {
		p.fail("expected %s, found %s", what, t.describe())
	}
	p.pos++
	return t.text
}

func (p *textParser) int64Tok() int64 {
	t := p.tok()
	if t.kind != tokInt {
		p.fail("expected integer, found %s", t.describe())
	}
	p.pos++
	v, err := strconv.ParseInt(t.text, 10, 64)
	if err != nil {
		p.failAt(t.off, "integer %s out of range", t.text)
	}
	return v
}

func (p *textParser) intTok() int {
	off := p.tok().off
	v := p.int64Tok()
	if v != int64(int(v)) {
		p.failAt(off, "integer %d out of range", v)
	}
	return int(v)
}

func (p *textParser) fn() *Func {
	p.aliases = map[string]*Layout{}
	for p.tok().kind == tokAlias {
		t := p.next()
		if p.aliases[t.text[1:]] != nil {
			p.failAt(t.off, "layout alias %s defined twice", t.text)
		}
		p.want("=")
		p.aliases[t.text[1:]] = p.layout()
	}
	p.wantWord("kernel")
	p.want("@")
	f := NewFunc(p.name("kernel name"))
	p.values = map[int]*Value{}
	p.maxID = -1

	p.want("(")
	for !p.is(")") {
		if len(f.Params) > 0 {
			p.want(",")
		}
		p.param(f)
	}
	p.want(")")

	if p.isWord("consts") {
		p.pos++
		p.want("(")
		seen := map[string]bool{}
		for !p.is(")") {
			if len(f.Consts) > 0 {
				p.want(",")
			}
			off := p.tok().off
			name := p.name("constant name")
			if seen[name] {
				p.failAt(off, "constant %s repeated", name)
			}
			seen[name] = true
			p.want("=")
			f.Consts = append(f.Consts, Const{Name: name, Value: p.constValue()})
		}
		p.want(")")
	}

	if p.isWord("hints") {
		p.pos++
		p.want("(")
		for !p.is(")") {
			if len(f.Hints) > 0 {
				p.want(",")
			}
			name := p.name("hint name")
			p.want("=")
			f.Hints = append(f.Hints, Const{Name: name, Value: p.constValue()})
		}
		p.want(")")
	}

	if p.isWord("grid") {
		p.pos++
		p.want("(")
		for i := range f.Grid {
			if i > 0 {
				p.want(",")
			}
			if p.isWord("_") && (p.peek(1).text == "," || p.peek(1).text == ")") && p.peek(1).kind == tokPunct {
				p.pos++
				continue
			}
			f.Grid[i] = p.host()
		}
		p.want(")")
	}

	if p.isWord("lowered") {
		p.pos++
		p.want("(")
		seen := map[string]bool{}
		for !p.is(")") {
			if len(seen) > 0 {
				p.want(",")
			}
			off := p.tok().off
			key := p.name("kernel fact")
			if seen[key] {
				p.failAt(off, "kernel fact %s repeated", key)
			}
			seen[key] = true
			p.want("=")
			if msg := f.Facts.set(key, p.attrValue(AttrInvalid)); msg != "" {
				p.failAt(off, "%s", msg)
			}
		}
		p.want(")")
	}

	p.want("{")
	p.instrs(f.Body)
	p.want("}")
	f.nextID = p.maxID + 1
	return f
}

func (p *textParser) param(f *Func) {
	v := p.newValue()
	name := ""
	if !p.is(":") {
		name = p.name("parameter name")
	}
	p.want(":")
	v.Type = p.typ()
	v.Block = f.Body
	v.Index = len(f.Body.Params)
	f.Body.Params = append(f.Body.Params, v)
	prm := &Param{Name: name, Type: v.Type, Value: v}
	if p.got("[") {
		prm.Dims = []Dim{}
		for !p.is("]") {
			if len(prm.Dims) > 0 {
				p.want(",")
			}
			if p.tok().kind == tokInt {
				prm.Dims = append(prm.Dims, Dim{Size: p.int64Tok()})
			} else {
				prm.Dims = append(prm.Dims, Dim{Sym: p.name("dimension")})
			}
		}
		p.want("]")
		if len(prm.Dims) == 0 {
			prm.Dims = nil
		}
	}
	f.Params = append(f.Params, prm)
}

// newValue defines the value named by the current VALUE token.
func (p *textParser) newValue() *Value {
	t := p.tok()
	id := p.valueID()
	if p.values[id] != nil {
		p.failAt(t.off, "value %s defined twice", t.text)
	}
	v := &Value{ID: id}
	p.values[id] = v
	p.maxID = max(p.maxID, id)
	return v
}

// valueID consumes a VALUE token and returns its ID.
func (p *textParser) valueID() int {
	t := p.tok()
	if t.kind != tokValue {
		p.fail("expected value, found %s", t.describe())
	}
	p.pos++
	id, err := strconv.Atoi(t.text[1:])
	if err != nil || id >= maxValueID {
		p.failAt(t.off, "value ID %s out of range", t.text)
	}
	return id
}

// use resolves a VALUE token to an already defined value.
func (p *textParser) use() *Value {
	t := p.tok()
	id := p.valueID()
	v := p.values[id]
	if v == nil {
		p.failAt(t.off, "undefined value %s", t.text)
	}
	return v
}

func (p *textParser) constValue() any {
	t := p.tok()
	switch t.kind {
	case tokInt:
		return p.int64Tok()
	case tokFloat, tokPunct:
		return p.floatValue()
	case tokIdent:
		switch t.text {
		case "true", "false":
			p.pos++
			return t.text == "true"
		}
		d, ok := ParseDType(t.text)
		if !ok {
			p.fail("unknown dtype %q", t.text)
		}
		p.pos++
		return d
	}
	p.fail("expected constant value, found %s", t.describe())
	return nil
}

// floatValue = FLOAT | "+" "inf" | "-" "inf" | "+" "nan".
func (p *textParser) floatValue() float64 {
	t := p.next()
	switch {
	case t.kind == tokFloat:
		v, err := strconv.ParseFloat(t.text, 64)
		if err != nil {
			p.failAt(t.off, "float %s out of range", t.text)
		}
		return v
	case t.kind == tokPunct && t.text == "+" && p.isWord("inf") && p.tok().off == t.end:
		p.pos++
		return math.Inf(1)
	case t.kind == tokPunct && t.text == "-" && p.isWord("inf") && p.tok().off == t.end:
		p.pos++
		return math.Inf(-1)
	case t.kind == tokPunct && t.text == "+" && p.isWord("nan") && p.tok().off == t.end:
		p.pos++
		return math.NaN()
	}
	p.failAt(t.off, "expected float, found %s", t.describe())
	return 0
}

// attrValue reads the value of an attribute declared of the given kind
// (AttrInvalid when undeclared).
func (p *textParser) attrValue(kind AttrKind) any {
	t := p.tok()
	switch {
	case t.kind == tokAlias:
		p.pos++
		l := p.aliases[t.text[1:]]
		if l == nil {
			p.failAt(t.off, "undefined layout alias %s", t.text)
		}
		return l
	case (t.kind == tokIdent || t.kind == tokString) && (kind == AttrLayout || p.peek(1).kind == tokPunct && p.peek(1).text == "<"):
		return p.layout()
	}
	switch t.kind {
	case tokInt:
		return p.int64Tok()
	case tokFloat:
		return p.floatValue()
	case tokString:
		p.pos++
		return t.text
	case tokIdent:
		switch t.text {
		case "true", "false":
			p.pos++
			return t.text == "true"
		}
		p.pos++
		return t.text
	case tokPunct:
		if t.text == "-" || t.text == "+" {
			return p.floatValue()
		}
		if t.text == "[" {
			return p.ints()
		}
	}
	p.fail("expected attribute value, found %s", t.describe())
	return nil
}

// ints = "[" [ INT { "," INT } ] "]".
func (p *textParser) ints() []int {
	p.want("[")
	ints := []int{}
	for !p.is("]") {
		if len(ints) > 0 {
			p.want(",")
		}
		ints = append(ints, p.intTok())
	}
	p.pos++
	return ints
}

// layout = name [ "<" [ lfield { "," lfield } ] ">" ].
func (p *textParser) layout() *Layout {
	l := &Layout{Kind: p.name("layout kind")}
	if !p.got("<") {
		return l
	}
	seen := map[string]bool{}
	for !p.is(">") {
		if len(seen) > 0 {
			p.want(",")
		}
		t := p.tok()
		field := p.name("layout field")
		if seen[field] {
			p.failAt(t.off, "layout field %s repeated", field)
		}
		seen[field] = true
		p.want("=")
		var bases *[][]int
		switch field {
		case "warps":
			l.Warps = p.ints()
			continue
		case "reg":
			bases = &l.Reg
		case "lane":
			bases = &l.Lane
		case "warp":
			bases = &l.Warp
		default:
			p.failAt(t.off, "unknown layout field %s", field)
		}
		p.want("[")
		for !p.is("]") {
			if len(*bases) > 0 {
				p.want(",")
			}
			*bases = append(*bases, p.ints())
		}
		p.pos++
	}
	p.pos++
	return l
}

// host = term { ("+" | "-") term }.
func (p *textParser) host() *HostExpr {
	x := p.hostTerm()
	for {
		var op HostOp
		switch {
		case p.is("+"):
			op = HostAdd
		case p.is("-"):
			op = HostSub
		default:
			return x
		}
		p.pos++
		x = &HostExpr{Op: op, Args: []*HostExpr{x, p.hostTerm()}}
	}
}

// term = factor { ("*" | "//" | "%") factor }.
func (p *textParser) hostTerm() *HostExpr {
	x := p.hostFactor()
	for {
		var op HostOp
		switch {
		case p.is("*"):
			op = HostMul
		case p.is("//"):
			op = HostFloorDiv
		case p.is("%"):
			op = HostMod
		default:
			return x
		}
		p.pos++
		x = &HostExpr{Op: op, Args: []*HostExpr{x, p.hostFactor()}}
	}
}

var gridCallOp = map[string]HostOp{"cdiv": HostCdiv, "min": HostMin, "max": HostMax}

func (p *textParser) hostFactor() *HostExpr {
	t := p.tok()
	switch {
	case t.kind == tokInt:
		return &HostExpr{Op: HostConst, Val: p.int64Tok()}
	case t.kind == tokPunct && t.text == "(":
		p.pos++
		x := p.host()
		p.want(")")
		return x
	case t.kind == tokIdent && p.peek(1).kind == tokPunct && p.peek(1).text == "(":
		op, ok := gridCallOp[t.text]
		if !ok {
			p.fail("unknown grid function %q", t.text)
		}
		p.pos += 2
		x := p.host()
		p.want(",")
		y := p.host()
		p.want(")")
		return &HostExpr{Op: op, Args: []*HostExpr{x, y}}
	case t.kind == tokIdent || t.kind == tokString:
		p.pos++
		return &HostExpr{Op: HostSym, Sym: t.text}
	}
	p.fail("expected grid expression, found %s", t.describe())
	return nil
}

// typ = DTYPE | "tile" "<" shape ">" | "array" "<" shape ">".
// The shape is read as the source text between the angle brackets, which
// must have no spaces: `128x64xf16`, `?x?xf16`, `f32`.
func (p *textParser) typ() Type {
	t := p.tok()
	if t.kind != tokIdent {
		p.fail("expected type, found %s", t.describe())
	}
	p.pos++
	if t.text == "list" {
		p.want("<")
		item, ok := p.typ().(*Array)
		if !ok {
			p.failAt(t.off, "a list holds arrays")
		}
		p.want(">")
		return ArrayListOf(item.DType, item.Rank)
	}
	if t.text != "tile" && t.text != "array" {
		d, ok := ParseDType(t.text)
		if !ok {
			p.failAt(t.off, "unknown type %q", t.text)
		}
		return ScalarOf(d)
	}
	lt := p.tok()
	p.want("<")
	end := lt.end
	for !p.is(">") {
		u := p.tok()
		if u.kind == tokEOF || u.off != end || u.kind == tokPunct && u.text != "?" {
			p.fail("malformed %s type", t.text)
		}
		end = u.end
		p.pos++
	}
	parts := strings.Split(p.src[lt.end:end], "x")
	p.pos++ // ">"
	d, ok := ParseDType(parts[len(parts)-1])
	if !ok {
		p.failAt(lt.end, "unknown dtype %q in %s type", parts[len(parts)-1], t.text)
	}
	dims := parts[:len(parts)-1]
	if t.text == "array" {
		for _, s := range dims {
			if s != "?" {
				p.failAt(lt.end, "array dimensions must be ?, found %q", s)
			}
		}
		return ArrayOf(d, len(dims))
	}
	shape := make([]int, len(dims))
	for i, s := range dims {
		n, err := strconv.Atoi(s)
		if err != nil || s == "" || !isDecDigit(s[0]) || n > math.MaxInt32 {
			p.failAt(lt.end, "malformed tile dimension %q", s)
		}
		shape[i] = n
	}
	return TileOf(d, shape...)
}

// instrs parses instructions into b up to the closing brace.
func (p *textParser) instrs(b *Block) {
	for !p.is("}") {
		if p.tok().kind == tokEOF {
			p.fail("expected \"}\", found end of input")
		}
		b.Append(p.instr())
	}
}

func (p *textParser) instr() *Instr {
	// Result names are read first but defined only after the regions, which
	// cannot see them.
	var resToks []int // indexes in p.toks
	if p.tok().kind == tokValue {
		for {
			resToks = append(resToks, p.pos)
			p.valueID()
			if !p.got(",") {
				break
			}
		}
		p.want("=")
	}
	t := p.tok()
	if t.kind != tokIdent {
		p.fail("expected op, found %s", t.describe())
	}
	op := OpByName(t.text)
	if op == OpInvalid {
		p.fail("unknown op %q", t.text)
	}
	p.pos++
	in := &Instr{Op: op}

	if p.tok().kind == tokValue && !p.atResults() {
		in.Args = append(in.Args, p.use())
		if info := op.Info(); info.ArrayIndexed {
			p.want("[")
			for !p.is("]") {
				if len(in.Args) > 1 {
					p.want(",")
				}
				in.Args = append(in.Args, p.use())
			}
			p.pos++
			for range info.TrailingArgs {
				p.want(",")
				in.Args = append(in.Args, p.use())
			}
		} else {
			for p.got(",") {
				in.Args = append(in.Args, p.use())
			}
		}
	}

	if p.is("{") && (p.peek(1).kind == tokIdent || p.peek(1).kind == tokString) &&
		p.peek(2).kind == tokPunct && p.peek(2).text == "=" {
		p.pos++
		for {
			off := p.tok().off
			key := p.name("attribute name")
			if in.Attrs.Get(key) != nil {
				p.failAt(off, "attribute %s repeated", key)
			}
			p.want("=")
			in.Attrs.Set(key, p.attrValue(attrKindOf(op, key)))
			if !p.got(",") {
				break
			}
		}
		p.want("}")
	}

	var types []Type
	if p.got(":") {
		for {
			types = append(types, p.typ())
			if !p.got(",") {
				break
			}
		}
	}
	if len(types) != len(resToks) {
		p.failAt(t.off, "%s has %d results but %d result types", t.text, len(resToks), len(types))
	}

	if p.is("{") {
		for {
			p.region(in)
			sep := regionSep(op)
			if !p.isWord(sep) {
				break
			}
			p.pos++
			if !p.is("{") {
				p.fail("expected \"{\" after %s, found %s", sep, p.tok().describe())
			}
		}
	}

	for i, rt := range resToks {
		save := p.pos
		p.pos = rt
		v := p.newValue()
		p.pos = save
		v.Type = types[i]
		v.Def = in
		v.Index = i
		in.Results = append(in.Results, v)
	}
	return in
}

// atResults reports whether the tokens ahead are the result list of the
// next instruction (`%4, %5 =`) rather than operands of this one, which
// only an instruction with no operands followed by another can make unclear.
func (p *textParser) atResults() bool {
	i := p.pos
	for p.toks[i].kind == tokValue {
		i++
		if t := p.toks[i]; t.kind == tokPunct && t.text == "," {
			i++
			continue
		}
		break
	}
	t := p.toks[i]
	return t.kind == tokPunct && t.text == "="
}

func (p *textParser) region(in *Instr) {
	p.want("{")
	b := in.NewRegion()
	if p.got("^") {
		p.want("(")
		for !p.is(")") {
			if len(b.Params) > 0 {
				p.want(",")
			}
			v := p.newValue()
			p.want(":")
			v.Type = p.typ()
			v.Block = b
			v.Index = len(b.Params)
			b.Params = append(b.Params, v)
		}
		p.pos++
	}
	p.instrs(b)
	p.want("}")
}
