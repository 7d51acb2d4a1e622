package ce

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// TestStage2KeepsCE: with a stage-2 step so large that no epoch can score as
// CE does, Siamese-CE is CE's network bit for bit, with its validation figures
// and widths, kept epoch 0 and the reason in the stop reason; the ordinary
// small training keeps an epoch of its own only when it ranks better. In both,
// Siamese-CE's validation extended MAP with its widths (the default criterion
// and width fit) is not below CE's.
func TestStage2KeepsCE(t *testing.T) {
	tc := makeTestCorpus(3, 300)
	cfg := smallConfig(5)
	cfg.MaxEpochs1, cfg.MaxEpochs2, cfg.Alpha, cfg.Lambda = 3, 2, 1, 1
	cfg.LearningRate2 = 10 // every step of Eq. 7 far off the stage-1 optimum
	m, err := Train(context.Background(), tc.c, tc.split, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	in := m.Info()
	var best2 float64
	for _, e := range in.Log {
		if e.Stage == "stage2" {
			best2 = max(best2, e.ValidMAP)
		}
	}
	if best2 >= in.ValidMAPCE {
		t.Fatalf("stage 2 scored %v against CE's %v: the test's step does not break stage 2", best2, in.ValidMAPCE)
	}
	if in.BestEpoch2 != 0 || in.ValidMAPSiamese != in.ValidMAPCE || in.ValidP2Siamese != in.ValidP2CE ||
		in.WidthSiamese != in.WidthCE || in.ValidMAPWidthSiamese != in.ValidMAPWidthCE {
		t.Errorf("kept epoch %d, validation MAP %v (CE %v), P@2 %v (CE %v); want epoch 0 and CE's figures",
			in.BestEpoch2, in.ValidMAPSiamese, in.ValidMAPCE, in.ValidP2Siamese, in.ValidP2CE)
	}
	if !slices.Equal(m.params[VariantSiamese], m.params[VariantCE]) {
		t.Error("Siamese-CE's weights are not CE's")
	}
	if !strings.Contains(in.StopReason2, "Siamese-CE keeps it") {
		t.Errorf("stop reason %q does not say that Siamese-CE is CE's network", in.StopReason2)
	}

	_, small := trainSmall(t)
	sin := small.Info()
	if sin.ValidMAPWidthSiamese < sin.ValidMAPWidthCE {
		t.Errorf("small training: Siamese-CE's validation MAP with widths %v below CE's %v", sin.ValidMAPWidthSiamese, sin.ValidMAPWidthCE)
	}
	if sin.BestEpoch2 > 0 && slices.Equal(small.params[VariantSiamese], small.params[VariantCE]) {
		t.Error("small training: stage 2 kept an epoch, yet Siamese-CE's weights are CE's")
	}
}
