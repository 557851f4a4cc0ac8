package lang

import (
	"io"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
)

// The participle grammar. Each struct is one rule; the EBNF above it is the
// rule it implements (grammar_test.go pins participle's own rendering in
// testdata/grammar.ebnf). The structs stay unexported: parse.go converts
// them into the AST of ast.go, which is the package's contract.
//
// Tokens come from lexer.go: Name, Keyword, Int, Float, String, Op and the
// layout tokens Newline, Indent and Dedent. A literal such as "def" or ":"
// matches a token by its text.
//
// Operator precedence, loosest first (Python's, without chained comparisons;
// see binPrec in convert.go):
//
//	x if c else y | or | and | not | == != < <= > >= | '|' | ^ | & | << >> |
//	+ - | * / // % @ | unary - + ~ | ** (right-associative) | primary

// Note: `x+` is written `x x*` where x may fail after consuming tokens:
// participle forgets the deepest error of a `+` group that matched nothing,
// and that error is the one the user needs to see.

// file = { stmt } .
type gFile struct {
	Stmts []*gStmt `parser:"@@*"`
}

// stmt = decorated | funcDef | classDef | forStmt | whileStmt | withStmt | ifStmt | simpleStmt .
type gStmt struct {
	Pos       lexer.Position
	Decorated *gDecorated  `parser:"  @@"`
	Def       *gFuncDef    `parser:"| @@"`
	Class     *gClassDef   `parser:"| @@"`
	For       *gFor        `parser:"| @@"`
	While     *gWhile      `parser:"| @@"`
	With      *gWith       `parser:"| @@"`
	If        *gIf         `parser:"| @@"`
	Simple    *gSimpleStmt `parser:"| @@"`
}

// withStmt = "with" withItem { "," withItem } ":" suite .
type gWith struct {
	Pos   lexer.Position
	Items []*gWithItem `parser:"'with' @@ ( ',' @@ )*"`
	Body  *gSuite      `parser:"':' @@"`
}

// withItem = test [ "as" Name ] .
type gWithItem struct {
	X     *gTest         `parser:"@@"`
	AsPos lexer.Position `parser:"( 'as'"`
	As    string         `parser:"  @Name )?"`
}

// whileStmt = "while" test ":" suite .
type gWhile struct {
	Pos  lexer.Position
	Cond *gTest  `parser:"'while' @@"`
	Body *gSuite `parser:"':' @@"`
}

// decorated = decorator { decorator } ( funcDef | classDef ) .
type gDecorated struct {
	Decorators []*gDecorator `parser:"@@ @@*"`
	Def        *gFuncDef     `parser:"( @@"`
	Class      *gClassDef    `parser:"| @@ )"`
}

// classDef = "class" name [ "(" [ arg { "," arg } [ "," ] ] ")" ] ":" suite .
//
// The bases are call arguments so that a keyword (metaclass=) or a
// starred base parses, for convert.go to refuse with a clear message.
type gClassDef struct {
	Pos   lexer.Position
	Name  *gName  `parser:"'class' @@"`
	Paren bool    `parser:"( @'('"`
	Bases []*gArg `parser:"  ( @@ ( ',' @@ )* ','? )? ')' )?"`
	Body  *gSuite `parser:"':' @@"`
}

// decorator = "@" test Newline .
type gDecorator struct {
	Pos lexer.Position
	X   *gTest `parser:"'@' @@ Newline"`
}

// funcDef = "def" name "(" [ param { "," param } [ "," ] ] ")" [ "->" test ] ":" suite .
type gFuncDef struct {
	Pos     lexer.Position
	Name    *gName    `parser:"'def' @@"`
	Params  []*gParam `parser:"'(' ( @@ ( ',' @@ )* ','? )? ')'"`
	Returns *gTest    `parser:"( '->' @@ )?"`
	Body    *gSuite   `parser:"':' @@"`
}

// name = Name .
type gName struct {
	Pos  lexer.Position
	Name string `parser:"@Name"`
}

// param = Name [ ":" test ] [ "=" test ] .
type gParam struct {
	Pos     lexer.Position
	Name    string `parser:"@Name"`
	Annot   *gTest `parser:"( ':' @@ )?"`
	Default *gTest `parser:"( '=' @@ )?"`
}

// suite = Newline Indent stmt { stmt } Dedent | simpleStmt .
type gSuite struct {
	Block  []*gStmt     `parser:"  Newline Indent @@+ Dedent"`
	Simple *gSimpleStmt `parser:"| @@"`
}

// forStmt = "for" targetList "in" testList ":" suite .
type gFor struct {
	Pos    lexer.Position
	Target *gTargetList `parser:"'for' @@"`
	Iter   *gTestList   `parser:"'in' @@"`
	Body   *gSuite      `parser:"':' @@"`
}

// ifStmt = "if" test ":" suite { elif } [ "else" ":" suite ] .
type gIf struct {
	Pos   lexer.Position
	Cond  *gTest   `parser:"'if' @@"`
	Then  *gSuite  `parser:"':' @@"`
	Elifs []*gElif `parser:"@@*"`
	Else  *gSuite  `parser:"( 'else' ':' @@ )?"`
}

// elif = "elif" test ":" suite .
type gElif struct {
	Pos  lexer.Position
	Cond *gTest  `parser:"'elif' @@"`
	Body *gSuite `parser:"':' @@"`
}

// simpleStmt = smallStmt { ";" smallStmt } [ ";" ] Newline .
type gSimpleStmt struct {
	Stmts []*gSmallStmt `parser:"@@ ( ';' @@ )* ';'? Newline"`
}

// smallStmt = "pass" | "break" | "continue" | assertStmt | returnStmt | importStmt | fromImport | exprStmt .
type gSmallStmt struct {
	Pos      lexer.Position
	Pass     bool       `parser:"  @'pass'"`
	Break    bool       `parser:"| @'break'"`
	Continue bool       `parser:"| @'continue'"`
	Assert   *gAssert   `parser:"| @@"`
	Return   *gReturn   `parser:"| @@"`
	Raise    *gRaise    `parser:"| @@"`
	Import   *gImport   `parser:"| @@"`
	From     *gFrom     `parser:"| @@"`
	Expr     *gExprStmt `parser:"| @@"`
}

// assertStmt = "assert" test [ "," test ] .
type gAssert struct {
	Cond *gTest `parser:"'assert' @@"`
	Msg  *gTest `parser:"( ',' @@ )?"`
}

// returnStmt = "return" [ testList ] .
type gReturn struct {
	Pos   lexer.Position
	Kw    string     `parser:"@'return'"`
	Value *gTestList `parser:"@@?"`
}

// raiseStmt = "raise" [ test ] .
type gRaise struct {
	Kw  string `parser:"@'raise'"`
	Exc *gTest `parser:"@@?"`
}

// importStmt = "import" dottedAlias { "," dottedAlias } .
type gImport struct {
	Names []*gDottedAlias `parser:"'import' @@ ( ',' @@ )*"`
}

// dottedAlias = Name { "." Name } [ "as" Name ] .
type gDottedAlias struct {
	Pos   lexer.Position
	Path  []string `parser:"@Name ( '.' @Name )*"`
	Alias string   `parser:"( 'as' @Name )?"`
}

// fromImport = "from" { "." | "..." } [ Name { "." Name } ] "import" nameAlias { "," nameAlias } .
//
// The dots make a relative import (`from .utils import f`, `from . import
// m`), of a sibling module of the program's file.
type gFrom struct {
	Dots   []string      `parser:"'from' @( '.' | '...' )*"`
	Module []string      `parser:"( @Name ( '.' @Name )* )?"`
	Names  []*gNameAlias `parser:"'import' @@ ( ',' @@ )*"`
}

// nameAlias = Name [ "as" Name ] .
type gNameAlias struct {
	Pos   lexer.Position
	Name  string `parser:"@Name"`
	Alias string `parser:"( 'as' @Name )?"`
}

// exprStmt = testList [ augOp testList | annotation | assign { assign } ] .
// augOp = "+=" | "-=" | "*=" | "/=" | "//=" | "%=" | "**=" | "@=" | "&=" | "|=" | "^=" | "<<=" | ">>=" .
type gExprStmt struct {
	Pos      lexer.Position
	X        *gTestList   `parser:"@@"`
	AugOp    string       `parser:"( @( '+=' | '-=' | '*=' | '/=' | '//=' | '%=' | '**=' | '@=' | '&=' | '|=' | '^=' | '<<=' | '>>=' )"`
	AugValue *gTestList   `parser:"  @@"`
	Annot    *gAnnotation `parser:"| @@"`
	Assign   []*gAssign   `parser:"| @@ @@* )?"`
}

// annotation = ":" test [ "=" testList ] .
type gAnnotation struct {
	Pos   lexer.Position
	Type  *gTest     `parser:"':' @@"`
	Value *gTestList `parser:"( '=' @@ )?"`
}

// assign = "=" testList .
type gAssign struct {
	Pos lexer.Position
	X   *gTestList `parser:"'=' @@"`
}

// testList = test { "," test } [ "," ] .
type gTestList struct {
	Pos      lexer.Position
	Elems    []*gTest `parser:"@@ ( ',' @@ )*"`
	Trailing bool     `parser:"@','?"`
}

// targetList = target { "," target } [ "," ] .
//
// A for loop's (or a comprehension's) target: what comes before its "in".
type gTargetList struct {
	Pos      lexer.Position
	Elems    []*gTarget `parser:"@@ ( ',' @@ )*"`
	Trailing bool       `parser:"@','?"`
}

// target = operand { targetOp operand } .
//
// A binary expression without "in" and "not in", which would swallow the
// loop's own "in"; the builder of the AST refuses any target that is not
// a name or a tuple of names, with a message better than a syntax error.
type gTarget struct {
	X    *gOperand    `parser:"@@"`
	Rest []*gTargetOp `parser:"@@*"`
}

// targetOp = binOp without "in" and "not in" .
type gTargetOp struct {
	Pos lexer.Position
	Op  string    `parser:"@( 'or' | 'and' | '==' | '!=' | '<=' | '>=' | '<' | '>' | 'is' 'not' | 'is' | '|' | '^' | '&' | '<<' | '>>' | '+' | '-' | '*' | '/' | '//' | '%' | '@' )"`
	Y   *gOperand `parser:"@@"`
}

// test = lambda | binary [ "if" binary "else" test ] .
type gTest struct {
	Pos    lexer.Position
	Lambda *gLambda `parser:"  @@"`
	X      *gBinary `parser:"| @@"`
	Cond   *gBinary `parser:"( 'if' @@"`
	Else   *gTest   `parser:"  'else' @@ )?"`
}

// lambda = "lambda" [ lambdaParam { "," lambdaParam } [ "," ] ] ":" test .
type gLambda struct {
	Pos    lexer.Position
	Params []*gLambdaParam `parser:"'lambda' ( @@ ( ',' @@ )* ','? )?"`
	Body   *gTest          `parser:"':' @@"`
}

// lambdaParam = Name [ "=" test ] .
type gLambdaParam struct {
	Pos     lexer.Position
	Name    string `parser:"@Name"`
	Default *gTest `parser:"( '=' @@ )?"`
}

// binary = operand { binOp operand } .
//
// Binary operators are parsed flat and grouped by precedence in convert.go
// (precedence climbing): one grammar level instead of ten keeps the parser
// fast and shallow.
type gBinary struct {
	X    *gOperand `parser:"@@"`
	Rest []*gBinOp `parser:"@@*"`
}

// binOp = "or" | "and" | "==" | "!=" | "<=" | ">=" | "<" | ">" | "is" "not" | "is" | "not" "in" | "in"
//
//	| "|" | "^" | "&" | "<<" | ">>" | "+" | "-" | "*" | "/" | "//" | "%" | "@" .
type gBinOp struct {
	Pos lexer.Position
	Op  string    `parser:"@( 'or' | 'and' | '==' | '!=' | '<=' | '>=' | '<' | '>' | 'is' 'not' | 'is' | 'not' 'in' | 'in' | '|' | '^' | '&' | '<<' | '>>' | '+' | '-' | '*' | '/' | '//' | '%' | '@' )"`
	Y   *gOperand `parser:"@@"`
}

// operand = { prefix } power .
type gOperand struct {
	Prefixes []*gPrefix `parser:"@@*"`
	X        *gPower    `parser:"@@"`
}

// prefix = "not" | "-" | "+" | "~" .
type gPrefix struct {
	Pos lexer.Position
	Op  string `parser:"@( 'not' | '-' | '+' | '~' )"`
}

// power = primary [ "**" operand ] .
type gPower struct {
	X   *gPrimary `parser:"@@"`
	Exp *gPowOp   `parser:"@@?"`
}

type gPowOp struct {
	Pos lexer.Position
	Y   *gOperand `parser:"'**' @@"`
}

// primary = atom { trailer } .
type gPrimary struct {
	Pos      lexer.Position
	X        *gAtom      `parser:"@@"`
	Trailers []*gTrailer `parser:"@@*"`
}

// trailer = "(" [ arg { "," arg } [ "," ] ] ")" | "[" subList "]" | "." name .
type gTrailer struct {
	Pos   lexer.Position
	Call  bool      `parser:"(  @'('"`
	Args  []*gArg   `parser:"   ( @@ ( ',' @@ )* ','? )? ')' )"`
	Index *gSubList `parser:"| ( '[' @@ ']' )"`
	Attr  *gName    `parser:"| ( '.' @@ )"`
}

// subList = sub { "," sub } [ "," ] .
type gSubList struct {
	Pos      lexer.Position
	Elems    []*gSub `parser:"@@ ( ',' @@ )*"`
	Trailing bool    `parser:"@','?"`
}

// sub = test | [ test ] ":" [ test ] [ ":" [ test ] ] .   (tiles take only the full slice, t[:, None])
type gSub struct {
	Pos   lexer.Position
	X     *gTest    `parser:"@@?"`
	Colon bool      `parser:"( @':'"`
	Hi    *gTest    `parser:"  @@?"`
	Step  *gSubStep `parser:"  @@? )?"`
}

type gSubStep struct {
	Colon bool   `parser:"@':'"`
	X     *gTest `parser:"@@?"`
}

// arg = [ Name "=" | "*" ] test [ compFor ] .
//
// `*xs` unpacks an iterable into positional arguments; `f(x for x in xs)`
// passes a generator expression (its call's only argument).
type gArg struct {
	Pos     lexer.Position
	Star    bool      `parser:"( @'*'"`
	Keyword string    `parser:"| @Name '=' )?"`
	Value   *gTest    `parser:"@@"`
	Comp    *gCompFor `parser:"@@?"`
}

// compFor = "for" targetList "in" binary [ "if" binary ] .   (a comprehension's clause)
type gCompFor struct {
	Pos    lexer.Position
	Target *gTargetList `parser:"'for' @@"`
	Iter   *gBinary     `parser:"'in' @@"`
	Cond   *gBinary     `parser:"( 'if' @@ )?"`
}

// atom = Name | "(" [ testList [ compFor ] ] ")" | "[" [ testList [ compFor ] ] "]"
//
//	| "{" [ entry { "," entry } [ "," ] [ compFor ] ] "}"
//	| Int | Float | String { String } | "True" | "False" | "None" | "..." .
type gAtom struct {
	Pos      lexer.Position
	Name     string     `parser:"  @Name"`
	Paren    bool       `parser:"| ( @'('"`
	Inner    *gTestList `parser:"    @@?"`
	PComp    *gCompFor  `parser:"    @@? ')' )"`
	List     bool       `parser:"| ( @'['"`
	Items    *gTestList `parser:"    @@?"`
	Comp     *gCompFor  `parser:"    @@? ']' )"`
	Brace    bool       `parser:"| ( @'{'"`
	Entries  []*gEntry  `parser:"    ( @@ ( ',' @@ )*"`
	BTrail   bool       `parser:"      @','? )?"`
	BComp    *gCompFor  `parser:"    @@? '}' )"`
	Int      string     `parser:"| @Int"`
	Float    string     `parser:"| @Float"`
	Strings  []string   `parser:"| @String+"`
	True     bool       `parser:"| @'True'"`
	False    bool       `parser:"| @'False'"`
	None     bool       `parser:"| @'None'"`
	Ellipsis bool       `parser:"| @'...'"`
}

// entry = test [ ":" test ] .   (a dict's key: value, or a set's item)
//
// Whether the braces make a dict or a set is the first entry's choice;
// parse.go reports a mix.
type gEntry struct {
	Pos   lexer.Position
	Key   *gTest `parser:"@@"`
	Value *gTest `parser:"( ':' @@ )?"`
}

// tokenDef hands participle the token slice that lexer.go produced.
// It carries the symbol table so that package initialization builds
// tokSymbols before the grammar.
type tokenDef struct{ symbols map[string]lexer.TokenType }

func (d tokenDef) Symbols() map[string]lexer.TokenType { return d.symbols }

func (tokenDef) Lex(filename string, r io.Reader) (lexer.Lexer, error) {
	src, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	toks, _ := lex(filename, string(src))
	return &tokenStream{toks: toks}, nil
}

// tokenStream replays a token slice; after the last token it keeps
// returning that token (EOF).
type tokenStream struct {
	toks []lexer.Token
	i    int
}

func (t *tokenStream) Next() (lexer.Token, error) {
	if t.i >= len(t.toks) {
		return t.toks[len(t.toks)-1], nil
	}
	t.i++
	return t.toks[t.i-1], nil
}

var grammar = participle.MustBuild[gFile](
	participle.Lexer(tokenDef{tokSymbols}),
	participle.UseLookahead(participle.MaxLookahead),
)
