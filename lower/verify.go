package lower

import (
	"fmt"

	"github.com/tilec/tilec/ir"
)

// verify checks the IR after a pass (Options.Verify).
func verify(f *ir.Func) error {
	if err := checkDefs(f); err != nil {
		return err
	}
	return ir.Verify(f)
}

// checkDefs reports a value used before its definition or outside its scope.
func checkDefs(f *ir.Func) error {
	seen := map[*ir.Value]bool{}
	for _, p := range f.Body.Params {
		seen[p] = true
	}
	var walk func(b *ir.Block) error
	walk = func(b *ir.Block) error {
		for _, in := range b.Instrs {
			for _, a := range in.Args {
				if !seen[a] {
					return fmt.Errorf("%s uses %s before its definition", in.Op, a)
				}
			}
			for _, r := range in.Regions {
				for _, p := range r.Params {
					seen[p] = true
				}
				if err := walk(r); err != nil {
					return err
				}
			}
			for _, r := range in.Results {
				seen[r] = true
			}
		}
		return nil
	}
	return walk(f.Body)
}
