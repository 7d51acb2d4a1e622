package server

import (
	"encoding/json"
	"strings"
	"testing"
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
