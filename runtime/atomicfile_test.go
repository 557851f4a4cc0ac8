package runtime

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestWriteFileAtomic: a write that fails, by an error or a panic, leaves
// the existing file as it was and no temporary file behind; one that
// succeeds replaces the file whole, readable by others.
func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.bin")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	full := errors.New("no space left on device")
	err := WriteFileAtomic(path, func(w io.Writer) error {
		w.Write([]byte("half of the new"))
		return full
	})
	if !errors.Is(err, full) {
		t.Errorf("a failed write returned %v", err)
	}
	func() {
		defer func() { recover() }()
		WriteFileAtomic(path, func(w io.Writer) error { panic("drawing failed") })
	}()
	check := func(want string) {
		t.Helper()
		got, err := os.ReadFile(path)
		if err != nil || string(got) != want {
			t.Errorf("the file holds %q (%v), want %q", got, err, want)
		}
		ents, _ := os.ReadDir(dir)
		if len(ents) != 1 {
			t.Errorf("the directory holds %d files, want only %s", len(ents), path)
		}
	}
	check("old")
	if err := WriteFileAtomic(path, func(w io.Writer) error { _, err := w.Write([]byte("new")); return err }); err != nil {
		t.Fatal(err)
	}
	check("new")
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", fi.Mode())
	}
	if err := WriteFileAtomic(filepath.Join(dir, "missing", "x"), func(io.Writer) error { return nil }); err == nil {
		t.Error("a write into a missing directory succeeded")
	}
}
