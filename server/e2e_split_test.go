package server

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestBrowserUploadSplit uploads a corpus with its split.tsv from the corpora
// page in headless Chromium and finds the split on the corpus page: every
// model of the corpus then trains and evaluates on it.
func TestBrowserUploadSplit(t *testing.T) {
	ctx := browser(t)
	ts := newTestServer(t, Config{})
	base := liveServer(t, ts)
	const setFiles = `(function () {
		var docs = [], split = [];
		for (var i = 0; i < 30; i++) {
			docs.push("s" + i + "\t" + ["rock", "jazz", "folk"][i % 3] + "\tguitar\tlive");
			split.push("s" + i + "\t" + (i < 20 ? "train" : i < 24 ? "valid" : "test"));
		}
		function put(testid, name, text) {
			var dt = new DataTransfer();
			dt.items.add(new File([text], name, {type: "text/tab-separated-values"}));
			document.querySelector('[data-testid="' + testid + '"]').files = dt.files;
		}
		put("upload-file", "split-songs.tsv", docs.join("\n") + "\n");
		put("upload-split", "split.tsv", split.join("\n") + "\n");
	})()`
	step(t, ctx, "upload with a split", time.Minute,
		chromedp.Navigate(base+"/corpora"),
		chromedp.WaitVisible(tid("upload-file")),
		chromedp.Evaluate[chromedp.Void](setFiles),
		chromedp.Click(tid("upload-submit")),
		chromedp.WaitVisible(tid("upload-ok")),
	)
	cs, err := ts.store.Corpora(t.Context())
	if err != nil || len(cs) != 1 {
		t.Fatalf("%d corpora stored (%v), want 1", len(cs), err)
	}
	row, err := ts.store.CorpusWithSplit(t.Context(), cs[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	sp := row.Split
	if len(sp.Train) != 20 || len(sp.Valid) != 4 || len(sp.Test) != 6 {
		t.Fatalf("stored split: %d train, %d valid, %d test; want 20, 4, 6", len(sp.Train), len(sp.Valid), len(sp.Test))
	}
	step(t, ctx, "corpus page", 30*time.Second, chromedp.Navigate(base+"/corpora/"+cs[0].ID), chromedp.WaitVisible(tid("top-tags")))
	body, err := chromedp.Run(ctx, chromedp.Text("body"))
	if err != nil || !strings.Contains(body, "the corpus's own: 20 train, 4 valid, 6 test") {
		t.Errorf("the corpus page does not show the uploaded split (%v)", err)
	}
	screenshot(t, ctx, shotDir(t), "1c-upload-split")
}
