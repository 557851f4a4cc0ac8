//go:build !unix

package runtime

// addressSpaceFree is 0 (no limit known) where there is no RLIMIT_AS.
func addressSpaceFree() int64 { return 0 }
