package interp

// Handlers of isnan and bitcast (bit-level), scan (cumsum, cumprod) and the
// sub-tile ops cat, extract and insert (the elementwise math and shifts go
// through execUnary and execBinary).

import (
	"fmt"
	"math"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/runtime"
)

func execIsNaN(fr *frame, c *cinstr) error {
	if !c.tile {
		fr.regs[c.res[0]] = val{i: b2i(math.IsNaN(fr.regs[c.args[0]].f))}
		return nil
	}
	x := fr.regs[c.args[0]].t.f
	out := make([]int64, c.n)
	for i, v := range x {
		out[i] = b2i(math.IsNaN(v))
	}
	fr.regs[c.res[0]] = val{t: &tile{i: out}}
	return nil
}

// elemBits is the storage bits of one element of dtype d held as f (float
// dtypes) or i (integers).
func elemBits(d ir.DType, f float64, i int64) uint64 {
	switch d {
	case ir.F16:
		return uint64(runtime.F16Bits(f))
	case ir.BF16:
		return uint64(runtime.BF16Bits(f))
	case ir.F32, ir.TF32:
		return uint64(math.Float32bits(float32(f)))
	case ir.F64:
		return math.Float64bits(f)
	case ir.F8E4M3, ir.F8E5M2:
		return uint64(runtime.F8Bits(d, f))
	case ir.F8E8M0:
		return uint64(runtime.E8M0Bits(f))
	}
	return uint64(i) & (math.MaxUint64 >> uint(64-d.Bits()))
}

// fromBits is the element of dtype d whose storage bits are b.
func fromBits(d ir.DType, b uint64) (float64, int64) {
	switch d {
	case ir.F16:
		return runtime.F16Float(uint16(b)), 0
	case ir.BF16:
		return runtime.BF16Float(uint16(b)), 0
	case ir.F32, ir.TF32:
		return float64(math.Float32frombits(uint32(b))), 0
	case ir.F64:
		return math.Float64frombits(b), 0
	case ir.F8E4M3, ir.F8E5M2:
		return runtime.F8Float(d, uint8(b)), 0
	case ir.F8E8M0:
		return runtime.F8E8M0Float(uint8(b)), 0
	}
	return 0, ir.WrapInt(d, int64(b))
}

// execBitcast reinterprets each element's bits. NaN payloads are not kept:
// the interpreter holds floats as float64 values, and a NaN's bits come
// back as the format's canonical NaN.
func execBitcast(fr *frame, c *cinstr) error {
	from, to := c.adt[0], c.dtype
	conv := func(f float64, i int64) (float64, int64) { return fromBits(to, elemBits(from, f, i)) }
	if !c.tile {
		x := fr.regs[c.args[0]]
		f, i := conv(x.f, x.i)
		fr.regs[c.res[0]] = val{f: f, i: i}
		return nil
	}
	src := fr.regs[c.args[0]].t
	out := &tile{}
	if isFloat(to) {
		out.f = make([]float64, c.n)
	} else {
		out.i = make([]int64, c.n)
	}
	for e := 0; e < c.n; e++ {
		var f float64
		var i int64
		if isFloat(from) {
			f = src.f[e]
		} else {
			i = src.i[e]
		}
		f, i = conv(f, i)
		if out.f != nil {
			out.f[e] = f
		} else {
			out.i[e] = i
		}
	}
	fr.regs[c.res[0]] = val{t: out}
	return nil
}

func prepareScan(ci *cinstr) {
	ci.kind = ci.in.Kind()
	ci.axis = ci.in.Axis()
	ci.reverse = ci.in.Reverse()
}

// execScan is the inclusive scan along the axis, in index order (reverse:
// from the last index). Floats accumulate as reductions do (f16, bf16 and
// f32 in f32, f64 in f64) and every prefix is rounded to the dtype;
// integers wrap.
func execScan(fr *frame, c *cinstr) error {
	s := c.ashape[0]
	src := fr.regs[c.args[0]].t
	outer, length, inner := 1, s[c.axis], 1
	for _, d := range s[:c.axis] {
		outer *= d
	}
	for _, d := range s[c.axis+1:] {
		inner *= d
	}
	out := &tile{}
	fl := isFloat(c.dtype)
	if fl {
		out.f = make([]float64, c.n)
	} else {
		out.i = make([]int64, c.n)
	}
	prod := c.kind == ir.ReduceProd
	for o := 0; o < outer; o++ {
		for in := 0; in < inner; in++ {
			base := o*length*inner + in
			var accF float64
			var acc32 float32
			var accI int64
			if prod {
				accF, acc32, accI = 1, 1, 1
			}
			for step := 0; step < length; step++ {
				l := step
				if c.reverse {
					l = length - 1 - step
				}
				e := base + l*inner
				switch {
				case fl && c.dtype == ir.F64:
					if prod {
						accF *= src.f[e]
					} else {
						accF += src.f[e]
					}
					out.f[e] = accF
				case fl:
					if prod {
						acc32 *= float32(src.f[e])
					} else {
						acc32 += float32(src.f[e])
					}
					out.f[e] = runtime.RoundTo(c.dtype, float64(acc32))
				default:
					if prod {
						accI = ir.WrapInt(c.dtype, accI*src.i[e])
					} else {
						accI = ir.WrapInt(c.dtype, accI+src.i[e])
					}
					out.i[e] = accI
				}
			}
		}
	}
	fr.regs[c.res[0]] = val{t: out}
	return nil
}

// copyBlock copies the elements of the tile src (shape ss) into dst (shape
// ds) at element offset origin (dst's index = src's index + origin), or,
// with toSrc, the other way round: dst's block at origin into src.
func copyBlock(dst, src *tile, ds, ss, origin []int, toSrc bool) {
	n := numel(ss)
	idx := make([]int, len(ss))
	dstStr := runtime.RowMajorStrides(ds)
	for k := 0; k < n; k++ {
		e := 0
		for d := range idx {
			e += (idx[d] + origin[d]) * dstStr[d]
		}
		switch {
		case src.f != nil && toSrc:
			src.f[k] = dst.f[e]
		case src.f != nil:
			dst.f[e] = src.f[k]
		case toSrc:
			src.i[k] = dst.i[e]
		default:
			dst.i[e] = src.i[k]
		}
		for d := len(idx) - 1; d >= 0; d-- {
			idx[d]++
			if idx[d] < ss[d] {
				break
			}
			idx[d] = 0
		}
	}
}

func newTileLike(t *tile, n int) *tile {
	if t.f != nil {
		return &tile{f: make([]float64, n)}
	}
	return &tile{i: make([]int64, n)}
}

func execCat(fr *frame, c *cinstr) error {
	a, b := fr.regs[c.args[0]].t, fr.regs[c.args[1]].t
	out := newTileLike(a, c.n)
	origin := make([]int, len(c.shape))
	copyBlock(out, a, c.shape, c.ashape[0], origin, false)
	origin[c.axis] = c.ashape[0][c.axis]
	copyBlock(out, b, c.shape, c.ashape[1], origin, false)
	fr.regs[c.res[0]] = val{t: out}
	return nil
}

func prepareCat(ci *cinstr) { ci.axis = ci.in.Axis() }

// subtileOrigin reads the grid index operands from first on and returns the
// element origin of the subtile of shape sub in a tile of shape full.
func (fr *frame) subtileOrigin(c *cinstr, first int, full, sub []int) ([]int, error) {
	origin := make([]int, len(full))
	for d := range full {
		i := fr.regs[c.args[first+d]].i
		if n := full[d] / sub[d]; i < 0 || i >= int64(n) {
			return nil, fmt.Errorf("%s: index %d on axis %d is outside [0, %d) (%d subtiles of %d)", c.op, i, d, n, n, sub[d])
		}
		origin[d] = int(i) * sub[d]
	}
	return origin, nil
}

func execExtract(fr *frame, c *cinstr) error {
	x := fr.regs[c.args[0]].t
	origin, err := fr.subtileOrigin(c, 1, c.ashape[0], c.shape)
	if err != nil {
		return err
	}
	out := newTileLike(x, c.n)
	copyBlock(x, out, c.ashape[0], c.shape, origin, true)
	fr.regs[c.res[0]] = val{t: out}
	return nil
}

func execInsert(fr *frame, c *cinstr) error {
	x, v := fr.regs[c.args[0]].t, fr.regs[c.args[1]].t
	origin, err := fr.subtileOrigin(c, 2, c.shape, c.ashape[1])
	if err != nil {
		return err
	}
	out := newTileLike(x, c.n)
	copy(out.f, x.f)
	copy(out.i, x.i)
	copyBlock(out, v, c.shape, c.ashape[1], origin, false)
	fr.regs[c.res[0]] = val{t: out}
	return nil
}
