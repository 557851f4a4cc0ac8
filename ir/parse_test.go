package ir

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tilec/tilec/lang/golden"
)

// TestTextGoldens checks that every archive's `-- ir --` section parses,
// verifies, and prints back byte for byte. With -update, the section is
// rewritten as printed (review the diff).
func TestTextGoldens(t *testing.T) {
	golden.Run(t, filepath.Join("testdata", "text"), func(t *testing.T, a *golden.Archive) {
		text := a.MustSection(t, "ir")
		m, err := Parse(text)
		if err != nil {
			t.Fatalf("Parse: %v", err)
		}
		if err := VerifyModule(m); err != nil {
			t.Fatalf("Verify: %v", err)
		}
		a.Check(t, "ir", PrintModule(m))
		// Parsed IDs are kept, and new values continue after them.
		for _, f := range m.Funcs {
			maxID := -1
			for _, p := range f.Body.Params {
				maxID = max(maxID, p.ID)
			}
			f.Body.Walk(func(in *Instr) {
				for _, v := range in.Results {
					maxID = max(maxID, v.ID)
				}
				for _, r := range in.Regions {
					for _, p := range r.Params {
						maxID = max(maxID, p.ID)
					}
				}
			})
			if f.NumValues() != maxID+1 {
				t.Errorf("@%s: NumValues = %d, want %d", f.Name, f.NumValues(), maxID+1)
			}
		}
	})
}

// TestParseRenumber checks that IDs with gaps survive a round trip, and that
// Renumber then prints densely and still round-trips.
func TestParseRenumber(t *testing.T) {
	const text = `kernel @k(%7 x: f32) {
  %40 = neg %7 : f32
  %12 = for %3, %3, %3, %40 : f32 {
    ^(%100: i32, %9: f32)
    yield %9
  }
  return
}
`
	// %3 is used before it is defined: an error.
	if _, err := Parse(text); err == nil || !strings.Contains(err.Error(), "ir:3:13: undefined value %3") {
		t.Fatalf("got %v", err)
	}
	fixed := strings.Replace(text, "  %40 = neg %7 : f32\n", "  %40 = neg %7 : f32\n  %3 = const {value=1} : i32\n", 1)
	f, err := ParseFunc(fixed)
	if err != nil {
		t.Fatal(err)
	}
	if err := Verify(f); err != nil {
		t.Fatal(err)
	}
	if got := Print(f); got != fixed {
		t.Fatalf("round trip:\n%s", cmp.Diff(fixed, got))
	}
	if f.NumValues() != 101 {
		t.Errorf("NumValues = %d, want 101", f.NumValues())
	}
	f.Renumber()
	want := `kernel @k(%0 x: f32) {
  %1 = neg %0 : f32
  %2 = const {value=1} : i32
  %5 = for %2, %2, %2, %1 : f32 {
    ^(%3: i32, %4: f32)
    yield %4
  }
  return
}
`
	if diff := cmp.Diff(want, Print(f)); diff != "" {
		t.Errorf("after Renumber (-want +got):\n%s", diff)
	}
	if err := Verify(f); err != nil {
		t.Fatal(err)
	}
}

func TestParseModule(t *testing.T) {
	const text = `kernel @a() {
  return
}

kernel @b(%0 n: i32) consts(x=1.5, y=true, z=-2, d=bf16) grid(_, n, _) {
  return
}
`
	m, err := Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Funcs) != 2 || m.Func("b") == nil || m.Func("c") != nil {
		t.Fatalf("funcs: %v", m.Funcs)
	}
	b := m.Func("b")
	want := []Const{{"x", 1.5}, {"y", true}, {"z", int64(-2)}, {"d", BF16}}
	if diff := cmp.Diff(want, b.Consts); diff != "" {
		t.Errorf("consts (-want +got):\n%s", diff)
	}
	if b.Grid[0] != nil || b.Grid[2] != nil || b.Grid[1] == nil || b.Grid[1].Sym != "n" {
		t.Errorf("grid: %v", b.Grid)
	}
	// Scalar parameter names are grid symbols only through dims; this grid
	// names n, which no array declares: the verifier says so.
	if err := VerifyModule(m); err == nil || !strings.Contains(err.Error(), `unknown dimension "n"`) {
		t.Errorf("VerifyModule: %v", err)
	}
	printed := PrintModule(m)
	wantPrinted := `kernel @a() {
  return
}

kernel @b(%0 n: i32)
    consts(x=1.5, y=true, z=-2, d=bf16)
    grid(_, n, _) {
  return
}
`
	if diff := cmp.Diff(wantPrinted, printed); diff != "" {
		t.Errorf("PrintModule (-want +got):\n%s", diff)
	}
	if _, err := Parse(""); err != nil {
		t.Errorf("empty module: %v", err)
	}
	if _, err := ParseFunc(""); err == nil {
		t.Errorf("ParseFunc of no kernel succeeded")
	}
}

// TestParseQuoted checks names that are not identifiers.
func TestParseQuoted(t *testing.T) {
	const text = `kernel @"my kernel"(%0 "x y": array<?xf32> ["a b"], %1: i32)
    grid(cdiv("a b", 4), "_", 1) {
  return {"odd key"="a\tb", w=""}
}
`
	f, err := ParseFunc(text)
	if err != nil {
		t.Fatal(err)
	}
	if f.Name != "my kernel" || f.Params[0].Name != "x y" || f.Params[1].Name != "" || f.Params[0].Dims[0].Sym != "a b" {
		t.Errorf("names: %q %q %q %v", f.Name, f.Params[0].Name, f.Params[1].Name, f.Params[0].Dims)
	}
	if got := f.Body.Instrs[0].Attrs.Str("odd key"); got != "a\tb" {
		t.Errorf("attr = %q", got)
	}
	if f.Grid[1] == nil || f.Grid[1].Sym != "_" {
		t.Errorf("grid[1] = %v", f.Grid[1])
	}
	if got := Print(f); got != text {
		t.Errorf("round trip:\n%s", cmp.Diff(text, got))
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		text, want string
	}{
		{"kernel", `ir:1:7: expected "@", found end of input`},
		{"func @k() {}", `ir:1:1: expected "kernel", found "func"`},
		{"kernel @k() {\n  %1 = foo : i32\n}", `ir:2:8: unknown op "foo"`},
		{"kernel @k() {\n  %1 = add %0, %0 : i32\n}", `ir:2:12: undefined value %0`},
		{"kernel @k(%0 x: i32) {\n  %0 = neg %0 : i32\n}", `ir:2:3: value %0 defined twice`},
		{"kernel @k(%0 x: i32) {\n  %1 = neg %0\n}", `ir:2:8: neg has 1 results but 0 result types`},
		{"kernel @k(%0 x: i32) {\n  %1 = neg %0 : i32, i32\n}", `ir:2:8: neg has 1 results but 2 result types`},
		{"kernel @k(%0 x: i33) {}", `ir:1:17: unknown type "i33"`},
		{"kernel @k(%0 x: tile<3x>) {}", `ir:1:22: unknown dtype "" in tile type`},
		{"kernel @k(%0 x: tile<axf32>) {}", `ir:1:22: malformed tile dimension "a"`},
		{"kernel @k(%0 x: tile<4 x f32>) {}", `ir:1:24: malformed tile type`},
		{"kernel @k(%0 x: array<4xf32>) {}", `ir:1:23: array dimensions must be ?, found "4"`},
		{"kernel @k(%0 x: tile<99999999999xf32>) {}", `ir:1:22: malformed tile dimension "99999999999"`},
		{"kernel @k() {\n  return {a=1, a=2}\n}", `ir:2:16: attribute a repeated`},
		{"kernel @k() lowered(num_warps=4, num_warps=8) {\n  return\n}", `ir:1:34: kernel fact num_warps repeated`},
		{"kernel @k() lowered(warps=4) {\n  return\n}", `ir:1:21: unknown kernel fact warps`},
		{"kernel @k() lowered(persistent=1) {\n  return\n}", `ir:1:21: kernel fact persistent=1, want a bool`},
		{"kernel @k() lowered(num_warps=true) {\n  return\n}", `ir:1:21: kernel fact num_warps=true, want an int`},
		{"kernel @k() {\n  return {a=[1, x]}\n}", `ir:2:17: expected integer, found "x"`},
		{"kernel @k() {\n  return {a=99999999999999999999}\n}", `ir:2:13: integer 99999999999999999999 out of range`},
		{"kernel @k() {\n  return {a=-nan}\n}", `ir:2:13: expected float, found "-"`},
		{"kernel @k() {\n  return {a=+ inf}\n}", `ir:2:13: expected float, found "+"`},
		{"kernel @k() consts(a=inf) {}", `ir:1:22: unknown dtype "inf"`},
		{"kernel @k() {\n  return {a=1e999}\n}", `ir:2:13: float 1e999 out of range`},
		{"kernel @k() consts(a=1, a=2) {}", `ir:1:25: constant a repeated`},
		{"kernel @k() consts(a=float16) {}", `ir:1:22: unknown dtype "float16"`},
		{"kernel @k() grid(1, 2) {}", `ir:1:22: expected ",", found ")"`},
		{"kernel @k() grid(foo(1, 2), 1, 1) {}", `ir:1:18: unknown grid function "foo"`},
		{"kernel @k() grid((1, 1, 1) {}", `ir:1:20: expected ")", found ","`},
		{"kernel @k() {\n  %1 = neg %99999999 : i32\n}", `ir:2:12: value ID %99999999 out of range`},
		{"kernel @k() {\n  return\n", `ir:3:1: expected "}", found end of input`},
		{"kernel @k() {\n  return \"abc\n}", `ir:2:10: unterminated string`},
		{"kernel @k() {\n  return \"\\q\"\n}", `ir:2:10: malformed string "\q"`},
		{"kernel @k() {\n  return $\n}", `ir:2:10: unexpected character '$'`},
		{"kernel @k(%0 x: array<?xf32>) {\n  %1 = load %0 : tile<4xf32>\n}", `ir:2:16: expected "[", found ":"`},
		{"kernel @k(%0 x: array<?xf32>) {\n  store %0[]\n}", `ir:3:1: expected ",", found "}"`},
		{"kernel @k() {\n  %1 = if %0\n}", `ir:2:11: undefined value %0`},
		{"kernel @k(%0 c: bool) {\n  if %0 {\n    yield\n  } else return\n}", `ir:4:10: expected "{" after else, found "return"`},
		{"kernel @k(%0 c: bool) {\n  %1 = for %0, %0, %0 : i32 {\n    ^(%1: i32)\n    yield\n  }\n}", `ir:2:3: value %1 defined twice`},
		{"kernel @k() {\n  %1 = = return\n}", `ir:2:8: expected op, found "="`},
		{"kernel @k(%0 x: f32) {\n  %1 = splat %0 {layout=#mma0} : tile<16xf32>\n}", `ir:2:25: undefined layout alias #mma0`},
		{"#a = smem\n#a = smem\nkernel @k() {}", `ir:2:1: layout alias #a defined twice`},
		{"#a = smem\nkernel @k() {\n  return\n}\nkernel @j(%0 x: f32) {\n  %1 = splat %0 {layout=#a} : tile<16xf32>\n}", `ir:6:25: undefined layout alias #a`},
		{"#a = smem\n", `ir:2:1: expected "kernel", found end of input`},
		{"#a smem\nkernel @k() {}", `ir:1:4: expected "=", found "smem"`},
		{"#a = blocked<regs=[]>\nkernel @k() {}", `ir:1:14: unknown layout field regs`},
		{"#a = blocked<reg=[], reg=[]>\nkernel @k() {}", `ir:1:22: layout field reg repeated`},
		{"#a = blocked<reg=[1]>\nkernel @k() {}", `ir:1:19: expected "[", found "1"`},
		{"#a = blocked<reg=[]\nkernel @k() {}", `ir:2:1: expected ",", found "kernel"`},
		{"kernel @k() {\n  return {a=#}\n}", `ir:2:13: unexpected character '#'`},
	} {
		_, err := Parse(tc.text)
		if err == nil {
			t.Errorf("%q: no error, want %s", tc.text, tc.want)
			continue
		}
		if err.Error() != tc.want {
			t.Errorf("%q:\n got %s\nwant %s", tc.text, err, tc.want)
		}
		if _, ok := err.(*ParseError); !ok {
			t.Errorf("%q: error is %T, want *ParseError", tc.text, err)
		}
	}
}

// FuzzParseIR checks that no input makes Parse, Print or Verify panic, and
// that printing is a fixed point for every input that parses and verifies.
func FuzzParseIR(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "text", "*.txtar"))
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		if _, after, ok := strings.Cut(string(data), "-- ir --\n"); ok {
			f.Add(after)
		}
	}
	f.Add(Print(buildMatmul()))
	f.Add("kernel @k(%0 x: f32) consts(a=1) grid(a - (1 - a), 1, _) {\n  %1 = neg %0 : f32\n  return {k=[1, 2], s=\"q\"}\n}\n")
	f.Fuzz(func(t *testing.T, text string) {
		m, err := Parse(text)
		if err != nil {
			if _, ok := err.(*ParseError); !ok {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		out := PrintModule(m)
		for _, fn := range m.Funcs {
			_ = Verify(fn)
			for _, in := range fn.Body.Instrs {
				_ = in.String()
			}
		}
		if VerifyModule(m) != nil {
			return
		}
		m2, err := Parse(out)
		if err != nil {
			t.Fatalf("printed form does not parse: %v\ninput:\n%s\nprinted:\n%s", err, text, out)
		}
		if err := VerifyModule(m2); err != nil {
			t.Fatalf("printed form does not verify: %v\nprinted:\n%s", err, out)
		}
		if out2 := PrintModule(m2); out2 != out {
			t.Fatalf("Print(Parse(Print(Parse(x)))) differs:\n%s", cmp.Diff(out, out2))
		}
	})
}
