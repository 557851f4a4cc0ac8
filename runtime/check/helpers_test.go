package check

import (
	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/runtime"
)

// poisonBytes is one element of d's poison pattern (runtime's Tensor.Poison).
func poisonBytes(d ir.DType) []byte {
	t := runtime.NewTensor(d, 1)
	t.Poison()
	return t.Data
}
