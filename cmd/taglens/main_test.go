package main

import (
	"bytes"
	"context"
	"flag"
	"strings"
	"testing"
)

func TestRunUsage(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantOut  string // substring of stdout
		wantErr  string // substring of stderr
	}{
		{"no args", nil, 2, "", "usage: taglens"},
		{"unknown", []string{"nosuch"}, 2, "", `unknown subcommand "nosuch"`},
		{"help", []string{"help"}, 0, "usage: taglens", ""},
		{"version", []string{"version"}, 0, "taglens ", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := run(context.Background(), tt.args, &stdout, &stderr)
			if got := exitCode(err, &stderr); got != tt.wantCode {
				t.Errorf("exit code: got %d, want %d (err %v)", got, tt.wantCode, err)
			}
			if !strings.Contains(stdout.String(), tt.wantOut) {
				t.Errorf("stdout: got %q, want it to contain %q", stdout.String(), tt.wantOut)
			}
			if !strings.Contains(stderr.String(), tt.wantErr) {
				t.Errorf("stderr: got %q, want it to contain %q", stderr.String(), tt.wantErr)
			}
		})
	}
}

func TestParseFlags(t *testing.T) {
	var stderr bytes.Buffer
	fs := newFlagSet("x", "[flags]", &stderr)
	fs.Int("k", 10, "k")
	if err := parseFlags(fs, []string{"-nosuch"}); exitCode(err, &stderr) != 2 {
		t.Errorf("bad flag: got %v, want a usage error", err)
	}
	fs = newFlagSet("x", "[flags]", &stderr)
	if err := parseFlags(fs, []string{"-h"}); err != flag.ErrHelp {
		t.Errorf("-h: got %v, want flag.ErrHelp", err)
	}
	fs = newFlagSet("x", "[flags]", &stderr)
	if err := parseFlags(fs, []string{"stray"}); exitCode(err, &stderr) != 2 {
		t.Errorf("stray argument: got %v, want a usage error", err)
	}
	fs = newFlagSet("x", "[flags]", &stderr)
	fs.String("corpus", "", "corpus")
	_ = parseFlags(fs, nil)
	if err := requireFlags(fs, "corpus"); exitCode(err, &stderr) != 2 {
		t.Errorf("missing required flag: got %v, want a usage error", err)
	}
}

// TestUsageErrorReported: a bad flag value found after parsing exits 2 and
// names the reason on stderr; a usage error already printed with the usage
// text is not printed a second time.
func TestUsageErrorReported(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"train", "--corpus", "c", "--out", "o", "--decay", "2"}, "--decay 2: must be in (0, 1]"},
		{[]string{"train", "--corpus", "c", "--out", "o", "--average", "1"}, "--average 1: must be below 1"},
		{[]string{"train", "--corpus", "c", "--out", "o", "--within-doc", "1.5"}, "--within-doc 1.5: must be at most 1"},
		{[]string{"train", "--corpus", "c", "--out", "o", "--term-norm", "l2"}, "--term-norm \"l2\": must be unit or none"},
		{[]string{"prime", "--model", "m", "--tags", "a", "--variant", "x"}, `unknown variant "x" (want siamese-ce or ce)`},
	} {
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), tc.args, &stdout, &stderr)
		if code := exitCode(err, &stderr); code != 2 {
			t.Errorf("%v: exit code %d (%v), want 2", tc.args, code, err)
		}
		if !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%v: stderr %q does not name the reason %q", tc.args, stderr.String(), tc.want)
		}
	}
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"nosuch"}, &stdout, &stderr)
	exitCode(err, &stderr)
	if n := strings.Count(stderr.String(), "unknown subcommand"); n != 1 {
		t.Errorf("unknown subcommand reported %d times: %q", n, stderr.String())
	}
}
