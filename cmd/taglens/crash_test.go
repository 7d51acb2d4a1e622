package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"mime/multipart"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/taglens/taglens/internal/atomicfile"
)

// crashChildEnv makes the test binary run `taglens serve` with the arguments in
// the environment instead of the tests: the crash test kills that process.
const crashChildEnv = "TAGLENS_CRASH_CHILD"

func init() {
	if args := os.Getenv(crashChildEnv); args != "" {
		err := run(context.Background(), strings.Split(args, "\x1f"), os.Stdout, os.Stderr)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
}

// crashKillsEnv sets the number of kills of TestServeCrash (default
// defaultCrashKills; `TAGLENS_CRASH_KILLS=30 go test ./cmd/taglens -run
// TestServeCrash -v` for the full run, about two minutes).
const (
	crashKillsEnv     = "TAGLENS_CRASH_KILLS"
	defaultCrashKills = 10
)

// TestServeCrash kills `taglens serve` with SIGKILL at random moments while
// corpora are uploaded, models train and their files are saved, term and
// whole-space maps are computed and models are evaluated, restarting it
// each time on the same data directory. After every kill the database passes
// PRAGMA integrity_check; after every restart no temporary file is left, no
// job is queued or running and every interrupted one says why, and no model
// is "training" without a job; at the end a new training, a map and an
// evaluation run to the end. It prints its figures: kills, time, the jobs by
// kind and state, the models by state, and the model files no model names.
// Kept in one function: the rounds are one loop and the last start's checks
// follow it.
func TestServeCrash(t *testing.T) {
	if testing.Short() {
		t.Skip("starts and kills the server again and again")
	}
	kills := defaultCrashKills
	if v := os.Getenv(crashKillsEnv); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("%s=%q: want a positive number of kills", crashKillsEnv, v)
		}
		kills = n
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(20, 26))
	corpusTSV := crashCorpusN(80000)
	start := time.Now()

	// A ready model first: the rounds map and evaluate it.
	srv := startCrashChild(t, exe, dir)
	uploadCrashCorpus(srv.base, "first", crashCorpusN(2000))
	corpusID := firstCorpus(t, srv.base)
	modelID := waitCrashJob(t, srv.base, startCrashTraining(srv.base, corpusID, 1000), "the first training")["target_id"]
	srv.kill(t)

	removed := 0               // restarts that found temporary files to remove
	atKill := map[string]int{} // work in flight at the kills: job kind/stage, "upload"
	for round := 0; round < kills; round++ {
		srv := startCrashChild(t, exe, dir)
		checkAfterRestart(t, srv.base, dir, round)
		if strings.Contains(srv.out.String(), "removed temporary files") {
			removed++
		}
		var uploading atomic.Bool
		// Work for the kill to interrupt, all in flight when it comes: an
		// upload, a training of a small model (which ends by saving its
		// file), a term map or a whole-space map of the first model (new
		// each round), and an evaluation of it.
		if round%2 == 0 {
			uploading.Store(true)
			go func() {
				uploadCrashCorpus(srv.base, fmt.Sprintf("c%d", round), corpusTSV)
				uploading.Store(false)
			}()
		}
		startCrashTraining(srv.base, corpusID, round)
		if round%2 == 0 {
			postCrashJSON(fmt.Sprintf("%s/api/models/%s/map", srv.base, modelID), fmt.Sprintf(`{"term":"t%d,t%d"}`, round, round+1))
		} else {
			postCrashJSON(fmt.Sprintf("%s/api/models/%s/space", srv.base, modelID), fmt.Sprintf(`{"iters":1000,"seed":%d}`, round))
		}
		postCrashJSON(srv.base+"/api/evaluations", fmt.Sprintf(`{"model_ids":[%q],"trials":2,"baselines":["random","lsa"]}`, modelID))
		time.Sleep(time.Duration(50+rng.IntN(1500)) * time.Millisecond)
		var jobs []map[string]any
		getJSON(srv.base+"/api/jobs?limit=1000", &jobs)
		for _, j := range jobs {
			if j["state"] == "running" {
				atKill[fmt.Sprintf("%v/%v", j["kind"], j["stage"])]++
			}
		}
		if uploading.Load() {
			atKill["upload"]++
		}
		srv.kill(t)
		checkIntegrity(t, dir, round)
	}

	// A last start: a new training, a map and an evaluation run to the end.
	srv = startCrashChild(t, exe, dir)
	defer srv.kill(t)
	checkAfterRestart(t, srv.base, dir, kills)
	var jobs []map[string]any
	getJSON(srv.base+"/api/jobs?limit=1000", &jobs)
	byKind := map[string]map[string]int{}
	for _, j := range jobs {
		k := fmt.Sprint(j["kind"])
		if byKind[k] == nil {
			byKind[k] = map[string]int{}
		}
		byKind[k][fmt.Sprint(j["state"])]++
	}
	var models []map[string]any
	getJSON(srv.base+"/api/models", &models)
	modelStates := map[string]int{}
	for _, m := range models {
		modelStates[fmt.Sprint(m["state"])]++
	}
	orphans := orphanModelFiles(t, dir)
	t.Logf("%d kills in %.0fs; running at the kills (kind/stage: kills) %v; jobs by kind and state %v; models by state %v; %d restarts removed temporary files; %d model files no model names %v",
		kills, time.Since(start).Seconds(), atKill, byKind, modelStates, removed, len(orphans), orphans)
	if len(orphans) > 0 {
		t.Errorf("model files no model names after the restart: %v", orphans)
	}
	interrupted := 0
	for _, st := range byKind {
		interrupted += st["interrupted"]
	}
	if interrupted == 0 {
		t.Error("no job was interrupted by a kill: the test did not exercise a crash during work")
	}
	waitCrashJob(t, srv.base, startCrashTraining(srv.base, corpusID, 999), "a training after the crashes")
	mp := postCrashJSON(fmt.Sprintf("%s/api/models/%s/map", srv.base, modelID), `{"term":"t1,t2,t3"}`)
	if id := mp["job_id"]; id != "" {
		waitCrashJob(t, srv.base, id, "a map after the crashes")
	}
	ev := postCrashJSON(srv.base+"/api/evaluations", fmt.Sprintf(`{"model_ids":[%q],"trials":1,"baselines":["random"]}`, modelID))
	waitCrashJob(t, srv.base, ev["job_id"], "an evaluation after the crashes")
}

// waitCrashJob waits up to 3 minutes for job id to end and fails the test
// unless it is done; it returns the job's JSON (its "target_id" is the model or
// evaluation it worked for).
func waitCrashJob(t *testing.T, base, id, what string) map[string]string {
	t.Helper()
	if id == "" {
		t.Fatalf("%s: the request was refused", what)
	}
	deadline := time.Now().Add(3 * time.Minute)
	for time.Now().Before(deadline) {
		var job map[string]any
		getJSON(base+"/api/jobs/"+id, &job)
		switch job["state"] {
		case "done":
			out := map[string]string{}
			for k, v := range job {
				out[k] = fmt.Sprint(v)
			}
			return out
		case "failed", "cancelled", "interrupted":
			t.Fatalf("%s: %v: %v", what, job["state"], job["message"])
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("%s did not finish within 3 minutes", what)
	return nil
}

// orphanModelFiles lists the files of the models folder that no model of the
// database names.
func orphanModelFiles(t *testing.T, dir string) []string {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "taglens.db")+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	named := map[string]bool{}
	rows, err := db.Query(`SELECT path FROM models`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			t.Fatal(err)
		}
		named[filepath.Base(p)] = true
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "models"))
	var out []string
	for _, e := range entries {
		if !named[e.Name()] {
			out = append(out, e.Name())
		}
	}
	return out
}

// postCrashJSON posts a JSON body and returns the answer's string fields
// (none when the request failed).
func postCrashJSON(url, body string) map[string]string {
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	var out map[string]string
	json.NewDecoder(resp.Body).Decode(&out)
	return out
}

type crashChild struct {
	cmd  *exec.Cmd
	base string
	out  *syncBuffer // written by the exec copier while the test reads it
}

func startCrashChild(t *testing.T, exe, dir string) *crashChild {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	// --no-demo keeps the rounds short: the corpora come from uploads.
	args := strings.Join([]string{"serve", "--addr", addr, "--data", dir, "--no-demo"}, "\x1f")
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), crashChildEnv+"="+args)
	var out syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &crashChild{cmd: cmd, base: "http://" + addr, out: &out}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if resp, err := http.Get(c.base + "/api/corpora"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return c
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	cmd.Process.Kill()
	cmd.Wait()
	t.Fatalf("the server did not start: %s", out.String())
	return nil
}

func (c *crashChild) kill(t *testing.T) {
	t.Helper()
	if c.cmd.ProcessState != nil {
		return
	}
	if err := c.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	c.cmd.Wait()
}

// checkAfterRestart: no temporary file is left in the data directory, no job
// is queued or running without a process behind it (interrupted ones say
// why), and no model is training.
func checkAfterRestart(t *testing.T, base, dir string, round int) {
	t.Helper()
	for _, d := range []string{dir, filepath.Join(dir, "models")} {
		entries, _ := os.ReadDir(d)
		for _, e := range entries {
			if atomicfile.IsTemp(e.Name()) {
				t.Errorf("round %d: temporary file left after the restart: %s", round, e.Name())
			}
		}
	}
	var jobs []map[string]any
	getJSON(base+"/api/jobs?limit=1000", &jobs)
	for _, j := range jobs {
		if j["state"] == "interrupted" && !strings.HasPrefix(fmt.Sprint(j["message"]), "the server stopped while this job was") {
			t.Errorf("round %d: interrupted job %v says %q, not why", round, j["id"], j["message"])
		}
		if j["state"] == "queued" || j["state"] == "running" {
			t.Errorf("round %d: job %v (%v) is %v after a restart", round, j["id"], j["kind"], j["state"])
		}
	}
	var models []map[string]any
	getJSON(base+"/api/models", &models)
	for _, m := range models {
		if m["state"] == "training" {
			t.Errorf("round %d: model %v is training after a restart", round, m["id"])
		}
	}
}

func checkIntegrity(t *testing.T, dir string, round int) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "taglens.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var res string
	if err := db.QueryRow(`PRAGMA integrity_check`).Scan(&res); err != nil || res != "ok" {
		t.Fatalf("round %d: integrity_check after SIGKILL: %q, %v", round, res, err)
	}
}

func firstCorpus(t *testing.T, base string) string {
	t.Helper()
	var corpora []map[string]any
	getJSON(base+"/api/corpora", &corpora)
	if len(corpora) == 0 {
		t.Fatal("no corpus: the first upload failed")
	}
	return fmt.Sprint(corpora[0]["id"])
}

func getJSON(url string, v any) {
	resp, err := http.Get(url)
	if err != nil {
		return
	}
	defer resp.Body.Close()
	json.NewDecoder(resp.Body).Decode(v)
}

// startCrashTraining asks for a small model of corpusID and returns its job id
// ("" when the request failed).
func startCrashTraining(base, corpusID string, round int) string {
	body := fmt.Sprintf(`{"corpus_id":%q,"name":"crash %d","seed":%d,"params":{"hidden":[16,8],"topics":4,"max_epochs1":4,"max_epochs2":2,"patience":2,"epoch_examples":4000,"pretrain_iterations":-1,"alpha":0.1,"lambda":1}}`,
		corpusID, round, round+1)
	resp, err := http.Post(base+"/api/models", "application/json", strings.NewReader(body))
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	var out map[string]any
	json.NewDecoder(resp.Body).Decode(&out)
	if s, ok := out["job_id"].(string); ok {
		return s
	}
	return ""
}

func uploadCrashCorpus(base, name string, content []byte) {
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	w.WriteField("name", name)
	fw, _ := w.CreateFormFile("file", name+".tsv")
	fw.Write(content)
	w.Close()
	resp, err := http.Post(base+"/api/corpora", w.FormDataContentType(), &body)
	if err == nil {
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}

// crashCorpus is a corpus of 20,000 documents (crashCorpusN).
func crashCorpus() []byte { return crashCorpusN(20000) }

// crashCorpusN is a corpus of n documents of 3-6 of 300 tags; the crash
// test's uploads have 80,000 (about 2.7 MB), large enough to be still in
// flight at some kills.
func crashCorpusN(n int) []byte {
	rng := rand.New(rand.NewPCG(1, 2))
	var b bytes.Buffer
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "d%d", i)
		for j := 0; j < 3+rng.IntN(4); j++ {
			fmt.Fprintf(&b, "\tt%d", rng.IntN(300))
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}
