// Package scalar is the one definition of tilec's per-element arithmetic on
// the values the IR computes with: integers held in int64 and floats held in
// float64. Python's floor division and modulo, integer and float powers,
// IEEE maximum and minimum, two's-complement wrapping to a width, saturating
// float-to-integer conversion and shifts are written here once, and the
// builder's constant folding (package ir), lower's Fold pass and the
// interpreter (package runtime) all call these functions, so that a kernel
// folded at compile time and the same kernel run by the interpreter agree
// element for element.
//
// The package imports nothing of tilec. Package ir uses it (the builder folds
// constants with it, ir.EvalIntBinary and friends dispatch IR ops to it), so
// it cannot import ir in turn: element types are described by the plain facts
// the semantics depend on, an integer's width in bits, and the mapping from
// ir.DType to those facts stays in ir.
//
// A few results are tilec's choice where Python raises or has no fixed-width
// answer; they are documented on each function (x // 0 and x % 0 are 0 as in
// numpy, an integer to a negative power, conversions of NaN and of
// out-of-range floats). The
// compile-time evaluation in package ir reports division by zero and raises
// an integer to a negative power in floating point, as Python does, before
// it gets here.
package scalar
