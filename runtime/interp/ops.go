package interp

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/ir/scalar"
	"github.com/tilec/tilec/runtime"
)

// ---- reduce ----

// execReduce views the operand as (outer, length, inner) with the reduced
// axis in the middle; the result has outer*inner elements in row-major order.
func execReduce(fr *frame, c *cinstr) error {
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
	from := c.adt[0]
	switch c.kind {
	case ir.ReduceArgmax, ir.ReduceArgmin:
		out.i = make([]int64, c.n)
		isMax := c.kind == ir.ReduceArgmax
		for o := 0; o < outer; o++ {
			for in := 0; in < inner; in++ {
				base := o*length*inner + in
				best := 0
				if isFloat(from) && c.propNaN {
					bv := src.f[base]
					for l := 1; l < length; l++ {
						x := src.f[base+l*inner]
						if bv != bv {
							break // the first NaN wins, as in numpy
						}
						if x != x || (isMax && x > bv) || (!isMax && x < bv) {
							best, bv = l, x
						}
					}
				} else if isFloat(from) {
					// NaN ignored: the first extreme among the numbers (index 0
					// when all are NaN).
					bv := src.f[base]
					for l := 1; l < length; l++ {
						x := src.f[base+l*inner]
						if x == x && (bv != bv || (isMax && x > bv) || (!isMax && x < bv)) {
							best, bv = l, x
						}
					}
				} else {
					bv := ir.IntOrderKey(from, src.i[base])
					for l := 1; l < length; l++ {
						x := ir.IntOrderKey(from, src.i[base+l*inner])
						if (isMax && x > bv) || (!isMax && x < bv) {
							best, bv = l, x
						}
					}
				}
				out.i[o*inner+in] = ir.WrapInt(c.dtype, int64(best))
			}
		}
	default:
		if isFloat(from) {
			out.f = make([]float64, c.n)
			reduceFloat(c.kind, c.propNaN, from, src.f, out.f, outer, length, inner)
			roundSlice(c.dtype, out.f)
		} else {
			out.i = make([]int64, c.n)
			mop := ir.OpMax
			if c.kind == ir.ReduceMin {
				mop = ir.OpMin
			}
			for o := 0; o < outer; o++ {
				for in := 0; in < inner; in++ {
					base := o*length*inner + in
					acc := src.i[base]
					for l := 1; l < length; l++ {
						x := src.i[base+l*inner]
						switch c.kind {
						case ir.ReduceSum:
							acc = ir.WrapInt(c.dtype, acc+x)
						case ir.ReduceProd:
							acc = ir.WrapInt(c.dtype, acc*x)
						case ir.ReduceMax, ir.ReduceMin:
							acc, _ = ir.EvalIntBinaryOf(mop, from, acc, x)
						}
					}
					out.i[o*inner+in] = ir.WrapInt(c.dtype, acc)
				}
			}
		}
	}
	fr.regs[c.res[0]] = val{t: out}
	return nil
}

// reduceFloat reduces along the middle axis in ascending index order. Sums
// of f16, bf16, f32 and tf32 accumulate in f32 (each partial sum rounded to
// f32), sums of f64 in f64; max and min are exact, ignoring NaN unless
// propNaN (cuTile's propagate_nan=True).
func reduceFloat(kind string, propNaN bool, d ir.DType, src, dst []float64, outer, length, inner int) {
	// max and min: ignoring NaN, or propagating it.
	combine := scalar.MinFloatNum
	switch {
	case kind == ir.ReduceMax && propNaN:
		combine = scalar.MaxFloat
	case kind == ir.ReduceMax:
		combine = scalar.MaxFloatNum
	case propNaN:
		combine = scalar.MinFloat
	}
	for o := 0; o < outer; o++ {
		for in := 0; in < inner; in++ {
			base := o*length*inner + in
			if length == 0 {
				dst[o*inner+in] = 0
				continue
			}
			switch kind {
			case ir.ReduceSum:
				if d == ir.F64 {
					acc := 0.0
					for l := 0; l < length; l++ {
						acc += src[base+l*inner]
					}
					dst[o*inner+in] = acc
				} else {
					var acc float32
					for l := 0; l < length; l++ {
						acc += float32(src[base+l*inner])
					}
					dst[o*inner+in] = float64(acc)
				}
			case ir.ReduceProd:
				if d == ir.F64 {
					acc := 1.0
					for l := 0; l < length; l++ {
						acc *= src[base+l*inner]
					}
					dst[o*inner+in] = acc
				} else {
					acc := float32(1)
					for l := 0; l < length; l++ {
						acc *= float32(src[base+l*inner])
					}
					dst[o*inner+in] = float64(acc)
				}
			case ir.ReduceMax, ir.ReduceMin:
				acc := src[base]
				for l := 1; l < length; l++ {
					acc = combine(acc, src[base+l*inner])
				}
				dst[o*inner+in] = acc
			}
		}
	}
}

// ---- mma ----

// mmaInput returns x as float32s for an mma: f16, bf16 and f32 values are
// exact; tf32 values are rounded to tf32 (cvt.rna.tf32.f32), as the tensor
// cores see them. float32 inputs keep all their bits: cuTile's mma of
// float32 is float32 arithmetic, and tf32 is chosen by the tfloat32 dtype.
func mmaInput(d ir.DType, x []float64) []float32 {
	out := make([]float32, len(x))
	if d == ir.TF32 {
		for i, v := range x {
			out[i] = runtime.RoundTF32(float32(v))
		}
		return out
	}
	for i, v := range x {
		out[i] = float32(v)
	}
	return out
}

// execMMA computes acc + a@b. For each output element the products are
// added to the accumulator one at a time in ascending k, as a chain of
// fused multiply-adds rounded to acc's dtype: acc = fma(a, b, acc), one
// rounding per step. Products of f16, bf16 and tf32 inputs are exact in
// f32, so an f32 sum of them is that one rounding; f32 inputs (24-bit
// products) take scalar.FMA32. f16 accumulators round the exact sum
// (formed with scalar.SumRoundOdd) once to f16; f64 is fma-free f64.
func execMMA(fr *frame, c *cinstr) error {
	a, b, acc := fr.regs[c.args[0]].t, fr.regs[c.args[1]].t, fr.regs[c.args[2]].t
	batch, M, K, N := mmaDims(c.ashape[0], c.ashape[1])
	ad, bd, cd := c.adt[0], c.adt[1], c.dtype
	out := &tile{}
	var err error
	switch {
	case cd == ir.I32:
		out.i = append([]int64(nil), acc.i...)
		err = fr.mmaRows(batch, M, K, N, func(p, i0, i1 int) {
			mmaInt32(a.i[p*M*K+i0*K:p*M*K+i1*K], b.i[p*K*N:(p+1)*K*N], out.i[p*M*N+i0*N:p*M*N+i1*N], i1-i0, K, N)
		})
	case cd == ir.F64 && ad == ir.F64 && bd == ir.F64:
		out.f = append([]float64(nil), acc.f...)
		err = fr.mmaRows(batch, M, K, N, func(p, i0, i1 int) {
			A, B, C := a.f[p*M*K:(p+1)*M*K], b.f[p*K*N:(p+1)*K*N], out.f[p*M*N:(p+1)*M*N]
			for i := i0; i < i1; i++ {
				crow := C[i*N : (i+1)*N]
				for k := 0; k < K; k++ {
					av := A[i*K+k]
					brow := B[k*N : (k+1)*N]
					brow = brow[:len(crow)]
					for j := range crow {
						crow[j] += float64(av * brow[j]) // the conversion forbids FMA fusion
					}
				}
			}
		})
	case (cd == ir.F32 || cd == ir.TF32) && ad != ir.F64 && bd != ir.F64:
		A, B := mmaInput(ad, a.f), mmaInput(bd, b.f)
		C := make([]float32, len(acc.f))
		for i, v := range acc.f {
			C[i] = float32(v)
		}
		mm := mmaF32
		if ad == ir.F32 || bd == ir.F32 {
			mm = mmaF32FMA
		}
		err = fr.mmaRows(batch, M, K, N, func(p, i0, i1 int) {
			mm(A[p*M*K+i0*K:p*M*K+i1*K], B[p*K*N:(p+1)*K*N], C[p*M*N+i0*N:p*M*N+i1*N], i1-i0, K, N)
		})
		out.f = make([]float64, len(C))
		for i, v := range C {
			out.f[i] = float64(v)
		}
	default:
		conv := func(d ir.DType, x []float64) []float64 {
			if d == ir.F64 {
				return x
			}
			f := mmaInput(d, x)
			o := make([]float64, len(f))
			for i, v := range f {
				o[i] = float64(v)
			}
			return o
		}
		out.f = append([]float64(nil), acc.f...)
		err = fr.mmaRounded(cd, batch, M, K, N, conv(ad, a.f), conv(bd, b.f), out.f)
	}
	if err != nil {
		return err
	}
	fr.regs[c.res[0]] = val{t: out}
	return nil
}

// mmaDims reads an mma's batch and M, K, N from its operands' shapes
// ((M, K) and (K, N), or with a leading batch axis).
func mmaDims(as, bs []int) (batch, M, K, N int) {
	r := len(as)
	batch = 1
	if r == 3 {
		batch = as[0]
	}
	return batch, as[r-2], as[r-1], bs[r-1]
}

// mmaRounded adds A (batch, M, K) times B (batch, K, N) into out (the
// accumulator's values), k ascending, each exact float64 product added
// with one rounding to dtype cd (scalar.SumRoundOdd keeps the float64 sum
// from rounding twice).
func (fr *frame) mmaRounded(cd ir.DType, batch, M, K, N int, A, B, out []float64) error {
	return fr.mmaRows(batch, M, K, N, func(p, i0, i1 int) {
		for i := i0; i < i1; i++ {
			for k := 0; k < K; k++ {
				av := A[p*M*K+i*K+k]
				for j := 0; j < N; j++ {
					e := p*M*N + i*N + j
					out[e] = runtime.RoundTo(cd, scalar.SumRoundOdd(float64(av*B[p*K*N+k*N+j]), out[e]))
				}
			}
		}
	})
}

// mmaStepsPerCheck bounds the multiply-adds an mma does between two reads
// of the launch's stop flag: one mma of 4096x4096x4096 is 2^36 of them,
// minutes on the interpreter, and --timeout must end it, while a common
// 128x64x256 tile reads the flag a few times only.
const mmaStepsPerCheck = 1 << 20

// mmaRows calls rows(p, i0, i1) over the batch and row ranges of an
// MxKxN mma, each range about mmaStepsPerCheck multiply-adds (at least
// one row), and returns errStopped without finishing when the launch's
// context is done.
func (fr *frame) mmaRows(batch, M, K, N int, rows func(p, i0, i1 int)) error {
	step := max(1, mmaStepsPerCheck/max(1, K*N))
	for p := 0; p < batch; p++ {
		for i0 := 0; i0 < M; i0 += step {
			if fr.stopped() {
				return errStopped
			}
			rows(p, i0, min(M, i0+step))
		}
	}
	return nil
}

// stopped reports whether the launch's context is done (blocks, loops and
// long tile ops stop).
func (fr *frame) stopped() bool { return fr.stop != nil && fr.stop.Load() }

// mmaInt32 adds a(MxK) @ b(KxN) to d(MxN) for int8 and uint8 inputs (held
// as their values, uint8 as 0..255) into an int32 accumulator: each
// element's sum is exact in int64 (a K of 2^30 products of at most 2^16
// each cannot overflow it) and wrapped to int32 once, which is the same as
// wrapping after every addition: integer mma.sync without .satfinite adds
// modulo 2^32, so the order of the sum does not matter either.
func mmaInt32(A, B, D []int64, M, K, N int) {
	for i := 0; i < M; i++ {
		drow := D[i*N : (i+1)*N]
		for k, av := range A[i*K : (i+1)*K] {
			brow := B[k*N : (k+1)*N][:len(drow)]
			for j := range drow {
				drow[j] += av * brow[j]
			}
		}
		for j, x := range drow {
			drow[j] = scalar.Wrap(32, x)
		}
	}
}

// mmaF32 adds A(MxK) @ B(KxN) to C(MxN) in float32, k ascending for every
// element, for inputs whose products are exact in float32 (f16, bf16,
// tf32: at most 11 significant bits each), so that each step's one
// rounding is the fma's, and fusing multiply and add (which Go may do on
// some architectures) does not change the result.
func mmaF32(A, B, C []float32, M, K, N int) {
	for i := 0; i < M; i++ {
		crow := C[i*N : (i+1)*N]
		arow := A[i*K : (i+1)*K]
		k := 0
		for ; k+4 <= K; k += 4 {
			a0, a1, a2, a3 := arow[k], arow[k+1], arow[k+2], arow[k+3]
			b0 := B[k*N : (k+1)*N][:len(crow)]
			b1 := B[(k+1)*N : (k+2)*N][:len(crow)]
			b2 := B[(k+2)*N : (k+3)*N][:len(crow)]
			b3 := B[(k+3)*N : (k+4)*N][:len(crow)]
			for j := range crow {
				s := crow[j] + a0*b0[j]
				s = s + a1*b1[j]
				s = s + a2*b2[j]
				crow[j] = s + a3*b3[j]
			}
		}
		for ; k < K; k++ {
			av := arow[k]
			brow := B[k*N : (k+1)*N][:len(crow)]
			for j := range crow {
				crow[j] += av * brow[j]
			}
		}
	}
}

// mmaF32FMA is mmaF32 for float32 inputs, whose products need 48 bits: each
// step is scalar.FMA32, the product and the sum rounded once together.
func mmaF32FMA(A, B, C []float32, M, K, N int) {
	for i := 0; i < M; i++ {
		crow := C[i*N : (i+1)*N]
		arow := A[i*K : (i+1)*K]
		for k, av := range arow {
			brow := B[k*N : (k+1)*N][:len(crow)]
			for j := range crow {
				crow[j] = scalar.FMA32(av, brow[j], crow[j])
			}
		}
	}
}

// ---- load / store ----

// tileOrigin returns the element offsets of the tile at the instruction's
// tile index, or an error if the tile lies entirely outside the array.
func (fr *frame) tileOrigin(c *cinstr, ar *arrayRef) ([]int, error) {
	r := len(c.shape)
	origin := make([]int, r)
	outside := false
	for d := 0; d < r; d++ {
		idx := fr.regs[c.args[1+d]].i
		o := idx * int64(c.shape[d])
		if o/int64(c.shape[d]) != idx || o >= int64(ar.t.Shape[d]) || o+int64(c.shape[d]) <= 0 {
			outside = true // an offset that overflows 64 bits is outside too
		}
		origin[d] = int(o)
	}
	if outside {
		idx := make([]string, r)
		sh := make([]string, r)
		as := make([]string, r)
		for d := 0; d < r; d++ {
			idx[d] = fmt.Sprint(fr.regs[c.args[1+d]].i)
			sh[d] = fmt.Sprint(c.shape[d])
			as[d] = fmt.Sprint(ar.t.Shape[d])
		}
		what := "load"
		if c.op == ir.OpStore {
			what = "store"
		}
		msg := fmt.Sprintf("%s of %s at tile index (%s) with shape (%s) lies entirely outside %s's shape (%s)",
			what, ar.name, strings.Join(idx, ", "), strings.Join(sh, ", "), ar.name, strings.Join(as, ", "))
		return nil, errors.New(msg)
	}
	return origin, nil
}

// forRows calls fn for every row (all axes but the last) of the tile at
// origin: the row's first tile element, the Data element of the row's
// element at array column origin[last] (meaningful when inRow), whether the
// row lies inside the array, and the in-bounds column range [jlo, jhi).
func forRows(t *runtime.Tensor, shape, origin []int, fn func(o, e int, inRow bool, jlo, jhi int)) {
	r := len(shape)
	if r == 0 {
		fn(0, t.Offset, true, 0, 1)
		return
	}
	last := shape[r-1]
	lo := origin[r-1]
	jlo, jhi := max(0, -lo), min(last, t.Shape[r-1]-lo)
	n := numel(shape)
	idx := make([]int, r-1)
	for o := 0; o < n; o += last {
		inRow := true
		e := t.Offset + lo*t.Strides[r-1]
		for d := 0; d < r-1; d++ {
			x := origin[d] + idx[d]
			if x < 0 || x >= t.Shape[d] {
				inRow = false
			}
			e += x * t.Strides[d]
		}
		fn(o, e, inRow, jlo, jhi)
		for d := r - 2; d >= 0; d-- {
			idx[d]++
			if idx[d] < shape[d] {
				break
			}
			idx[d] = 0
		}
	}
}

func execLoad(fr *frame, c *cinstr) error {
	ar := fr.regs[c.args[0]].a
	origin, err := fr.tileOrigin(c, ar)
	if err != nil {
		return err
	}
	t := ar.t
	out := &tile{}
	fl := isFloat(c.dtype)
	if fl {
		out.f = make([]float64, c.n)
	} else {
		out.i = make([]int64, c.n)
	}
	r := len(c.shape)
	last := 1
	stride := 0
	if r > 0 {
		last, stride = c.shape[r-1], t.Strides[r-1]
	}
	forRows(t, c.shape, origin, func(o, e int, inRow bool, jlo, jhi int) {
		if !inRow {
			jlo, jhi = last, last
		}
		if fl {
			row := out.f[o : o+last]
			for j := 0; j < jlo; j++ {
				row[j] = c.pad
			}
			readFloats(t, e+jlo*stride, stride, row[jlo:max(jlo, jhi)])
			for j := max(jlo, jhi); j < last; j++ {
				row[j] = c.pad
			}
		} else {
			row := out.i[o : o+last]
			for j := range row {
				if j >= jlo && j < jhi {
					row[j] = t.ElemIntAt(e + j*stride)
				} else {
					row[j] = c.padI
				}
			}
		}
	})
	fr.regs[c.res[0]] = val{t: out}
	return nil
}

// readFloats reads len(dst) elements of t starting at Data element e, stride
// elements apart.
func readFloats(t *runtime.Tensor, e, stride int, dst []float64) {
	d := t.Data
	switch t.DType {
	case ir.F16:
		for j := range dst {
			dst[j] = runtime.F16Float(binary.LittleEndian.Uint16(d[2*(e+j*stride):]))
		}
	case ir.BF16:
		for j := range dst {
			dst[j] = runtime.BF16Float(binary.LittleEndian.Uint16(d[2*(e+j*stride):]))
		}
	case ir.F32, ir.TF32:
		for j := range dst {
			dst[j] = float64(math.Float32frombits(binary.LittleEndian.Uint32(d[4*(e+j*stride):])))
		}
	default:
		for j := range dst {
			dst[j] = t.ElemAt(e + j*stride)
		}
	}
}

func execStore(fr *frame, c *cinstr) error {
	ar := fr.regs[c.args[0]].a
	origin, err := fr.tileOrigin(c, ar)
	if err != nil {
		return err
	}
	t := ar.t
	src := fr.regs[c.args[len(c.args)-1]].t
	stride := 0
	if r := len(c.shape); r > 0 {
		stride = t.Strides[r-1]
	}
	fl := isFloat(c.dtype)
	forRows(t, c.shape, origin, func(o, e int, inRow bool, jlo, jhi int) {
		if !inRow {
			return
		}
		if fl {
			writeFloats(t, e+jlo*stride, stride, src.f[o+jlo:o+max(jlo, jhi)])
		} else {
			for j := jlo; j < jhi; j++ {
				t.SetElemIntAt(e+j*stride, src.i[o+j])
			}
		}
	})
	return nil
}

func writeFloats(t *runtime.Tensor, e, stride int, src []float64) {
	d := t.Data
	switch t.DType {
	case ir.F16:
		for j, x := range src {
			binary.LittleEndian.PutUint16(d[2*(e+j*stride):], runtime.F16Bits(x))
		}
	case ir.BF16:
		for j, x := range src {
			binary.LittleEndian.PutUint16(d[2*(e+j*stride):], runtime.BF16Bits(x))
		}
	case ir.F32, ir.TF32:
		for j, x := range src {
			binary.LittleEndian.PutUint32(d[4*(e+j*stride):], math.Float32bits(float32(x)))
		}
	default:
		for j, x := range src {
			t.SetElemAt(e+j*stride, x)
		}
	}
}

// ---- control flow ----

// execFor runs the body for iv = lo, lo+step, ... while iv < hi (step > 0)
// or iv > hi (step < 0). The induction variable takes the bounds' dtype.
func execFor(fr *frame, c *cinstr) error {
	lo, hi, step := fr.regs[c.args[0]].i, fr.regs[c.args[1]].i, fr.regs[c.args[2]].i
	if step == 0 {
		return fmt.Errorf("for: step is 0")
	}
	body := c.regions[0]
	nc := len(c.res)
	for j := 0; j < nc; j++ {
		fr.regs[body.params[1+j]] = fr.regs[c.args[3+j]]
	}
	ivd := c.adt[0]
	for iv := lo; (step > 0 && iv < hi) || (step < 0 && iv > hi); iv += step {
		if fr.stopped() {
			return errStopped
		}
		fr.regs[body.params[0]] = val{i: ir.WrapInt(ivd, iv)}
		term, err := fr.run(body)
		if err != nil {
			return err
		}
		if term != nil && nc > 0 {
			fr.tmp = fr.tmp[:0]
			for _, a := range term.args {
				fr.tmp = append(fr.tmp, fr.regs[a])
			}
			for j, v := range fr.tmp {
				fr.regs[body.params[1+j]] = v
			}
		}
		if (step > 0 && iv > math.MaxInt64-step) || (step < 0 && iv < math.MinInt64-step) {
			break
		}
	}
	for j := 0; j < nc; j++ {
		fr.regs[c.res[j]] = fr.regs[body.params[1+j]]
	}
	return nil
}

// execWhile runs the condition region on the carried values and, while it
// yields true, the body, whose yield gives the next carried values.
func execWhile(fr *frame, c *cinstr) error {
	cond, body := c.regions[0], c.regions[1]
	nc := len(c.res)
	for j := 0; j < nc; j++ {
		fr.regs[cond.params[j]] = fr.regs[c.args[j]]
	}
	for {
		if fr.stopped() {
			return errStopped
		}
		term, err := fr.run(cond)
		if err != nil {
			return err
		}
		if term == nil || !condTrue(fr.regs[term.args[0]]) {
			break
		}
		for j := 0; j < nc; j++ {
			fr.regs[body.params[j]] = fr.regs[cond.params[j]]
		}
		term, err = fr.run(body)
		if err != nil {
			return err
		}
		if term != nil && nc > 0 {
			fr.tmp = fr.tmp[:0]
			for _, a := range term.args {
				fr.tmp = append(fr.tmp, fr.regs[a])
			}
			for j, v := range fr.tmp {
				fr.regs[cond.params[j]] = v
			}
		}
	}
	for j := 0; j < nc; j++ {
		fr.regs[c.res[j]] = fr.regs[cond.params[j]]
	}
	return nil
}

// condTrue reads a while or if condition: a bool scalar, or a rank-0 bool
// tile (its one element).
func condTrue(v val) bool {
	if v.t != nil {
		return v.t.i[0] != 0
	}
	return v.i != 0
}

func execIf(fr *frame, c *cinstr) error {
	r := c.regions[1]
	if condTrue(fr.regs[c.args[0]]) {
		r = c.regions[0]
	}
	term, err := fr.run(r)
	if err != nil {
		return err
	}
	if term != nil {
		// Yielded values are read before any result is written: a result
		// slot is never one of the yielded values, so no copy is needed.
		for j, a := range term.args {
			if j < len(c.res) {
				fr.regs[c.res[j]] = fr.regs[a]
			}
		}
	}
	return nil
}
