package runtime

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
)

// AtomicTempPrefix starts the name of the temporary file WriteFileAtomic
// writes next to its target: a directory's owner (the kernel cache) can
// recognise one left by a killed process.
const AtomicTempPrefix = ".tmp-"

// WriteFileAtomic writes the file path through write, into a temporary
// file in path's directory that is renamed over path once it is complete:
// a reader sees the old file or the whole new one, and a failed write (a
// full disk, a quota, `ulimit -f`, an error or a panic in write) leaves an
// existing file as it was, never truncated or half written. The file's
// mode is 0644 (CreateTemp's 0600 would hide a plot from its readers).
func WriteFileAtomic(path string, write func(w io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), AtomicTempPrefix+"*")
	if err != nil {
		return err
	}
	renamed := false
	defer func() {
		if !renamed {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	bw := bufio.NewWriter(tmp)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	renamed = err == nil
	return err
}
