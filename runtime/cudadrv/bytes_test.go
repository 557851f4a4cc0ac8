package cudadrv

import "testing"

func TestMedian(t *testing.T) {
	for _, tc := range []struct {
		in   []float64
		want float64
	}{
		{nil, 0},
		{[]float64{3}, 3},
		{[]float64{5, 1, 3}, 3},
		{[]float64{4, 1, 3, 2}, 2.5},
	} {
		if got := Median(tc.in); got != tc.want {
			t.Errorf("Median(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestBytes(t *testing.T) {
	b := Bytes([]uint32{0x04030201, 0x08070605})
	if len(b) != 8 || b[0] != 1 || b[7] != 8 {
		t.Fatalf("Bytes = %v", b)
	}
	if Bytes([]float32(nil)) != nil {
		t.Fatal("Bytes(nil) != nil")
	}
}
