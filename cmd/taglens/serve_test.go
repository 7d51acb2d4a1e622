package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/cookiejar"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/taglens/taglens/server"
)

func TestParseSize(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"64MiB", 64 << 20, true},
		{"10MB", 10_000_000, true},
		{"1048576", 1 << 20, true},
		{"2 KiB", 2048, true},
		{"1G", 1 << 30, true},
		{"0", 0, false},
		{"-5MiB", 0, false},
		{"lots", 0, false},
	}
	for _, tt := range tests {
		got, err := parseSize(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("parseSize(%q): got %d, %v; want %d, ok %v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

func TestServeFlags(t *testing.T) {
	var stderr bytes.Buffer
	cfg, err := parseServeFlags(nil, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.addr != "127.0.0.1:8080" || cfg.maxUpload != 64<<20 || cfg.dataDir == "" {
		t.Errorf("defaults: got %+v, want 127.0.0.1:8080, 64 MiB and a data dir", cfg)
	}
	if len(cfg.allowHosts) != 0 || cfg.token != "" {
		t.Errorf("defaults: got hosts %v and a token, want none", cfg.allowHosts)
	}
	if cfg.maxQueued != server.DefaultMaxQueued || cfg.keepJobs != server.DefaultKeepJobs {
		t.Errorf("defaults: --max-queued %d, --keep-jobs %d", cfg.maxQueued, cfg.keepJobs)
	}
	if cfg, err := parseServeFlags([]string{"--max-queued", "-1", "--keep-jobs", "5"}, &stderr); err != nil || cfg.maxQueued != -1 || cfg.keepJobs != 5 {
		t.Errorf("--max-queued -1 --keep-jobs 5: got %+v, %v", cfg, err)
	}
	for _, args := range [][]string{{"--max-upload", "x"}, {"--nosuch"}, {"extra"}, {"--allow-host", " , "},
		{"--token", "short"}, {"--token", "has spaces in it, 0123456789"}, {"--addr", "8080"},
		{"--max-queued", "0"}, {"--max-queued", "-2"}, {"--keep-jobs", "0"}, {"--keep-jobs", "x"}} {
		if _, err := parseServeFlags(args, &stderr); exitCode(err, &stderr) != 2 {
			t.Errorf("%v: got %v, want a usage error", args, err)
		}
	}
	cfg, err = parseServeFlags([]string{"--allow-host", "a.lan", "--allow-host", "b.lan, c.lan,", "--token", "0123456789abcdef"}, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(cfg.allowHosts, " ") != "a.lan b.lan c.lan" || cfg.token != "0123456789abcdef" {
		t.Errorf("got hosts %q, token %q; want a.lan b.lan c.lan and the given token", cfg.allowHosts, cfg.token)
	}
	t.Setenv("TAGLENS_TOKEN", "from-the-environment-0123")
	if cfg, err = parseServeFlags(nil, &stderr); err != nil || cfg.token != "from-the-environment-0123" {
		t.Errorf("TAGLENS_TOKEN: got %v, %v", cfg, err)
	}
	if cfg, err = parseServeFlags([]string{"--token", "the-flag-wins-0123456"}, &stderr); err != nil || cfg.token != "the-flag-wins-0123456" {
		t.Errorf("--token with TAGLENS_TOKEN: got %v, %v", cfg, err)
	}
	t.Setenv("TAGLENS_TOKEN", "short")
	if _, err := parseServeFlags(nil, &stderr); exitCode(err, &stderr) != 2 {
		t.Errorf("short TAGLENS_TOKEN: got %v, want a usage error", err)
	}
}

// syncBuffer is a goroutine-safe log sink.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestServeFirstStart runs `taglens serve` on an empty data dir: the demo corpus
// is loaded, the demo model trains in the background with visible progress, a
// non-loopback address is warned about, and cancelling the context (as SIGTERM
// does) shuts down with the running job marked interrupted.
// Kept in one function: the checks follow one server's life from start to
// shutdown, each step depending on the state the previous one left.
func TestServeFirstStart(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the server and trains the demo model")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	var stderr syncBuffer
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"serve", "--addr", addr, "--data", dir}, &bytes.Buffer{}, &stderr) }()

	base := "http://" + addr
	var corpora []map[string]any
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if resp, err := http.Get(base + "/api/corpora"); err == nil {
			json.NewDecoder(resp.Body).Decode(&corpora)
			resp.Body.Close()
			if len(corpora) > 0 {
				break
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	if len(corpora) != 1 || corpora[0]["builtin"] != true {
		t.Fatalf("first start: got corpora %v, want the built-in demo corpus (log: %s)", corpora, stderr.String())
	}
	var jobs []map[string]any
	resp, err := http.Get(base + "/api/jobs?kind=train")
	if err != nil {
		t.Fatal(err)
	}
	json.NewDecoder(resp.Body).Decode(&jobs)
	resp.Body.Close()
	if len(jobs) != 1 {
		t.Fatalf("first start: got %d training jobs, want the demo model's", len(jobs))
	}
	// The home page shows the demo job's progress while it runs (or the ready model).
	resp, _ = http.Get(base + "/")
	var page bytes.Buffer
	page.ReadFrom(resp.Body)
	resp.Body.Close()
	if !strings.Contains(page.String(), `data-testid="job-progress"`) && !strings.Contains(page.String(), `data-testid="open-explorer"`) {
		t.Error("home page shows neither the demo job's progress nor the ready model")
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("serve returned %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("serve did not shut down within 15 s")
	}
	if !strings.Contains(stderr.String(), "shutting down") {
		t.Errorf("log lacks the shutdown message: %s", stderr.String())
	}

	// A second start on the same dir does not reload the demo, and whatever the
	// demo job's fate it is not left queued or running.
	ctx2, cancel2 := context.WithCancel(context.Background())
	done2 := make(chan error, 1)
	var stderr2 syncBuffer
	go func() {
		done2 <- run(ctx2, []string{"serve", "--addr", addr, "--data", dir}, &bytes.Buffer{}, &stderr2)
	}()
	defer func() { cancel2(); <-done2 }()
	var job map[string]any
	deadline = time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if resp, err := http.Get(fmt.Sprintf("%s/api/jobs/%s", base, jobs[0]["id"])); err == nil {
			json.NewDecoder(resp.Body).Decode(&job)
			resp.Body.Close()
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if s := job["state"]; s != "done" && s != "interrupted" {
		t.Errorf("demo job after restart: got %v, want done or interrupted", s)
	}
	resp, err = http.Get(base + "/api/corpora")
	if err != nil {
		t.Fatal(err)
	}
	corpora = nil
	json.NewDecoder(resp.Body).Decode(&corpora)
	resp.Body.Close()
	if len(corpora) != 1 {
		t.Errorf("second start: got %d corpora, want the one demo corpus", len(corpora))
	}
}

// TestServePublicAddress binds every address: serve warns, prints the access
// URL with a random token once, and the app answers only with the token (the
// URL sets the cookie and redirects; a bearer header works for API clients).
func TestServePublicAddress(t *testing.T) {
	var stderr syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--addr", "0.0.0.0:0", "--data", t.TempDir(), "--no-demo", "-v"}, &bytes.Buffer{}, &stderr)
	}()
	access := regexp.MustCompile(`http://(\S+)/\?token=(\S+)`)
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) && access.FindStringSubmatch(stderr.String()) == nil {
		time.Sleep(50 * time.Millisecond)
	}
	m := access.FindStringSubmatch(stderr.String())
	if m == nil {
		cancel()
		<-done
		t.Fatalf("no access URL printed: %s", stderr.String())
	}
	base, token := "http://"+m[1], m[2]

	get := func(url string, hdr ...string) (*http.Response, error) {
		req, err := http.NewRequest(http.MethodGet, url, nil)
		if err != nil {
			return nil, err
		}
		for i := 0; i+1 < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		return resp, err
	}
	if resp, err := get(base + "/api/corpora"); err != nil || resp.StatusCode != 401 {
		t.Errorf("without the token: got %v, %v; want 401", resp, err)
	}
	if resp, err := get(base+"/api/corpora", "Authorization", "Bearer "+token); err != nil || resp.StatusCode != 200 {
		t.Errorf("bearer token: got %v, %v; want 200", resp, err)
	}
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	browser := &http.Client{Jar: jar}
	resp, err := browser.Get(m[0])
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Request.URL.RawQuery != "" {
		t.Errorf("access URL: got %d at %s, want 200 at the URL without the token", resp.StatusCode, resp.Request.URL)
	}
	if resp, err = browser.Get(base + "/api/corpora"); err != nil || resp.StatusCode != 200 {
		t.Errorf("with the cookie: got %v, %v; want 200", resp, err)
	} else {
		resp.Body.Close()
	}

	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	out := stderr.String()
	if !strings.Contains(out, "non-loopback") {
		t.Errorf("no warning for 0.0.0.0: %s", out)
	}
	if !strings.Contains(out, "path=/api/corpora") {
		t.Errorf("the requests were not logged: %s", out)
	}
	if n := strings.Count(out, token); n != 1 {
		t.Errorf("the token appears %d times on stderr, want once (the access URL):\n%s", n, out)
	}
}
