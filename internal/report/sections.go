package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/taglens/taglens/ml/baselines"
	"github.com/taglens/taglens/ml/eval"
)

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
			c, ok := compareOurs(r, suiteOurs, metric)
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
