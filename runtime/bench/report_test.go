package bench_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tilec/tilec/runtime/bench"
)

// TestReadReportRefusesFiguresNoBenchWrites: a report is a file anyone
// can edit or corrupt, and the plot draws its numbers: a rate of 1e308
// beside -1e308 gave an infinite axis, on which gonum's tick loop never
// ended, and 60000 rows took a minute to draw unreadably. ReadReport
// refuses what tilec bench cannot write: a negative or absurd figure
// (1e12 TFLOP/s or GB/s and beyond), more rows than a sweep has.
func TestReadReportRefusesFiguresNoBenchWrites(t *testing.T) {
	row := func(gbs float64) map[string]any {
		return map[string]any{"dims": map[string]int{"N": 1024}, "tilec_ms": 0.01, "tilec_gbs": gbs, "check": "ok"}
	}
	report := func(rows []map[string]any, peakGBs float64) map[string]any {
		return map[string]any{"kernel": "softmax", "consts": "T=f32", "device": "H100", "metric": "gbs",
			"peak": map[string]any{"device": "H100 SXM", "gbs": peakGBs}, "dims": []string{"N"}, "rows": rows}
	}
	many := make([]map[string]any, 10001)
	for i := range many {
		many[i] = row(1)
	}
	for _, c := range []struct {
		name string
		r    map[string]any
		want string // "" when the report is read and plotted
	}{
		{"infinite axis", report([]map[string]any{row(1e308), row(-1e308)}, 3350), "row 0: tilec_gbs is 1e+308"},
		{"negative", report([]map[string]any{row(-5)}, 3350), "row 0: tilec_gbs is -5"},
		{"peak", report([]map[string]any{row(1)}, 1.7e308), "peak: gbs is 1.7e+308"},
		{"rows", report(many, 3350), "10001 rows, more than the 10000 shapes a sweep has"},
		{"fine", report([]map[string]any{row(1258.3), row(0)}, 3350), ""},
	} {
		data, err := json.Marshal(c.r)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "r.json")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		rep, err := bench.ReadReport(path)
		if c.want != "" {
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: ReadReport = %v, want an error containing %q", c.name, err, c.want)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		done := make(chan error, 1)
		go func() { done <- bench.Plot(rep, filepath.Join(t.TempDir(), "r.png")) }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("%s: plot: %v", c.name, err)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("%s: plot did not end", c.name)
		}
	}
}
