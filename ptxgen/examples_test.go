package ptxgen

import (
	"os"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/lower"
)

func TestExamplesShow(t *testing.T) {
	if os.Getenv("SHOW") == "" {
		t.Skip()
	}
	for _, ex := range []string{os.Getenv("SHOW")} {
		f, g, _ := compileExample(t, ex, nil, lower.MustTarget("sm_80"))
		t.Log(ir.Print(f))
		t.Log(ir.Print(g))
	}
}
