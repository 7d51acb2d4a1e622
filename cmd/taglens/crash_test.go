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
	"strings"
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

// TestServeCrash kills `taglens serve` with SIGKILL at 20 random moments while
// corpora are uploaded, models train and model files are saved, restarting it
// each time on the same data directory. After every kill the database passes
// PRAGMA integrity_check; after every restart no temporary file is left and
// every interrupted job says why; at the end a new training succeeds.
func TestServeCrash(t *testing.T) {
	if testing.Short() {
		t.Skip("starts and kills the server 20 times")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(20, 26))
	corpusTSV := crashCorpus()

	var corpusID string
	removed := 0 // restarts that found temporary files to remove
	for round := 0; round < 20; round++ {
		srv := startCrashChild(t, exe, dir)
		checkAfterRestart(t, srv.base, dir, round)
		if strings.Contains(srv.out.String(), "removed temporary files") {
			removed++
		}
		if corpusID == "" {
			uploadCrashCorpus(srv.base, "first", corpusTSV[:len(corpusTSV)/10])
			corpusID = firstCorpus(t, srv.base)
		}
		// Work for the kill to interrupt: an upload, then a training of a small
		// model (which ends by saving its file), both in flight when the kill comes.
		if round%2 == 0 {
			go uploadCrashCorpus(srv.base, fmt.Sprintf("c%d", round), corpusTSV)
		}
		startCrashTraining(srv.base, corpusID, round)
		time.Sleep(time.Duration(50+rng.IntN(5000)) * time.Millisecond)
		srv.kill(t)
		checkIntegrity(t, dir, round)
	}

	// A last start: a new training runs to the end.
	srv := startCrashChild(t, exe, dir)
	defer srv.kill(t)
	checkAfterRestart(t, srv.base, dir, 20)
	var jobs []map[string]any
	getJSON(srv.base+"/api/jobs", &jobs)
	states := map[string]int{}
	for _, j := range jobs {
		states[fmt.Sprint(j["state"])]++
	}
	t.Logf("after 20 kills: jobs by state %v; %d restarts removed temporary files", states, removed)
	if states["interrupted"] == 0 {
		t.Error("no job was interrupted by a kill: the test did not exercise a crash during work")
	}
	jobID := startCrashTraining(srv.base, corpusID, 99)
	if jobID == "" {
		t.Fatal("could not start a training after the crashes")
	}
	deadline := time.Now().Add(3 * time.Minute)
	for time.Now().Before(deadline) {
		var job map[string]any
		getJSON(srv.base+"/api/jobs/"+jobID, &job)
		switch job["state"] {
		case "done":
			return
		case "failed", "cancelled", "interrupted":
			t.Fatalf("training after the crashes: %v: %v", job["state"], job["message"])
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatal("training after the crashes did not finish within 3 minutes")
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

// checkAfterRestart: no temporary file is left in the data directory, and no job
// is queued or running without a process behind it: interrupted ones say why.
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
	getJSON(base+"/api/jobs", &jobs)
	for _, j := range jobs {
		if j["state"] == "interrupted" && !strings.HasPrefix(fmt.Sprint(j["message"]), "the server stopped while this job was") {
			t.Errorf("round %d: interrupted job %v says %q, not why", round, j["id"], j["message"])
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
	body := fmt.Sprintf(`{"corpus_id":%q,"name":"crash %d","seed":%d,"params":{"hidden":[16,8],"topics":4,"max_epochs1":2,"max_epochs2":1,"patience":1,"epoch_examples":2000,"pretrain_iterations":-1,"alpha":0.1,"lambda":1}}`,
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

// crashCorpus is a corpus of 20,000 documents, large enough that its upload is
// still being stored at many of the kills.
func crashCorpus() []byte {
	rng := rand.New(rand.NewPCG(1, 2))
	var b bytes.Buffer
	for i := 0; i < 20000; i++ {
		fmt.Fprintf(&b, "d%d", i)
		for j := 0; j < 3+rng.IntN(4); j++ {
			fmt.Fprintf(&b, "\tt%d", rng.IntN(300))
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}
