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
	"slices"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/mat"

	"github.com/taglens/taglens/ml/corpus"
	"github.com/taglens/taglens/ml/eval"
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
	for _, v := range Variants {
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
		group  int // > 1: the ranking loss (nn.GroupLoss) on sampleGroups' groups
		anchor int // > 1: its set form on sampleSetGroups' groups of group/anchor candidates
	}{
		{"stage1-exact", -1, 1, 0, 0},
		{"stage1-sampled", 4, 1, 0, 0},
		{"stage2-exact", -1, 2, 0, 0},
		{"stage2-sampled", 4, 2, 0, 0},
		{"stage2-ranking-exact", -1, 2, 4, 0},
		{"stage2-ranking-sampled", 4, 2, 4, 0},
		{"stage2-set-exact", -1, 2, 4, 2},
		{"stage2-set-sampled", 4, 2, 4, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := benchTrainer(4, 3, 12, Config{Hidden: []int{6, 3}, BatchSize: 8, OutputSample: tc.sample})
			const alpha, lambda = 0.7, 2.0
			sc := nn.SiameseConfig{Beta: math.Sqrt(3), Rho: 0.5, Group: tc.group, Temperature: 2, Anchors: tc.anchor}
			s := tr.step
			if tc.stage == 1 {
				s.fill1(tr.set.epochExamples(tr.rng, 8, nil))
			} else {
				ps := make([]pair, 8)
				if tc.anchor > 1 {
					tr.set.sampleSetGroups(tr.rng, tc.group/tc.anchor, tc.anchor, ps, nil)
				} else if tc.group > 1 {
					tr.set.sampleGroups(tr.rng, tc.group, ps)
				} else {
					tr.set.samplePairs(tr.rng, 0.5, 0.5, ps)
				}
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
		e := newEmbedder(sizes, net.Params, termX, dc, 0)
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

// roundTrip writes m to a buffer and reads it back.
func roundTrip(t *testing.T, m *Model) *Model {
	t.Helper()
	var buf bytes.Buffer
	if err := m.Write(&buf); err != nil {
		t.Fatal(err)
	}
	m2, err := Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return m2
}

// TestResultKeySiameseAsCE checks the result keys: CE and Siamese-CE differ
// while their networks differ, and are one once Siamese-CE holds CE's
// parameters (keepCE), so a comparison ranks once for both.
func TestResultKeySiameseAsCE(t *testing.T) {
	_, m := trainSmall(t)
	key := func(v Variant) string { return m.EvalModel(v).(eval.SharedResultModel).ResultKey() }
	if key(VariantCE) == key(VariantSiamese) && !m.siameseIsCE() {
		t.Fatal("different networks share a result key")
	}
	c := roundTrip(t, m)
	c.params = map[Variant][]float64{VariantCE: c.params[VariantCE], VariantSiamese: slices.Clone(c.params[VariantCE])}
	c.info.WidthSiamese = c.info.WidthCE
	c.init()
	if !c.siameseIsCE() {
		t.Fatal("Siamese-CE with CE's parameters and widths is not CE")
	}
	if a, b := c.EvalModel(VariantCE).(eval.SharedResultModel).ResultKey(), c.EvalModel(VariantSiamese).(eval.SharedResultModel).ResultKey(); a != b {
		t.Errorf("keys %q and %q, want one", a, b)
	}
}
