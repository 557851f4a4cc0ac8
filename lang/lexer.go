package lang

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2/lexer"
)

// The lexer turns source text into Python-style tokens, including the
// layout tokens NEWLINE, INDENT and DEDENT, and feeds them to the participle
// grammar (grammar.go) as a ready-made token slice.
//
// Layout rules (as in Python):
//   - A logical line ends at a newline outside (), [] and {}; inside brackets
//     newlines and indentation are ignored (implicit line joining), and a
//     backslash right before a newline joins two physical lines.
//   - Blank lines and lines holding only a comment produce no tokens.
//   - The indentation of a logical line is compared with a stack of
//     indentation widths: deeper pushes and emits INDENT, shallower pops and
//     emits one DEDENT per level and must land exactly on an outer level.
//   - Tabs in indentation are Python 3's: a line's indentation is measured
//     twice, with tabs to the next multiple of 8 and with tabs as 1 column,
//     and both measures must order the line against the stack alike (deeper
//     in both, or equal in both); otherwise the meaning depends on the tab
//     size, and it is Python's TabError ("inconsistent use of tabs and
//     spaces in indentation"). A form feed resets both. Elsewhere a tab is
//     ordinary white space. Columns count bytes.
//
// NEWLINE is positioned just after the last token of its logical line (where
// a missing ':' would go); INDENT and DEDENT at the first token of the line
// that causes them (DEDENTs at the end of the file at the end of the file).

// Token types given to participle. Keywords get their own type so that
// `@Name` never matches one.
const (
	tokEOF     = lexer.EOF
	tokName    = lexer.TokenType(-2)
	tokKeyword = lexer.TokenType(-3)
	tokInt     = lexer.TokenType(-4)
	tokFloat   = lexer.TokenType(-5)
	tokString  = lexer.TokenType(-6)
	tokOp      = lexer.TokenType(-7)
	tokNewline = lexer.TokenType(-8)
	tokIndent  = lexer.TokenType(-9)
	tokDedent  = lexer.TokenType(-10)
)

var tokSymbols = map[string]lexer.TokenType{
	"EOF":     tokEOF,
	"Name":    tokName,
	"Keyword": tokKeyword,
	"Int":     tokInt,
	"Float":   tokFloat,
	"String":  tokString,
	"Op":      tokOp,
	"Newline": tokNewline,
	"Indent":  tokIndent,
	"Dedent":  tokDedent,
}

// Values of the layout tokens; none of them can be spelled in source.
const (
	newlineValue = "<newline>"
	indentValue  = "<indent>"
	dedentValue  = "<dedent>"
)

// keywords are Python's reserved words: all of them are reserved so that a
// kernel stays valid Python, even those tilec does not support.
var keywords = map[string]bool{
	"False": true, "None": true, "True": true, "and": true, "as": true, "assert": true,
	"async": true, "await": true, "break": true, "class": true, "continue": true,
	"def": true, "del": true, "elif": true, "else": true, "except": true, "finally": true,
	"for": true, "from": true, "global": true, "if": true, "import": true, "in": true,
	"is": true, "lambda": true, "nonlocal": true, "not": true, "or": true, "pass": true,
	"raise": true, "return": true, "try": true, "while": true, "with": true, "yield": true,
}

// operators, longest first within each length so that the scanner can take
// the longest match.
var operators3 = []string{"**=", "//=", ">>=", "<<=", "..."}
var operators2 = []string{
	"**", "//", "<<", ">>", "<=", ">=", "==", "!=", "->",
	"+=", "-=", "*=", "/=", "%=", "@=", "&=", "|=", "^=",
}

const operators1 = "+-*/%@&|^~<>=()[]{},:.;"

// Limits that keep the parser's recursion and the work per file bounded.
const (
	// MaxSourceSize is the largest file Parse accepts, in bytes: far more
	// than any kernel, and it keeps the parser's time and memory in check.
	MaxSourceSize = 256 << 10
	// maxErrors is how many errors Parse reports before it gives up.
	maxErrors = 50
	// maxNesting bounds, per logical line, open brackets plus the operators
	// that make the grammar recurse (unary prefixes, **, conditional
	// expressions).
	maxNesting = 200
	// maxIndent bounds the indentation levels (Python's own limit).
	maxIndent = 100
	// maxLineTokens bounds the tokens of one logical line.
	maxLineTokens = 5000
)

type openBracket struct {
	ch  byte
	pos lexer.Position
}

type scanner struct {
	src  string
	file string
	off  int
	line int
	col  int

	toks []lexer.Token
	errs []*lexError
	// lastF is the token span of the f-string scanned last (its FStringFunc
	// name through its closing parenthesis), for joining adjacent literals.
	lastF struct {
		start, end int
		ok         bool
	}

	indents     []indent
	brackets    []openBracket
	lineStart   bool // at the start of a physical line outside brackets
	lineHasToks bool // the current logical line has tokens
	lastEnd     lexer.Position
	nesting     int // recursion-causing tokens on this logical line
	nestErr     bool
	lineToks    int // tokens on this logical line
}

// lexError is a lexical error: its position and message.
type lexError struct {
	pos lexer.Position
	msg string
}

// lex scans src completely. It always returns a well-formed token stream
// ending with EOF (layout balanced), plus every lexical error it found; the
// parser skips the parts of the file that contain lexical errors.
func lex(file, src string) ([]lexer.Token, []*lexError) {
	s := &scanner{src: loneCRToLF(src), file: file, line: 1, col: 1, indents: []indent{{}}, lineStart: true}
	if strings.HasPrefix(src, "\xef\xbb\xbf") {
		// A UTF-8 byte order mark, as some editors write, is skipped as
		// Python skips it (columns count bytes, so line 1 starts at col 4).
		s.advance(3)
	}
	s.run()
	return s.toks, s.errs
}

// loneCRToLF makes each carriage return that is not part of a "\r\n" a
// "\n": Python reads old Mac line endings (a lone '\r') as newlines, and
// so must the lexer, or a whole file is one line and every position
// after its first line is wrong. The text keeps its length, so offsets
// still index the file as read; "\r\n" stays, its '\r' skipped as white
// space.
func loneCRToLF(src string) string {
	i := strings.IndexByte(src, '\r')
	if i < 0 {
		return src
	}
	b := []byte(src)
	for ; i < len(b); i++ {
		if b[i] == '\r' && (i+1 == len(b) || b[i+1] != '\n') {
			b[i] = '\n'
		}
	}
	return string(b)
}

func (s *scanner) pos() lexer.Position {
	return lexer.Position{Filename: s.file, Offset: s.off, Line: s.line, Column: s.col}
}

func (s *scanner) errorf(p lexer.Position, format string, args ...any) {
	if len(s.errs) > maxErrors {
		return
	}
	s.errs = append(s.errs, &lexError{pos: p, msg: fmt.Sprintf(format, args...)})
}

// advance moves over n bytes that contain no newline.
func (s *scanner) advance(n int) {
	s.off += n
	s.col += n
}

func (s *scanner) newline() {
	s.off++
	s.line++
	s.col = 1
}

func (s *scanner) peek(i int) byte {
	if s.off+i < len(s.src) {
		return s.src[s.off+i]
	}
	return 0
}

func (s *scanner) emit(typ lexer.TokenType, value string, p lexer.Position) {
	s.toks = append(s.toks, lexer.Token{Type: typ, Value: value, Pos: p})
	if typ != tokIndent && typ != tokDedent && typ != tokNewline {
		s.lineHasToks = true
		s.lastEnd = s.pos()
		if s.lineToks++; s.lineToks == maxLineTokens {
			s.errorf(p, "logical line too long (more than %d tokens)", maxLineTokens)
		}
	}
}

func (s *scanner) endLogicalLine() {
	if s.lineHasToks {
		s.toks = append(s.toks, lexer.Token{Type: tokNewline, Value: newlineValue, Pos: s.lastEnd})
	}
	s.lineHasToks = false
	s.nesting = 0
	s.nestErr = false
	s.lineToks = 0
}

func (s *scanner) nest(p lexer.Position) {
	s.nesting++
	s.checkNesting(p)
}

func (s *scanner) checkNesting(p lexer.Position) {
	if s.nesting+len(s.brackets) > maxNesting && !s.nestErr {
		s.nestErr = true
		s.errorf(p, "expression nested too deeply")
	}
}

func (s *scanner) run() {
	for s.off < len(s.src) {
		if s.lineStart {
			if !s.indentation() {
				continue
			}
		}
		c := s.src[s.off]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\f':
			s.advance(1)
		case c == '\n':
			if len(s.brackets) == 0 {
				s.endLogicalLine()
				s.lineStart = true
			}
			s.newline()
		case c == '#':
			s.skipComment()
		case c == '\\':
			s.continuation()
		default:
			s.token(c)
		}
	}
	p := s.pos()
	if n := len(s.brackets); n > 0 {
		// An unclosed bracket is often the consequence of an earlier
		// error on its line (an unterminated string): report it alone.
		b := s.brackets[n-1]
		if len(s.errs) == 0 || s.errs[len(s.errs)-1].pos.Offset < b.pos.Offset {
			s.errorf(b.pos, "'%c' was never closed", b.ch)
		}
		s.brackets = nil
	}
	if !s.lineHasToks {
		// DEDENTs at the end of the file sit after the last token.
		p = s.lastEnd
		if p.Line == 0 {
			p = s.pos()
		}
	}
	s.endLogicalLine()
	for len(s.indents) > 1 {
		s.indents = s.indents[:len(s.indents)-1]
		s.toks = append(s.toks, lexer.Token{Type: tokDedent, Value: dedentValue, Pos: p})
	}
	s.toks = append(s.toks, lexer.EOFToken(p))
}

// token scans one token starting with byte c: a name or keyword, a
// number, a string or an operator.
func (s *scanner) token(c byte) {
	switch {
	case isLetter(c):
		s.identifier()
	case isDigit(c) || c == '.' && isDigit(s.peek(1)):
		s.number()
	case c == '\'' || c == '"':
		s.string(s.pos(), s.off)
	default:
		s.operator()
	}
}

// indent is one level of the indentation stack: its width with tabs to
// the next multiple of 8 (col, which orders the levels) and with tabs as
// one column (alt, which must order them alike: Python 3's tab rule).
type indent struct{ col, alt int }

// tabError is Python 3's TabError.
const tabError = "inconsistent use of tabs and spaces in indentation"

// indentation measures the indentation of a physical line at the start of a
// logical line. It returns false when the line is blank or a comment (it
// has then consumed the line up to its newline).
func (s *scanner) indentation() bool {
	var w indent
	for s.off < len(s.src) {
		switch s.src[s.off] {
		case ' ':
			w.col++
			w.alt++
		case '\t':
			w.col = (w.col/8 + 1) * 8
			w.alt++
		case '\f':
			w = indent{}
		case '\r':
		default:
			goto measured
		}
		s.advance(1)
	}
measured:
	if s.off >= len(s.src) {
		return false
	}
	switch s.src[s.off] {
	case '\n':
		s.newline()
		return false
	case '#':
		s.skipComment()
		return false
	}
	s.lineStart = false
	p := s.pos()
	top := s.indents[len(s.indents)-1]
	switch {
	case w.col == top.col:
		if w.alt != top.alt {
			s.errorf(p, tabError)
		}
	case w.col > top.col:
		if w.alt <= top.alt {
			s.errorf(p, tabError)
		}
		if len(s.indents) > maxIndent {
			s.errorf(p, "too many levels of indentation")
		}
		s.indents = append(s.indents, w)
		s.toks = append(s.toks, lexer.Token{Type: tokIndent, Value: indentValue, Pos: p})
	default:
		for len(s.indents) > 1 && s.indents[len(s.indents)-1].col > w.col {
			s.indents = s.indents[:len(s.indents)-1]
			s.toks = append(s.toks, lexer.Token{Type: tokDedent, Value: dedentValue, Pos: p})
		}
		switch top := s.indents[len(s.indents)-1]; {
		case top.col != w.col:
			s.errorf(p, "unindent does not match any outer indentation level")
		case top.alt != w.alt:
			s.errorf(p, tabError)
		}
	}
	return true
}

func (s *scanner) skipComment() {
	for s.off < len(s.src) && s.src[s.off] != '\n' {
		s.advance(1)
	}
}

func (s *scanner) continuation() {
	p := s.pos()
	s.advance(1)
	if s.peek(0) == '\r' && s.peek(1) == '\n' {
		s.advance(1)
	}
	switch {
	case s.off >= len(s.src):
		s.errorf(p, "unexpected end of file after line continuation character")
	case s.src[s.off] == '\n':
		s.newline()
	default:
		s.errorf(p, "unexpected character after line continuation character")
	}
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
func isHex(c byte) bool    { return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

func (s *scanner) identifier() {
	p := s.pos()
	start := s.off
	for s.off < len(s.src) && (isLetter(s.src[s.off]) || isDigit(s.src[s.off])) {
		s.advance(1)
	}
	word := s.src[start:s.off]
	if q := s.peek(0); q == '\'' || q == '"' {
		switch w := strings.ToLower(word); w {
		case "f", "fr", "rf":
			s.fstring(p, strings.Contains(w, "r"))
			return
		case "u":
			s.string(p, s.off) // Python 3's u prefix changes nothing
			return
		case "r":
			// A raw string: the token keeps its prefix, so that unquote
			// leaves its backslashes alone.
			s.string(p, start)
			return
		case "b", "br", "rb":
			s.errorf(p, "string prefix '%s' is not supported (bytes literals)", word)
			s.string(s.pos(), s.off)
			return
		}
	}
	if keywords[word] {
		if word == "not" || word == "if" {
			s.nest(p)
		}
		s.emit(tokKeyword, word, p)
		return
	}
	s.emit(tokName, word, p)
}

// number scans an int or float literal. The token keeps the source text;
// the parser converts it (and reports values out of range).
func (s *scanner) number() {
	p := s.pos()
	start := s.off
	bad := func(kind string) {
		// Swallow the rest of the malformed literal so that one mistake
		// gives one error.
		for s.off < len(s.src) && (isLetter(s.src[s.off]) || isDigit(s.src[s.off])) {
			s.advance(1)
		}
		s.errorf(p, "invalid %s literal", kind)
		s.emit(tokInt, "0", p)
	}
	if s.peek(0) == '0' {
		var kind string
		var ok func(byte) bool
		switch s.peek(1) {
		case 'x', 'X':
			kind, ok = "hexadecimal", isHex
		case 'o', 'O':
			kind, ok = "octal", func(c byte) bool { return c >= '0' && c <= '7' }
		case 'b', 'B':
			kind, ok = "binary", func(c byte) bool { return c == '0' || c == '1' }
		}
		if ok != nil {
			s.advance(2)
			if s.peek(0) == '_' && ok(s.peek(1)) {
				s.advance(1) // 0x_FF, as in Python
			}
			if !s.digits(ok) || isLetter(s.peek(0)) || isDigit(s.peek(0)) {
				if c := s.peek(0); (isDigit(c) || isLetter(c)) && c != '_' {
					s.errorf(s.pos(), "invalid digit '%c' in %s literal", c, kind)
					for s.off < len(s.src) && (isLetter(s.src[s.off]) || isDigit(s.src[s.off])) {
						s.advance(1)
					}
					s.emit(tokInt, "0", p)
					return
				}
				bad(kind)
				return
			}
			s.emit(tokInt, s.src[start:s.off], p)
			return
		}
	}
	isFloat := false
	if s.peek(0) != '.' && !s.digits(isDigit) {
		bad("decimal")
		return
	}
	if s.peek(0) == '.' {
		isFloat = true
		s.advance(1)
		if isDigit(s.peek(0)) && !s.digits(isDigit) {
			bad("decimal")
			return
		}
	}
	if c := s.peek(0); c == 'e' || c == 'E' {
		isFloat = true
		s.advance(1)
		if c := s.peek(0); c == '+' || c == '-' {
			s.advance(1)
		}
		if !isDigit(s.peek(0)) || !s.digits(isDigit) {
			bad("float")
			return
		}
	}
	if c := s.peek(0); (c == 'j' || c == 'J') && !isLetter(s.peek(1)) && !isDigit(s.peek(1)) {
		// An imaginary literal (1j): a token, so that the parser reports
		// it where it is (host code may keep it, File.Deferred).
		s.advance(1)
		s.emit(tokFloat, s.src[start:s.off], p)
		return
	}
	if c := s.peek(0); isLetter(c) || isDigit(c) {
		bad("decimal")
		return
	}
	text := s.src[start:s.off]
	if isFloat {
		s.emit(tokFloat, text, p)
		return
	}
	if len(text) > 1 && text[0] == '0' && strings.Trim(text, "0_") != "" {
		s.errorf(p, "leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers")
	}
	s.emit(tokInt, text, p)
}

// digits scans digits accepted by ok with single '_' separators between
// them; it reports whether the run was well formed and non-empty.
func (s *scanner) digits(ok func(byte) bool) bool {
	n := 0
	for {
		c := s.peek(0)
		if ok(c) {
			s.advance(1)
			n++
			continue
		}
		if c == '_' && n > 0 && ok(s.peek(1)) {
			s.advance(1)
			continue
		}
		return n > 0 && c != '_'
	}
}

// string scans a quoted string starting at s.off; p is where the token
// starts (before any prefix) and start is the offset of the opening quote.
func (s *scanner) string(p lexer.Position, start int) {
	q := s.src[s.off]
	triple := s.peek(1) == q && s.peek(2) == q
	if triple {
		s.advance(3)
	} else {
		s.advance(1)
	}
	for {
		if s.off >= len(s.src) {
			if triple {
				s.errorf(p, "unterminated triple-quoted string literal")
			} else {
				s.errorf(p, "unterminated string literal")
			}
			return
		}
		c := s.src[s.off]
		switch {
		case c == '\\':
			s.advance(1)
			if s.off < len(s.src) {
				if s.src[s.off] == '\n' {
					s.newline()
				} else {
					s.advance(1)
				}
			}
		case c == '\n':
			if !triple {
				s.errorf(p, "unterminated string literal")
				return
			}
			s.newline()
		case c == q && (!triple || s.peek(1) == q && s.peek(2) == q):
			if triple {
				s.advance(3)
			} else {
				s.advance(1)
			}
			s.emit(tokString, s.src[start:s.off], p)
			s.joinLiterals(len(s.toks)-1, false)
			return
		default:
			s.advance(1)
		}
	}
}

// FStringFunc is the name of the call an f-string is read as:
// f"a{x!r:.2f}b" is __fstring__("a", (x), "r", ".2f", "b"): per replacement
// field, the literal text before it, the field's expression (its own
// tokens, at their positions in the file), its conversion ("", "r", "s" or
// "a") and its format spec; then the text after the last field. A spec
// with nested fields (f"{x:{w}.{p}f}") is itself an FStringFunc call, of
// the spec's text and fields, evaluated before the field is formatted, as
// Python does. The IR builder formats it (into ct.print's format when a
// value is known only at run time).
const FStringFunc = "__fstring__"

// fstring scans an f-string whose prefix started at p (s.off is at the
// opening quote) into the tokens of an FStringFunc call.
func (s *scanner) fstring(p lexer.Position, raw bool) {
	q := s.src[s.off]
	n := 1
	if s.peek(1) == q && s.peek(2) == q {
		n = 3
	}
	s.advance(n)
	first := len(s.toks)
	defer func() { s.joinLiterals(first, true) }()
	s.emit(tokName, FStringFunc, p)
	s.emit(tokOp, "(", p)
	var lit strings.Builder
	litPos := s.pos()
	flush := func() {
		// The literal's escapes are decoded as the string's own would be.
		text := lit.String()
		if !raw {
			text = unquote(string(q) + text + string(q))
		}
		s.emit(tokString, goQuote(text), litPos)
		lit.Reset()
	}
	closed := func() bool {
		return s.src[s.off] == q && (n == 1 || s.peek(1) == q && s.peek(2) == q)
	}
	for {
		if s.off >= len(s.src) || (n == 1 && s.src[s.off] == '\n') {
			s.errorf(p, "unterminated f-string literal")
			s.emit(tokOp, ")", s.pos())
			return
		}
		c := s.src[s.off]
		switch {
		case closed():
			flush()
			s.advance(n)
			s.emit(tokOp, ")", p)
			return
		case c == '\\' && s.off+1 < len(s.src):
			lit.WriteString(s.src[s.off : s.off+2])
			if s.src[s.off+1] == '\n' {
				s.advance(1)
				s.newline()
			} else {
				s.advance(2)
			}
		case c == '\n':
			lit.WriteByte(c)
			s.newline()
		case (c == '{' || c == '}') && s.peek(1) == c:
			lit.WriteByte(c)
			s.advance(2)
		case c == '}':
			s.errorf(s.pos(), "f-string: single '}' is not allowed")
			s.advance(1)
		case c == '{':
			flush()
			s.advance(1)
			if !s.fstringField(p) {
				// Skip the rest of the line's f-string: one error, not a cascade.
				for s.off < len(s.src) && s.src[s.off] != '\n' && !closed() {
					s.advance(1)
				}
				if s.off < len(s.src) && closed() {
					s.advance(n)
				}
				s.emit(tokOp, ")", s.pos())
				return
			}
			litPos = s.pos()
		default:
			lit.WriteByte(c)
			s.advance(1)
		}
	}
}

// joinLiterals joins the string literal just scanned (its tokens from
// first on; an f-string's when f) with the literals right before it where
// either is an f-string: Python concatenates adjacent literals ("a" f"{x}"
// "b", across lines inside brackets), and plain strings alone the grammar
// joins. The result is one FStringFunc call: the literal text where the
// two meet is one argument.
func (s *scanner) joinLiterals(first int, f bool) {
	for first > 0 {
		prev := first - 1
		prevF := s.lastF.ok && s.lastF.end == prev
		if !f && !prevF {
			return // two plain strings, or nothing to join
		}
		if !prevF && s.toks[prev].Type != tokString {
			break
		}
		start := prev
		if prevF {
			start = s.lastF.start
		}
		left := s.asFString(start, prev+1)
		right := s.asFString(first, len(s.toks))
		if !wellFormedFString(left) || !wellFormedFString(right) {
			break // an f-string with errors (already reported) joins nothing
		}
		// left ends with its last literal and ")"; right starts with the
		// name, "(" and its first literal.
		mid := left[len(left)-2]
		mid.Value = goQuote(unquote(mid.Value) + unquote(right[2].Value))
		joined := append(append(append([]lexer.Token{}, left[:len(left)-2]...), mid), right[3:]...)
		s.toks = append(s.toks[:start], joined...)
		s.lastF.start, s.lastF.end, s.lastF.ok = start, len(s.toks)-1, true
		first, f = start, true
	}
	if f {
		s.lastF.start, s.lastF.end, s.lastF.ok = first, len(s.toks)-1, true
	}
}

// wellFormedFString reports whether toks are a whole FStringFunc call:
// name, "(", a literal, ..., a literal, ")".
func wellFormedFString(toks []lexer.Token) bool {
	n := len(toks)
	return n >= 4 && toks[0].Value == FStringFunc && toks[1].Value == "(" && toks[2].Type == tokString &&
		toks[n-2].Type == tokString && toks[n-1].Value == ")"
}

// asFString is the tokens [i, j) as an FStringFunc call: themselves when
// they are one, else (a plain string token) the call of its text alone.
func (s *scanner) asFString(i, j int) []lexer.Token {
	if j-i > 1 {
		return s.toks[i:j]
	}
	t := s.toks[i]
	return []lexer.Token{{Type: tokName, Value: FStringFunc, Pos: t.Pos}, {Type: tokOp, Value: "(", Pos: t.Pos},
		{Type: tokString, Value: goQuote(unquote(t.Value)), Pos: t.Pos}, {Type: tokOp, Value: ")", Pos: t.Pos}}
}

// fstringField scans one replacement field after its '{': the expression
// as ordinary tokens in parentheses, then its format spec as a string; it
// reports false when the field does not end on this line.
func (s *scanner) fstringField(p lexer.Position) bool {
	// The expression ends at the first ':', '!' (not '!=') or '}' outside
	// brackets and strings.
	depth, end := 0, -1
	for i := s.off; i < len(s.src) && end < 0; i++ {
		switch c := s.src[i]; {
		case c == '\n':
			s.errorf(s.pos(), "f-string: expression expected before the end of the line")
			return false
		case c == '(' || c == '[' || c == '{':
			depth++
		case (c == ')' || c == ']' || c == '}') && depth > 0:
			depth--
		case depth == 0 && (c == '}' || c == ':' || c == '!' && (i+1 >= len(s.src) || s.src[i+1] != '=')):
			end = i
		case c == '\'' || c == '"':
			for i++; i < len(s.src) && s.src[i] != c && s.src[i] != '\n'; i++ {
			}
			if i >= len(s.src) || s.src[i] == '\n' {
				s.errorf(s.pos(), "f-string: expecting '}'")
				return false
			}
		}
	}
	if end < 0 {
		s.errorf(s.pos(), "f-string: expecting '}'")
		return false
	}
	if strings.TrimSpace(s.src[s.off:end]) == "" {
		s.errorf(s.pos(), "f-string: empty expression not allowed")
	}
	s.emit(tokOp, ",", s.pos())
	s.emit(tokOp, "(", s.pos())
	// The expression's own tokens, scanned where they are in the file.
	full, brackets := s.src, s.brackets
	s.src, s.brackets = s.src[:end], nil
	for s.off < len(s.src) {
		if c := s.src[s.off]; c == ' ' || c == '\t' {
			s.advance(1)
		} else {
			s.token(c)
		}
	}
	if len(s.brackets) > 0 {
		s.errorf(s.brackets[0].pos, "f-string: '%c' was never closed", s.brackets[0].ch)
	}
	s.src, s.brackets = full, brackets
	s.emit(tokOp, ")", s.pos())
	conv := ""
	if s.src[s.off] == '!' {
		// A conversion: !r, !s or !a, then ':' or '}'.
		if c := s.peek(1); (c == 'r' || c == 's' || c == 'a') && (s.peek(2) == ':' || s.peek(2) == '}') {
			conv = string(c)
			s.advance(2)
		} else {
			s.advance(1)
			s.errorf(s.pos(), "f-string: invalid conversion character: expected 's', 'r', or 'a'")
			return false
		}
	}
	s.emit(tokOp, ",", s.pos())
	s.emit(tokString, goQuote(conv), s.pos())
	s.emit(tokOp, ",", s.pos())
	if s.off < len(s.src) && s.src[s.off] == ':' {
		s.advance(1)
		if !s.fstringSpec(p) {
			return false
		}
	} else {
		s.emit(tokString, goQuote(""), s.pos())
	}
	if s.off >= len(s.src) || s.src[s.off] != '}' {
		s.errorf(s.pos(), "f-string: expecting '}'")
		return false
	}
	s.emit(tokOp, ",", s.pos())
	s.advance(1)
	return true
}

// fstringSpec scans a replacement field's format spec, up to its closing
// '}' (not consumed): a string token, or, when the spec holds replacement
// fields of its own (`{x:{w}.{p}f}`), an FStringFunc call of them. It
// reports false when the spec does not end on this line.
func (s *scanner) fstringSpec(p lexer.Position) bool {
	start := s.off
	end := start
	for end < len(s.src) && s.src[end] != '}' && s.src[end] != '{' && s.src[end] != '\n' {
		end++
	}
	if end >= len(s.src) || s.src[end] != '{' {
		// No nested field: the spec is plain text.
		s.advance(end - start)
		s.emit(tokString, goQuote(s.src[start:end]), s.pos())
		return true
	}
	s.emit(tokName, FStringFunc, s.pos())
	s.emit(tokOp, "(", s.pos())
	var lit strings.Builder
	litPos := s.pos()
	for {
		if s.off >= len(s.src) || s.src[s.off] == '\n' {
			s.errorf(s.pos(), "f-string: expecting '}'")
			return false
		}
		switch c := s.src[s.off]; c {
		case '}':
			s.emit(tokString, goQuote(lit.String()), litPos)
			s.emit(tokOp, ")", s.pos())
			return true
		case '{':
			s.emit(tokString, goQuote(lit.String()), litPos)
			lit.Reset()
			s.advance(1)
			if !s.fstringField(p) {
				return false
			}
			litPos = s.pos()
		default:
			lit.WriteByte(c)
			s.advance(1)
		}
	}
}

// goQuote writes text as a double-quoted string token that unquote reads
// back as text.
func goQuote(text string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(text) + `"`
}

func (s *scanner) operator() {
	p := s.pos()
	rest := s.src[s.off:]
	for _, ops := range [][]string{operators3, operators2} {
		for _, op := range ops {
			if strings.HasPrefix(rest, op) {
				s.advance(len(op))
				if op == "**" {
					s.nest(p)
				}
				s.emit(tokOp, op, p)
				return
			}
		}
	}
	c := s.src[s.off]
	if strings.IndexByte(operators1, c) < 0 {
		r, size := utf8.DecodeRuneInString(rest)
		switch {
		case r == utf8.RuneError && size == 1:
			s.errorf(p, "invalid UTF-8 byte 0x%02x", c)
		case r < ' ' || r == 0x7f:
			s.errorf(p, "invalid character U+%04X", r)
		case r == '!':
			s.errorf(p, "invalid character '!' (use 'not')")
		default:
			s.errorf(p, "invalid character '%c' (U+%04X)", r, r)
		}
		s.advance(size)
		return
	}
	switch c {
	case '(', '[', '{':
		s.brackets = append(s.brackets, openBracket{c, p})
		s.checkNesting(p)
	case ')', ']', '}':
		open := map[byte]byte{')': '(', ']': '[', '}': '{'}[c]
		n := len(s.brackets)
		switch {
		case n == 0:
			s.errorf(p, "unmatched '%c'", c)
			s.advance(1)
			return
		case s.brackets[n-1].ch != open:
			s.errorf(p, "closing '%c' does not match opening '%c' on line %d", c, s.brackets[n-1].ch, s.brackets[n-1].pos.Line)
		}
		s.brackets = s.brackets[:n-1]
	case '-', '+', '~':
		if s.unaryPosition() {
			s.nest(p)
		}
	}
	s.advance(1)
	s.emit(tokOp, string(c), p)
}

// unaryPosition reports whether an operator at the current point would be a
// prefix operator: the previous token does not end an operand.
func (s *scanner) unaryPosition() bool {
	if !s.lineHasToks || len(s.toks) == 0 {
		return true
	}
	t := s.toks[len(s.toks)-1]
	switch t.Type {
	case tokName, tokInt, tokFloat, tokString:
		return false
	case tokKeyword:
		return t.Value != "True" && t.Value != "False" && t.Value != "None"
	case tokOp:
		return t.Value != ")" && t.Value != "]" && t.Value != "}"
	}
	return true
}
