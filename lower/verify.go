package lower

import "github.com/tilec/tilec/ir"

// verify checks the IR after a pass (Options.Verify).
func verify(f *ir.Func) error {
	if err := checkDefs(f); err != nil {
		return err
	}
	return ir.Verify(f)
}
