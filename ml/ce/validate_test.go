package ce

import (
	"errors"
	"math"
	"testing"
	"time"
)

func TestConfigValidate(t *testing.T) {
	if err := (Config{}).Validate(); err != nil {
		t.Fatalf("the zero Config (all defaults): %v", err)
	}
	ok := []Config{
		{Hidden: []int{100, 100, 50}, Topics: MaxTopics, LearningRate: 0.1, Momentum: -1, Average: -1, WithinDoc: -1,
			TermSmooth: -1, Kappa: KappaPrinted, Stage2Start: Stage2Best, EarlyStop: EarlyStopP2, TermNorm: "unit", InputScaling: "common", MaxTime: time.Hour},
	}
	for _, c := range ok {
		if err := c.Validate(); err != nil {
			t.Errorf("%+v: %v", c, err)
		}
	}
	bad := []struct {
		c     Config
		param string
	}{
		{Config{Hidden: []int{10, 0}}, "hidden"},
		{Config{Hidden: make([]int, MaxHiddenLayers+1)}, "hidden"},
		{Config{Topics: -1}, "topics"},
		{Config{Topics: MaxTopics + 1}, "topics"},
		{Config{BatchSize: -5}, "batch_size"},
		{Config{LearningRate: math.NaN()}, "learning_rate"},
		{Config{LearningRate: MaxLearningRate + 1}, "learning_rate"},
		{Config{Momentum: 1}, "momentum"},
		{Config{Decay: 1.5}, "decay"},
		{Config{MaxEpochs1: -1}, "max_epochs1"},
		{Config{MaxEpochs2: MaxEpochs + 1}, "max_epochs2"},
		{Config{Patience: -1}, "patience"},
		{Config{Stage2Start: "first"}, "stage2_start"},
		{Config{EpochExamples: -1}, "epoch_examples"},
		{Config{MaxTime: -time.Second}, "max_time"},
		{Config{MaxTime: MaxTrainTime + time.Second}, "max_time"},
		{Config{Alpha: -1}, "alpha"},
		{Config{Lambda: math.Inf(1)}, "lambda"},
		{Config{WithinDoc: 1.5}, "within_doc"},
		{Config{TermSmooth: math.NaN()}, "term_smooth"},
		{Config{TermDim: -1}, "term_dim"},
		{Config{TermDim: MaxTermDim + 1}, "term_dim"},
		{Config{Average: 1}, "average"},
		{Config{EarlyStop: "loss"}, "early_stop"},
		{Config{Kappa: "heavy"}, "kappa"},
		{Config{TermNorm: "l2"}, "term_norm"},
		{Config{InputScaling: "minmax"}, "input_scaling"},
	}
	for _, b := range bad {
		err := b.c.Validate()
		var pe *ParamError
		if !errors.As(err, &pe) || pe.Param != b.param {
			t.Errorf("%+v: got %v, want a ParamError for %s", b.c, err, b.param)
		}
	}
}

func TestEpochsLeft(t *testing.T) {
	for _, c := range []struct{ epoch, best, patience, every, max, want int }{
		{5, 5, 6, 1, 30, 6},   // a new best: patience epochs to go
		{8, 5, 6, 1, 30, 3},   // three evaluations without a better one
		{11, 5, 6, 1, 30, 0},  // patience exhausted
		{28, 27, 6, 1, 30, 2}, // the maximum comes first
		{4, 2, 3, 2, 30, 4},   // evaluations every 2 epochs
	} {
		if got := epochsLeft(c.epoch, c.best, c.patience, c.every, c.max); got != c.want {
			t.Errorf("epochsLeft(%d, %d, %d, %d, %d) = %d, want %d", c.epoch, c.best, c.patience, c.every, c.max, got, c.want)
		}
	}
}
