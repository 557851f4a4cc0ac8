//go:build unix

package runtime

import (
	"math"
	"syscall"
)

// addressSpaceFree is RLIMIT_AS (`ulimit -v`) less the address space the
// process uses already (/proc/self/status VmSize); 0 where there is no
// limit or the limit is unknown. An allocation beyond it fails in Go with
// "fatal error: out of memory", which no caller can recover from.
func addressSpaceFree() int64 {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &rl); err != nil {
		return 0
	}
	limit := uint64(rl.Cur)
	if limit >= math.MaxInt64 { // RLIM_INFINITY
		return 0
	}
	return max(1, int64(limit)-procStatus("VmSize:"))
}
