package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWrite writes every variant and checks the index against the files:
// one entry per variant, each naming a PTX file for its target with its
// entry point, and a launch description the check script can use.
func TestWrite(t *testing.T) {
	dir := t.TempDir()
	if err := write(dir, filepath.Join("..", "..", "..")); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "kernels.json"))
	if err != nil {
		t.Fatal(err)
	}
	var index []struct {
		Name, Entry, PTX, Target string
		Block                    [3]int
		Slots, Params            []map[string]any
		Grid                     []string
	}
	if err := json.Unmarshal(b, &index); err != nil {
		t.Fatal(err)
	}
	if len(index) != len(devKernels()) {
		t.Fatalf("%d entries for %d variants", len(index), len(devKernels()))
	}
	for i, e := range index {
		dk := devKernels()[i]
		want := dk.Target
		if want == "" {
			want = "sm_90"
		}
		ptx, err := os.ReadFile(filepath.Join(dir, e.PTX))
		if err != nil {
			t.Fatal(err)
		}
		if e.Name != dk.Name || e.Target != want || !strings.Contains(string(ptx), ".target "+want+"\n") ||
			!strings.Contains(string(ptx), ".entry "+e.Entry+"(") || e.Block[0] == 0 || len(e.Slots) == 0 || len(e.Params) == 0 || len(e.Grid) != 3 {
			t.Errorf("entry %d: %+v (PTX %d bytes)", i, e, len(ptx))
		}
	}
}
