package cuda

import (
	"encoding/binary"

	"github.com/tilec/tilec/runtime"
)

// listTable is the device table of a list of arrays (ptxgen.SlotListTable,
// cuTile's layout of a List[Array] argument): per array, its device
// address addrs[j], then its extents, then its strides in elements, each a
// little-endian 64-bit word. ptxgen's list_get reads item j's words at
// byte offset 8*(1+2*rank)*j. Outside the cuda build so that its layout is
// tested everywhere.
func listTable(addrs []uint64, arrays []*runtime.Tensor) []byte {
	var table []byte
	for j, t := range arrays {
		table = binary.LittleEndian.AppendUint64(table, addrs[j])
		for _, d := range t.Shape {
			table = binary.LittleEndian.AppendUint64(table, uint64(d))
		}
		for _, s := range t.Strides {
			table = binary.LittleEndian.AppendUint64(table, uint64(int64(s)))
		}
	}
	return table
}
