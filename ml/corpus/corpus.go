package corpus

import (
	"fmt"
	"sort"
	"strings"
)

// A Document is one tagged item (a song, an image): an identifier and a set of tags.
// Tags are trimmed, non-empty and unique within the document; their order is the
// order of first appearance in the source.
type Document struct {
	ID   string
	Tags []string
}

// A Corpus is a named collection of documents in the order they were read.
type Corpus struct {
	Name   string
	Format Format // the format it was parsed from
	// Detected says, in one short sentence starting with the format's name, why
	// Parse chose Format ("tsv: a tab in line 1"); empty when the format was given.
	Detected string
	Docs     []Document

	// Dropped counts the documents of the source that were dropped because they had
	// no tags; Warnings names the first MaxWarnings of them with their lines.
	Dropped  int
	Warnings []ParseError

	// Skipped lists, in source order, the documents left out for having more
	// than TagCap distinct tags (ParseOptions.MaxTagsPerDoc): a corpus is not
	// refused for them, and they are not truncated, since the first TagCap tags
	// of a document are not a document of the source. ReadSplit accepts their
	// ids and leaves them out.
	Skipped []SkippedDoc
	// TagCap is the tag cap the corpus was parsed with (0 when it was not parsed).
	TagCap int
	// BidiSkipped lists, in source order, the documents left out because a
	// tag holds a bidirectional embedding, override or isolate character
	// (U+202A–U+202E, U+2066–U+2069), which would reorder the text shown
	// after it on a page: the document is skipped whole, as one over the tag
	// cap is, so that no such character is stored or shown. ReadSplit
	// accepts their ids and leaves them out.
	BidiSkipped []SkippedDoc
}

// A SkippedDoc is a document of the source that Parse left out of the corpus
// (for having more than Corpus.TagCap tags, or a tag with a bidirectional
// formatting character): its physical line and its id.
type SkippedDoc struct {
	Line int    `json:"line"`
	ID   string `json:"id"`
}

// MaxSkippedLines is how many line numbers of skipped documents the
// statistics (Stats.SkippedLines) and the messages name.
const MaxSkippedLines = 10

// SkippedLines returns the lines of the first n skipped documents.
func (c *Corpus) SkippedLines(n int) []int { return lineList(c.Skipped, n) }

// BidiLines returns the lines of the first n documents skipped for a
// bidirectional formatting character.
func (c *Corpus) BidiLines(n int) []int { return lineList(c.BidiSkipped, n) }

// SkippedSummary says in one phrase how many documents were skipped for the
// tag cap and on which lines (at most n of them): "2 documents with more than
// 10000 tags skipped (lines 99105, 121352)"; "" when none was.
func (c *Corpus) SkippedSummary(n int) string {
	if len(c.Skipped) == 0 {
		return ""
	}
	return SkippedSummary(len(c.Skipped), c.TagCap, c.SkippedLines(n))
}

// SkippedSummary is Corpus.SkippedSummary from its figures: the number of
// skipped documents, the tag cap and the first lines.
func SkippedSummary(count, tagCap int, lines []int) string {
	if count == 0 {
		return ""
	}
	noun := "documents"
	if count == 1 {
		noun = "document"
	}
	return fmt.Sprintf("%d %s with more than %d tags skipped", count, noun, tagCap) + linesNote(count, lines)
}

// BidiSummary says in one phrase how many documents were skipped for a tag
// holding a bidirectional formatting character and on which lines (at most n
// of them); "" when none was.
func (c *Corpus) BidiSummary(n int) string {
	return BidiSummary(len(c.BidiSkipped), lineList(c.BidiSkipped, n))
}

// BidiSummary is Corpus.BidiSummary from its figures: "97 documents with a
// bidirectional formatting character in a tag skipped (lines 4219, 4220, …)".
func BidiSummary(count int, lines []int) string {
	if count == 0 {
		return ""
	}
	noun := "documents"
	if count == 1 {
		noun = "document"
	}
	return fmt.Sprintf("%d %s with a bidirectional formatting character in a tag skipped", count, noun) +
		linesNote(count, lines)
}

// lineList returns the lines of the first n of docs.
func lineList(docs []SkippedDoc, n int) []int {
	var lines []int
	for _, s := range docs[:min(max(n, 0), len(docs))] {
		lines = append(lines, s.Line)
	}
	return lines
}

// linesNote is " (lines 1, 2, …)" for count documents of which lines are
// the first; "" without lines.
func linesNote(count int, lines []int) string {
	if len(lines) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(" (line")
	if len(lines) > 1 {
		b.WriteByte('s')
	}
	for i, l := range lines {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, " %d", l)
	}
	if count > len(lines) {
		b.WriteString(", …")
	}
	b.WriteByte(')')
	return b.String()
}

// Format names an accepted corpus file format.
type Format string

// A Vocabulary maps terms to dense indices 0..Len()-1 and back.
// The zero value is an empty vocabulary ready to use.
type Vocabulary struct {
	terms []string
	index map[string]int
}

// NewVocabulary returns the vocabulary of the given documents, with terms indexed
// in sorted (byte-wise) order so that it does not depend on document order.
func NewVocabulary(docs []Document) *Vocabulary {
	seen := make(map[string]struct{})
	for _, d := range docs {
		for _, t := range d.Tags {
			seen[t] = struct{}{}
		}
	}
	terms := make([]string, 0, len(seen))
	for t := range seen {
		terms = append(terms, t)
	}
	sort.Strings(terms)
	return VocabularyOf(terms)
}

// VocabularyOf returns a vocabulary with the given terms in the given order.
// It panics if a term is repeated.
func VocabularyOf(terms []string) *Vocabulary {
	v := &Vocabulary{terms: append([]string(nil), terms...), index: make(map[string]int, len(terms))}
	for i, t := range v.terms {
		if _, dup := v.index[t]; dup {
			panic(fmt.Sprintf("corpus: duplicate term %q in vocabulary", t))
		}
		v.index[t] = i
	}
	return v
}

// Len returns the number of terms.
func (v *Vocabulary) Len() int { return len(v.terms) }

// Term returns the term with index i. It panics if i is out of range.
func (v *Vocabulary) Term(i int) string { return v.terms[i] }

// Terms returns the terms in index order. The caller must not modify it.
func (v *Vocabulary) Terms() []string { return v.terms }

// ID returns the index of term t and whether t is in the vocabulary.
func (v *Vocabulary) ID(t string) (int, bool) {
	i, ok := v.index[t]
	return i, ok
}

// Encode returns the indices of d's in-vocabulary tags, in d's order, and its
// out-of-vocabulary tags.
func (v *Vocabulary) Encode(d Document) (ids []int, oov []string) {
	for _, t := range d.Tags {
		if i, ok := v.index[t]; ok {
			ids = append(ids, i)
		} else {
			oov = append(oov, t)
		}
	}
	return ids, oov
}

// EncodeAll encodes every document; documents are kept in order even when they
// have no in-vocabulary tag (their row is then empty).
func (v *Vocabulary) EncodeAll(docs []Document) [][]int {
	out := make([][]int, len(docs))
	for i, d := range docs {
		out[i], _ = v.Encode(d)
	}
	return out
}

// Subset names a part of a split.
type Subset string

// The subsets of a split (../shared/data split.tsv files use these names).
const (
	Train Subset = "train"
	Valid Subset = "valid"
	Test  Subset = "test"
	OOV   Subset = "oov" // documents holding a reserved (simulated out-of-vocabulary) tag
)

// A Split assigns documents, by index into Corpus.Docs, to subsets. Each list is in
// increasing document order.
type Split struct {
	Train, Valid, Test, OOV []int
}

// Of returns the document indices of subset s. It panics on an unknown subset.
func (s *Split) Of(sub Subset) []int {
	switch sub {
	case Train:
		return s.Train
	case Valid:
		return s.Valid
	case Test:
		return s.Test
	case OOV:
		return s.OOV
	}
	panic(fmt.Sprintf("corpus: unknown subset %q", sub))
}

// Select returns the documents of c at the given indices.
func (c *Corpus) Select(idx []int) []Document {
	out := make([]Document, len(idx))
	for i, j := range idx {
		out[i] = c.Docs[j]
	}
	return out
}

// AbsentTags returns the tags of tags (in their order) that no document of c
// holds: reserved OOV tags that reserve nothing, a typo or a tag of another
// corpus.
func (c *Corpus) AbsentTags(tags []string) []string {
	left := make(map[string]bool, len(tags))
	for _, t := range tags {
		left[t] = true
	}
	for _, d := range c.Docs {
		if len(left) == 0 {
			break
		}
		for _, t := range d.Tags {
			delete(left, t)
		}
	}
	var absent []string
	for _, t := range tags {
		if left[t] {
			absent = append(absent, t)
			delete(left, t) // once, if tags repeats it
		}
	}
	return absent
}
