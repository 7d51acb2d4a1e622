package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestServeSecondOnSameData starts `taglens serve` in another process and has
// it train a model, then starts a second `taglens serve` on the same data
// folder (another port): the second refuses to start, naming the folder and
// the first server's pid, before touching anything — the first server's job
// stays running (it used to be marked interrupted), the temporary file of
// its save stays, and the first server still answers. Once the first is
// killed the folder can be served again.
func TestServeSecondOnSameData(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	first := startCrashChild(t, exe, dir)
	defer first.kill(t)
	uploadCrashCorpus(first.base, "first", crashCorpus()[:100000])
	corpusID := firstCorpus(t, first.base)
	body := fmt.Sprintf(`{"corpus_id":%q,"params":{"max_time_seconds":120,"max_epochs1":100000,"patience":100000,"pretrain_iterations":-1}}`, corpusID)
	resp, err := http.Post(first.base+"/api/models", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	var ids map[string]string
	getJSONBody(t, resp, &ids)
	jobState := func() string {
		var j map[string]any
		getJSON(first.base+"/api/jobs/"+ids["job_id"], &j)
		return fmt.Sprint(j["state"])
	}
	for deadline := time.Now().Add(30 * time.Second); jobState() != "running"; {
		if time.Now().After(deadline) {
			t.Fatalf("the first server's training is %s, want running", jobState())
		}
		time.Sleep(20 * time.Millisecond)
	}
	temp := filepath.Join(dir, "models", ".x.tlm.tmp-777")
	if err := os.WriteFile(temp, []byte("a model being saved"), 0o644); err != nil {
		t.Fatal(err)
	}

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	var stderr syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--addr", addr, "--data", dir, "--no-demo"}, &bytes.Buffer{}, &stderr)
	}()
	select {
	case err = <-done:
		if err == nil {
			t.Fatal("the second server returned no error")
		}
		for _, want := range []string{dir, fmt.Sprintf("pid %d", first.cmd.Process.Pid)} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("second server's error %q does not name %q", err, want)
			}
		}
	case <-time.After(5 * time.Second):
		t.Error("a second server started on a data folder in use")
		cancel()
		<-done
	}
	if s := stderr.String(); strings.Contains(s, "interrupted") || strings.Contains(s, "removed temporary") {
		t.Errorf("the refused server touched the folder: %s", s)
	}
	if st := jobState(); st != "running" {
		t.Errorf("the first server's training after the second start: %s, want running", st)
	}
	if _, err := os.Stat(temp); err != nil {
		t.Errorf("the live temporary file: %v", err)
	}
	if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		c.Close()
		t.Errorf("the refused server listens on %s", addr)
	}

	// Killed, the first server leaves the folder free.
	first.kill(t)
	second := startCrashChild(t, exe, dir)
	defer second.kill(t)
	var j map[string]any
	getJSON(second.base+"/api/jobs/"+ids["job_id"], &j)
	if j["state"] != "interrupted" {
		t.Errorf("the killed server's job: %v, want interrupted", j["state"])
	}
}

func getJSONBody(t *testing.T, resp *http.Response, v any) {
	t.Helper()
	defer resp.Body.Close()
	var b bytes.Buffer
	b.ReadFrom(resp.Body)
	if resp.StatusCode/100 != 2 {
		t.Fatalf("%s: %d %s", resp.Request.URL, resp.StatusCode, b.String())
	}
	if err := json.Unmarshal(b.Bytes(), v); err != nil {
		t.Fatal(err)
	}
}
