// Package build is tilec's AST-to-IR builder: it turns a lang.File into an
// ir.Module, one ir.Func per kernel, and reports every user mistake it finds
// as a positioned, sorted lang.ErrorList.
//
// It owns what sits between source and IR: name resolution over the module
// (imports, helpers, kernels, module-level constants; module.go), inlining
// of helpers at each call (call.go), compile-time evaluation and constant
// folding with Python's semantics (fold.go, ct.static_iter in static.go; the
// scalar arithmetic is ir/scalar's), type
// and shape inference and the typing of every builtin (builtins.go, expr.go,
// method.go; the result type of an op that its operands decide comes from
// the op's typing rule, ir.InferResults, through emitInferred), loops and control flow (loop.go, stmt.go), f-strings
// (fstring.go), the launch grid and performance hints (grid.go, hints.go),
// the specialization of a kernel on its constants (Options.Consts) and on
// the launch signature of its unannotated parameters (Options.Args,
// ArgSig, sig.go), and --strict (Options.Strict, strict.go): tilec's
// extensions to cuTile 1.6 reported as errors.
//
// Entry points: File builds the kernels of a parsed file; AfterParseErrors
// adds its errors to a parse's; KernelParams and KernelLaunchParams read a
// kernel's parameters for the host code and the launch; the Python
// formatting helpers (PyStr, PyFloat, FormatField, ...) are shared with
// runtime/host so that kernels and host code print alike.
//
// ir itself does not import lang, so that the IR stays free of source
// syntax: an instruction's position is an ir.Pos, which has lang.Pos's
// fields, and the builder converts the lang.Pos of the construct each
// instruction came from with ir.Pos(pos).
package build
