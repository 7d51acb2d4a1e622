package corpus

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/taglens/taglens/ml/internal/defaults"
)

// ReadSplit reads a split.tsv file ("id<TAB>train|valid|test|oov" per line, blank
// lines ignored) for corpus c. An empty file (or one of blank lines) is an
// error, not "no split". An unknown subset name, an id not in c, an id given
// twice, or a malformed line is a *ParseError naming the line; a document of c
// missing from the file is an error naming the document. Lines naming a
// document Parse skipped (for the tag cap, Corpus.Skipped, or a bidirectional
// formatting character, Corpus.BidiSkipped) are read and ignored.
func ReadSplit(r io.Reader, c *Corpus) (Split, error) {
	index := make(map[string]int, len(c.Docs)+len(c.Skipped)+len(c.BidiSkipped))
	for i, d := range c.Docs {
		index[d.ID] = i
	}
	for _, d := range c.Skipped {
		index[d.ID] = -1
	}
	for _, d := range c.BidiSkipped {
		index[d.ID] = -1
	}
	assign := make([]Subset, len(c.Docs))
	g := &guard{r: r, maxLine: DefaultMaxLineBytes, line: 1, buf: make([]byte, 64<<10)}
	l := &lineReader{br: bufio.NewReaderSize(g, 64<<10)}
	empty := true
	for {
		line, err := l.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return Split{}, fmt.Errorf("corpus: split: %w", err)
		}
		if isBlank(line) {
			continue
		}
		empty = false
		idb, sub, ok := bytes.Cut(line, []byte{'\t'})
		if !ok {
			return Split{}, fmt.Errorf("corpus: split: %w", lineErr(l.line, "want \"id<TAB>subset\""))
		}
		id := string(trimBytes(idb))
		i, ok := index[id]
		if !ok {
			return Split{}, fmt.Errorf("corpus: split: %w", lineErr(l.line, "unknown document id %q", id))
		}
		s := Subset(trimBytes(sub))
		switch s {
		case Train, Valid, Test, OOV:
		default:
			return Split{}, fmt.Errorf("corpus: split: %w", lineErr(l.line, "unknown subset %q (want train, valid, test or oov)", s))
		}
		if i < 0 {
			continue // a skipped document
		}
		if assign[i] != "" {
			return Split{}, fmt.Errorf("corpus: split: %w", lineErr(l.line, "document %q assigned twice", id))
		}
		assign[i] = s
	}
	if empty {
		return Split{}, errors.New("corpus: split: split file is empty (no \"id<TAB>subset\" line)")
	}
	var sp Split
	for i, s := range assign {
		switch s {
		case Train:
			sp.Train = append(sp.Train, i)
		case Valid:
			sp.Valid = append(sp.Valid, i)
		case Test:
			sp.Test = append(sp.Test, i)
		case OOV:
			sp.OOV = append(sp.OOV, i)
		default:
			return Split{}, fmt.Errorf("corpus: split: document %q (number %d of the corpus) has no subset", c.Docs[i].ID, i+1)
		}
	}
	return sp, nil
}

// WriteSplit writes s in the split.tsv format of ReadSplit.
func WriteSplit(w io.Writer, c *Corpus, s Split) error {
	bw := bufio.NewWriter(w)
	assign := make([]Subset, len(c.Docs))
	for _, sub := range []Subset{Train, Valid, Test, OOV} {
		for _, i := range s.Of(sub) {
			assign[i] = sub
		}
	}
	for i, d := range c.Docs {
		if assign[i] == "" {
			continue
		}
		fmt.Fprintf(bw, "%s\t%s\n", d.ID, assign[i])
	}
	return bw.Flush()
}

// ReadOOVTags reads an oov_tags.txt file: one reserved tag per line, trimmed; blank
// lines are skipped and repeats kept once, in file order. A line longer than a
// tag may be (DefaultMaxTagBytes) or holding a character no tag may hold (a
// control or bidirectional formatting character) is a *ParseError naming the
// line. Tags absent from the corpus are not an error here: see
// Corpus.AbsentTags.
func ReadOOVTags(r io.Reader) ([]string, error) {
	g := &guard{r: r, maxLine: DefaultMaxLineBytes, line: 1, buf: make([]byte, 64<<10)}
	l := &lineReader{br: bufio.NewReaderSize(g, 64<<10)}
	var tags []string
	seen := make(map[string]bool)
	for {
		line, err := l.next()
		if err == io.EOF {
			return tags, nil
		}
		if err != nil {
			return nil, fmt.Errorf("corpus: oov tags: %w", err)
		}
		t := string(trimBytes(line))
		if t == "" || seen[t] {
			continue
		}
		if len(t) > DefaultMaxTagBytes {
			return nil, fmt.Errorf("corpus: oov tags: %w", lineErr(l.line, "tag of %d bytes (limit %d): %q", len(t), DefaultMaxTagBytes, t))
		}
		if r, kind := badRune(t); kind != "" {
			return nil, fmt.Errorf("corpus: oov tags: %w", lineErr(l.line, "tag %q holds the %s character U+%04X", t, kind, r))
		}
		seen[t] = true
		tags = append(tags, t)
	}
}

// DefaultValidSize is the number of validation documents RandomSplit takes from the
// n documents left after training when validN <= 0: a quarter of them, at most 300,
// and at least 1 when n >= 2. It reproduces the paper's choices (§5.2): CAL500 (500
// documents, 167 left) → 42 ≈ its 40; MagTag5K (3,826 in the split, 1,275 left) and
// Corel5K → 300.
func DefaultValidSize(n int) int {
	v := min(300, int(math.Round(float64(n)/4)))
	if v == 0 && n >= 2 {
		v = 1
	}
	return v
}

// DefaultSplitSeed is the seed of the random split of a corpus that has no split
// of its own. It is fixed, not the training seed, so that the models of one corpus
// trained with different seeds share their training documents and vocabulary and
// can be compared trial by trial.
const DefaultSplitSeed uint64 = 1

// RandomSplit splits c as the paper's §5.2 does. Documents holding any of the
// reserved tags oovTags go to OOV. The others, in corpus order, are shuffled with a
// PCG generator seeded by seed; the first round(2/3·N) are Train, the next validN
// (DefaultValidSize when validN <= 0, at most what is left) Valid, the rest Test.
// Each list is in increasing document order. The same seed gives the same split.
func RandomSplit(c *Corpus, oovTags []string, validN int, seed uint64) Split {
	reserved := make(map[string]bool, len(oovTags))
	for _, t := range oovTags {
		reserved[t] = true
	}
	var sp Split
	var rest []int
	for i, d := range c.Docs {
		if slices.ContainsFunc(d.Tags, func(t string) bool { return reserved[t] }) {
			sp.OOV = append(sp.OOV, i)
		} else {
			rest = append(rest, i)
		}
	}
	rng := rand.New(rand.NewPCG(seed, 0x7a61_6c65_6e73_0001))
	rng.Shuffle(len(rest), func(i, j int) { rest[i], rest[j] = rest[j], rest[i] })
	nTrain := int(math.Round(2 * float64(len(rest)) / 3))
	left := len(rest) - nTrain
	defaults.Positive(&validN, DefaultValidSize(left))
	validN = min(validN, left)
	sp.Train = slices.Sorted(slices.Values(rest[:nTrain]))
	sp.Valid = slices.Sorted(slices.Values(rest[nTrain : nTrain+validN]))
	sp.Test = slices.Sorted(slices.Values(rest[nTrain+validN:]))
	return sp
}

// TrainVocabulary returns the vocabulary of the training documents of s. Reserved
// OOV tags are never in it when s came from RandomSplit or a paper-style split.tsv,
// since every document holding one is in s.OOV.
func TrainVocabulary(c *Corpus, s Split) *Vocabulary {
	return NewVocabulary(c.Select(s.Train))
}

// DropTags returns copies of docs without the given tags (e.g. reserved OOV tags,
// to keep them out of a vocabulary built from documents that hold them). Documents
// left without tags are kept, empty; the input is not modified.
func DropTags(docs []Document, tags []string) []Document {
	drop := make(map[string]bool, len(tags))
	for _, t := range tags {
		drop[t] = true
	}
	out := make([]Document, len(docs))
	for i, d := range docs {
		out[i].ID = d.ID
		out[i].Tags = make([]string, 0, len(d.Tags))
		for _, t := range d.Tags {
			if !drop[t] {
				out[i].Tags = append(out[i].Tags, t)
			}
		}
	}
	return out
}
