package server

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestBrowserUploadProgress: while an upload runs, the corpora page's form
// says how far the server is (here: waiting for another upload's parse,
// whose slot the test holds), and the line goes once the upload is stored.
func TestBrowserUploadProgress(t *testing.T) {
	ctx := browser(t)
	ts := newTestServer(t, Config{})
	base := liveServer(t, ts)
	file := filepath.Join(t.TempDir(), "songs.tsv")
	if err := os.WriteFile(file, smallTSV(), 0o644); err != nil {
		t.Fatal(err)
	}
	ts.parsing <- struct{}{} // another upload is being parsed
	held := true
	defer func() {
		if held {
			<-ts.parsing
		}
	}()
	step(t, ctx, "upload waits", 30*time.Second,
		chromedp.Navigate(base+"/corpora"),
		chromedp.SetUploadFiles(tid("upload-file"), []string{file}),
		chromedp.Click(tid("upload-submit")),
		chromedp.WaitVisible(tid("upload-progress")),
	)
	text, err := chromedp.Run(ctx, chromedp.Text(tid("upload-progress")))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(text, "Waiting for another upload to be read: ") || !strings.Contains(text, "documents read") {
		t.Errorf("progress line %q", text)
	}
	<-ts.parsing
	held = false
	step(t, ctx, "upload stored", 30*time.Second,
		chromedp.WaitVisible(tid("upload-ok")),
		chromedp.WaitNotVisible(tid("upload-progress")),
	)
}
