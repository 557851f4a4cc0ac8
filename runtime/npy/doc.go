// Package npy reads and writes numpy .npy files, so that kernel inputs and
// outputs can be exchanged with numpy and PyTorch.
//
// Reading accepts format versions 1.0, 2.0 and 3.0, the dtypes '<f2', '<f4',
// '<f8', '<i4', '<i8' and '|b1' (big-endian '>' forms are byte-swapped), C
// order, and Fortran order (the tensor then has column-major strides over
// the file's data). Writing produces version 1.0 (2.0 if the header does not
// fit), little-endian, C order, with numpy's 64-byte header alignment.
//
// numpy has no bfloat16: a BF16 tensor is written as '<f4' holding the same
// values (exactly, every bf16 value is an f32 value); TF32 tensors are
// written as '<f4' as well. Reading never produces BF16 or TF32 tensors.
//
// Convert takes a tensor read from a file to the dtype a kernel declares
// (--in), keeping every integer's value or reporting the element.
package npy
