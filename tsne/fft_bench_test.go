package tsne

import (
	"fmt"
	"testing"
)

func BenchmarkFFT(b *testing.B) {
	for _, n := range []int{256, 512, 1024} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			p := newFFTPlan(n)
			x := make([]complex128, n)
			for i := range x {
				x[i] = complex(float64(i%7), 1)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				p.transform(x, i%2 == 1)
			}
		})
	}
}
