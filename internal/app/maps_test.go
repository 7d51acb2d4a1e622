package app

import (
	"context"
	"strings"
	"testing"

	"github.com/taglens/taglens/ml/corpus"
)

func TestInstanceMap(t *testing.T) {
	m, c, _ := demoModel(t)
	term := "guitar"
	var stages []string
	im := &InstanceMap{Model: m, Variant: "ce", Term: term, Corpora: []*corpus.Corpus{c}, MaxPoints: 50,
		Progress: func(_ float64, stage, _ string) { stages = append(stages, stage) }}
	pts, emb, err := im.Compute(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(pts) < MinMapPoints || len(pts) > 50+20 || len(emb.Y) != len(pts) {
		t.Fatalf("%d points, %d embedded: want at least %d, about 50 at most", len(pts), len(emb.Y), MinMapPoints)
	}
	for _, p := range pts {
		if p.Term != term || p.Kind != "instance" || p.Corpus != c.Name || p.X != Round4(p.X) {
			t.Fatalf("point %+v", p)
		}
	}
	if len(stages) == 0 || stages[0] != "embedding" {
		t.Errorf("progress stages %v", stages)
	}
	im.Term = "no-such-term"
	if _, _, err := im.Compute(context.Background()); err == nil || !strings.Contains(err.Error(), "at least 4") {
		t.Errorf("a term without instances: %v", err)
	}
}
