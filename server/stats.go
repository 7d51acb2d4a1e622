package server

import (
	"fmt"
	"strings"

	"github.com/taglens/taglens/ml/corpus"
)

// computeStats converts corpus.ComputeStats (the paper's Figures 3-4: tag-use
// distribution by decreasing count, document cardinality histogram) into the
// cached form stored with a corpus.
func computeStats(c *corpus.Corpus) CorpusStats {
	s := corpus.ComputeStats(c)
	st := CorpusStats{Cardinality: s.Cardinality, MeanTags: s.MeanTagsPerDoc, TagCounts: make([]TagCount, len(s.TagUse)),
		Dropped: s.Dropped, Skipped: s.Skipped, SkippedLines: s.SkippedLines, TagCap: s.TagCap}
	for i, tc := range s.TagUse {
		st.TagCounts[i] = TagCount{Tag: tc.Tag, Count: tc.Count}
	}
	return st
}

// leftOut says which documents of a corpus's file were not kept: those
// without tags and those over the tag cap; "" when none.
func leftOut(st CorpusStats) string {
	var parts []string
	switch {
	case st.Dropped == 1:
		parts = append(parts, "1 document without tags")
	case st.Dropped > 1:
		parts = append(parts, fmt.Sprintf("%d documents without tags", st.Dropped))
	}
	if st.Skipped > 0 {
		parts = append(parts, corpus.SkippedSummary(st.Skipped, st.TagCap, st.SkippedLines))
	}
	return strings.Join(parts, "; ")
}
