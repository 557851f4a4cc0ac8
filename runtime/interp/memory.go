package interp

// The interpreter's memory for tiles, checked before a launch runs. A
// worker's frame keeps every tile value it computed in its register (a
// slot) until the next block overwrites it, and each element takes 8
// bytes (float64 or int64, whatever the dtype): 200 live 4096x4096 tiles
// are 25 GiB a worker. A launch that cannot hold them would end in Go's
// fatal out-of-memory, which cannot be recovered, part way through; it is
// an error before any block runs instead, or, where the number of workers
// was not asked for, runs on as many workers as fit.

import (
	"errors"
	"fmt"
	"math"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/lang"
	"github.com/tilec/tilec/runtime"
)

// tileMemory is what a worker's frame holds for a kernel's tiles: the
// static estimate from its IR (the sum of every tile result's bytes, in
// all regions) and the largest tile, for the message.
type tileMemory struct {
	bytes   int64 // saturates at math.MaxInt64
	tiles   int
	largest *ir.Tile
	at      ir.Pos // of the first instruction that makes a largest tile
}

// tileMemoryKey is the estimate's key in Kernel.Memo.
type tileMemoryKey struct{}

func tileMemoryOf(k *runtime.Kernel) tileMemory {
	m, _ := k.Memo(tileMemoryKey{}, func() (any, error) { return countTileMemory(k.Func), nil })
	return m.(tileMemory)
}

func countTileMemory(f *ir.Func) tileMemory {
	var m tileMemory
	f.Body.Walk(func(in *ir.Instr) {
		for _, r := range in.Results {
			t, ok := r.Type.(*ir.Tile)
			if !ok || len(t.Shape) == 0 {
				continue // scalars are a register's few bytes
			}
			n := int64(8) // an element as the interpreter holds it
			for _, d := range t.Shape {
				if d > 0 && n > math.MaxInt64/int64(d) {
					n = math.MaxInt64
					break
				}
				n *= int64(d)
			}
			m.bytes = min(m.bytes, math.MaxInt64-n) + n
			m.tiles++
			if m.largest == nil || t.NumElements() > m.largest.NumElements() {
				m.largest, m.at = t, in.Pos
			}
		}
	})
	return m
}

// fitWorkers checks that workers frames of k's tiles fit in the host's
// memory (runtime.HostMemory). Where they do not and the count was the
// default (asked false), fewer workers run; otherwise, or where one
// worker does not fit either, it is an error.
func fitWorkers(k *runtime.Kernel, workers int, asked bool) (int, error) {
	limit := runtime.HostMemory()
	m := tileMemoryOf(k)
	if limit <= 0 || workers <= 0 || m.bytes == 0 || m.bytes <= limit/int64(workers) {
		return workers, nil
	}
	fit := int(limit / m.bytes)
	what := fmt.Sprintf("the interpreter holds %s of tiles a worker for kernel %s (%d tile values, the largest %s here, 8 bytes an element)",
		runtime.FormatBytes(m.bytes), k.Name(), m.tiles, m.largest)
	var msg string
	switch {
	case fit == 0:
		msg = fmt.Sprintf("%s, more than the host memory available (%s): use smaller tiles", what, runtime.FormatBytes(limit))
	case asked:
		msg = fmt.Sprintf("%s; %d workers need more than the host memory available (%s): use at most %d workers", what, workers, runtime.FormatBytes(limit), fit)
	default:
		return fit, nil
	}
	// At the largest tile: the caller that read the source quotes its
	// line (lang.Source.Quote).
	if pos := lang.Pos(m.at); pos.IsValid() {
		return 0, &lang.Error{Pos: pos, Msg: msg}
	}
	return 0, errors.New(msg)
}
