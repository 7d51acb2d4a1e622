package server

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/taglens/taglens/server/jobs"
	"github.com/taglens/taglens/server/store"
)

// TestBrowserSeedGroup walks the seed-group journey in headless Chromium:
// train three seeds from the form while another training holds the one
// training slot, so that all three wait in the queue; land on the
// comparison page, which shows the stored group with each member's place in
// the queue; once the slot is free, the members' progress and states change
// to ready and "Compare this group" appears without a reload; the
// models page lists the group with its members; the group's comparison (the
// group chosen, "seed trials" ticked) runs against baselines, and CE and
// Siamese-CE get error bars over the seeds (a standard error that is not
// zero) in the score table.
func TestBrowserSeedGroup(t *testing.T) {
	ctx := browser(t)
	ts := newTestServer(t, Config{TrainSlots: 1})
	c := decode[corpusJSON](t, ts.upload("songs.tsv", smallTSV()))
	base := liveServer(t, ts)
	// A training that holds the slot until the page has been looked at.
	release := make(chan struct{})
	blocker, err := ts.jobs.Submit("train", "blocker", nil, func(ctx context.Context, rep *jobs.Reporter) error {
		select {
		case <-release:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		select {
		case <-release:
		default:
			close(release)
		}
	}()
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
	g, err := ts.store.Group(t.Context(), u.Query().Get("group"))
	if err != nil || len(g.Members) != 3 || u.Query().Get("seed_trials") == "" {
		t.Fatalf("the form led to %s (%v); want the comparison of a stored group of 3 with seed trials", loc, err)
	}
	if g.Name != "group" {
		t.Errorf("group name %q: want the name given on the form", g.Name)
	}
	// As the page was drawn: every member queued with its place in the
	// queue, and no comparison offered yet.
	type member struct{ State, Job, Message string }
	members, err := chromedp.Run(ctx, chromedp.Evaluate[[]member](`window.sameDocument = true;
		Array.from(document.querySelectorAll('[data-testid="group-member"]')).map(function (m) {
			var j = m.querySelector('[data-job]');
			return { State: m.querySelector('[data-testid="member-state"]').textContent.trim(),
				Job: j ? j.getAttribute('data-state') : '', Message: j ? j.querySelector('[data-role=message]').textContent : '' };
		})`))
	if err != nil || len(members) != 3 {
		t.Fatalf("group members on the compare page: %+v (%v)", members, err)
	}
	for i, m := range members {
		if m.State != store.ModelTraining || m.Job != store.JobQueued || !strings.Contains(m.Message, fmt.Sprintf("position %d of 3", i+1)) {
			t.Errorf("member %d as drawn: %+v; want training, its job queued at position %d of 3", i+1, m, i+1)
		}
	}
	if hidden, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.querySelector('[data-testid="group-compare"]').hidden`)); err != nil || !hidden {
		t.Errorf("'Compare this group' offered while the members train (%v)", err)
	}
	if status, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid="group-status"]').textContent`)); err != nil || status != "0 of 3 ready, 3 training" {
		t.Errorf("group status as drawn: %q (%v)", status, err)
	}
	screenshot(t, ctx, shotDir(t), "7a-seed-group-queued")
	close(release)
	if j := ts.waitJob(blocker.ID); j.State != store.JobDone {
		t.Fatalf("the blocking job: %s", j.State)
	}
	// The states change on the page itself, followed live.
	waitJS(t, ctx, "the group ready without a reload", 3*time.Minute, `window.sameDocument === true &&
		Array.from(document.querySelectorAll('[data-testid="member-state"]')).every(function (s) { return s.textContent.trim() === "ready"; }) &&
		document.querySelector('[data-testid="group-status"]').textContent === "3 of 3 ready" &&
		!document.querySelector('[data-testid="group-compare"]').hidden`)
	for _, id := range g.ModelIDs() {
		m, err := ts.store.Model(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		if j := ts.waitJob(m.JobID); j.State != store.JobDone {
			t.Fatalf("training %s: %s %s", id, j.State, j.Message)
		}
	}
	screenshot(t, ctx, shotDir(t), "7b-seed-group-ready")

	// The models page lists the group with its members and their states.
	step(t, ctx, "models page", 30*time.Second, chromedp.Navigate(base+"/models"), chromedp.WaitVisible(tid("group-list")))
	listed, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('[data-testid="group-row"] [data-testid="group-row-member"]')).map(function (m) { return m.textContent.replace(/\s+/g, " ").trim(); })`))
	if err != nil || len(listed) != 3 {
		t.Fatalf("models page: group members %q (%v); want 3", listed, err)
	}
	for i, m := range listed {
		if want := fmt.Sprintf("group · seed %d ready", i+1); m != want {
			t.Errorf("models page: member %d reads %q, want %q", i+1, m, want)
		}
	}

	// The group's page compares it.
	step(t, ctx, "compare the group", 3*time.Minute,
		chromedp.Click(`[data-testid="group-row"] a[href^="/groups/"]`),
		chromedp.WaitVisible(tid("group-compare")),
		chromedp.Click(tid("group-compare")),
		chromedp.WaitVisible(tid("compare-form")),
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
	screenshot(t, ctx, shotDir(t), "7c-seed-group")
}
