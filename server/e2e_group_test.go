package server

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestBrowserSeedGroup walks the seed-group journey in headless Chromium:
// train three seeds from the form, open the comparison it leads to (the group
// chosen, "seed trials" ticked), run it against baselines, and find CE and
// Siamese-CE with error bars over the seeds (a standard error that is not
// zero) in the score table.
func TestBrowserSeedGroup(t *testing.T) {
	ctx := browser(t)
	ts := newTestServer(t, Config{})
	c := decode[corpusJSON](t, ts.upload("songs.tsv", smallTSV()))
	base := liveServer(t, ts)
	fast := map[string]string{"hidden": "24,10", "max_epochs1": "3", "max_epochs2": "2",
		"patience": "1", "epoch_examples": "4000", "alpha": "0.1", "lambda": "2", "topics": "8"}
	actions := []chromedp.Action[chromedp.Void]{chromedp.Navigate(base + "/train?corpus=" + c.ID),
		chromedp.SetValue(`input[name="name"]`, "group"), chromedp.SetValue(tid("train-seeds"), "3")}
	for k, v := range fast {
		actions = append(actions, chromedp.SetValue(tid("param-"+k), v))
	}
	actions = append(actions, chromedp.Click(tid("train-submit")), chromedp.WaitVisible(tid("seed-group")))
	step(t, ctx, "train three seeds", time.Minute, actions...)
	loc, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(loc)
	if err != nil {
		t.Fatal(err)
	}
	ids := strings.Split(u.Query().Get("group"), ",")
	if len(ids) != 3 || u.Query().Get("seed_trials") == "" {
		t.Fatalf("the form led to %s; want a group of 3 with seed trials", loc)
	}
	for _, id := range ids {
		m, err := ts.store.Model(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		if j := ts.waitJob(m.JobID); j.State != JobDone {
			t.Fatalf("training %s: %s %s", id, j.State, j.Message)
		}
	}
	step(t, ctx, "compare the group", 3*time.Minute,
		chromedp.Reload(),
		chromedp.WaitVisible(tid("seed-group")),
	)
	checked, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="compare-models"] input:checked').length +
		(document.querySelector('input[name="seed_trials"]').checked ? 10 : 0)`))
	if err != nil || checked != 13 {
		t.Fatalf("the compare form has %d models chosen and seed trials %v (%v); want the 3 of the group, ticked", checked%10, checked >= 10, err)
	}
	step(t, ctx, "run", time.Minute, chromedp.Click(tid("compare-submit")))
	waitJS(t, ctx, "compare charts", 3*time.Minute,
		`!!document.querySelector('#map canvas') && !!document.querySelector('[data-testid="score-table"]')`)
	rows, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('[data-testid="score-row"]')).map(function (r) { return r.textContent.replace(/\s+/g, " "); })`))
	if err != nil {
		t.Fatal(err)
	}
	var ours int
	for _, r := range rows {
		if r = strings.TrimSpace(r); strings.HasPrefix(r, "siamese-ce") || strings.HasPrefix(r, "ce") {
			ours++
			if !strings.Contains(r, "±") || strings.Count(r, "± 0.000") == strings.Count(r, "±") {
				t.Errorf("row %q: no standard error over the seeds", r)
			}
		}
	}
	if ours < 2 {
		t.Errorf("score rows %q: want CE and Siamese-CE", rows)
	}
	for _, chart := range []string{"patk", "pr", "map"} {
		bars, err := chromedp.Run(ctx, chromedp.Evaluate[int](`window.taglensCharts["`+chart+`"].getOption().series.filter(function (s) { return s.type === "custom"; }).length`))
		if err != nil || bars == 0 {
			t.Errorf("chart %s: %d error-bar series (%v)", chart, bars, err)
		}
	}
	screenshot(t, ctx, shotDir(t), "7b-seed-group")
}
