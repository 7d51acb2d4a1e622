package corpus

import (
	"cmp"
	"slices"
)

// A TagCount is the number of documents using a tag.
type TagCount struct {
	Tag   string `json:"tag"`
	Count int    `json:"count"`
}

// Stats describes a corpus as the paper's Figures 3-4 do: the tag-use distribution
// (tags in descending order of use) and the document cardinality distribution
// (number of tags per document).
type Stats struct {
	Name   string `json:"name"`
	Format Format `json:"format"`
	// Detected is Corpus.Detected: why Parse chose Format, "" when it was given.
	Detected string `json:"detected,omitempty"`
	Docs     int    `json:"docs"`
	Tags     int    `json:"tags"` // vocabulary size
	// Uses is the number of (document, tag) pairs: the sum of all cardinalities.
	Uses int `json:"uses"`
	// MeanTagsPerDoc = Uses / Docs; MedianTagsPerDoc is the middle cardinality (the
	// mean of the two middle ones for an even count).
	MeanTagsPerDoc   float64 `json:"mean_tags_per_doc"`
	MedianTagsPerDoc float64 `json:"median_tags_per_doc"`
	MinTagsPerDoc    int     `json:"min_tags_per_doc"`
	MaxTagsPerDoc    int     `json:"max_tags_per_doc"`
	// TagUse lists every tag with the number of documents using it, by descending
	// count, ties in byte-wise tag order (Figure 3 a-c).
	TagUse []TagCount `json:"tag_use"`
	// Cardinality[k] is the number of documents with exactly k tags, k = 0..MaxTagsPerDoc
	// (Figure 3 d-f); Cardinality[0] is 0 since empty documents are dropped.
	Cardinality []int `json:"cardinality"`
	// SingletonTags counts tags used by exactly one document (the long tail).
	SingletonTags int `json:"singleton_tags"`
	// Dropped is Corpus.Dropped: documents of the source dropped for having no tags.
	Dropped int `json:"dropped_docs"`
	// Skipped counts the documents of the source skipped for having more than
	// TagCap tags (Corpus.Skipped); SkippedLines are the first MaxSkippedLines
	// of their lines.
	Skipped      int   `json:"skipped_docs"`
	SkippedLines []int `json:"skipped_lines,omitempty"`
	TagCap       int   `json:"tag_cap,omitempty"`
	// BidiSkipped counts the documents skipped for a tag holding a
	// bidirectional formatting character (Corpus.BidiSkipped); BidiLines are
	// the first MaxSkippedLines of their lines.
	BidiSkipped int   `json:"bidi_skipped_docs,omitempty"`
	BidiLines   []int `json:"bidi_skipped_lines,omitempty"`
}

// BidiSummary is Corpus.BidiSummary of the statistics: "" when no document
// was skipped for a bidirectional formatting character.
func (s *Stats) BidiSummary() string { return BidiSummary(s.BidiSkipped, s.BidiLines) }

// SkippedSummary is Corpus.SkippedSummary of the statistics: "" when no
// document was skipped.
func (s *Stats) SkippedSummary() string {
	return SkippedSummary(s.Skipped, s.TagCap, s.SkippedLines)
}

// ComputeStats returns the statistics of c. It runs in O(uses + tags·log tags).
func ComputeStats(c *Corpus) Stats {
	s := Stats{Name: c.Name, Format: c.Format, Detected: c.Detected, Docs: len(c.Docs), Dropped: c.Dropped,
		Skipped: len(c.Skipped), SkippedLines: c.SkippedLines(MaxSkippedLines), TagCap: c.TagCap,
		BidiSkipped: len(c.BidiSkipped), BidiLines: c.BidiLines(MaxSkippedLines)}
	count := make(map[string]int)
	card := make([]int, len(c.Docs))
	for i, d := range c.Docs {
		card[i] = len(d.Tags)
		s.Uses += len(d.Tags)
		for _, t := range d.Tags {
			count[t]++
		}
	}
	s.Tags = len(count)
	s.TagUse = make([]TagCount, 0, len(count))
	for t, n := range count {
		s.TagUse = append(s.TagUse, TagCount{t, n})
		if n == 1 {
			s.SingletonTags++
		}
	}
	slices.SortFunc(s.TagUse, func(a, b TagCount) int {
		if c := cmp.Compare(b.Count, a.Count); c != 0 {
			return c
		}
		return cmp.Compare(a.Tag, b.Tag)
	})
	if len(card) == 0 {
		s.Cardinality = []int{0}
		return s
	}
	slices.Sort(card)
	s.MinTagsPerDoc, s.MaxTagsPerDoc = card[0], card[len(card)-1]
	s.MeanTagsPerDoc = float64(s.Uses) / float64(len(card))
	if n := len(card); n%2 == 1 {
		s.MedianTagsPerDoc = float64(card[n/2])
	} else {
		s.MedianTagsPerDoc = float64(card[n/2-1]+card[n/2]) / 2
	}
	s.Cardinality = make([]int, s.MaxTagsPerDoc+1)
	for _, k := range card {
		s.Cardinality[k]++
	}
	return s
}

// Top returns the n most used tags (all of them when n exceeds the vocabulary).
func (s *Stats) Top(n int) []TagCount {
	return s.TagUse[:min(max(n, 0), len(s.TagUse))]
}
