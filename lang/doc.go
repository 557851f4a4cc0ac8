// Package lang is tilec's front end: an indentation-aware lexer and a
// participle grammar for the cuTile-compatible Python subset, producing the
// AST in ast.go with positions, and the user-facing error type (Error,
// ErrorList) that every later stage reports mistakes through.
//
// Parse(filename, src) returns a *File or an ErrorList holding every error it
// could find, sorted by position; it never panics and bounds its work
// (MaxSourceSize, nesting depth). FormatAST prints a File as the stable tree
// that `tilec compile --emit ast` shows and golden tests compare.
//
// The pieces, in the order they run:
//   - lexer.go: Python tokens plus NEWLINE, INDENT and DEDENT. Tabs in
//     indentation are an error (tilec does not guess their width); brackets
//     and a trailing backslash join lines; all Python keywords are reserved.
//   - parse.go: the token stream is cut into top-level items (a def with its
//     decorators, an import, ...), each parsed on its own by the grammar;
//     after a syntax error inside a def the offending line is replaced by
//     `pass` and parsing resumes, so one run reports one error per bad line.
//     Participle's errors are rewritten into plain messages.
//   - grammar.go: the participle grammar (testdata/grammar.ebnf pins it).
//     Binary operators are parsed flat and grouped by Python's precedence
//     in convert.go.
//   - convert.go: grammar structs -> AST, plus the checks that are easier to
//     word precisely there (chained comparisons, assignment targets,
//     misplaced defs and imports, literal ranges, what a class may not
//     hold: a top-level class keeps its methods and class attributes for
//     host code, and the rest is refused at its place). Docstrings, and any
//     statement that is a lone string, are dropped; a `...` statement is
//     a pass.
//
// lang knows nothing about types, tiles or GPUs; the IR builder in package ir
// gives the AST its meaning.
package lang
