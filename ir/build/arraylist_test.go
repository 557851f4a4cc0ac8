package build

import (
	"strings"
	"testing"
)

// The --arg form of a list of arrays, and cuTile's launch rules for it.
func TestParseListArgSig(t *testing.T) {
	s, err := ParseArgSig(" [f16[M0, K], float16[M1,K] ,f16[64,K]] ")
	if err != nil {
		t.Fatal(err)
	}
	if !s.IsList() || s.IsArray() || len(s.Elems) != 3 || s.String() != "[f16[M0,K],f16[M1,K],f16[64,K]]" || s.ListKey() != "list<f16,2>" {
		t.Errorf("got %s (list %v, %d elems, key %s)", s, s.IsList(), len(s.Elems), s.ListKey())
	}
	for in, want := range map[string]string{
		"[]":                   "empty lists are not supported as kernel arguments",
		"[f16[M,K], f32[M,K]]": "arrays in list vary in data type (f16, then f32 at item #1)",
		"[f16[M,K], f16[M]]":   "arrays in list vary in rank (2, then 1 at item #1)",
		"[f16[M,K], i32]":      "list item #1 is i32: a list holds arrays",
		"[f16[M,K]":            "a list ends with ]",
		"[f16[M,K], x16[M,K]]": "list item #1: \"x16\" is not a dtype",
		"[[f16[M]]]":           "list item #0 is [f16[M]]: a list holds arrays",
	} {
		_, err := ParseArgSig(in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseArgSig(%q) = %v, want %q", in, err, want)
		}
	}
}

// FuzzParseArgSig: any --arg value is a signature or an error, never a
// panic, and a signature prints back to one that parses to the same text.
func FuzzParseArgSig(f *testing.F) {
	for _, s := range []string{"f16[M,K]", "i32", "[f16[M0,K],f16[M1,K]]", "[]", "[[f16[M]]]", "[f16[M,K],", "[f32[4],f32[N]]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sig, err := ParseArgSig(s)
		if err != nil {
			return
		}
		again, err := ParseArgSig(sig.String())
		if err != nil || again.String() != sig.String() {
			t.Fatalf("%q -> %s -> %v, %v", s, sig, again, err)
		}
	})
}
