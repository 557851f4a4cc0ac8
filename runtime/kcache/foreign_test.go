//go:build unix

package kcache

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tilec/tilec/ptxgen"
)

// TestKernelCacheLeavesOthersFiles: List, Get, Clear and Trim read only
// regular files (a FIFO or a link to /dev/zero in the directory would
// block or never end) and remove only entries whose header is tilec's.
func TestKernelCacheLeavesOthersFiles(t *testing.T) {
	c := testCache(t)
	pk := &ptxgen.Kernel{Name: "k", Target: "sm_80", PTX: strings.Repeat("x", 1000)}
	own := []string{strings.Repeat("a", 64), strings.Repeat("b", 64)}
	for _, key := range own {
		if err := c.Put(key, pk); err != nil {
			t.Fatal(err)
		}
	}
	foreign := map[string]string{
		"notes.kernel": "a file of another program\n",
		// A header of tilec's form naming another key: copied, not ours.
		strings.Repeat("c", 64) + ".kernel": `{"format":1,"key":"` + strings.Repeat("d", 64) + `"}` + "\n",
	}
	for name, text := range foreign {
		if err := os.WriteFile(filepath.Join(c.Dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fifo := strings.Repeat("e", 64)
	if err := syscall.Mkfifo(c.path(fifo), 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	zero := strings.Repeat("f", 64)
	if err := os.Symlink("/dev/zero", c.path(zero)); err != nil {
		t.Fatal(err)
	}

	done := make(chan struct{})
	go func() {
		defer close(done)
		if _, ok := c.Get(fifo); ok {
			t.Error("a hit on a FIFO")
		}
		if _, ok := c.Get(zero); ok {
			t.Error("a hit on a link to /dev/zero")
		}
		if es, err := c.List(); err != nil || len(es) != 4 {
			t.Errorf("List: %d entries, %v; want the 2 of tilec's and the 2 foreign regular files", len(es), err)
		}
		c.MaxBytes = 1 // everything of tilec's goes
		if err := c.Trim(); err != nil {
			t.Error(err)
		}
		for _, key := range own {
			if _, err := os.Stat(c.path(key)); err == nil {
				t.Errorf("Trim left tilec's entry %s", key[:4])
			}
		}
		c.MaxBytes = 0 // the default again
		for _, key := range own {
			if err := c.Put(key, pk); err != nil {
				t.Error(err)
			}
		}
		n, _, left, err := c.Clear()
		slices.Sort(left)
		want := []string{strings.Repeat("c", 64) + ".kernel", "notes.kernel"}
		if err != nil || n != 2 || !slices.Equal(left, want) {
			t.Errorf("Clear: removed %d, left %v, %v; want 2 removed, %v left", n, left, err, want)
		}
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("the cache blocked on a FIFO or read /dev/zero")
	}
	for name := range foreign {
		if _, err := os.Stat(filepath.Join(c.Dir, name)); err != nil {
			t.Errorf("%s was removed", name)
		}
	}
	for _, p := range []string{c.path(fifo), c.path(zero)} {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s was removed", p)
		}
	}
}
