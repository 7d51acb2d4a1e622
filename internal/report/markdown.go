// Package report renders the results documents of taglens, docs/results.md
// (the reproduction of the paper's figures, from eval reports and training
// summaries) and docs/suite.md (the development suite), as markdown, and
// draws their static figures.
//
// It takes plain Go values (loaded reports, parsed claims, options) and writes
// to an io.Writer; reading the files and parsing flags is the business of
// cmd/taglens. The package is internal: its only user is the taglens binary,
// and the documents' layout is the command's contract, not a library API, so
// it can change without promises to other modules. It lives outside ml/
// because ml/ stays free of presentation code and of the plotting library.
//
// Every number comes from the inputs; the output is a pure function of them
// (same inputs, same bytes), which the golden-file tests hold it to.
package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/taglens/taglens/internal/textlist"
	"github.com/taglens/taglens/ml/baselines"
	"github.com/taglens/taglens/ml/eval"
)

// Report is one eval report (of `taglens eval --json`) and its file name.
type Report struct {
	File string
	eval.Report
}

// Training is what the document shows of one training summary (the --json
// output of `taglens train`), and its file name. The JSON names are those of
// that summary; its other fields are ignored.
type Training struct {
	File           string  `json:"-"`
	Corpus         string  `json:"corpus"`
	TrainDocs      int     `json:"train_docs"`
	ValidDocs      int     `json:"valid_docs"`
	Vocabulary     int     `json:"vocabulary"`
	Topics         int     `json:"topics"`
	Alpha          float64 `json:"alpha"`
	Lambda         float64 `json:"lambda"`
	Epochs1        int     `json:"epochs_stage1"`
	Epochs2        int     `json:"epochs_stage2"`
	ValidP2CE      float64 `json:"valid_p2_ce"`
	ValidP2Siamese float64 `json:"valid_p2_siamese_ce"`
	ValidP2Random  float64 `json:"valid_p2_random"`
	Seconds        float64 `json:"seconds"`
}

// Claim is one line of the claims file: what the paper says about one setting.
type Claim struct {
	Corpus, EvalCorpus, Protocol, Subset, Missing string
	Ours                                          []string // the models counted as ours (e.g. ce, siamese-ce)
	Metric                                        string   // map or auc
	Margin                                        float64  // the paper's margin in percent; NaN when not quantified
	Statement                                     string
}

// Document is everything docs/results.md is rendered from.
type Document struct {
	Title     string
	Intro     string // markdown inserted verbatim after the title
	Reports   []*Report
	Trainings []Training
	Run       [][2]string // run.tsv: key, value
	Steps     [][]string  // steps.tsv: step, seconds, status
	Claims    []Claim
	// CorpusOrder orders the tables by training corpus; unlisted corpora
	// follow alphabetically.
	CorpusOrder []string
	// FigureLink is the path the document links its figures by (the folder
	// Figures' files are written to, relative to the document); no figure
	// is linked when it is empty.
	FigureLink string
}

// figure writes the markdown image link of the figure called name; it does
// nothing when the document links no figures.
func (s *Document) figure(w *bytes.Buffer, name, alt string) {
	if s.FigureLink == "" {
		return
	}
	fmt.Fprintf(w, "![%s](%s/%s)\n\n", alt, s.FigureLink, name)
}

// Write renders d as markdown to w. The reports are shown in the order of
// their setting, corpus (d.CorpusOrder), evaluation corpus, missing band,
// protocol and subset; d itself is not changed.
func Write(w io.Writer, d *Document) error {
	s := *d
	s.Reports = slices.Clone(d.Reports)
	s.Trainings = slices.Clone(d.Trainings)
	s.sortReports()
	var b bytes.Buffer
	s.render(&b)
	_, err := w.Write(b.Bytes())
	return err
}

// ParseTSV reads tab-separated rows, skipping blank lines and # comments.
func ParseTSV(r io.Reader) ([][]string, error) {
	var rows [][]string
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		rows = append(rows, strings.Split(line, "\t"))
	}
	return rows, sc.Err()
}

// Pairs turns TSV rows into key, value pairs: the first field, and the others
// joined by tabs.
func Pairs(rows [][]string) [][2]string {
	out := make([][2]string, 0, len(rows))
	for _, r := range rows {
		out = append(out, [2]string{r[0], strings.Join(r[1:], "\t")})
	}
	return out
}

// CheckReport rejects reports whose arrays are too short to render.
func CheckReport(r *eval.Report) error {
	for _, m := range r.Models {
		if len(m.PAtK) < 10 || len(m.PAtKSE) < 10 || len(m.PR) < eval.RecallLevels || len(m.PRSE) < eval.RecallLevels {
			return fmt.Errorf("model %q: p_at_k, pr and their standard errors need 10 and %d values", m.Name, eval.RecallLevels)
		}
	}
	return nil
}

// ParseClaims parses the claims TSV: one claim a line, nine tab-separated
// fields (corpus, eval_corpus, protocol, subset, missing, ours as a
// comma-separated list of models, metric map or auc, the paper's margin in
// percent, statement), "-" for an empty field; blank lines and # comments are
// skipped.
func ParseClaims(r io.Reader) ([]Claim, error) {
	var out []Claim
	sc := bufio.NewScanner(r)
	line := 0
	for sc.Scan() {
		line++
		s := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(s) == "" || strings.HasPrefix(s, "#") {
			continue
		}
		f := strings.Split(s, "\t")
		if len(f) != 9 {
			return nil, fmt.Errorf("line %d: %d fields, want 9 (corpus, eval_corpus, protocol, subset, missing, ours, metric, paper_margin, statement)", line, len(f))
		}
		for i := range f {
			if f[i] = strings.TrimSpace(f[i]); f[i] == "-" {
				f[i] = ""
			}
		}
		c := Claim{Corpus: f[0], EvalCorpus: f[1], Protocol: f[2], Subset: f[3], Missing: f[4],
			Ours: textlist.Split(f[5]), Metric: strings.ToLower(f[6]), Margin: math.NaN(), Statement: f[8]}
		if c.Metric != "map" && c.Metric != "auc" {
			return nil, fmt.Errorf("line %d: metric %q, want map or auc", line, f[6])
		}
		if len(c.Ours) == 0 {
			return nil, fmt.Errorf("line %d: no model named as ours", line)
		}
		if f[7] != "" {
			v, err := strconv.ParseFloat(strings.TrimSuffix(f[7], "%"), 64)
			if err != nil {
				return nil, fmt.Errorf("line %d: paper margin %q: %w", line, f[7], err)
			}
			c.Margin = v
		}
		out = append(out, c)
	}
	return out, sc.Err()
}

// settingOrder and subsetOrder sort the reports.
var (
	settingOrder = []eval.Setting{eval.WithinCorpus, eval.CrossCorpora, eval.IncompleteContext, eval.OOVSetting}
	subsetOrder  = []string{"train", "valid", "test", "all", "oov"}
	// modelOrder is the report order of model names; others follow alphabetically.
	modelOrder = append(slices.Clone(baselines.Names), "ce", "siamese-ce", "ce-feature", "siamese-ce-feature", "ce-avg", "siamese-ce-avg")
	// ourModels are the paper's models (CE and Siamese-CE and their OOV variants).
	ourModels = []string{"ce", "siamese-ce", "ce-feature", "siamese-ce-feature", "ce-avg", "siamese-ce-avg"}
)

// rank returns the position of s in order, or len(order) when absent.
func rank[T comparable](order []T, s T) int {
	if i := slices.Index(order, s); i >= 0 {
		return i
	}
	return len(order)
}

func (s *Document) corpusRank(name string) int { return rank(s.CorpusOrder, name) }

func (s *Document) sortReports() {
	slices.SortStableFunc(s.Reports, func(a, b *Report) int {
		keys := [][2]int{
			{rank(settingOrder, a.Setting), rank(settingOrder, b.Setting)},
			{s.corpusRank(a.Corpus), s.corpusRank(b.Corpus)},
		}
		for _, k := range keys {
			if k[0] != k[1] {
				return k[0] - k[1]
			}
		}
		for _, p := range [][2]string{{a.Corpus, b.Corpus}, {a.EvalCorpus, b.EvalCorpus}, {a.Missing, b.Missing}} {
			if c := strings.Compare(p[0], p[1]); c != 0 {
				return c
			}
		}
		if a.Protocol != b.Protocol { // extended first, as the paper's headline
			return strings.Compare(a.Protocol, b.Protocol)
		}
		return rank(subsetOrder, a.Subset) - rank(subsetOrder, b.Subset)
	})
	slices.SortStableFunc(s.Trainings, func(a, b Training) int {
		if c := s.corpusRank(a.Corpus) - s.corpusRank(b.Corpus); c != 0 {
			return c
		}
		return strings.Compare(a.Corpus, b.Corpus)
	})
}

// corpora returns the training corpora of the reports in table order.
func (s *Document) corpora() []string {
	var out []string
	for _, r := range s.Reports {
		if !slices.Contains(out, r.Corpus) {
			out = append(out, r.Corpus)
		}
	}
	return out
}

// label names a report's setting in one line.
func (r *Report) label() string {
	var b strings.Builder
	b.WriteString(r.Corpus)
	if r.EvalCorpus != "" {
		b.WriteString(" → " + r.EvalCorpus)
	}
	fmt.Fprintf(&b, ", %s protocol, %s subset", r.Protocol, r.Subset)
	if r.Missing != "" {
		fmt.Fprintf(&b, ", missing %s %%", r.Missing)
	}
	return b.String()
}

func (r *Report) model(name string) *eval.ModelReport {
	for i := range r.Models {
		if r.Models[i].Name == name {
			return &r.Models[i]
		}
	}
	return nil
}

// metricValue returns a model's mean and standard error of metric (map or auc).
func metricValue(m *eval.ModelReport, metric string) (float64, float64) {
	if metric == "auc" {
		return m.AUC, m.AUCSE
	}
	return m.MAP, m.MAPSE
}

// comparison is ours against the others on one metric of one report.
type comparison struct {
	ours, other       string  // best of ours, best of the others ("" if none)
	oursVal, otherVal float64 // their means
	winner            string  // best model overall
	oursRank          int     // 1-based rank of the best of ours among all models
	p                 float64 // Student's t-test between ours and other over the trials; NaN if unavailable
}

// perTrial returns a model's per-trial values of metric (map or auc).
func perTrial(m *eval.ModelReport, metric string) []float64 {
	x := make([]float64, len(m.PerTrial))
	for i, t := range m.PerTrial {
		x[i] = t.MAP
		if metric == "auc" {
			x[i] = t.AUC
		}
	}
	return x
}

// compareOurs finds the best of the models named in ours and the best of the
// others on metric; ties go to the earlier model.
func compareOurs(r *Report, ours []string, metric string) (comparison, bool) {
	c := comparison{}
	vals := make([]float64, len(r.Models))
	bestOurs := -1
	for i := range r.Models {
		m := &r.Models[i]
		vals[i], _ = metricValue(m, metric)
		if slices.Contains(ours, m.Name) {
			if bestOurs < 0 || vals[i] > c.oursVal {
				bestOurs, c.ours, c.oursVal = i, m.Name, vals[i]
			}
		} else if c.other == "" || vals[i] > c.otherVal {
			c.other, c.otherVal = m.Name, vals[i]
		}
	}
	if bestOurs < 0 {
		return c, false
	}
	c.oursRank = 1
	best := 0
	for i, v := range vals {
		if v > vals[bestOurs] {
			c.oursRank++
		}
		if v > vals[best] {
			best = i
		}
	}
	c.winner = r.Models[best].Name
	c.p = math.NaN()
	if c.other != "" {
		x, y := perTrial(r.model(c.ours), metric), perTrial(r.model(c.other), metric)
		// A degenerate test (no variance in either sample) is no evidence.
		if _, p, ok := eval.StudentTTest(x, y); ok && !(constantValues(x) && constantValues(y)) {
			c.p = p
		}
	}
	return c, true
}

// constantValues reports whether every value of x is the same.
func constantValues(x []float64) bool {
	for _, v := range x {
		if v != x[0] {
			return false
		}
	}
	return true
}

// fmtP formats c.p.
func (c comparison) fmtP() string {
	if math.IsNaN(c.p) {
		return "n/a"
	}
	return fmt.Sprintf("%.2g", c.p)
}

// margins returns ours over the best other model in percent of the other
// (relative) and in points of the metric ×100 (absolute).
func (c comparison) margins() (rel, abs float64) {
	abs = 100 * (c.oursVal - c.otherVal)
	rel = math.NaN()
	if c.otherVal > 0 {
		rel = 100 * (c.oursVal - c.otherVal) / c.otherVal
	}
	return rel, abs
}

// fmtMargin writes "+12.3 % (+4.5 pts)".
func (c comparison) fmtMargin() string {
	if c.other == "" {
		return "n/a (no other model)"
	}
	rel, abs := c.margins()
	if math.IsNaN(rel) {
		return fmt.Sprintf("%+.1f pts", abs)
	}
	return fmt.Sprintf("%+.1f %% (%+.1f pts)", rel, abs)
}

func pm(m, se float64) string { return fmt.Sprintf("%.3f ± %.3f", m, se) }

// pValue formats the p-value of metric in r, with who it compares.
func pValue(r *Report, metric string) string {
	pv, ok := r.PValues[metric]
	if !ok {
		return "n/a"
	}
	if pv.P == nil {
		return fmt.Sprintf("n/a (%s vs %s)", pv.Best, pv.RunnerUp)
	}
	return fmt.Sprintf("%.2g (%s vs %s)", *pv.P, pv.Best, pv.RunnerUp)
}

// mdEscape keeps a cell on one table row.
func mdEscape(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}

func (s *Document) render(w *bytes.Buffer) {
	fmt.Fprintf(w, "# %s\n\n", s.Title)
	fmt.Fprintln(w, "<!-- Generated by `taglens report` from the files in docs/results/ (docs/results.sh); do not edit by hand. -->")
	fmt.Fprintln(w)
	if s.Intro != "" {
		w.WriteString(strings.TrimRight(s.Intro, "\n") + "\n\n")
	}
	s.renderRun(w)
	s.renderHeadline(w)
	s.renderGoal(w)
	s.renderClaims(w)
	s.renderDetails(w)
	s.renderTuning(w)
	s.renderTraining(w)
}

func (s *Document) renderRun(w *bytes.Buffer) {
	fmt.Fprintln(w, "## The run")
	fmt.Fprintln(w)
	if len(s.Run) > 0 {
		fmt.Fprintln(w, "| | |\n|---|---|")
		for _, kv := range s.Run {
			fmt.Fprintf(w, "| %s | %s |\n", mdEscape(kv[0]), mdEscape(kv[1]))
		}
		fmt.Fprintln(w)
	}
	var interp []string
	for _, r := range s.Reports {
		if r.Interpolation != "" && !slices.Contains(interp, r.Interpolation) {
			interp = append(interp, r.Interpolation)
		}
	}
	for _, i := range interp {
		fmt.Fprintf(w, "Precision-recall interpolation (eval.Interpolation, as recorded in the reports): %s.\n\n", i)
	}
	fmt.Fprintf(w, "%d eval reports, %d training runs.\n\n", len(s.Reports), len(s.Trainings))
	if len(s.Steps) > 0 {
		fmt.Fprintln(w, "<details><summary>Wall time of every step</summary>")
		fmt.Fprintln(w)
		fmt.Fprintln(w, "| step | seconds | status |\n|---|---:|---|")
		for _, st := range s.Steps {
			row := append(slices.Clone(st), "", "", "")[:3]
			fmt.Fprintf(w, "| %s | %s | %s |\n", mdEscape(row[0]), mdEscape(row[1]), mdEscape(row[2]))
		}
		fmt.Fprintln(w, "\n</details>")
		fmt.Fprintln(w)
	}
}

// pivot writes a model × corpus table of MAP and AUC for the reports of sel,
// one column pair per report, headed by head(report). The best value of each
// column is bold.
func pivot(w *bytes.Buffer, sel []*Report, head func(*Report) string) {
	var models []string
	for _, r := range sel {
		for _, m := range r.Models {
			if !slices.Contains(models, m.Name) {
				models = append(models, m.Name)
			}
		}
	}
	slices.SortStableFunc(models, func(a, b string) int {
		if c := rank(modelOrder, a) - rank(modelOrder, b); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	w.WriteString("| model |")
	for _, r := range sel {
		h := mdEscape(head(r))
		fmt.Fprintf(w, " %s MAP | %s AUC |", h, h)
	}
	w.WriteString("\n|---|")
	for range sel {
		w.WriteString("---:|---:|")
	}
	w.WriteString("\n")
	best := make([][2]float64, len(sel))
	for i, r := range sel {
		best[i] = [2]float64{math.Inf(-1), math.Inf(-1)}
		for _, m := range r.Models {
			best[i][0] = math.Max(best[i][0], m.MAP)
			best[i][1] = math.Max(best[i][1], m.AUC)
		}
	}
	for _, name := range models {
		fmt.Fprintf(w, "| %s |", name)
		for i, r := range sel {
			m := r.model(name)
			if m == nil {
				w.WriteString(" – | – |")
				continue
			}
			for j, v := range [][2]float64{{m.MAP, m.MAPSE}, {m.AUC, m.AUCSE}} {
				cell := pm(v[0], v[1])
				if v[0] == best[i][j] {
					cell = "**" + cell + "**"
				}
				fmt.Fprintf(w, " %s |", cell)
			}
		}
		w.WriteString("\n")
	}
	w.WriteString("\n")
}

func (s *Document) selectReports(keep func(*Report) bool) []*Report {
	var out []*Report
	for _, r := range s.Reports {
		if keep(r) {
			out = append(out, r)
		}
	}
	return out
}

// headlineReports are the reports of the headline table and figure: the
// within-corpus ones of the extended protocol on a test subset.
func (s *Document) headlineReports() []*Report {
	return s.selectReports(func(r *Report) bool {
		return r.Setting == eval.WithinCorpus && r.Protocol == string(eval.Extended) && r.Subset == "test"
	})
}

func (s *Document) renderHeadline(w *bytes.Buffer) {
	sel := s.headlineReports()
	fmt.Fprintln(w, "## Headline: extended priming, test subset")
	fmt.Fprintln(w)
	if len(sel) == 0 {
		fmt.Fprintln(w, "No within-corpus extended-priming report on a test subset was found.")
		fmt.Fprintln(w)
		return
	}
	fmt.Fprintln(w, "Mean ± standard error over the trials; the best value of each column in bold.")
	fmt.Fprintln(w)
	pivot(w, sel, func(r *Report) string { return r.Corpus })
	s.figure(w, headlineFigure+figureExt, "MAP and AUC per corpus and model, extended priming, test subsets, ± standard error")
}

// renderGoal checks the goal on every within-corpus report: CE or
// Siamese-CE first in MAP and AUC, and by how much.
func (s *Document) renderGoal(w *bytes.Buffer) {
	sel := s.selectReports(func(r *Report) bool { return r.Setting == eval.WithinCorpus })
	fmt.Fprintln(w, "## Goal check: does CE or Siamese-CE rank first?")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "For every within-corpus report: the better of CE and Siamese-CE against the best other model. "+
		"Margin = (ours − best other) / best other, and in points (×100) of the metric. "+
		"p = Student's two-sample t-test over the trials between ours and the best other model "+
		"(the reports' own p-values, best vs runner-up, are in the per-report sections).")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| corpus | protocol | subset | MAP: ours | MAP: best other | MAP margin | MAP rank | p (MAP) | AUC: ours | AUC: best other | AUC margin | AUC rank | p (AUC) |")
	fmt.Fprintln(w, "|---|---|---|---|---|---:|---:|---|---|---|---:|---:|---|")
	first, total := 0, 0
	for _, r := range sel {
		fmt.Fprintf(w, "| %s | %s | %s |", r.Corpus, r.Protocol, r.Subset)
		for _, metric := range []string{"map", "auc"} {
			c, ok := compareOurs(r, []string{"ce", "siamese-ce"}, metric)
			if !ok {
				w.WriteString(" – | – | – | – | – |")
				continue
			}
			total++
			if c.oursRank == 1 {
				first++
			}
			other := "–"
			if c.other != "" {
				other = fmt.Sprintf("%s %.3f", c.other, c.otherVal)
			}
			fmt.Fprintf(w, " %s %.3f | %s | %s | %d of %d | %s |", c.ours, c.oursVal, other, c.fmtMargin(),
				c.oursRank, len(r.Models), c.fmtP())
		}
		w.WriteString("\n")
	}
	fmt.Fprintf(w, "\nCE or Siamese-CE ranks first in %d of %d (report, metric) pairs.\n\n", first, total)
}

func (s *Document) findReport(c Claim) *Report {
	for _, r := range s.Reports {
		if r.Corpus == c.Corpus && r.EvalCorpus == c.EvalCorpus && r.Protocol == c.Protocol &&
			r.Subset == c.Subset && r.Missing == c.Missing {
			return r
		}
	}
	return nil
}

func (s *Document) renderClaims(w *bytes.Buffer) {
	if len(s.Claims) == 0 {
		return
	}
	fmt.Fprintln(w, "## The paper's claims next to our measurements")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Each row is one statement of the paper (§6.3-6.6) about the corresponding setting, "+
		"and what we measured in the same setting on our stand-in corpus. "+
		"\"Ours\" is the best of the models listed; the margin is against the best of all other models in the report, "+
		"p is Student's t-test between the two over the trials. "+
		"\"Meets the paper's margin\" compares our relative margin with the paper's percentage "+
		"(the paper does not say whether its percentages are relative or absolute; the relative reading is the more lenient one here, "+
		"since every metric is below 1).")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| setting | metric | the paper says | paper margin | ours (measured) | best other (measured) | measured margin | p | ours first? | meets the paper's margin? |")
	fmt.Fprintln(w, "|---|---|---|---:|---|---|---:|---|---|---|")
	for _, c := range s.Claims {
		setting := c.Corpus
		if c.EvalCorpus != "" {
			setting += " → " + c.EvalCorpus
		}
		setting += ", " + c.Protocol + ", " + c.Subset
		if c.Missing != "" {
			setting += ", missing " + c.Missing + " %"
		}
		paper := "–"
		if !math.IsNaN(c.Margin) {
			paper = fmt.Sprintf("%+g %%", c.Margin)
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s |", mdEscape(setting), strings.ToUpper(c.Metric), mdEscape(c.Statement), paper)
		r := s.findReport(c)
		if r == nil {
			w.WriteString(" not measured | – | – | – | – | – |\n")
			continue
		}
		cmp, ok := compareOurs(r, c.Ours, c.Metric)
		if !ok {
			fmt.Fprintf(w, " none of %s in the report | – | – | – | – | – |\n", strings.Join(c.Ours, ", "))
			continue
		}
		oursCell := fmt.Sprintf("%s %s", cmp.ours, pm(metricValue(r.model(cmp.ours), c.Metric)))
		otherCell := "–"
		if cmp.other != "" {
			otherCell = fmt.Sprintf("%s %s", cmp.other, pm(metricValue(r.model(cmp.other), c.Metric)))
		}
		firstCell := "yes"
		if cmp.oursRank != 1 {
			firstCell = fmt.Sprintf("**no**: %s leads, ours rank %d of %d", cmp.winner, cmp.oursRank, len(r.Models))
		}
		meets := "–"
		if rel, _ := cmp.margins(); !math.IsNaN(c.Margin) && cmp.other != "" {
			switch {
			case math.IsNaN(rel):
				meets = "n/a"
			case rel >= c.Margin:
				meets = "yes"
			default:
				meets = "**no**"
			}
		}
		fmt.Fprintf(w, " %s | %s | %s | %s | %s | %s |\n", oursCell, otherCell, cmp.fmtMargin(), cmp.fmtP(), firstCell, meets)
	}
	fmt.Fprintln(w)
}

// sectionTitles name the settings' sections.
var sectionTitles = map[eval.Setting]string{
	eval.WithinCorpus:      "Within-corpus setting (§6.3)",
	eval.CrossCorpora:      "Cross-corpora setting (§6.4)",
	eval.IncompleteContext: "Incomplete local context (§6.5)",
	eval.OOVSetting:        "Out of vocabulary (§6.6): simulated (oov subset) and real (cross pair)",
}

func (s *Document) renderDetails(w *bytes.Buffer) {
	var setting eval.Setting = "-"
	for _, r := range s.Reports {
		if r.Setting != setting {
			setting = r.Setting
			t, ok := sectionTitles[setting]
			if !ok {
				t = "Setting " + string(setting)
			}
			fmt.Fprintf(w, "## %s\n\n", t)
			if setting == eval.IncompleteContext {
				s.renderBands(w)
			}
		}
		fmt.Fprintf(w, "### %s\n\n", r.label())
		fmt.Fprintf(w, "%d trial(s), seeds %v; file `%s`.\n\n", r.Trials, r.Seeds, r.File)
		fmt.Fprintln(w, "| model | P@1 | P@2 | P@5 | P@10 | MAP | AUC | queries | docs |")
		fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|")
		bestMAP, bestAUC := math.Inf(-1), math.Inf(-1)
		for _, m := range r.Models {
			bestMAP, bestAUC = math.Max(bestMAP, m.MAP), math.Max(bestAUC, m.AUC)
		}
		bold := func(v, best float64, cell string) string {
			if v == best {
				return "**" + cell + "**"
			}
			return cell
		}
		for _, m := range r.Models {
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %d | %d |\n", m.Name,
				pm(m.PAtK[0], m.PAtKSE[0]), pm(m.PAtK[1], m.PAtKSE[1]), pm(m.PAtK[4], m.PAtKSE[4]), pm(m.PAtK[9], m.PAtKSE[9]),
				bold(m.MAP, bestMAP, pm(m.MAP, m.MAPSE)), bold(m.AUC, bestAUC, pm(m.AUC, m.AUCSE)), m.Queries, m.Docs)
		}
		fmt.Fprintln(w)
		s.figure(w, figureName(r)+figureExt, "P@K and precision-recall, "+r.label()+", ± standard error")
		fmt.Fprintf(w, "Best vs runner-up, Student's t-test: MAP p = %s; AUC p = %s; P@2 p = %s.\n\n",
			pValue(r, "map"), pValue(r, "auc"), pValue(r, "p@2"))
		for _, n := range r.Notes {
			fmt.Fprintf(w, "- note: %s\n", n)
		}
		if len(r.Notes) > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintln(w, "<details><summary>Precision at the 11 standard recall levels</summary>")
		fmt.Fprintln(w)
		w.WriteString("| model |")
		for l := 0; l < eval.RecallLevels; l++ {
			fmt.Fprintf(w, " %.1f |", float64(l)/float64(eval.RecallLevels-1))
		}
		w.WriteString("\n|---|" + strings.Repeat("---:|", eval.RecallLevels) + "\n")
		for _, m := range r.Models {
			fmt.Fprintf(w, "| %s |", m.Name)
			for l := 0; l < eval.RecallLevels; l++ {
				fmt.Fprintf(w, " %s |", pm(m.PR[l], m.PRSE[l]))
			}
			w.WriteString("\n")
		}
		fmt.Fprintln(w, "\n</details>")
		fmt.Fprintln(w)
	}
}

// renderBands writes, per corpus and protocol, the MAP/AUC of every model at
// each missing-rate band side by side.
func (s *Document) renderBands(w *bytes.Buffer) {
	type key struct{ corpus, protocol, subset string }
	var keys []key
	for _, r := range s.Reports {
		if r.Setting != eval.IncompleteContext {
			continue
		}
		k := key{r.Corpus, r.Protocol, r.Subset}
		if !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	for _, k := range keys {
		sel := s.selectReports(func(r *Report) bool {
			return r.Setting == eval.IncompleteContext && r.Corpus == k.corpus && r.Protocol == k.protocol && r.Subset == k.subset
		})
		slices.SortStableFunc(sel, func(a, b *Report) int { return bandLo(a.Missing) - bandLo(b.Missing) })
		fmt.Fprintf(w, "Summary: %s, %s protocol, %s subset, by missing rate.\n\n", k.corpus, k.protocol, k.subset)
		pivot(w, sel, func(r *Report) string { return r.Missing + " %" })
		// A band holds only the documents long enough to lose a term within it.
		var counts []string
		for _, r := range sel {
			if len(r.Models) > 0 {
				m := r.Models[0]
				counts = append(counts, fmt.Sprintf("%s %%: %d (%d skipped)", r.Missing, m.Docs, m.Skipped))
			}
		}
		fmt.Fprintf(w, "Documents evaluated per trial: %s.\n\n", strings.Join(counts, "; "))
	}
}

func bandLo(s string) int {
	lo, _, _ := strings.Cut(s, "-")
	v, _ := strconv.Atoi(lo)
	return v
}

// renderTuning writes, per corpus, how every model was tuned in each trial, from
// the first report of that corpus holding the model (the baselines are trained on
// the split's training documents with the trial seed, so every report of a
// corpus and protocol retrains them identically).
func (s *Document) renderTuning(w *bytes.Buffer) {
	fmt.Fprintln(w, "## Automatic tuning of every model, per trial")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "From the reports' tuning fields (first report of each training corpus holding the model). "+
		"Search grids are summarised by their size; the full grids are in the JSON files.")
	fmt.Fprintln(w)
	for _, corpus := range s.corpora() {
		// Models whose tuning is the same in every trial (the variants of one
		// model file) share a row.
		type group struct {
			names []string
			rows  []string // per trial: seed, summary
			file  string
		}
		var groups []*group
		byKey := map[string]*group{}
		done := map[string]bool{}
		for _, r := range s.Reports {
			if r.Corpus != corpus {
				continue
			}
			for _, m := range r.Models {
				if done[m.Name] || m.Tuning == nil {
					continue
				}
				done[m.Name] = true
				per, _ := m.Tuning["per_trial"].([]any)
				var rows []string
				for t, x := range per {
					seed := ""
					if t < len(r.Seeds) {
						seed = strconv.FormatUint(r.Seeds[t], 10)
					}
					rows = append(rows, seed+" | "+mdEscape(tuningSummary(x)))
				}
				key := strings.Join(rows, "\n")
				if g, ok := byKey[key]; ok && !slices.Contains(baselines.Names, m.Name) {
					g.names = append(g.names, m.Name)
					continue
				}
				g := &group{names: []string{m.Name}, rows: rows, file: r.File}
				byKey[key] = g
				groups = append(groups, g)
			}
		}
		if len(groups) == 0 {
			continue
		}
		fmt.Fprintf(w, "### %s\n\n| model | trial seed | tuning | from |\n|---|---:|---|---|\n", corpus)
		for _, g := range groups {
			for _, row := range g.rows {
				fmt.Fprintf(w, "| %s | %s | %s |\n", strings.Join(g.names, ", "), row, g.file)
			}
		}
		fmt.Fprintln(w)
	}
}

// tuningSummary renders one trial's tuning map as sorted key=value pairs;
// lists (search grids) are shown by their length, file paths by their base name.
func tuningSummary(x any) string {
	m, ok := x.(map[string]any)
	if !ok || len(m) == 0 {
		return "–"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		var v string
		switch x := m[k].(type) {
		case []any:
			v = fmt.Sprintf("%d points", len(x))
		case float64:
			v = strconv.FormatFloat(x, 'g', 4, 64)
		case string:
			v = x
			if strings.Contains(k, "file") {
				v = filepath.Base(x)
			}
		case nil:
			v = "null"
		default:
			b, _ := json.Marshal(x)
			v = string(b)
		}
		parts = append(parts, k+"="+v)
	}
	return strings.Join(parts, ", ")
}

func (s *Document) renderTraining(w *bytes.Buffer) {
	if len(s.Trainings) == 0 {
		return
	}
	fmt.Fprintln(w, "## Training runs of CE / Siamese-CE")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "From the `taglens train --json` summaries. Validation P@2 is the priming P@2 on the validation subset used for early stopping.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| file | corpus | train docs | valid docs | terms | topics | α | λ | epochs (stage 1, 2) | valid P@2 CE | valid P@2 Siamese-CE | valid P@2 random | seconds |")
	fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|")
	for _, t := range s.Trainings {
		fmt.Fprintf(w, "| %s | %s | %d | %d | %d | %d | %g | %g | %d, %d | %.4f | %.4f | %.4f | %.1f |\n",
			t.File, t.Corpus, t.TrainDocs, t.ValidDocs, t.Vocabulary, t.Topics, t.Alpha, t.Lambda, t.Epochs1, t.Epochs2,
			t.ValidP2CE, t.ValidP2Siamese, t.ValidP2Random, t.Seconds)
	}
	fmt.Fprintln(w)
}
