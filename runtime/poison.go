package runtime

// The poison pattern of output tensors: runtime/check fills outputs with it
// before a launch so that an element no launch wrote shows as unwritten,
// and front ends (cmd/tilec, runtime/host) read it back from results.

import (
	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/ir/scalar"
)

// poisonBits is the pattern an output element holds before a launch, as
// the little-endian value of its d.Bytes() bytes: for floats a quiet NaN
// whose payload no arithmetic produces (so an element still holding it was
// not written, while a NaN a kernel computed is another NaN), for fp8 e5m2
// a NaN other than the one conversions make, for e4m3fn and e8m0fnu their only NaN; for
// integers and bool the bytes 0xA5.
func poisonBits(d ir.DType) uint64 {
	switch d {
	case ir.F64:
		return 0x7ffa5a5a5a5a5a5a
	case ir.F32, ir.TF32:
		return 0x7fda5a5a
	case ir.F16:
		return 0x7e5a
	case ir.BF16:
		return 0x7fda
	case ir.F8E5M2:
		return 0x7d
	case ir.F8E4M3:
		return 0x7f
	case ir.F8E8M0:
		return scalar.E8M0NaN
	}
	return 0xa5a5a5a5a5a5a5a5 >> (64 - 8*d.Bytes())
}

// elemBits is the little-endian value of element e's bytes in Data.
func (t *Tensor) elemBits(e int) uint64 {
	n := t.DType.Bytes()
	var v uint64
	for i, b := range t.Data[e*n : (e+1)*n] {
		v |= uint64(b) << (8 * i)
	}
	return v
}

// Poison fills every element of t with its dtype's poison pattern.
func (t *Tensor) Poison() {
	p, n := poisonBits(t.DType), t.DType.Bytes()
	t.ForEachElem(func(e int) {
		for i := range n {
			t.Data[e*n+i] = byte(p >> (8 * i))
		}
	})
}

// IsPoisonAt reports whether element e of Data holds the poison pattern
// (without allocating: the check asks it of every element of an output).
func (t *Tensor) IsPoisonAt(e int) bool { return t.elemBits(e) == poisonBits(t.DType) }

// CountPoison returns how many elements of t hold the poison pattern: for
// an output, the elements no launch wrote.
func (t *Tensor) CountPoison() int {
	n := 0
	t.ForEachElem(func(e int) {
		if t.IsPoisonAt(e) {
			n++
		}
	})
	return n
}
