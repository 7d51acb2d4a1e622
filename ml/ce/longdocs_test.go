package ce

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/taglens/taglens/ml/corpus"
)

func TestLeaveOutLong(t *testing.T) {
	c := &corpus.Corpus{Docs: []corpus.Document{{Tags: []string{"a"}}, {Tags: []string{"a", "b", "c"}}, {Tags: []string{"b", "c"}}}}
	idx := []int{0, 1, 2}
	for _, tc := range []struct {
		max  int
		kept []int
		out  int
	}{{-1, idx, 0}, {3, idx, 0}, {2, []int{0, 2}, 1}, {1, []int{0}, 2}, {0, nil, 3}} {
		kept, out := leaveOutLong(c, idx, tc.max)
		if !slices.Equal(kept, tc.kept) || out != tc.out {
			t.Errorf("max %d: kept %v, %d out; want %v, %d", tc.max, kept, out, tc.kept, tc.out)
		}
	}
	if kept, _ := leaveOutLong(c, idx, 3); &kept[0] != &idx[0] {
		t.Error("nothing left out, yet the list was copied")
	}
}

// TestTrainLeavesOutLongDocs checks that the documents over Config.MaxDocTags
// are left out of training and counted in Info, and that Info (and so the
// model file) does not mention the limit when no document passes it.
func TestTrainLeavesOutLongDocs(t *testing.T) {
	tc := makeTestCorpus(1, 300)
	long := 0
	for _, i := range tc.split.Train {
		if len(tc.c.Docs[i].Tags) > 5 {
			long++
		}
	}
	if long == 0 {
		t.Fatal("the test corpus has no training document of more than 5 tags")
	}
	cfg := smallConfig(3)
	cfg.MaxEpochs1, cfg.MaxEpochs2, cfg.EpochExamples, cfg.MaxDocTags = 2, 1, 1000, 5
	m, err := Train(context.Background(), tc.c, tc.split, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	in := m.Info()
	if in.LongDocs != long || in.MaxDocTags != 5 || in.TrainDocs != len(tc.split.Train)-long {
		t.Errorf("Info: %d left out of limit %d, %d training documents; want %d, 5, %d", in.LongDocs, in.MaxDocTags, in.TrainDocs, long, len(tc.split.Train)-long)
	}
	var none Info
	e := &encoder{}
	if err := encodeInfo(e, &none); err != nil {
		t.Fatal(err)
	}
	if s := string(e.b); strings.Contains(s, "long_docs") || strings.Contains(s, "max_doc_tags") {
		t.Errorf("Info without documents left out names the limit: %s", s)
	}
}
