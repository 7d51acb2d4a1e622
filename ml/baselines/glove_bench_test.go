package baselines

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// benchGloveData builds GloVe training entries over v terms: n nonzero counts
// whose rows and columns follow a Zipf law (a few hub terms in many pairs, as
// in tag co-occurrences), counts from 1 to 50.
func benchGloveData(v, n int) *gloveData {
	rng := rand.New(rand.NewPCG(3, 4))
	z := rand.NewZipf(rng, 1.2, 8, uint64(v-1))
	g := &gloveData{v: v, epochs: 1, cps: []int{1}, rate: DefaultGloVeRate, seed: 1, checkEvery: gloveCheckEvery, xMax: 10}
	for range n {
		i, j := int32(z.Uint64()), int32(z.Uint64())
		if i == j {
			j = int32(rng.IntN(v))
		}
		x := float64(1 + rng.IntN(50))
		g.e = append(g.e, gloveEntry{i: i, j: j, logX: math.Log(x), f: gloveWeight(x, g.xMax)})
	}
	return g
}

// BenchmarkGloVeEpoch measures one epoch of GloVe's AdaGrad steps over 4
// million nonzero counts of a 31,034-term vocabulary (pubmed-genes' size), at
// the dimensions of its grid, reporting steps per second.
func BenchmarkGloVeEpoch(b *testing.B) {
	g := benchGloveData(31034, 4_000_000)
	for _, d := range []int{50, 100, 200} {
		b.Run(fmt.Sprintf("d%d", d), func(b *testing.B) {
			for range b.N {
				if err := g.train(context.Background(), d, func(int, []float64, float64) error { return nil }); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*len(g.e))/b.Elapsed().Seconds(), "steps/s")
		})
	}
}
