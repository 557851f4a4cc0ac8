// Package kcache is the disk cache of compiled kernels (kcache.go says how
// entries are keyed, written and trimmed): every GPU compile, the CUDA
// backend's, `tilec compile --emit ptx`'s and tune's, goes through
// Cache.CompilePTXFor, so a second process skips lower and ptxgen. It sits
// above runtime/compile (whose PTXFor it calls on a miss) and below the CUDA
// backend and tune, which open it.
package kcache
