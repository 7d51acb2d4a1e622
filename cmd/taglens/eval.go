package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/taglens/taglens/internal/app"
	"github.com/taglens/taglens/internal/atomicfile"
	"github.com/taglens/taglens/internal/cputime"
	"github.com/taglens/taglens/internal/textlist"
	"github.com/taglens/taglens/ml/baselines"
	"github.com/taglens/taglens/ml/ce"
	"github.com/taglens/taglens/ml/compare"
	"github.com/taglens/taglens/ml/corpus"
	"github.com/taglens/taglens/ml/eval"
)

func init() {
	register(command{name: "eval", summary: "evaluate models and baselines by semantic priming (P@K, MAP, PR, AUC)", run: runEval})
}

const evalSynopsis = "--model MODEL[,MODEL...] --corpus PATH --subset train|valid|test|oov|all " +
	"[--split PATH] [--oov PATH] [--protocol priming|extended|completion] [--baselines LIST|all] [--missing BAND] " +
	"[--trials N] [--sample N] [--cross PATH] [--variants LIST] [--seed N] [--workers N] [--concurrent N] [--json OUT] [--cpuprofile OUT]"

// baselineOrder is the report order of the baselines (docs/design.md model names).
var baselineOrder = baselines.Names

// evalConfig is the parsed command line of taglens eval.
type evalConfig struct {
	*app.EvalSpec // subset, protocol, setting, band, trials, baselines, variants
	modelPaths    []string
	format        corpus.Format // of --corpus and --cross; "" detects it
	corpusPath    string
	splitPath     string
	crossPath     string
	oovPath       string
	oovTags       []string
	seed          uint64
	workers       int
	concurrent    int
	jsonOut       string
	cpuProfile    string
}

// runEval implements `taglens eval`. How trials map to models:
//   - --model takes one model file, or a comma-separated list of exactly --trials
//     files (the same corpus and split trained with different seeds): trial i uses
//     file i. With one file every trial uses it, and only the evaluation's own
//     randomness and the baselines vary between trials (the report says so).
//   - trial i has seed --seed + i: it seeds the per-document random streams of the
//     evaluation (eval.Options.Seed) and the training of every baseline, which are
//     retrained in each trial on the training documents of the split, encoded with
//     the model's vocabulary.
//
// Settings: --subset train|valid|test|all (within-corpus), with --missing BAND the
// incomplete local context, --subset oov the OOV setting (the split's oov documents,
// priming protocol, OOV variants), --cross PATH another corpus: its documents whose
// terms are all in the vocabulary (cross-corpora, --subset all) or its documents
// with OOV terms (real OOV, --subset oov).
func runEval(ctx context.Context, args []string, stdout, stderr io.Writer) (err error) {
	cfg, err := parseEvalFlags(args, stderr)
	if err != nil {
		return err
	}
	if cfg.cpuProfile != "" {
		stop, err := startCPUProfile(cfg.cpuProfile)
		if err != nil {
			return err
		}
		defer closeWith(stop, &err)
	}
	start := time.Now()
	cpu0, _ := cputime.Process()
	rep, err := evaluate(ctx, cfg, stderr)
	if err != nil {
		return err
	}
	fmt.Fprintln(stderr)
	if err := rep.WriteTable(stderr); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "eval took %s%s\n", time.Since(start).Round(time.Millisecond), cpuSince(cpu0))
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return fmt.Errorf("eval: encode report: %w", err)
	}
	b = append(b, '\n')
	if cfg.jsonOut == "" || cfg.jsonOut == "-" {
		_, err = stdout.Write(b)
		return err
	}
	return writeReportFile(cfg.jsonOut, b)
}

func parseEvalFlags(args []string, stderr io.Writer) (*evalConfig, error) {
	fs := newFlagSet("eval", evalSynopsis, stderr)
	var (
		model    = fs.String("model", "", "model file(s) from taglens train: one, or one per trial, comma-separated")
		corpusP  = fs.String("corpus", "", "the training corpus of the model")
		format   = fs.String("format", "", "format of --corpus and --cross (tsv, lines, csv, jsonl, matrix, arff); empty detects it")
		split    = fs.String("split", "", "split file (id<TAB>train|valid|test|oov) the model was trained with; default: the random split taglens train drew (the split seed recorded in the model, --oov tags)")
		oovP     = fs.String("oov", "", "reserved OOV tags, one per line, as given to taglens train (for the default split)")
		subset   = fs.String("subset", "", "documents to evaluate: train, valid, test, oov or all")
		protocol = fs.String("protocol", "extended", "priming (Eq. 8, contextual models only), extended (Eq. 9) or completion (each term held out of its context in turn and ranked among the terms outside it; taglens's protocol)")
		bl       = fs.String("baselines", "", "comma-separated baselines to train and evaluate ("+strings.Join(baselineOrder, ",")+") or all")
		missing  = fs.String("missing", "", "incomplete local context band in percent: 10, 10-30 or 30-50")
		trials   = fs.Int("trials", 3, "number of trials (seeds --seed, --seed+1, ...)")
		sample   = fs.Int("sample", 0, fmt.Sprintf("evaluate a random sample of at most N of the documents in each trial (trial t's drawn with seed --seed+t; the report says so); 0: such a sample only where documents × vocabulary terms exceed %.0e (N = %.0e / terms); %d: all of them", float64(app.DefaultRankBudget), float64(app.DefaultRankBudget), app.AllDocs))
		cross    = fs.String("cross", "", "evaluate another corpus (cross-corpora with --subset all, real OOV with --subset oov)")
		variants = fs.String("variants", "", "model variants to evaluate (default ce,siamese-ce; for oov ce-feature,siamese-ce-feature,ce-avg,siamese-ce-avg; none for baselines only)")
		seed     = fs.Uint64("seed", 1, "seed of the first trial")
		workers  = fs.Int("workers", 2, "goroutines evaluating documents")
		conc     = fs.Int("concurrent", 2, "models (baselines, variants) evaluated at once; the report is the same for any value")
		jsonOut  = fs.String("json", "", "write the JSON report to this file instead of stdout")
		cpuProf  = fs.String("cpuprofile", "", "write a CPU profile of the evaluation to this file (go tool pprof)")
	)
	if err := parseFlags(fs, args); err != nil {
		return nil, err
	}
	if err := requireFlags(fs, "model", "corpus", "subset"); err != nil {
		return nil, err
	}
	// The outputs are checked before any input is read.
	if err := checkOutputs(output{flag: "json", path: *jsonOut}, output{flag: "cpuprofile", path: *cpuProf}); err != nil {
		return nil, fmt.Errorf("eval: %w", err)
	}
	usage := func(format string, a ...any) (*evalConfig, error) {
		msg := fmt.Sprintf(format, a...)
		fmt.Fprintln(stderr, msg)
		fs.Usage()
		return nil, &usageError{msg: msg, shown: true}
	}
	cfg := &evalConfig{
		modelPaths: textlist.Split(*model),
		corpusPath: *corpusP,
		splitPath:  *split,
		crossPath:  *cross,
		seed:       *seed,
		workers:    *workers,
		concurrent: *conc,
		jsonOut:    *jsonOut,
		cpuProfile: *cpuProf,
	}
	var err error
	if cfg.format, err = corpus.ParseFormat(*format); err != nil {
		return usage("%s", err)
	}
	if *workers < 1 {
		return usage("--workers must be at least 1")
	}
	if *conc < 1 {
		return usage("--concurrent must be at least 1")
	}
	in := evalInput(fs, cfg, *subset, *protocol, *missing, *bl, *variants, *trials)
	in.Sample = *sample
	if cfg.EvalSpec, err = in.Normalize(); err == nil {
		err = cfg.CheckCorpus(cfg.crossPath != "")
	}
	var ie *app.InputError
	if errors.As(err, &ie) {
		return usage("%s", ie.Named(evalFlag(ie.Field)))
	}
	if err != nil {
		return nil, err
	}
	if *oovP != "" {
		cfg.oovPath = *oovP
		if cfg.oovTags, err = readOOVFile(*oovP); err != nil {
			return nil, err
		}
	}
	return cfg, nil
}

// evalInput translates the flags of taglens eval into an evaluation's input
// (app.EvalInput): several model files are one per trial; the setting is
// OOV with --subset oov, cross-corpora with --cross, incomplete-context with
// --missing, else within-corpus; the OOV setting's protocol is priming unless
// --protocol is given.
func evalInput(fs *flag.FlagSet, cfg *evalConfig, subset, protocol, missing, bl, variants string, trials int) app.EvalInput {
	in := app.EvalInput{Models: len(cfg.modelPaths), SeedTrials: len(cfg.modelPaths) > 1, Subset: subset,
		Protocol: protocol, Missing: missing, Baselines: textlist.Split(bl), Variants: textlist.Split(variants)}
	oov := strings.EqualFold(strings.TrimSpace(subset), "oov")
	switch {
	case oov:
		in.Setting = string(eval.OOVSetting)
		if !flagSet(fs, "protocol") {
			in.Protocol = string(eval.Priming)
		}
	case cfg.crossPath != "":
		in.Setting = string(eval.CrossCorpora)
	case strings.TrimSpace(missing) != "":
		in.Setting = string(eval.IncompleteContext)
	}
	if flagSet(fs, "trials") {
		in.Trials = &trials
	}
	return in
}

// evalFlag is the flag of taglens eval that an evaluation input's field
// (app.InputError) is given by.
func evalFlag(field string) string {
	switch field {
	case "model_ids", "seed_trials":
		return "--model"
	case "corpus_id":
		return "--cross"
	}
	return "--" + field
}

// readOOVFile reads the reserved OOV tags of an --oov file.
func readOOVFile(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	tags, err := corpus.ReadOOVTags(f)
	if err != nil {
		return nil, fmt.Errorf("eval: %s: %w", path, err)
	}
	return tags, nil
}

// flagSet reports whether the flag name was given.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// evalRun holds what the trials need.
type evalRun struct {
	cfg      *evalConfig
	models   []*ce.Model
	vocab    *corpus.Vocabulary
	corpus   *corpus.Corpus // the models' training corpus
	notes    []string       // notes before the run (printed as they are made)
	progress io.Writer
}

// evaluate runs the evaluation that cfg describes (app.Evaluate) and returns
// its report; progress goes to stderr.
func evaluate(ctx context.Context, cfg *evalConfig, stderr io.Writer) (*eval.Report, error) {
	r := &evalRun{cfg: cfg, progress: stderr}
	if err := r.loadModels(); err != nil {
		return nil, err
	}
	c, cross, err := readEvalCorpora(cfg)
	if err != nil {
		return nil, err
	}
	r.corpus = c
	warnAbsentOOV(stderr, cfg.oovPath, c, cfg.oovTags)
	ev := &app.Evaluation{Models: r.models, Corpus: c, Cross: cross, Subset: cfg.Subset, Protocol: cfg.Protocol,
		Setting: cfg.Setting, Missing: cfg.Missing, Trials: cfg.Trials, Sample: cfg.Sample, Seed: cfg.seed, Workers: cfg.workers,
		Concurrent: cfg.concurrent,
		Baselines:  cfg.Baselines, AllBaselines: cfg.AllBaselines, Split: r.split, SplitPerModel: cfg.splitPath == "", CheckTrainDocs: true,
		AllWithoutOOV: cfg.splitPath == "", Notes: r.notes,
		Note: func(s string) { fmt.Fprintf(r.progress, "note: %s\n", s) },
		Docs: func(t, n int, note string) {
			if note == "" {
				note = fmt.Sprintf("%d documents in %s", n, cfg.Subset)
			}
			fmt.Fprintf(r.progress, "trial %d/%d: %s\n", t+1, cfg.Trials, note)
		},
		Progress: r.printProgress()}
	// The variants: trial t uses the model of trial t, or the last one when
	// there are fewer models.
	ev.Variants = compare.VariantEntries(cfg.Variants, cfg.Setting == eval.OOVSetting, r.models,
		func(i int) map[string]any { return modelTuning(cfg.modelPaths[i], r.models[i]) }, "")
	rep, err := app.Evaluate(ctx, ev)
	var noDocs *app.NoDocsError
	switch {
	case errors.Is(err, app.ErrNoEntries):
		return nil, errors.New("eval: no model left to evaluate")
	case errors.As(err, &noDocs):
		return nil, fmt.Errorf("eval: eval: %w", err)
	case err != nil:
		return nil, fmt.Errorf("eval: %w", err)
	}
	return rep, nil
}

// loadModels reads the model files of the run (one per trial, or one for
// all), which must share a vocabulary.
func (r *evalRun) loadModels() error {
	cfg := r.cfg
	for _, p := range cfg.modelPaths {
		m, err := ce.ReadFile(p)
		if err != nil {
			return fmt.Errorf("eval: %w", err)
		}
		r.models = append(r.models, m)
	}
	r.vocab = r.models[0].Vocabulary()
	for i, m := range r.models[1:] {
		if !slices.Equal(m.Vocabulary().Terms(), r.vocab.Terms()) {
			return fmt.Errorf("eval: %s and %s have different vocabularies: trials must use models of the same corpus",
				cfg.modelPaths[0], cfg.modelPaths[i+1])
		}
	}
	if len(r.models) == 1 && cfg.Trials > 1 && len(cfg.Variants) > 0 {
		r.note("one model file for all trials: the trials of its variants differ only by the evaluation's own randomness")
	}
	return nil
}

// readEvalCorpora reads the training corpus and, with --cross, the other
// evaluated corpus (nil without).
func readEvalCorpora(cfg *evalConfig) (*corpus.Corpus, *corpus.Corpus, error) {
	c, err := corpus.ReadFile(cfg.corpusPath, corpus.ParseOptions{Format: cfg.format})
	if err != nil {
		return nil, nil, fmt.Errorf("eval: %w", err)
	}
	var cross *corpus.Corpus
	if cfg.crossPath != "" {
		if cross, err = corpus.ReadFile(cfg.crossPath, corpus.ParseOptions{Format: cfg.format}); err != nil {
			return nil, nil, fmt.Errorf("eval: %w", err)
		}
	}
	return c, cross, nil
}

// split returns the split of model m as taglens train made it
// (app.TrainedSplit): --split without the documents holding an --oov tag in
// train and valid, or else the random split with the split seed recorded in
// the model and the --oov tags, so each model file is paired with its own
// training documents.
func (r *evalRun) split(m *ce.Model) (corpus.Split, error) {
	cfg := r.cfg
	var own *corpus.Split
	if cfg.splitPath != "" {
		f, err := os.Open(cfg.splitPath)
		if err != nil {
			return corpus.Split{}, fmt.Errorf("eval: %w", err)
		}
		split, err := corpus.ReadSplit(f, r.corpus)
		f.Close()
		if err != nil {
			return corpus.Split{}, fmt.Errorf("eval: %s: %w", cfg.splitPath, err)
		}
		own = &split
	}
	split, err := app.TrainedSplit(m, r.corpus, own, cfg.oovTags)
	if errors.Is(err, app.ErrNoOwnSplit) {
		return corpus.Split{}, fmt.Errorf("eval: the model was trained on the split of a file: pass it with --split")
	}
	return split, err
}

func (r *evalRun) note(s string) {
	r.notes = append(r.notes, s)
	fmt.Fprintf(r.progress, "note: %s\n", s)
}

// printProgress returns the progress printer of a comparison: a line when a
// baseline starts training, its tuning steps, when it is trained, every 25 % of
// the documents of an evaluation of 1,000 documents or more, and each result
// with its wall time, and its CPU time when no other entry ran beside it (the
// process's CPU time is then the entry's own).
func (r *evalRun) printProgress() func(compare.Event) {
	type phase struct {
		start  time.Time
		cpu0   time.Duration
		next   int  // next quarter of the documents to report
		shared bool // another entry ran during the phase
	}
	running := map[string]*phase{}
	begin := func(name string) {
		ph := &phase{start: time.Now(), next: 1}
		ph.cpu0, _ = cputime.Process()
		for _, o := range running {
			o.shared, ph.shared = true, true
		}
		running[name] = ph
	}
	times := func(ph *phase) string {
		s := time.Since(ph.start).Round(time.Millisecond).String()
		if !ph.shared {
			s += cpuSince(ph.cpu0)
		}
		return s
	}
	return func(e compare.Event) {
		label := fmt.Sprintf("trial %d/%d %s", e.Trial+1, e.Trials, e.Entry)
		w := r.progress
		ph := running[e.Entry]
		switch e.Stage {
		case "training baseline":
			if ph == nil {
				begin(e.Entry)
				fmt.Fprintf(w, "%s: training %s\n", label, e.Message)
				return
			}
			fmt.Fprintf(w, "%s: %s\n", label, e.Message)
		case "evaluating":
			if ph != nil {
				fmt.Fprintf(w, "%s: trained in %s\n", label, times(ph))
				delete(running, e.Entry)
			}
			begin(e.Entry)
		case "documents":
			if ph == nil || e.DocsTotal < 1000 || e.DocsDone*4 < ph.next*e.DocsTotal {
				return
			}
			fmt.Fprintf(w, "%s: %d%% of %d documents\n", label, 25*ph.next, e.DocsTotal)
			for e.DocsDone*4 >= ph.next*e.DocsTotal {
				ph.next++
			}
		case "done":
			if ph == nil {
				return
			}
			fmt.Fprintf(w, "%s: %d queries, MAP %.4f, AUC %.4f (%s)\n", label, e.Result.Queries, e.Result.MAP, e.Result.AUC, times(ph))
			delete(running, e.Entry)
		}
	}
}

// cpuSince returns ", N s CPU": the process's CPU time since cpu0 (every
// goroutine's, so on a shared machine a fairer measure than the wall time), or
// "" when it is unknown.
func cpuSince(cpu0 time.Duration) string {
	cpu, ok := cputime.Process()
	if !ok {
		return ""
	}
	return fmt.Sprintf(", %s CPU", (cpu - cpu0).Round(time.Millisecond))
}

// modelTuning records which model file a variant came from and how it was trained.
func modelTuning(path string, m *ce.Model) map[string]any {
	in := m.Info()
	return map[string]any{
		"model_file": path, "train_seed": in.Seed, "topics": in.Topics, "ce_dim": m.CEDim(),
		"best_epoch_ce": in.BestEpoch1, "best_epoch_siamese": in.BestEpoch2,
		"valid_p2_ce": in.ValidP2CE, "valid_p2_siamese": in.ValidP2Siamese,
	}
}

// writeReportFile writes b to path atomically (internal/atomicfile), so a
// reader never sees a partial report.
func writeReportFile(path string, b []byte) error {
	if err := atomicfile.WriteBytes(path, 0o644, b); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
