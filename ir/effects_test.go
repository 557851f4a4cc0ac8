package ir

import (
	"strings"
	"testing"
)

// Every op that moves data between an array and the block declares what it
// does to the array (the GPU check poisons and compares from this column).
func TestGlobalAccessColumn(t *testing.T) {
	for op := OpInvalid + 1; op < NumOps; op++ {
		info := op.Info()
		moves := false
		for _, w := range []string{"load", "store", "gather", "scatter", "atomic", "async_copy"} {
			moves = moves || strings.Contains(info.Name, w)
		}
		if strings.HasPrefix(info.Name, "tma_store_wait") || info.Name == "frag_load" {
			moves = false // shared memory only
		}
		if moves != (info.Global != 0) {
			t.Errorf("%s: Global = %s", info.Name, info.Global)
		}
	}
	if OpStore.Info().Global.Reads() || !OpStore.Info().Global.WriteOnly() || !OpAtomicRMW.Info().Global.Reads() ||
		!OpAtomicCAS.Info().Global.Writes() || OpLoad.Info().Global.Writes() {
		t.Error("Reads/Writes/WriteOnly disagree with the column")
	}
	if s := (GlobalRead | GlobalAtomic).String(); s != "read+atomic" {
		t.Errorf("String = %q", s)
	}
}
