package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/taglens/taglens/internal/report"
	"github.com/taglens/taglens/internal/textlist"
)

func init() {
	register(command{name: "report", summary: "render eval report JSON files as a markdown document", run: runReport})
}

const reportSynopsis = "--in DIR --out FILE.md [--title T] [--intro FILE] [--claims FILE] [--corpora LIST] [--charts DIR]"

// runReport implements `taglens report`: it reads every *.json file of --in
// (eval reports of `taglens eval --json` and training summaries of
// `taglens train --json`; other JSON files are skipped with a message), plus the
// optional run.tsv and steps.tsv written by docs/results.sh, and renders them
// into one markdown document:
//
//   - the headline table (extended priming, test subset, MAP and AUC per model
//     per corpus),
//   - the goal check (does CE or Siamese-CE rank first in MAP and AUC, and by how
//     much, in every within-corpus report),
//   - the paper's claims (--claims) next to the measured margins,
//   - a table per report (P@1, P@2, P@5, P@10, MAP, AUC, p-values, notes),
//     the 11-point precision-recall figures, baseline tuning and training runs,
//   - with --charts, figures of the headline and of every report's P@K and
//     precision-recall curves, linked from the document.
//
// The rendering is internal/report's; this command reads the files. Every
// number comes from the input files; the output is a pure function of them
// (same files → same bytes).
func runReport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("report", reportSynopsis, stderr)
	in := fs.String("in", "", "directory of eval report JSON files (and train summaries, run.tsv, steps.tsv)")
	out := fs.String("out", "", `markdown file to write ("-" = stdout)`)
	title := fs.String("title", "taglens: reproduction of the paper's semantic priming results", "document title")
	intro := fs.String("intro", "", "markdown file inserted verbatim after the title")
	claims := fs.String("claims", "", "TSV of the paper's claims: corpus, eval_corpus, protocol, subset, missing, ours, metric, paper_margin_%, statement ('-' = empty)")
	corpora := fs.String("corpora", "", "corpus order of the tables, comma-separated (unlisted corpora follow alphabetically)")
	charts := fs.String("charts", "", "directory to write SVG figures into, linked from the document (none when empty)")
	if err := parseFlags(fs, args, "in", "out"); err != nil {
		return err
	}
	if err := checkOutputs(output{flag: "out", path: *out}, output{flag: "charts", path: *charts, folder: true}); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	doc, err := loadReportDir(*in, stderr)
	if err != nil {
		return err
	}
	if len(doc.Reports) == 0 {
		return fmt.Errorf("report: no eval report in %s", *in)
	}
	doc.Title = *title
	doc.CorpusOrder = textlist.Split(*corpora)
	if *intro != "" {
		b, err := os.ReadFile(*intro)
		if err != nil {
			return fmt.Errorf("report: %w", err)
		}
		doc.Intro = string(b)
	}
	if *claims != "" {
		if doc.Claims, err = readFileWith(*claims, report.ParseClaims); err != nil {
			return fmt.Errorf("report: %w", err)
		}
	}
	if *charts != "" {
		doc.FigureLink = filepath.ToSlash(*charts)
		if *out != "-" {
			rel, err := filepath.Rel(filepath.Dir(*out), *charts)
			if err != nil {
				return fmt.Errorf("report: --charts: %w", err)
			}
			doc.FigureLink = filepath.ToSlash(rel)
		}
	}
	var b bytes.Buffer
	if err := report.Write(&b, doc); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if *charts != "" {
		figs, err := report.Figures(doc)
		if err != nil {
			return fmt.Errorf("report: %w", err)
		}
		if err := os.MkdirAll(*charts, 0o755); err != nil {
			return fmt.Errorf("report: %w", err)
		}
		for _, f := range figs {
			if err := writeReportFile(filepath.Join(*charts, f.Name), f.Data); err != nil {
				return fmt.Errorf("report: %w", err)
			}
		}
		fmt.Fprintf(stderr, "wrote %d figures in %s\n", len(figs), *charts)
	}
	if *out == "-" {
		_, err = stdout.Write(b.Bytes())
		return err
	}
	if err := writeReportFile(*out, b.Bytes()); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	fmt.Fprintf(stderr, "wrote %s: %d eval reports, %d training runs\n", *out, len(doc.Reports), len(doc.Trainings))
	return nil
}

// loadReportDir reads the JSON files of dir (sorted by name) and run.tsv,
// steps.tsv.
func loadReportDir(dir string, stderr io.Writer) (*report.Document, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	sort.Strings(names)
	doc := &report.Document{}
	for _, name := range names {
		b, err := os.ReadFile(name)
		if err != nil {
			return nil, fmt.Errorf("report: %w", err)
		}
		var probe map[string]json.RawMessage
		if err := json.Unmarshal(b, &probe); err != nil {
			return nil, fmt.Errorf("report: %s: %w", name, err)
		}
		base := filepath.Base(name)
		switch {
		case probe["protocol"] != nil && probe["models"] != nil:
			r := &report.Report{File: base}
			if err := json.Unmarshal(b, &r.Report); err != nil {
				return nil, fmt.Errorf("report: %s: %w", name, err)
			}
			if err := report.CheckReport(&r.Report); err != nil {
				return nil, fmt.Errorf("report: %s: %w", name, err)
			}
			doc.Reports = append(doc.Reports, r)
		case probe["model"] != nil && probe["vocabulary"] != nil:
			t := report.Training{File: base}
			if err := json.Unmarshal(b, &t); err != nil {
				return nil, fmt.Errorf("report: %s: %w", name, err)
			}
			doc.Trainings = append(doc.Trainings, t)
		default:
			fmt.Fprintf(stderr, "report: %s skipped: neither an eval report nor a training summary\n", name)
		}
	}
	run, err := readTSV(filepath.Join(dir, "run.tsv"))
	if err != nil {
		return nil, err
	}
	doc.Run = report.Pairs(run)
	if doc.Steps, err = readTSV(filepath.Join(dir, "steps.tsv")); err != nil {
		return nil, err
	}
	return doc, nil
}

// readTSV reads the rows of a TSV file (report.ParseTSV); a missing file is no
// rows.
func readTSV(path string) ([][]string, error) {
	rows, err := readFileWith(path, report.ParseTSV)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	return rows, nil
}
