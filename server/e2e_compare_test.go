package server

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestBrowserCompareGreyed checks in headless Chromium that the compare form
// greys out what the other choices rule out, with the reason beside it, and
// gives it back when the choice changes: every baseline and the extended
// protocol in the OOV setting, the global baselines under priming, CRBM
// outside the training subset, seed trials with one model.
func TestBrowserCompareGreyed(t *testing.T) {
	ctx := browser(t)
	ts, _, modelID := trainedServer(t)
	base := liveServer(t, ts)
	step(t, ctx, "compare", time.Minute, chromedp.Navigate(base+"/compare?model="+modelID), chromedp.WaitVisible(tid("compare-form")))
	type state struct {
		Disabled map[string]bool
		Why      map[string]string
		Extended bool
		Seed     bool
		Note     string
	}
	read := func(setting, protocol, subset string) state {
		t.Helper()
		step(t, ctx, "choose "+setting+", "+protocol+", "+subset, 10*time.Second,
			chromedp.SetValue(chromedp.CSS(`[name=setting]`), setting),
			chromedp.SetValue(chromedp.CSS(`[name=protocol]`), protocol),
			chromedp.SetValue(chromedp.CSS(`[name=subset]`), subset),
			chromedp.Evaluate[chromedp.Void](`document.querySelector("[data-testid=compare-form]").dispatchEvent(new Event("change"))`))
		s, err := chromedp.Run(ctx, chromedp.Evaluate[state](`(function () {
				var s = {Disabled: {}, Why: {}};
				document.querySelectorAll("[name=baselines]").forEach(function (b) {
					s.Disabled[b.value] = b.disabled;
					var w = b.closest("label").nextElementSibling;
					s.Why[b.value] = w && w.classList.contains("why") ? w.textContent : "";
				});
				s.Extended = document.querySelector("[name=protocol] option[value=extended]").disabled;
				s.Seed = document.querySelector("[name=seed_trials]").disabled;
				s.Note = document.querySelector("[data-testid=compare-greyed]").textContent;
				return s;
			})()`))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	s := read("oov", "priming", "test")
	for _, b := range []string{"random", "lsa", "lda", "crbm", "glove"} {
		if !s.Disabled[b] || s.Why[b] == "" {
			t.Errorf("OOV setting: %s enabled or without a reason (%q)", b, s.Why[b])
		}
	}
	if !s.Extended || !s.Seed || s.Note == "" {
		t.Errorf("OOV setting: extended protocol greyed %v, seed trials greyed %v, note %q", s.Extended, s.Seed, s.Note)
	}
	s = read("within-corpus", "priming", "test")
	if !s.Disabled["lsa"] || !s.Disabled["glove"] || s.Disabled["random"] || s.Disabled["lda"] || s.Extended {
		t.Errorf("priming: lsa %v glove %v random %v lda %v extended %v; want the global ones greyed alone", s.Disabled["lsa"], s.Disabled["glove"], s.Disabled["random"], s.Disabled["lda"], s.Extended)
	}
	if s.Why["lsa"] == "" || !s.Disabled["crbm"] {
		t.Errorf("priming on test: lsa's reason %q, crbm greyed %v", s.Why["lsa"], s.Disabled["crbm"])
	}
	screenshot(t, ctx, shotDir(t), "6c-compare-greyed")
	s = read("within-corpus", "extended", "train")
	for b, off := range s.Disabled {
		if off {
			t.Errorf("extended on train: %s still greyed (%q)", b, s.Why[b])
		}
	}
	if s.Note != "" && !s.Seed {
		t.Errorf("note %q with nothing greyed", s.Note)
	}
}
