package app

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/taglens/taglens/internal/testkit"
	"github.com/taglens/taglens/ml/ce"
	"github.com/taglens/taglens/ml/corpus"
	"github.com/taglens/taglens/ml/shareddata"
)

// instanceBase returns the whole-space map of model m over docs (t-SNE, seed 1).
func instanceBase(t testing.TB, m *ce.Model, docs [][]string) *SpaceMap {
	t.Helper()
	vecs, counts, err := m.TermCentroids(context.Background(), ce.DefaultVariant, docs)
	if err != nil {
		t.Fatal(err)
	}
	v := m.Vocabulary()
	terms := make([]string, v.Len())
	for i := range terms {
		terms[i] = v.Term(i)
	}
	sm, err := Space{Variant: string(ce.DefaultVariant), Projection: ProjectTSNE, Iterations: 500, Seed: 1}.
		Compute(context.Background(), SpaceTerms{terms, vecs, counts}, SpaceTerms{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return sm
}

// TestInstanceSpace checks the instance map of the demo model's training
// documents: one point per (document, vocabulary term), in document order,
// with the terms of EmbedDocument; the batches do not change a coordinate;
// a capped map takes every k-th document; a cancelled context stops it.
func TestInstanceSpace(t *testing.T) {
	m, c, split := demoModel(t)
	docs := make([][]string, len(split.Train))
	for i, d := range split.Train {
		docs[i] = c.Docs[d].Tags
	}
	sm := instanceBase(t, m, docs)
	is := InstanceSpace{Model: m, Variant: ce.DefaultVariant, Emb: sm.Emb, Seed: 1, Iterations: 100}
	a, err := is.Compute(context.Background(), docs)
	if err != nil {
		t.Fatal(err)
	}
	n := CountInstances(m, docs)
	if len(a.X) != n || len(a.Y) != n || len(a.Term) != n || len(a.Doc) != n || len(a.Topic) != n || a.Stride != 1 {
		t.Fatalf("%d, %d, %d, %d, %d points (stride %d): want %d", len(a.X), len(a.Y), len(a.Term), len(a.Doc), len(a.Topic), a.Stride, n)
	}
	// The first document's instances are its vocabulary terms, as EmbedDocument lists them.
	first := slices.IndexFunc(docs, func(d []string) bool {
		ids, _, _, _, err := m.EmbedDocument(ce.DefaultVariant, d)
		return err == nil && len(ids) > 0
	})
	ids, _, _, _, _ := m.EmbedDocument(ce.DefaultVariant, docs[first])
	for k, id := range ids {
		if a.Doc[k] != uint32(first) || a.Term[k] != uint32(id) {
			t.Fatalf("instance %d: document %d, term %d; want %d, %d", k, a.Doc[k], a.Term[k], first, id)
		}
	}
	is.Batch = 7
	b, err := is.Compute(context.Background(), docs)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.X, b.X) || !slices.Equal(a.Y, b.Y) {
		t.Error("batches of 7 instances placed them elsewhere than batches of 4096")
	}
	is.MaxPoints = n / 3
	capped, err := is.Compute(context.Background(), docs)
	if err != nil {
		t.Fatal(err)
	}
	if capped.Stride != 4 && capped.Stride != 3 || len(capped.X) > n/2 || len(capped.X) == 0 {
		t.Errorf("capped at %d of %d: stride %d, %d points", n/3, n, capped.Stride, len(capped.X))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := is.Compute(ctx, docs); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: error %v", err)
	}
}

// TestInstanceSpaceTime measures the instance map at about 10^5 instances
// (mtg-jamendo's training documents, a small model), when
// TAGLENS_INSTANCE_BENCH is set: a measurement, not a timed assertion.
func TestInstanceSpaceTime(t *testing.T) {
	if os.Getenv("TAGLENS_INSTANCE_BENCH") == "" {
		t.Skip("a measurement: set TAGLENS_INSTANCE_BENCH=1 to run it")
	}
	dir := shareddata.Dir(t, "mtg-jamendo")
	c, err := corpus.ReadFile(filepath.Join(dir, "docs.tsv"), corpus.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(dir, "split.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	split, err := corpus.ReadSplit(f, c)
	if err != nil {
		t.Fatal(err)
	}
	cfg := ce.Config{Seed: 1, Hidden: []int{24, 10}, MaxEpochs1: 2, MaxEpochs2: 1, Patience: 1, EpochExamples: 4000,
		PretrainIterations: -1, Topics: 8, SplitSeed: 1}
	m, err := Train(context.Background(), Training{Corpus: c, OwnSplit: &split, Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	docs := make([][]string, len(split.Train))
	for i, d := range split.Train {
		docs[i] = c.Docs[d].Tags
	}
	t0 := time.Now()
	sm := instanceBase(t, m, docs)
	tSpace := time.Since(t0)
	var ref *Instances
	for _, iters := range []int{250, 100} {
		runtime.GC()
		rss0 := testkit.PeakRSS(t, true)
		t1 := time.Now()
		out, err := InstanceSpace{Model: m, Variant: ce.DefaultVariant, Emb: sm.Emb, Seed: 1, Iterations: iters}.Compute(context.Background(), docs)
		if err != nil {
			t.Fatal(err)
		}
		took := time.Since(t1)
		grew := float64(testkit.PeakRSS(t, false)-rss0) / (1 << 20)
		// How far the instances land from where 250 iterations put them, in
		// parts of the map's width.
		var note string
		if ref == nil {
			ref = out
		} else {
			lo, hi := slices.Min(ref.X), slices.Max(ref.X)
			d := make([]float64, len(out.X))
			for i := range d {
				d[i] = math.Hypot(float64(out.X[i]-ref.X[i]), float64(out.Y[i]-ref.Y[i])) / float64(hi-lo)
			}
			slices.Sort(d)
			note = fmt.Sprintf("; from the 250-iteration places: median %.4f, 95th percentile %.4f of the map's width", d[len(d)/2], d[len(d)*95/100])
		}
		t.Logf("%d instances of %d terms (%d documents): whole-space t-SNE %v, instance CEs and Transform (%d iterations) %v, peak RSS %.0f MiB above the start%s",
			len(out.X), len(sm.Terms), len(docs), tSpace.Round(time.Millisecond), iters, took.Round(time.Millisecond), grew, note)
	}
	t0 = time.Now()
	n := 0
	for _, d := range docs {
		if ids, _, _, _, err := m.EmbedDocument(ce.DefaultVariant, d); err == nil {
			n += len(ids)
			DocumentTopic(m, d)
		}
	}
	t.Logf("of which the %d instance CEs and the documents' topics alone: %v", n, time.Since(t0).Round(time.Millisecond))
	// The alternative: t-SNE of the instances themselves (FFT gradient,
	// approximate neighbours from 50,000 points on), 1000 iterations.
	var x [][]float64
	for _, d := range docs {
		if _, _, ce, _, err := m.EmbedDocument(ce.DefaultVariant, d); err == nil {
			x = append(x, ce...)
		}
	}
	t0 = time.Now()
	emb, err := MapTSNE(context.Background(), x, "instances", 30, 1000, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("t-SNE of the %d instance CEs instead (%s, %s neighbours, 1000 iterations): %v", len(x), emb.Method, emb.Neighbours, time.Since(t0).Round(time.Millisecond))
}
