package build

// f-strings. The lexer reads f"a{x:.2f}b" as a call of lang.FStringFunc
// with the literal text around each field, the fields' expressions and
// their format specs. Every field known at compile time is formatted here
// as Python would; a field known only at run time (a tile or a scalar of
// the kernel) leaves an fstringVal, which ct.print and print turn into
// their printf format (the spec becomes the conversion's flags, width and
// precision) and which any other use reports as an error.

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"github.com/tilec/tilec/ir"
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

// biFString builds an f-string from lang.FStringFunc's arguments: text,
// then (value, conversion, spec, text) per field. A spec with nested
// fields arrives as the string its own f-string made; it must be known at
// compile time.
func (b *builder) biFString(e *lang.Call, pos []arg) value {
	// Only the lexer writes these calls; a program calling the name itself
	// gets an error, not a crash.
	malformed := len(pos)%4 != 1
	for i := 0; i < len(pos) && !malformed; i += 4 {
		_, ok := pos[i].v.(string)
		if i+3 < len(pos) {
			_, okConv := pos[i+2].v.(string)
			ok = ok && okConv
		}
		malformed = !ok
	}
	if malformed {
		return b.fail(e.Pos, "%s is the f-string's internal form; write an f-string instead", lang.FStringFunc)
	}
	f := fstringVal{}
	runtime := false
	for i := 0; i < len(pos); i += 4 {
		f.lits = append(f.lits, pos[i].v.(string))
		if i+1 >= len(pos) {
			break
		}
		v, conv := pos[i+1].v, pos[i+2].v.(string)
		if isPoison(v) || isPoison(pos[i+3].v) {
			return poison{}
		}
		spec, ok := pos[i+3].v.(string)
		if !ok {
			return b.fail(pos[i+3].e.Position(), "f-string: the fields of a format spec must be known at compile time, got %s", describe(pos[i+3].v))
		}
		fpos := pos[i+1].e.Position()
		if conv != "" {
			if isRuntime(v) {
				return b.fail(fpos, "f-string: the conversion !%s needs a compile-time value; ct.print formats a run-time one with its spec", conv)
			}
			text, ok := PyConvert(v, conv)
			if !ok {
				return b.fail(fpos, "f-string: !%s of %s is not supported", conv, describe(v))
			}
			v = text
		}
		f.fields = append(f.fields, fstringField{v: v, spec: spec, pos: fpos})
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

// MaxFormatWidth bounds the widths and precisions of format specs and
// printf conversions: Go's fmt prints "%!(NOVERB)" from 10^8 on and a
// device's printf has its own small buffer, and a width of millions is a
// mistake, so a larger one is an error rather than a wrong string.
// runtime/host bounds host f-strings the same.
const MaxFormatWidth = 1_000_000

// bigFormatNumber returns the first run of digits in spec (a width or a
// precision) above MaxFormatWidth, "" when there is none.
func bigFormatNumber(spec string) string {
	for _, n := range formatDigits.FindAllString(spec, -1) {
		if x, err := strconv.Atoi(n); err != nil || x > MaxFormatWidth {
			return n
		}
	}
	return ""
}

var formatDigits = regexp.MustCompile(`[0-9]+`)

// checkSpecNumbers is formatSpec's and printfSpec's message for a spec
// with a width or precision above MaxFormatWidth.
func checkSpecNumbers(spec string) string {
	if n := bigFormatNumber(spec); n != "" {
		return fmt.Sprintf("format spec %q: a width or precision of %s is more than tilec pads to (%d)", spec, n, MaxFormatWidth)
	}
	return ""
}

// printfConversion is a printf conversion up to its width and precision;
// "%%" matches too, to be skipped.
var printfConversion = regexp.MustCompile(`%%|%[-+ #0]*[0-9.]*`)

// checkPrintfNumbers is ct.printf's message for a format with a
// conversion whose width or precision is above MaxFormatWidth.
func checkPrintfNumbers(format string) string {
	for _, c := range printfConversion.FindAllString(format, -1) {
		if n := bigFormatNumber(c); c != "%%" && n != "" {
			return fmt.Sprintf("format %q: a width or precision of %s is more than tilec pads to (%d)", format, n, MaxFormatWidth)
		}
	}
	return ""
}

// formatSpec formats a compile-time value with a format spec, as Python's
// format() does for the subset fstringSpec accepts.
func formatSpec(v value, spec string) (string, string) {
	if msg := checkSpecNumbers(spec); msg != "" {
		return "", msg
	}
	if spec == "" {
		if s, ok := PyStr(v); ok {
			return s, ""
		}
		return formatConst(v), ""
	}
	if str, ok := v.(string); ok {
		return formatString(str, spec)
	}
	if x, ok := v.(float64); ok {
		if m := fstringSpec.FindStringSubmatch(spec); m != nil && m[1] != "^" && m[5] == "" && m[6] == "" {
			// No type and no precision: Python formats the float as str()
			// does (repr's digits), then pads it; printf has no such type.
			return padNumber(PyFloat(x), x < 0 || math.Signbit(x), m[1], m[2], m[3] != "", m[4]), ""
		}
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
	if msg := checkSpecNumbers(spec); msg != "" {
		return "", msg
	}
	m := fstringSpec.FindStringSubmatch(spec)
	if m == nil || m[1] == "^" {
		return "", fmt.Sprintf("format spec %q is not supported (use [<|>][sign][0][width][.precision][d|f|e|g|x|o])", spec)
	}
	align, sign, zero, width, prec, typ := m[1], m[2], m[3], m[4], m[5], m[6]
	isFloat := false
	switch x := v.(type) {
	case float64:
		isFloat = true
	case *ir.Value:
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
func (b *builder) printFString(name string, f fstringVal, format *strings.Builder, args []*ir.Value) ([]*ir.Value, bool) {
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

// padNumber applies a number spec's sign, alignment (right by default),
// zero padding and width to text, a number rendered without sign
// decoration (neg: text starts with '-').
func padNumber(text string, neg bool, align, sign string, zero bool, width string) string {
	if !neg && (sign == "+" || sign == " ") {
		text = sign + text
	}
	w, _ := strconv.Atoi(width)
	pad := w - len(text)
	if pad <= 0 {
		return text
	}
	switch {
	case align == "<":
		return text + strings.Repeat(" ", pad)
	case zero:
		// Zeros go after the sign, as in Python's "=" alignment.
		if text[0] == '-' || text[0] == '+' || text[0] == ' ' {
			return text[:1] + strings.Repeat("0", pad) + text[1:]
		}
		return strings.Repeat("0", pad) + text
	}
	return strings.Repeat(" ", pad) + text
}

// stringSpec is Python's format spec for strings: [[fill]align][width][.precision][s].
var stringSpec = regexp.MustCompile(`^(?:(.)?([<>^]))?([0-9]*)(?:\.([0-9]+))?(s?)$`)

// formatString formats a string with a format spec, as Python's
// format(str, spec): fill and alignment (left by default) to the width,
// the precision truncating it.
func formatString(str, spec string) (string, string) {
	m := stringSpec.FindStringSubmatch(spec)
	if m == nil {
		return "", fmt.Sprintf("format spec %q is not supported for a string (use [[fill]<|>|^][width][.precision][s])", spec)
	}
	fill, align, width, prec := m[1], m[2], m[3], m[4]
	r := []rune(str)
	if prec != "" {
		if n, _ := strconv.Atoi(prec); n < len(r) {
			r = r[:n]
		}
	}
	if fill == "" {
		fill = " "
	}
	w, _ := strconv.Atoi(width)
	pad := w - len(r)
	if pad <= 0 {
		return string(r), ""
	}
	switch align {
	case ">":
		return strings.Repeat(fill, pad) + string(r), ""
	case "^":
		return strings.Repeat(fill, pad/2) + string(r) + strings.Repeat(fill, pad-pad/2), ""
	}
	return string(r) + strings.Repeat(fill, pad), ""
}

// PyStr renders a compile-time int, float, bool or string as Python's
// str() does; ok is false for other values.
func PyStr(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case int64:
		return strconv.FormatInt(x, 10), true
	case float64:
		return PyFloat(x), true
	case bool:
		if x {
			return "True", true
		}
		return "False", true
	}
	return "", false
}

// PyConvert applies an f-string conversion (!s, !r or !a) to a
// compile-time int, float, bool or string, as Python's str, repr and
// ascii do; ok is false for other values.
func PyConvert(v any, conv string) (string, bool) {
	text, ok := PyStr(v)
	if !ok || conv == "s" {
		return text, ok
	}
	if _, isStr := v.(string); isStr {
		text = pyQuote(text)
	}
	if conv == "a" {
		var b strings.Builder
		for _, r := range text {
			if r < 0x80 {
				b.WriteRune(r)
			} else {
				escapeRune(&b, r)
			}
		}
		text = b.String()
	}
	return text, true
}

// pyQuote is Python's repr of a string: single quotes unless the string
// holds a single quote and no double one; backslash escapes for the quote,
// backslash, \t \n \r and other control characters; printable non-ASCII
// characters as they are.
func pyQuote(s string) string {
	q := byte('\'')
	if strings.ContainsRune(s, '\'') && !strings.ContainsRune(s, '"') {
		q = '"'
	}
	var b strings.Builder
	b.WriteByte(q)
	for _, r := range s {
		switch {
		case r == rune(q) || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, "\\x%02x", r)
		case r >= 0x80 && !unicode.IsPrint(r):
			escapeRune(&b, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte(q)
	return b.String()
}

// escapeRune writes r as Python writes a character it escapes: \xNN,
// \uNNNN or \UNNNNNNNN, the shortest that holds it.
func escapeRune(b *strings.Builder, r rune) {
	switch {
	case r <= 0xff:
		fmt.Fprintf(b, "\\x%02x", r)
	case r <= 0xffff:
		fmt.Fprintf(b, "\\u%04x", r)
	default:
		fmt.Fprintf(b, "\\U%08x", r)
	}
}

// PyFloat renders a float as Python's repr (and str): the shortest digits
// that read back to it, in fixed notation for decimal exponents -4..15
// (with ".0" when integral), else as d.ddde+XX; inf, -inf and nan.
func PyFloat(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		return "nan"
	}
	e := strconv.FormatFloat(f, 'e', -1, 64)
	exp, _ := strconv.Atoi(e[strings.IndexByte(e, 'e')+1:])
	if exp < -4 || exp >= 16 {
		return e
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
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
