package lang

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Source is the text of one file, kept so that errors can quote the line.
type Source struct {
	Name string
	Text string
}

// Line returns the text of 1-based line n without its newline ("" if out
// of range). A lone '\r' ends a line, as it does for the lexer.
func (s *Source) Line(n int) string {
	if s == nil || n < 1 {
		return ""
	}
	text := loneCRToLF(s.Text)
	for i := 1; i < n; i++ {
		j := strings.IndexByte(text, '\n')
		if j < 0 {
			return ""
		}
		text = text[j+1:]
	}
	if j := strings.IndexByte(text, '\n'); j >= 0 {
		text = text[:j]
	}
	return strings.TrimRight(text, "\r")
}

// Errorf makes an error at pos that quotes the source line.
func (s *Source) Errorf(pos Pos, format string, args ...any) *Error {
	return &Error{Pos: pos, Msg: fmt.Sprintf(format, args...), LineText: s.Line(pos.Line)}
}

// Quote returns err with the source line filled in when it is an *Error
// at a position in s that does not quote its line yet: later stages (lower)
// know an instruction's position but not the text, so the caller that read
// the file adds it. Other errors come back unchanged.
func (s *Source) Quote(err error) error {
	if l, ok := err.(ErrorList); ok && s != nil {
		out := make(ErrorList, len(l))
		for i, e := range l {
			out[i] = e
			if q, ok := s.Quote(e).(*Error); ok {
				out[i] = q
			}
		}
		return out
	}
	var e *Error
	if s == nil || !errors.As(err, &e) || e.LineText != "" || e.Pos.File != s.Name {
		return err
	}
	q := *e
	q.LineText = s.Line(e.Pos.Line)
	return &q
}

// Error is one user error: a position, a message and the source line it
// points into. Error() renders `file:line:col: msg`, then the line and a caret.
type Error struct {
	Pos      Pos
	Msg      string
	LineText string
}

// Error renders the error with its source line and a caret under the column.
func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s", e.Pos, e.Msg)
	if e.LineText != "" && e.Pos.Col > 0 {
		b.WriteString("\n    ")
		b.WriteString(strings.ReplaceAll(e.LineText, "\t", " "))
		b.WriteString("\n    ")
		b.WriteString(strings.Repeat(" ", min(e.Pos.Col-1, len(e.LineText))))
		b.WriteString("^")
	}
	return b.String()
}

// String renders a position as file:line:col (file omitted when empty).
func (p Pos) String() string {
	if p.File == "" {
		return fmt.Sprintf("%d:%d", p.Line, p.Col)
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// ErrorList is every error of a compilation, sorted by position.
type ErrorList []*Error

// Add appends an error.
func (l *ErrorList) Add(e *Error) { *l = append(*l, e) }

// Sort orders the errors by file, line and column and drops exact duplicates.
func (l *ErrorList) Sort() {
	s := *l
	sort.SliceStable(s, func(i, j int) bool {
		a, b := s[i].Pos, s[j].Pos
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
	out := s[:0]
	for i, e := range s {
		if i > 0 && e.Pos == s[i-1].Pos && e.Msg == s[i-1].Msg {
			continue
		}
		out = append(out, e)
	}
	*l = out
}

// Err returns the list as an error, or nil when it is empty.
func (l ErrorList) Err() error {
	if len(l) == 0 {
		return nil
	}
	return l
}

// MaxShownErrors is how many errors ErrorList.Error renders: past it, a
// wall of messages hides the first, which is usually the one to fix; the
// count of the rest is still given.
const MaxShownErrors = 20

// Error renders the errors, one after another, at most MaxShownErrors of
// them, then how many more there are.
func (l ErrorList) Error() string {
	var b strings.Builder
	for i, e := range l {
		if i == MaxShownErrors {
			rest, more := len(l)-i, ""
			if l[len(l)-1].Msg == tooManyErrors {
				// Parse stopped counting: there are more than it kept.
				rest, more = rest-1, "more than "
			}
			fmt.Fprintf(&b, "\nand %s%d more error", more, rest)
			if rest > 1 {
				b.WriteString("s")
			}
			break
		}
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

// JoinErrors merges the errors of several phases of one file into one
// sorted ErrorList, without duplicates. nil errors are skipped; an error
// that is not an ErrorList or *Error (an I/O error) is returned as it is,
// since it is not about a place in the source.
func JoinErrors(errs ...error) error {
	var out ErrorList
	for _, err := range errs {
		if err == nil {
			continue
		}
		var list ErrorList
		var one *Error
		switch {
		case errors.As(err, &list):
			out = append(out, list...)
		case errors.As(err, &one):
			out = append(out, one)
		default:
			return err
		}
	}
	out.Sort()
	return out.Err()
}
