package npy

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/runtime"
)

const (
	magic = "\x93NUMPY"
	// maxHeader bounds the header a reader accepts (numpy's own limit is 10000
	// bytes unless told otherwise).
	maxHeader = 1 << 20
	// maxBytes bounds the data a reader accepts, so a corrupt shape cannot
	// ask for an absurd amount of memory.
	maxBytes = 1 << 40
)

// streamProbe is how much of an array's data Read takes before it
// allocates the whole: see read.
const streamProbe = 1 << 20

var descrs = map[string]ir.DType{
	"f2": ir.F16, "f4": ir.F32, "f8": ir.F64, "i4": ir.I32, "i8": ir.I64, "b1": ir.Bool,
	"i1": ir.I8, "i2": ir.I16, "u1": ir.U8, "u2": ir.U16, "u4": ir.U32, "u8": ir.U64,
}

func descrOf(d ir.DType) (string, error) {
	switch d {
	case ir.F16:
		return "<f2", nil
	case ir.F32, ir.TF32, ir.BF16, ir.F8E4M3, ir.F8E5M2, ir.F8E8M0:
		return "<f4", nil
	case ir.I8:
		return "|i1", nil
	case ir.U8:
		return "|u1", nil
	case ir.I16:
		return "<i2", nil
	case ir.U16:
		return "<u2", nil
	case ir.U32:
		return "<u4", nil
	case ir.U64:
		return "<u8", nil
	case ir.F64:
		return "<f8", nil
	case ir.I32:
		return "<i4", nil
	case ir.I64:
		return "<i8", nil
	case ir.Bool:
		return "|b1", nil
	}
	return "", fmt.Errorf("npy: no numpy dtype for %s", d)
}

// Write writes t to w in .npy format (version 1.0, C order). BF16 is written
// as '<f4' (see the package documentation).
func Write(w io.Writer, t *runtime.Tensor) error {
	descr, err := descrOf(t.DType)
	if err != nil {
		return err
	}
	if t.DType == ir.BF16 || t.DType == ir.TF32 || t.DType.IsFloat8() || t.DType == ir.F8E8M0 {
		t = runtime.FromFloat64(ir.F32, t.Shape, t.Float64s())
	} else if !t.IsContiguous() {
		t = t.Clone()
	}
	dims := make([]string, len(t.Shape))
	for i, d := range t.Shape {
		dims[i] = strconv.Itoa(d)
	}
	shape := "(" + strings.Join(dims, ", ")
	if len(dims) == 1 {
		shape += ","
	}
	shape += ")"
	dict := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': %s, }", descr, shape)
	major, lenBytes := byte(1), 2
	hlen := len(dict) + 1
	pad := 64 - (len(magic)+2+lenBytes+hlen)%64
	if hlen+pad > 0xffff {
		major, lenBytes = 2, 4
		pad = 64 - (len(magic)+2+lenBytes+hlen)%64
	}
	var b bytes.Buffer
	b.WriteString(magic)
	b.WriteByte(major)
	b.WriteByte(0)
	if lenBytes == 2 {
		binary.Write(&b, binary.LittleEndian, uint16(hlen+pad))
	} else {
		binary.Write(&b, binary.LittleEndian, uint32(hlen+pad))
	}
	b.WriteString(dict)
	b.WriteString(strings.Repeat(" ", pad))
	b.WriteByte('\n')
	if _, err := w.Write(b.Bytes()); err != nil {
		return err
	}
	_, err = w.Write(t.Data)
	return err
}

// WriteFile writes t to the named file.
func WriteFile(name string, t *runtime.Tensor) error {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(f)
	err = Write(bw, t)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// ReadFile reads a tensor from the named .npy file.
func ReadFile(name string) (*runtime.Tensor, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	dataLeft := int64(-1)
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		dataLeft = fi.Size()
	}
	t, err := read(bufio.NewReader(f), dataLeft)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return t, nil
}

// Header is the parsed dictionary of a .npy header.
type Header struct {
	Descr        string
	FortranOrder bool
	Shape        []int
}

// Read reads one array in .npy format from r. Trailing data after the array
// is not consumed beyond what the array needs.
func Read(r io.Reader) (*runtime.Tensor, error) { return read(r, -1) }

// read is Read of a file of fileBytes bytes (-1: unknown, a pipe): a
// file too short for the header's shape is refused before its data is
// allocated or read.
func read(r io.Reader, fileBytes int64) (*runtime.Tensor, error) {
	var pre [8]byte
	if _, err := io.ReadFull(r, pre[:]); err != nil {
		return nil, fmt.Errorf("npy: reading magic: %w", noEOF(err))
	}
	if string(pre[:6]) != magic {
		return nil, errors.New("npy: not a .npy file (bad magic)")
	}
	major, minor := pre[6], pre[7]
	var hlen int
	switch major {
	case 1:
		var l [2]byte
		if _, err := io.ReadFull(r, l[:]); err != nil {
			return nil, fmt.Errorf("npy: reading header length: %w", noEOF(err))
		}
		hlen = int(binary.LittleEndian.Uint16(l[:]))
		fileBytes -= 10
	case 2, 3:
		var l [4]byte
		if _, err := io.ReadFull(r, l[:]); err != nil {
			return nil, fmt.Errorf("npy: reading header length: %w", noEOF(err))
		}
		n := binary.LittleEndian.Uint32(l[:])
		if n > maxHeader {
			return nil, fmt.Errorf("npy: header of %d bytes is too long", n)
		}
		hlen = int(n)
		fileBytes -= 12
	default:
		return nil, fmt.Errorf("npy: unsupported format version %d.%d", major, minor)
	}
	if minor != 0 {
		return nil, fmt.Errorf("npy: unsupported format version %d.%d", major, minor)
	}
	hb := make([]byte, hlen)
	if _, err := io.ReadFull(r, hb); err != nil {
		return nil, fmt.Errorf("npy: reading header: %w", noEOF(err))
	}
	h, err := ParseHeader(string(hb))
	if err != nil {
		return nil, err
	}
	descr := h.Descr
	if len(descr) != 3 {
		return nil, fmt.Errorf("npy: unsupported dtype %q", descr)
	}
	dt, ok := descrs[descr[1:]]
	if !ok {
		return nil, fmt.Errorf("npy: unsupported dtype %q", descr)
	}
	swap := false
	switch descr[0] {
	case '<', '=':
	case '|':
		if dt.Bytes() != 1 {
			return nil, fmt.Errorf("npy: unsupported dtype %q", descr)
		}
	case '>':
		swap = dt.Bytes() > 1
	default:
		return nil, fmt.Errorf("npy: unsupported dtype %q", descr)
	}
	n := int64(1)
	for ax, d := range h.Shape {
		if d < 0 {
			return nil, fmt.Errorf("npy: negative dimension in shape %v", h.Shape)
		}
		// Every tensor of tilec's is a kernel's array or could be one.
		if d > math.MaxInt32 {
			return nil, fmt.Errorf("npy: axis %d has %d elements, more than the %d kernels index (array dims are i32)", ax, d, math.MaxInt32)
		}
		if d > 0 && n > maxBytes/int64(d) {
			return nil, fmt.Errorf("npy: shape %v is too large", h.Shape)
		}
		n *= int64(d)
	}
	size := n * int64(dt.Bytes())
	if size > maxBytes {
		return nil, fmt.Errorf("npy: shape %v is too large", h.Shape)
	}
	if err := runtime.CheckHostBytes(dt, h.Shape, size); err != nil {
		return nil, fmt.Errorf("npy: %w", err)
	}
	short := func(have int64) error {
		return fmt.Errorf("npy: the file has %d bytes of data; shape %v of %s needs %d", have, h.Shape, descr, size)
	}
	if fileBytes >= 0 && fileBytes-int64(hlen) < size {
		return nil, short(max(0, fileBytes-int64(hlen)))
	}
	// One buffer of the data's size, checked against the host's memory
	// above: a buffer grown by doubling would need up to twice the array
	// (a Go "fatal error: out of memory" under an address-space cap). A
	// stream of unknown length is read a little first, so that a few
	// bytes claiming gigabytes fail before the gigabytes are allocated.
	head := make([]byte, min(size, streamProbe))
	if m, err := io.ReadFull(r, head); err != nil {
		return nil, short(int64(m))
	}
	buf := head
	if size > streamProbe {
		buf = make([]byte, size)
		copy(buf, head)
		if m, err := io.ReadFull(r, buf[streamProbe:]); err != nil {
			return nil, short(streamProbe + int64(m))
		}
	}
	if swap {
		w := dt.Bytes()
		for i := 0; i+w <= len(buf); i += w {
			for a, b := i, i+w-1; a < b; a, b = a+1, b-1 {
				buf[a], buf[b] = buf[b], buf[a]
			}
		}
	}
	if dt == ir.Bool {
		for i, x := range buf {
			if x > 1 {
				buf[i] = 1
			}
		}
	}
	t := &runtime.Tensor{DType: dt, Shape: h.Shape, Data: buf}
	if h.FortranOrder {
		t.Strides = make([]int, len(h.Shape))
		s := 1
		for i, d := range h.Shape {
			t.Strides[i] = s
			s *= d
		}
	} else {
		t.Strides = runtime.RowMajorStrides(h.Shape)
	}
	return t, nil
}

func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// ParseHeader parses a .npy header: a Python dict literal with the keys
// 'descr' (a string), 'fortran_order' (True or False) and 'shape' (a tuple
// of ints), padded with spaces and ending in a newline.
func ParseHeader(s string) (*Header, error) {
	p := &hparser{s: s}
	h, err := p.header()
	if err != nil {
		return nil, fmt.Errorf("npy: header %q: %w", strings.TrimRight(s, " \n"), err)
	}
	return h, nil
}

type hparser struct {
	s string
	i int
}

func (p *hparser) skip() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\n' || p.s[p.i] == '\r') {
		p.i++
	}
}

func (p *hparser) eat(c byte) bool {
	p.skip()
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *hparser) expect(c byte) error {
	if !p.eat(c) {
		return p.errf("expected %q", c)
	}
	return nil
}

func (p *hparser) errf(format string, args ...any) error {
	return fmt.Errorf("at offset %d: %s", p.i, fmt.Sprintf(format, args...))
}

func (p *hparser) str() (string, error) {
	p.skip()
	if p.i >= len(p.s) || (p.s[p.i] != '\'' && p.s[p.i] != '"') {
		return "", p.errf("expected a string")
	}
	q := p.s[p.i]
	j := strings.IndexByte(p.s[p.i+1:], q)
	if j < 0 {
		return "", p.errf("unterminated string")
	}
	v := p.s[p.i+1 : p.i+1+j]
	p.i += j + 2
	return v, nil
}

func (p *hparser) ident() string {
	p.skip()
	j := p.i
	for j < len(p.s) && (p.s[j] >= 'a' && p.s[j] <= 'z' || p.s[j] >= 'A' && p.s[j] <= 'Z') {
		j++
	}
	v := p.s[p.i:j]
	p.i = j
	return v
}

func (p *hparser) tuple() ([]int, error) {
	if err := p.expect('('); err != nil {
		return nil, err
	}
	dims := []int{}
	for {
		if p.eat(')') {
			return dims, nil
		}
		p.skip()
		j := p.i
		for j < len(p.s) && p.s[j] >= '0' && p.s[j] <= '9' {
			j++
		}
		// numpy may write longs as 3L in old files
		v, err := strconv.ParseInt(p.s[p.i:j], 10, 64)
		if err != nil || v > 1<<40 {
			return nil, p.errf("bad dimension %q", p.s[p.i:j])
		}
		p.i = j
		if p.i < len(p.s) && p.s[p.i] == 'L' {
			p.i++
		}
		dims = append(dims, int(v))
		if p.eat(')') {
			if len(dims) == 1 {
				return nil, p.errf("a one-element tuple needs a trailing comma")
			}
			return dims, nil
		}
		if err := p.expect(','); err != nil {
			return nil, err
		}
	}
}

func (p *hparser) header() (*Header, error) {
	if !strings.HasSuffix(p.s, "\n") {
		return nil, errors.New("does not end in a newline")
	}
	if err := p.expect('{'); err != nil {
		return nil, err
	}
	h := &Header{}
	seen := map[string]bool{}
	for {
		if p.eat('}') {
			break
		}
		key, err := p.str()
		if err != nil {
			return nil, err
		}
		if seen[key] {
			return nil, p.errf("duplicate key %q", key)
		}
		seen[key] = true
		if err := p.expect(':'); err != nil {
			return nil, err
		}
		switch key {
		case "descr":
			if h.Descr, err = p.str(); err != nil {
				return nil, err
			}
		case "fortran_order":
			switch v := p.ident(); v {
			case "True":
				h.FortranOrder = true
			case "False":
			default:
				return nil, p.errf("fortran_order is %q, want True or False", v)
			}
		case "shape":
			if h.Shape, err = p.tuple(); err != nil {
				return nil, err
			}
		default:
			return nil, p.errf("unexpected key %q", key)
		}
		if p.eat('}') {
			break
		}
		if err := p.expect(','); err != nil {
			return nil, err
		}
	}
	p.skip()
	if p.i != len(p.s) {
		return nil, p.errf("trailing characters")
	}
	for _, k := range []string{"descr", "fortran_order", "shape"} {
		if !seen[k] {
			return nil, fmt.Errorf("missing key %q", k)
		}
	}
	return h, nil
}

// Convert converts a tensor read from a file to the dtype d a kernel
// declares (numpy has no bf16, so bf16 inputs arrive as f32); name names
// the array in errors. Floats round to d. Integers must keep their value:
// every integer conversion is range-checked, signedness included, because
// a wrapped value (2^64-1 from a uint64 file read as int64 -1, int64 -1
// read as uint64 2^64-1, 2 read as bool true) would change the input
// silently. Integers and floats do not mix.
func Convert(t *runtime.Tensor, d ir.DType, name string) (*runtime.Tensor, error) {
	if t.DType.IsFloat() != d.IsFloat() {
		return nil, fmt.Errorf("file holds %s, kernel declares %s", t.DType, d)
	}
	out, err := runtime.AllocTensor(d, t.Shape...)
	if err != nil {
		return nil, err
	}
	i := 0
	var bad error
	if d.IsFloat() {
		// Rounding to a narrower float is the conversion; a finite value
		// beyond its range (an infinity, or e4m3's NaN) is not a value the
		// file holds.
		t.ForEachElem(func(e int) {
			if bad != nil {
				return
			}
			v := t.ElemAt(e)
			out.SetElemAt(i, v)
			finite := !math.IsInf(v, 0) && !math.IsNaN(v)
			if r := out.ElemAt(i); finite && (math.IsInf(r, 0) || math.IsNaN(r) || (float8Overflow[d] > 0 && math.Abs(v) >= float8Overflow[d])) {
				bad = fmt.Errorf("element %s[%s] of the file is %v, beyond the range of the kernel's %s",
					name, joinInts(runtime.Unravel(i, t.Shape)), v, d)
			}
			i++
		})
		if bad != nil {
			return nil, bad
		}
		return out, nil
	}
	t.ForEachElem(func(e int) {
		if bad != nil {
			return
		}
		v := t.ElemIntAt(e)
		if !intFits(t.DType, v, d) {
			text := strconv.FormatInt(v, 10)
			if t.DType == ir.U64 {
				text = strconv.FormatUint(uint64(v), 10)
			}
			bad = fmt.Errorf("element %s[%s] of the file is %s, which does not fit the kernel's %s",
				name, joinInts(runtime.Unravel(i, t.Shape)), text, d)
			return
		}
		out.SetElemIntAt(i, v)
		i++
	})
	if bad != nil {
		return nil, bad
	}
	return out, nil
}

// float8Overflow is, for the float8 dtypes, the smallest magnitude that
// rounds (to nearest even) past the largest finite value. Half an ulp
// above it is a tie: e4m3fn's 464 lies between 448 (mantissa 110, even)
// and 480 (111, its NaN), so it rounds to 448 and only magnitudes above
// it overflow; e5m2's 61440 lies between 57344 (mantissa 11, odd) and
// 65536 (the infinity), so it rounds up and overflows itself. Their
// conversion saturates there (cvt.rn.satfinite) instead of giving an
// infinity, so Convert cannot see the overflow in the result. Other
// dtypes are absent (0: no bound here).
var float8Overflow = map[ir.DType]float64{ir.F8E4M3: math.Nextafter(464, math.Inf(1)), ir.F8E5M2: 61440}

// intFits reports whether the value v of the integer or bool dtype from
// (u64 values from 2^63 held as negative int64 patterns) is a value of the
// dtype to.
func intFits(from ir.DType, v int64, to ir.DType) bool {
	switch {
	case to == ir.Bool:
		return v == 0 || v == 1
	case from == ir.U64 && v < 0: // 2^63 and above
		return to == ir.U64
	case v < 0 && to.IsUnsigned():
		return false
	}
	return ir.WrapInt(to, v) == v
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ", ")
}
