package corpus

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/taglens/taglens/ml/shareddata"
)

func TestComputeStats(t *testing.T) {
	c := &Corpus{Name: "t", Format: FormatTSV, Dropped: 1, Docs: docs(
		"a|rock,guitar,loud", "b|rock,jazz", "c|jazz,rock", "d|piano", "e|rock,guitar,piano,sad")}
	s := ComputeStats(c)
	// By hand: uses 3+2+2+1+4 = 12 over 5 docs; cardinalities sorted 1,2,2,3,4.
	// rock 4, guitar 2, jazz 2, piano 2, loud 1, sad 1.
	want := Stats{Name: "t", Format: FormatTSV, Docs: 5, Tags: 6, Uses: 12,
		MeanTagsPerDoc: 2.4, MedianTagsPerDoc: 2, MinTagsPerDoc: 1, MaxTagsPerDoc: 4,
		TagUse:      []TagCount{{"rock", 4}, {"guitar", 2}, {"jazz", 2}, {"piano", 2}, {"loud", 1}, {"sad", 1}},
		Cardinality: []int{0, 1, 2, 1, 1}, SingletonTags: 2, Dropped: 1}
	if math.Abs(s.MeanTagsPerDoc-want.MeanTagsPerDoc) > 1e-12 {
		t.Errorf("mean: got %v, want %v", s.MeanTagsPerDoc, want.MeanTagsPerDoc)
	}
	s.MeanTagsPerDoc = want.MeanTagsPerDoc
	if !reflect.DeepEqual(s, want) {
		t.Errorf("got %+v\nwant %+v", s, want)
	}
	if got := s.Top(2); !reflect.DeepEqual(got, want.TagUse[:2]) {
		t.Errorf("Top(2): got %v", got)
	}
	if got := s.Top(100); len(got) != 6 {
		t.Errorf("Top(100): got %d tags, want 6", len(got))
	}
	// Even count: median of 1,2,2,3 = 2; of 1,3 = 2.
	s2 := ComputeStats(&Corpus{Docs: docs("a|x", "b|x,y,z")})
	if s2.MedianTagsPerDoc != 2 {
		t.Errorf("median of 1 and 3: got %v, want 2", s2.MedianTagsPerDoc)
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"tag_use":[{"tag":"rock","count":4}`, `"cardinality":[0,1,2,1,1]`, `"mean_tags_per_doc":2.4`, `"tags":6`} {
		if !strings.Contains(string(b), key) {
			t.Errorf("JSON %s lacks %s", b, key)
		}
	}
}

// TestStatsSharedData compares with ../shared/data/lastfm-hetrec/SOURCE.md: 12,523
// documents, 9,743 tags, 8.76 tags/doc, median 5, max 329.
func TestStatsSharedData(t *testing.T) {
	c, err := ReadFile(shareddata.File(t, "lastfm-hetrec", "docs.tsv"), ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := ComputeStats(c)
	if s.Docs != 12523 || s.Tags != 9743 || math.Abs(s.MeanTagsPerDoc-8.76) > 0.005 || s.MedianTagsPerDoc != 5 || s.MaxTagsPerDoc != 329 {
		t.Errorf("got %d docs, %d tags, mean %.3f, median %v, max %d; want 12523, 9743, 8.76, 5, 329",
			s.Docs, s.Tags, s.MeanTagsPerDoc, s.MedianTagsPerDoc, s.MaxTagsPerDoc)
	}
	sum := 0
	for k, n := range s.Cardinality {
		sum += k * n
	}
	if sum != s.Uses {
		t.Errorf("cardinality histogram sums to %d uses, want %d", sum, s.Uses)
	}
}
