package interp

// Array views and raw memory (cuTile's Array.slice, Array.tiled_view,
// Array.get_raw_memory) against references computed here in float64 and
// int64 from the inputs, independent of the interpreter.

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/runtime"
	"github.com/tilec/tilec/runtime/compile"
)

// filled fills a new tensor of shape with f(flat index).
func filled(d ir.DType, f func(i int) float64, shape ...int) *runtime.Tensor {
	t := runtime.NewTensor(d, shape...)
	n := 1
	for _, s := range shape {
		n *= s
	}
	for i := 0; i < n; i++ {
		t.SetElemAt(i, f(i))
	}
	return t
}

func TestRawMemoryOffsets(t *testing.T) {
	// Element offsets read the memory row-major whatever the shape: a
	// sparse copy by offsets r*N+c equals the gather at (r, c); masked
	// loads pad; a scalar offset loads one element; a value broadcasts to
	// the offset shape; atomics add into duplicate offsets and return the
	// old values; cas swaps where expected matches.
	const src = `
@ct.kernel
def k(X, Off, Y, Pad, One, Fill, H, HOld, Cas, CasOld, Mx, MxOld):
    mem = X.get_raw_memory()
    off = ct.load(Off, (0,), shape=(8,))
    Y.get_raw_memory().store_offset(off, mem.load_offset(off))
    i = ct.arange(8, dtype=ct.int64)
    Pad.get_raw_memory().store_offset(i, mem.load_offset(i + 3, mask=i < 5, padding_value=-1.5))
    v = mem.load_offset(17)
    One.get_raw_memory().store_offset(0, v)
    Fill.get_raw_memory().store_offset(ct.reshape(i, (4, 2)), ct.full((4, 1), 11.0, dtype=ct.float32))
    hm = H.get_raw_memory()
    old = hm.atomic_add_offset(i % 3, ct.full((8,), 1, dtype=ct.int32))
    ct.store(HOld, (0,), old)
    cm = Cas.get_raw_memory()
    j = ct.arange(4, dtype=ct.int32)
    ct.store(CasOld, (0,), cm.atomic_cas_offset(j, ct.full((4,), 0, dtype=ct.int32), 42))
    mm = Mx.get_raw_memory()
    ct.store(MxOld, (0,), mm.atomic_max_offset(j * 2, j * 10 - 5, mask=j != 2))
`
	const M, N = 4, 6
	X := filled(ir.F32, func(i int) float64 { return float64(i) + 0.25 }, M, N)
	offs := []int64{0, 7, 13, 23, 5, 18, 2, 11}
	Off := ints(ir.I64, offs...)
	Y := runtime.NewTensor(ir.F32, M, N)
	Pad, One, Fill := runtime.NewTensor(ir.F32, 8), runtime.NewTensor(ir.F32, 1), runtime.NewTensor(ir.F32, 8)
	H, HOld := runtime.NewTensor(ir.I32, 3), runtime.NewTensor(ir.I32, 8)
	Cas, CasOld := ints(ir.I32, 0, 1, 0, 1), runtime.NewTensor(ir.I32, 4)
	Mx, MxOld := ints(ir.I32, 3, 0, 3, 0, 3, 0, 3, 0), runtime.NewTensor(ir.I32, 4)
	runSrc(t, src, X, Off, Y, Pad, One, Fill, H, HOld, Cas, CasOld, Mx, MxOld)

	y := make([]float64, M*N)
	for _, o := range offs {
		y[o] = float64(o) + 0.25
	}
	wantFloats(t, "Y", Y, y)
	var pad []float64
	for i := 0; i < 8; i++ {
		if i < 5 {
			pad = append(pad, float64(i+3)+0.25)
		} else {
			pad = append(pad, -1.5)
		}
	}
	wantFloats(t, "Pad", Pad, pad)
	wantFloats(t, "One", One, []float64{17.25})
	wantFloats(t, "Fill", Fill, []float64{11, 11, 11, 11, 11, 11, 11, 11})
	// Offsets 0,1,2,0,1,2,0,1 in row-major order of the tile.
	wantInts(t, "H", H, 3, 3, 2)
	wantInts(t, "HOld", HOld, 0, 0, 0, 1, 1, 1, 2, 2)
	wantInts(t, "Cas", Cas, 42, 1, 42, 1)
	wantInts(t, "CasOld", CasOld, 0, 1, 0, 1)
	// max at offsets 0, 2, (4 masked off), 6 with -5, 5, 25.
	wantInts(t, "Mx", Mx, 3, 0, 5, 0, 3, 0, 25, 0)
	wantInts(t, "MxOld", MxOld, 3, 3, 0, 3)
}

func TestRawMemoryOfViews(t *testing.T) {
	// A transposed argument's raw memory is its storage, row-major as the
	// tensor was made; a slice's starts at the slice's first element.
	const src = `
@ct.kernel
def k(XT, Out, S):
    i = ct.arange(8, dtype=ct.int32)
    Out.get_raw_memory().store_offset(i, XT.get_raw_memory().load_offset(i))
    sl = XT.slice(axis=1, start=1, stop=3)
    S.get_raw_memory().store_offset(i, sl.get_raw_memory().load_offset(i))
`
	X := filled(ir.F32, func(i int) float64 { return float64(i) }, 3, 4) // XT[c, r] = X[r, c]
	XT := X.Transpose(1, 0)
	Out, S := runtime.NewTensor(ir.F32, 8), runtime.NewTensor(ir.F32, 8)
	runSrc(t, src, XT, Out, S)
	wantFloats(t, "Out", Out, []float64{0, 1, 2, 3, 4, 5, 6, 7})
	// Slicing XT along its axis 1 (X's axis 0) from 1 moves the base by
	// XT's stride along that axis, 4 elements.
	wantFloats(t, "S", S, []float64{4, 5, 6, 7, 8, 9, 10, 11})
}

func TestRawMemoryOutOfRange(t *testing.T) {
	const src = `
@ct.kernel
def k(X, Y):
    i = ct.arange(8, dtype=ct.int32)
    Y.get_raw_memory().store_offset(i, X.get_raw_memory().load_offset(i + 1))
`
	err := launchSrc(t, src, runtime.LaunchOptions{}, runtime.NewTensor(ir.F32, 8), runtime.NewTensor(ir.F32, 8))
	if err == nil || !strings.Contains(err.Error(), "load_offset: element offset 8 is outside the memory of X (offsets 0 to 7 from its first element)") {
		t.Fatalf("got %v, want an error for offset 8", err)
	}
}

func TestArraySlice(t *testing.T) {
	// Rows [s, s+n) of X, loaded and stored through the slice: a tile
	// past the slice's end pads (and its store drops), although X has
	// rows there; shape, num_tiles and strides read the slice's.
	const src = `
@ct.kernel
def k(X, Y, Info, s, n):
    sub = X.slice(axis=0, start=s, stop=s + n)
    for t in range(ct.num_tiles(sub, axis=0, shape=(4, 8))):
        x = ct.load(sub, (t, 0), shape=(4, 8), padding_mode=ct.PaddingMode.NEG_INF)
        ct.store(Y, (t, 0), x)
    ct.store(Info, (0,), ct.full((1,), sub.shape[0], dtype=ct.int32))
    ct.store(Info, (1,), ct.full((1,), sub.shape[1], dtype=ct.int32))
    ct.store(Info, (2,), ct.full((1,), sub.strides[0], dtype=ct.int32))
    ct.store(Info, (3,), ct.full((1,), ct.num_tiles(sub, axis=0, shape=(4, 8)), dtype=ct.int32))
    col = X.slice(1, 2, 5)
    ct.store(col, (0, 0), ct.full((2, 4), -7.0, dtype=ct.float32))
`
	const M, N, s, n = 12, 8, 3, 6
	X := filled(ir.F32, func(i int) float64 { return float64(i) }, M, N)
	want := X.Float64s()
	Y := runtime.NewTensor(ir.F32, 8, N)
	Info := runtime.NewTensor(ir.I32, 4)
	runSrc(t, src, X, Y, Info, int64(s), int64(n))
	var y []float64
	for r := 0; r < 8; r++ {
		for c := 0; c < N; c++ {
			if r < n {
				y = append(y, want[(s+r)*N+c])
			} else {
				y = append(y, math.Inf(-1))
			}
		}
	}
	wantFloats(t, "Y", Y, y)
	wantInts(t, "Info", Info, n, N, N, 2)
	// Columns 2..4 of rows 0..1 are -7; the tile's fourth column (col 5)
	// is past the slice's end and dropped.
	for r := 0; r < 2; r++ {
		for c := 2; c < 5; c++ {
			want[r*N+c] = -7
		}
	}
	wantFloats(t, "X", X, want)
}

func TestArraySliceOutOfRange(t *testing.T) {
	const src = `
@ct.kernel
def k(X, s):
    sub = X.slice(axis=0, start=s, stop=s + 4)
    ct.store(sub, (0,), ct.full((4,), 1.0, dtype=ct.float32))
`
	err := launchSrc(t, src, runtime.LaunchOptions{}, runtime.NewTensor(ir.F32, 8), int64(6))
	if err == nil || !strings.Contains(err.Error(), "start 6 and stop 10 must satisfy 0 <= start <= stop <= 8") {
		t.Fatalf("got %v, want the slice's bounds error", err)
	}
}

func TestTiledView(t *testing.T) {
	// Partitioning views (load, store, padding, num_tiles, 0-d tiles) and
	// strided ones (overlapping, gapped and non-power-of-two steps), with
	// the upstream samples' references: out[start:start+T] = x[...] for
	// each tile origin; a 2x2 box sum with steps (1, 1); atomic adds of
	// overlapping tiles.
	const src = `
@ct.kernel
def k(X, P, Win, Gap, Odd, Box, Acc, Info, Sc):
    tv = X.tiled_view(4, padding_mode=ct.PaddingMode.NEG_INF)
    pv = P.tiled_view(4)
    for i in range(tv.num_tiles(0)):
        pv.store(i, tv.load(i) * 2.0)
    w = X.tiled_view(4, traversal_steps=2)
    wo = Win.tiled_view(4, traversal_steps=2)
    for i in range(w.num_tiles(0)):
        wo.store(i, w.load(i))
    g = X.tiled_view(4, traversal_steps=8)
    go = Gap.tiled_view(4, traversal_steps=8)
    for i in range(g.num_tiles(0)):
        go.store(i, g.load(i))
    o = X.tiled_view(4, traversal_steps=3)
    oo = Odd.tiled_view(4, traversal_steps=3)
    for i in range(o.num_tiles(0)):
        oo.store(i, o.load(i))
    b = Box.tiled_view(())
    a = Acc.tiled_view(4, traversal_steps=2)
    for i in range(7):
        a.atomic_store_add(i, 1)
    ct.store(Info, (0,), ct.full((1,), tv.num_tiles(0), dtype=ct.int32))
    ct.store(Info, (1,), ct.full((1,), w.num_tiles(0), dtype=ct.int32))
    ct.store(Info, (2,), ct.full((1,), o.num_tiles(0), dtype=ct.int32))
    ct.store(Info, (3,), ct.full((1,), w.traversal_steps[0] * 10 + w.tile_shape[0], dtype=ct.int32))
    b.store(0, ct.sum(tv.load(0)))
    s = X.tiled_view((), traversal_steps=3)
    for i in range(4):
        Sc.tiled_view(()).store(i, s.load(i))
`
	const n = 14
	X := filled(ir.F32, func(i int) float64 { return float64(i*i%11) - 3 }, n)
	x := X.Float64s()
	P, Win, Gap, Odd := runtime.NewTensor(ir.F32, 16), runtime.NewTensor(ir.F32, n), runtime.NewTensor(ir.F32, n), runtime.NewTensor(ir.F32, n)
	Box := runtime.NewTensor(ir.F32, 1)
	Acc, Info, Sc := runtime.NewTensor(ir.I32, 16), runtime.NewTensor(ir.I32, 4), runtime.NewTensor(ir.F32, 4)
	runSrc(t, src, X, P, Win, Gap, Odd, Box, Acc, Info, Sc)
	p := make([]float64, 16)
	for i := range p {
		if i < n {
			p[i] = 2 * x[i]
		} else {
			p[i] = math.Inf(-1)
		}
	}
	wantFloats(t, "P", P, p)
	window := func(step int) []float64 {
		out := make([]float64, n)
		for start := 0; start < n; start += step {
			for j := start; j < start+4 && j < n; j++ {
				out[j] = x[j]
			}
		}
		return out
	}
	wantFloats(t, "Win", Win, window(2))
	wantFloats(t, "Gap", Gap, window(8))
	wantFloats(t, "Odd", Odd, window(3))
	wantFloats(t, "Box", Box, []float64{x[0] + x[1] + x[2] + x[3]})
	acc := make([]int64, 16)
	for i := 0; i < 7; i++ {
		for j := 2 * i; j < 2*i+4 && j < 16; j++ {
			acc[j]++
		}
	}
	wantInts(t, "Acc", Acc, acc...)
	wantInts(t, "Info", Info, 4, 7, 5, 24)
	wantFloats(t, "Sc", Sc, []float64{x[0], x[3], x[6], x[9]})
}

func TestTiledView2DWindows(t *testing.T) {
	// The upstream sample's 2x2 box sum as a sliding window (steps
	// (1, 1), tiles overlapping), stored one element at a time through a
	// 0-d tile view; and a partition view of a transposed argument.
	const src = `
KH, KW, OH, OW = 2, 2, 4, 5

@ct.kernel
def k(X, Out, XT, T):
    tv = X.tiled_view((KH, KW), traversal_steps=(1, 1))
    out = Out.tiled_view(())
    for i in range(OH):
        for j in range(OW):
            out.store(i * OW + j, ct.sum(tv.load((i, j))))
    a = XT.tiled_view((2, 4))
    b = T.tiled_view((2, 4))
    for i in range(a.num_tiles(0)):
        for j in range(a.num_tiles(1)):
            b.store((i, j), a.load((i, j)))
`
	const H, W = 5, 6
	X := filled(ir.I32, func(i int) float64 { return float64(i * 7 % 10) }, H, W)
	Out := runtime.NewTensor(ir.I32, (H-1)*(W-1))
	Y := filled(ir.F32, func(i int) float64 { return float64(i) }, 3, 4)
	XT, T := Y.Transpose(1, 0), runtime.NewTensor(ir.F32, 4, 3)
	runSrc(t, src, X, Out, XT, T)
	x := X.Float64s()
	var want []int64
	for i := 0; i < H-1; i++ {
		for j := 0; j < W-1; j++ {
			want = append(want, int64(x[i*W+j]+x[i*W+j+1]+x[(i+1)*W+j]+x[(i+1)*W+j+1]))
		}
	}
	wantInts(t, "Out", Out, want...)
	var tt []float64
	for r := 0; r < 4; r++ {
		for c := 0; c < 3; c++ {
			tt = append(tt, float64(c*4+r))
		}
	}
	wantFloats(t, "T", T, tt)
}

// The GPU test kernel runtime/testdata/kernels/array_views.tile (which
// scripts/gpu-check.sh runs on the GPU against the interpreter) against
// references computed here, at sizes where the last block is partial.
func TestArrayViewsKernel(t *testing.T) {
	k, err := compile.File("../testdata/kernels/array_views.tile", compile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{1, 300} {
		const tile = 128
		grid := (n + tile - 1) / tile
		r := 4*grid - 1
		rng := rand.New(rand.NewPCG(uint64(n), 9))
		X := runtime.RandNormal(rng, ir.F32, n)
		Y, Z, W, Win := runtime.NewTensor(ir.F32, n), runtime.NewTensor(ir.F32, n), runtime.NewTensor(ir.F32, n), runtime.NewTensor(ir.F32, n)
		Cnt := runtime.RandNormal(rng, ir.I32, n)
		Old, Hist := runtime.NewTensor(ir.I32, n), runtime.NewTensor(ir.I32, 64)
		M, S := runtime.RandNormal(rng, ir.F32, r, 8), runtime.NewTensor(ir.F32, r, 8)
		cnt := Cnt.Float64s()
		if _, err := Launch(k, []runtime.Arg{X, Y, Z, W, Win, Cnt, Old, Hist, M, S}, runtime.LaunchOptions{}); err != nil {
			t.Fatal(err)
		}
		x := X.Float64s()
		f32 := func(v float64) float64 { return float64(float32(v)) }
		y, z, w := make([]float64, n), make([]float64, n), make([]float64, n)
		for i := range n {
			y[i] = 2 * x[n-1-i]
			z[i] = f32(x[n-1-i] + x[0])
			w[i] = f32(x[i] + 1)
		}
		wantFloats(t, "Y", Y, y)
		wantFloats(t, "Z", Z, z)
		wantFloats(t, "W", W, w)
		win := Win.Float64s()
		for kk := 0; kk < 4*grid && 2*kk < n; kk++ {
			s := 0.0
			for j := 2 * kk; j < 2*kk+4 && j < n; j++ {
				s += x[j]
			}
			if math.Abs(win[kk]-s) > 1e-5*(1+math.Abs(s)) {
				t.Errorf("n=%d: Win[%d] = %v, want %v", n, kk, win[kk], s)
			}
		}
		wantC, wantOld := make([]int64, n), make([]int64, n)
		for i, c := range cnt {
			// add 5 (old c), cas c+5 -> 3c (old c+5), xchg 3c -> c+6 (old 3c).
			wantC[i] = int64(int32(c + 6))
			wantOld[i] = int64(int32(c + (c + 5) + 3*c))
		}
		wantInts(t, "Cnt", Cnt, wantC...)
		wantInts(t, "Old", Old, wantOld...)
		hist := make([]int64, 64)
		for i := range n {
			hist[i%32]++
			hist[32+i%32] = max(hist[32+i%32], int64(i))
		}
		for b := range grid {
			for j := range 8 {
				hist[(b%7)*4+j]++
			}
			hist[31]++
		}
		wantInts(t, "Hist", Hist, hist...)
		m, s := M.Float64s(), make([]float64, r*8)
		for i := range s {
			s[i] = max(m[i], -100)
		}
		wantFloats(t, "S", S, s)
	}
}
