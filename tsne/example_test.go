package tsne_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/taglens/taglens/tsne"
)

// Two well separated clusters in ten dimensions stay apart in the map.
func ExampleEmbed() {
	rng := rand.New(rand.NewPCG(1, 2))
	var x [][]float64
	for i := 0; i < 60; i++ {
		p := make([]float64, 10)
		for j := range p {
			p[j] = rng.NormFloat64()
			if i >= 30 {
				p[j] += 8
			}
		}
		x = append(x, p)
	}
	emb, err := tsne.Embed(context.Background(), x, tsne.Options{Perplexity: 10, Iterations: 1000, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	// The nearest map neighbour of every point is in its own cluster.
	same := 0
	for i, yi := range emb.Y {
		best, bestD := -1, 0.0
		for j, yj := range emb.Y {
			if d := (yi[0]-yj[0])*(yi[0]-yj[0]) + (yi[1]-yj[1])*(yi[1]-yj[1]); j != i && (best < 0 || d < bestD) {
				best, bestD = j, d
			}
		}
		if (i < 30) == (best < 30) {
			same++
		}
	}
	fmt.Println(len(emb.Y), "points,", same, "with a neighbour of their cluster")
	// Output:
	// 60 points, 60 with a neighbour of their cluster
}
