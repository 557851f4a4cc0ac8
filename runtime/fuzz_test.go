package runtime

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzCompilePTX drives the whole compiler, source to PTX for both targets:
// any input must give a kernel or an error, never a panic or a hang. The
// seeds are the example kernels, so mutations stay close to real programs
// and reach lower and ptxgen, not only the parser.
func FuzzCompilePTX(f *testing.F) {
	paths, err := filepath.Glob("../examples/*.tile")
	if err != nil || len(paths) == 0 {
		f.Fatalf("no examples: %v", err)
	}
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(src), "")
		f.Add(string(src), "tm=64,tn=64,tk=32")
		f.Add(string(src), "T=bf16")
		f.Add(string(src), "T=f32")
	}
	f.Fuzz(func(t *testing.T, src, defs string) {
		consts := map[string]string{}
		for _, kv := range strings.Split(defs, ",") {
			if name, val, ok := strings.Cut(kv, "="); ok {
				consts[name] = val
			}
		}
		k, err := Compile("fuzz.tile", []byte(src), CompileOptions{Consts: consts})
		if err != nil {
			return
		}
		for _, target := range []string{"sm_80", "sm_120a"} {
			pk, err := CompilePTX(k.Func, target)
			if err != nil {
				continue
			}
			if !strings.Contains(pk.PTX, ".entry "+pk.Name) {
				t.Fatalf("%s: PTX has no .entry %s", target, pk.Name)
			}
		}
	})
}
