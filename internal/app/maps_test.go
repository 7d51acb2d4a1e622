package app

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/taglens/taglens/ml/corpus"
)

func TestInstanceMap(t *testing.T) {
	m, c, _ := demoModel(t)
	term := "guitar"
	var stages []string
	im := &InstanceMap{Model: m, Variant: "ce", Terms: []string{term}, Corpora: []*corpus.Corpus{c}, MaxPoints: 50,
		Progress: func(_ float64, stage, _ string) { stages = append(stages, stage) }}
	pts, emb, err := im.Compute(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(pts) < MinMapPoints || len(pts) > 50+20 || len(emb.Y) != len(pts) {
		t.Fatalf("%d points, %d embedded: want at least %d, about 50 at most", len(pts), len(emb.Y), MinMapPoints)
	}
	for _, p := range pts {
		if p.Term != term || p.Kind != "instance" || p.Corpus != c.Name || p.X != Round4(p.X) {
			t.Fatalf("point %+v", p)
		}
	}
	k := NumTopics(m)
	for _, p := range pts {
		if p.Topic < 0 || p.Topic >= k || p.Topic != DocumentTopic(m, p.Tags) {
			t.Fatalf("point %+v: topic %d of %d, want DocumentTopic %d", p, p.Topic, k, DocumentTopic(m, p.Tags))
		}
	}
	if len(stages) == 0 || stages[0] != "embedding" {
		t.Errorf("progress stages %v", stages)
	}
	im.Terms = []string{"no-such-term"}
	if _, _, err := im.Compute(context.Background()); err == nil || !strings.Contains(err.Error(), "at least 4") {
		t.Errorf("a term without instances: %v", err)
	}
}

// TestInstanceMapTerms checks a map of two terms' instances: every point is
// an instance of one of them, both are there, and each term's sense clusters
// are those of its instances alone.
func TestInstanceMapTerms(t *testing.T) {
	m, c, _ := demoModel(t)
	terms := []string{"guitar", "drums"}
	im := &InstanceMap{Model: m, Variant: "ce", Terms: terms, Corpora: []*corpus.Corpus{c}, MaxPoints: 1 << 20}
	pts, emb, err := im.Compute(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(emb.Y) != len(pts) {
		t.Fatalf("%d points, %d embedded", len(pts), len(emb.Y))
	}
	byTerm := map[string][]int{}
	for i, p := range pts {
		if !slices.Contains(terms, p.Term) || p.Kind != "instance" || !slices.Contains(p.Tags, p.Term) {
			t.Fatalf("point %+v", p)
		}
		byTerm[p.Term] = append(byTerm[p.Term], i)
	}
	for _, term := range terms {
		if len(byTerm[term]) < MinMapPoints {
			t.Fatalf("%d instances of %q", len(byTerm[term]), term)
		}
		one, _, err := (&InstanceMap{Model: m, Variant: "ce", Terms: []string{term}, Corpora: []*corpus.Corpus{c}, MaxPoints: 1 << 20}).Compute(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if len(one) != len(byTerm[term]) {
			t.Fatalf("%q: %d instances alone, %d in the map of both", term, len(one), len(byTerm[term]))
		}
		for j, i := range byTerm[term] {
			if pts[i].DocID != one[j].DocID || pts[i].Cluster != one[j].Cluster {
				t.Fatalf("%q instance %d: %s cluster %d in the map of both, %s cluster %d alone", term, j, pts[i].DocID, pts[i].Cluster, one[j].DocID, one[j].Cluster)
			}
		}
	}
}

func TestTopics(t *testing.T) {
	m, c, _ := demoModel(t)
	k := NumTopics(m)
	if k < 2 {
		t.Fatalf("%d topics", k)
	}
	v := m.Vocabulary()
	used := map[int]bool{}
	for id := 0; id < v.Len(); id++ {
		term := v.Term(id)
		top := TermTopic(m, term)
		p := m.Topics().TermTopics(id)
		if top < 0 || top >= k {
			t.Fatalf("term %q: topic %d of %d", term, top, k)
		}
		for j, x := range p {
			if x > p[top] {
				t.Fatalf("term %q: topic %d has p %g, topic %d more (%g)", term, top, p[top], j, x)
			}
		}
		used[top] = true
	}
	if len(used) < 2 {
		t.Errorf("every term in one topic of %d: %v", k, used)
	}
	if got := TermTopic(m, "no-such-term"); got != -1 {
		t.Errorf("an OOV term's topic %d, want -1", got)
	}
	if got := DocumentTopic(m, []string{"no-such-term", "nor-this"}); got != -1 {
		t.Errorf("a document without vocabulary terms: topic %d, want -1", got)
	}
	docTopics := map[int]bool{}
	for _, d := range c.Docs[:min(200, len(c.Docs))] {
		top := DocumentTopic(m, d.Tags)
		if top < -1 || top >= k {
			t.Fatalf("document %s: topic %d of %d", d.ID, top, k)
		}
		// An OOV tag beside the document's own changes nothing (the context
		// is folded in from the in-vocabulary tags).
		if again := DocumentTopic(m, append(append([]string(nil), d.Tags...), "no-such-term")); again != top {
			t.Fatalf("document %s: topic %d, %d with an OOV tag added", d.ID, top, again)
		}
		docTopics[top] = true
	}
	if len(docTopics) < 2 {
		t.Errorf("200 documents all in topic %v", docTopics)
	}
}
