// Package golden is the test harness for txtar golden archives: one archive
// per case under a testdata directory, its sections compared with what the
// code under test produces and shown as go-cmp diffs on a mismatch.
//
// `go test ./... -update` (or UPDATE=1 in the environment) rewrites the
// compared sections instead of failing; review the diff as code.
//
// It lives under lang, the bottom of the dependency order, so that the
// tests of every package (lang, ir, lower, ptxgen) can use it; it imports
// nothing of tilec, and only tests import it.
package golden

import (
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"
)

var updateFlag = flag.Bool("update", false, "rewrite golden files in testdata instead of comparing")

// Update reports whether goldens are rewritten: -update, or UPDATE set to a
// non-empty value other than 0.
func Update() bool {
	if *updateFlag {
		return true
	}
	v := os.Getenv("UPDATE")
	return v != "" && v != "0"
}

// Archive is one txtar file: its path, leading comment and sections.
type Archive struct {
	Path string
	*txtar.Archive
}

// Read reads the archive at path; the test fails if it cannot. Under
// Update, a missing file is an empty archive (Check creates it).
func Read(t testing.TB, path string) *Archive {
	t.Helper()
	a, err := txtar.ParseFile(path)
	if err != nil {
		if os.IsNotExist(err) && Update() {
			return &Archive{Path: path, Archive: &txtar.Archive{}}
		}
		t.Fatal(err)
	}
	return &Archive{Path: path, Archive: a}
}

// Section returns the named section's text and whether the archive has it.
func (a *Archive) Section(name string) (string, bool) {
	for _, f := range a.Files {
		if f.Name == name {
			return string(f.Data), true
		}
	}
	return "", false
}

// MustSection returns the named section; the test fails if it is missing.
func (a *Archive) MustSection(t testing.TB, name string) string {
	t.Helper()
	s, ok := a.Section(name)
	if !ok {
		t.Fatalf("%s: no -- %s -- section", a.Path, name)
	}
	return s
}

// Check compares the named section with got. Under Update it rewrites the
// section (adding it after the others if missing) and writes the archive
// when that changes it; otherwise a difference fails the test with a diff.
func (a *Archive) Check(t testing.TB, name, got string) {
	t.Helper()
	want, ok := a.Section(name)
	if Update() {
		if !ok || want != got {
			a.set(name, got)
			a.write(t)
		}
		return
	}
	if !ok {
		t.Fatalf("%s: no -- %s -- section (go test -update adds it); got:\n%s", a.Path, name, got)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("%s: section %s differs (-golden +got):\n%s", a.Path, name, d)
	}
}

// Remove drops the named sections under Update (an archive whose output
// changed kind, e.g. from an ast to errors); it does nothing otherwise.
func (a *Archive) Remove(t testing.TB, names ...string) {
	t.Helper()
	if !Update() {
		return
	}
	files := a.Files[:0]
	for _, f := range a.Files {
		drop := false
		for _, n := range names {
			drop = drop || f.Name == n
		}
		if !drop {
			files = append(files, f)
		}
	}
	if len(files) != len(a.Files) {
		a.Files = files
		a.write(t)
	}
}

func (a *Archive) set(name, data string) {
	for i := range a.Files {
		if a.Files[i].Name == name {
			a.Files[i].Data = []byte(data)
			return
		}
	}
	a.Files = append(a.Files, txtar.File{Name: name, Data: []byte(data)})
}

func (a *Archive) write(t testing.TB) {
	t.Helper()
	if err := os.WriteFile(a.Path, txtar.Format(a.Archive), 0o644); err != nil {
		t.Fatal(err)
	}
}

// CheckFile compares a whole plain file with got, or rewrites it under Update.
func CheckFile(t testing.TB, path, got string) {
	t.Helper()
	if Update() {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(string(want), got); d != "" {
		t.Errorf("%s differs (-golden +got):\n%s", path, d)
	}
}

// List returns the paths of the .txtar archives in dir, sorted; the test
// fails if there are none.
func List(t testing.TB, dir string) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Fatalf("no .txtar archives in %s", dir)
	}
	sort.Strings(paths)
	return paths
}

// Run reads every archive in dir and calls f on it in a subtest named after
// the file (without .txtar).
func Run(t *testing.T, dir string, f func(t *testing.T, a *Archive)) {
	t.Helper()
	for _, path := range List(t, dir) {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txtar"), func(t *testing.T) {
			f(t, Read(t, path))
		})
	}
}
