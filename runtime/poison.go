package runtime

// The poison pattern of output tensors: runtime/check fills outputs with it
// before a launch so that an element no launch wrote shows as unwritten,
// and front ends (cmd/tilec, runtime/host) read it back from results.

import "github.com/tilec/tilec/ir"

// poisonBytes is the pattern an output element holds before a launch: for
// floats a quiet NaN whose payload no arithmetic produces (so an element
// still holding it was not written, while a NaN a kernel computed is
// another NaN), for fp8 e5m2 a NaN other than the one conversions make,
// for e4m3fn its only NaN; for integers and bool the bytes 0xA5.
func poisonBytes(d ir.DType) []byte {
	var bits uint64
	switch d {
	case ir.F64:
		bits = 0x7ffa5a5a5a5a5a5a
	case ir.F32, ir.TF32:
		bits = 0x7fda5a5a
	case ir.F16:
		bits = 0x7e5a
	case ir.BF16:
		bits = 0x7fda
	case ir.F8E5M2:
		bits = 0x7d
	case ir.F8E4M3:
		bits = 0x7f
	default:
		bits = 0xa5a5a5a5a5a5a5a5
	}
	out := make([]byte, d.Bytes())
	for i := range out {
		out[i] = byte(bits >> (8 * i))
	}
	return out
}

// Poison fills every element of t with its dtype's poison pattern.
func (t *Tensor) Poison() {
	p := poisonBytes(t.DType)
	t.ForEachElem(func(e int) { copy(t.Data[e*len(p):], p) })
}

// IsPoisonAt reports whether element e of Data holds the poison pattern.
func (t *Tensor) IsPoisonAt(e int) bool {
	p := poisonBytes(t.DType)
	return string(t.Data[e*len(p):(e+1)*len(p)]) == string(p)
}

// CountPoison returns how many elements of t hold the poison pattern: for
// an output, the elements no launch wrote.
func (t *Tensor) CountPoison() int {
	n := 0
	p := poisonBytes(t.DType)
	t.ForEachElem(func(e int) {
		if string(t.Data[e*len(p):(e+1)*len(p)]) == string(p) {
			n++
		}
	})
	return n
}

// PoisonValue is the value of an integer or bool element holding the
// poison pattern, as Int64s reads it (0 for floats, whose poison is a NaN).
func PoisonValue(d ir.DType) int64 {
	if d.IsFloat() {
		return 0
	}
	t := NewTensor(d, 1)
	t.Poison()
	return t.ElemIntAt(0)
}
