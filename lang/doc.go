// Package lang is tilec's front end: an indentation-aware lexer and a
// participle grammar for the cuTile-compatible Python subset, producing the
// AST in ast.go with positions, and the user-facing error type (Error,
// ErrorList) that every later stage reports mistakes through.
//
// lang knows nothing about types, tiles or GPUs; the IR builder in package ir
// gives the AST its meaning.
package lang
