package corpus

import (
	"bytes"
	"reflect"
	"slices"
	"testing"
)

func TestDemoDeterministic(t *testing.T) {
	c1, t1 := Demo(7)
	c2, t2 := Demo(7)
	var b1, b2 bytes.Buffer
	if err := Write(&b1, c1, FormatTSV); err != nil {
		t.Fatal(err)
	}
	Write(&b2, c2, FormatTSV)
	if !bytes.Equal(b1.Bytes(), b2.Bytes()) || !reflect.DeepEqual(t1, t2) {
		t.Error("same seed gave different demo corpora")
	}
	c3, _ := Demo(8)
	var b3 bytes.Buffer
	Write(&b3, c3, FormatTSV)
	if bytes.Equal(b1.Bytes(), b3.Bytes()) {
		t.Error("seeds 7 and 8 gave the same demo corpus")
	}
	// The written corpus parses back unchanged: it is a valid corpus.
	back, err := Parse(&b1, ParseOptions{})
	if err != nil || !reflect.DeepEqual(back.Docs, c1.Docs) {
		t.Errorf("demo corpus does not round-trip through tsv: %v", err)
	}
}

// TestDemoStructure checks the planted structure against the design in demo.go.
func TestDemoStructure(t *testing.T) {
	c, truth := Demo(DemoSeed)
	s := ComputeStats(c)
	if s.Docs < 1500 || s.Docs > 3000 || s.Tags < 60 || s.Tags > 120 {
		t.Errorf("got %d docs, %d tags; want 1500-3000 docs and 60-120 tags", s.Docs, s.Tags)
	}
	// 3-7 tags drawn; a document with two polysemous tags and a generic one gets 2
	// own tags on top, so at most 7 still holds (2+1+2 = 5 ≤ 7).
	if s.MinTagsPerDoc < 3 || s.MaxTagsPerDoc > 7 {
		t.Errorf("got %d-%d tags per document, want 3-7", s.MinTagsPerDoc, s.MaxTagsPerDoc)
	}
	// Long tail: the top 10% of tags take at least a quarter of all uses, and the
	// most used tag is used at least 10 times as often as the least used one.
	top := 0
	for _, tc := range s.Top(s.Tags / 10) {
		top += tc.Count
	}
	if float64(top) < 0.25*float64(s.Uses) || s.TagUse[0].Count < 10*s.TagUse[len(s.TagUse)-1].Count {
		t.Errorf("tag use not long-tailed: top 10%% take %d of %d uses; counts %d … %d", top, s.Uses, s.TagUse[0].Count, s.TagUse[len(s.TagUse)-1].Count)
	}

	pool := make(map[string]int) // own-pool tag → concept
	for k, cc := range demoConcepts {
		for _, tag := range cc.pool {
			pool[tag] = k
		}
	}
	for _, tag := range truth.Polysemous {
		senses := truth.Sense[tag]
		var n [2]int
		for i, d := range c.Docs {
			has := slices.Contains(d.Tags, tag)
			if has != (senses[i] >= 0) {
				t.Fatalf("%s in doc %d: holds it %v, sense %d", tag, i, has, senses[i])
			}
			if !has {
				continue
			}
			sense := senses[i]
			n[sense]++
			if want := truth.SenseConcept[tag][sense]; truth.DocConcept[i] != want {
				t.Errorf("%s in doc %d: sense %d but the document's concept is %d, want %d", tag, i, sense, truth.DocConcept[i], want)
			}
			// The context reveals the sense: the other tags' own-pool concepts are
			// all the sense's concept, and there are at least two of them.
			own := 0
			for _, other := range d.Tags {
				if k, ok := pool[other]; ok {
					own++
					if k != truth.SenseConcept[tag][sense] {
						t.Errorf("%s in doc %d: context tag %q belongs to concept %d", tag, i, other, k)
					}
				}
			}
			if own < 2 {
				t.Errorf("%s in doc %d: only %d context tags of its concept", tag, i, own)
			}
		}
		if n[0] < 40 || n[1] < 40 {
			t.Errorf("%s: %d documents of sense 0 and %d of sense 1, want >= 40 each", tag, n[0], n[1])
		}
		t.Logf("%s: %d / %d documents per sense", tag, n[0], n[1])
	}
}

func TestDemoSplit(t *testing.T) {
	c, truth := Demo(DemoSeed)
	sp := DemoSplit(c)
	if !reflect.DeepEqual(sp, DemoSplit(c)) {
		t.Fatal("DemoSplit is not deterministic")
	}
	if len(sp.OOV) < 40 || len(sp.Valid) == 0 || len(sp.Test) == 0 {
		t.Errorf("got %d oov, %d valid, %d test documents", len(sp.OOV), len(sp.Valid), len(sp.Test))
	}
	v := TrainVocabulary(c, sp)
	for _, tag := range DemoOOVTags {
		if _, in := v.ID(tag); in {
			t.Errorf("reserved tag %q in the training vocabulary", tag)
		}
	}
	// Both senses of every polysemous tag are well represented in training.
	for _, tag := range truth.Polysemous {
		var n [2]int
		for _, i := range sp.Train {
			if s := truth.Sense[tag][i]; s >= 0 {
				n[s]++
			}
		}
		if n[0] < 25 || n[1] < 25 {
			t.Errorf("%s in training: %d / %d documents per sense, want >= 25 each", tag, n[0], n[1])
		}
	}
}
