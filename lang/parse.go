package lang

import (
	"errors"
	"fmt"
	"strings"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
)

// Parse parses one source file. It returns the file's AST (with Src set)
// and, when the file has mistakes, a non-nil ErrorList, sorted, holding
// every error it could find: all lexical errors, and the first syntax error
// of each top-level definition and, inside a def, of each statement that
// the parser could resynchronize after. With errors, the File still holds
// the top-level items that had none, and File.Broken names the others, so
// that the builder can report the independent errors of the rest of the
// file (File is nil only for a file too large to read). Parse never panics
// and its work is bounded (MaxSourceSize, and nesting limits), whatever
// the input.
func Parse(filename string, src []byte) (*File, error) {
	return parse(filename, src, false)
}

// ParseProgram is Parse for a whole cuTile program, what tilec's commands
// and compile.File read: the errors of its host code (a def without
// @ct.kernel, or a class) are kept in File.Deferred instead of failing the
// parse, so that a program whose host code uses Python tilec lacks
// (classes, lambda, with, comprehensions) still compiles its kernels. An
// error of a kernel, an import or a module-level statement still fails it.
func ParseProgram(filename string, src []byte) (*File, error) {
	return parse(filename, src, true)
}

func parse(filename string, src []byte, deferHost bool) (*File, error) {
	p := &parser{src: &Source{Name: filename, Text: string(src)}, file: filename, deferHost: deferHost}
	if len(src) > MaxSourceSize {
		p.errorf(Pos{File: filename, Line: 1, Col: 1}, "file too large (%d bytes; the limit is %d)", len(src), MaxSourceSize)
		return nil, p.errs.Err()
	}
	f := p.parseFile()
	p.errs.Sort()
	if len(p.errs) > maxErrors {
		e := p.errs[maxErrors]
		p.errs = append(p.errs[:maxErrors], &Error{Pos: e.Pos, Msg: tooManyErrors, LineText: e.LineText})
	}
	if len(p.errs) > 0 {
		return f, p.errs
	}
	return f, nil
}

// tooManyErrors is the message of the last error Parse keeps when it
// found more than maxErrors.
const tooManyErrors = "too many errors"

type parser struct {
	src  *Source
	file string
	errs ErrorList
	// parens maps a parenthesized expression to its '('.
	parens map[Expr]Pos
	// endedEarly is set when the previous chunk's error was at its end.
	endedEarly bool
	// deferHost keeps the errors of host items in File.Deferred
	// (ParseProgram).
	deferHost bool
}

func (p *parser) errorf(pos Pos, format string, args ...any) {
	if len(p.errs) > 2*maxErrors {
		return
	}
	p.errs.Add(p.src.Errorf(pos, format, args...))
}

func toPos(lp lexer.Position) Pos {
	return Pos{File: lp.Filename, Line: lp.Line, Col: lp.Column, Offset: lp.Offset}
}

// chunk is one top-level item: its decorators, def and body, or one
// top-level statement. Each chunk is parsed on its own so that an error in
// one does not hide the errors of the next.
type chunk struct {
	toks  []lexer.Token // without EOF
	start int           // source offset where the chunk begins
	end   int           // source offset where the next chunk begins
	next  lexer.Token   // the token after the chunk (EOF for the last)
}

func (p *parser) parseFile() (f *File) {
	f = &File{Src: p.src}
	defer func() {
		// A panic here is a bug in tilec, not in the user's program; it is
		// still reported as an error so that a caller is never brought down.
		if r := recover(); r != nil {
			p.errorf(Pos{File: p.file, Line: 1, Col: 1}, "internal error in parser: %v", r)
		}
	}()
	toks, lexErrs := lex(p.file, p.src.Text)
	chunks := splitChunks(toks)
	// A script's `if __name__ == "__main__":` block runs only when Python
	// runs the file as a program: tilec skips it whole, errors included,
	// so that a cuTile program's test driver need not be removed.
	var kept []chunk
	for _, c := range chunks {
		if !isMainGuard(c) {
			kept = append(kept, c)
			continue
		}
		var rest, inside []*lexError
		for _, e := range lexErrs {
			if e.pos.Offset < c.start || e.pos.Offset >= c.end {
				rest = append(rest, e)
			} else {
				inside = append(inside, e)
			}
		}
		lexErrs = rest
		if f.Main == nil && f.MainErr == nil {
			f.Main, f.MainErr = p.parseMain(c, inside)
		}
	}
	for _, e := range lexErrs {
		p.errorf(toPos(e.pos), "%s", e.msg)
	}
	for _, c := range kept {
		nerrs := len(p.errs)
		var part *File
		if !overlapsErrors(c, lexErrs) {
			endedEarly := p.endedEarly
			p.endedEarly = false
			if g := p.parseChunk(c); g != nil {
				if endedEarly && len(g.Stmts) > 0 && g.Stmts[0].Simple != nil {
					g.Stmts = g.Stmts[1:]
				}
				part = &File{}
				p.convFile(part, g)
			}
		}
		if part != nil && len(p.errs) == nerrs {
			f.Imports = append(f.Imports, part.Imports...)
			f.Globals = append(f.Globals, part.Globals...)
			f.Funcs = append(f.Funcs, part.Funcs...)
			for _, cd := range part.Classes {
				f.Classes = append(f.Classes, cd)
				if f.Deferred == nil {
					f.Deferred = map[string]error{}
				}
				if _, dup := f.Deferred[cd.Name]; !dup {
					f.Deferred[cd.Name] = &HostOnlyError{Name: cd.Name, Pos: cd.NamePos}
				}
			}
			continue
		}
		// An item with errors (its own, or lexical ones inside it) is
		// dropped whole: half of a def would give errors of its own.
		names, known := definedNames(c.toks)
		if name, ok := hostItem(c.toks); ok && p.deferHost && len(p.errs) > nerrs {
			// Host code: its errors wait for a use (File.Deferred).
			var own ErrorList
			own = append(own, p.errs[nerrs:]...)
			p.errs = p.errs[:nerrs]
			if f.Deferred == nil {
				f.Deferred = map[string]error{}
			}
			if _, dup := f.Deferred[name]; !dup {
				own.Sort()
				f.Deferred[name] = own
			}
			continue
		}
		if !known {
			f.BrokenUnknown = true
		}
		for _, n := range names {
			if f.Broken == nil {
				f.Broken = map[string]Pos{}
			}
			if _, ok := f.Broken[n]; !ok {
				f.Broken[n] = toPos(c.toks[0].Pos)
			}
		}
	}
	return f
}

// hostItem reports whether a top-level item is host code, whose errors are
// deferred: a def with no decorator naming kernel (@ct.kernel,
// @ct.kernel(...), @kernel) or a class; name is what it defines. Lexical
// errors inside it stay fatal (they are reported before items are parsed).
func hostItem(toks []lexer.Token) (name string, ok bool) {
	i, kernel := skipDecorators(toks)
	if kernel {
		return "", false
	}
	if i+1 < len(toks) && toks[i].Type == tokKeyword && (toks[i].Value == "def" || toks[i].Value == "class") && toks[i+1].Type == tokName {
		return toks[i+1].Value, true
	}
	return "", false
}

// skipDecorators returns the index of the first token after an item's
// decorator lines, and whether one of them names kernel (@ct.kernel,
// @ct.kernel(...), @kernel).
func skipDecorators(toks []lexer.Token) (i int, kernel bool) {
	for i < len(toks) && toks[i].Value == "@" {
		for i < len(toks) && toks[i].Type != tokNewline {
			kernel = kernel || toks[i].Type == tokName && toks[i].Value == "kernel"
			i++
		}
		i++
	}
	return i, kernel
}

// definedNames reads, from the tokens of a top-level item that has errors,
// the names it would have bound: a def's name (after its decorators), the
// names of an import, the targets of an assignment. known is false when the
// item is none of these, or too mangled to tell.
func definedNames(toks []lexer.Token) (names []string, known bool) {
	i, _ := skipDecorators(toks)
	at := func(j int) lexer.Token {
		if j < len(toks) {
			return toks[j]
		}
		return lexer.Token{Type: tokEOF}
	}
	switch t := at(i); {
	case t.Type == tokKeyword && (t.Value == "def" || t.Value == "class"):
		if n := at(i + 1); n.Type == tokName {
			return []string{n.Value}, true
		}
		return nil, false
	case t.Type == tokKeyword && (t.Value == "import" || t.Value == "from"):
		// import a.b as c, d  -> c, d;  from m import x as y, z  -> y, z
		j := i + 1
		if t.Value == "from" {
			for j < len(toks) && at(j).Value != "import" && at(j).Type != tokNewline {
				j++
			}
			j++
		}
		for j < len(toks) && at(j).Type != tokNewline {
			if at(j).Value == "(" || at(j).Value == ")" {
				j++
				continue
			}
			if at(j).Type != tokName {
				return names, false
			}
			name := at(j).Value
			for j++; at(j).Value == "."; j += 2 {
				if t.Value == "from" {
					return names, false
				}
			}
			if at(j).Value == "as" {
				if at(j+1).Type != tokName {
					return names, false
				}
				name = at(j + 1).Value
				j += 2
			}
			names = append(names, name)
			if at(j).Value == "," {
				j++
			}
		}
		return names, len(names) > 0
	case t.Type == tokName:
		// a = ..., a, b = ..., a: T = ...
		for j := i; j < len(toks); j += 2 {
			if at(j).Type != tokName {
				return nil, false
			}
			names = append(names, at(j).Value)
			switch at(j + 1).Value {
			case "=", ":":
				return names, true
			case ",":
			default:
				return nil, false
			}
		}
	}
	return nil, false
}

// splitChunks cuts the token stream at every logical line that starts at
// indentation level 0, except the line after a decorator.
func splitChunks(toks []lexer.Token) []chunk {
	var chunks []chunk
	depth := 0
	begin := 0
	afterDecorator := false
	lineStart := true
	for i, t := range toks {
		if t.Type == tokEOF {
			break
		}
		if lineStart && depth == 0 && t.Type != tokDedent && t.Type != tokIndent {
			if i > begin && !afterDecorator {
				chunks = append(chunks, chunk{toks: toks[begin:i]})
				begin = i
			}
			afterDecorator = t.Value == "@"
		}
		switch t.Type {
		case tokIndent:
			depth++
		case tokDedent:
			depth--
		}
		lineStart = t.Type == tokNewline || t.Type == tokIndent || t.Type == tokDedent
	}
	eof := toks[len(toks)-1]
	if len(toks)-1 > begin {
		chunks = append(chunks, chunk{toks: toks[begin : len(toks)-1]})
	}
	for i := range chunks {
		if i+1 < len(chunks) {
			chunks[i].next = chunks[i+1].toks[0]
			chunks[i].end = chunks[i].next.Pos.Offset
			chunks[i+1].start = chunks[i].end
		} else {
			chunks[i].next = eof
			chunks[i].end = int(^uint(0) >> 1)
		}
	}
	return chunks
}

func overlapsErrors(c chunk, errs []*lexError) bool {
	for _, e := range errs {
		if e.pos.Offset >= c.start && e.pos.Offset < c.end {
			return true
		}
	}
	return false
}

// maxRecoveries bounds the re-parses of one chunk after syntax errors, and
// maxRecoveryTokens the tokens they may parse in all.
const (
	maxRecoveries     = 20
	maxRecoveryTokens = 200_000
)

// parseChunk parses one chunk. On a syntax error it reports it, patches the
// token stream around the error (see recoverAt) and parses again, to find
// the errors of later statements; it returns nil when the chunk had errors.
func (p *parser) parseChunk(c chunk) *gFile {
	toks := append([]lexer.Token(nil), c.toks...)
	lastErr := -1
	failed := false
	for attempt := range maxRecoveries {
		if attempt*len(toks) > maxRecoveryTokens {
			return nil
		}
		eof := lexer.Token{Type: tokEOF, Pos: c.next.Pos}
		g, err := grammar.ParseFromLexer(mustUpgrade(append(toks, eof)))
		if err == nil {
			if failed {
				// Only the conversion's errors are wanted: the tokens were patched.
				p.convFile(&File{}, g)
				return nil
			}
			return g
		}
		failed = true
		i, expect := errorToken(toks, err)
		if i < 0 || (i < len(toks) && toks[i].Pos.Offset <= lastErr) {
			return nil
		}
		if i < len(toks) {
			lastErr = toks[i].Pos.Offset
		} else {
			lastErr = int(^uint(0) >> 1)
		}
		tok := eof
		if i < len(toks) {
			tok = toks[i]
		}
		if len(p.errs) <= 2*maxErrors {
			p.errs.Add(p.syntaxError(c, toks, i, tok, expect))
		}
		// A chunk that ends early (a def without its indented body) makes
		// the next line look like a top-level statement: say it once.
		p.endedEarly = i == len(toks)
		if toks = recoverAt(toks, i, expect); toks == nil {
			return nil
		}
	}
	return nil
}

func mustUpgrade(toks []lexer.Token) *lexer.PeekingLexer {
	pl, err := lexer.Upgrade(&tokenStream{toks: toks})
	if err != nil {
		panic(err) // tokenStream never fails
	}
	return pl
}

// errorToken finds the index in toks of the token a participle error is
// about (len(toks) for the end of the chunk), and what the grammar expected
// there, in participle's EBNF ("" when unknown).
func errorToken(toks []lexer.Token, err error) (int, string) {
	var perr participle.Error
	if !errors.As(err, &perr) {
		return -1, ""
	}
	expect := ""
	var ute *participle.UnexpectedTokenError
	if errors.As(err, &ute) {
		if msg := ute.Message(); strings.HasSuffix(msg, ")") {
			if j := strings.Index(msg, " (expected "); j >= 0 {
				expect = msg[j+len(" (expected ") : len(msg)-1]
			}
		}
		if ute.Unexpected.Type == tokEOF {
			return len(toks), expect
		}
		for i, t := range toks {
			if t.Pos.Offset == ute.Unexpected.Pos.Offset && t.Type == ute.Unexpected.Type {
				return i, expect
			}
		}
	}
	off := perr.Position().Offset
	for i, t := range toks {
		if t.Pos.Offset >= off {
			return i, expect
		}
	}
	return len(toks), expect
}

// recoverAt patches the tokens so that parsing can go past the error at
// toks[i]; it returns nil when it cannot.
//   - an unexpected INDENT is removed with its matching DEDENT;
//   - a missing indented block gets `pass`;
//   - any other erroneous logical line inside a block becomes `pass`, or
//     `if True:` when it heads a block, so that its body is still checked.
//
// Errors on a def's own header (or at the end of the chunk) end the chunk.
func recoverAt(toks []lexer.Token, i int, expect string) []lexer.Token {
	if i >= len(toks) {
		return nil
	}
	t := toks[i]
	mk := func(typ lexer.TokenType, v string) lexer.Token { return lexer.Token{Type: typ, Value: v, Pos: t.Pos} }
	switch {
	case t.Type == tokIndent:
		depth := 0
		for j := i; j < len(toks); j++ {
			switch toks[j].Type {
			case tokIndent:
				depth++
			case tokDedent:
				depth--
				if depth == 0 {
					out := append([]lexer.Token(nil), toks[:i]...)
					out = append(out, toks[i+1:j]...)
					return append(out, toks[j+1:]...)
				}
			}
		}
		return nil
	case strings.HasPrefix(expect, "<indent>"):
		out := append([]lexer.Token(nil), toks[:i]...)
		out = append(out, mk(tokIndent, indentValue), mk(tokKeyword, "pass"), mk(tokNewline, newlineValue), mk(tokDedent, dedentValue))
		return append(out, toks[i:]...)
	case t.Type == tokDedent:
		return nil
	}
	start := lineStart(toks, i)
	if start == 0 || toks[start].Value == "def" || toks[start].Value == "@" {
		return nil
	}
	end := i
	for end < len(toks) && toks[end].Type != tokNewline {
		end++
	}
	if end >= len(toks) {
		return nil
	}
	at := toks[start].Pos
	mkAt := func(typ lexer.TokenType, v string) lexer.Token { return lexer.Token{Type: typ, Value: v, Pos: at} }
	repl := []lexer.Token{mkAt(tokKeyword, "pass"), mkAt(tokNewline, newlineValue)}
	if end+1 < len(toks) && toks[end+1].Type == tokIndent {
		repl = []lexer.Token{mkAt(tokKeyword, "if"), mkAt(tokKeyword, "True"), mkAt(tokOp, ":"), mkAt(tokNewline, newlineValue)}
	}
	out := append([]lexer.Token(nil), toks[:start]...)
	out = append(out, repl...)
	return append(out, toks[end+1:]...)
}

// lineStart returns the index of the first token of the logical line that
// holds toks[i].
func lineStart(toks []lexer.Token, i int) int {
	for i > 0 {
		switch toks[i-1].Type {
		case tokNewline, tokIndent, tokDedent:
			return i
		}
		i--
	}
	return 0
}

// Keywords that start statements tilec does not support.
var unsupportedStmts = map[string]bool{
	"try": true, "except": true, "finally": true, "raise": true, "del": true, "global": true,
	"nonlocal": true, "yield": true, "async": true, "await": true,
}

// Keywords tilec does not support inside expressions.
var unsupportedExprs = map[string]bool{"yield": true, "await": true}

// syntaxError turns a participle error at toks[i] (tok; EOF when i ==
// len(toks)) into a readable message.
func (p *parser) syntaxError(c chunk, toks []lexer.Token, i int, tok lexer.Token, expect string) *Error {
	pos := toPos(tok.Pos)
	err := func(format string, args ...any) *Error { return p.src.Errorf(pos, format, args...) }
	if tok.Type == tokIndent {
		return err("unexpected indent")
	}
	if strings.HasPrefix(expect, "<indent>") && i > 1 {
		h := toks[lineStart(toks, i-1)]
		return err("expected an indented block after %s on line %d", headerName(h.Value), h.Pos.Line)
	}
	start := lineStart(toks, min(i, len(toks)))
	if strings.HasPrefix(expect, `":"`) && start < len(toks) {
		switch h := toks[start].Value; h {
		case "def":
			return err("expected ':' after function signature")
		case "class":
			return err("expected ':' after class header")
		case "for":
			return err("expected ':' after for header")
		case "if", "elif":
			return err("expected ':' after %s condition", h)
		case "else":
			return err("expected ':' after 'else'")
		}
		return err("expected ':'")
	}
	if start < len(toks) && toks[start].Value == "for" && i > start {
		switch {
		case i == start+1:
			return err("expected a loop variable after 'for'")
		case tok.Value != "in" && !hasToken(toks[start:i], "in"):
			return err("expected 'in' after the loop variable")
		}
	}
	switch open := innermostBracket(toks, start, i); {
	case open == "[" && tok.Value == ":":
		return err("slices with bounds are not supported (only the full slice, as in t[:, None])")
	case tok.Value == "[" && strings.HasPrefix(expected(expect), ", expected an expression"):
		return err("lists are not supported; use a tuple")
	}
	if start+1 == i && start < len(toks) && toks[start].Value == "class" && (tok.Value == "=" || tok.Value == ",") {
		// `class = 1`: the keyword is the mistake, not the '='.
		return p.src.Errorf(toPos(toks[start].Pos), "keyword 'class' cannot be used as a name")
	}
	if tok.Type == tokKeyword {
		atStart := start == i
		next := ""
		if i+1 < len(toks) {
			next = toks[i+1].Value
		}
		prev := ""
		if i > 0 {
			prev = toks[i-1].Value
		}
		inDefHeader := start < len(toks) && (toks[start].Value == "def" || toks[start].Value == "class")
		switch {
		case atStart && (tok.Value == "else" || tok.Value == "elif"):
			return err("'%s' without a matching 'if'", tok.Value)
		case atStart && (next == "=" || next == ","),
			prev == "def" || prev == "." || prev == "as" || prev == "import" || prev == "from",
			(prev == "(" || prev == ",") && (inDefHeader || next == "="):
			return err("keyword '%s' cannot be used as a name", tok.Value)
		case atStart && unsupportedStmts[tok.Value]:
			return err("'%s' statements are not supported", tok.Value)
		case unsupportedExprs[tok.Value]:
			return err("'%s' is not supported in expressions", tok.Value)
		}
		return err("unexpected keyword '%s'%s", tok.Value, expected(expect))
	}
	if tok.Type == tokEOF && c.next.Type != tokEOF {
		// The chunk ended early: the real culprit is the next top-level line.
		return err("unexpected %s%s", describe(c.next), expected(expect))
	}
	if i > start && endsOperand(toks[i-1]) && startsOperand(tok) {
		return err("unexpected %s (missing ',' or operator?)", describe(tok))
	}
	return err("unexpected %s%s", describe(tok), expected(expect))
}

func endsOperand(t lexer.Token) bool {
	switch t.Type {
	case tokName, tokInt, tokFloat, tokString:
		return true
	case tokKeyword:
		return t.Value == "True" || t.Value == "False" || t.Value == "None"
	}
	return t.Value == ")" || t.Value == "]"
}

func startsOperand(t lexer.Token) bool {
	switch t.Type {
	case tokName, tokInt, tokFloat, tokString:
		return true
	}
	return false
}

func hasToken(toks []lexer.Token, value string) bool {
	for _, t := range toks {
		if t.Value == value && t.Type != tokString {
			return true
		}
	}
	return false
}

// innermostBracket returns the innermost bracket still open at toks[i], looking
// back to the start of its logical line ("" if none).
func innermostBracket(toks []lexer.Token, start, i int) string {
	depth := 0
	for j := min(i, len(toks)) - 1; j >= start; j-- {
		if toks[j].Type != tokOp {
			continue
		}
		switch toks[j].Value {
		case ")", "]", "}":
			depth++
		case "(", "[", "{":
			if depth == 0 {
				return toks[j].Value
			}
			depth--
		}
	}
	return ""
}

func headerName(kw string) string {
	switch kw {
	case "def":
		return "function definition"
	case "class":
		return "class definition"
	case "for", "if", "elif", "else":
		return "'" + kw + "' statement"
	}
	return "'" + kw + "'"
}

// describe names a token for a message.
func describe(t lexer.Token) string {
	switch t.Type {
	case tokEOF:
		return "end of file"
	case tokNewline:
		return "end of line"
	case tokIndent:
		return "indent"
	case tokDedent:
		return "dedent"
	case tokName:
		return fmt.Sprintf("name '%s'", t.Value)
	case tokInt, tokFloat:
		return fmt.Sprintf("number %s", t.Value)
	case tokString:
		v := t.Value
		if len(v) > 20 {
			v = v[:17] + "..."
		}
		v = strings.ReplaceAll(v, "\n", `\n`)
		return "string " + v
	case tokKeyword:
		return fmt.Sprintf("keyword '%s'", t.Value)
	}
	return fmt.Sprintf("token '%s'", t.Value)
}

// expected renders what the grammar wanted next, from participle's EBNF of
// the rest of the failed sequence: only its first element matters.
func expected(expect string) string {
	if expect == "" {
		return ""
	}
	first := strings.TrimPrefix(expect, "(")
	if strings.HasPrefix(first, `"`) {
		if j := strings.Index(first[1:], `"`); j >= 0 {
			return fmt.Sprintf(", expected '%s'", first[1:j+1])
		}
	}
	if j := strings.IndexAny(first, " ()*?+|"); j > 0 {
		first = first[:j]
	}
	switch first {
	case "GName", "<name>", "GNameAlias":
		return ", expected a name"
	case "GDottedAlias":
		return ", expected a module name"
	case "<newline>":
		return ", expected end of line"
	case "GTest", "GTestList", "GBinary", "GOperand", "GPower", "GPrimary", "GAtom", "GExprList":
		return ", expected an expression"
	case "GSuite":
		return ", expected a statement"
	case "GFuncDef":
		return ", expected 'def' after decorator"
	}
	return ""
}

// parseMain reads the body of an `if __name__ == "__main__":` chunk as
// the body of `def __main__():`, its header tokens replaced one for one so
// that every position stays the source's. Its errors (lexErrs are those
// inside the chunk) are its own: a separate parser collects them.
func (p *parser) parseMain(c chunk, lexErrs []*lexError) (*FuncDef, error) {
	q := &parser{src: p.src, file: p.file}
	for _, e := range lexErrs {
		q.errorf(toPos(e.pos), "%s", e.msg)
	}
	header, _ := lex(p.file, "def __main__():")
	toks := append([]lexer.Token(nil), c.toks...)
	for i := range 5 {
		pos := toks[i].Pos
		toks[i] = header[i]
		toks[i].Pos = pos
	}
	var def *FuncDef
	if len(lexErrs) == 0 {
		if g := q.parseChunk(chunk{toks: toks, start: c.start, end: c.end, next: c.next}); g != nil {
			part := &File{}
			q.convFile(part, g)
			if len(part.Funcs) == 1 {
				def = part.Funcs[0]
			}
		}
	}
	q.errs.Sort()
	if err := q.errs.Err(); err != nil {
		return nil, err
	}
	return def, nil
}

// isMainGuard reports whether a top-level chunk is an
// `if __name__ == "__main__":` block (either operand order).
func isMainGuard(c chunk) bool {
	t := c.toks
	if len(t) < 5 || t[0].Value != "if" || t[2].Value != "==" || t[4].Value != ":" {
		return false
	}
	isName := func(x lexer.Token) bool { return x.Type == tokName && x.Value == "__name__" }
	isMain := func(x lexer.Token) bool {
		return x.Type == tokString && (x.Value == `"__main__"` || x.Value == `'__main__'`)
	}
	return isName(t[1]) && isMain(t[3]) || isMain(t[1]) && isName(t[3])
}
