package ce

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"
)

// A TagMatch says how one typed tag was found in the vocabulary Γ.
type TagMatch struct {
	Tag    string // the tag as typed (trimmed)
	Term   string // the vocabulary term it stands for; "" when it is OOV
	Folded bool   // matched ignoring case (no term is spelled exactly so)
	// Suggest holds, for an OOV tag, the closest vocabulary terms (Suggest):
	// the candidates when the tag matches several terms ignoring case.
	Suggest []string
}

// MaxSuggest is the number of terms Suggest offers for a tag.
const MaxSuggest = 3

// maxSuggested bounds the OOV tags of one set that Resolve finds
// suggestions for (each costs a pass over Γ).
const maxSuggested = 20

// foldIndex maps the case-folded spelling of every term of Γ to its ids.
type foldIndex struct {
	once   sync.Once
	folded []string         // by term id
	ids    map[string][]int // folded spelling → term ids, ascending
}

func (m *Model) folds() *foldIndex {
	f := &m.fold
	f.once.Do(func() {
		terms := m.vocab.Terms()
		f.folded = make([]string, len(terms))
		f.ids = make(map[string][]int, len(terms))
		for id, t := range terms {
			k := foldCase(t)
			f.folded[id] = k
			f.ids[k] = append(f.ids[k], id)
		}
	})
	return f
}

// foldCase is the spelling of s that case-insensitive matching compares.
func foldCase(s string) string { return strings.ToLower(s) }

// Lookup finds a typed tag in the vocabulary: the term spelled exactly as
// tag wins; otherwise the one term equal to it ignoring case. It returns the
// term's id and whether it matched only ignoring case; ok is false when no
// term matches, or several do ignoring case (then none is chosen).
func (m *Model) Lookup(tag string) (id int, folded, ok bool) {
	if id, ok := m.vocab.ID(tag); ok {
		return id, false, true
	}
	if ids := m.folds().ids[foldCase(tag)]; len(ids) == 1 {
		return ids[0], true, true
	}
	return -1, false, false
}

// Resolve matches a typed tag set against the vocabulary (Lookup), one
// TagMatch per distinct non-blank tag in input order (tags are trimmed). An
// OOV tag carries up to MaxSuggest suggestions (for the first 20 OOV tags).
func (m *Model) Resolve(tags []string) []TagMatch {
	var out []TagMatch
	seen := map[string]bool{}
	suggested := 0
	for _, t := range tags {
		t = strings.TrimSpace(t)
		if t == "" || seen[t] {
			continue
		}
		seen[t] = true
		r := TagMatch{Tag: t}
		if id, folded, ok := m.Lookup(t); ok {
			r.Term, r.Folded = m.vocab.Term(id), folded
		} else if suggested < maxSuggested {
			suggested++
			r.Suggest = m.Suggest(t, MaxSuggest)
		}
		out = append(out, r)
	}
	return out
}

// Suggest returns up to n vocabulary terms close to a tag outside it, best
// first: the terms equal to it ignoring case (several of them: the tag is
// ambiguous), then the terms it begins ignoring case (shortest first), then
// those within a small edit distance of it ignoring case (Damerau–Levenshtein
// with adjacent transpositions, at most one edit per three characters of the
// tag, at least one), nearest first. Ties keep vocabulary order. Nil when no
// term is close.
func (m *Model) Suggest(tag string, n int) []string {
	q := foldCase(strings.TrimSpace(tag))
	if q == "" || n <= 0 {
		return nil
	}
	f := m.folds()
	qr := []rune(q)
	maxD := max(1, len(qr)/3)
	type cand struct {
		id, class, score int
	}
	var cs []cand
	var prev, cur, pprev []int // distance rows, reused
	for id, t := range f.folded {
		switch {
		case t == q:
			cs = append(cs, cand{id, 0, 0})
		case len(qr) >= 2 && strings.HasPrefix(t, q):
			cs = append(cs, cand{id, 1, utf8.RuneCountInString(t)})
		default:
			if abs(utf8.RuneCountInString(t)-len(qr)) > maxD {
				continue
			}
			var d int
			d, pprev, prev, cur = editDistance(qr, t, maxD, pprev, prev, cur)
			if d <= maxD {
				cs = append(cs, cand{id, 2, d})
			}
		}
	}
	sort.SliceStable(cs, func(a, b int) bool {
		if cs[a].class != cs[b].class {
			return cs[a].class < cs[b].class
		}
		return cs[a].score < cs[b].score
	})
	out := make([]string, 0, min(n, len(cs)))
	for _, c := range cs[:min(n, len(cs))] {
		out = append(out, m.vocab.Term(c.id))
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// editDistance is the optimal-string-alignment distance between a and b
// (insertions, deletions, substitutions and adjacent transpositions), or
// some value above limit once it must exceed limit. The three rows are
// scratch space, returned for reuse.
func editDistance(a []rune, bs string, limit int, pprev, prev, cur []int) (int, []int, []int, []int) {
	b := []rune(bs)
	n := len(b)
	pprev, prev, cur = slices.Grow(pprev[:0], n+1)[:n+1], slices.Grow(prev[:0], n+1)[:n+1], slices.Grow(cur[:0], n+1)[:n+1]
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		best := cur[0]
		for j := 1; j <= n; j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			v := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				v = min(v, pprev[j-2]+1)
			}
			cur[j] = v
			best = min(best, v)
		}
		if best > limit {
			return limit + 1, pprev, prev, cur
		}
		pprev, prev, cur = prev, cur, pprev
	}
	return prev[n], pprev, prev, cur
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// An OOVError says that no tag of a typed set is in the vocabulary: it
// names the tags, the variant asked for and the closest terms of each.
type OOVError struct {
	Variant Variant
	Tags    []TagMatch // every tag of the set, each OOV
}

func (e *OOVError) Error() string {
	var b strings.Builder
	names := make([]string, len(e.Tags))
	for i, t := range e.Tags {
		names[i] = fmt.Sprintf("%q", t.Tag)
	}
	what := "the tag " + names[0] + " is"
	if len(names) > 1 {
		what = "none of the tags " + strings.Join(names, ", ") + " is"
	}
	fmt.Fprintf(&b, "%s in the vocabulary of the model (%s embedding)", what, VariantLabel(string(e.Variant)))
	var hints []string
	for _, t := range e.Tags {
		if len(t.Suggest) > 0 {
			hints = append(hints, fmt.Sprintf("%q → %s", t.Tag, strings.Join(t.Suggest, ", ")))
		}
	}
	if len(hints) > 0 {
		fmt.Fprintf(&b, "; did you mean: %s?", strings.Join(hints, "; "))
	} else {
		b.WriteString("; no vocabulary term is close")
	}
	return b.String()
}

// resolveTags is encodeTags for a typed tag set (Resolve): sorted distinct
// in-vocabulary ids, the OOV tags in input order, and every tag's match.
func (m *Model) resolveTags(tags []string) (ids []int, oov []string, rs []TagMatch) {
	rs = m.Resolve(tags)
	seen := map[int]bool{}
	for _, r := range rs {
		if r.Term == "" {
			oov = append(oov, r.Tag)
			continue
		}
		id, _ := m.vocab.ID(r.Term)
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids, oov, rs
}
