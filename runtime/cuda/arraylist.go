//go:build cuda

package cuda

// Lists of arrays (ir.ArrayList) at launch: the list's arrays are
// uploaded with the other arrays, then each list gets a table on the
// device, per array 1 + 2*rank 64-bit words (address, extents, strides in
// elements; cuTile's layout, ptxgen.SlotListTable), which the kernel's
// list_get reads. The table is one more device buffer of the launch,
// freed with the arrays.

import (
	"fmt"

	"github.com/tilec/tilec/runtime"
	"github.com/tilec/tilec/runtime/cudadrv"
)

// launchTensors is every array of a launch: the array parameters' (index
// i of b.Tensors), then each list's in order; with their names.
func launchTensors(b *runtime.Binding) ([]*runtime.Tensor, []string) {
	ts := append([]*runtime.Tensor(nil), b.Tensors...)
	names := make([]string, len(ts))
	for i := range ts {
		names[i] = b.Kernel.Func.Params[i].Name
	}
	for i, l := range b.Lists {
		for j, t := range l {
			ts = append(ts, t)
			names = append(names, fmt.Sprintf("%s[%d]", b.Kernel.Func.Params[i].Name, j))
		}
	}
	return ts, names
}

// uploadLists reads the list arrays' addresses from da.ptrs (after the
// array parameters', in launchTensors' order), and builds and uploads
// each list's table.
func (c *GPU) uploadLists(b *runtime.Binding, da *devArgs) error {
	next := len(b.Tensors)
	for i, l := range b.Lists {
		if l == nil {
			continue
		}
		if da.lists == nil {
			da.lists, da.tables = map[int][]cudadrv.DevicePtr{}, map[int]cudadrv.DevicePtr{}
		}
		ptrs := da.ptrs[next : next+len(l)]
		next += len(l)
		da.lists[i] = ptrs
		addrs := make([]uint64, len(ptrs))
		for j, p := range ptrs {
			addrs[j] = uint64(p)
		}
		table := listTable(addrs, l)
		p, err := c.Dev.Alloc(len(table))
		if err != nil {
			return fmt.Errorf("cuda: allocating the table of list %s: %w", b.Kernel.Func.Params[i].Name, err)
		}
		da.spans = append(da.spans, &devSpan{host: table, dev: p})
		if err := c.Dev.CopyHtoD(p, table); err != nil {
			return fmt.Errorf("cuda: uploading the table of list %s: %w", b.Kernel.Func.Params[i].Name, err)
		}
		da.tables[i] = p
	}
	return nil
}
