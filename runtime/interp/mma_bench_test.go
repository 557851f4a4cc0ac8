package interp

import "testing"

func BenchmarkMMAF32(b *testing.B) {
	M, K, N := 128, 64, 256
	A, B, C := make([]float32, M*K), make([]float32, K*N), make([]float32, M*N)
	for i := range A {
		A[i] = float32(i % 7)
	}
	for i := range B {
		B[i] = float32(i % 5)
	}
	for b.Loop() {
		mmaF32(A, B, C, M, K, N)
	}
	b.ReportMetric(float64(2*M*K*N)/(float64(b.Elapsed().Nanoseconds())/float64(b.N)), "GFLOP/s")
}
