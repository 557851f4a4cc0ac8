// Package tune searches a space of a kernel's constants (tile sizes and
// the like) and knobs (the ring depth of pipelined loops, the occupancy
// hint: knobs.go) for the fastest on a device: candidates are built and
// compiled for the device's target in parallel, those the target rejects
// (shared memory, registers, tile shapes, a ring shallower than asked)
// pruned; each survivor is checked against the interpreter on a sample of
// blocks and only then timed (bench.Measure); the winner goes to a disk
// cache beside the kernel cache, from which `tilec run` and `tilec bench`
// take it (Cache.Apply), and a Go program too (Cache.CompileFile).
//
// Spaces come from --space flags, a "# tilec: tune" comment block in the
// source, or DefaultSpace (the kernel's power-of-two int constants, over
// half, the value and twice it). Timing goes through bench.Device, so the
// whole search runs in tests on benchtest's fake device.
package tune
