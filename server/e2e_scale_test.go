package server

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/taglens/taglens/ml/shareddata"
)

// scaleSliceLines is the number of pubmed-genes's lines TestBrowserScaleSlice
// uploads: enough for a vocabulary above features.DefaultExactMaxTerms (the
// randomized term features, the training's time probe), small enough for a
// test.
const scaleSliceLines = 20000

// TestBrowserScaleSlice walks the large-corpus journey of docs/scale.md in
// headless Chromium on the first 20,000 lines of pubmed-genes (the whole
// corpus is its benchmark there): upload the file through the corpora
// page's form, read its statistics on the corpus page, train from the form
// with the defaults but short stages, and draw the whole-space map, one
// point a vocabulary term. It skips when the data folder is absent.
//
// With TAGLENS_SCALE_FULL=1 it is the whole-corpus benchmark instead: the
// whole file, the defaults as they are, longer waits, and the test process's
// peak resident memory (the server's, which runs in it) logged after the
// upload, with the time of each step.
func TestBrowserScaleSlice(t *testing.T) {
	src := shareddata.File(t, "pubmed-genes", "docs.tsv")
	full := os.Getenv("TAGLENS_SCALE_FULL") == "1"
	ctx := browser(t)
	lines, file, wait := scaleSliceLines, filepath.Join(t.TempDir(), "pubmed-slice.tsv"), time.Duration(1)
	if full {
		lines, file, wait = 0, src, 4
	}
	if raceEnabled {
		// The race detector slows the training and the map's t-SNE several
		// times over, beside the other packages' tests: on a 2-core machine
		// without AVX-512 the slice's map was not drawn within 5 minutes.
		// The waits bound a hung journey; they do not time it.
		wait *= 4
	}
	if !full {
		if err := headLines(src, file, lines); err != nil {
			t.Fatal(err)
		}
	}
	began := time.Now()
	mark := func(what string) {
		if full {
			t.Logf("%s at %v; peak RSS %s", what, time.Since(began).Round(100*time.Millisecond), peakRSS())
		}
	}
	ts := newTestServer(t, Config{})
	base := liveServer(t, ts)
	step(t, ctx, "upload", time.Minute,
		chromedp.Navigate(base+"/corpora"),
		chromedp.SetUploadFiles(tid("upload-file"), []string{file}),
		chromedp.Click(tid("upload-submit")),
		chromedp.WaitVisible(tid("upload-ok")),
	)
	mark("uploaded")
	href, err := chromedp.Run(ctx, chromedp.AttributeValue(tid("uploaded-link"), "href"))
	if err != nil || !href.Exists {
		t.Fatalf("uploaded link: %v", err)
	}
	corpusID := strings.TrimPrefix(href.Value, "/corpora/")
	step(t, ctx, "corpus page", 30*time.Second,
		chromedp.Navigate(base+href.Value),
		chromedp.WaitVisible(`#taguse canvas`),
		chromedp.WaitVisible(`#cardinality canvas`),
	)
	mark("corpus page drawn")
	stats, err := chromedp.Run(ctx, chromedp.Text(`.stats-row`))
	if err != nil || (lines > 0 && !strings.Contains(stats, fmt.Sprint(lines)+" documents")) || !strings.Contains(stats, "distinct tags") {
		t.Errorf("corpus statistics %q (%v): want %d documents", stats, err, lines)
	}
	t.Logf("corpus statistics: %s", strings.Join(strings.Fields(stats), " "))
	// The defaults, with stages short enough for a test.
	short := map[string]string{"max_epochs1": "1", "max_epochs2": "1", "epoch_examples": "4000"}
	if full {
		short = nil
	}
	actions := []chromedp.Action[chromedp.Void]{chromedp.Navigate(base + "/train?corpus=" + corpusID)}
	for k, v := range short {
		actions = append(actions, chromedp.SetValue(tid("param-"+k), v))
	}
	actions = append(actions, chromedp.Click(tid("train-submit")), chromedp.WaitVisible(tid("job-progress")))
	step(t, ctx, "train from the form", 30*time.Second, actions...)
	// The page reloads itself 600 ms after the job ends (app.js): wait for the
	// reloaded page, which has no job widget, so that the next navigation is
	// not cut short by that reload (net::ERR_ABORTED).
	waitJS(t, ctx, "training done", wait*5*time.Minute,
		`(function () { var e = document.querySelector('[data-testid="model-state"]'); return !!e && e.textContent === "ready" && !document.querySelector('[data-testid="job-progress"]'); })()`)
	mark("trained")
	loc, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	modelID := loc[strings.LastIndex(loc, "/")+1:]
	_, cm, err := ts.model(t.Context(), modelID)
	if err != nil {
		t.Fatal(err)
	}
	terms := cm.Vocabulary().Len()
	if terms <= 1000 {
		t.Fatalf("the slice's vocabulary has %d terms: want more than 1,000 (the large-vocabulary paths)", terms)
	}
	step(t, ctx, "whole-space map", wait*3*time.Minute,
		chromedp.Navigate(base+"/explorer?model="+modelID+"&view=space"),
		computeMap(),
	)
	waitJS(t, ctx, "whole-space map drawn", wait*5*time.Minute,
		`!!document.querySelector('[data-testid="space-map"]') && document.querySelector('[data-testid="space-map"]').getAttribute('data-ready') === 'true'`)
	// Drawn (the chart's "finished" event), from a map of every term.
	waitJS(t, ctx, "whole-space map rendered", wait*time.Minute,
		`document.querySelector('[data-testid="space-map"]').hasAttribute('data-render-ms')`)
	mark("whole-space map drawn")
	if full {
		ms, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid="space-map"]').getAttribute('data-render-ms') + " ms, " + document.querySelector('[data-testid="space-map"]').getAttribute('data-renderer')`))
		t.Logf("whole-space map rendered in %s", ms)
		screenshot(t, ctx, shotDir(t), "scale-space-map")
	}
	// Its points: every vocabulary term, then the corpus's tags outside the
	// vocabulary (placed by their contexts), from oov_from on.
	type space struct{ Points, OOVFrom int }
	got, err := chromedp.Run(ctx, chromedp.Evaluate[space](`fetch(document.querySelector('[data-testid="space-map"]').getAttribute('data-space-url'))
		.then(function (r) { return r.json(); }).then(function (b) { return {Points: b.terms.length, OOVFrom: b.oov_from || b.terms.length}; })`, chromedp.EvalAwaitPromise))
	if err != nil || got.OOVFrom != terms || got.Points < terms {
		t.Errorf("the whole-space map holds %d points, the vocabulary's up to %d (%v): want every one of the %d vocabulary terms", got.Points, got.OOVFrom, err, terms)
	}
}

// peakRSS is the process's peak resident memory (VmHWM), or "unknown".
func peakRSS() string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "unknown"
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "VmHWM:") {
			return strings.TrimSpace(strings.TrimPrefix(l, "VmHWM:"))
		}
	}
	return "unknown"
}

// headLines copies the first n lines of src into dst.
func headLines(src, dst string, n int) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	w := bufio.NewWriter(out)
	for i := 0; i < n && sc.Scan(); i++ {
		w.Write(sc.Bytes())
		w.WriteByte('\n')
	}
	if err := sc.Err(); err != nil {
		out.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
