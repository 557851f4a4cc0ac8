package cuda

import (
	"testing"

	"github.com/tilec/tilec/ptxgen"
)

func TestLaunchGrid(t *testing.T) {
	plain := &ptxgen.Kernel{}
	persistent := &ptxgen.Kernel{Persistent: true}
	paired := &ptxgen.Kernel{Persistent: true, Cluster: 2}
	for _, c := range []struct {
		name     string
		pk       *ptxgen.Kernel
		grid     [3]int
		resident int
		want     [3]int
	}{
		{"the grid itself", plain, [3]int{7, 3, 2}, 132, [3]int{7, 3, 2}},
		{"one block per SM", persistent, [3]int{32, 32, 1}, 132, [3]int{132, 1, 1}},
		{"fewer blocks than SMs", persistent, [3]int{5, 3, 1}, 132, [3]int{15, 1, 1}},
		{"pairs: an odd grid rounds up", paired, [3]int{5, 3, 1}, 132, [3]int{16, 1, 1}},
		{"pairs: one block gets a partner", paired, [3]int{1, 1, 1}, 132, [3]int{2, 1, 1}},
		{"pairs: at most the resident clusters", paired, [3]int{64, 64, 1}, 120, [3]int{120, 1, 1}},
	} {
		if got := launchGrid(c.pk, c.grid, c.resident); got != c.want {
			t.Errorf("%s: launchGrid(%v, resident %d) = %v, want %v", c.name, c.grid, c.resident, got, c.want)
		}
	}
}
