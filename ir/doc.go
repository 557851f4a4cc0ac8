// Package ir is tilec's typed SSA intermediate representation of tile
// kernels: types (scalars, tiles with compile-time shapes, arrays), the op
// table (ops.go), one typing rule per op (OpInfo.Infer, infer.go: result
// types from operands and attributes, which the builder calls and the
// verifier checks; init checks that every op has one), instructions with
// nested regions for for/if, typed attributes declared per op (named by
// AttrKey constants, never string literals, and read through accessors
// checked against the declarations: Instr.Axis, Kind, Pad, Pred, Perm,
// Reverse for the common ones, IntAttr, BoolAttr, StrAttr and AttrOf,
// one per kind, for the rest; TestAttrKeysAreDeclared) and, for the
// lowered IR, in one table of the attributes lowering may add (attrs.go, with register
// layouts as values in layout.go), the facts lowering decides for a whole
// kernel (Func.Facts, kernel.go), a stable text form with a printer and a
// parser that round-trip, and a verifier. Instructions carry the source
// position they came from as an ir.Pos.
//
// The builder that turns a lang AST into IR (name resolution, helper
// inlining, constant binding, type and shape inference) is the package
// ir/build; ir imports neither it nor lang (TestIRDependencies).
//
// The IR is free of both source syntax and target: the lower package
// specializes it for a GPU target, recording its schedule in the declared
// lowered attributes (the interpreter ignores them), and runtime's
// interpreter executes it directly as the reference semantics.
package ir
