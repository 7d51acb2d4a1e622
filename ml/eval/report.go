package eval

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"
)

// A Setting is an experimental setting of the paper (§6.2).
type Setting string

const (
	WithinCorpus      Setting = "within-corpus"      // §6.2.1: train/valid/test subsets of the training corpus
	CrossCorpora      Setting = "cross-corpora"      // §6.2.2: another corpus's documents whose terms are all in vocabulary
	IncompleteContext Setting = "incomplete-context" // §6.2.3: context with a missing-rate band, ground truth the full document
	OOVSetting        Setting = "oov"                // §6.2.4: queries are OOV terms, priming protocol only
)

// Report is the eval report JSON of docs/design.md ("Contracts"): the fields corpus, subset, protocol,
// trials, models (name, p_at_k, p_at_k_se, map, map_se, pr, pr_se, auc, auc_se,
// queries) and p_values are relied upon by other tools; the others are additions.
type Report struct {
	Corpus   string        `json:"corpus"`   // the training corpus of the models
	Subset   string        `json:"subset"`   // train, valid, test, oov, all
	Protocol string        `json:"protocol"` // priming or extended
	Trials   int           `json:"trials"`
	Models   []ModelReport `json:"models"`
	// PValues maps a metric ("p@1".."p@10", "map", "auc") to Student's t-test
	// between the best model and the runner-up by mean on that metric.
	PValues map[string]PValue `json:"p_values"`

	Setting       Setting `json:"setting"`
	EvalCorpus    string  `json:"eval_corpus,omitempty"` // the evaluated corpus when not Corpus (cross-corpora, real OOV)
	Missing       string  `json:"missing,omitempty"`     // missing-rate band "lo-hi" in percent (incomplete-context)
	Interpolation string  `json:"interpolation"`         // how Precision(ℓ|x) is interpolated
	// Seeds are the trial seeds, in trial order.
	Seeds []uint64 `json:"seeds"`
	// Notes explain anything a reader needs (p-values unavailable, skipped models).
	Notes []string `json:"notes,omitempty"`
}

// ModelReport is one model's figures: means over the trials and their standard
// errors (0 with a single trial).
type ModelReport struct {
	Name    string    `json:"name"`
	PAtK    []float64 `json:"p_at_k"`    // P@1..P@10 (Eq. 10)
	PAtKSE  []float64 `json:"p_at_k_se"` // standard errors
	MAP     float64   `json:"map"`       // Eq. 11
	MAPSE   float64   `json:"map_se"`
	PR      []float64 `json:"pr"` // precision at recall 0.0, 0.1, ..., 1.0 (Eq. 12)
	PRSE    []float64 `json:"pr_se"`
	AUC     float64   `json:"auc"`
	AUCSE   float64   `json:"auc_se"`
	Queries int       `json:"queries"` // ranked lists per trial (first trial)

	Docs          int `json:"docs"`                     // documents evaluated per trial (first trial)
	Skipped       int `json:"skipped"`                  // documents skipped per trial (first trial)
	FailedQueries int `json:"failed_queries,omitempty"` // OOV queries the model could not represent (first trial)
	// PerTrial holds each trial's figures, in trial order (the t-test's samples).
	PerTrial []TrialFigures `json:"per_trial"`
	// Tuning records how the model was built or tuned (chosen k and α, window,
	// dimension, topic count, model file, ...): free-form.
	Tuning map[string]any `json:"tuning,omitempty"`
}

// TrialFigures are one trial's figures of one model.
type TrialFigures struct {
	Seed    uint64    `json:"seed"`
	PAtK    []float64 `json:"p_at_k"`
	MAP     float64   `json:"map"`
	PR      []float64 `json:"pr"`
	AUC     float64   `json:"auc"`
	Queries int       `json:"queries"`
	// MAPDocSE is Result.MAPDocSE: MAP's standard error over the trial's
	// documents (with a sample of them, the sample's own error).
	MAPDocSE float64 `json:"map_doc_se,omitempty"`
}

// PValue is Student's two-sample t-test (StudentTTest) between the per-trial values
// of the best and the runner-up model on one metric. T and P are null when
// unavailable (a single trial) and T is null when infinite (no variance).
type PValue struct {
	Best     string   `json:"best"`
	RunnerUp string   `json:"runner_up"`
	T        *float64 `json:"t"`
	P        *float64 `json:"p"`
}

// Summarize aggregates the per-trial results of one model (trials[i] obtained with
// seeds[i]) into a ModelReport. It panics if trials is empty or the lengths differ.
func Summarize(name string, trials []*Result, seeds []uint64) ModelReport {
	if len(trials) == 0 || len(trials) != len(seeds) {
		panic("eval: Summarize: need one seed per trial and at least one trial")
	}
	n := len(trials)
	r := ModelReport{
		Name:          name,
		PAtK:          make([]float64, MaxK),
		PAtKSE:        make([]float64, MaxK),
		PR:            make([]float64, RecallLevels),
		PRSE:          make([]float64, RecallLevels),
		Queries:       trials[0].Queries,
		Docs:          trials[0].Docs,
		Skipped:       trials[0].Skipped,
		FailedQueries: trials[0].FailedQueries,
		PerTrial:      make([]TrialFigures, n),
	}
	x := make([]float64, n)
	stat := func(get func(*Result) float64) (float64, float64) {
		for i, t := range trials {
			x[i] = get(t)
		}
		return MeanSE(x)
	}
	for k := 0; k < MaxK; k++ {
		r.PAtK[k], r.PAtKSE[k] = stat(func(t *Result) float64 { return t.PAtK[k] })
	}
	for l := 0; l < RecallLevels; l++ {
		r.PR[l], r.PRSE[l] = stat(func(t *Result) float64 { return t.PR[l] })
	}
	r.MAP, r.MAPSE = stat(func(t *Result) float64 { return t.MAP })
	r.AUC, r.AUCSE = stat(func(t *Result) float64 { return t.AUC })
	for i, t := range trials {
		r.PerTrial[i] = TrialFigures{
			Seed: seeds[i], PAtK: append([]float64(nil), t.PAtK[:]...), MAP: t.MAP,
			PR: append([]float64(nil), t.PR[:]...), AUC: t.AUC, Queries: t.Queries, MAPDocSE: t.MAPDocSE,
		}
	}
	return r
}

// metricNames are the keys of Report.PValues, with their per-trial getters.
func metricNames() []string {
	names := make([]string, 0, MaxK+2)
	for k := 1; k <= MaxK; k++ {
		names = append(names, fmt.Sprintf("p@%d", k))
	}
	return append(names, "map", "auc")
}

func metricOf(name string, t *TrialFigures) float64 {
	switch name {
	case "map":
		return t.MAP
	case "auc":
		return t.AUC
	}
	var k int
	if _, err := fmt.Sscanf(name, "p@%d", &k); err != nil || k < 1 || k > len(t.PAtK) {
		panic("eval: unknown metric " + name)
	}
	return t.PAtK[k-1]
}

// ComputePValues fills r.PValues: for each metric, the best and the runner-up model
// by mean over trials (ties go to the earlier model) and Student's t-test between
// their per-trial values. With fewer than two models PValues is empty; with a single
// trial, or when neither model's values vary across trials (the test degenerates),
// the p-values are null and a note says so.
func (r *Report) ComputePValues() {
	r.PValues = map[string]PValue{}
	if len(r.Models) < 2 {
		return
	}
	single := false
	var flat []string
	for _, name := range metricNames() {
		means := make([]float64, len(r.Models))
		samples := make([][]float64, len(r.Models))
		for i := range r.Models {
			m := &r.Models[i]
			samples[i] = make([]float64, len(m.PerTrial))
			for j := range m.PerTrial {
				samples[i][j] = metricOf(name, &m.PerTrial[j])
			}
			if len(samples[i]) > 0 {
				means[i], _ = MeanSE(samples[i])
			} else {
				means[i] = math.Inf(-1)
			}
		}
		best, second := -1, -1
		for i, v := range means {
			switch {
			case best < 0 || v > means[best]:
				best, second = i, best
			case second < 0 || v > means[second]:
				second = i
			}
		}
		pv := PValue{Best: r.Models[best].Name, RunnerUp: r.Models[second].Name}
		t, p, ok := StudentTTest(samples[best], samples[second])
		switch {
		case !ok || len(samples[best]) < 2 || len(samples[second]) < 2:
			single = true
		case constant(samples[best]) && constant(samples[second]):
			// t is ±Inf or 0: a degenerate test, not evidence.
			flat = append(flat, name)
		default:
			pv.P = &p
			if !math.IsInf(t, 0) {
				pv.T = &t
			}
		}
		r.PValues[name] = pv
	}
	if single {
		r.Notes = append(r.Notes, "p-values unavailable: Student's t-test needs at least 2 trials per model")
	}
	if len(flat) > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("p-values of %s unavailable: neither the best nor the runner-up varies across trials "+
			"(e.g. deterministic models evaluated from one model file)", strings.Join(flat, ", ")))
	}
}

// constant reports whether every value of x is the same.
func constant(x []float64) bool {
	for _, v := range x {
		if v != x[0] {
			return false
		}
	}
	return true
}

// WriteTable writes a readable summary of r to w: one row per model with P@1, P@2,
// P@5, P@10, MAP and AUC (mean ± standard error), the query count, and the p-values.
func (r *Report) WriteTable(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "corpus %s", r.Corpus)
	if r.EvalCorpus != "" {
		fmt.Fprintf(&b, " → %s", r.EvalCorpus)
	}
	fmt.Fprintf(&b, ", subset %s, protocol %s, setting %s", r.Subset, r.Protocol, r.Setting)
	if r.Missing != "" {
		fmt.Fprintf(&b, ", missing %s%%", r.Missing)
	}
	fmt.Fprintf(&b, ", %d trial(s)\n", r.Trials)
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "model\tP@1\tP@2\tP@5\tP@10\tMAP\tAUC\tqueries\tskipped")
	pm := func(m, se float64) string { return fmt.Sprintf("%.4f ± %.4f", m, se) }
	for _, m := range r.Models {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%d\n", m.Name,
			pm(m.PAtK[0], m.PAtKSE[0]), pm(m.PAtK[1], m.PAtKSE[1]), pm(m.PAtK[4], m.PAtKSE[4]),
			pm(m.PAtK[9], m.PAtKSE[9]), pm(m.MAP, m.MAPSE), pm(m.AUC, m.AUCSE), m.Queries, m.Skipped)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, name := range []string{"p@2", "map", "auc"} {
		pv, ok := r.PValues[name]
		if !ok {
			continue
		}
		p := "n/a"
		if pv.P != nil {
			p = fmt.Sprintf("%.3g", *pv.P)
		}
		if _, err := fmt.Fprintf(w, "%s: best %s, runner-up %s, p = %s\n", name, pv.Best, pv.RunnerUp, p); err != nil {
			return err
		}
	}
	for _, n := range r.Notes {
		if _, err := fmt.Fprintf(w, "note: %s\n", n); err != nil {
			return err
		}
	}
	return nil
}

// A Lead compares the best of a group of models ("ours", e.g. the variants of
// one method) with the best of the others on one metric of a report.
type Lead struct {
	Metric             string
	Ours, Other        string  // names of the best model of each side
	OursMean, OursSE   float64 // mean and standard error over the trials
	OtherMean, OtherSE float64
	P                  float64 // Student's t-test between their per-trial values; NaN when unavailable
	Rank               int     // 1 + the number of other models with a higher mean than Ours
	Models             int     // the other models + 1
}

// First reports whether ours has the highest mean of the compared models.
func (l Lead) First() bool { return l.Rank == 1 }

// Margin is OursMean/OtherMean − 1 (NaN when OtherMean is 0).
func (l Lead) Margin() float64 {
	if l.OtherMean == 0 {
		return math.NaN()
	}
	return l.OursMean/l.OtherMean - 1
}

// LeadOf compares the best model of r whose name is in ours with the best of
// the other models on metric ("map", "auc" or "p@K"); ties go to the earlier
// model. ok is false when either side has no model in r.
func (r *Report) LeadOf(metric string, ours []string) (l Lead, ok bool) {
	mean := func(m *ModelReport) (float64, float64, []float64) {
		x := make([]float64, len(m.PerTrial))
		for i := range m.PerTrial {
			x[i] = metricOf(metric, &m.PerTrial[i])
		}
		mu, se := MeanSE(x)
		return mu, se, x
	}
	var best, other *ModelReport
	var bv, ov float64
	var others []float64
	for i := range r.Models {
		m := &r.Models[i]
		if len(m.PerTrial) == 0 {
			continue
		}
		v, _, _ := mean(m)
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
		return Lead{}, false
	}
	l = Lead{Metric: metric, Ours: best.Name, Other: other.Name, Rank: 1, Models: len(others) + 1, P: math.NaN()}
	var xo, xt []float64
	l.OursMean, l.OursSE, xo = mean(best)
	l.OtherMean, l.OtherSE, xt = mean(other)
	for _, v := range others {
		if v > l.OursMean {
			l.Rank++
		}
	}
	if _, p, ok := StudentTTest(xo, xt); ok {
		l.P = p
	}
	return l, true
}
