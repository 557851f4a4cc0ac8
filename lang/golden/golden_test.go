package golden

import (
	"os"
	"path/filepath"
	"testing"
)

const archive = "A comment.\n-- in --\nx\n-- out --\ny\n"

func TestCheckAndUpdate(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "case.txtar")
	if err := os.WriteFile(path, []byte(archive), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("UPDATE", "")
	a := Read(t, path)
	if s := a.MustSection(t, "in"); s != "x\n" {
		t.Errorf("in = %q", s)
	}
	if _, ok := a.Section("nosuch"); ok {
		t.Errorf("missing section found")
	}
	a.Check(t, "out", "y\n") // equal: passes, writes nothing

	t.Setenv("UPDATE", "1")
	if !Update() {
		t.Fatal("UPDATE=1 does not update")
	}
	a.Check(t, "out", "z\n")
	a.Check(t, "extra", "w\n")
	a.Remove(t, "in")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := "A comment.\n-- out --\nz\n-- extra --\nw\n"; string(b) != want {
		t.Errorf("rewritten archive:\n%s\nwant:\n%s", b, want)
	}

	// A missing archive is created under Update.
	n := Read(t, filepath.Join(dir, "new.txtar"))
	n.Comment = []byte("New.\n")
	n.Check(t, "out", "v\n")
	if b, _ := os.ReadFile(n.Path); string(b) != "New.\n-- out --\nv\n" {
		t.Errorf("created archive:\n%s", b)
	}
	t.Setenv("UPDATE", "0")
	if Update() {
		t.Errorf("UPDATE=0 updates")
	}
	if got := List(t, dir); len(got) != 2 || filepath.Base(got[0]) != "case.txtar" {
		t.Errorf("List = %v", got)
	}
	var names []string
	Run(t, dir, func(t *testing.T, a *Archive) { names = append(names, filepath.Base(a.Path)) })
	if len(names) != 2 {
		t.Errorf("Run visited %v", names)
	}
	plain := filepath.Join(dir, "plain.txt")
	os.WriteFile(plain, []byte("p\n"), 0o644)
	CheckFile(t, plain, "p\n")
}
