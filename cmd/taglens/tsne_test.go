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
	var rep struct {
		N          int     `json:"n"`
		Dims       int     `json:"dims"`
		Method     string  `json:"method"`
		Iterations int     `json:"iterations"`
		Seconds    float64 `json:"seconds"`
		KL         float64 `json:"kl"`
	}
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
		{"perplexity", []string{"--in", good}, 1, "perplexity 30 too large for 20"},
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
