package ce

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/taglens/taglens/ml/corpus"
)

// TestCompletionGroupsMatchInference checks the groups of the completion form
// of stage 2 (Stage2Completion) in the middle of a real training: per group a
// training document with at least two terms and a held-out term p; a anchors,
// its other terms (distinct when it has more than a others); candidate 0 is p,
// the others terms outside the document; and every example's context part is
// exactly what inference computes for the document δ ∖ {p}
// (Model.contextTo: l(δ ∖ {p}) through the training PCA and scaling, and the
// mean row of δ ∖ {p}), so that training sees the completion protocol's
// situation with no trace of p in the context.
func TestCompletionGroupsMatchInference(t *testing.T) {
	tc := makeTestCorpus(3, 300)
	cfg := smallConfig(5)
	cfg.MaxEpochs1, cfg.MaxEpochs2 = 1, 1
	cfg.Stage2Loss, cfg.Context, cfg.LearningRate2 = Stage2Completion, ContextLDAMean, 0.005
	const a, c = 3, 5
	cfg.RankingAnchors, cfg.RankingGroup = a, c
	checked := 0
	cfg.epochHook = func(stage string, epoch int, tr *trainer) {
		if stage != "stage2" {
			return
		}
		m := tr.snapshot(tr.net.Params)
		set := tr.set
		ex := make([]example, 4*(a+c))
		set.sampleCompletionGroups(tr.rng, a, c, ex, nil)
		w := set.inputDim()
		dt := len(set.termX[0])
		for i := 0; i < len(ex); i += a + c {
			pos := ex[i+a]
			d := set.docs[pos.doc]
			if len(d) < 2 || pos.neg || !hasTerm(d, int(pos.term)) || pos.hold != pos.term+1 {
				t.Fatalf("group %d: held-out term %+v of document %v", i/(a+c), pos, d)
			}
			var rest []int
			for _, τ := range d {
				if τ != int(pos.term) {
					rest = append(rest, τ)
				}
			}
			want := make([]float64, w-dt)
			m.contextTo(want, rest)
			var anchors []int32
			for k, e := range ex[i : i+a+c] {
				switch {
				case e.doc != pos.doc || e.hold != pos.hold:
					t.Fatalf("group %d row %d: %+v is not in the group's document and context", i/(a+c), k, e)
				case k < a && (e.neg || !hasTerm(d, int(e.term)) || e.term == pos.term):
					t.Fatalf("group %d: anchor %+v is not another term of %v", i/(a+c), e, d)
				case k > a && (!e.neg || hasTerm(d, int(e.term))):
					t.Fatalf("group %d: candidate %+v is not a term outside %v", i/(a+c), e, d)
				}
				if k < a {
					anchors = append(anchors, e.term)
				}
				row := make([]float64, w)
				set.inputTo(row, e)
				for x, v := range row[dt:] {
					if math.Abs(v-want[x]) > 1e-9 {
						t.Fatalf("group %d row %d: context[%d] = %v, inference of δ∖{p} %v", i/(a+c), k, x, v, want[x])
					}
				}
			}
			slices.Sort(anchors)
			if len(rest) >= a && len(slices.Compact(anchors)) != a {
				t.Fatalf("group %d: repeated anchors %v though %v has %d other terms", i/(a+c), anchors, d, len(rest))
			}
		}
		checked++
	}
	if _, err := Train(context.Background(), tc.c, tc.split, cfg, nil); err != nil {
		t.Fatal(err)
	}
	if checked == 0 {
		t.Fatal("the hook never ran in stage 2")
	}
}

// TestCompletionTrains trains with the completion form twice with one seed:
// the same file bytes, Info records the loss and its group, and a file round
// trip keeps Info; a group too large for the limits is refused by name.
func TestCompletionTrains(t *testing.T) {
	tc := makeTestCorpus(3, 300)
	cfg := smallConfig(5)
	cfg.MaxEpochs1, cfg.MaxEpochs2 = 1, 2
	cfg.Stage2Loss, cfg.Context, cfg.LearningRate2 = Stage2Completion, ContextLDAMean, 0.005
	var files [2][]byte
	for i := range files {
		m, err := Train(context.Background(), tc.c, tc.split, cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		in := m.Info()
		if in.Stage2Loss != Stage2Completion || in.RankingGroup != DefaultCompletionGroup || in.RankingAnchors != DefaultCompletionAnchors {
			t.Fatalf("Info: stage2 loss %q, group %d, anchors %d", in.Stage2Loss, in.RankingGroup, in.RankingAnchors)
		}
		var buf bytes.Buffer
		if err := m.Write(&buf); err != nil {
			t.Fatal(err)
		}
		files[i] = buf.Bytes()
		if r := roundTrip(t, m); !reflect.DeepEqual(r.Info(), m.Info()) {
			t.Fatalf("after a round trip Info = %+v, want %+v", r.Info(), m.Info())
		}
	}
	if !bytes.Equal(files[0], files[1]) {
		t.Error("two trainings with the same seed wrote different files")
	}
	bad := cfg
	bad.RankingGroup = 5000
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "ranking_group") {
		t.Errorf("a group of 5000 candidates: %v, want a ranking_group error", err)
	}
}

// TestCompletionOneTermDocuments: with no training document of two or more
// terms the completion and ranking losses have no group to draw, and Train
// says so instead of failing inside the sampler.
func TestCompletionOneTermDocuments(t *testing.T) {
	// One-term training documents; validation documents of two terms, which
	// early stopping needs.
	c := &corpus.Corpus{Name: "single"}
	var split corpus.Split
	for i := range 230 {
		tags := []string{fmt.Sprintf("t%d", i%7)}
		if i >= 200 {
			tags = append(tags, fmt.Sprintf("t%d", (i+1)%7))
			split.Valid = append(split.Valid, i)
		} else {
			split.Train = append(split.Train, i)
		}
		c.Docs = append(c.Docs, corpus.Document{ID: fmt.Sprintf("d%d", i), Tags: tags})
	}
	for _, loss := range []string{Stage2Completion, Stage2Ranking} {
		cfg := smallConfig(5)
		cfg.MaxEpochs1, cfg.MaxEpochs2 = 1, 1
		cfg.Stage2Loss = loss
		_, err := Train(context.Background(), c, split, cfg, nil)
		if err == nil || !strings.Contains(err.Error(), "two or more terms") {
			t.Errorf("%s on one-term documents: %v, want an error naming documents of two or more terms", loss, err)
		}
	}
}
