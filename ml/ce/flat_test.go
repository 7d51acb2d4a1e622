package ce

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestFlatStage1Bound checks which first two epochs count as a flat stage 1:
// losses at Eq. 5's all-zero-output value after stage 0 do, and only with
// FlatRestart or FlatStop, once, and when stage 1 has a third epoch to run.
func TestFlatStage1Bound(t *testing.T) {
	cases := []struct {
		name       string
		losses     []float64
		mode       string
		pretrained bool
		restarted  string
		maxEpochs  int
		want       bool
	}{
		{"edict-glosses' seed 1", []float64{4.0e-4, 8.1e-6}, FlatRestart, true, "", 30, true},
		{"edict-glosses' seed 2", []float64{7.2e-4, 9.6e-6}, FlatRestart, true, "", 30, true},
		{"slightly negative", []float64{-0.005, -0.0009}, FlatRestart, true, "", 30, true},
		{"citeulike-a's slow start", []float64{-0.0017, -0.093}, FlatRestart, true, "", 30, false},
		{"the small test corpus", []float64{0.025, 0.014}, FlatRestart, true, "", 30, false},
		{"crosses zero in epoch 2", []float64{0.02, 0.0005}, FlatRestart, true, "", 30, false},
		{"one epoch so far", []float64{4e-4}, FlatRestart, true, "", 30, false},
		{"the paper's setting", []float64{4e-4, 8e-6}, FlatKeep, true, "", 30, false},
		{"no stage 0", []float64{4e-4, 8e-6}, FlatRestart, false, "", 30, false},
		{"restarted already", []float64{4e-4, 8e-6}, FlatRestart, true, "once", 30, false},
		{"two epochs in all", []float64{4e-4, 8e-6}, FlatRestart, true, "", 2, false},
		{"stop: edict-glosses' seed 1", []float64{4.0e-4, 8.1e-6}, FlatStop, true, "", 30, true},
		{"stop: citeulike-a's slow start", []float64{-0.0017, -0.093}, FlatStop, true, "", 30, false},
		{"stop: no stage 0", []float64{4e-4, 8e-6}, FlatStop, false, "", 30, false},
	}
	for _, c := range cases {
		tr := &trainer{cfg: Config{FlatStage1: c.mode, MaxEpochs1: c.maxEpochs}, m: &Model{}}
		tr.m.info.Pretrained = c.pretrained
		tr.m.info.Stage1Restart = c.restarted
		if got := tr.flat(c.losses); got != c.want {
			t.Errorf("%s: flat(%v) = %v, want %v", c.name, c.losses, got, c.want)
		}
	}
}

// TestFlatStopExpected checks when the time estimate after stage 1's first
// epoch expects FlatStop to end stage 1 after the second: only with FlatStop,
// after one epoch whose loss flat would accept as a first.
func TestFlatStopExpected(t *testing.T) {
	cases := []struct {
		name       string
		losses     []float64
		mode       string
		pretrained bool
		want       bool
	}{
		{"edict-glosses' seed 1, epoch 1", []float64{4.0e-4}, FlatStop, true, true},
		{"slightly negative", []float64{-0.005}, FlatStop, true, true},
		{"the small test corpus", []float64{0.025}, FlatStop, true, false},
		{"after epoch 2", []float64{4.0e-4, 8.1e-6}, FlatStop, true, false},
		{"the paper's setting", []float64{4e-4}, FlatKeep, true, false},
		{"restart runs on", []float64{4e-4}, FlatRestart, true, false},
		{"no stage 0", []float64{4e-4}, FlatStop, false, false},
	}
	for _, c := range cases {
		tr := &trainer{cfg: Config{FlatStage1: c.mode, MaxEpochs1: 30}, m: &Model{}}
		tr.m.info.Pretrained = c.pretrained
		if got := tr.flatStopExpected(c.losses); got != c.want {
			t.Errorf("%s: flatStopExpected(%v) = %v, want %v", c.name, c.losses, got, c.want)
		}
	}
}

// TestFlatStage1Restart forces the restart (every loss counts as flat) and
// checks that the default stops stage 1 without a restart, that FlatRestart starts it
// again once, from epoch 1 with a fresh log, that the model says so, that the
// file is still a function of the seed, and that FlatKeep and a training
// whose loss falls leave stage 1 alone.
func TestFlatStage1Restart(t *testing.T) {
	tc := makeTestCorpus(1, 600)
	train := func(cfg Config) *Model {
		t.Helper()
		m, err := Train(context.Background(), tc.c, tc.split, cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	cfg := smallConfig(7)
	cfg.flatLoss = 10 // |Eq. 5| is below 1: every stage 1 is flat
	if in := train(cfg).Info(); in.Stage1Restart != "" || !strings.HasPrefix(in.StopReason1, "flat: ") {
		t.Fatalf("the default (%s) restarted stage 1 (%q) or did not stop it (%q)", FlatStop, in.Stage1Restart, in.StopReason1)
	}
	cfg.FlatStage1 = FlatRestart
	m := train(cfg)
	in := m.Info()
	if !strings.Contains(in.Stage1Restart, "started again from random initial weights") {
		t.Fatalf("forced restart: Stage1Restart = %q", in.Stage1Restart)
	}
	if !strings.Contains(in.ValidationNote(), "stage 1 started again") {
		t.Errorf("the validation note does not say stage 1 started again: %q", in.ValidationNote())
	}
	var epochs []int
	for _, e := range in.Log {
		if e.Stage == "stage1" {
			epochs = append(epochs, e.Epoch)
		}
	}
	if len(epochs) == 0 || epochs[0] != 1 {
		t.Fatalf("stage-1 log epochs after the restart %v, want them to start at 1", epochs)
	}
	for i := 1; i < len(epochs); i++ {
		if epochs[i] <= epochs[i-1] {
			t.Fatalf("stage-1 log epochs %v: the flat attempt's entries are still there", epochs)
		}
	}
	if in.Epochs1 > cfg.MaxEpochs1 || in.BestEpoch1 > in.Epochs1 {
		t.Errorf("epochs1 %d, best %d: the restarted stage 1 counts its epochs from 1 up to %d", in.Epochs1, in.BestEpoch1, cfg.MaxEpochs1)
	}
	var a, b bytes.Buffer
	if err := m.Write(&a); err != nil {
		t.Fatal(err)
	}
	if err := train(cfg).Write(&b); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("a restarted training gave two different model files for one seed")
	}

	keep := cfg
	keep.FlatStage1 = FlatKeep
	if r := train(keep).Info().Stage1Restart; r != "" {
		t.Errorf("FlatKeep restarted stage 1: %q", r)
	}
	// The small corpus's first loss is above 10·FlatLoss: no restart.
	natural := cfg
	natural.flatLoss = 0
	plain := train(natural)
	if r := plain.Info().Stage1Restart; r != "" {
		t.Errorf("a stage 1 that learns was restarted: %q", r)
	}
	var c bytes.Buffer
	if err := plain.Write(&c); err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(a.Bytes(), c.Bytes()) {
		t.Error("the restarted training wrote the same file as the one without a restart")
	}
}

// TestFlatStage1Stop forces a flat stage 1 (every loss counts as flat) and
// checks that FlatStop ends it after its second epoch, both epochs validated,
// that stage 2 starts from the better of the two and runs as usual, that the
// model says why stage 1 stopped, and that the file is a function of the seed.
func TestFlatStage1Stop(t *testing.T) {
	tc := makeTestCorpus(1, 600)
	cfg := smallConfig(7)
	cfg.flatLoss = 10 // |Eq. 5| is below 1: every stage 1 is flat
	cfg.FlatStage1 = FlatStop
	train := func() *Model {
		t.Helper()
		m, err := Train(context.Background(), tc.c, tc.split, cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	m := train()
	in := m.Info()
	if in.Epochs1 != 2 || !strings.HasPrefix(in.StopReason1, "flat: ") {
		t.Fatalf("stage 1 ran %d epochs, stop reason %q; want 2 and the flat reason", in.Epochs1, in.StopReason1)
	}
	if in.Stage1Restart != "" {
		t.Errorf("FlatStop restarted stage 1: %q", in.Stage1Restart)
	}
	if !strings.Contains(in.ValidationNote(), "stage 1 stopped after its second epoch") {
		t.Errorf("the validation note does not say stage 1 stopped: %q", in.ValidationNote())
	}
	var stage1 []LogEntry
	for _, e := range in.Log {
		if e.Stage == "stage1" {
			stage1 = append(stage1, e)
		}
	}
	if len(stage1) != 2 || stage1[0].Epoch != 1 || stage1[1].Epoch != 2 {
		t.Fatalf("stage-1 log %+v, want epochs 1 and 2", stage1)
	}
	best := 1
	if stage1[1].ValidMAP > stage1[0].ValidMAP {
		best = 2
	}
	if in.BestEpoch1 != best || in.Stage2From != best {
		t.Errorf("best stage-1 epoch %d, stage 2 from %d; want both %d (validation MAP %v, %v)", in.BestEpoch1, in.Stage2From, best, stage1[0].ValidMAP, stage1[1].ValidMAP)
	}
	if in.Epochs2 < 1 {
		t.Errorf("stage 2 ran %d epochs after a stopped stage 1", in.Epochs2)
	}
	var a, b bytes.Buffer
	if err := m.Write(&a); err != nil {
		t.Fatal(err)
	}
	if err := train().Write(&b); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("a stopped stage 1 gave two different model files for one seed")
	}
}
