package interp

import (
	"slices"
	"testing"

	"github.com/tilec/tilec/ir"
)

// TestEveryOpHasAHandler repeats init's check, and checks that the check
// notices a missing handler.
func TestEveryOpHasAHandler(t *testing.T) {
	if missing := missingHandlers(&interpOps); len(missing) > 0 {
		t.Fatalf("no interpreter handler for %v", missing)
	}
	table := interpOps
	table[ir.OpMod] = opHandler{}
	table[ir.OpReduce].exec = nil
	if got, want := missingHandlers(&table), []ir.Op{ir.OpMod, ir.OpReduce}; !slices.Equal(got, want) {
		t.Errorf("missingHandlers = %v, want %v", got, want)
	}
}
