package interp

import "testing"

// execVoteAll is true exactly when every element of the bool tile is: the
// rescale test's results cannot tell the vote's outcome (x*1 == x), so the
// vote itself is pinned here.
func TestVoteAll(t *testing.T) {
	for _, tc := range []struct {
		elems []int64
		want  int64
	}{
		{[]int64{1, 1, 1, 1}, 1},
		{[]int64{1, 0, 1, 1}, 0},
		{[]int64{0, 0, 0, 0}, 0},
		{[]int64{1}, 1},
	} {
		fr := &frame{regs: []val{{t: &tile{i: tc.elems}}, {i: -7}}}
		if err := execVoteAll(fr, &cinstr{args: []int{0}, res: []int{1}}); err != nil {
			t.Fatal(err)
		}
		if got := fr.regs[1].i; got != tc.want {
			t.Errorf("vote_all %v = %d, want %d", tc.elems, got, tc.want)
		}
	}
}
