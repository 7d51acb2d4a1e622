// Package compare runs a comparison of models: every entry (a baseline retrained
// in each trial, or a trained CE/Siamese-CE variant) evaluated on the documents
// of each trial, summarised into one eval.Report with its p-values. It is the one
// evaluation runner of taglens: `taglens eval` and the web app's evaluations both
// describe what to compare in a Plan and call Run, so a change of protocol is
// made once.
//
// The order of work is fixed: trials in order, and within a trial the entries
// in report order (Plan.Concurrent of them at a time). Trial t has its own
// seed, which seeds the evaluation's own randomness (eval.Options.Seed) and the
// baselines trained in that trial, and each entry's result depends only on its
// own inputs, so a Plan gives the same report on any machine and with any
// Concurrent.
package compare

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/taglens/taglens/ml/baselines"
	"github.com/taglens/taglens/ml/eval"
)

// Trial is the data of one trial: its seed and its documents as term indices of
// the compared models' vocabulary.
type Trial struct {
	Seed    uint64
	Train   [][]int       // training documents, on which baselines are trained
	Valid   [][]int       // validation documents, on which the recommender baselines are tuned
	Docs    [][]int       // evaluated documents (every setting but OOV)
	OOVDocs []eval.OOVDoc // evaluated documents of the OOV setting

	shared *baselines.Shared // fits the trial's baselines share
}

// An Entry is one row of the report. Exactly one of Baseline, Model and OOV is set.
type Entry struct {
	Name string

	// Baseline names a baseline (baselines.Names) trained on each trial's Train.
	Baseline string

	// Model returns the model of trial t (a trained variant) and what to record
	// of it in the report's tuning column (nil for nothing).
	Model func(t int) (eval.Model, map[string]any, error)

	// OOV returns the OOV variant of trial t for the trial's OOV documents.
	OOV func(t int, docs []eval.OOVDoc) (eval.OOVModel, map[string]any, error)
}

// Plan is a comparison.
type Plan struct {
	Protocol  eval.Protocol
	Missing   eval.Band // incomplete-context band; zero for complete documents
	Workers   int       // goroutines evaluating documents (eval.Options.Workers)
	VocabSize int       // |Γ| of the compared models, the baselines' vocabulary
	Baseline  baselines.Settings
	Entries   []Entry
	Trials    int

	// Concurrent is the number of entries of a trial run at once (0 or 1: one
	// at a time). Several at once fill the processors where one entry leaves
	// them idle (the serial parts of a baseline's training); the report is the
	// same. Progress events of concurrent entries interleave, one at a time.
	Concurrent int

	// Trial returns the data of trial t (0-based); it is called once per trial,
	// in order, before the trial's entries run.
	Trial func(t int) (*Trial, error)

	// Progress, if not nil, receives the steps of the run.
	Progress func(Event)
}

// Event is a step of a run, for progress displays.
type Event struct {
	Trial, Trials int    // 0-based trial and the number of trials
	Entry         string // the entry's name
	Done, Total   int    // entries × trials finished, and in all
	Stage         string // "training baseline", "evaluating", "documents" or "done"
	Message       string // a sentence about the step (a baseline's tuning grid, …)

	// DocsDone and DocsTotal count the documents of an evaluation ("documents").
	DocsDone, DocsTotal int

	// Result and Elapsed are set when an entry's trial is finished ("done");
	// Elapsed is the wall time of the step (training and evaluation).
	Result  *eval.Result
	Elapsed time.Duration
}

// Fraction returns the share of the run done at this event, in [0, 1].
func (e Event) Fraction() float64 {
	if e.Total == 0 {
		return 0
	}
	f := float64(e.Done)
	if e.DocsTotal > 0 && e.Stage == "documents" {
		f += float64(e.DocsDone) / float64(e.DocsTotal)
	}
	return min(f/float64(e.Total), 1)
}

// Run evaluates every entry in every trial and fills rep's models (in entry
// order), seeds and p-values. rep's other fields (corpus, setting, notes, …) are
// the caller's. It stops with ctx.Err() when ctx is cancelled.
func Run(ctx context.Context, p *Plan, rep *eval.Report) error {
	if err := p.check(); err != nil {
		return err
	}
	results := make([][]*eval.Result, len(p.Entries))
	tuning := make([][]map[string]any, len(p.Entries))
	seeds := make([]uint64, p.Trials)
	r := &run{p: p, total: len(p.Entries) * p.Trials}
	for t := range p.Trials {
		if err := ctx.Err(); err != nil {
			return err
		}
		data, err := p.Trial(t)
		if err != nil {
			return err
		}
		seeds[t] = data.Seed
		data.shared = &baselines.Shared{} // dropped with the trial
		res, tun, err := r.trial(ctx, t, data)
		if err != nil {
			return err
		}
		for i := range p.Entries {
			results[i] = append(results[i], res[i])
			tuning[i] = append(tuning[i], tun[i])
		}
	}
	rep.Models = rep.Models[:0]
	for i, e := range p.Entries {
		mr := eval.Summarize(e.Name, results[i], seeds)
		if slices.ContainsFunc(tuning[i], func(x map[string]any) bool { return x != nil }) {
			mr.Tuning = map[string]any{"per_trial": tuning[i]}
		}
		rep.Models = append(rep.Models, mr)
	}
	rep.Seeds = seeds
	rep.Trials = p.Trials
	rep.ComputePValues()
	return nil
}

// check returns an error when the plan has no trial or no entry, or an entry
// does not set exactly one of Baseline, Model and OOV, or names an unknown
// baseline.
func (p *Plan) check() error {
	if p.Trials < 1 {
		return errors.New("compare: at least one trial")
	}
	if len(p.Entries) == 0 {
		return errors.New("compare: nothing to compare")
	}
	for _, e := range p.Entries {
		n := 0
		for _, set := range []bool{e.Baseline != "", e.Model != nil, e.OOV != nil} {
			if set {
				n++
			}
		}
		if n != 1 {
			return fmt.Errorf("compare: entry %q must set exactly one of Baseline, Model and OOV", e.Name)
		}
		if e.Baseline != "" && !slices.Contains(baselines.Names, e.Baseline) {
			return fmt.Errorf("compare: unknown baseline %q", e.Baseline)
		}
	}
	return nil
}

// run is the state of a Run shared by the entries running at once.
type run struct {
	p     *Plan
	total int
	mu    sync.Mutex // guards done and the calls of Progress
	done  int
}

// say passes ev to the plan's Progress, if any, one event at a time.
func (r *run) say(ev Event) {
	if r.p.Progress == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.p.Progress(ev)
}

// trial runs every entry of trial t, Plan.Concurrent at a time, started in
// entry order, and returns their results and tunings in entry order. On an
// error it cancels the entries still running and returns the first error (a
// cancellation of the caller's ctx as ctx.Err()).
func (r *run) trial(ctx context.Context, t int, data *Trial) ([]*eval.Result, []map[string]any, error) {
	p := r.p
	n := len(p.Entries)
	res, tun := make([]*eval.Result, n), make([]map[string]any, n)
	ctx2, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		next     int
		firstErr error
	)
	for range max(1, min(p.Concurrent, n)) {
		wg.Go(func() {
			for {
				mu.Lock()
				i := next
				next++
				stop := i >= n || firstErr != nil
				mu.Unlock()
				if stop {
					return
				}
				e := p.Entries[i]
				r.mu.Lock()
				base := Event{Trial: t, Trials: p.Trials, Entry: e.Name, Done: r.done, Total: r.total}
				r.mu.Unlock()
				start := time.Now()
				out, tn, err := r.entry(ctx2, e, t, data, base)
				if err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
					cancel()
					return
				}
				res[i], tun[i] = out, tn
				r.mu.Lock()
				r.done++
				ev := base
				ev.Done, ev.Stage, ev.Result, ev.Elapsed = r.done, "done", out, time.Since(start)
				if p.Progress != nil {
					p.Progress(ev)
				}
				r.mu.Unlock()
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	if firstErr != nil {
		return nil, nil, firstErr
	}
	return res, tun, nil
}

// evaluateShared evaluates m on the trial's documents, once for every model
// of the trial with its eval.SharedResultModel key: the others wait for that
// evaluation and report its result.
func (r *run) evaluateShared(ctx context.Context, m eval.Model, data *Trial, opt *eval.Options) (*eval.Result, error) {
	var key string
	if sm, ok := m.(eval.SharedResultModel); ok {
		key = sm.ResultKey() // compares the networks' parameters: once
	}
	if key == "" {
		return eval.Evaluate(ctx, m, r.p.Protocol, data.Docs, opt)
	}
	v, err := data.shared.Do("result/"+key, func() (any, error) {
		return eval.Evaluate(ctx, m, r.p.Protocol, data.Docs, opt)
	})
	if err != nil {
		return nil, err
	}
	res := *v.(*eval.Result) // each entry its own copy
	return &res, nil
}

// entry evaluates entry e in trial t on the trial's data: it trains the
// baseline or gets the trial's model, then evaluates it, reporting progress
// as events based on base. Errors are prefixed with the entry's name.
func (r *run) entry(ctx context.Context, e Entry, t int, data *Trial, base Event) (*eval.Result, map[string]any, error) {
	p, say := r.p, r.say
	opt := &eval.Options{Seed: data.Seed, Workers: p.Workers, Missing: p.Missing,
		Progress: func(d, n int) {
			ev := base
			ev.Stage, ev.DocsDone, ev.DocsTotal = "documents", d, n
			say(ev)
		}}
	var (
		res *eval.Result
		tun map[string]any
		err error
	)
	switch {
	case e.Baseline != "":
		ev := base
		ev.Stage, ev.Message = "training baseline", fmt.Sprintf("on %d documents", len(data.Train))
		say(ev)
		var bm eval.Model
		bm, tun, err = baselines.Train(ctx, e.Baseline, baselines.Data{Train: data.Train, Valid: data.Valid, V: p.VocabSize, Shared: data.shared},
			p.Baseline, data.Seed, func(msg string) {
				ev := base
				ev.Stage, ev.Message = "training baseline", msg
				say(ev)
			})
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", e.Name, err)
		}
		ev.Stage, ev.Message = "evaluating", ""
		say(ev)
		res, err = eval.Evaluate(ctx, bm, p.Protocol, data.Docs, opt)
	case e.OOV != nil:
		var om eval.OOVModel
		if om, tun, err = e.OOV(t, data.OOVDocs); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", e.Name, err)
		}
		ev := base
		ev.Stage = "evaluating"
		say(ev)
		res, err = eval.EvaluateOOV(ctx, om, data.OOVDocs, opt)
	default:
		var m eval.Model
		if m, tun, err = e.Model(t); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", e.Name, err)
		}
		ev := base
		ev.Stage = "evaluating"
		say(ev)
		res, err = r.evaluateShared(ctx, m, data, opt)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", e.Name, err)
	}
	return res, tun, nil
}
