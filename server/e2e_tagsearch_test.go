package server

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestBrowserTagSearch: the priming page's tag box ships no tag list (its
// datalist is empty until something is typed); typing a prefix asks the
// server once, after the typing pauses (debounced), for the matching tags
// of the model's corpus, which fill the datalist prefix matches first; the
// last of several comma-separated tags is the one completed.
func TestBrowserTagSearch(t *testing.T) {
	ctx := browser(t)
	ts, _, modelID := trainedServer(t)
	base := liveServer(t, ts)
	step(t, ctx, "priming page", time.Minute,
		chromedp.Navigate(base+"/priming?model="+modelID),
		chromedp.WaitVisible(tid("tags-input")),
	)
	n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('#tag-options option').length`))
	if err != nil || n != 0 {
		t.Fatalf("the page shipped %d tags in its datalist (%v), want none", n, err)
	}
	// Count the tag searches the page sends.
	step(t, ctx, "count searches", 10*time.Second, chromedp.Evaluate[chromedp.Void](`(function () {
		window.tagSearches = [];
		var f = window.fetch;
		window.fetch = function (u) {
			if (String(u).indexOf('/tags?') >= 0) window.tagSearches.push(String(u));
			return f.apply(this, arguments);
		};
	})()`))
	// options types typed at the end of the box, a character at a time in
	// one script (faster than the debounce, however loaded the machine), and
	// returns the suggestions once they came.
	options := func(name, typed string) []string {
		t.Helper()
		step(t, ctx, name, 30*time.Second, chromedp.Evaluate[chromedp.Void](`(function (typed) {
			var input = document.querySelector('[data-testid="tags-input"]');
			for (var i = 0; i < typed.length; i++) {
				input.value += typed[i];
				input.dispatchEvent(new Event('input', {bubbles: true}));
			}
		})(`+strconv.Quote(typed)+`)`))
		waitJS(t, ctx, name+": suggestions", 30*time.Second, `document.querySelectorAll('#tag-options option').length > 0 && window.tagSearches.length > 0`)
		got, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.prototype.map.call(document.querySelectorAll('#tag-options option'), function (o) { return o.value; })`))
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	got := options("type ro", "ro")
	searches, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`window.tagSearches`))
	if err != nil {
		t.Fatal(err)
	}
	if len(searches) != 1 || !strings.Contains(searches[0], "/api/models/"+modelID+"/tags?") || !strings.Contains(searches[0], "q=ro") {
		t.Errorf("typing two characters sent %q, want one search for ro", searches)
	}
	if len(got) == 0 || got[0] != "rock" {
		t.Errorf("suggestions for ro: %q, want rock first", got)
	}
	prefix := true
	for _, o := range got {
		switch {
		case !strings.Contains(strings.ToLower(o), "ro"):
			t.Errorf("suggestion %q does not hold ro", o)
		case strings.HasPrefix(strings.ToLower(o), "ro") && !prefix:
			t.Errorf("prefix match %q after an inner match: %q", o, got)
		case !strings.HasPrefix(strings.ToLower(o), "ro"):
			prefix = false
		}
	}
	step(t, ctx, "clear", 10*time.Second, chromedp.Evaluate[chromedp.Void](`window.tagSearches = []; document.getElementById('tag-options').replaceChildren()`))
	got = options("type a second tag", "ck, gui")
	if len(got) == 0 || got[0] != "rock, guitar" {
		t.Errorf("suggestions for a second tag: %q, want \"rock, guitar\" first", got)
	}
	if searches, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`window.tagSearches`)); err != nil || len(searches) != 1 || !strings.Contains(searches[0], "q=gui") {
		t.Errorf("typing seven characters sent %q (%v), want one search for gui", searches, err)
	}
}
