package main

import (
	"io"
	"path/filepath"
	"testing"
)

// TestCacheUsage checks the exit statuses of tilec cache: 2 for a usage
// mistake, as the other commands, 0 otherwise.
func TestCacheUsage(t *testing.T) {
	t.Setenv("TILEC_CACHE_DIR", filepath.Join(t.TempDir(), "kernels"))
	for _, c := range []struct {
		args []string
		code int
	}{
		{[]string{"cache"}, 2},
		{[]string{"cache", "list", "extra"}, 2},
		{[]string{"cache", "purge"}, 2},
		{[]string{"cache", "--json"}, 2},
		{[]string{"cache", "list"}, 0},
		{[]string{"cache", "clear"}, 0},
		{[]string{"cache", "dir"}, 0},
		{[]string{"cache", "help"}, 0},
	} {
		if code := runCommand(c.args, io.Discard, io.Discard); code != c.code {
			t.Errorf("tilec %v: exit status %d, want %d", c.args, code, c.code)
		}
	}
}
