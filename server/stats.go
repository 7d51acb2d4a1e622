package server

import (
	"sort"

	"github.com/taglens/taglens/ml/corpus"
)

// computeStats counts, for the corpus pages, the documents using each tag (the
// tag-use distribution of the paper's Figure 3, sorted by decreasing count, ties by
// tag) and the number of documents with each number of tags (Figure 4).
func computeStats(c *corpus.Corpus) CorpusStats {
	counts := map[string]int{}
	var st CorpusStats
	total := 0
	for _, d := range c.Docs {
		for _, t := range d.Tags {
			counts[t]++
		}
		n := len(d.Tags)
		for len(st.Cardinality) <= n {
			st.Cardinality = append(st.Cardinality, 0)
		}
		st.Cardinality[n]++
		total += n
	}
	st.TagCounts = make([]TagCount, 0, len(counts))
	for t, n := range counts {
		st.TagCounts = append(st.TagCounts, TagCount{t, n})
	}
	sort.Slice(st.TagCounts, func(i, j int) bool {
		a, b := st.TagCounts[i], st.TagCounts[j]
		if a.Count != b.Count {
			return a.Count > b.Count
		}
		return a.Tag < b.Tag
	})
	if len(c.Docs) > 0 {
		st.MeanTags = float64(total) / float64(len(c.Docs))
	}
	return st
}
