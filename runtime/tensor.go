package runtime

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/ir/scalar"
)

// Tensor is a host array: little-endian element storage in Data, and a
// strided view of it. Element (i0, i1, ...) lives at element index
// Offset + i0*Strides[0] + i1*Strides[1] + ... of Data (byte offset times
// DType.Bytes()). F16 and BF16 elements are their uint16 bit patterns, TF32
// elements are float32s, Bool elements are one byte 0 or 1.
//
// Several tensors may share Data (views made by Transpose and View); a
// contiguous tensor's Data is exactly the bytes a device copy needs.
type Tensor struct {
	DType   ir.DType
	Shape   []int
	Strides []int // in elements; any values, so transposed and broadcast views work
	Offset  int   // in elements
	Data    []byte
}

// NewTensor allocates a zeroed contiguous (row-major) tensor. It panics
// where AllocTensor returns an error (a negative dimension, a size that
// overflows or exceeds the host's memory): use AllocTensor for shapes that
// come from users.
func NewTensor(dtype ir.DType, shape ...int) *Tensor {
	t, err := AllocTensor(dtype, shape...)
	if err != nil {
		panic("runtime.NewTensor: " + err.Error())
	}
	return t
}

// RowMajorStrides returns the contiguous C-order strides of shape.
func RowMajorStrides(shape []int) []int {
	s := make([]int, len(shape))
	n := 1
	for i := len(shape) - 1; i >= 0; i-- {
		s[i] = n
		n *= shape[i]
	}
	return s
}

// FromFloat64 makes a contiguous tensor from row-major values, each rounded
// to dtype (see RoundTo). It panics if len(data) does not match shape.
func FromFloat64(dtype ir.DType, shape []int, data []float64) *Tensor {
	t := NewTensor(dtype, shape...)
	if len(data) != t.NumElements() {
		panic(fmt.Sprintf("runtime.FromFloat64: %d values for shape %v", len(data), shape))
	}
	for i, x := range data {
		t.SetElemAt(t.Offset+i, x)
	}
	return t
}

// NumElements is the product of the dimensions.
func (t *Tensor) NumElements() int {
	n := 1
	for _, d := range t.Shape {
		n *= d
	}
	return n
}

// Rank is the number of dimensions.
func (t *Tensor) Rank() int { return len(t.Shape) }

func (t *Tensor) String() string {
	return fmt.Sprintf("Tensor<%s %v strides %v>", t.DType, t.Shape, t.Strides)
}

// Unravel is the row-major index of element i of shape (axes of size 0
// leave i alone).
func Unravel(i int, shape []int) []int {
	idx := make([]int, len(shape))
	for ax := len(shape) - 1; ax >= 0; ax-- {
		if shape[ax] > 0 {
			idx[ax] = i % shape[ax]
			i /= shape[ax]
		}
	}
	return idx
}

// IsContiguous reports whether t is a row-major view starting at Data[0]
// that covers all of Data.
func (t *Tensor) IsContiguous() bool {
	return t.Offset == 0 && len(t.Data) == t.NumElements()*t.DType.Bytes() && t.IsRowMajor()
}

// IsRowMajor reports whether t's elements lie row-major without gaps from
// its Offset (size-1 axes take any stride), wherever they sit in Data: a
// reshape of it can be a view.
func (t *Tensor) IsRowMajor() bool {
	rm := RowMajorStrides(t.Shape)
	for i := range rm {
		if t.Shape[i] != 1 && t.Strides[i] != rm[i] {
			return false
		}
	}
	return true
}

// index returns the element index in Data of the logical index idx.
func (t *Tensor) index(idx []int) int {
	if len(idx) != len(t.Shape) {
		panic(fmt.Sprintf("runtime.Tensor: index %v for shape %v", idx, t.Shape))
	}
	e := t.Offset
	for i, x := range idx {
		if x < 0 || x >= t.Shape[i] {
			panic(fmt.Sprintf("runtime.Tensor: index %v out of range for shape %v", idx, t.Shape))
		}
		e += x * t.Strides[i]
	}
	return e
}

// ElemAt reads element e of Data as a float64. e is an element index into
// Data (Offset plus index times strides), as the interpreter and the check
// (runtime/interp, runtime/check) walk tensors; At takes a logical index.
func (t *Tensor) ElemAt(e int) float64 {
	d := t.Data
	switch t.DType {
	case ir.F16:
		return F16Float(binary.LittleEndian.Uint16(d[2*e:]))
	case ir.BF16:
		return BF16Float(binary.LittleEndian.Uint16(d[2*e:]))
	case ir.F32, ir.TF32:
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(d[4*e:])))
	case ir.F64:
		return math.Float64frombits(binary.LittleEndian.Uint64(d[8*e:]))
	case ir.I32:
		return float64(int32(binary.LittleEndian.Uint32(d[4*e:])))
	case ir.I64:
		return float64(int64(binary.LittleEndian.Uint64(d[8*e:])))
	case ir.Bool:
		if d[e] != 0 {
			return 1
		}
		return 0
	case ir.F8E4M3, ir.F8E5M2:
		return F8Float(t.DType, d[e])
	case ir.F8E8M0:
		return scalar.E8M0Value(d[e])
	}
	if t.DType.IsInt() {
		return ir.IntToFloat(t.DType, t.ElemIntAt(e))
	}
	panic("runtime.Tensor: invalid dtype " + t.DType.String())
}

// ElemIntAt reads element e of Data as an int64 (floats truncate).
func (t *Tensor) ElemIntAt(e int) int64 {
	switch t.DType {
	case ir.I32:
		return int64(int32(binary.LittleEndian.Uint32(t.Data[4*e:])))
	case ir.I64, ir.U64:
		return int64(binary.LittleEndian.Uint64(t.Data[8*e:]))
	case ir.Bool:
		if t.Data[e] != 0 {
			return 1
		}
		return 0
	case ir.I8:
		return int64(int8(t.Data[e]))
	case ir.U8:
		return int64(t.Data[e])
	case ir.I16:
		return int64(int16(binary.LittleEndian.Uint16(t.Data[2*e:])))
	case ir.U16:
		return int64(binary.LittleEndian.Uint16(t.Data[2*e:]))
	case ir.U32:
		return int64(binary.LittleEndian.Uint32(t.Data[4*e:]))
	}
	return ir.FloatToInt(ir.I64, t.ElemAt(e))
}

// SetElemAt writes x, rounded to the dtype, to element e of Data.
func (t *Tensor) SetElemAt(e int, x float64) {
	d := t.Data
	switch t.DType {
	case ir.F16:
		binary.LittleEndian.PutUint16(d[2*e:], F16Bits(x))
	case ir.BF16:
		binary.LittleEndian.PutUint16(d[2*e:], BF16Bits(x))
	case ir.F32, ir.TF32:
		binary.LittleEndian.PutUint32(d[4*e:], math.Float32bits(float32(x)))
	case ir.F64:
		binary.LittleEndian.PutUint64(d[8*e:], math.Float64bits(x))
	case ir.I32:
		binary.LittleEndian.PutUint32(d[4*e:], uint32(int32(ir.FloatToInt(ir.I32, x))))
	case ir.I64:
		binary.LittleEndian.PutUint64(d[8*e:], uint64(ir.FloatToInt(ir.I64, x)))
	case ir.Bool:
		if x != 0 {
			d[e] = 1
		} else {
			d[e] = 0
		}
	case ir.F8E4M3, ir.F8E5M2:
		d[e] = F8Bits(t.DType, x)
	case ir.F8E8M0:
		d[e] = E8M0Bits(x)
	default:
		if !t.DType.IsInt() {
			panic("runtime.Tensor: invalid dtype " + t.DType.String())
		}
		t.SetElemIntAt(e, ir.FloatToInt(t.DType, x))
	}
}

// SetElemIntAt writes the integer x (wrapped to the dtype) to element e.
func (t *Tensor) SetElemIntAt(e int, x int64) {
	switch t.DType {
	case ir.I32:
		binary.LittleEndian.PutUint32(t.Data[4*e:], uint32(x))
	case ir.I64, ir.U64:
		binary.LittleEndian.PutUint64(t.Data[8*e:], uint64(x))
	case ir.I8, ir.U8:
		t.Data[e] = byte(x)
	case ir.I16, ir.U16:
		binary.LittleEndian.PutUint16(t.Data[2*e:], uint16(x))
	case ir.U32:
		binary.LittleEndian.PutUint32(t.Data[4*e:], uint32(x))
	case ir.Bool:
		if x != 0 {
			t.Data[e] = 1
		} else {
			t.Data[e] = 0
		}
	default:
		t.SetElemAt(e, float64(x))
	}
}

// At returns the element at idx as a float64 (integers above 2^53 lose
// precision: use AtInt).
func (t *Tensor) At(idx ...int) float64 { return t.ElemAt(t.index(idx)) }

// AtInt returns the element at idx as an int64 (floats truncate toward zero).
func (t *Tensor) AtInt(idx ...int) int64 { return t.ElemIntAt(t.index(idx)) }

// Set stores x, rounded to the dtype, at idx.
func (t *Tensor) Set(x float64, idx ...int) { t.SetElemAt(t.index(idx), x) }

// SetInt stores the integer x at idx (wrapped for integer dtypes).
func (t *Tensor) SetInt(x int64, idx ...int) { t.SetElemIntAt(t.index(idx), x) }

// ForEachElem calls fn with the Data element index of every logical element, in
// row-major order.
func (t *Tensor) ForEachElem(fn func(e int)) {
	n := t.NumElements()
	if n == 0 {
		return
	}
	r := len(t.Shape)
	idx := make([]int, r)
	e := t.Offset
	for {
		fn(e)
		i := r - 1
		for ; i >= 0; i-- {
			idx[i]++
			e += t.Strides[i]
			if idx[i] < t.Shape[i] {
				break
			}
			e -= idx[i] * t.Strides[i]
			idx[i] = 0
		}
		if i < 0 {
			return
		}
	}
}

// Float64s returns the elements in logical row-major order.
func (t *Tensor) Float64s() []float64 {
	out := make([]float64, 0, t.NumElements())
	t.ForEachElem(func(e int) { out = append(out, t.ElemAt(e)) })
	return out
}

// Int64s returns the elements in logical row-major order as integers.
func (t *Tensor) Int64s() []int64 {
	out := make([]int64, 0, t.NumElements())
	t.ForEachElem(func(e int) { out = append(out, t.ElemIntAt(e)) })
	return out
}

// Fill sets every element to x (rounded to the dtype). Fill(math.NaN())
// poisons an output buffer so that an element a kernel fails to write shows.
func (t *Tensor) Fill(x float64) {
	t.ForEachElem(func(e int) { t.SetElemAt(e, x) })
}

// Clone returns a contiguous copy of t.
func (t *Tensor) Clone() *Tensor {
	c := NewTensor(t.DType, t.Shape...)
	bs := t.DType.Bytes()
	i := 0
	t.ForEachElem(func(e int) {
		copy(c.Data[i*bs:(i+1)*bs], t.Data[e*bs:(e+1)*bs])
		i++
	})
	return c
}

// Transpose returns a view with the axes permuted (result axis i is t's
// axis perm[i]); with no arguments the axes are reversed. It shares Data.
func (t *Tensor) Transpose(perm ...int) *Tensor {
	r := len(t.Shape)
	if len(perm) == 0 {
		perm = make([]int, r)
		for i := range perm {
			perm[i] = r - 1 - i
		}
	}
	if len(perm) != r {
		panic(fmt.Sprintf("runtime.Tensor.Transpose: permutation %v for rank %d", perm, r))
	}
	v := &Tensor{DType: t.DType, Offset: t.Offset, Data: t.Data, Shape: make([]int, r), Strides: make([]int, r)}
	seen := make([]bool, r)
	for i, p := range perm {
		if p < 0 || p >= r || seen[p] {
			panic(fmt.Sprintf("runtime.Tensor.Transpose: %v is not a permutation", perm))
		}
		seen[p] = true
		v.Shape[i], v.Strides[i] = t.Shape[p], t.Strides[p]
	}
	return v
}

// View returns a tensor over t's Data with the given shape and strides (in
// elements) and t's Offset. It fails if an element of the view would lie
// outside Data.
func (t *Tensor) View(shape, strides []int) (*Tensor, error) {
	if len(shape) != len(strides) {
		return nil, fmt.Errorf("view: shape %v and strides %v differ in rank", shape, strides)
	}
	v := &Tensor{DType: t.DType, Shape: append([]int{}, shape...), Strides: append([]int{}, strides...),
		Offset: t.Offset, Data: t.Data}
	if err := v.CheckBounds(); err != nil {
		return nil, err
	}
	return v, nil
}

// CheckBounds reports an error unless every element of t lies inside Data.
func (t *Tensor) CheckBounds() error {
	if t.DType.Bytes() == 0 {
		return fmt.Errorf("invalid dtype %s", t.DType)
	}
	if len(t.Strides) != len(t.Shape) {
		return fmt.Errorf("shape %v and strides %v differ in rank", t.Shape, t.Strides)
	}
	for _, d := range t.Shape {
		if d < 0 {
			return fmt.Errorf("negative dimension in shape %v", t.Shape)
		}
		if d == 0 {
			return nil
		}
	}
	// Overflow-checked: a stride product that wrapped would put a far
	// element inside Data.
	overflow := fmt.Errorf("shape %v with strides %v and offset %d reaches elements beyond 64-bit offsets",
		t.Shape, t.Strides, t.Offset)
	lo, hi := t.Offset, t.Offset
	for i, d := range t.Shape {
		s := t.Strides[i]
		if s == math.MinInt {
			return overflow
		}
		ext, ok := mulInt(d-1, abs(s))
		if !ok {
			return overflow
		}
		if s > 0 {
			hi, ok = addInt(hi, ext)
		} else {
			lo, ok = addInt(lo, -ext)
		}
		if !ok {
			return overflow
		}
	}
	n := len(t.Data) / t.DType.Bytes()
	if lo < 0 || hi >= n {
		return fmt.Errorf("shape %v with strides %v and offset %d reaches elements [%d, %d], outside the storage's %d",
			t.Shape, t.Strides, t.Offset, lo, hi, n)
	}
	return nil
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// RandNormal returns a contiguous tensor of standard normal values from rng,
// rounded to dtype. Integer tensors get round(8*x), bool tensors x > 0.
func RandNormal(rng *rand.Rand, dtype ir.DType, shape ...int) *Tensor {
	t := NewTensor(dtype, shape...)
	t.FillRandNormal(rng)
	return t
}

// FillRandNormal overwrites t with values as RandNormal makes them.
func (t *Tensor) FillRandNormal(rng *rand.Rand) {
	t.ForEachElem(func(e int) {
		x := rng.NormFloat64()
		switch t.DType {
		case ir.I8, ir.I16, ir.I32, ir.I64:
			x = math.Round(8 * x)
		case ir.U8, ir.U16, ir.U32, ir.U64:
			x = math.Round(8 * math.Abs(x))
		case ir.Bool:
			if x > 0 {
				x = 1
			} else {
				x = 0
			}
		case ir.F8E8M0:
			// Scale factors: powers of two from about 2^-8 to 2^8.
			x = math.Ldexp(1, int(math.Round(3*x)))
		}
		t.SetElemAt(e, x)
	})
}

// Format prints the tensor's values row by row, for debugging and test
// failure messages.
func (t *Tensor) Format() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s%v:", t.DType, t.Shape)
	last := 1
	if len(t.Shape) > 0 {
		last = t.Shape[len(t.Shape)-1]
	}
	for i, x := range t.Float64s() {
		if last > 0 && i%last == 0 {
			b.WriteString("\n ")
		}
		fmt.Fprintf(&b, " %g", x)
	}
	return b.String()
}
