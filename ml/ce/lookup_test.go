package ce

import (
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/taglens/taglens/ml/corpus"
)

// TestPrimeMatchesCaseInsensitively: a typed tag that differs from a
// vocabulary term only in case primes as that term (and says so), an exact
// spelling wins, and an unknown tag next to known ones is listed as OOV with
// the closest terms as suggestions.
func TestPrimeMatchesCaseInsensitively(t *testing.T) {
	_, m := trainSmall(t)
	want, err := m.Prime(VariantSiamese, []string{"guitar", "c0_t1"}, 5)
	if err != nil {
		t.Fatal(err)
	}
	got, err := m.Prime(VariantSiamese, []string{"GUITAR", "C0_T1", "guitr"}, 5)
	if err != nil {
		t.Fatalf("Prime(GUITAR, C0_T1, guitr): %v", err)
	}
	if got.Matched["GUITAR"] != "guitar" || got.Matched["C0_T1"] != "c0_t1" || len(got.Matched) != 2 {
		t.Errorf("matched %v, want GUITAR → guitar and C0_T1 → c0_t1", got.Matched)
	}
	if _, ok := got.PerTerm["guitar"]; !ok {
		t.Errorf("per-term lists %v: none for guitar", slices.Collect(maps.Keys(got.PerTerm)))
	}
	if !slices.Equal(got.OOV, []string{"guitr"}) {
		t.Errorf("OOV %v, want [guitr]", got.OOV)
	}
	if s := got.Suggestions["guitr"]; len(s) == 0 || s[0] != "guitar" {
		t.Errorf("suggestions for guitr: %v, want guitar first", s)
	}
	// With the OOV tag placed at the centroid, the in-vocabulary lists are
	// those of the exactly spelled set.
	if !slices.Equal(terms(got.PerTerm["guitar"]), terms(want.PerTerm["guitar"])) {
		t.Errorf("GUITAR primes %v, guitar %v", terms(got.PerTerm["guitar"]), terms(want.PerTerm["guitar"]))
	}
	vecs, oov, err := m.Embed(VariantCE, []string{"House", "c1_t0"})
	if err != nil || len(oov) != 0 || vecs["house"] == nil {
		t.Errorf("Embed(House, c1_t0): oov %v, terms %v, err %v; want house in the vocabulary", oov, slices.Collect(maps.Keys(vecs)), err)
	}
}

// TestPrimeNamesOOVTags: when no tag is in the vocabulary the error names
// every tag and the variant, with suggestions.
func TestPrimeNamesOOVTags(t *testing.T) {
	_, m := trainSmall(t)
	_, err := m.Prime(VariantCE, []string{"gitar", "zzqqxx"}, 5)
	var oe *OOVError
	if !errors.As(err, &oe) {
		t.Fatalf("Prime(gitar, zzqqxx): %v, want an *OOVError", err)
	}
	msg := err.Error()
	for _, want := range []string{`"gitar"`, `"zzqqxx"`, "CE", "guitar"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not name %s", msg, want)
		}
	}
	if _, err := m.Prime(VariantSiamese, []string{" ", ""}, 5); err == nil || errors.As(err, &oe) {
		t.Errorf("Prime of blank tags: %v, want an error that is not about the vocabulary", err)
	}
}

// TestLookupAndSuggest on a vocabulary alone: an exact spelling wins over a
// folded one, a folded spelling of two terms is ambiguous (both suggested),
// and suggestions rank a case-folded prefix before edit distance.
func TestLookupAndSuggest(t *testing.T) {
	m := &Model{vocab: corpus.VocabularyOf([]string{"Rock", "rock", "Guitar", "guitars", "electric guitar", "jazz", "quit"})}
	cases := []struct {
		tag    string
		term   string
		folded bool
	}{
		{"rock", "rock", false}, {"Rock", "Rock", false}, {"ROCK", "", false},
		{"guitar", "Guitar", true}, {"GUITARS", "guitars", true}, {"Jazz", "jazz", true}, {"blues", "", false},
	}
	for _, c := range cases {
		id, folded, ok := m.Lookup(c.tag)
		term := ""
		if ok {
			term = m.vocab.Term(id)
		}
		if term != c.term || folded != c.folded {
			t.Errorf("Lookup(%q) = %q folded %v, want %q folded %v", c.tag, term, folded, c.term, c.folded)
		}
	}
	for _, c := range []struct {
		tag  string
		want []string
	}{
		{"ROCK", []string{"Rock", "rock"}},
		{"gui", []string{"Guitar", "guitars"}},
		{"guitr", []string{"Guitar"}},
		{"giutar", []string{"Guitar", "guitars"}},
		{"qiut", []string{"quit"}},
		{"xyzzy", nil},
	} {
		if got := m.Suggest(c.tag, MaxSuggest); !slices.Equal(got, c.want) {
			t.Errorf("Suggest(%q) = %q, want %q", c.tag, got, c.want)
		}
	}
	rs := m.Resolve([]string{" Jazz ", "jazz", "Jazz", "", "bluez"})
	if len(rs) != 3 || rs[0].Term != "jazz" || !rs[0].Folded || rs[1].Folded || rs[2].Term != "" {
		t.Errorf("Resolve: %+v", rs)
	}
}

func terms(ps []Primed) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Term
	}
	return out
}
