package build

// Early returns: a kernel's early exit (`if seq_len == 0: return`) and a
// helper's (`if n <= 1: return 1` then `return n * 2`), as cuTile allows
// them. They are not ops: before a kernel's or helper's body is built, the
// statements after an if that may return are moved into the branches that
// do not always return, so that `if c: return` followed by the rest
// becomes `if c: return else: rest`, and code after a return is dropped
// (it never runs). Every return is then the last statement of its branch,
// where the builder takes it (a helper's values merge at the ifs like
// assignments). The IR, the interpreter and the GPU back end see only ifs.
// A return inside a loop is left where it is, and stays an error.

import "github.com/tilec/tilec/lang"

// maxReturnRewrite bounds the statements that moving code into branches may
// produce: a rest is copied into both branches when neither always
// returns, so many such ifs in a row would double it each time.
const maxReturnRewrite = 1 << 14

// moveAfterReturnsOf moves the statements after each returning if of a
// kernel's or helper's body into its branches (see the file comment). It
// returns list unchanged when the body has no return outside loops or when
// the rewrite would exceed maxReturnRewrite statements.
func moveAfterReturnsOf(list []lang.Stmt) []lang.Stmt {
	if !returnsIn(list) {
		return list
	}
	budget := maxReturnRewrite
	out, ok := moveAfterReturns(list, &budget)
	if !ok {
		return list
	}
	return out
}

func moveAfterReturns(list []lang.Stmt, budget *int) ([]lang.Stmt, bool) {
	*budget -= len(list)
	if *budget < 0 {
		return nil, false
	}
	var out []lang.Stmt
	for i, s := range list {
		switch s := s.(type) {
		case *lang.ReturnStmt:
			return append(out, s), true // the rest never runs
		case *lang.IfStmt:
			if !returnsIn([]lang.Stmt{s}) {
				break
			}
			rest := list[i+1:]
			then, els := s.Then, s.Else
			if !alwaysReturns(then) {
				then = append(append([]lang.Stmt(nil), then...), rest...)
			}
			if !alwaysReturns(els) {
				els = append(append([]lang.Stmt(nil), els...), rest...)
			}
			var ok1, ok2 bool
			then, ok1 = moveAfterReturns(then, budget)
			els, ok2 = moveAfterReturns(els, budget)
			if !ok1 || !ok2 {
				return nil, false
			}
			return append(out, &lang.IfStmt{Pos: s.Pos, Cond: s.Cond, Then: then, Else: els}), true
		}
		out = append(out, s)
	}
	return out, true
}

// returnsIn reports whether list has a return outside loops (in it or in
// the branches of its ifs).
func returnsIn(list []lang.Stmt) bool { return returns(list, false) }

// alwaysReturns reports whether every path through list reaches a return
// (outside loops).
func alwaysReturns(list []lang.Stmt) bool { return returns(list, true) }

// returns reports whether some path (every path, when always is set)
// through list reaches a return outside loops.
func returns(list []lang.Stmt, always bool) bool {
	for _, s := range list {
		switch s := s.(type) {
		case *lang.ReturnStmt:
			return true
		case *lang.IfStmt:
			t, e := returns(s.Then, always), returns(s.Else, always)
			if always && t && e || !always && (t || e) {
				return true
			}
		}
	}
	return false
}
