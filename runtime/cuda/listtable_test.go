package cuda

import (
	"encoding/binary"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/runtime"
)

// The table holds, per array, 1 + 2*rank words in ptxgen's order: a
// transposed view keeps its own strides (a negative stride would keep its
// sign in two's complement).
func TestListTableLayout(t *testing.T) {
	a := runtime.NewTensor(ir.F16, 3, 5)
	b := runtime.NewTensor(ir.F16, 4, 6).Transpose(1, 0) // shape (6, 4), strides (1, 6)
	tab := listTable([]uint64{0x1000, 0x2000}, []*runtime.Tensor{a, b})
	words := make([]uint64, len(tab)/8)
	for i := range words {
		words[i] = binary.LittleEndian.Uint64(tab[8*i:])
	}
	want := []uint64{0x1000, 3, 5, 5, 1, 0x2000, 6, 4, 1, 6}
	if len(words) != len(want) {
		t.Fatalf("%d words, want %d: %v", len(words), len(want), words)
	}
	for i := range want {
		if words[i] != want[i] {
			t.Fatalf("word %d = %d, want %d (table %v)", i, words[i], want[i], words)
		}
	}
}
