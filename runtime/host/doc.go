// Package host runs the host side of a cuTile program: the launch function
// written next to the kernels, as in cuTile's samples and the seed post
// (`def cutile_matmul(A, B): ... C = torch.empty(...); ct.launch(stream,
// grid, matmul_kernel, (A, B, C, tm, tn, tk)); return C`).
//
// It is an interpreter of a small Python subset over the AST of package
// lang, not a compiler: host code runs once per call and only computes
// shapes, tile sizes and grids. The subset:
//   - values: Python ints (64 bits; overflow is an error, never a wrapped
//     value), floats, bools, strings, None, tuples, dicts and sets (dict(),
//     set(); dicts.go), dtypes (ct., torch. and numpy names), tensors
//     (*runtime.Tensor), the stream, a device;
//   - tensor indexing and assignment as torch's (indexing.go): ints, slices
//     and None give views, index tensors and masks copies; x[idx] = v and
//     x op= v write into x's elements;
//   - shape and dtype queries: A.shape, A.shape[i], A.ndim, A.dtype,
//     A.dtype.itemsize, A.itemsize, A.size(i), A.dim(), A.numel(),
//     A.element_size(), A.stride(i), A.device, A.is_cuda, and the views
//     A.T, A.t(), A.transpose(i, j), A.permute(...), A.contiguous();
//   - arithmetic and comparisons with Python's semantics, and/or/not,
//     x if c else y, min, max, abs, int, float, bool, len, tuple,
//     math.ceil/floor/trunc/sqrt/log/log2/exp/isqrt, ct.cdiv;
//   - classes (classes.go): top-level classes with one base, class
//     attributes, methods, @staticmethod, @classmethod, __init__, and
//     obj.a = v on instances, classes and SimpleNamespaces;
//   - in a script's driver, torch autograd as far as NVIDIA's LayerNorm
//     sample uses it (autograd.go): torch.autograd.Function.apply and
//     F.layer_norm on a tape, t.backward, .grad;
//   - complex numbers (complex.go): 1j literals, and in a script's
//     driver complex tensors, their parts in a float tensor whose last
//     dim is 2 (torch.view_as_real's layout), and torch.fft.fft;
//   - statements: assignment and tuple unpacking, augmented assignment,
//     if/elif/else, for over range(...) or a tuple, assert, return, pass,
//     calls of other plain defs of the file;
//   - allocation: torch.empty/zeros/ones/full and their _like forms, and
//     numpy's np.empty/zeros/ones/full(_like); `empty` fills float arrays
//     with NaN so that an element no kernel writes shows as NaN;
//   - ct.launch(stream, grid, kernel, args): args matches the kernel's
//     parameters in order, constants included (cuTile passes them
//     positionally); each distinct set of constants compiles the kernel
//     once. Options.Launch runs it (the CPU interpreter by default).
//
// Anything else is a positioned error naming the construct. The run stops
// at the first error, as Python would.
package host
