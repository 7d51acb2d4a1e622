package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// writeBlobs writes two well-separated 3-D clusters of n/2 points each.
func writeBlobs(t *testing.T, n int) string {
	t.Helper()
	var b strings.Builder
	for i := 0; i < n; i++ {
		c := float64(10 * (i % 2))
		// Deterministic jitter.
		fmt.Fprintf(&b, "%g\t%g\t%g\n", c+math.Sin(float64(i)), c+math.Cos(float64(3*i)), math.Sin(float64(7*i)))
	}
	path := filepath.Join(t.TempDir(), "vectors.tsv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestTSNECommand(t *testing.T) {
	in := writeBlobs(t, 60)
	out := filepath.Join(t.TempDir(), "points.tsv")
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"tsne", "--in", in, "--out", out, "--perplexity", "5", "--iters", "300", "--json"}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("run: %v (stderr %s)", err, stderr.String())
	}
	var rep tsneReport
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("json %q: %v", stdout.String(), err)
	}
	if rep.N != 60 || rep.Dims != 3 || rep.Method != "exact" || rep.Iterations != 300 || !(rep.KL > 0) {
		t.Errorf("report got %+v, want n 60, dims 3, method exact, 300 iterations, KL > 0", rep)
	}
	if !strings.Contains(stderr.String(), "iteration 300/300") {
		t.Errorf("stderr got %q, want progress", stderr.String())
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 60 {
		t.Fatalf("got %d output lines, want 60", len(lines))
	}
	// Points in input order: even lines form one cluster, odd the other, so
	// every point is nearer to the mean of its own parity class.
	var pts [][2]float64
	for i, l := range lines {
		f := strings.Split(l, "\t")
		if len(f) != 2 {
			t.Fatalf("line %d: got %q, want x<TAB>y", i+1, l)
		}
		x, err1 := strconv.ParseFloat(f[0], 64)
		y, err2 := strconv.ParseFloat(f[1], 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("line %d: %q not numbers", i+1, l)
		}
		pts = append(pts, [2]float64{x, y})
	}
	var mean [2][2]float64
	for i, p := range pts {
		mean[i%2][0] += p[0] / 30
		mean[i%2][1] += p[1] / 30
	}
	for i, p := range pts {
		own := math.Hypot(p[0]-mean[i%2][0], p[1]-mean[i%2][1])
		other := math.Hypot(p[0]-mean[1-i%2][0], p[1]-mean[1-i%2][1])
		if own >= other {
			t.Errorf("point %d at %v nearer the other cluster", i, p)
		}
	}
	// Same seed → same bytes.
	out2 := filepath.Join(t.TempDir(), "points2.tsv")
	if err := run(context.Background(), []string{"tsne", "--in", in, "--out", out2, "--perplexity", "5", "--iters", "300"}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	data2, _ := os.ReadFile(out2)
	if !bytes.Equal(data, data2) {
		t.Error("same seed gave different output bytes")
	}
}

func TestTSNECommandErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := writeBlobs(t, 20)
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantErr  string
	}{
		{"ragged", []string{"--in", write("r.tsv", "1\t2\n3\t4\n5\n6\t7\n"), "--perplexity", "1"}, 1, "line 3"},
		{"nan", []string{"--in", write("n.tsv", "1\t2\n3\tNaN\n5\t1\n6\t7\n"), "--perplexity", "1"}, 1, "line 2"},
		{"text", []string{"--in", write("t.tsv", "1\t2\n3\tx\n5\t1\n6\t7\n"), "--perplexity", "1"}, 1, "line 2 field 2"},
		{"few", []string{"--in", write("f.tsv", "1\t2\n3\t4\n5\t1\n"), "--perplexity", "0.5"}, 1, "at least 4"},
		{"perplexity", []string{"--in", good}, 2, "--perplexity 30: must be below 6.667"},
		{"method", []string{"--in", good, "--method", "pca"}, 2, ""},
		{"missing in", []string{}, 2, ""},
		{"no file", []string{"--in", filepath.Join(dir, "nope.tsv")}, 1, "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			args := append([]string{"tsne", "--out", filepath.Join(dir, "o.tsv")}, tt.args...)
			err := run(context.Background(), args, &stdout, &stderr)
			if code := exitCode(err, &stderr); code != tt.wantCode {
				t.Fatalf("exit code got %d, want %d (err %v)", code, tt.wantCode, err)
			}
			if err != nil && !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error got %q, want it to contain %q", err, tt.wantErr)
			}
		})
	}
}

// TestFlagRanges checks that out-of-range flag values of tsne and prime exit
// 2 with a message naming the flag and its allowed range, before any work.
func TestFlagRanges(t *testing.T) {
	in := writeBlobs(t, 30)
	out := filepath.Join(t.TempDir(), "points.tsv")
	tsneArgs := func(extra ...string) []string {
		return append([]string{"tsne", "--in", in, "--out", out}, extra...)
	}
	primeArgs := func(k string) []string {
		return []string{"prime", "--model", filepath.Join(t.TempDir(), "absent.model"), "--tags", "a,b", "--k", k}
	}
	tests := []struct {
		name string
		args []string
		want []string // substrings of the message
	}{
		{"perplexity zero", tsneArgs("--perplexity", "0"), []string{"--perplexity 0", "> 0"}},
		{"perplexity negative", tsneArgs("--perplexity", "-2"), []string{"--perplexity -2", "> 0"}},
		{"perplexity NaN", tsneArgs("--perplexity", "NaN"), []string{"--perplexity NaN", "finite"}},
		{"perplexity Inf", tsneArgs("--perplexity", "+Inf"), []string{"--perplexity +Inf", "finite"}},
		{"perplexity too large", tsneArgs("--perplexity", "10"), []string{"--perplexity 10", "below 10", "30 vectors"}},
		{"perplexity default too large", tsneArgs(), []string{"--perplexity 30", "below 10"}},
		{"iters zero", tsneArgs("--perplexity", "5", "--iters", "0"), []string{"--iters 0", "positive"}},
		{"iters negative", tsneArgs("--perplexity", "5", "--iters", "-5"), []string{"--iters -5", "positive"}},
		{"iters 1e11", tsneArgs("--perplexity", "5", "--iters", "1e11"), []string{"--iters 100000000000: must be a positive integer in 1..100000"}},
		{"iters 100001", tsneArgs("--perplexity", "5", "--iters", "100001"), []string{"--iters 100001", "1..100000"}},
		{"k negative", primeArgs("-1"), []string{"--k -1", "1..1000"}},
		{"k zero", primeArgs("0"), []string{"--k 0", "1..1000"}},
		{"k too large", primeArgs("1001"), []string{"--k 1001", "1..1000"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := run(context.Background(), tt.args, &stdout, &stderr)
			var msg bytes.Buffer
			if code := exitCode(err, &msg); code != 2 {
				t.Fatalf("exit code %d (err %v), want 2", code, err)
			}
			for _, w := range tt.want {
				if !strings.Contains(msg.String(), w) {
					t.Errorf("message %q does not contain %q", msg.String(), w)
				}
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("output file written")
			}
		})
	}
}

// TestTSNEBadValues checks that overflowing input is an error (exit 1) naming
// the 1-based vector and field, with no output written.
func TestTSNEBadValues(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := 0; i < 20; i++ {
		v := float64(i)
		if i == 4 {
			v = 1e308
		}
		fmt.Fprintf(&b, "%d\t%g\t%d\n", i%3, v, i%5)
	}
	in := filepath.Join(dir, "big.tsv")
	if err := os.WriteFile(in, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	nan := filepath.Join(dir, "nan.tsv")
	if err := os.WriteFile(nan, []byte("1\t2\n3\tNaN\n4\t5\n6\t7\n8\t9\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		in   string
		want string
	}{{in, "vector 5 field 2"}, {nan, "line 2 field 2"}} {
		out := filepath.Join(dir, "points.tsv")
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), []string{"tsne", "--in", tc.in, "--out", out, "--perplexity", "1", "--iters", "50"}, &stdout, &stderr)
		var msg bytes.Buffer
		if code := exitCode(err, &msg); code != 1 {
			t.Fatalf("%s: exit code %d (err %v), want 1", tc.in, code, err)
		}
		if !strings.Contains(msg.String(), tc.want) {
			t.Errorf("%s: message %q does not name %q", tc.in, msg.String(), tc.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: output file written", tc.in)
		}
	}
}
