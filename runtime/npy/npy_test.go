package npy

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/runtime"
)

// numpyHeader builds a header exactly as numpy's format.write_array_header_1_0
// does: the dict, spaces up to a 64-byte boundary, a newline.
func numpyHeader(dict string) []byte {
	hlen := len(dict) + 1
	pad := 64 - (10+hlen)%64
	var b bytes.Buffer
	b.WriteString("\x93NUMPY\x01\x00")
	binary.Write(&b, binary.LittleEndian, uint16(hlen+pad))
	b.WriteString(dict + strings.Repeat(" ", pad) + "\n")
	return b.Bytes()
}

// TestGolden pins the exact bytes of np.save(f, np.array([[1, 2, 3], [4, 5, 6]], dtype='<f4')).
func TestGolden(t *testing.T) {
	want := []byte("\x93NUMPY\x01\x00\x76\x00" +
		"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }" +
		strings.Repeat(" ", 58) + "\n")
	for _, x := range []float32{1, 2, 3, 4, 5, 6} {
		want = binary.LittleEndian.AppendUint32(want, math.Float32bits(x))
	}
	if len(want) != 128+24 || !bytes.Equal(want[:128], numpyHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }")) {
		t.Fatal("the golden itself is inconsistent")
	}
	var b bytes.Buffer
	if err := Write(&b, runtime.FromFloat64(ir.F32, []int{2, 3}, []float64{1, 2, 3, 4, 5, 6})); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b.Bytes(), want) {
		t.Errorf("Write:\n%q\nwant\n%q", b.Bytes(), want)
	}
	got, err := Read(bytes.NewReader(want))
	if err != nil {
		t.Fatal(err)
	}
	if got.DType != ir.F32 || !slices.Equal(got.Shape, []int{2, 3}) || !slices.Equal(got.Float64s(), []float64{1, 2, 3, 4, 5, 6}) {
		t.Errorf("Read = %v", got.Format())
	}
	// 1-D and 0-D shapes as numpy prints them.
	for _, tc := range []struct {
		shape []int
		s     string
	}{{[]int{5}, "(5,)"}, {[]int{}, "()"}, {[]int{2, 0, 3}, "(2, 0, 3)"}} {
		b.Reset()
		Write(&b, runtime.NewTensor(ir.I64, tc.shape...))
		h := numpyHeader("{'descr': '<i8', 'fortran_order': False, 'shape': " + tc.s + ", }")
		if !bytes.HasPrefix(b.Bytes(), h) || b.Len()%8 != 0 {
			t.Errorf("shape %v: header %q", tc.shape, b.Bytes())
		}
	}
}

func TestRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	dir := t.TempDir()
	for _, d := range []ir.DType{ir.F16, ir.F32, ir.F64, ir.I32, ir.I64, ir.Bool, ir.BF16, ir.TF32} {
		x := runtime.RandNormal(rng, d, 3, 5, 7)
		for _, view := range []*runtime.Tensor{x, x.Transpose(2, 0, 1)} {
			name := filepath.Join(dir, d.String()+".npy")
			if err := WriteFile(name, view); err != nil {
				t.Fatal(err)
			}
			y, err := ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			wantD := d
			if d == ir.BF16 || d == ir.TF32 {
				wantD = ir.F32 // documented
			}
			if y.DType != wantD || !slices.Equal(y.Shape, view.Shape) || !slices.Equal(y.Float64s(), view.Float64s()) {
				t.Errorf("%s %v: round trip gives %s %v", d, view.Shape, y.DType, y.Shape)
			}
		}
	}
}

func TestVersionsAndOrders(t *testing.T) {
	dict := "{'shape': (2, 3), 'fortran_order': True, 'descr': '<i4'}"
	data := []byte{}
	// Fortran order: column-major storage of [[1,2,3],[4,5,6]].
	for _, x := range []int32{1, 4, 2, 5, 3, 6} {
		data = binary.LittleEndian.AppendUint32(data, uint32(x))
	}
	for _, ver := range []byte{2, 3} {
		var b bytes.Buffer
		b.WriteString("\x93NUMPY")
		b.WriteByte(ver)
		b.WriteByte(0)
		h := dict + "    \n"
		binary.Write(&b, binary.LittleEndian, uint32(len(h)))
		b.WriteString(h)
		b.Write(data)
		got, err := Read(&b)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got.Float64s(), []float64{1, 2, 3, 4, 5, 6}) || !slices.Equal(got.Strides, []int{1, 2}) {
			t.Errorf("v%d fortran: %v strides %v", ver, got.Float64s(), got.Strides)
		}
	}
	// Big-endian f8 and a bool array with double-quoted keys.
	be := numpyHeader(`{"descr": ">f8", "fortran_order": False, "shape": (2,)}`)
	be = binary.BigEndian.AppendUint64(be, math.Float64bits(1.5))
	be = binary.BigEndian.AppendUint64(be, math.Float64bits(-2))
	got, err := Read(bytes.NewReader(be))
	if err != nil || !slices.Equal(got.Float64s(), []float64{1.5, -2}) {
		t.Errorf("big endian: %v %v", got, err)
	}
	bo := append(numpyHeader("{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }"), 0, 1, 1)
	got, err = Read(bytes.NewReader(bo))
	if err != nil || got.DType != ir.Bool || !slices.Equal(got.Float64s(), []float64{0, 1, 1}) {
		t.Errorf("bool: %v %v", got, err)
	}
}

func TestMalformed(t *testing.T) {
	good := "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }"
	for _, tc := range []struct {
		name string
		file []byte
		want string
	}{
		{"empty", nil, "reading magic"},
		{"magic", []byte("\x93NUMPZ\x01\x00\x00\x00"), "bad magic"},
		{"version", []byte("\x93NUMPY\x04\x00\x00\x00"), "unsupported format version 4.0"},
		{"short header", append([]byte("\x93NUMPY\x01\x00\x40\x00"), "{'descr'"...), "reading header"},
		{"no newline", numpyHeaderRaw(good + " "), "does not end in a newline"},
		{"missing key", numpyHeader("{'descr': '<f4', 'shape': (2,), }"), `missing key "fortran_order"`},
		{"extra key", numpyHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}"), `unexpected key "x"`},
		{"dtype", numpyHeader("{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }"), `unsupported dtype "<c8"`},
		{"dtype order", numpyHeader("{'descr': '|f4', 'fortran_order': False, 'shape': (2,), }"), `unsupported dtype "|f4"`},
		{"fortran", numpyHeader("{'descr': '<f4', 'fortran_order': 0, 'shape': (2,), }"), "want True or False"},
		{"tuple", numpyHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (2), }"), "trailing comma"},
		{"negative", numpyHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }"), "bad dimension"},
		{"huge", numpyHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (1000000, 1000000, 1000000), }"), "too large"},
		{"short data", append(numpyHeader(good), 1, 2, 3), "3 bytes of data"},
		{"duplicate", numpyHeader("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2,), }"), "duplicate key"},
		{"unterminated", numpyHeader("{'descr: <f4}"), "unterminated string"},
	} {
		_, err := Read(bytes.NewReader(tc.file))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error containing %q", tc.name, err, tc.want)
		}
	}
}

func numpyHeaderRaw(h string) []byte {
	var b bytes.Buffer
	b.WriteString("\x93NUMPY\x01\x00")
	binary.Write(&b, binary.LittleEndian, uint16(len(h)))
	b.WriteString(h)
	return b.Bytes()
}

func FuzzReadNPY(f *testing.F) {
	var b bytes.Buffer
	Write(&b, runtime.FromFloat64(ir.F16, []int{2, 2}, []float64{1, 2, 3, 4}))
	f.Add(b.Bytes())
	f.Add(numpyHeader("{'descr': '<i4', 'fortran_order': True, 'shape': (1, 1), }"))
	f.Add([]byte("\x93NUMPY\x03\x00\x10\x00\x00\x00{'shape': ()}   \n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		x, err := Read(bytes.NewReader(data))
		if err != nil {
			return
		}
		// Whatever was read can be written and read back identically.
		var out bytes.Buffer
		if err := Write(&out, x); err != nil {
			t.Fatal(err)
		}
		y, err := Read(&out)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(x.Shape, y.Shape) || x.DType != y.DType {
			t.Fatalf("%v vs %v", x, y)
		}
		xs, ys := x.Float64s(), y.Float64s()
		for i := range xs {
			if xs[i] != ys[i] && !(math.IsNaN(xs[i]) && math.IsNaN(ys[i])) {
				t.Fatalf("element %d: %g vs %g", i, xs[i], ys[i])
			}
		}
	})
}

// A header whose data would exceed the host's memory is refused with the
// bytes before anything is read or allocated.
func TestHeaderBeyondHostMemory(t *testing.T) {
	old := runtime.HostMemoryLimit
	runtime.HostMemoryLimit = 1 << 20
	defer func() { runtime.HostMemoryLimit = old }()
	src := numpyHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (1024, 1024), }")
	_, err := Read(bytes.NewReader(src))
	want := "npy: f32 array of shape [1024 1024] needs 4194304 bytes (4.0 MiB), more than the host memory available"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Read = %v, want %q", err, want)
	}
}

// TestNarrowIntRoundTrip writes and reads back the 8- to 64-bit signed and
// unsigned dtypes with their extreme values, and checks the descriptors.
func TestNarrowIntRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		d     ir.DType
		descr string
		vals  []int64
	}{
		{ir.I8, "|i1", []int64{-128, 127, 0}},
		{ir.U8, "|u1", []int64{0, 255, 7}},
		{ir.I16, "<i2", []int64{-32768, 32767, 1}},
		{ir.U16, "<u2", []int64{0, 65535, 1}},
		{ir.U32, "<u4", []int64{0, math.MaxUint32, 1}},
		{ir.U64, "<u8", []int64{0, -1, math.MinInt64}}, // 2^64-1 and 2^63 as patterns
	} {
		x := runtime.NewTensor(tc.d, 3)
		for i, v := range tc.vals {
			x.SetInt(v, i)
		}
		var b bytes.Buffer
		if err := Write(&b, x); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), "'descr': '"+tc.descr+"'") {
			t.Errorf("%s: header %q", tc.d, b.String()[:60])
		}
		y, err := Read(&b)
		if err != nil {
			t.Fatal(err)
		}
		if y.DType != tc.d || !slices.Equal(y.Int64s(), tc.vals) {
			t.Errorf("%s: read back %s %v, want %v", tc.d, y.DType, y.Int64s(), tc.vals)
		}
	}
}
