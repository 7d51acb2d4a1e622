package server

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/taglens/taglens/server/store"
)

// The explorer's tooltip lists a document's tags: it must stay inside the chart
// and wrap instead of running off the right edge on one line.
func TestMapChartTooltipWraps(t *testing.T) {
	c := mapChart("map")
	var opt struct {
		Tooltip map[string]any `json:"tooltip"`
	}
	b, err := json.Marshal(c.Option)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &opt); err != nil {
		t.Fatalf("option %s: %v", b, err)
	}
	tt := opt.Tooltip
	if tt["confine"] != true {
		t.Errorf("tooltip confine: got %v, want true", tt["confine"])
	}
	css, _ := tt["extraCssText"].(string)
	for _, want := range []string{"max-width", "white-space: normal", "overflow-wrap"} {
		if !strings.Contains(css, want) {
			t.Errorf("tooltip extraCssText %q lacks %q", css, want)
		}
	}
	if tt["trigger"] != "item" || tt["show"] != true {
		t.Errorf("tooltip: %v, want an item tooltip shown", tt)
	}
}

// TestTrainingChartPlotsCriterion: the training chart's right axis plots each
// evaluation's validation extended MAP, the default early-stopping
// criterion, and a curve stored without it (before it was recorded) its P@2,
// named as such.
func TestTrainingChartPlotsCriterion(t *testing.T) {
	f := func(x float64) *float64 { return &x }
	withMAP := []store.TrainPoint{{Stage: "stage1", Epoch: 1, Loss: 1, ValidP2: f(0.6), ValidMAP: f(0.2)},
		{Stage: "stage2", Epoch: 1, Loss: 0.5, ValidP2: f(0.7), ValidMAP: f(0.3)}}
	older := []store.TrainPoint{{Stage: "stage1", Epoch: 1, Loss: 1, ValidP2: f(0.6)}}
	for _, c := range []struct {
		log        []store.TrainPoint
		axis, name string
		ce         float64
	}{{withMAP, "validation extended MAP", "MAP CE", 0.2}, {older, "validation P@2", "P@2 CE", 0.6}} {
		var opt struct {
			YAxis  []struct{ Name string } `json:"yAxis"`
			Series []struct {
				Name string
				Data []struct{ Value []float64 }
			} `json:"series"`
		}
		b, err := json.Marshal(trainingChart("curve", c.log).Option)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &opt); err != nil {
			t.Fatalf("option %s: %v", b, err)
		}
		if len(opt.YAxis) != 2 || opt.YAxis[1].Name != c.axis || len(opt.Series) != 4 || opt.Series[2].Name != c.name ||
			len(opt.Series[2].Data) != 1 || opt.Series[2].Data[0].Value[1] != c.ce {
			t.Errorf("chart %s: want the right axis %q and series 2 %q at %v", b, c.axis, c.name, c.ce)
		}
	}
}
