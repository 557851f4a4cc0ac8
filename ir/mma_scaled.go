package ir

import (
	"fmt"
	"slices"
)

// MMAScaledBlock is the number of consecutive elements along K that share
// one scale factor in mma_scaled with float8 operands and float8_e8m0fnu
// scales (OCP MX's block of 32, the only block cuTile allows for them).
const MMAScaledBlock = 32

// inferMMAScaled: mma_scaled %a, %sa, %b, %sb, %acc has acc's type. It
// checks what cuTile's mma_scaled checks: a and b of one float8 dtype,
// both scales float8_e8m0fnu, an f32 accumulator, and scale shapes equal
// to their operand's except along K, which is K/32.
func inferMMAScaled(in *Instr) ([]Type, string) {
	a := in.Args
	res := declaredOr(in, 0, a[4].Type)
	if msg := verifyMMAScaled(a[0].Type, a[1].Type, a[2].Type, a[3].Type, a[4].Type, res); msg != "" {
		return nil, msg
	}
	return one(res)
}

// verifyMMAScaled is inferMMAScaled's check, shared with the builder's
// messages through MMAScaledScaleShape.
func verifyMMAScaled(at, sat, bt, sbt, ct, res Type) string {
	tiles := []Type{at, sat, bt, sbt, ct}
	ts := make([]*Tile, len(tiles))
	for i, t := range tiles {
		x, ok := t.(*Tile)
		if !ok {
			return fmt.Sprintf("mma_scaled of %v, %v, %v, %v, %v, want tiles", at, sat, bt, sbt, ct)
		}
		ts[i] = x
	}
	a, sa, b, sb, c := ts[0], ts[1], ts[2], ts[3], ts[4]
	if !TypesEqual(c, res) {
		return fmt.Sprintf("accumulator %v, want the result type %v", c, res)
	}
	if msg := verifyMMA(a, b, c, c); msg != "" {
		return msg
	}
	if !a.DType.IsFloat8() || b.DType != a.DType {
		return fmt.Sprintf("mma_scaled operands %s and %s, want one float8 dtype (f8e4m3 or f8e5m2)", a.DType, b.DType)
	}
	if sa.DType != F8E8M0 || sb.DType != F8E8M0 {
		return fmt.Sprintf("mma_scaled scales %s and %s, want f8e8m0", sa.DType, sb.DType)
	}
	if c.DType != F32 {
		return fmt.Sprintf("mma_scaled accumulator %s, want f32", c.DType)
	}
	for _, p := range []struct {
		name    string
		x, s    *Tile
		operand int
	}{{"a", a, sa, 0}, {"b", b, sb, 1}} {
		want, ok := MMAScaledScaleShape(p.x.Shape, p.operand)
		if !ok {
			return fmt.Sprintf("mma_scaled %s is %v: K (%d) is not a multiple of %d", p.name, p.x, p.x.Shape[len(p.x.Shape)-2+1-p.operand], MMAScaledBlock)
		}
		if !slices.Equal(p.s.Shape, want) {
			return fmt.Sprintf("mma_scaled %s is %v, so its scale must have shape %v, not %v", p.name, p.x, want, p.s.Shape)
		}
	}
	return ""
}

// MMAScaledScaleShape is the scale tile's shape for operand a (operand
// 0: (..., M, K) gives (..., M, K/32)) or b (operand 1: (..., K, N) gives
// (..., K/32, N)); ok is false where K is not a multiple of 32.
func MMAScaledScaleShape(shape []int, operand int) (scale []int, ok bool) {
	r := len(shape)
	kAxis := r - 1
	if operand == 1 {
		kAxis = r - 2
	}
	if r < 2 || shape[kAxis]%MMAScaledBlock != 0 {
		return nil, false
	}
	scale = append([]int(nil), shape...)
	scale[kAxis] /= MMAScaledBlock
	return scale, true
}
