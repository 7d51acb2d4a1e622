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
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/taglens/taglens/internal/textlist"
	"github.com/taglens/taglens/ml/baselines"
	"github.com/taglens/taglens/ml/ce"
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
	modelOrder = append(slices.Clone(baselines.Names), ourModels...)
	// ourModels are the paper's models (CE and Siamese-CE and their OOV variants).
	ourModels = append(ce.VariantNames(ce.Variants), ce.VariantNames(ce.OOVVariants)...)
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
