package host

// torch's autograd, as far as a cuTile sample's driver uses it (NVIDIA's
// LayerNorm.py): tensors that require grad (requires_grad=,
// requires_grad_()), a tape of the operations that record a backward
// (torch.autograd.Function.apply of a class of the program, and
// F.layer_norm), t.backward(grad) running the tape in reverse and
// accumulating .grad into the leaves, and grad mode (torch.no_grad(),
// and off inside a Function's forward and backward, as torch has it).
//
// Any other tensor operation on a tensor that requires grad gives a
// result that requires grad too, as torch's does, but whose backward is
// an error at that operation: tilec never returns a gradient that
// leaves a term out.

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tilec/tilec/lang"
	"github.com/tilec/tilec/runtime"
)

// gradState is the evaluator's autograd: what it knows of each tensor
// that requires grad or has a .grad, and grad mode.
type gradState struct {
	info map[*runtime.Tensor]*gradInfo
	off  int // > 0: grad mode is off (no_grad, a Function's forward or backward)
}

// gradInfo is a tensor's autograd state. A leaf has no node.
type gradInfo struct {
	requires bool
	grad     *runtime.Tensor // a leaf's .grad (nil is None)
	node     *gradNode       // the operation that made the tensor
	out      int             // which of node's outputs it is
}

// gradNode is one recorded operation: its inputs (nil where an input is
// not a tensor that requires grad), its outputs, and back, which maps
// the gradients of the outputs to those of the inputs (nil where none).
type gradNode struct {
	name   string // torch's grad_fn name, for messages
	inputs []*runtime.Tensor
	outs   []*runtime.Tensor
	back   func(call *lang.Call, grads []*runtime.Tensor) []*runtime.Tensor
	// freed is set after a backward without retain_graph: the node's
	// saved tensors are gone, as torch frees them.
	freed bool
	// recorded is set for the operations the tape records (a Function's
	// apply, layer_norm); not for those that only mark their result.
	recorded bool
}

// freedMessage is torch's error for a graph used after it was freed.
const freedMessage = "Trying to backward through the graph a second time (or directly access saved tensors after they have already been freed). Saved intermediate values of the graph are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or if you need to access saved tensors after calling backward."

// withGradOff runs f with grad mode off, and restores it however f ends
// (an error that exhaustive_search's configs recover from included).
func (in *evaluator) withGradOff(f func() any) any {
	in.grad.off++
	defer func() { in.grad.off-- }()
	return f()
}

func (in *evaluator) gradOf(t *runtime.Tensor) *gradInfo {
	if t == nil || in.grad.info == nil {
		return nil
	}
	return in.grad.info[t]
}

// requiresGrad is t.requires_grad.
func (in *evaluator) requiresGrad(t *runtime.Tensor) bool {
	gi := in.gradOf(t)
	return gi != nil && gi.requires
}

// tracking reports whether operations should be recorded now: grad mode
// is on and some tensor requires grad.
func (in *evaluator) tracking() bool { return in.grad.off == 0 && len(in.grad.info) > 0 }

func (in *evaluator) setGrad(t *runtime.Tensor) *gradInfo {
	if in.grad.info == nil {
		in.grad.info = map[*runtime.Tensor]*gradInfo{}
	}
	gi := in.grad.info[t]
	if gi == nil {
		gi = &gradInfo{}
		in.grad.info[t] = gi
	}
	return gi
}

// setRequiresGrad is t.requires_grad_(on) (and requires_grad= where a
// tensor is made): only floating-point leaves may change it.
func (in *evaluator) setRequiresGrad(pos lang.Pos, t *runtime.Tensor, on bool) {
	if gi := in.gradOf(t); gi != nil && gi.node != nil {
		if !on {
			in.fail(pos, "you can only change requires_grad flags of leaf variables (use t.detach() for a tensor without grad)")
		}
		return
	}
	if on && !t.DType.IsFloat() {
		in.fail(pos, "only tensors of floating point dtype can require gradients, not %s", torchName(t.DType))
	}
	if !on && in.gradOf(t) == nil {
		return
	}
	in.setGrad(t).requires = on
}

// tensorGradAttr is t.grad, t.requires_grad, t.is_leaf or t.grad_fn;
// ok is false for other names.
func (in *evaluator) tensorGradAttr(t *runtime.Tensor, name string) (any, bool) {
	gi := in.gradOf(t)
	switch name {
	case "grad":
		if gi == nil || gi.grad == nil {
			return none{}, true
		}
		return gi.grad, true
	case "requires_grad":
		return gi != nil && gi.requires, true
	case "is_leaf":
		return gi == nil || gi.node == nil, true
	case "grad_fn":
		if gi == nil || gi.node == nil {
			return none{}, true
		}
		return gradFn{gi.node}, true
	}
	return nil, false
}

// gradRepr adds to a tensor's printed form what torch adds for autograd:
// requires_grad=True for a leaf, grad_fn=<name> for the output of a
// recorded Function or layer_norm (an operation the tape does not record
// has no torch name here, and adds nothing).
func (in *evaluator) gradRepr(t *runtime.Tensor, s string) string {
	gi := in.gradOf(t)
	switch {
	case gi == nil || !gi.requires:
		return s
	case gi.node == nil:
		return strings.TrimSuffix(s, ")") + ", requires_grad=True)"
	case gi.node.recorded:
		return strings.TrimSuffix(s, ")") + ", grad_fn=<" + gi.node.name + ">)"
	}
	return s
}

// gradFn is t.grad_fn as a value (its name, for print and messages).
type gradFn struct{ n *gradNode }

// setTensorAttr is t.grad = g (None, or a tensor of t's shape and dtype,
// as torch checks) or t.requires_grad = b.
func (in *evaluator) setTensorAttr(pos lang.Pos, t *runtime.Tensor, name string, v any) {
	switch name {
	case "grad":
		if _, isNone := v.(none); isNone {
			if gi := in.gradOf(t); gi != nil {
				gi.grad = nil
			}
			return
		}
		g, ok := v.(*runtime.Tensor)
		if !ok {
			in.fail(pos, "assigned grad expected to be a Tensor or None but got %s", describe(v))
		}
		if !slices.Equal(g.Shape, t.Shape) {
			in.fail(pos, "assigned grad has data of a different size (%v, the tensor's is %v)", g.Shape, t.Shape)
		}
		if g.DType != t.DType {
			in.fail(pos, "assigned grad has data of a different type (%s, the tensor's is %s)", torchName(g.DType), torchName(t.DType))
		}
		in.setGrad(t).grad = g
		return
	case "requires_grad":
		b, ok := v.(bool)
		if !ok {
			in.fail(pos, "requires_grad is a bool, got %s", describe(v))
		}
		in.setRequiresGrad(pos, t, b)
		return
	}
	in.fail(pos, "cannot set attribute %s of a tensor in host code (grad and requires_grad can be set)", name)
}

// checkInPlace refuses an in-place change of a tensor that requires grad
// in grad mode: torch refuses it for a leaf, and tilec's tape has no
// in-place operations.
func (in *evaluator) checkInPlace(pos lang.Pos, t *runtime.Tensor) {
	if in.grad.off > 0 || !in.requiresGrad(t) {
		return
	}
	if in.gradOf(t).node == nil {
		in.fail(pos, "a leaf Variable that requires grad is being used in an in-place operation")
	}
	in.fail(pos, "in-place operations on tensors that require grad are not part of the host subset")
}

// gradResultFree are the tensor functions whose result never requires
// grad, whatever their operands (torch's factory functions).
var gradResultFree = []string{"torch.empty_like", "torch.zeros_like", "torch.ones_like", "torch.full_like",
	"torch.randn_like", "torch.rand_like", "tensor.detach"}

// untracked records that result (a tensor, or a tuple of them) comes
// from an operation the tape does not have, what, applied to operands of
// which some require grad: the result requires grad, and a backward
// that reaches it is an error at pos.
func (in *evaluator) untracked(pos lang.Pos, what string, result any, operands ...any) {
	if !in.tracking() || slices.Contains(gradResultFree, what) {
		return
	}
	var src []*runtime.Tensor
	var collect func(v any)
	collect = func(v any) {
		switch v := v.(type) {
		case *runtime.Tensor:
			if in.requiresGrad(v) {
				src = append(src, v)
			}
		case Tuple:
			for _, x := range v {
				collect(x)
			}
		}
	}
	for _, o := range operands {
		collect(o)
	}
	if len(src) == 0 {
		return
	}
	prog := in.prog
	var mark func(v any)
	mark = func(v any) {
		switch v := v.(type) {
		case *runtime.Tensor:
			if in.gradOf(v) != nil || !v.DType.IsFloat() {
				return
			}
			n := &gradNode{name: what, inputs: src, outs: []*runtime.Tensor{v}}
			n.back = func(*lang.Call, []*runtime.Tensor) []*runtime.Tensor {
				in.failIn(prog, pos, "backward through %s is not part of the host subset: tilec's autograd records torch.autograd.Function.apply and F.layer_norm (compute this inside a Function, or under torch.no_grad())", what)
				return nil
			}
			gi := in.setGrad(v)
			gi.requires, gi.node = true, n
		case Tuple:
			for _, x := range v {
				mark(x)
			}
		case namedTuple:
			mark(v.items)
		}
	}
	mark(result)
}

// backward is t.backward(gradient=None, retain_graph=None,
// create_graph=False): the gradients of the graph that made t, run in
// reverse from t, accumulated into the .grad of the leaves that require
// grad. A leaf takes its gradient in its own dtype.
func (in *evaluator) backward(c *callSite, t *runtime.Tensor) any {
	a := c.bind("tensor.backward", "gradient=", "retain_graph=", "create_graph=", "inputs=")
	pos := c.e.Pos
	if a[2] != nil && in.truth(pos, a[2]) {
		in.fail(pos, "tensor.backward: create_graph=True (gradients of gradients) is not part of the host subset")
	}
	if a[3] != nil && a[3] != (none{}) {
		in.fail(pos, "tensor.backward: inputs= is not part of the host subset")
	}
	retain := a[1] != nil && in.truth(pos, a[1])
	gi := in.gradOf(t)
	if gi == nil || !gi.requires {
		in.fail(pos, "element 0 of tensors does not require grad and does not have a grad_fn")
	}
	var grad *runtime.Tensor
	switch g := a[0].(type) {
	case nil, none:
		if t.NumElements() != 1 {
			in.fail(pos, "grad can be implicitly created only for scalar outputs (this tensor has %d elements: pass backward(gradient))", t.NumElements())
		}
		grad = in.fromValues(pos, "backward", t.DType, t.Shape, []float64{1})
	case *runtime.Tensor:
		if !slices.Equal(g.Shape, t.Shape) {
			in.fail(c.argPos(0), "Mismatch in shape: grad_output[0] has a shape of %s and output[0] has a shape of %s", torchSize(g.Shape), torchSize(t.Shape))
		}
		grad = in.convert(pos, g, t.DType)
	default:
		in.fail(c.argPos(0), "tensor.backward: gradient is a tensor, got %s", describe(a[0]))
	}
	if gi.node == nil {
		in.accumulate(pos, t, grad)
		return none{}
	}
	// Reverse postorder of the graph from t's node: every node comes
	// before the nodes of its inputs, so its gradients are complete
	// when it runs.
	var order []*gradNode
	seen := map[*gradNode]bool{}
	var visit func(n *gradNode)
	visit = func(n *gradNode) {
		seen[n] = true
		for _, x := range n.inputs {
			if xi := in.gradOf(x); xi != nil && xi.node != nil && !seen[xi.node] {
				visit(xi.node)
			}
		}
		order = append(order, n)
	}
	visit(gi.node)
	slices.Reverse(order)
	pending := map[*runtime.Tensor]*runtime.Tensor{t: grad}
	for _, n := range order {
		if n.freed {
			in.fail(pos, "%s", freedMessage)
		}
		grads := make([]*runtime.Tensor, len(n.outs))
		for i, o := range n.outs {
			if g, ok := pending[o]; ok {
				grads[i] = g
			} else {
				grads[i] = in.fromValues(pos, "backward", o.DType, o.Shape, make([]float64, o.NumElements()))
			}
		}
		res := n.back(c.e, grads)
		for i, x := range n.inputs {
			if x == nil || i >= len(res) || res[i] == nil {
				continue
			}
			xi := in.gradOf(x)
			switch {
			case xi == nil || !xi.requires:
			case xi.node == nil:
				in.accumulate(pos, x, res[i])
			default:
				if old, ok := pending[x]; ok {
					pending[x] = in.tensorBinop(pos, "+", old, res[i]).(*runtime.Tensor)
				} else {
					pending[x] = res[i]
				}
			}
		}
		if !retain {
			n.freed = true
		}
	}
	return none{}
}

// accumulate adds g into leaf t's .grad (a new tensor of t's dtype the
// first time, then in place, as torch's AccumulateGrad).
func (in *evaluator) accumulate(pos lang.Pos, t, g *runtime.Tensor) {
	gi := in.setGrad(t)
	if gi.grad == nil {
		gi.grad = in.copyAs(pos, "backward", in.convert(pos, g, t.DType), t.Shape)
		return
	}
	in.inplace(pos, "+", gi.grad, g)
}

// torchSize prints a shape as torch.Size does.
func torchSize(shape []int) string {
	parts := make([]string, len(shape))
	for i, s := range shape {
		parts[i] = fmt.Sprint(s)
	}
	return "torch.Size([" + strings.Join(parts, ", ") + "])"
}

// fnCtx is the ctx of a torch.autograd.Function: what forward saves
// (save_for_backward, attributes) for backward to read.
type fnCtx struct {
	cls   *classVal
	saved Tuple
	needs Tuple // needs_input_grad
	node  *gradNode
	names []string
	attrs map[string]any
}

// ctxAttr is ctx.name.
func (in *evaluator) ctxAttr(pos lang.Pos, x *fnCtx, name string) any {
	switch name {
	case "saved_tensors":
		if x.node != nil && x.node.freed {
			in.fail(pos, "%s", freedMessage)
		}
		return x.saved
	case "needs_input_grad":
		return x.needs
	case "save_for_backward":
		return method{x, name}
	case "mark_dirty", "mark_non_differentiable", "set_materialize_grads", "save_for_forward":
		in.fail(pos, "ctx.%s is not part of the host subset (ctx has save_for_backward, saved_tensors, needs_input_grad and the attributes forward sets)", name)
	}
	if v, ok := x.attrs[name]; ok {
		return v
	}
	have := "none"
	if len(x.names) > 0 {
		have = strings.Join(x.names, ", ")
	}
	in.fail(pos, "ctx has no attribute %s (forward set %s)", name, have)
	return nil
}

func (in *evaluator) setCtxAttr(pos lang.Pos, x *fnCtx, name string, v any) {
	switch name {
	case "saved_tensors", "needs_input_grad", "save_for_backward":
		in.fail(pos, "ctx.%s cannot be set", name)
	}
	if x.attrs == nil {
		x.attrs = map[string]any{}
	}
	if _, ok := x.attrs[name]; !ok {
		x.names = append(x.names, name)
	}
	x.attrs[name] = v
}

// saveForBackward is ctx.save_for_backward(*tensors).
func (in *evaluator) saveForBackward(c *callSite, x *fnCtx) any {
	if len(c.kw) > 0 {
		in.fail(c.e.Pos, "save_for_backward takes tensors as positional arguments")
	}
	for i, v := range c.args {
		switch v.(type) {
		case *runtime.Tensor, none:
		default:
			in.fail(c.argPos(i), "save_for_backward can only save tensors (or None), but argument %d is %s", i, describe(v))
		}
	}
	x.saved = append(Tuple{}, c.args...)
	return none{}
}

// staticMethod is cls.name as a Function needs it: a @staticmethod.
func (in *evaluator) staticMethod(pos lang.Pos, cls *classVal, name string) methodVal {
	v, ok := cls.lookup(name)
	if !ok {
		in.fail(pos, "%s has no %s: an autograd Function defines @staticmethod forward(ctx, ...) and backward(ctx, *grads)", cls.def.Name, name)
	}
	m, ok := v.(methodVal)
	if !ok || m.kind != "staticmethod" {
		in.fail(pos, "%s.%s must be a @staticmethod taking ctx first", cls.def.Name, name)
	}
	return m
}

// applyFunction is cls.apply(*args) of a torch.autograd.Function:
// forward(ctx, *args) runs with grad mode off; when grad mode is on and
// an argument requires grad, its tensor outputs require grad and record
// a node whose backward is cls.backward(ctx, *grads), which returns one
// gradient (or None) per argument.
func (in *evaluator) applyFunction(c *callSite, cls *classVal) any {
	pos := c.e.Pos
	if len(c.kw) > 0 {
		in.fail(pos, "%s.apply takes positional arguments only in the host subset", cls.def.Name)
	}
	fwd := in.staticMethod(pos, cls, "forward")
	ctx := &fnCtx{cls: cls, needs: make(Tuple, len(c.args))}
	inputs := make([]*runtime.Tensor, len(c.args))
	record := false
	for i, a := range c.args {
		t, ok := a.(*runtime.Tensor)
		ctx.needs[i] = ok && in.requiresGrad(t)
		if ctx.needs[i].(bool) {
			inputs[i], record = t, true
		}
	}
	record = record && in.grad.off == 0
	out := in.withGradOff(func() any {
		return in.callMethodDef(&callSite{in: in, e: c.e, args: append([]any{ctx}, c.args...), kw: map[string]any{}}, fwd, nil)
	})
	if !record {
		return out
	}
	var outs []*runtime.Tensor
	items, isTuple := out.(Tuple)
	if !isTuple {
		items = Tuple{out}
	}
	for _, v := range items {
		t, ok := v.(*runtime.Tensor)
		if !ok {
			continue
		}
		if slices.Contains(inputs, t) || in.gradOf(t) != nil {
			in.fail(pos, "%s.forward returned a tensor that autograd already knows (an argument, or a tensor that requires grad): not part of the host subset; return a new tensor (x.clone())", cls.def.Name)
		}
		outs = append(outs, t)
	}
	n := &gradNode{name: cls.def.Name + "Backward", inputs: inputs, outs: outs, recorded: true}
	ctx.node = n
	args := c.args
	n.back = func(call *lang.Call, grads []*runtime.Tensor) []*runtime.Tensor {
		return in.functionBackward(call, cls, ctx, args, grads)
	}
	for i, t := range outs {
		if t.DType.IsFloat() {
			gi := in.setGrad(t)
			gi.requires, gi.node, gi.out = true, n, i
		}
	}
	return out
}

// functionBackward runs cls.backward(ctx, *grads) for a recorded apply
// and checks what it returns as torch does: one gradient per argument of
// apply (extra ones must be None), None for an argument that is not a
// tensor, a tensor of its argument's shape otherwise (converted to its
// dtype).
func (in *evaluator) functionBackward(call *lang.Call, cls *classVal, ctx *fnCtx, args []any, grads []*runtime.Tensor) []*runtime.Tensor {
	pos := call.Pos
	bwd := in.staticMethod(pos, cls, "backward")
	bargs := []any{ctx}
	for _, g := range grads {
		bargs = append(bargs, g)
	}
	r := in.withGradOff(func() any {
		return in.callMethodDef(&callSite{in: in, e: call, args: bargs, kw: map[string]any{}}, bwd, nil)
	})
	items, isTuple := r.(Tuple)
	if !isTuple {
		items = Tuple{r}
	}
	name := cls.def.Name + "Backward"
	if len(items) < len(args) {
		in.fail(pos, "function %s returned an incorrect number of gradients (expected %d, got %d)", name, len(args), len(items))
	}
	for _, extra := range items[len(args):] {
		if extra != (none{}) {
			in.fail(pos, "function %s returned an incorrect number of gradients (expected %d, got %d)", name, len(args), len(items))
		}
	}
	res := make([]*runtime.Tensor, len(args))
	for i, g := range items[:len(args)] {
		if g == (none{}) {
			continue
		}
		x, isTensor := args[i].(*runtime.Tensor)
		if !isTensor {
			in.fail(pos, "function %s returned a gradient different than None at position %d, but the corresponding forward input was not a Variable", name, i+1)
		}
		gt, ok := g.(*runtime.Tensor)
		if !ok {
			in.fail(pos, "function %s returned %s as the gradient at position %d: a gradient is a tensor or None", name, describe(g), i+1)
		}
		if !in.requiresGrad(x) {
			continue
		}
		if !slices.Equal(gt.Shape, x.Shape) {
			in.fail(pos, "Function %s returned an invalid gradient at index %d - got %v but expected shape compatible with %v", name, i, gt.Shape, x.Shape)
		}
		res[i] = in.convert(pos, gt, x.DType)
	}
	return res
}

// recordLayerNorm records F.layer_norm(x, normalized_shape, w, b, eps)
// = out when grad mode is on and x, w or b requires grad. Its backward,
// in float64 over each normalized row of n elements, with x̂ = (x -
// mean) * rstd and g = dy * w: dx = rstd * (g - mean(g) - x̂ * mean(g *
// x̂)), dw = Σ_rows dy * x̂, db = Σ_rows dy, each rounded to its
// tensor's dtype.
func (in *evaluator) recordLayerNorm(pos lang.Pos, out, x *runtime.Tensor, w, b any, n int, eps float64) {
	if !in.tracking() {
		return
	}
	wt, _ := w.(*runtime.Tensor)
	bt, _ := b.(*runtime.Tensor)
	if !in.requiresGrad(x) && !in.requiresGrad(wt) && !in.requiresGrad(bt) {
		return
	}
	xs := values(x)
	var ws []float64
	if wt != nil {
		ws = values(wt)
	}
	node := &gradNode{name: "NativeLayerNormBackward0", inputs: []*runtime.Tensor{x, wt, bt}, outs: []*runtime.Tensor{out}, recorded: true}
	node.back = func(_ *lang.Call, grads []*runtime.Tensor) []*runtime.Tensor {
		dy := values(grads[0])
		dx := make([]float64, len(xs))
		dw := make([]float64, n)
		db := make([]float64, n)
		g := make([]float64, n)
		for base := 0; base+n <= len(xs) && n > 0; base += n {
			row := xs[base : base+n]
			mean, rstd := rowStats(row, eps, true)
			var gMean, gxMean float64
			for j, v := range row {
				xhat := (v - mean) * rstd
				g[j] = dy[base+j]
				if ws != nil {
					g[j] *= ws[j]
				}
				gMean += g[j]
				gxMean += g[j] * xhat
				dw[j] += dy[base+j] * xhat
				db[j] += dy[base+j]
			}
			gMean /= float64(n)
			gxMean /= float64(n)
			for j, v := range row {
				xhat := (v - mean) * rstd
				dx[base+j] = rstd * (g[j] - gMean - xhat*gxMean)
			}
		}
		res := []*runtime.Tensor{in.fromValues(pos, "layer_norm backward", x.DType, x.Shape, dx), nil, nil}
		if wt != nil {
			res[1] = in.fromValues(pos, "layer_norm backward", wt.DType, wt.Shape, dw)
		}
		if bt != nil {
			res[2] = in.fromValues(pos, "layer_norm backward", bt.DType, bt.Shape, db)
		}
		return res
	}
	gi := in.setGrad(out)
	gi.requires, gi.node = true, node
}
