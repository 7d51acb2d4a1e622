package compare

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/taglens/taglens/ml/eval"
)

// block is a model of a vocabulary of two blocks of terms: terms of the same
// block are at distance 0, of different blocks at distance 1.
type block struct{ v int }

func (b block) Name() string     { return "block" }
func (b block) Contextual() bool { return false }
func (b block) VocabSize() int   { return b.v }
func (b block) Distances(_, queries []int, _ *rand.Rand, dst []float64) {
	for i, q := range queries {
		for j := 0; j < b.v; j++ {
			d := 0.0
			if (q < b.v/2) != (j < b.v/2) {
				d = 1
			}
			dst[i*b.v+j] = d
		}
	}
}

// blockDocs are documents of 3 terms, each from one block of 10 terms.
func blockDocs(n int, seed uint64) [][]int {
	rng := rand.New(rand.NewPCG(seed, 1))
	docs := make([][]int, n)
	for i := range docs {
		off := 5 * rng.IntN(2)
		p := rng.Perm(5)
		docs[i] = []int{off + p[0], off + p[1], off + p[2]}
	}
	return docs
}

func TestRun(t *testing.T) {
	var stages []string
	calls := 0
	p := &Plan{Protocol: eval.Extended, VocabSize: 10, Trials: 2,
		Entries: []Entry{
			{Name: "random", Baseline: "random"},
			{Name: "block", Model: func(int) (eval.Model, map[string]any, error) {
				return block{10}, map[string]any{"kind": "test"}, nil
			}},
		},
		Trial: func(tr int) (*Trial, error) {
			calls++
			return &Trial{Seed: uint64(10 + tr), Train: blockDocs(50, 1), Docs: blockDocs(40, uint64(2+tr))}, nil
		},
		Progress: func(e Event) {
			if e.Stage != "documents" {
				stages = append(stages, e.Entry+":"+e.Stage)
			}
			if f := e.Fraction(); f < 0 || f > 1 {
				t.Errorf("fraction %v", f)
			}
		},
	}
	var rep eval.Report
	if err := Run(context.Background(), p, &rep); err != nil {
		t.Fatal(err)
	}
	if calls != 2 || len(rep.Seeds) != 2 || rep.Seeds[0] != 10 || rep.Seeds[1] != 11 || rep.Trials != 2 {
		t.Errorf("trials: %d calls, seeds %v, trials %d; want 2, [10 11], 2", calls, rep.Seeds, rep.Trials)
	}
	if len(rep.Models) != 2 || rep.Models[0].Name != "random" || rep.Models[1].Name != "block" {
		t.Fatalf("models: %+v", rep.Models)
	}
	// The block model ranks the same-block terms (ties among them) before the
	// others: its MAP is well above random's.
	if rep.Models[1].MAP < rep.Models[0].MAP+0.2 {
		t.Errorf("MAP: block %.3f, random %.3f", rep.Models[1].MAP, rep.Models[0].MAP)
	}
	if rep.Models[1].Tuning == nil || rep.PValues == nil {
		t.Error("tuning record or p-values missing")
	}
	want := "random:training baseline,random:evaluating,random:done,block:evaluating,block:done"
	if got := strings.Join(stages[:5], ","); got != want {
		t.Errorf("first trial's steps:\n got %s\nwant %s", got, want)
	}

	// Same plan, same report.
	var again eval.Report
	if err := Run(context.Background(), p, &again); err != nil {
		t.Fatal(err)
	}
	if again.Models[0].MAP != rep.Models[0].MAP || again.Models[1].AUC != rep.Models[1].AUC {
		t.Error("two runs of one plan differ")
	}
}

func TestRunErrors(t *testing.T) {
	trial := func(int) (*Trial, error) {
		return &Trial{Seed: 1, Train: blockDocs(20, 1), Docs: blockDocs(20, 2)}, nil
	}
	model := func(int) (eval.Model, map[string]any, error) { return block{10}, nil, nil }
	cases := []struct {
		name string
		plan Plan
		want string
	}{
		{"no trial", Plan{Entries: []Entry{{Name: "b", Model: model}}, Trial: trial}, "at least one trial"},
		{"no entry", Plan{Trials: 1, Trial: trial}, "nothing to compare"},
		{"two kinds", Plan{Trials: 1, Trial: trial, Entries: []Entry{{Name: "b", Model: model, Baseline: "random"}}}, "exactly one"},
		{"unknown baseline", Plan{Trials: 1, Trial: trial, Entries: []Entry{{Name: "x", Baseline: "word2vec"}}}, "unknown baseline"},
		{"trial error", Plan{Trials: 1, Entries: []Entry{{Name: "b", Model: model}},
			Trial: func(int) (*Trial, error) { return nil, errors.New("no split") }}, "no split"},
		{"model error", Plan{Trials: 1, Trial: trial, Entries: []Entry{{Name: "b",
			Model: func(int) (eval.Model, map[string]any, error) { return nil, nil, errors.New("bad file") }}}}, "b: bad file"},
	}
	for _, c := range cases {
		c.plan.Protocol, c.plan.VocabSize = eval.Extended, 10
		var rep eval.Report
		if err := Run(context.Background(), &c.plan, &rep); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error containing %q", c.name, err, c.want)
		}
	}
	// A cancelled context stops the run.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	p := Plan{Protocol: eval.Extended, VocabSize: 10, Trials: 1, Trial: trial, Entries: []Entry{{Name: "b", Model: model}}}
	if err := Run(ctx, &p, &eval.Report{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: got %v", err)
	}
}

// TestRunConcurrent checks that entries run several at a time give the report
// of one at a time, that their progress events never overlap and count every
// entry done once, and that an entry's error stops the others and is the one
// returned.
func TestRunConcurrent(t *testing.T) {
	trial := func(tr int) (*Trial, error) {
		return &Trial{Seed: uint64(20 + tr), Train: blockDocs(60, 3), Docs: blockDocs(50, uint64(4+tr))}, nil
	}
	entries := []Entry{
		{Name: "random", Baseline: "random"},
		{Name: "lsa", Baseline: "lsa"},
		{Name: "block", Model: func(int) (eval.Model, map[string]any, error) { return block{10}, nil, nil }},
		{Name: "pca", Baseline: "pca"},
	}
	var want []byte
	for _, conc := range []int{1, 2, 3, 8} {
		var inside atomic.Int32
		overlap, done := false, 0
		p := &Plan{Protocol: eval.Extended, VocabSize: 10, Trials: 2, Entries: entries, Trial: trial, Concurrent: conc,
			Progress: func(e Event) {
				if inside.Add(1) != 1 {
					overlap = true
				}
				if e.Stage == "done" {
					done++
					if e.Done != done {
						t.Errorf("concurrent %d: done event %d counts %d", conc, done, e.Done)
					}
				}
				inside.Add(-1)
			}}
		var rep eval.Report
		if err := Run(context.Background(), p, &rep); err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(rep)
		if err != nil {
			t.Fatal(err)
		}
		if want == nil {
			want = b
		} else if !bytes.Equal(b, want) {
			t.Errorf("concurrent %d: report differs from one at a time:\n%s\n%s", conc, b, want)
		}
		if overlap {
			t.Errorf("concurrent %d: progress events overlapped", conc)
		}
		if done != len(entries)*2 {
			t.Errorf("concurrent %d: %d done events, want %d", conc, done, len(entries)*2)
		}
	}
	// The failing entry's error is returned; the entries beside it stop.
	slow := Entry{Name: "slow", Model: func(int) (eval.Model, map[string]any, error) { return block{10}, nil, nil }}
	bad := Entry{Name: "bad", Model: func(int) (eval.Model, map[string]any, error) { return nil, nil, errors.New("bad file") }}
	p := &Plan{Protocol: eval.Extended, VocabSize: 10, Trials: 1, Trial: trial, Concurrent: 2,
		Entries: []Entry{slow, bad, {Name: "lsa", Baseline: "lsa"}}}
	if err := Run(context.Background(), p, &eval.Report{}); err == nil || !strings.Contains(err.Error(), "bad: bad file") {
		t.Errorf("got %v, want bad's error", err)
	}
}

// keyedBlock is block with a result key, counting its rankings.
type keyedBlock struct {
	block
	key   string
	calls *atomic.Int64
}

func (b keyedBlock) ResultKey() string { return b.key }
func (b keyedBlock) Distances(ctx, queries []int, rng *rand.Rand, dst []float64) {
	b.calls.Add(1)
	b.block.Distances(ctx, queries, rng, dst)
}

// TestRunSharedResult checks that entries whose models share a result key
// are evaluated once per trial, at once or one after the other, and report
// the same figures, while a model with another key is evaluated on its own.
func TestRunSharedResult(t *testing.T) {
	for _, conc := range []int{1, 3} {
		var same, other atomic.Int64
		entry := func(name, key string, calls *atomic.Int64) Entry {
			return Entry{Name: name, Model: func(int) (eval.Model, map[string]any, error) {
				return keyedBlock{block{10}, key, calls}, nil, nil
			}}
		}
		docs := blockDocs(40, 2)
		p := &Plan{Protocol: eval.Extended, VocabSize: 10, Trials: 2, Concurrent: conc,
			Entries: []Entry{entry("a", "k", &same), entry("b", "k", &same), entry("c", "other", &other)},
			Trial: func(tr int) (*Trial, error) {
				return &Trial{Seed: uint64(10 + tr), Train: blockDocs(50, 1), Docs: docs}, nil
			},
		}
		var rep eval.Report
		if err := Run(context.Background(), p, &rep); err != nil {
			t.Fatal(err)
		}
		// One ranking per document and trial for the shared key, as for the other.
		if n := other.Load(); n == 0 || same.Load() != n {
			t.Errorf("concurrent %d: %d rankings for the two shared entries, %d for the other", conc, same.Load(), n)
		}
		if a, b := rep.Models[0], rep.Models[1]; a.MAP != b.MAP || a.AUC != b.AUC || a.Queries != b.Queries {
			t.Errorf("concurrent %d: shared entries report %v and %v", conc, a.MAP, b.MAP)
		}
	}
}
