// Package interp is the CPU backend: an interpreter of the IR that is
// tilec's reference semantics and the oracle GPU results are checked against
// (runtime/check). It implements runtime.Backend (CPU, and Launch for the
// default settings); each kernel's compiled program is kept on the Kernel
// (runtime.Kernel.Memo), built on its first launch.
//
// # Execution
//
// A launch first checks its arguments (runtime.Kernel.Bind). During
// execution, a load or store whose tile lies entirely outside its array
// (negative tile indices included) stops the launch with an *ExecError
// naming the source position, the block and the tile index; a tile that is
// partly outside is padded (load) or clipped (store). Of several failing
// blocks the one with the smallest linear id is reported, so errors do not
// depend on scheduling.
//
// Blocks run in parallel on a pool of goroutines, each with its own
// registers; results do not depend on the number of workers. A launch's
// LaunchOptions.Context stops it between blocks and at every iteration of a
// for loop (a *StoppedError); LaunchOptions.Progress reports the blocks
// done; integer ops whose result is numpy's convention rather than Python's
// (x // 0) are counted and returned as LaunchResult.Warnings.
//
// # Numerics
//
// Values are held as float64 (float dtypes), int64 (integers, bools as 0/1)
// and rounded to their dtype after every op, so that a result is what the
// dtype's own arithmetic gives:
//   - f16, bf16 and f32 results are rounded to nearest even after each op
//     (computed in float64, which for + - * / sqrt gives the correctly
//     rounded result). Conversions from float64 round once, never through f32.
//     Overflow gives infinity.
//   - tf32 values are stored as f32; arithmetic on them rounds to f32. Only a
//     conversion to tf32 and the inputs of mma use tf32 precision (10-bit
//     mantissa, round to nearest with ties away from zero, PTX cvt.rna).
//   - i32 and i64 wrap (two's complement). // and % follow Python (floor);
//     integer x // 0 is 0 and x % 0 is x (keeping x == (x//y)*y + x%y); there
//     is no trap, as on the GPU. Integer ** with a negative exponent is 0
//     unless the base is 1 or -1.
//   - float -> int conversion truncates toward zero and saturates to the
//     type's range; NaN gives 0 (PTX cvt.rzi semantics). float -> bool is
//     x != 0 (NaN is true).
//   - min/max (ct.minimum, ct.maximum and reductions) propagate NaN and order
//     -0 below +0 (IEEE 754-2019 minimum/maximum).
//   - exp, log, tanh, ... are float64 math rounded to the dtype (the GPU's
//     approximations differ within the dtype tolerance).
//   - reduce: sums add in ascending index order, accumulating in f32 for
//     f16, bf16, f32 and tf32 (f64 for f64; wrapping integers), and round to
//     the result dtype at the end. argmax/argmin give the first index of the
//     extreme value; a NaN counts as the extreme.
//   - mma(a, b, acc): f16 and bf16 inputs are exact, f32 and tf32 inputs are
//     rounded to tf32; every product is then exact. For each output element
//     the products are added to acc one at a time in ascending k, rounding
//     each partial sum to acc's dtype (f32 for f32 and tf32 accumulators;
//     f16 and bf16 accumulators round after every add; f64 in f64).
//   - loads pad with the padding mode's value (rounded to the dtype); integer
//     and bool loads always pad with 0.
package interp
