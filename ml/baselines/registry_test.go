package baselines

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/taglens/taglens/ml/eval"
)

// TestRegistryModern checks that the paper's eight baselines keep their
// report order, that the modern ones follow, are non-contextual (skipped under
// priming) and train through Train with their tuning record and progress.
// TestSkipCRBMCompletion: CRBM's context is the document's identity, which
// would hold the held-out term, so completion leaves it out, whatever subset.
func TestSkipCRBMCompletion(t *testing.T) {
	for _, sub := range []string{"train", "test"} {
		if why := Skip(NameCRBM, Scope{Protocol: eval.Completion, Subset: sub}); !strings.Contains(why, "held-out term") {
			t.Errorf("crbm under completion on %s: skip note %q", sub, why)
		}
	}
}

func TestRegistryModern(t *testing.T) {
	paper := []string{"random", "lsa", "pca", "infotheo", "skipgram", "lda", "plsa", "crbm"}
	if !slices.Equal(Names[:len(paper)], paper) || !slices.Equal(Names[len(paper):], []string{"ppmi-svd", "glove", "ease", "ease-score", "rp3beta", "itemknn"}) {
		t.Fatalf("Names = %v", Names)
	}
	docs := globalPlanted(6, 120, 4)
	for _, name := range []string{"ppmi-svd", "glove", "ease", "ease-score", "rp3beta", "itemknn"} {
		if !slices.Contains(NonContextual, name) {
			t.Errorf("%s not in NonContextual", name)
		}
		if why := Skip(name, Scope{Protocol: eval.Priming, Subset: "test"}); !strings.Contains(why, "extended protocol only") {
			t.Errorf("%s under priming: skip note %q", name, why)
		}
		if why := Skip(name, Scope{Protocol: eval.Extended, Subset: "test"}); why != "" {
			t.Errorf("%s under extended priming: skipped (%q)", name, why)
		}
		if why := Skip(name, Scope{Protocol: eval.Completion, Subset: "test"}); why != "" {
			t.Errorf("%s under completion: skipped (%q)", name, why)
		}
		var said []string
		m, tun, err := Train(context.Background(), name, Data{Train: docs, V: 8}, Settings{}, 3, func(s string) { said = append(said, s) })
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if m.Name() != name || m.Contextual() || m.VocabSize() != 8 {
			t.Errorf("%s: got name %q contextual %v vocabulary %d", name, m.Name(), m.Contextual(), m.VocabSize())
		}
		crit := "train_p2"
		if slices.Contains([]string{"ease", "ease-score", "rp3beta", "itemknn"}, name) {
			crit = "valid_map"
		}
		if tun["seed"] != uint64(3) || tun["grid"] == nil || tun[crit] == nil {
			t.Errorf("%s: tuning %v", name, tun)
		}
		if prefix := strings.TrimSuffix(name, "-score"); len(said) == 0 || !strings.HasPrefix(said[0], prefix+": ") {
			t.Errorf("%s: progress %q", name, said)
		}
	}
}

// TestRegistrySkipGramLines checks Train's progress lines of Skip-gram: one per
// window, after its representations, with the best training P@2 among them.
func TestRegistrySkipGramLines(t *testing.T) {
	var said []string
	m, _, err := Train(context.Background(), NameSkipGram, Data{Train: globalPlanted(6, 120, 4), V: 8}, Settings{}, 3, func(s string) { said = append(said, s) })
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, w := range skipGramWindows {
		best := math.Inf(-1)
		for _, p := range m.(*SkipGram).Grid {
			if p.Window == w {
				best = max(best, p.TrainP2)
			}
		}
		want = append(want, fmt.Sprintf("skipgram: window %d training P@2 %.4f", w, best))
	}
	if !slices.Equal(said, want) {
		t.Errorf("progress %q, want %q", said, want)
	}
}
