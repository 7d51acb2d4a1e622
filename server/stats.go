package server

import (
	"github.com/taglens/taglens/ml/corpus"
)

// computeStats converts corpus.ComputeStats (the paper's Figures 3-4: tag-use
// distribution by decreasing count, document cardinality histogram) into the
// cached form stored with a corpus.
func computeStats(c *corpus.Corpus) CorpusStats {
	s := corpus.ComputeStats(c)
	st := CorpusStats{Cardinality: s.Cardinality, MeanTags: s.MeanTagsPerDoc, TagCounts: make([]TagCount, len(s.TagUse))}
	for i, tc := range s.TagUse {
		st.TagCounts[i] = TagCount{Tag: tc.Tag, Count: tc.Count}
	}
	return st
}
