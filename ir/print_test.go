package ir

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tilec/tilec/lang/golden"
)

// kb builds IR in tests: one op at a time, appended to the current block.
type kb struct {
	f *Func
	b *Block
}

func (k *kb) op(op Op, t Type, attrs Attrs, args ...*Value) *Value {
	var in *Instr
	if t == nil {
		in = k.f.NewInstr(op, args)
	} else {
		in = k.f.NewInstr(op, args, t)
	}
	for _, a := range attrs {
		in.Attrs.Set(a.Key, a.Val)
	}
	k.b.Append(in)
	if t == nil {
		return nil
	}
	return in.Result()
}

func (k *kb) i32(x int64) *Value {
	return k.op(OpConst, ScalarOf(I32), Attrs{{"value", x}})
}

// buildMatmul builds the seed kernel (testdata/kernels/matmul.tile with swizzle_2d
// inlined), as the builder would.
func buildMatmul() *Func {
	f := NewFunc("matmul")
	arr := ArrayOf(F16, 2)
	A := f.AddParam("A", arr, []Dim{{Sym: "M"}, {Sym: "K"}}).Value
	B := f.AddParam("B", arr, []Dim{{Sym: "K"}, {Sym: "N"}}).Value
	C := f.AddParam("C", arr, []Dim{{Sym: "M"}, {Sym: "N"}}).Value
	f.Consts = []Const{{"T", F16}, {"tm", int64(128)}, {"tn", int64(256)}, {"tk", int64(64)}, {"GROUP_SIZE_M", int64(8)}}
	sym := func(s string) *HostExpr { return &HostExpr{Op: HostSym, Sym: s} }
	num := func(v int64) *HostExpr { return &HostExpr{Op: HostConst, Val: v} }
	bin := func(op HostOp, x, y *HostExpr) *HostExpr { return &HostExpr{Op: op, Args: []*HostExpr{x, y}} }
	f.Grid = [3]*HostExpr{
		bin(HostMul, bin(HostCdiv, sym("M"), num(128)), bin(HostCdiv, sym("N"), num(256))),
		num(1), num(1),
	}

	k := &kb{f: f, b: f.Body}
	i32 := ScalarOf(I32)
	bid := k.op(OpBlockID, i32, Attrs{{"axis", int64(0)}})
	M := k.op(OpDim, i32, Attrs{{"axis", int64(0)}}, A)
	N := k.op(OpDim, i32, Attrs{{"axis", int64(1)}}, B)
	cdiv := func(x *Value, d int64) *Value {
		return k.op(OpFloorDiv, i32, nil, k.op(OpAdd, i32, nil, x, k.i32(d-1)), k.i32(d))
	}
	numBidM := cdiv(M, 128)
	numBidN := cdiv(N, 256)
	group := k.i32(8)
	numBidInGroup := k.op(OpMul, i32, nil, group, numBidN)
	groupID := k.op(OpFloorDiv, i32, nil, bid, numBidInGroup)
	firstBidM := k.op(OpMul, i32, nil, groupID, group)
	groupSizeM := k.op(OpMin, i32, nil, k.op(OpSub, i32, nil, numBidM, firstBidM), group)
	bidM := k.op(OpAdd, i32, nil, firstBidM, k.op(OpMod, i32, nil, bid, groupSizeM))
	bidN := k.op(OpFloorDiv, i32, nil, k.op(OpMod, i32, nil, bid, numBidInGroup), groupSizeM)
	numTilesK := cdiv(k.op(OpDim, i32, Attrs{{"axis", int64(1)}}, A), 64)

	accT := TileOf(F32, 128, 256)
	acc0 := k.op(OpSplat, accT, nil, k.op(OpConst, ScalarOf(F32), Attrs{{"value", 0.0}}))
	loop := f.NewInstr(OpFor, []*Value{k.i32(0), numTilesK, k.i32(1), acc0}, accT)
	k.b.Append(loop)
	body := loop.NewRegion()
	iv := f.AddBlockParam(body, i32)
	acc := f.AddBlockParam(body, accT)
	kk := &kb{f: f, b: body}
	a := kk.op(OpLoad, TileOf(F16, 128, 64), Attrs{{"pad", PadZero}}, A, bidM, iv)
	b := kk.op(OpLoad, TileOf(F16, 64, 256), Attrs{{"pad", PadZero}}, B, iv, bidN)
	next := kk.op(OpMMA, accT, nil, a, b, acc)
	kk.op(OpYield, nil, nil, next)

	out := k.op(OpConvert, TileOf(F16, 128, 256), nil, loop.Result())
	k.op(OpStore, nil, nil, C, bidM, bidN, out)
	k.op(OpReturn, nil, nil)
	return f
}

func TestPrintMatmulBuilt(t *testing.T) {
	f := buildMatmul()
	if err := Verify(f); err != nil {
		t.Fatalf("Verify: %v", err)
	}
	got := Print(f)
	golden.Read(t, filepath.Join("testdata", "text", "matmul.txtar")).Check(t, "ir", got)
	// Printing must not change the Func.
	if again := Print(f); again != got {
		t.Errorf("second Print differs")
	}
}

func TestPrintFloat(t *testing.T) {
	for _, tc := range []struct {
		x    float64
		want string
	}{
		{0, "0.0"},
		{math.Copysign(0, -1), "-0.0"},
		{1, "1.0"},
		{-2.5, "-2.5"},
		{1e21, "1e+21"},
		{1e-7, "1e-07"},
		{100000, "100000.0"},
		{0.1, "0.1"},
		{math.MaxFloat64, "1.7976931348623157e+308"},
		{math.SmallestNonzeroFloat64, "5e-324"},
		{math.Inf(1), "+inf"},
		{math.Inf(-1), "-inf"},
		{math.NaN(), "+nan"},
	} {
		got := formatFloatText(tc.x)
		if got != tc.want {
			t.Errorf("formatFloatText(%v) = %q, want %q", tc.x, got, tc.want)
		}
		// It must read back as the same float, in an attribute and a constant.
		f := NewFunc("k")
		f.Consts = []Const{{"c", tc.x}}
		k := &kb{f: f, b: f.Body}
		k.op(OpConst, ScalarOf(F64), Attrs{{"value", tc.x}})
		k.op(OpReturn, nil, nil)
		g, err := ParseFunc(Print(f))
		if err != nil {
			t.Fatalf("%v: %v", tc.x, err)
		}
		c := g.Consts[0].Value.(float64)
		v := g.Body.Instrs[0].Attrs.Get("value").(float64)
		for _, y := range []float64{c, v} {
			if math.Float64bits(y) != math.Float64bits(tc.x) && !(math.IsNaN(y) && math.IsNaN(tc.x)) {
				t.Errorf("%v read back as %v", tc.x, y)
			}
		}
	}
}

func TestPrintAttrs(t *testing.T) {
	f := NewFunc("k")
	in := f.NewInstr(OpReturn, nil)
	// Out of order on purpose: Print sorts.
	in.Attrs = Attrs{
		{"z", int64(-3)},
		{"b", true},
		{"c", false},
		{"d", []int{1, 0, 2}},
		{"e", []int{}},
		{"f", "zero"},
		{"g", "true"},
		{"h", "two words"},
		{"i", "inf"},
		{"j", "nan"},
		{"k", math.Inf(-1)},
		{"a", 2.0},
	}
	f.Body.Append(in)
	want := `return {a=2.0, b=true, c=false, d=[1, 0, 2], e=[], f=zero, g="true", h="two words", i=inf, j=nan, k=-inf, z=-3}`
	if got := in.String(); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	g, err := ParseFunc(Print(f))
	if err != nil {
		t.Fatal(err)
	}
	var wantAttrs Attrs
	for _, a := range in.Attrs {
		wantAttrs.Set(a.Key, a.Val)
	}
	if diff := cmp.Diff(wantAttrs, g.Body.Instrs[0].Attrs); diff != "" {
		t.Errorf("attrs after round trip (-want +got):\n%s", diff)
	}
}

// TestPrintLayoutAliases checks that each distinct register layout of a
// kernel prints once, before it, named by kind and order of first use;
// that smem layouts print in place; that the aliases read back to equal
// layouts; and that one instruction alone prints its layout in full.
func TestPrintLayoutAliases(t *testing.T) {
	lanes := [][]int{{0, 2}, {0, 4}, {1, 0}, {2, 0}, {4, 0}}
	mma := func() *Layout {
		return &Layout{Kind: LayoutMMA, Warps: []int{1, 1}, Reg: [][]int{{0, 1}, {8, 0}}, Lane: lanes}
	}
	blocked := &Layout{Kind: LayoutBlocked, Reg: [][]int{{0, 1}}, Lane: [][]int{{0, 2}, {0, 4}, {1, 0}, {2, 0}, {4, 0}}, Warp: [][]int{}}
	f := NewFunc("k")
	x := f.AddParam("x", ScalarOf(F32), nil).Value
	k := &kb{f: f, b: f.Body}
	var a1, a2, b, s Attrs
	a1.Set(AttrKeyLayout, mma())
	a2.Set(AttrKeyLayout, mma()) // equal to a1's, another pointer: one alias
	b.Set(AttrKeyLayout, blocked)
	s.Set(AttrKeyLayout, &Layout{Kind: LayoutSmem})
	k.op(OpSplat, TileOf(F32, 8, 8), b, x)
	acc := k.op(OpSplat, TileOf(F32, 16, 8), a1, x)
	k.op(OpConvert, TileOf(F16, 16, 8), a2, acc)
	k.op(OpSplat, TileOf(F32, 16, 16), s, x)
	f.Facts.NumWarps = 1
	k.op(OpReturn, nil, nil)
	want := `#blocked0 = blocked<reg=[[0, 1]], lane=[[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp=[]>
#mma0 = mma<warps=[1, 1], reg=[[0, 1], [8, 0]], lane=[[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp=[]>
kernel @k(%0 x: f32)
    lowered(num_warps=1) {
  %1 = splat %0 {layout=#blocked0} : tile<8x8xf32>
  %2 = splat %0 {layout=#mma0} : tile<16x8xf32>
  %3 = convert %2 {layout=#mma0} : tile<16x8xf16>
  %4 = splat %0 {layout=smem} : tile<16x16xf32>
  return
}
`
	got := Print(f)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("Print (-want +got):\n%s", diff)
	}
	if err := Verify(f); err != nil {
		t.Fatal(err)
	}
	g, err := ParseFunc(got)
	if err != nil {
		t.Fatal(err)
	}
	if again := Print(g); again != got {
		t.Errorf("Print(Parse(Print(f))) differs:\n%s", cmp.Diff(got, again))
	}
	for i, in := range g.Body.Instrs[:4] {
		l, ok := in.Attrs.Get(AttrKeyLayout).(*Layout)
		if !ok || !l.Equal(f.Body.Instrs[i].Attrs.Get(AttrKeyLayout).(*Layout)) {
			t.Errorf("instruction %d: layout %v after the round trip, want %v", i, in.Attrs.Get(AttrKeyLayout), f.Body.Instrs[i].Attrs.Get(AttrKeyLayout))
		}
	}
	if g.Body.Instrs[1].Attrs.Get(AttrKeyLayout) != g.Body.Instrs[2].Attrs.Get(AttrKeyLayout) {
		t.Errorf("uses of one alias parse to different layouts")
	}
	if got, want := f.Body.Instrs[0].String(), "%1 = splat %0 {layout="+blocked.String()+"} : tile<8x8xf32>"; got != want {
		t.Errorf("Instr.String = %s, want %s", got, want)
	}
	// The same layout in two kernels of a module: each kernel has its own aliases.
	m := PrintModule(&Module{Funcs: []*Func{f, f}})
	if strings.Count(m, "#mma0 = ") != 2 {
		t.Errorf("PrintModule does not define each kernel's aliases before it:\n%s", m)
	}
	if _, err := Parse(m); err != nil {
		t.Errorf("Parse(PrintModule): %v", err)
	}
}

func TestPrintGrid(t *testing.T) {
	sym := func(s string) *HostExpr { return &HostExpr{Op: HostSym, Sym: s} }
	num := func(v int64) *HostExpr { return &HostExpr{Op: HostConst, Val: v} }
	bin := func(op HostOp, x, y *HostExpr) *HostExpr { return &HostExpr{Op: op, Args: []*HostExpr{x, y}} }
	M, N, K := sym("M"), sym("N"), sym("K")
	for _, tc := range []struct {
		e    *HostExpr
		want string
	}{
		{num(-3), "-3"},
		{bin(HostMul, bin(HostCdiv, M, num(128)), bin(HostCdiv, N, num(256))), "cdiv(M, 128) * cdiv(N, 256)"},
		{bin(HostSub, M, bin(HostSub, N, K)), "M - (N - K)"},
		{bin(HostSub, bin(HostSub, M, N), K), "M - N - K"},
		{bin(HostMul, bin(HostAdd, M, N), K), "(M + N) * K"},
		{bin(HostAdd, M, bin(HostMul, N, K)), "M + N * K"},
		{bin(HostFloorDiv, M, bin(HostMul, N, K)), "M // (N * K)"},
		{bin(HostMod, bin(HostFloorDiv, M, N), K), "M // N % K"},
		{bin(HostSub, M, num(-1)), "M - -1"},
		{bin(HostMin, bin(HostAdd, M, num(1)), bin(HostMax, N, K)), "min(M + 1, max(N, K))"},
		{bin(HostMul, num(2), bin(HostCdiv, bin(HostMul, M, N), num(64))), "2 * cdiv(M * N, 64)"},
	} {
		got := formatHostExpr(tc.e)
		if got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
			continue
		}
		// Round trip through a kernel's grid: the same tree comes back.
		f := NewFunc("k")
		f.AddParam("A", ArrayOf(F32, 3), []Dim{{Sym: "M"}, {Sym: "N"}, {Sym: "K"}})
		f.Grid = [3]*HostExpr{tc.e, num(1), nil}
		f.Body.Append(f.NewInstr(OpReturn, nil))
		text := Print(f)
		g, err := ParseFunc(text)
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		if diff := cmp.Diff(f.Grid, g.Grid); diff != "" {
			t.Errorf("%s: grid after round trip (-want +got):\n%s", got, diff)
		}
		if err := Verify(g); err != nil {
			t.Errorf("%s: %v", got, err)
		}
	}
}

func TestPrintMalformed(t *testing.T) {
	// Print must cope with anything the verifier might be shown.
	f := NewFunc("")
	f.Params = append(f.Params, nil, &Param{Name: "x"})
	f.Grid[1] = &HostExpr{Op: HostAdd}
	in := &Instr{Op: Op(200), Args: []*Value{nil}, Results: []*Value{nil, {ID: 3}}, Regions: []*Block{nil, {Params: []*Value{nil}}}}
	f.Body.Append(in)
	f.Body.Append(&Instr{Op: OpStore, Args: []*Value{nil}})
	f.Body.Instrs = append(f.Body.Instrs, nil)
	got := Print(f)
	for _, want := range []string{`kernel @""(?, %? x: ?)`, "grid(_, ?(), _)", "%?, %3 = invalid %? : ?, ?", "store %?", "^(%?: )"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
	// A nil kernel in a module prints as a placeholder, and the next one
	// still prints in full after it.
	if m, want := PrintModule(&Module{Funcs: []*Func{nil, f}}), "kernel ?\n\n"+got; m != want {
		t.Errorf("PrintModule = %q, want %q", m, want)
	}
	if err := Verify(f); err == nil {
		t.Errorf("Verify accepted malformed IR")
	}
}
