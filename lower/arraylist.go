package lower

// Lists of arrays (ir.ArrayList) on the sm_90a paths: TMA copies through
// a tensor map per array, which the launcher encodes before the launch
// from the array's address, extents and strides. An array taken from a
// list at a run-time index (list_get) is known only inside the kernel, so
// no tensor map exists for it: a kernel whose mma operands come from one
// stays on the cp.async paths, and says so in --explain; so does one whose
// operands come from a slice of an array (array_slice), whose base is an
// element of the array known only in the kernel.

import "github.com/tilec/tilec/ir"

// listOperandReason is why the TMA + wgmma paths refuse f, or nil: the
// first load or store of f whose array is an element of a list.
func listOperandReason(f *ir.Func) *Reason {
	var r *Reason
	f.Body.Walk(func(in *ir.Instr) {
		if r != nil || in.Op != ir.OpLoad && in.Op != ir.OpStore {
			return
		}
		if ir.Sliced(in.Args[0]) {
			r = refuse(in, "this %s's array is a slice (array_slice), whose base is known only in the kernel: TMA needs a tensor map of each array when the kernel is launched, so the slice is copied with cp.async", in.Op)
			return
		}
		if get := in.Args[0].Def; get != nil && get.Op == ir.OpListGet {
			name := "a list"
			if i := f.ParamIndex(get.Args[0]); i >= 0 {
				name = "list " + f.Params[i].Name
			}
			r = refuse(in, "this %s's array is an element of %s taken at a run-time index (list_get): TMA needs each array's tensor map when the kernel is launched, so the list's arrays are copied with cp.async", in.Op, name)
		}
	})
	return r
}
