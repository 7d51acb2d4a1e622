package ce

import (
	"bytes"
	"context"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/taglens/taglens/ml/corpus"
)

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
	// A flat stage 1 stops up to SampleAbove terms and goes on above, where
	// the epoch limits bound it; an explicit choice stays.
	if s, l := base.forVocabulary(SampleAbove), base.forVocabulary(SampleAbove+1); s.FlatStage1 != FlatStop || l.FlatStage1 != FlatKeep {
		t.Errorf("flat stage 1: %q at %d terms, %q above", s.FlatStage1, SampleAbove, l.FlatStage1)
	}
	if got := (Config{FlatStage1: FlatRestart}).withDefaults().forVocabulary(SampleAbove + 1); got.FlatStage1 != FlatRestart {
		t.Errorf("explicit flat stage 1 replaced: %q", got.FlatStage1)
	}
	// The epoch limits: 30 and 20 up to SampleAbove terms, the large ones above.
	if s, l := base.forVocabulary(SampleAbove), base.forVocabulary(SampleAbove+1); s.MaxEpochs1 != DefaultMaxEpochs1 || s.MaxEpochs2 != DefaultMaxEpochs2 ||
		l.MaxEpochs1 != LargeMaxEpochs1 || l.MaxEpochs2 != LargeMaxEpochs2 {
		t.Errorf("epoch limits: %d, %d at %d terms, %d, %d above", s.MaxEpochs1, s.MaxEpochs2, SampleAbove, l.MaxEpochs1, l.MaxEpochs2)
	}
	if got := (Config{MaxEpochs1: 30, MaxEpochs2: 20}).withDefaults().forVocabulary(SampleAbove + 1); got.MaxEpochs1 != 30 || got.MaxEpochs2 != 20 {
		t.Errorf("explicit epoch limits replaced: %d, %d", got.MaxEpochs1, got.MaxEpochs2)
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

// TestStage2StartDefault: without a choice, stage 2 starts from the best
// stage-1 weights up to Stage2ChooseAbove terms and chooses above; a choice
// stays.
func TestStage2StartDefault(t *testing.T) {
	for _, tc := range []struct {
		set   string
		terms int
		want  string
	}{
		{"", 100, Stage2Best}, {"", Stage2ChooseAbove, Stage2Best}, {"", Stage2ChooseAbove + 1, Stage2Choose},
		{Stage2Choose, 100, Stage2Choose}, {Stage2Best, 9000, Stage2Best},
	} {
		c := Config{Stage2Start: tc.set}.withDefaults().forVocabulary(tc.terms)
		if c.Stage2Start != tc.want {
			t.Errorf("Stage2Start %q, %d terms: got %q, want %q", tc.set, tc.terms, c.Stage2Start, tc.want)
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
		m2 := roundTrip(t, m)
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
