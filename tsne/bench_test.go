package tsne

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// benchEmbed runs Embed on Gaussian blobs (12 centres, std 2.5, 50 dims).
func benchEmbed(b *testing.B, n int, m Method) {
	x, _ := blobs(n, 50, 12, 2.5, 1)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		e, err := Embed(context.Background(), x, Options{Method: m, Seed: 1})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(time.Since(start).Seconds(), "s/embed")
		b.ReportMetric(e.KL, "kl")
	}
}

func BenchmarkEmbed(b *testing.B) {
	for _, tc := range []struct {
		n int
		m Method
	}{{1000, BarnesHut}, {1000, FFT}, {5000, BarnesHut}, {5000, FFT}, {20000, FFT}, {20000, BarnesHut}} {
		b.Run(fmt.Sprintf("%s/n=%d", tc.m, tc.n), func(b *testing.B) { benchEmbed(b, tc.n, tc.m) })
	}
}
