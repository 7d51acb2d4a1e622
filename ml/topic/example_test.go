package topic_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/taglens/taglens/ml/topic"
)

// LDA on the tags of a few songs of two styles, then a document's topic
// mixture folded in with the topics fixed (the local context l(δ) of Eq. 3)
// and the Eq. 1 distance of two terms under it.
func ExampleFitLDA() {
	terms := []string{"rock", "guitar", "drums", "loud", "jazz", "piano", "saxophone", "swing"}
	var docs [][]int
	for i := range 40 { // three or four tags of one style
		base := 4 * (i % 2)
		docs = append(docs, []int{base, base + 1, base + 2, base + 3}[:3+i%4/2])
	}
	m, err := topic.FitLDA(context.Background(), docs, len(terms), topic.LDAConfig{K: 2}, rand.New(rand.NewPCG(1, 2)), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	// Group the terms by their most probable topic.
	groups := make([][]string, m.NumTopics())
	for w, t := range terms {
		p := m.TermTopics(w)
		k := slices.Index(p, slices.Max(p))
		groups[k] = append(groups[k], t)
	}
	slices.SortFunc(groups, func(a, b []string) int { return strings.Compare(a[0], b[0]) })
	for _, g := range groups {
		fmt.Println(strings.Join(g, " "))
	}
	theta := make([]float64, m.NumTopics())
	m.InferTo(theta, []int{0, 1}, rand.New(rand.NewPCG(3, 4))) // rock, guitar
	kl := func(a, b int) float64 {
		return topic.TermKL(theta, m.TermTopics(a), m.TermTopics(b), 1/float64(len(terms)))
	}
	fmt.Println("rock is closer to drums than to piano:", kl(0, 2) < kl(0, 5))
	// Output:
	// jazz piano saxophone swing
	// rock guitar drums loud
	// rock is closer to drums than to piano: true
}
