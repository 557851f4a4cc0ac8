package ir

// f-strings. The lexer reads f"a{x:.2f}b" as a call of lang.FStringFunc
// with the literal text around each field, the fields' expressions and
// their format specs. Every field known at compile time is formatted here
// as Python would; a field known only at run time (a tile or a scalar of
// the kernel) leaves an fstringVal, which ct.print and print turn into
// their printf format (the spec becomes the conversion's flags, width and
// precision) and which any other use reports as an error.

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/tilec/tilec/lang"
)

// fstringVal is an f-string with run-time fields: lits[i] comes before
// field i, lits[len(fields)] after the last.
type fstringVal struct {
	lits   []string
	fields []fstringField
}

type fstringField struct {
	v    value
	spec string
	pos  lang.Pos
}

// fstringSpec is the subset of Python's format-spec mini-language that
// maps onto a printf conversion: [[fill]align][sign][0][width][.precision][type].
var fstringSpec = regexp.MustCompile(`^([<>^]?)([+ -]?)(0?)([0-9]*)(\.[0-9]+)?([dfFeEgGxXo%]?)$`)

// biFString builds an f-string from lang.FStringFunc's arguments.
func (b *builder) biFString(e *lang.Call, pos []arg) value {
	// Only the lexer writes these calls; a program calling the name itself
	// gets an error, not a crash.
	malformed := len(pos)%3 != 1
	for i := 0; i < len(pos) && !malformed; i += 3 {
		_, ok := pos[i].v.(string)
		if i+2 < len(pos) {
			_, okSpec := pos[i+2].v.(string)
			ok = ok && okSpec
		}
		malformed = !ok
	}
	if malformed {
		return b.fail(e.Pos, "%s is the f-string's internal form; write an f-string instead", lang.FStringFunc)
	}
	f := fstringVal{}
	runtime := false
	for i := 0; i < len(pos); i += 3 {
		f.lits = append(f.lits, pos[i].v.(string))
		if i+1 >= len(pos) {
			break
		}
		v, spec := pos[i+1].v, pos[i+2].v.(string)
		if isPoison(v) {
			return poison{}
		}
		f.fields = append(f.fields, fstringField{v: v, spec: spec, pos: pos[i+1].e.Position()})
		if isRuntime(v) {
			runtime = true
		}
	}
	if runtime {
		return f
	}
	var s strings.Builder
	for i, fd := range f.fields {
		s.WriteString(f.lits[i])
		text, err := formatSpec(fd.v, fd.spec)
		if err != "" {
			return b.fail(fd.pos, "f-string: %s", err)
		}
		s.WriteString(text)
	}
	s.WriteString(f.lits[len(f.fields)])
	return s.String()
}

// formatSpec formats a compile-time value with a format spec, as Python's
// format() does for the subset fstringSpec accepts.
func formatSpec(v value, spec string) (string, string) {
	if spec == "" {
		if s, ok := v.(string); ok {
			return s, ""
		}
		return formatConst(v), ""
	}
	conv, err := printfSpec(spec, v)
	if err != "" {
		return "", err
	}
	switch x := v.(type) {
	case bool:
		if x {
			return fmt.Sprintf(conv, 1), ""
		}
		return fmt.Sprintf(conv, 0), ""
	case int64:
		if strings.ContainsAny(conv[len(conv)-1:], "feEgG") {
			return fmt.Sprintf(conv, float64(x)), ""
		}
		return fmt.Sprintf(conv, x), ""
	case float64:
		return fmt.Sprintf(conv, x), ""
	}
	return "", fmt.Sprintf("a format spec needs a number, got %s", describe(v))
}

// printfSpec turns a Python format spec into a printf conversion for a
// value of v's kind (int or float): "8.3f" is "%8.3f", "<5d" is "%-5d".
// A spec without a type takes the value's: d for integers, g for floats
// given a precision, else f.
func printfSpec(spec string, v value) (string, string) {
	m := fstringSpec.FindStringSubmatch(spec)
	if m == nil || m[1] == "^" {
		return "", fmt.Sprintf("format spec %q is not supported (use [<|>][sign][0][width][.precision][d|f|e|g|x|o])", spec)
	}
	align, sign, zero, width, prec, typ := m[1], m[2], m[3], m[4], m[5], m[6]
	isFloat := false
	switch x := v.(type) {
	case float64:
		isFloat = true
	case *Value:
		isFloat = x.Type.Elem().IsFloat()
	}
	switch {
	case typ == "%":
		return "", "the % presentation type is not supported"
	case typ == "":
		if isFloat {
			typ = "f"
			if prec != "" {
				typ = "g"
			}
		} else {
			typ = "d"
		}
	case strings.Contains("dxXo", typ) && isFloat:
		return "", fmt.Sprintf("format spec %q needs an integer, got a float", spec)
	case strings.Contains("dxXo", typ) && prec != "":
		return "", fmt.Sprintf("format spec %q: precision is not allowed with integer types", spec)
	}
	var c strings.Builder
	c.WriteByte('%')
	if align == "<" {
		c.WriteByte('-')
	}
	if sign != "-" {
		c.WriteString(sign)
	}
	if zero != "" && align != "<" {
		c.WriteByte('0')
	}
	c.WriteString(width)
	c.WriteString(prec)
	c.WriteString(typ)
	return c.String(), ""
}

// printFString appends f's text and conversions to a printf format, and
// its run-time values to args.
func (b *builder) printFString(name string, f fstringVal, format *strings.Builder, args []*Value) ([]*Value, bool) {
	for i, fd := range f.fields {
		format.WriteString(strings.ReplaceAll(f.lits[i], "%", "%%"))
		if !isRuntime(fd.v) {
			text, err := formatSpec(fd.v, fd.spec)
			if err != "" {
				b.errorf(fd.pos, "f-string: %s", err)
				return nil, false
			}
			format.WriteString(strings.ReplaceAll(text, "%", "%%"))
			continue
		}
		v := b.printfArg(fd.pos, name, fd.v)
		if v == nil {
			return nil, false
		}
		conv := "%d"
		if v.Type.Elem().IsFloat() {
			conv = "%f"
		}
		if fd.spec != "" {
			c, err := printfSpec(fd.spec, v)
			if err != "" {
				b.errorf(fd.pos, "f-string: %s", err)
				return nil, false
			}
			conv = c
		}
		format.WriteString(conv)
		args = append(args, v)
	}
	format.WriteString(strings.ReplaceAll(f.lits[len(f.fields)], "%", "%%"))
	return args, true
}

// FormatField formats a compile-time number, bool or string as the
// replacement field of an f-string with the given format spec, for the
// host-code evaluator (runtime/host); the second result is a message when
// the spec does not apply to the value.
func FormatField(v any, spec string) (string, string) {
	switch v.(type) {
	case int64, float64, bool, string:
		return formatSpec(v, spec)
	}
	return "", "a format spec needs a number or a string"
}
