package ir

// This file declares what attributes may appear on an instruction and
// which kind of value each holds. There are two sources, both checked by
// Verify and consulted by Parse:
//
//   - the op's own attributes, in its op table row (OpInfo.Attrs): what the
//     op means, set by the builder and read by the interpreter;
//   - the lowered attributes (LoweredAttrs): the schedule that the lower
//     package records on ordinary ops for ptxgen, such as a tile's layout
//     or a load's shared-memory ring.
//
// An attribute that neither declares for the op, or whose value is not of
// the declared kind, is a verifier error, so that a misspelt key or a
// value of the wrong Go type is caught after the pass that wrote it rather
// than read back as a zero by the backend.

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// AttrKind is the kind of an attribute's value, and with it the Go type
// that holds the value in Attrs.
type AttrKind uint8

const (
	AttrInvalid AttrKind = iota
	// AttrInt is an int64: {axis=1}.
	AttrInt
	// AttrInts is an []int: {perm=[1, 0]}.
	AttrInts
	// AttrFloat is a float64: {scale=0.5} (printed with a fraction or exponent).
	AttrFloat
	// AttrBool is a bool: {pipelined=true}.
	AttrBool
	// AttrString is a string, printed bare when it is an identifier and
	// quoted otherwise: {name="two words"}.
	AttrString
	// AttrEnum is a string from AttrSpec.Enum, printed bare: {pred=lt}.
	AttrEnum
	// AttrScalar is an int64, float64 or bool whose Go type the
	// instruction's result dtype decides: const's {value=1.5}.
	AttrScalar
	// AttrLayout is a *Layout, the register layout of the tile that the
	// instruction defines: {layout=#mma0} (see layout.go).
	AttrLayout
)

var attrKindNames = [...]string{
	AttrInvalid: "invalid",
	AttrInt:     "int",
	AttrInts:    "int list",
	AttrFloat:   "float",
	AttrBool:    "bool",
	AttrString:  "string",
	AttrEnum:    "enum",
	AttrScalar:  "int, float or bool",
	AttrLayout:  "layout",
}

func (k AttrKind) String() string {
	if int(k) < len(attrKindNames) {
		return attrKindNames[k]
	}
	return fmt.Sprintf("AttrKind(%d)", k)
}

// AttrSpec declares one attribute: its key, the kind of its value, and
// whether an instruction may leave it out.
type AttrSpec struct {
	Name string
	Kind AttrKind
	// Enum lists the values of an AttrEnum attribute.
	Enum []string
	// Optional attributes may be absent; the others are required.
	Optional bool
}

// check returns "" when val is a value of the attribute's kind, and
// otherwise what is wrong with it.
func (s *AttrSpec) check(val any) string {
	ok := false
	switch s.Kind {
	case AttrInt:
		_, ok = val.(int64)
	case AttrInts:
		_, ok = val.([]int)
	case AttrFloat:
		_, ok = val.(float64)
	case AttrBool:
		_, ok = val.(bool)
	case AttrString:
		_, ok = val.(string)
	case AttrEnum:
		if str, isStr := val.(string); isStr {
			if slices.Contains(s.Enum, str) {
				return ""
			}
			return fmt.Sprintf("attribute %s=%s, want one of %s", s.Name, formatAttrValue(val), strings.Join(s.Enum, ", "))
		}
	case AttrScalar:
		switch val.(type) {
		case int64, float64, bool:
			ok = true
		}
	case AttrLayout:
		_, ok = val.(*Layout)
	}
	if ok {
		return ""
	}
	return fmt.Sprintf("attribute %s=%s is %s, want %s (%s)", s.Name, formatAttrValue(val), attrValueKind(val), s.Kind, attrGoTypes[s.Kind])
}

// attrGoTypes are the Go types that hold each kind's values in Attrs.
var attrGoTypes = [...]string{
	AttrInvalid: "none",
	AttrInt:     "int64",
	AttrInts:    "[]int",
	AttrFloat:   "float64",
	AttrBool:    "bool",
	AttrString:  "string",
	AttrEnum:    "string",
	AttrScalar:  "int64, float64 or bool",
	AttrLayout:  "*ir.Layout",
}

// attrValueKind describes the kind of value that val is, for messages.
func attrValueKind(val any) string {
	switch val.(type) {
	case int64:
		return "an int"
	case []int:
		return "an int list"
	case float64:
		return "a float"
	case bool:
		return "a bool"
	case string:
		return "a string"
	case *Layout:
		return "a layout"
	}
	return fmt.Sprintf("of Go type %T", val)
}

// LoweredAttr declares an attribute that lowering records on ordinary ops:
// the GPU schedule, which the target-free IR does not have and the
// interpreter ignores. None is required.
type LoweredAttr struct {
	AttrSpec
	// Ops are the ops that may carry the attribute.
	Ops []Op
	// Doc says what the attribute records, and which pass sets it.
	Doc string
}

// The keys of the lowered attributes, for the passes that write them and
// the backends that read them.
const (
	AttrKeyLayout     = "layout"
	AttrKeyStaged     = "staged"
	AttrKeySmem       = "smem"
	AttrKeyStages     = "stages"
	AttrKeyRowBytes   = "row_bytes"
	AttrKeyStageBytes = "stage_bytes"
	// The sm_90a path (lower's warpspec pass).
	AttrKeySlabBytes = "slab_bytes"
	// On the if that splits a warp-specialized kernel into roles: per
	// region, the threads of its role and the named barrier they
	// synchronize on (0: the role has none).
	AttrKeyRoleThreads  = "role_threads"
	AttrKeyRoleBarriers = "role_barriers"
)

// LoweredAttrs is the table of lowered attributes. The lower package's
// doc comment describes the passes that set them.
var LoweredAttrs = []LoweredAttr{
	lowered(AttrKeyLayout, AttrLayout, tileOps,
		"how the tile result is spread over the block's threads, or that it lives in shared memory (pass layout)"),
	lowered(AttrKeyStaged, AttrBool, tileOps,
		"a register tile that an mma reads through shared memory (pass layout)"),
	lowered(AttrKeySmem, AttrInt, tileOps,
		"byte offset of the tile's shared-memory copy (or ring) from the shared base (pass smem)"),
	lowered(AttrKeyStages, AttrInt, tileOps,
		"on a shared tile, the copies in its ring (pass smem; pipeline moves it to the ring's smem_alloc)"),
	lowered(AttrKeyRowBytes, AttrInt, tileOps,
		"bytes per row of a shared tile (pass smem)"),
	lowered(AttrKeyStageBytes, AttrInt, tileOps,
		"bytes of one copy of a shared tile, a multiple of 1024 (pass smem)"),
	lowered(AttrKeySlabBytes, AttrInt, []Op{OpSmemAlloc, OpSmemStage},
		"on a TMA ring, bytes between the 64-column slabs of one copy (each slab rows x 128 bytes, 128-byte swizzled) (pass warpspec)"),
	lowered(AttrKeyRoleThreads, AttrInts, []Op{OpIf},
		"on the if that splits a warp-specialized kernel into roles, the threads that run each region (pass warpspec)"),
	lowered(AttrKeyRoleBarriers, AttrInts, []Op{OpIf},
		"on that if, the named barrier (bar.sync id, threads) that each region's threads synchronize on, 0 where the role has none (pass warpspec)"),
	lowered(AttrKeyBarrierID, AttrInt, exchangeOps,
		"on an op that exchanges elements through the scratch region inside a role, the role's named barrier, which separates its writes from its reads (pass barriers; absent: the block's)"),
	lowered(AttrKeyThreads, AttrInt, exchangeOps,
		"with id, the threads of that named barrier (pass barriers)"),
}

// lowered makes a row of LoweredAttrs; lowered attributes are never required.
func lowered(name string, kind AttrKind, ops []Op, doc string) LoweredAttr {
	return LoweredAttr{AttrSpec: AttrSpec{Name: name, Kind: kind, Optional: true}, Ops: ops, Doc: doc}
}

// tileOps are the ordinary ops that may define a tile value
// (OpInfo.TileResult). The structural ops are not among them: their
// results take their layouts from their regions' values.
var tileOps = func() []Op {
	var ops []Op
	for o := Op(1); o < NumOps; o++ {
		if !opTable[o].TileResult || opTable[o].LoweredOnly {
			continue // GPU-level ops declare their own attributes
		}
		ops = append(ops, o)
	}
	return ops
}()

// exchangeOps are the ops that may move tile elements between threads
// through the scratch region (the op table's Shared column).
var exchangeOps = func() []Op {
	var ops []Op
	for o := Op(1); o < NumOps; o++ {
		if opTable[o].Shared == SharedExchange {
			ops = append(ops, o)
		}
	}
	return ops
}()

// AttrSpecOf returns the declaration of attribute key on op: the op's own
// one, else a lowered attribute that op may carry; nil if neither.
func AttrSpecOf(op Op, key string) *AttrSpec {
	info := op.Info()
	for i := range info.Attrs {
		if info.Attrs[i].Name == key {
			return &info.Attrs[i]
		}
	}
	for i := range LoweredAttrs {
		if la := &LoweredAttrs[i]; la.Name == key && slices.Contains(la.Ops, op) {
			return &la.AttrSpec
		}
	}
	return nil
}

// attrKindOf is the kind the parser reads key's value as: the declared
// one on op, else that of a lowered attribute of that name on any op (the
// verifier then reports the misplaced key), else AttrInvalid.
func attrKindOf(op Op, key string) AttrKind {
	if s := AttrSpecOf(op, key); s != nil {
		return s.Kind
	}
	for _, la := range LoweredAttrs {
		if la.Name == key {
			return la.Kind
		}
	}
	return AttrInvalid
}

// init checks the tables: keys unique per op, enums non-empty, and a
// lowered attribute never redeclaring an op's own attribute.
func init() {
	for o := Op(0); o < NumOps; o++ {
		seen := map[string]bool{}
		for _, s := range opTable[o].Attrs {
			if seen[s.Name] || s.Kind == AttrInvalid || (s.Kind == AttrEnum) != (len(s.Enum) > 0) {
				panic(fmt.Sprintf("ir: op %s: bad attribute declaration %+v", opTable[o].Name, s))
			}
			seen[s.Name] = true
		}
	}
	seen := map[string]bool{}
	for _, la := range LoweredAttrs {
		if seen[la.Name] || la.Kind == AttrInvalid || len(la.Ops) == 0 {
			panic(fmt.Sprintf("ir: bad lowered attribute declaration %+v", la))
		}
		seen[la.Name] = true
		for _, o := range la.Ops {
			for _, s := range opTable[o].Attrs {
				if s.Name == la.Name {
					panic(fmt.Sprintf("ir: lowered attribute %s redeclares op %s's own", la.Name, o))
				}
			}
		}
	}
}

// Attrs are an instruction's attributes, kept sorted by key. Each value
// has the Go type of its declared kind (see AttrKind): int64, []int,
// float64, bool, string or *Layout.
type Attrs []Attr

// Attr is one key=value attribute.
type Attr struct {
	Key string
	Val any
}

// Set adds or replaces an attribute, keeping the keys sorted. For
// convenience it stores an int as int64 and an []int64 as []int.
func (a *Attrs) Set(key string, val any) {
	switch v := val.(type) {
	case int:
		val = int64(v)
	case []int64:
		ints := make([]int, len(v))
		for i, x := range v {
			ints[i] = int(x)
		}
		val = ints
	}
	for i := range *a {
		if (*a)[i].Key == key {
			(*a)[i].Val = val
			return
		}
	}
	*a = append(*a, Attr{key, val})
	sort.Slice(*a, func(i, j int) bool { return (*a)[i].Key < (*a)[j].Key })
}

// Get returns the attribute's value, or nil.
func (a Attrs) Get(key string) any {
	for _, x := range a {
		if x.Key == key {
			return x.Val
		}
	}
	return nil
}

// Int returns an integer attribute (0 if absent or of another kind).
func (a Attrs) Int(key string) int {
	v, _ := a.Get(key).(int64)
	return int(v)
}

// Str returns a string or enum attribute ("" if absent).
func (a Attrs) Str(key string) string {
	v, _ := a.Get(key).(string)
	return v
}

// Ints returns an integer-list attribute (nil if absent).
func (a Attrs) Ints(key string) []int {
	v, _ := a.Get(key).([]int)
	return v
}

// Bool returns a bool attribute (false if absent).
func (a Attrs) Bool(key string) bool {
	v, _ := a.Get(key).(bool)
	return v
}

// The keys of the op attributes that most phases read, for the accessors
// below and the op table's declarations.
const (
	AttrKeyAxis    = "axis"
	AttrKeyKind    = "kind"
	AttrKeyPad     = "pad"
	AttrKeyPred    = "pred"
	AttrKeyPerm    = "perm"
	AttrKeyReverse = "reverse"
)

// The keys of the other op attributes, each read by one or two phases
// (the op table's rows say which ops declare them).
const (
	AttrKeyValue       = "value"        // const
	AttrKeyFormat      = "format"       // printf
	AttrKeyMessage     = "message"      // assert
	AttrKeyMemoryOrder = "memory_order" // the atomics
	AttrKeyMemoryScope = "memory_scope" // the atomics
	AttrKeyCheckBounds = "check_bounds" // the array accesses
	AttrKeyLatency     = "latency"      // load, store (a hint)
	AttrKeyAllowTMA    = "allow_tma"    // load, store (a hint)
	AttrKeyKStep       = "kstep"        // frag_load
	AttrKeyOperand     = "operand"      // frag_load: "a" or "b"
	AttrKeyPitch       = "pitch"        // smem_stage, smem_store_global
	AttrKeyCol         = "col"          // smem_stage
	AttrKeyPart        = "part"         // async_copy
	AttrKeyParts       = "parts"        // async_copy
	AttrKeyPath        = "path"         // async_copy (CopyAuto...)
	AttrKeyBarrierID   = "id"           // barrier: the named barrier
	AttrKeyThreads     = "threads"      // barrier: the threads it waits for
	AttrKeyPending     = "pending"      // async_wait, wgmma_wait
	AttrKeyCount       = "count"        // mbar_init: arrivals per phase
	AttrKeyBytes       = "bytes"        // mbar_expect
	AttrKeyTransB      = "trans_b"      // wgmma
	AttrKeyZeroInit    = "zero_init"    // wgmma
	AttrKeyRegs        = "regs"         // set_max_regs
	AttrKeyRead        = "read"         // tma_store_wait
	// mbar_arrive: an arrival at the same barrier in each block of a
	// cluster of that many. The kernel header's AttrKeyCluster has the
	// same spelling and another meaning (the blocks per cluster).
	AttrKeyArriveCluster = "cluster"
	AttrKeySplit         = "split" // tma_load_pair: "slabs" or "rows"
)

// declaredAttr is in's attribute key (nil when absent), after checking
// that in's op declares key with one of kinds: reading an attribute that
// the op does not have is a bug of the reader (a misspelt key, or the
// wrong op), which Attrs.Int and its kin would answer with a silent zero.
func (in *Instr) declaredAttr(key string, kinds ...AttrKind) any {
	if s := AttrSpecOf(in.Op, key); s == nil || !slices.Contains(kinds, s.Kind) {
		panic(fmt.Sprintf("ir: %s declares no %s attribute %s", in.Op, kinds[0], key))
	}
	return in.Attrs.Get(key)
}

// IntAttr is in's int attribute key (0 when absent), checked: in's op
// must declare key as an int (see declaredAttr). The attributes that most
// phases read have accessors of their own (Axis...). Where a phase reads
// an attribute on ops that may not declare it and relies on the zero (the
// typing rules, which run before the op table is built; a pass looking at
// every op), it reads Attrs with the key's constant.
func (in *Instr) IntAttr(key string) int {
	v, _ := in.declaredAttr(key, AttrInt).(int64)
	return int(v)
}

// BoolAttr is in's bool attribute key (false when absent), checked.
func (in *Instr) BoolAttr(key string) bool {
	v, _ := in.declaredAttr(key, AttrBool).(bool)
	return v
}

// StrAttr is in's string or enum attribute key ("" when absent), checked.
func (in *Instr) StrAttr(key string) string {
	v, _ := in.declaredAttr(key, AttrString, AttrEnum).(string)
	return v
}

// AttrOf is in's attribute key of whatever kind its op declares it with
// (nil when absent), checked: for presence tests and scalar values.
func (in *Instr) AttrOf(key string) any {
	if AttrSpecOf(in.Op, key) == nil {
		panic(fmt.Sprintf("ir: %s declares no attribute %s", in.Op, key))
	}
	return in.Attrs.Get(key)
}

// Axis is the axis attribute of bid, num_blocks, dim, stride, grid_size,
// reduce, scan, cat, reduce_fn and scan_fn.
func (in *Instr) Axis() int {
	v, _ := in.declaredAttr(AttrKeyAxis, AttrInt).(int64)
	return int(v)
}

// Kind is the kind attribute of reduce and scan (ReduceSum...) and of
// atomic_rmw (AtomicAdd...).
func (in *Instr) Kind() string {
	v, _ := in.declaredAttr(AttrKeyKind, AttrEnum).(string)
	return v
}

// Pad is the padding mode of load and async_copy (PadZero...).
func (in *Instr) Pad() string {
	v, _ := in.declaredAttr(AttrKeyPad, AttrEnum).(string)
	return v
}

// Pred is cmp's predicate (PredEQ...).
func (in *Instr) Pred() string {
	v, _ := in.declaredAttr(AttrKeyPred, AttrEnum).(string)
	return v
}

// Perm is permute's permutation: result dim i is operand dim Perm()[i].
func (in *Instr) Perm() []int {
	v, _ := in.declaredAttr(AttrKeyPerm, AttrInts).([]int)
	return v
}

// Reverse is the reverse attribute of scan and scan_fn (false when absent).
func (in *Instr) Reverse() bool {
	v, _ := in.declaredAttr(AttrKeyReverse, AttrBool).(bool)
	return v
}
