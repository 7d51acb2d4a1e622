package server

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/taglens/taglens/internal/app"
)

// TestBrowserInstanceBench is the instance map's benchmark, run when
// TAGLENS_RENDER_BENCH is set (it reports, it asserts nothing about speed):
// a synthetic map of TAGLENS_INSTANCE_N instances (default 10^6) in the
// binary form the server sends (syntheticInstances) is cached for the trained
// model under the t-SNE seed benchSpaceSeed and its explorer page opened, the
// benchmark page: the first render after the data arrived (parse, colours,
// the layer's buffers and first frame; the box's data-render-ms), then, once
// the density and region labels are analysed, 60 frames of a pan and of a
// zoom timed with performance.now() over requestAnimationFrame (gesture).
func TestBrowserInstanceBench(t *testing.T) {
	if os.Getenv("TAGLENS_RENDER_BENCH") == "" {
		t.Skip("a benchmark: set TAGLENS_RENDER_BENCH=1 to run it")
	}
	n := 1000000
	if v, err := strconv.Atoi(os.Getenv("TAGLENS_INSTANCE_N")); err == nil && v > 0 {
		n = v
	}
	ctx := browser(t)
	ts, corpusID, modelID := trainedServer(t)
	_, m, err := ts.model(context.Background(), modelID)
	if err != nil {
		t.Fatal(err)
	}
	v := m.Vocabulary()
	terms := make([]string, v.Len())
	for i := range terms {
		terms[i] = v.Term(i)
	}
	b, err := syntheticInstances(terms, app.NumTopics(m), n)
	if err != nil {
		t.Fatal(err)
	}
	key := instanceKey("siamese-ce", corpusID, tsneSettings{Iterations: 1000, Seed: benchSpaceSeed})
	if err := ts.store.PutMap(context.Background(), modelID, key, b); err != nil {
		t.Fatal(err)
	}
	ts.maps.dropModel(modelID)
	base := liveServer(t, ts)
	step(t, ctx, "viewport", 10*time.Second, chromedp.EmulateViewport(1400, 1000))
	for run := 1; run <= 2; run++ {
		t0 := time.Now()
		step(t, ctx, "open the benchmark page", 2*time.Minute,
			chromedp.Navigate(fmt.Sprintf("%s/explorer?view=instances&model=%s&seed=%d", base, modelID, benchSpaceSeed)),
			chromedp.WaitVisible(tid("instances-map")))
		sel := `document.querySelector('[data-testid="instances-map"]')`
		waitJS(t, ctx, "map drawn", 3*time.Minute, sel+`.getAttribute('data-render-ms') !== null`)
		loaded := time.Since(t0)
		ms := str(t, ctx, sel+`.getAttribute('data-render-ms')`)
		points := str(t, ctx, sel+`.getAttribute('data-points')`)
		waitJS(t, ctx, "density analysed", 3*time.Minute, sel+`.hasAttribute("data-density-ms")`)
		dms := str(t, ctx, sel+`.getAttribute("data-density-ms")`)
		pan := gesture(t, ctx, "instances", panWindow)
		step(t, ctx, "zoom out", 10*time.Second, chromedp.Evaluate[chromedp.Void](
			`window.taglensCharts["instances"].dispatchAction({type: "dataZoom", dataZoomIndex: 0, start: 10, end: 90})`))
		zoom := gesture(t, ctx, "instances", zoomWindow)
		if run == 1 {
			screenshot(t, ctx, shotDir(t), "5l-instances-bench")
		}
		t.Logf("run %d: %s instances (%.1f MB binary): first render %s ms after the data arrived (page open to drawn %v); pan %.1f frames/s%s; zoom %.1f frames/s%s; density and region labels %s ms (headless Chromium, software rendering, load average %s)",
			run, points, float64(len(b))/1e6, ms, loaded.Round(time.Millisecond), pan.FPS, pan.layerNote(), zoom.FPS, zoom.layerNote(), dms, loadAverage())
	}
}

// syntheticInstances is an instance map of n instances of terms in the
// binary form, made like a real one: Zipf term frequencies, each term's
// instances in two to four sense clusters of different spreads around
// places of a 2-D map, documents of three to six instances, each document's
// topic one of topics.
func syntheticInstances(terms []string, topics, n int) ([]byte, error) {
	v := len(terms)
	rng := rand.New(rand.NewPCG(11, 5))
	zipf := rand.NewZipf(rng, 1.2, 2, uint64(v-1))
	type sense struct{ x, y, s float64 }
	senses := make([][]sense, v)
	for t := range senses {
		for range 2 + rng.IntN(3) {
			senses[t] = append(senses[t], sense{100 * rng.Float64(), 100 * rng.Float64(), 0.5 + 2.5*rng.Float64()})
		}
	}
	in := &app.Instances{Stride: 1, X: make([]float32, n), Y: make([]float32, n), Term: make([]uint32, n), Doc: make([]uint32, n), Topic: make([]int16, n)}
	doc, left, topic := -1, 0, int16(0)
	for i := range n {
		if left == 0 {
			doc, left, topic = doc+1, 3+rng.IntN(4), int16(rng.IntN(max(1, topics)))
		}
		left--
		t := int(zipf.Uint64())
		s := senses[t][rng.IntN(len(senses[t]))]
		in.X[i] = float32(s.x + s.s*rng.NormFloat64())
		in.Y[i] = float32(s.y + s.s*rng.NormFloat64())
		in.Term[i], in.Doc[i], in.Topic[i] = uint32(t), uint32(doc), topic
	}
	counts := make([]int, v)
	for t := range counts {
		counts[t] = 1 + int(float64(n)/math.Pow(float64(t+2), 1.2)/4)
	}
	return encodeInstances(instanceHeader{Variant: "siamese-ce", Seed: benchSpaceSeed, Stride: 1, Documents: doc + 1,
		Topics: topics, Terms: terms, TermDocs: counts}, in)
}
