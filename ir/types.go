package ir

import (
	"fmt"
	"strconv"
	"strings"
)

// DType is an element type of scalars, tiles and arrays.
type DType uint8

const (
	InvalidDType DType = iota
	Bool
	I32
	I64
	F16
	BF16
	F32
	TF32 // f32 storage whose mma inputs are rounded to a 10-bit mantissa
	F64
	I8
	I16
	U8
	U16
	U32
	U64
	F8E4M3 // float8_e4m3fn: 4 exponent bits (bias 7), 3 mantissa bits, no infinities, max 448
	F8E5M2 // float8_e5m2: 5 exponent bits (bias 15), 2 mantissa bits, IEEE infinities and NaN
	// F8E8M0 is float8_e8m0fnu, the scale factors of block-scaled mma
	// (mma_scaled): no sign, 8 exponent bits (bias 127), no mantissa, so
	// 2^-127..2^127 and NaN (0xff); no zero, no infinity (ir/scalar.E8M0Bits).
	F8E8M0
	numDTypes
)

var dtypeInfo = [numDTypes]struct {
	name  string
	bytes int
}{
	InvalidDType: {"invalid", 0},
	Bool:         {"bool", 1},
	I32:          {"i32", 4},
	I64:          {"i64", 8},
	F16:          {"f16", 2},
	BF16:         {"bf16", 2},
	F32:          {"f32", 4},
	TF32:         {"tf32", 4},
	F64:          {"f64", 8},
	I8:           {"i8", 1},
	I16:          {"i16", 2},
	U8:           {"u8", 1},
	U16:          {"u16", 2},
	U32:          {"u32", 4},
	U64:          {"u64", 8},
	F8E4M3:       {"f8e4m3", 1},
	F8E5M2:       {"f8e5m2", 1},
	F8E8M0:       {"f8e8m0", 1},
}

func (d DType) String() string {
	if d >= numDTypes {
		return fmt.Sprintf("dtype(%d)", uint8(d))
	}
	return dtypeInfo[d].name
}

// Bytes is the storage size of one element.
func (d DType) Bytes() int {
	if d >= numDTypes {
		return 0
	}
	return dtypeInfo[d].bytes
}

// Bits is the storage width of one element in bits.
func (d DType) Bits() int { return 8 * d.Bytes() }

// IsFloat reports whether d is a floating-point type.
func (d DType) IsFloat() bool {
	switch d {
	case F16, BF16, F32, TF32, F64, F8E4M3, F8E5M2, F8E8M0:
		return true
	}
	return false
}

// IsInt reports whether d is an integer type, signed or unsigned (bool is
// not).
func (d DType) IsInt() bool {
	switch d {
	case I8, I16, I32, I64, U8, U16, U32, U64:
		return true
	}
	return false
}

// IsUnsigned reports whether d is an unsigned integer type. Values of
// unsigned dtypes are held in int64 as their value (u8 to u32) or as the
// two's-complement bit pattern (u64: values from 2^63 are negative int64s).
func (d DType) IsUnsigned() bool {
	switch d {
	case U8, U16, U32, U64:
		return true
	}
	return false
}

// IsFloat8 reports whether d is one of the 8-bit float formats.
func (d DType) IsFloat8() bool { return d == F8E4M3 || d == F8E5M2 }

// IsByteInt reports whether d is int8 or uint8, the integer mma inputs.
func (d DType) IsByteInt() bool { return d == I8 || d == U8 }

// ParseDType maps a printed name ("f16") to its DType.
func ParseDType(s string) (DType, bool) {
	for d := DType(1); d < numDTypes; d++ {
		if dtypeInfo[d].name == s {
			return d, true
		}
	}
	return InvalidDType, false
}

// Type is the type of an IR value: *Scalar, *Tile, *Array or *ArrayList.
type Type interface {
	String() string
	// Elem is the element dtype.
	Elem() DType
	isType()
}

// Scalar is a single value held by the whole block (uniform).
// Printed as its dtype: `i32`.
type Scalar struct{ DType DType }

// Tile is an immutable block-level array with a compile-time shape.
// Printed `tile<128x64xf16>`; a rank-0 tile prints `tile<f32>`.
type Tile struct {
	Shape []int
	DType DType
}

// Array is a reference to a global-memory array whose extents and strides
// are known only at launch. Printed `array<?x?xf16>`.
type Array struct {
	Rank  int
	DType DType
}

// ArrayList is a kernel parameter that is a list of arrays (cuTile's
// List[Array], TileGym's grouped GEMM): its length and every element's
// extents and strides are known only at launch, and every element has the
// same dtype and rank. list_get takes an element at a run-time index and
// list_len the length. Printed `list<array<?x?xf16>>`.
type ArrayList struct {
	Rank  int
	DType DType
}

func (*Scalar) isType()    {}
func (*Tile) isType()      {}
func (*Array) isType()     {}
func (*ArrayList) isType() {}

func (t *Scalar) Elem() DType    { return t.DType }
func (t *Tile) Elem() DType      { return t.DType }
func (t *Array) Elem() DType     { return t.DType }
func (t *ArrayList) Elem() DType { return t.DType }

// Item is the type of the list's elements.
func (t *ArrayList) Item() *Array { return ArrayOf(t.DType, t.Rank) }

func (t *ArrayList) String() string { return "list<" + t.Item().String() + ">" }

func (t *Scalar) String() string { return t.DType.String() }

func (t *Tile) String() string {
	var b strings.Builder
	b.WriteString("tile<")
	for _, d := range t.Shape {
		b.WriteString(strconv.Itoa(d))
		b.WriteByte('x')
	}
	b.WriteString(t.DType.String())
	b.WriteByte('>')
	return b.String()
}

func (t *Array) String() string {
	return "array<" + strings.Repeat("?x", t.Rank) + t.DType.String() + ">"
}

// NumElements is the product of the tile's dimensions (1 for rank 0).
func (t *Tile) NumElements() int {
	n := 1
	for _, d := range t.Shape {
		n *= d
	}
	return n
}

// Rank is the number of dimensions.
func (t *Tile) Rank() int { return len(t.Shape) }

// Shorthands used by the builder, passes and tests.
func ScalarOf(d DType) *Scalar           { return &Scalar{DType: d} }
func TileOf(d DType, shape ...int) *Tile { return &Tile{Shape: append([]int(nil), shape...), DType: d} }
func ArrayOf(d DType, rank int) *Array   { return &Array{Rank: rank, DType: d} }
func ArrayListOf(d DType, rank int) *ArrayList {
	return &ArrayList{Rank: rank, DType: d}
}

// TypesEqual reports whether two types are identical.
func TypesEqual(a, b Type) bool {
	switch a := a.(type) {
	case *Scalar:
		b, ok := b.(*Scalar)
		return ok && a.DType == b.DType
	case *Tile:
		b, ok := b.(*Tile)
		if !ok || a.DType != b.DType || len(a.Shape) != len(b.Shape) {
			return false
		}
		for i := range a.Shape {
			if a.Shape[i] != b.Shape[i] {
				return false
			}
		}
		return true
	case *Array:
		b, ok := b.(*Array)
		return ok && a.Rank == b.Rank && a.DType == b.DType
	case *ArrayList:
		b, ok := b.(*ArrayList)
		return ok && a.Rank == b.Rank && a.DType == b.DType
	}
	return false
}

// WithElem returns t with its element type replaced (same shape).
func WithElem(t Type, d DType) Type {
	switch t := t.(type) {
	case *Scalar:
		return ScalarOf(d)
	case *Tile:
		return TileOf(d, t.Shape...)
	case *Array:
		return ArrayOf(d, t.Rank)
	case *ArrayList:
		return ArrayListOf(d, t.Rank)
	}
	panic(fmt.Sprintf("ir.WithElem: unknown type %T", t))
}
