package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/taglens/taglens/ml/eval"
)

func init() {
	register(command{name: "suite", summary: "render the development-suite table (docs/suite.md) from docs/suite.sh's results", run: runSuite})
}

// ours are the model names of taglens's own method in eval reports.
var ours = []string{"ce", "siamese-ce"}

// suiteRow is one corpus's line of the suite table.
type suiteRow struct {
	Corpus string
	Docs   int // test documents evaluated
	Metric map[string]suiteCell
	// Train times (s) and peak memory (KiB) of the seeds' trainings.
	TrainSecs []float64
	TrainRSS  []float64
	Missing   []string // what is not there yet
}

// suiteCell compares ours with the best other model on one protocol and metric.
type suiteCell struct {
	OursName, OtherName string
	Ours, OursSE        float64
	Other, OtherSE      float64
	P                   float64 // Student's t-test between their per-trial values; NaN if unavailable
	Rank                int     // rank of ours among ours-best + every other model
	Models              int
}

func runSuite(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("suite", "--in DIR --out FILE.md", stderr)
	in := fs.String("in", "", "folder of docs/suite.sh's results (CORPUS.PROTOCOL.json, train-CORPUS-sSEED.{json,time})")
	out := fs.String("out", "", "markdown file to write (\"-\" = stdout)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := requireFlags(fs, "in", "out"); err != nil {
		return err
	}
	rows, err := readSuite(*in)
	if err != nil {
		return err
	}
	var b strings.Builder
	writeSuite(&b, rows, *in)
	if *out == "-" {
		_, err = io.WriteString(stdout, b.String())
		return err
	}
	return writeReportFile(*out, []byte(b.String()))
}

// readSuite reads every corpus that has at least one result in dir, in the
// order of the suite (corpora sorted by name).
func readSuite(dir string) ([]suiteRow, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("suite: %w", err)
	}
	names := map[string]bool{}
	for _, e := range entries {
		n := e.Name()
		switch {
		case strings.HasSuffix(n, ".extended.json"):
			names[strings.TrimSuffix(n, ".extended.json")] = true
		case strings.HasSuffix(n, ".priming.json"):
			names[strings.TrimSuffix(n, ".priming.json")] = true
		case strings.HasPrefix(n, "train-") && strings.HasSuffix(n, ".time"):
			base := strings.TrimSuffix(strings.TrimPrefix(n, "train-"), ".time")
			if i := strings.LastIndex(base, "-s"); i > 0 {
				names[base[:i]] = true
			}
		}
	}
	corpora := make([]string, 0, len(names))
	for n := range names {
		corpora = append(corpora, n)
	}
	sort.Strings(corpora)
	var rows []suiteRow
	for _, c := range corpora {
		row := suiteRow{Corpus: c, Metric: map[string]suiteCell{}}
		for _, p := range []string{"extended", "priming"} {
			rep, err := readReport(filepath.Join(dir, c+"."+p+".json"))
			if errors.Is(err, fs.ErrNotExist) {
				row.Missing = append(row.Missing, p+" evaluation")
				continue
			}
			if err != nil {
				return nil, err
			}
			if p == "extended" {
				row.Docs = docsOf(rep)
			}
			for _, metric := range []string{"map", "auc"} {
				if cell, ok := suiteCompare(rep, metric); ok {
					row.Metric[p+" "+metric] = cell
				}
			}
		}
		for s := 1; ; s++ {
			b, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("train-%s-s%d.time", c, s)))
			if err != nil {
				break
			}
			f := strings.Fields(string(b))
			if len(f) < 2 {
				return nil, fmt.Errorf("suite: train-%s-s%d.time: want \"seconds<TAB>KiB…\", got %q", c, s, string(b))
			}
			secs, err1 := strconv.ParseFloat(f[0], 64)
			rss, err2 := strconv.ParseFloat(f[1], 64)
			if err1 != nil || err2 != nil {
				return nil, fmt.Errorf("suite: train-%s-s%d.time: bad figures %q", c, s, string(b))
			}
			row.TrainSecs = append(row.TrainSecs, secs)
			row.TrainRSS = append(row.TrainRSS, rss)
		}
		rows = append(rows, row)
	}
	return rows, nil
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

func docsOf(r *eval.Report) int {
	for _, m := range r.Models {
		if slices.Contains(ours, m.Name) {
			return m.Docs
		}
	}
	return 0
}

// metricValue returns the mean, standard error and per-trial values of metric
// ("map" or "auc") for model m.
func suiteMetric(m *eval.ModelReport, metric string) (mean, se float64, trials []float64) {
	for _, t := range m.PerTrial {
		if metric == "map" {
			trials = append(trials, t.MAP)
		} else {
			trials = append(trials, t.AUC)
		}
	}
	if metric == "map" {
		return m.MAP, m.MAPSE, trials
	}
	return m.AUC, m.AUCSE, trials
}

// suiteCompare returns the better of our two variants against the best other model
// of report r on metric.
func suiteCompare(r *eval.Report, metric string) (suiteCell, bool) {
	var best, other *eval.ModelReport
	var bv, ov float64
	var others []float64
	for i := range r.Models {
		m := &r.Models[i]
		v, _, _ := suiteMetric(m, metric)
		if slices.Contains(ours, m.Name) {
			if best == nil || v > bv {
				best, bv = m, v
			}
			continue
		}
		others = append(others, v)
		if other == nil || v > ov {
			other, ov = m, v
		}
	}
	if best == nil || other == nil {
		return suiteCell{}, false
	}
	c := suiteCell{OursName: best.Name, OtherName: other.Name, Models: len(others) + 1, Rank: 1, P: math.NaN()}
	var xo, xt []float64
	c.Ours, c.OursSE, xo = suiteMetric(best, metric)
	c.Other, c.OtherSE, xt = suiteMetric(other, metric)
	for _, v := range others {
		if v > c.Ours {
			c.Rank++
		}
	}
	if _, p, ok := eval.StudentTTest(xo, xt); ok {
		c.P = p
	}
	return c, true
}

// suiteLabels name the variants and baselines in the table.
var suiteLabels = map[string]string{"ce": "CE", "siamese-ce": "Siamese-CE"}

func suiteLabel(name string) string {
	if l, ok := suiteLabels[name]; ok {
		return l
	}
	return name
}

func writeSuite(w *strings.Builder, rows []suiteRow, dir string) {
	fmt.Fprintf(w, "# The development suite: `taglens train` with no flags\n\n")
	fmt.Fprintf(w, "Generated by `docs/suite.sh` (do not edit by hand). Each corpus: CE and Siamese-CE trained with\n")
	fmt.Fprintf(w, "the defaults for seeds 1, 2, 3, evaluated on the test documents with every baseline, 3 trials\n")
	fmt.Fprintf(w, "(trial i: the model of seed i, baselines with seed i). \"Ours\" is the better of CE and Siamese-CE\n")
	fmt.Fprintf(w, "on that metric, \"best other\" the best of the other models; margin = ours / best other − 1; p is\n")
	fmt.Fprintf(w, "Student's two-sample t-test over the 3 trials; rank is ours among ours and every other model.\n")
	if b, err := os.ReadFile(filepath.Join(dir, "run.tsv")); err == nil {
		fmt.Fprintf(w, "\nRun:")
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			k, v, _ := strings.Cut(line, "\t")
			fmt.Fprintf(w, " %s %s;", k, v)
		}
		fmt.Fprintf(w, "\n")
	}
	for _, sec := range []struct{ key, title string }{
		{"extended", "Extended priming protocol (Eq. 9; every model)"},
		{"priming", "Priming protocol (Eq. 8; contextual models only: the non-contextual baselines are left out, as the paper does)"},
	} {
		fmt.Fprintf(w, "\n## %s\n\n", sec.title)
		fmt.Fprintf(w, "| corpus | test docs | MAP: ours | best other | margin | p | rank | AUC: ours | best other | margin | p | rank |\n")
		fmt.Fprintf(w, "|---|---:|---|---|---:|---:|---:|---|---|---:|---:|---:|\n")
		first, firstBoth, n := 0, 0, 0
		for _, r := range rows {
			mp, okM := r.Metric[sec.key+" map"]
			au, okA := r.Metric[sec.key+" auc"]
			if !okM || !okA {
				fmt.Fprintf(w, "| %s | | not run yet | | | | | | | | | |\n", r.Corpus)
				continue
			}
			n++
			if mp.Rank == 1 {
				first++
			}
			if mp.Rank == 1 && au.Rank == 1 {
				firstBoth++
			}
			fmt.Fprintf(w, "| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", r.Corpus, r.Docs,
				cellOurs(mp), cellOther(mp), suiteMargin(mp), suitePval(mp), suiteRank(mp),
				cellOurs(au), cellOther(au), suiteMargin(au), suitePval(au), suiteRank(au))
		}
		if n > 0 {
			fmt.Fprintf(w, "\nOurs first in MAP on %d of %d corpora, in MAP and AUC on %d of %d.\n", first, n, firstBoth, n)
		}
	}
	fmt.Fprintf(w, "\n## Training with the defaults\n\n")
	fmt.Fprintf(w, "Wall time and peak memory (resident set) of `taglens train` per seed, measured by /usr/bin/time\n")
	fmt.Fprintf(w, "while the script ran (see the run line above for how many steps shared the machine).\n\n")
	fmt.Fprintf(w, "| corpus | seconds (seeds 1, 2, 3) | median s | peak memory (MiB, max) |\n|---|---|---:|---:|\n")
	for _, r := range rows {
		if len(r.TrainSecs) == 0 {
			continue
		}
		var secs []string
		for _, s := range r.TrainSecs {
			secs = append(secs, fmt.Sprintf("%.0f", s))
		}
		fmt.Fprintf(w, "| %s | %s | %.0f | %.0f |\n", r.Corpus, strings.Join(secs, ", "), suiteMedian(r.TrainSecs), slices.Max(r.TrainRSS)/1024)
	}
	var missing []string
	for _, r := range rows {
		if len(r.Missing) > 0 {
			missing = append(missing, fmt.Sprintf("%s (%s)", r.Corpus, strings.Join(r.Missing, ", ")))
		}
	}
	if len(missing) > 0 {
		fmt.Fprintf(w, "\nNot run yet: %s.\n", strings.Join(missing, "; "))
	}
}

func cellOurs(c suiteCell) string {
	s := fmt.Sprintf("%.3f ± %.3f %s", c.Ours, c.OursSE, suiteLabel(c.OursName))
	if c.Rank == 1 {
		return "**" + s + "**"
	}
	return s
}

func cellOther(c suiteCell) string {
	s := fmt.Sprintf("%.3f ± %.3f %s", c.Other, c.OtherSE, suiteLabel(c.OtherName))
	if c.Rank > 1 {
		return "**" + s + "**"
	}
	return s
}

func suiteMargin(c suiteCell) string {
	if c.Other == 0 {
		return "–"
	}
	return fmt.Sprintf("%+.1f %%", 100*(c.Ours/c.Other-1))
}

func suitePval(c suiteCell) string {
	if math.IsNaN(c.P) {
		return "n/a"
	}
	if c.P < 0.001 {
		return "< 0.001"
	}
	return fmt.Sprintf("%.3f", c.P)
}

func suiteRank(c suiteCell) string {
	if c.Rank == 1 {
		return fmt.Sprintf("1 of %d", c.Models)
	}
	return fmt.Sprintf("**%d** of %d", c.Rank, c.Models)
}

func suiteMedian(x []float64) float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
