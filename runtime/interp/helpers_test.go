package interp

import (
	"math"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/runtime"
)

// kb builds IR by hand for tests, standing in for the front end.
type kb struct {
	f *ir.Func
	b *ir.Block
}

func newKB(name string) *kb {
	f := ir.NewFunc(name)
	return &kb{f: f, b: f.Body}
}

func (k *kb) array(name string, d ir.DType, dims ...any) *ir.Value {
	ds := make([]ir.Dim, len(dims))
	for i, x := range dims {
		switch x := x.(type) {
		case string:
			ds[i] = ir.Dim{Sym: x}
		case int:
			ds[i] = ir.Dim{Size: int64(x)}
		}
	}
	return k.f.AddParam(name, ir.ArrayOf(d, len(dims)), ds).Value
}

func (k *kb) scalarParam(name string, d ir.DType) *ir.Value {
	return k.f.AddParam(name, ir.ScalarOf(d), nil).Value
}

// op appends an instruction with one result of type t (nil: none).
func (k *kb) op(op ir.Op, t ir.Type, attrs map[string]any, args ...*ir.Value) *ir.Value {
	var in *ir.Instr
	if t == nil {
		in = k.f.NewInstr(op, args)
	} else {
		in = k.f.NewInstr(op, args, t)
	}
	for key, v := range attrs {
		in.Attrs.Set(key, v)
	}
	k.b.Append(in)
	if t == nil {
		return nil
	}
	return in.Result()
}

func (k *kb) cint(v int64) *ir.Value {
	return k.op(ir.OpConst, ir.ScalarOf(ir.I32), map[string]any{"value": v})
}

func (k *kb) cfloat(d ir.DType, v float64) *ir.Value {
	return k.op(ir.OpConst, ir.ScalarOf(d), map[string]any{"value": v})
}

func (k *kb) bin(op ir.Op, x, y *ir.Value) *ir.Value { return k.op(op, x.Type, nil, x, y) }

func (k *kb) load(a *ir.Value, shape []int, pad string, idx ...*ir.Value) *ir.Value {
	return k.op(ir.OpLoad, ir.TileOf(a.Type.Elem(), shape...), map[string]any{"pad": pad},
		append([]*ir.Value{a}, idx...)...)
}

func (k *kb) store(a *ir.Value, t *ir.Value, idx ...*ir.Value) {
	args := append([]*ir.Value{a}, idx...)
	k.op(ir.OpStore, nil, nil, append(args, t)...)
}

func (k *kb) ret() *ir.Func {
	k.op(ir.OpReturn, nil, nil)
	return k.f
}

// forLoop appends a for over [lo, hi) by step carrying inits; body gets the
// induction variable and the carried values and returns the next ones.
func (k *kb) forLoop(lo, hi, step *ir.Value, inits []*ir.Value, body func(iv *ir.Value, c []*ir.Value) []*ir.Value) []*ir.Value {
	types := make([]ir.Type, len(inits))
	for i, v := range inits {
		types[i] = v.Type
	}
	in := k.f.NewInstr(ir.OpFor, append([]*ir.Value{lo, hi, step}, inits...), types...)
	r := in.NewRegion()
	iv := k.f.AddBlockParam(r, lo.Type)
	var carried []*ir.Value
	for _, t := range types {
		carried = append(carried, k.f.AddBlockParam(r, t))
	}
	outer := k.b
	k.b = r
	next := body(iv, carried)
	k.op(ir.OpYield, nil, nil, next...)
	k.b = outer
	k.b.Append(in)
	return in.Results
}

func sym(s string) *ir.HostExpr   { return &ir.HostExpr{Op: ir.HostSym, Sym: s} }
func hconst(v int64) *ir.HostExpr { return &ir.HostExpr{Op: ir.HostConst, Val: v} }
func hop(op ir.HostOp, a, b *ir.HostExpr) *ir.HostExpr {
	return &ir.HostExpr{Op: op, Args: []*ir.HostExpr{a, b}}
}

// cdivIR is ceil(x / c) as the builder expresses it: (x + c-1) // c.
func (k *kb) cdivIR(x *ir.Value, c int64) *ir.Value {
	return k.bin(ir.OpFloorDiv, k.bin(ir.OpAdd, x, k.cint(c-1)), k.cint(c))
}

// refMatmul is C = A@B in float64 over logical elements.
func refMatmul(A, B *runtime.Tensor) []float64 {
	M, K, N := A.Shape[0], A.Shape[1], B.Shape[1]
	a, b := A.Float64s(), B.Float64s()
	c := make([]float64, M*N)
	for i := 0; i < M; i++ {
		for j := 0; j < N; j++ {
			s := 0.0
			for k := 0; k < K; k++ {
				s += a[i*K+k] * b[k*N+j]
			}
			c[i*N+j] = s
		}
	}
	return c
}

// checkClose fails unless got is within tol of want, relative to max|want|.
func checkClose(t *testing.T, what string, got, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	scale := 0.0
	for _, w := range want {
		scale = math.Max(scale, math.Abs(w))
	}
	if scale == 0 {
		scale = 1
	}
	bad := 0
	for i := range got {
		if !(math.Abs(got[i]-want[i]) <= tol*scale) {
			if bad < 5 {
				t.Errorf("%s[%d] = %g, want %g (tol %g x %g)", what, i, got[i], want[i], tol, scale)
			}
			bad++
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d of %d values differ", what, bad, len(got))
	}
}

func tolFor(d ir.DType) float64 {
	switch d {
	case ir.F16, ir.BF16:
		return 1e-2
	case ir.TF32:
		return 1e-3
	case ir.F32:
		return 1e-5
	}
	return 1e-12
}
