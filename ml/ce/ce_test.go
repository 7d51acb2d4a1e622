package ce

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/mat"

	"github.com/taglens/taglens/ml/corpus"
	"github.com/taglens/taglens/ml/nn"
)

// testCorpus is a small corpus drawn from latent concepts with planted
// polysemous tags: every concept has its own tags, and each polysemous tag is
// shared by two unrelated concepts; sense[i] is the concept of document i.
type testCorpus struct {
	c     *corpus.Corpus
	split corpus.Split
	sense []int
	poly  []string
}

func makeTestCorpus(seed uint64, nDocs int) *testCorpus {
	rng := rand.New(rand.NewPCG(seed, 99))
	const nConcepts, perConcept = 6, 6
	tags := make([][]string, nConcepts)
	for c := range tags {
		for j := 0; j < perConcept; j++ {
			tags[c] = append(tags[c], fmt.Sprintf("c%d_t%d", c, j))
		}
	}
	// Polysemous tags: "guitar" in concepts 0 and 3, "house" in 1 and 4.
	polyOf := map[int]string{0: "guitar", 3: "guitar", 1: "house", 4: "house"}
	tc := &testCorpus{c: &corpus.Corpus{Name: "test"}, poly: []string{"guitar", "house"}}
	for i := 0; i < nDocs; i++ {
		c := rng.IntN(nConcepts)
		n := 3 + rng.IntN(3)
		perm := rng.Perm(perConcept)[:n]
		var d []string
		for _, p := range perm {
			d = append(d, tags[c][p])
		}
		if p, ok := polyOf[c]; ok && rng.Float64() < 0.6 {
			d = append(d, p)
		}
		tc.c.Docs = append(tc.c.Docs, corpus.Document{ID: fmt.Sprint(i), Tags: d})
		tc.sense = append(tc.sense, c)
		switch {
		case i%10 == 0:
			tc.split.Valid = append(tc.split.Valid, i)
		case i%10 == 1:
			tc.split.Test = append(tc.split.Test, i)
		default:
			tc.split.Train = append(tc.split.Train, i)
		}
	}
	return tc
}

// smallConfig trains quickly and reproducibly on the test corpus.
func smallConfig(seed uint64) Config {
	return Config{Seed: seed, Topics: 6, Hidden: []int{20, 10}, MaxEpochs1: 8, MaxEpochs2: 6, EpochExamples: 4000,
		PretrainIterations: 20, AlphaGrid: []float64{0.2}, LambdaGrid: []float64{1, 4}}
}

var cachedModel *Model

func trainSmall(t testing.TB) (*testCorpus, *Model) {
	tc := makeTestCorpus(1, 600)
	if cachedModel != nil {
		return tc, cachedModel
	}
	m, err := Train(context.Background(), tc.c, tc.split, smallConfig(7), nil)
	if err != nil {
		t.Fatal(err)
	}
	cachedModel = m
	return tc, m
}

func TestTrainDeterministicFile(t *testing.T) {
	tc, m1 := trainSmall(t)
	m2, err := Train(context.Background(), tc.c, tc.split, smallConfig(7), nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	p1, p2 := filepath.Join(dir, "a.tlm"), filepath.Join(dir, "b.tlm")
	if err := m1.WriteFile(p1); err != nil {
		t.Fatal(err)
	}
	if err := m2.WriteFile(p2); err != nil {
		t.Fatal(err)
	}
	b1, _ := os.ReadFile(p1)
	b2, _ := os.ReadFile(p2)
	if !bytes.Equal(b1, b2) {
		t.Fatalf("same seed gave different model files (%d and %d bytes)", len(b1), len(b2))
	}
	// A different seed gives a different model (the test can fail).
	m3, err := Train(context.Background(), tc.c, tc.split, smallConfig(8), nil)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := m3.Write(&buf); err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(b1, buf.Bytes()) {
		t.Fatal("different seeds gave identical model files")
	}
}

func TestModelFileRoundTripAndCorruption(t *testing.T) {
	_, m := trainSmall(t)
	var buf bytes.Buffer
	if err := m.Write(&buf); err != nil {
		t.Fatal(err)
	}
	file := buf.Bytes()
	m2, err := Read(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	var buf2 bytes.Buffer
	if err := m2.Write(&buf2); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(file, buf2.Bytes()) {
		t.Fatal("read → write does not reproduce the file")
	}
	// Same answers after the round trip.
	tags := []string{"guitar", "c0_t1", "c0_t2"}
	for _, v := range []string{VariantCE, VariantSiamese} {
		a, _, err := m.Embed(v, tags)
		if err != nil {
			t.Fatal(err)
		}
		b, _, _ := m2.Embed(v, tags)
		for k := range a {
			for i := range a[k] {
				if a[k][i] != b[k][i] {
					t.Fatalf("%s %s[%d]: got %v, want %v", v, k, i, b[k][i], a[k][i])
				}
			}
		}
	}
	tests := []struct {
		name string
		data []byte
	}{
		{"empty", nil},
		{"header only", file[:20]},
		{"truncated by one byte", file[:len(file)-1]},
		{"truncated in half", file[:len(file)/2]},
		{"flipped payload bit", flip(file, len(file)/2)},
		{"flipped checksum bit", flip(file, len(file)-3)},
		{"bad magic", flip(file, 0)},
		{"trailing garbage", append(append([]byte(nil), file...), 0)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Read(bytes.NewReader(tt.data))
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("got error %v, want one wrapping ErrCorrupt", err)
			}
		})
	}
	// ReadFile names the file.
	p := filepath.Join(t.TempDir(), "bad.tlm")
	os.WriteFile(p, file[:100], 0o644)
	if _, err := ReadFile(p); err == nil || !errors.Is(err, ErrCorrupt) {
		t.Fatalf("ReadFile of a truncated file: got %v", err)
	}
}

func flip(b []byte, i int) []byte {
	c := append([]byte(nil), b...)
	c[i] ^= 0x10
	return c
}

// TestStepGradients checks the gradient of Train's training steps against
// central finite differences of the loss they return: stage 1 (Eq. 5) and
// stage 2 (Eq. 7: both members' prediction losses at the output, the distance
// loss injected at the CE layer, one shared parameter vector), each with the
// exact and the sampled Eq. 5 (the column sample is drawn once and kept fixed,
// so the sampled loss is a deterministic function of the parameters).
func TestStepGradients(t *testing.T) {
	for _, tc := range []struct {
		name   string
		sample int
		stage  int
	}{
		{"stage1-exact", -1, 1},
		{"stage1-sampled", 4, 1},
		{"stage2-exact", -1, 2},
		{"stage2-sampled", 4, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := benchTrainer(4, 3, 12, Config{Hidden: []int{6, 3}, BatchSize: 8, OutputSample: tc.sample})
			const alpha, lambda = 0.7, 2.0
			sc := nn.SiameseConfig{Beta: math.Sqrt(3), Rho: 0.5}
			s := tr.step
			if tc.stage == 1 {
				s.fill1(tr.set.epochExamples(tr.rng, 8, nil))
			} else {
				ps := make([]pair, 8)
				tr.set.samplePairs(tr.rng, 0.5, 0.5, ps)
				s.fill2(ps, lambda)
			}
			f := func() float64 {
				if tc.stage == 1 {
					return s.grad1()
				}
				lp, ls := s.grad2(alpha, sc)
				return lp + alpha*ls
			}
			f()
			grad := slices.Clone(s.grad)
			params := tr.net.Params
			at := slices.Clone(params)
			num := fd.Gradient(nil, func(x []float64) float64 {
				copy(params, x)
				return f()
			}, at, &fd.Settings{Formula: fd.Central, Step: 1e-6})
			copy(params, at)
			for i, want := range num {
				if math.Abs(want-grad[i]) > 1e-6*math.Max(1, math.Abs(want)) {
					t.Errorf("param %d: analytic %v, finite difference %v", i, grad[i], want)
				}
			}
		})
	}
}

func TestNegativeTerm(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	d := []int{0, 2, 3, 7}
	counts := make([]int, 8)
	for i := 0; i < 8000; i++ {
		n := negativeTerm(d, 8, rng)
		if hasTerm(d, n) {
			t.Fatalf("negative term %d is in the document", n)
		}
		counts[n]++
	}
	// The 4 absent terms are equally likely: expected 2000 each (binomial sd ≈ 39).
	for _, j := range []int{1, 4, 5, 6} {
		if counts[j] < 1800 || counts[j] > 2200 {
			t.Errorf("term %d drawn %d times, want about 2000", j, counts[j])
		}
	}
	if got := negativeTerm([]int{0, 1, 2}, 3, rng); got != -1 {
		t.Errorf("full document: got %d, want -1", got)
	}
}

// twoMeans clusters the rows into 2 groups by Lloyd's algorithm, restarted from
// 20 seeded random pairs of rows; it keeps the clustering with the smallest
// within-cluster sum of squares (deterministic).
func twoMeans(rows [][]float64) []int {
	rng := rand.New(rand.NewPCG(11, 12))
	var best []int
	bestSS := math.Inf(1)
	for r := 0; r < 20; r++ {
		i, j := rng.IntN(len(rows)), rng.IntN(len(rows))
		lab, ss := lloyd2(rows, rows[i], rows[j])
		if ss < bestSS {
			best, bestSS = lab, ss
		}
	}
	return best
}

func lloyd2(rows [][]float64, a, b []float64) ([]int, float64) {
	c := [2][]float64{append([]float64(nil), a...), append([]float64(nil), b...)}
	lab := make([]int, len(rows))
	var ss float64
	for it := 0; it < 100; it++ {
		ss = 0
		for i, r := range rows {
			da, db := euclid(r, c[0]), euclid(r, c[1])
			lab[i] = 0
			if db < da {
				lab[i], da = 1, db
			}
			ss += da * da
		}
		for k := range c {
			n := 0
			clear(c[k])
			for i, r := range rows {
				if lab[i] == k {
					n++
					for j := range r {
						c[k][j] += r[j]
					}
				}
			}
			for j := range c[k] {
				if n > 0 {
					c[k][j] /= float64(n)
				}
			}
		}
	}
	return lab, ss
}

// adjustedRand is the adjusted Rand index of two labelings (Hubert & Arabie 1985):
// (Σ C(n_ij,2) − E) / (½(Σ C(a_i,2) + Σ C(b_j,2)) − E), E = Σ C(a_i,2)·Σ C(b_j,2)/C(n,2).
func adjustedRand(a, b []int) float64 {
	c2 := func(n int) float64 { return float64(n) * float64(n-1) / 2 }
	type key struct{ x, y int }
	nij, ai, bj := map[key]int{}, map[int]int{}, map[int]int{}
	for i := range a {
		nij[key{a[i], b[i]}]++
		ai[a[i]]++
		bj[b[i]]++
	}
	var sij, sa, sb float64
	for _, n := range nij {
		sij += c2(n)
	}
	for _, n := range ai {
		sa += c2(n)
	}
	for _, n := range bj {
		sb += c2(n)
	}
	e := sa * sb / c2(len(a))
	return (sij - e) / (0.5*(sa+sb) - e)
}

func TestAdjustedRand(t *testing.T) {
	// Hand-computed: identical partitions (up to renaming) give 1; for
	// a = {0,0,1,1}, b = {0,1,0,1}: Σ C(n_ij,2) = 0, Σ C(a_i,2) = Σ C(b_j,2) = 2,
	// E = 2·2/6 = 2/3, ARI = (0 − 2/3)/(2 − 2/3) = −0.5.
	if got := adjustedRand([]int{0, 0, 1, 1, 1}, []int{1, 1, 0, 0, 0}); math.Abs(got-1) > 1e-12 {
		t.Errorf("got %v, want 1", got)
	}
	if got := adjustedRand([]int{0, 0, 1, 1}, []int{0, 1, 0, 1}); math.Abs(got+0.5) > 1e-12 {
		t.Errorf("got %v, want -0.5", got)
	}
}

// TestPolysemousTagsSplitBySense: the Siamese-CE instances of each planted
// polysemous tag, over all documents holding it, separate by the true sense
// (concept) of the document: ARI of a 2-means clustering ≥ 0.8 (issue 3).
func TestPolysemousTagsSplitBySense(t *testing.T) {
	tc, m := trainSmall(t)
	for _, tag := range tc.poly {
		var rows [][]float64
		var sense []int
		for i, d := range tc.c.Docs {
			if !slices.Contains(d.Tags, tag) {
				continue
			}
			v, _, err := m.Embed(VariantSiamese, d.Tags)
			if err != nil {
				t.Fatal(err)
			}
			rows = append(rows, v[tag])
			sense = append(sense, tc.sense[i])
		}
		if len(rows) < 20 {
			t.Fatalf("%s: only %d instances", tag, len(rows))
		}
		if ari := adjustedRand(twoMeans(rows), sense); ari < 0.8 {
			t.Errorf("%s: ARI %v over %d instances, want ≥ 0.8", tag, ari, len(rows))
		}
	}
}

// TestValidationAboveRandom: both networks prime far better than chance on the
// test corpus (random P@2 is the analytic expectation of randomP2).
func TestValidationAboveRandom(t *testing.T) {
	_, m := trainSmall(t)
	in := m.Info()
	if in.ValidP2CE < 2*in.ValidP2Random || in.ValidP2Siamese < 2*in.ValidP2Random {
		t.Fatalf("validation P@2: CE %v, Siamese-CE %v, random %v", in.ValidP2CE, in.ValidP2Siamese, in.ValidP2Random)
	}
	if len(in.Log) == 0 {
		t.Fatal("empty training log")
	}
}

// TestEmbedderMatchesNetwork checks the batched CE inference (first layer split
// into a precomputed term part and a per-document context part, deeper layers
// through nn) against the plain forward pass of the whole network on the
// concatenated input x = (t(τ), l(δ)) (nn.MLP.ForwardTo up to the CE layer).
// Weights scaled ×8 saturate layer 1, exercising the direct-tanh fallback of
// the addition theorem.
func TestEmbedderMatchesNetwork(t *testing.T) {
	for _, tc := range []struct {
		hidden []int
		scale  float64
	}{{[]int{4}, 1}, {[]int{6, 3}, 1}, {[]int{7, 5, 3}, 1}, {[]int{6, 3}, 8}} {
		hidden := tc.hidden
		rng := rand.New(rand.NewPCG(8, uint64(len(hidden))))
		const dt, dc, v = 5, 3, 9
		sizes := append(append([]int{dt + dc}, hidden...), v)
		net := nn.NewMLP(sizes, rng)
		for i := range net.Params {
			net.Params[i] = tc.scale * (net.Params[i] + 0.1*rng.NormFloat64()) // non-zero biases too
		}
		termX := make([][]float64, v)
		for i := range termX {
			termX[i] = make([]float64, dt)
			for j := range termX[i] {
				termX[i][j] = 2*rng.Float64() - 1
			}
		}
		ctx := []float64{0.3, -0.8, 0.5}
		e := newEmbedder(sizes, net.Params, termX, dc)
		d := e.ceDim()
		got := make([]float64, v*d)
		e.embedVocab(got, ctx)
		x := mat.NewDense(v, dt+dc, nil)
		for i := range termX {
			copy(x.RawRowView(i), append(slices.Clone(termX[i]), ctx...))
		}
		ws := nn.NewWorkspace(sizes, v)
		H := net.Layers()
		net.ForwardTo(ws, x, H-1)
		want := ws.Out(H - 1)
		terms := []int{7, 2}
		sub := make([]float64, len(terms)*d)
		e.embedTerms(sub, terms, ctx)
		one := make([]float64, d)
		e.embedInput(one, termX[4], ctx)
		for i := 0; i < v; i++ {
			for k := 0; k < d; k++ {
				if w, g := want.At(i, k), got[i*d+k]; math.Abs(w-g) > 1e-12 {
					t.Fatalf("hidden %v: CE[%d][%d] = %v, want %v", hidden, i, k, g, w)
				}
			}
		}
		for r, i := range terms {
			for k := 0; k < d; k++ {
				if w, g := want.At(i, k), sub[r*d+k]; math.Abs(w-g) > 1e-12 {
					t.Fatalf("hidden %v: embedTerms[%d][%d] = %v, want %v", hidden, r, k, g, w)
				}
			}
		}
		for k := 0; k < d; k++ {
			if w, g := want.At(4, k), one[k]; math.Abs(w-g) > 1e-12 {
				t.Fatalf("hidden %v: embedInput[%d] = %v, want %v", hidden, k, g, w)
			}
		}
	}
}

// TestTermNormAndScalingRecorded trains with unit term rows and the common
// input scaling: both are recorded in Info, the term features are normalized,
// and a model file round trip keeps them and every answer. The default model
// (trainSmall, 30-odd terms) keeps Eq. 2 as printed.
func TestTermNormAndScalingRecorded(t *testing.T) {
	tc, def := trainSmall(t)
	if in := def.Info(); in.TermNorm != "none" || in.InputScaling != "per-component" || def.terms.Normalize || in.TermSmooth != 0 || def.terms.Smooth != 0 {
		t.Errorf("default model: TermNorm %q, InputScaling %q, Normalize %v, TermSmooth %v", in.TermNorm, in.InputScaling, def.terms.Normalize, in.TermSmooth)
	}
	cfg := smallConfig(7)
	cfg.MaxEpochs1, cfg.MaxEpochs2 = 2, 1
	cfg.TermNorm, cfg.InputScaling, cfg.TermSmooth = "unit", "common", 0.3
	m, err := Train(context.Background(), tc.c, tc.split, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if in := m.Info(); in.TermNorm != "unit" || in.InputScaling != "common" || !m.terms.Normalize || in.TermSmooth != 0.3 || m.terms.Smooth != 0.3 || len(m.terms.Assoc) != m.vocab.Len() {
		t.Fatalf("TermNorm %q, InputScaling %q, Normalize %v, TermSmooth %v (features %v, %d associates)", in.TermNorm, in.InputScaling, m.terms.Normalize, in.TermSmooth, m.terms.Smooth, len(m.terms.Assoc))
	}
	var buf bytes.Buffer
	if err := m.Write(&buf); err != nil {
		t.Fatal(err)
	}
	m2, err := Read(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if in := m2.Info(); in.TermNorm != "unit" || in.InputScaling != "common" || !m2.terms.Normalize || in.TermSmooth != 0.3 || m2.terms.Smooth != 0.3 || !slices.Equal(m2.terms.Assoc, m.terms.Assoc) {
		t.Fatalf("after the round trip: TermNorm %q, InputScaling %q, Normalize %v, TermSmooth %v", in.TermNorm, in.InputScaling, m2.terms.Normalize, in.TermSmooth)
	}
	// The OOV features use the same smoothing after the round trip.
	oov := [][]int{{0, 1}, {2}}
	f1, f2 := make([]float64, m.terms.Dim()), make([]float64, m.terms.Dim())
	if err := m.terms.OOVTo(f1, oov); err != nil {
		t.Fatal(err)
	}
	if err := m2.terms.OOVTo(f2, oov); err != nil || !slices.Equal(f1, f2) {
		t.Fatalf("OOV features after the round trip differ (err %v)", err)
	}
	tags := []string{"guitar", "c0_t1", "c0_t2"}
	a, _, err := m.Embed(VariantSiamese, tags)
	if err != nil {
		t.Fatal(err)
	}
	b, _, _ := m2.Embed(VariantSiamese, tags)
	for k := range a {
		for i := range a[k] {
			if a[k][i] != b[k][i] {
				t.Fatalf("%s[%d]: got %v, want %v", k, i, b[k][i], a[k][i])
			}
		}
	}
	cfg.TermNorm = "cosine"
	if _, err := Train(context.Background(), tc.c, tc.split, cfg, nil); err == nil {
		t.Error("an unknown TermNorm was accepted")
	}
}

// TestSizedDefaults checks the vocabulary-dependent defaults: the paper's
// 100-100-10 up to LargeAbove terms, LargeHidden with β = √50 above, and
// explicit settings kept.
func TestSizedDefaults(t *testing.T) {
	base := Config{}.withDefaults()
	if got := base.forVocabulary(LargeAbove); !slices.Equal(got.Hidden, []int{100, 100, 10}) || got.Beta != math.Sqrt(10) {
		t.Errorf("%d terms: Hidden %v β %v", LargeAbove, got.Hidden, got.Beta)
	}
	got := base.forVocabulary(LargeAbove + 1)
	if !slices.Equal(got.Hidden, LargeHidden) || got.Beta != math.Sqrt(50) {
		t.Errorf("%d terms: Hidden %v β %v", LargeAbove+1, got.Hidden, got.Beta)
	}
	if got.TermSmooth != DefaultTermSmooth || base.forVocabulary(LargeAbove).TermSmooth != 0 {
		t.Errorf("TermSmooth defaults: %v above %d terms, %v at it", got.TermSmooth, LargeAbove, base.forVocabulary(LargeAbove).TermSmooth)
	}
	if got := (Config{TermSmooth: -1}).withDefaults().forVocabulary(LargeAbove + 1); got.TermSmooth != 0 {
		t.Errorf("negative TermSmooth became %v, want 0 (none)", got.TermSmooth)
	}
	if got := (Config{Beta: math.Sqrt(10)}).withDefaults().forVocabulary(LargeAbove + 1); got.Beta != math.Sqrt(10) {
		t.Errorf("explicit β replaced: %v", got.Beta)
	}
	own := Config{Hidden: []int{20, 5}}.withDefaults()
	if got := own.forVocabulary(9000); !slices.Equal(got.Hidden, []int{20, 5}) {
		t.Errorf("explicit Hidden replaced: %v", got.Hidden)
	}
	if s, l := base.forVocabulary(LargeAbove), base.forVocabulary(LargeAbove+1); s.Patience != SmallPatience || s.MaxEpochs2 != SmallMaxEpochs2 ||
		l.Patience != DefaultPatience || l.MaxEpochs2 != DefaultMaxEpochs2 {
		t.Errorf("patience, stage-2 epochs: %d, %d at %d terms, %d, %d above", s.Patience, s.MaxEpochs2, LargeAbove, l.Patience, l.MaxEpochs2)
	}
	if got := (Config{Patience: 2, MaxEpochs2: 3}).withDefaults().forVocabulary(50); got.Patience != 2 || got.MaxEpochs2 != 3 {
		t.Errorf("explicit patience and stage-2 epochs replaced: %d, %d", got.Patience, got.MaxEpochs2)
	}
}

// TestTrainRejectsBadConfig: settings outside their range are refused before
// any work, with the setting named.
func TestTrainRejectsBadConfig(t *testing.T) {
	c := &corpus.Corpus{Name: "tiny", Docs: []corpus.Document{{ID: "a", Tags: []string{"x", "y"}}, {ID: "b", Tags: []string{"y", "z"}}}}
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{Average: 1}, "average: 1"},
		{Config{Average: math.NaN()}, "average: NaN"},
		{Config{Decay: 1.5}, "decay: 1.5"},
		{Config{WithinDoc: 2}, "within_doc: 2"},
		{Config{LearningRate: -1}, "learning_rate: -1"},
		{Config{TermSmooth: math.Inf(1)}, "term_smooth: +Inf"},
	} {
		_, err := Train(context.Background(), c, corpus.Split{Train: []int{0, 1}}, tc.cfg, nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error naming it", tc.want, err)
		}
	}
}

// TestStage2Start checks Config.Stage2Start: with Stage2Best stage 2 starts
// from the best stage-1 weights and no extra pilot runs; with Stage2Choose a
// pilot from the weights of stage 1's first evaluation runs whenever those are
// not the best ones, and Info.Stage2From names the epoch stage 2 started from
// (and survives the model file).
func TestStage2Start(t *testing.T) {
	tc := makeTestCorpus(1, 600)
	models := map[string]*Model{}
	for _, start := range Stage2Starts {
		cfg := smallConfig(7)
		cfg.Stage2Start = start
		// Short first epochs, so that stage 1 improves after its first one.
		cfg.EpochExamples, cfg.Average, cfg.PretrainIterations = 1000, -1, -1
		m, err := Train(context.Background(), tc.c, tc.split, cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		in := m.Info()
		var extra []LogEntry
		for _, l := range in.Log {
			if strings.Contains(l.Stage, "from stage-1 epoch") {
				extra = append(extra, l)
			}
		}
		switch {
		case start == Stage2Best && (len(extra) > 0 || in.Stage2From != in.BestEpoch1):
			t.Errorf("%s: %d extra pilots, stage 2 from epoch %d; want none, from the best epoch %d", start, len(extra), in.Stage2From, in.BestEpoch1)
		case start == Stage2Choose && in.BestEpoch1 == 1:
			t.Errorf("%s: the best stage-1 epoch is the first: the test needs another configuration", start)
		case start == Stage2Choose && len(extra) != 1:
			t.Errorf("%s: best stage-1 epoch %d and %d pilots from the first epoch; want one", start, in.BestEpoch1, len(extra))
		case start == Stage2Choose && in.Stage2From != 1 && in.Stage2From != in.BestEpoch1:
			t.Errorf("%s: stage 2 from epoch %d; want 1 or the best epoch %d", start, in.Stage2From, in.BestEpoch1)
		}
		var buf bytes.Buffer
		if err := m.Write(&buf); err != nil {
			t.Fatal(err)
		}
		m2, err := Read(&buf)
		if err != nil {
			t.Fatal(err)
		}
		if got := m2.Info().Stage2From; got != in.Stage2From {
			t.Errorf("%s: Stage2From %d after the round trip, want %d", start, got, in.Stage2From)
		}
		t.Logf("%s: best stage-1 epoch %d, stage 2 from epoch %d, validation MAP %.4f", start, in.BestEpoch1, in.Stage2From, in.ValidMAPSiamese)
		models[start] = m
	}
	// A losing pilot leaves no trace in the weights: its pairs and column
	// samples come from streams of their own.
	c, b := models[Stage2Choose], models[Stage2Best]
	if c.Info().Stage2From != c.Info().BestEpoch1 {
		t.Fatal("the pilot from the first epoch won: the test needs a configuration where it loses")
	}
	if !slices.Equal(c.params[VariantSiamese], b.params[VariantSiamese]) {
		t.Error("the pilot from the first epoch lost, yet the Siamese-CE weights differ from those of Stage2Best")
	}
}

// TestTrainSameBytesAnyLoad trains the same configuration once on one
// processor and once on two with a CPU-bound goroutine beside it: without an
// explicit time limit, nothing of the machine's speed or scheduling may reach
// the model file.
func TestTrainSameBytesAnyLoad(t *testing.T) {
	tc := makeTestCorpus(1, 600)
	train := func(procs int, busy bool) []byte {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		stop := make(chan struct{})
		var wg sync.WaitGroup
		if busy {
			wg.Add(1)
			go func() {
				defer wg.Done()
				x := 1.0
				for {
					select {
					case <-stop:
						return
					default:
					}
					for i := 0; i < 1e5; i++ {
						x = x*1.0000001 + 1e-9
					}
				}
			}()
		}
		m, err := Train(context.Background(), tc.c, tc.split, smallConfig(11), nil)
		close(stop)
		wg.Wait()
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := m.Write(&buf); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	quiet := train(1, false)
	loaded := train(2, true)
	if !bytes.Equal(quiet, loaded) {
		t.Fatalf("GOMAXPROCS=1 and GOMAXPROCS=2 under load gave different model files (%d and %d bytes)", len(quiet), len(loaded))
	}
}

// TestMaxTimeCutsTraining checks that an explicit wall-clock limit still
// works: a limit far below the training time ends both stages early and says
// so in their stop reasons.
func TestMaxTimeCutsTraining(t *testing.T) {
	tc := makeTestCorpus(1, 600)
	// A limit too short for LDA: an error that says so, not a half-fitted context.
	cfg := smallConfig(7)
	cfg.MaxTime = time.Millisecond
	if _, err := Train(context.Background(), tc.c, tc.split, cfg, nil); err == nil || !strings.Contains(err.Error(), "time limit") || !strings.Contains(err.Error(), "LDA") {
		t.Fatalf("1 ms limit: got %v, want an error naming the time limit and LDA", err)
	}
	// A limit reached during stage 1 (the clock is moved two hours on after the
	// first epoch, so the test does not depend on the machine's speed): both
	// stages stop after one epoch and say why.
	cfg = smallConfig(7)
	cfg.MaxTime = time.Hour
	cfg.Patience = 100
	cfg.epochHook = func(stage string, epoch int, tr *trainer) {
		if stage == "stage1" && epoch == 1 {
			tr.start = tr.start.Add(-2 * time.Hour)
		}
	}
	m, err := Train(context.Background(), tc.c, tc.split, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	in := m.Info()
	if in.StopReason1 != "time limit" || in.StopReason2 != "time limit" {
		t.Fatalf("stop reasons %q, %q: want the time limit for both stages", in.StopReason1, in.StopReason2)
	}
	if in.Epochs1 != 1 || in.Epochs2 != 1 {
		t.Fatalf("epochs %d, %d after the limit: want 1 and 1", in.Epochs1, in.Epochs2)
	}
}

// TestTermCentroids checks ce.Model.TermCentroids against the mean of
// EmbedDocument's rows over the documents holding each term.
func TestTermCentroids(t *testing.T) {
	tc, m := trainSmall(t)
	var docs [][]string
	for _, i := range tc.split.Train[:200] {
		docs = append(docs, tc.c.Docs[i].Tags)
	}
	docs = append(docs, []string{"not-a-tag"}) // skipped: nothing in the vocabulary
	got, counts, err := m.TermCentroids(context.Background(), VariantSiamese, docs)
	if err != nil {
		t.Fatal(err)
	}
	v := m.Vocabulary().Len()
	want := make([][]float64, v)
	n := make([]int, v)
	for _, d := range docs[:len(docs)-1] {
		ids, _, vecs, _, err := m.EmbedDocument(VariantSiamese, d)
		if err != nil {
			t.Fatal(err)
		}
		for k, id := range ids {
			if want[id] == nil {
				want[id] = make([]float64, len(vecs[k]))
			}
			for j, x := range vecs[k] {
				want[id][j] += x
			}
			n[id]++
		}
	}
	for id := range v {
		if counts[id] != n[id] {
			t.Fatalf("term %d: %d documents, want %d", id, counts[id], n[id])
		}
		for j := range got[id] {
			w := 0.0
			if n[id] > 0 {
				w = want[id][j] / float64(n[id])
			}
			if math.Abs(got[id][j]-w) > 1e-12 {
				t.Fatalf("term %d, dimension %d: %v, want %v", id, j, got[id][j], w)
			}
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := m.TermCentroids(ctx, VariantSiamese, docs); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: got %v", err)
	}
	if _, _, err := m.TermCentroids(context.Background(), "word2vec", docs); err == nil {
		t.Error("an unknown variant was accepted")
	}
}
