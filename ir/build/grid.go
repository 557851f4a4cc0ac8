package build

// The launch grid: `@ct.kernel(grid=(g0, g1, g2))` becomes three host
// expressions over the symbolic dimensions, with constants folded in.

import (
	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/lang"
)

// kernelGrid reads the grid from the kernel's decorator (none: the grid
// is given at launch).
func (b *builder) kernelGrid(def *lang.FuncDef) {
	for _, d := range def.Decorators {
		c, ok := d.(*lang.Call)
		if !ok || !b.isKernelDecorator(d) {
			continue
		}
		if len(c.Args) > 0 {
			b.errorf(c.Args[0].Position(), "ct.kernel takes only keyword arguments: ct.kernel(num_ctas=..., occupancy=..., grid=(...))")
		}
		for _, kw := range c.Kwargs {
			if kernelHints[kw.Name] {
				b.kernelHint(kw)
				continue
			}
			if kw.Name != "grid" {
				b.errorf(kw.Pos, "ct.kernel has no parameter named %s (it takes num_ctas, occupancy, opt_level, num_worker_warps and tilec's grid=)", kw.Name)
				continue
			}
			b.extension(kw.Pos, "@ct.kernel(grid=...)", "cuTile gives the grid to ct.launch(stream, grid, kernel, args)")
			elems := []lang.Expr{kw.Value}
			if t, ok := kw.Value.(*lang.Tuple); ok {
				elems = t.Elems
			}
			if len(elems) == 0 || len(elems) > 3 {
				b.errorf(kw.Value.Position(), "grid must have 1 to 3 axes, got %d", len(elems))
				continue
			}
			var grid [3]*ir.HostExpr
			good := true
			for i := range grid {
				if i >= len(elems) {
					grid[i] = &ir.HostExpr{Op: ir.HostConst, Val: 1}
					continue
				}
				grid[i] = b.hostExpr(elems[i])
				good = good && grid[i] != nil
			}
			if good {
				b.f.Grid = grid
			}
		}
	}
}

var hostBinOps = map[string]ir.HostOp{"+": ir.HostAdd, "-": ir.HostSub, "*": ir.HostMul, "//": ir.HostFloorDiv, "%": ir.HostMod}

// hostExpr converts one grid expression; nil after an error.
func (b *builder) hostExpr(e lang.Expr) *ir.HostExpr {
	switch e := e.(type) {
	case *lang.IntLit:
		return &ir.HostExpr{Op: ir.HostConst, Val: e.Value}
	case *lang.Name:
		if bd, ok := b.fn.scope[e.Name]; ok {
			switch v := bd.val.(type) {
			case int64:
				return &ir.HostExpr{Op: ir.HostConst, Val: v}
			case dimSym:
				return &ir.HostExpr{Op: ir.HostSym, Sym: v.name}
			case poison:
				return nil
			}
		}
		b.errorf(e.Pos, "grid: %s is not an array dimension or an int constant of kernel %s", e.Name, b.kernel.Name)
		return nil
	case *lang.UnaryExpr:
		if e.Op == "-" || e.Op == "+" {
			x := b.hostExpr(e.X)
			if x == nil || e.Op == "+" {
				return x
			}
			return b.hostFold(e.Pos, ir.HostSub, &ir.HostExpr{Op: ir.HostConst}, x)
		}
	case *lang.BinaryExpr:
		if op, ok := hostBinOps[e.Op]; ok {
			x, y := b.hostExpr(e.X), b.hostExpr(e.Y)
			if x == nil || y == nil {
				return nil
			}
			return b.hostFold(e.OpPos, op, x, y)
		}
	case *lang.Call:
		op := ir.HostOp(0)
		switch fn := e.Fun.(type) {
		case *lang.Name:
			if _, shadowed := b.fn.scope[fn.Name]; !shadowed {
				op = map[string]ir.HostOp{"min": ir.HostMin, "max": ir.HostMax}[fn.Name]
			}
		case *lang.Attr:
			if b.moduleAttr(fn) == "cdiv" {
				op = ir.HostCdiv
			}
		}
		if op != 0 {
			if len(e.Args) != 2 || len(e.Kwargs) != 0 {
				b.errorf(e.Pos, "grid: %s takes 2 arguments", exprText(e.Fun))
				return nil
			}
			x, y := b.hostExpr(e.Args[0]), b.hostExpr(e.Args[1])
			if x == nil || y == nil {
				return nil
			}
			return b.hostFold(e.Pos, op, x, y)
		}
	}
	b.errorf(e.Position(), "grid: unsupported expression (use ints, constants, array dimensions, + - * // %%, ct.cdiv, min and max)")
	return nil
}

// hostFold builds op(x, y), computing it when both are constants.
func (b *builder) hostFold(pos lang.Pos, op ir.HostOp, x, y *ir.HostExpr) *ir.HostExpr {
	e := &ir.HostExpr{Op: op, Args: []*ir.HostExpr{x, y}}
	if x.Op == ir.HostConst && y.Op == ir.HostConst {
		v, err := e.Eval(nil)
		if err != nil {
			b.errorf(pos, "%v", err)
			return nil
		}
		return &ir.HostExpr{Op: ir.HostConst, Val: v}
	}
	return e
}
