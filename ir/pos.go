package ir

import "fmt"

// Pos is the source position an instruction or kernel came from. Line and
// Col are 1-based (Col counts bytes), Offset is the 0-based byte offset; the
// zero Pos means none (IR parsed from text, or made by a pass without one).
//
// It has lang.Pos's fields, in the same order and of the same types, so
// that the builder (ir/build) and the packages that report positioned
// errors (lower, runtime) convert between the two with a plain conversion,
// lang.Pos(p) and ir.Pos(p), while ir itself does not import lang. Those
// conversions stop compiling if the two types ever differ.
type Pos struct {
	File   string
	Line   int
	Col    int
	Offset int
}

// IsValid reports whether the position was set.
func (p Pos) IsValid() bool { return p.Line > 0 }

// String renders a position as file:line:col (file omitted when empty),
// as lang.Pos does.
func (p Pos) String() string {
	if p.File == "" {
		return fmt.Sprintf("%d:%d", p.Line, p.Col)
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}
