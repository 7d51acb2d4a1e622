package tsne

import (
	"context"
	"fmt"
	"runtime"
	"slices"
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
		if e.Neighbours == NeighboursApprox {
			b.ReportMetric(1, "approx-knn")
		}
	}
}

func BenchmarkEmbed(b *testing.B) {
	for _, tc := range []struct {
		n int
		m Method
	}{{1000, BarnesHut}, {1000, FFT}, {5000, BarnesHut}, {5000, FFT}, {20000, FFT}, {20000, BarnesHut}, {70000, FFT}} {
		b.Run(fmt.Sprintf("%s/n=%d", tc.m, tc.n), func(b *testing.B) { benchEmbed(b, tc.n, tc.m) })
	}
}

// BenchmarkKNN times the exact (vantage-point tree) and approximate
// (projection trees + neighbour descent) k-nearest-neighbour searches on
// Gaussian blobs (12 centres, std 2.5, 50 dims, k = 90 as for perplexity 30)
// and reports the approximate search's recall on 500 query points, against
// brute force.
func BenchmarkKNN(b *testing.B) {
	for _, n := range []int{20000, 70000} {
		x, _ := blobs(n, 50, 12, 2.5, 1)
		flat, _, d, _ := flatten(x, 0)
		const k = 90
		for _, approx := range []bool{false, true} {
			name := "exact"
			if approx {
				name = "approx"
			}
			b.Run(fmt.Sprintf("%s/n=%d", name, n), func(b *testing.B) {
				for it := 0; it < b.N; it++ {
					var nbr []int32
					var err error
					if approx {
						nbr, _, err = approxKNN(context.Background(), flat, n, d, k, 1, 0+runtime.GOMAXPROCS(0))
					} else {
						var tree *vpTree
						tree, err = newVPTree(context.Background(), flat, n, d, 1)
						if err == nil {
							nbr, _, err = exactKNN(context.Background(), tree, n, k, runtime.GOMAXPROCS(0))
						}
					}
					if err != nil {
						b.Fatal(err)
					}
					b.ReportMetric(knnRecall(flat, n, d, k, nbr, 500), "recall")
				}
			})
		}
	}
}

// knnRecall returns the fraction of the exact k nearest neighbours found in
// nbr, over q query points spread evenly over the input (brute force).
func knnRecall(flat []float64, n, d, k int, nbr []int32, q int) float64 {
	hits := 0
	type c struct {
		d float64
		j int32
	}
	all := make([]c, 0, n)
	for s := 0; s < q; s++ {
		i := s * n / q
		all = all[:0]
		for j := 0; j < n; j++ {
			if j != i {
				all = append(all, c{sqDist(flat[i*d:(i+1)*d], flat[j*d:(j+1)*d]), int32(j)})
			}
		}
		slices.SortFunc(all, func(a, b c) int {
			if a.d != b.d {
				if a.d < b.d {
					return -1
				}
				return 1
			}
			return int(a.j - b.j)
		})
		for _, e := range all[:k] {
			if slices.Contains(nbr[i*k:(i+1)*k], e.j) {
				hits++
			}
		}
	}
	return float64(hits) / float64(q*k)
}
