// Package ir is tilec's typed SSA intermediate representation of tile
// kernels: types (scalars, tiles with compile-time shapes, arrays), the op
// table (ops.go), instructions with nested regions for for/if, a stable
// text form with a printer and a parser that round-trip, a verifier, and the
// builder that turns a lang AST into IR (name resolution, helper inlining,
// constant binding, type and shape inference).
//
// The IR is free of both source syntax and target: the lower package
// specializes it for a GPU target, and runtime's interpreter executes it
// directly as the reference semantics.
package ir
