//go:build unix

package tune_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/tilec/tilec/runtime/tune"
)

// TestTuneCacheLeavesOthersFiles: List reads only regular files (a FIFO
// or a link to /dev/zero would block or never end) and Clear removes only
// tuning results, not another program's .json files.
func TestTuneCacheLeavesOthersFiles(t *testing.T) {
	c := &tune.Cache{Dir: t.TempDir(), Version: "test"}
	if _, err := c.Put(&tune.Entry{Kernel: "k", Signature: "sig", Names: []string{"tm"}, Consts: map[string]string{"tm": "64"}}); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(c.Dir, "settings.json")
	if err := os.WriteFile(other, []byte(`{"theme": "dark"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(c.Dir, "pipe.json"), 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(c.Dir, "zero.json")); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if es, err := c.List(); err != nil || len(es) != 1 {
			t.Errorf("List: %d results, %v; want 1", len(es), err)
		}
		if n, err := c.Clear(); err != nil || n != 1 {
			t.Errorf("Clear: %d, %v; want 1 removed", n, err)
		}
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("the tuning cache blocked on a FIFO or read /dev/zero")
	}
	for _, name := range []string{"settings.json", "pipe.json", "zero.json"} {
		if _, err := os.Lstat(filepath.Join(c.Dir, name)); err != nil {
			t.Errorf("%s was removed", name)
		}
	}
}
