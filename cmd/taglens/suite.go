package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/taglens/taglens/internal/report"
	"github.com/taglens/taglens/ml/eval"
)

func init() {
	register(command{name: "suite", summary: "render the development-suite table (docs/suite.md) from docs/suite.sh's results", run: runSuite})
}

func runSuite(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("suite", "--in DIR --out FILE.md", stderr)
	in := fs.String("in", "", "folder of docs/suite.sh's results (CORPUS.PROTOCOL.json, train-CORPUS-sSEED.{json,time})")
	out := fs.String("out", "", "markdown file to write (\"-\" = stdout)")
	if err := parseFlags(fs, args, "in", "out"); err != nil {
		return err
	}
	if err := checkOutput(output{flag: "out", path: *out}); err != nil {
		return fmt.Errorf("suite: %w", err)
	}
	s, err := readSuite(*in)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if err := report.WriteSuite(&b, s); err != nil {
		return err
	}
	if *out == "-" {
		_, err = stdout.Write(b.Bytes())
		return err
	}
	return writeReportFile(*out, b.Bytes())
}

// readSuite reads every corpus that has at least one result in dir, in the
// order of the suite (corpora sorted by name), and the run's commit, code id
// and run.tsv.
func readSuite(dir string) (*report.Suite, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("suite: %w", err)
	}
	names := map[string]bool{}
	for _, e := range entries {
		n := e.Name()
		for _, p := range report.SuiteProtocols {
			if c, ok := strings.CutSuffix(n, "."+p+".json"); ok {
				names[c] = true
			}
		}
		switch {
		case strings.HasPrefix(n, "train-") && strings.HasSuffix(n, ".time"):
			base := strings.TrimSuffix(strings.TrimPrefix(n, "train-"), ".time")
			if i := strings.LastIndex(base, "-s"); i > 0 {
				names[base[:i]] = true
			}
		}
	}
	s := &report.Suite{}
	for _, c := range slices.Sorted(maps.Keys(names)) {
		sc := report.SuiteCorpus{Name: c, Reports: map[string]*eval.Report{}}
		for _, p := range report.SuiteProtocols {
			rep, err := readReport(filepath.Join(dir, c+"."+p+".json"))
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return nil, err
			}
			sc.Reports[p] = rep
		}
		for seed := 1; ; seed++ {
			name := fmt.Sprintf("train-%s-s%d.time", c, seed)
			b, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				break
			}
			t, ok, err := report.ParseTrainTime(b)
			if err != nil {
				return nil, fmt.Errorf("suite: %s: %w", name, err)
			}
			if !ok {
				break // /usr/bin/time writes its file when the training ends: still running
			}
			sc.Trainings = append(sc.Trainings, t)
		}
		s.Corpora = append(s.Corpora, sc)
	}
	id, err1 := os.ReadFile(filepath.Join(dir, "CODE_ID"))
	commit, err2 := os.ReadFile(filepath.Join(dir, "COMMIT"))
	if err1 == nil && err2 == nil {
		s.Source = &report.SuiteSource{Commit: string(commit), CodeID: string(id)}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "run.tsv")); err == nil {
		s.Run = strings.Split(strings.TrimSpace(string(b)), "\n")
	}
	return s, nil
}

func readReport(path string) (*eval.Report, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r eval.Report
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("suite: %s: %w", path, err)
	}
	return &r, nil
}
