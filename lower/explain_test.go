package lower_test

import (
	"strings"
	"testing"

	"github.com/tilec/tilec/lower"
)

// TestExplainRecordsTheDecision: the path a kernel takes and the reason
// it misses a faster one are what the passes decided, with the position
// of what decided it, and the reason goes away where the path is the
// target's fastest.
func TestExplainRecordsTheDecision(t *testing.T) {
	for _, tc := range []struct {
		name, file, target string
		consts             map[string]string
		fast               lower.Path // the path of the kernel's first form
		why                string     // "": no reason; else the first reason, position and all
		missed             string     // a note of the fast path's options not applied
	}{
		{"seed tiles on Hopper", "matmul.tile", "sm_90a", map[string]string{"T": "f16"}, lower.PathWarpSpecialized, "", ""},
		{"seed tiles on Ampere", "matmul.tile", "sm_80", map[string]string{"T": "f16"}, lower.PathPipelinedMMASync, "", ""},
		// 32-row tiles: one warpgroup takes 64 rows; the mma (line 32)
		// decides.
		{"32-row tiles", "matmul.tile", "sm_90a", map[string]string{"T": "f16", "tm": "32", "tn": "64"}, lower.PathPipelinedMMASync,
			"matmul.tile:32:23: the tile has 32 rows (the wgmma path takes 64 or 128)", ""},
		// B given as (K, N) must be whole 64-column slabs wide; given as
		// (N, K) a 16-column result takes wgmma, but not the TMA store
		// (line 18).
		{"16-column tiles", "matmul.tile", "sm_90a", map[string]string{"T": "f16", "tn": "16"}, lower.PathPipelinedMMASync,
			"matmul.tile:32:23: the N tile is 16", ""},
		{"16-column tiles of B^T", "matmul_bt.tile", "sm_90a", map[string]string{"T": "f16", "tn": "16"}, lower.PathWarpSpecialized, "",
			"matmul_bt.tile:18:5: no TMA store: this store is not of the 128x16 result"},
		{"f32 inputs", "matmul.tile", "sm_90a", map[string]string{"T": "f32", "tm": "64", "tn": "64", "tk": "32"}, lower.PathFMA,
			"matmul.tile:32:23: the mma's inputs are f32", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, err := lower.Explain(buildExample(t, tc.file, tc.consts), lower.MustTarget(tc.target))
			if err != nil {
				t.Fatal(err)
			}
			c := e.Path()
			if c.Path != tc.fast {
				t.Errorf("path %q, want %q", c.Path, tc.fast)
			}
			switch {
			case tc.why == "" && len(c.Reasons) > 0:
				t.Errorf("reasons %v on the fastest path", c.Reasons)
			case tc.why != "" && (len(c.Reasons) == 0 || !strings.HasPrefix(c.Reasons[0].String(), tc.why)):
				t.Errorf("reasons %v, want the first to start %q", c.Reasons, tc.why)
			}
			if tc.missed != "" && (len(c.Missed) == 0 || !strings.HasPrefix(c.Missed[0].String(), tc.missed)) {
				t.Errorf("missed %v, want the first to start %q", c.Missed, tc.missed)
			}
			// What --explain prints is the path of the code lowered.
			if got, want := e.Variants[0].Func.Facts.Persistent, c.Path == lower.PathWarpSpecialized; got != want {
				t.Errorf("persistent kernel %v, but path %q", got, c.Path)
			}
		})
	}
}
