package ir

// GlobalAccess says what an op does to the array that is its first operand
// (global memory): read it, write it, or update it atomically (read and
// write, in an order the hardware picks). It is a column of the op table;
// the GPU check derives from it which arrays a kernel may write, so that
// every one of them is poisoned before a launch and compared after it.
type GlobalAccess uint8

const (
	// GlobalRead: the op reads elements of the array (load, gather, the
	// copies into shared memory).
	GlobalRead GlobalAccess = 1 << iota
	// GlobalWrite: the op overwrites elements of the array with values that
	// do not depend on what was there (store, scatter, tma_store).
	GlobalWrite
	// GlobalAtomic: the op reads and writes elements of the array
	// atomically (atomic_rmw, atomic_cas); several blocks may combine into
	// one element in any order.
	GlobalAtomic
)

// Reads reports whether an access reads the array's old contents (plain or
// atomic reads).
func (a GlobalAccess) Reads() bool { return a&(GlobalRead|GlobalAtomic) != 0 }

// Writes reports whether an access may change the array.
func (a GlobalAccess) Writes() bool { return a&(GlobalWrite|GlobalAtomic) != 0 }

// WriteOnly reports whether an access writes the array without reading it:
// its old contents cannot reach any result, so they may be poisoned.
func (a GlobalAccess) WriteOnly() bool { return a.Writes() && !a.Reads() }

func (a GlobalAccess) String() string {
	s := ""
	for _, p := range []struct {
		bit  GlobalAccess
		name string
	}{{GlobalRead, "read"}, {GlobalWrite, "write"}, {GlobalAtomic, "atomic"}} {
		if a&p.bit != 0 {
			if s != "" {
				s += "+"
			}
			s += p.name
		}
	}
	if s == "" {
		return "none"
	}
	return s
}

// ParamAccess returns, per parameter of f, the union of what f's ops do to
// it (zero for scalars and for arrays f never touches), from the op table's
// Global column: every op whose first operand is the parameter's value. An
// access to an element of a list of arrays (list_get's result) counts for
// the list: any element may be the one accessed; an access to a slice of
// an array (array_slice's result) counts for the array.
func ParamAccess(f *Func) []GlobalAccess {
	access := map[*Value]GlobalAccess{}
	if f.Body != nil {
		f.Body.Walk(func(in *Instr) {
			if a := in.Op.Info().Global; a != 0 && len(in.Args) > 0 {
				access[ArrayRoot(in.Args[0])] |= a
			}
		})
	}
	out := make([]GlobalAccess, len(f.Params))
	for i, p := range f.Params {
		switch p.Type.(type) {
		case *Array, *ArrayList:
			if p.Value != nil {
				out[i] = access[p.Value]
			}
		}
	}
	return out
}

// ArrayRoot is the value an array operand comes from: the list parameter
// of a list_get's result, the sliced array's root for an array_slice's
// (a view of its memory), the array itself otherwise.
func ArrayRoot(v *Value) *Value {
	for v != nil && v.Def != nil {
		switch v.Def.Op {
		case OpListGet:
			return v.Def.Args[0]
		case OpArraySlice:
			v = v.Def.Args[0]
			continue
		}
		break
	}
	return v
}

// WrittenParams returns the indices of the array parameters that f may
// write (store, scatter, atomics, TMA stores), in parameter order: the
// kernel's outputs.
func WrittenParams(f *Func) []int {
	var out []int
	for i, a := range ParamAccess(f) {
		if a.Writes() {
			out = append(out, i)
		}
	}
	return out
}

// SharedAccess is what an op does to the block's shared memory. It is a
// column of the op table; lower's barriers pass derives the block barriers
// of the scratch region from it, instead of each emitter bracketing its
// own use of the region with barriers that nothing above ptxgen can see.
type SharedAccess uint8

const (
	// SharedNone: the op does not touch shared memory.
	SharedNone SharedAccess = iota
	// SharedExchange: the op may move a tile's elements between threads
	// through the scratch region: every thread writes its elements, the
	// threads synchronize, and every thread reads what it needs. Whether
	// an instance does is the lowering's to say (a reduce inside one warp
	// uses shuffles only; lower.Exchanges).
	SharedExchange
	// SharedRead: the op reads a shared-memory tile (mma fragments, the
	// wgmma operands, the source of a TMA store).
	SharedRead
	// SharedWrite: the op writes a shared-memory tile from registers.
	SharedWrite
	// SharedAsync: the op starts a copy into shared memory that completes
	// later (cp.async, TMA), ordered by waits and mbarriers.
	SharedAsync
	// SharedSync: the op is a barrier: the threads it names wait for each
	// other, and their shared and global accesses before it are visible
	// to each other after it.
	SharedSync
)

var sharedAccessNames = [...]string{"none", "exchange", "read", "write", "async", "sync"}

func (a SharedAccess) String() string { return sharedAccessNames[a] }

// MMAKStep is the K of one tensor-core instruction for mma inputs of dtype
// d: 16 for 16-bit inputs, 8 for f32/tf32, 32 for one-byte inputs (float8,
// int8, uint8: m16n8k32, each 32-bit fragment register holds four). lower's
// k-steps and pad pass and the GPU check's accumulation bound count in it.
func MMAKStep(d DType) int {
	switch {
	case d == F32 || d == TF32:
		return 8
	case d.IsFloat8() || d.IsByteInt():
		return 32
	}
	return 16
}
