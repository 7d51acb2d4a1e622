package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/taglens/taglens/internal/app"
	"github.com/taglens/taglens/internal/atomicfile"
	"github.com/taglens/taglens/internal/report"
	"github.com/taglens/taglens/ml/ce"
	"github.com/taglens/taglens/ml/corpus"
)

func init() {
	register(command{name: "train", summary: "train the CE and Siamese-CE models on a corpus", run: runTrain})
}

const trainSynopsis = "--corpus PATH [--format F] [--split PATH] [--oov PATH] --out MODEL [--seed N] [--topics K] " +
	"[--hidden 100,100,10] [--max-time DURATION] [--alpha A] [--lambda L] [--output-sample M] [--max-epochs1 N] [--max-epochs2 N] [--json OUT]"

// trainSummary is the --json output of taglens train.
type trainSummary struct {
	Model string `json:"model"`
	// The fields docs/results.md shows of a training (report.Training, one
	// definition for the writer and the reader of this JSON).
	report.Training
	// Stage2From is the stage-1 epoch stage 2 started from (ce.Info.Stage2From).
	Stage2From int `json:"stage2_from"`
	// Stage1Restart says why stage 1 started again (ce.Info.Stage1Restart).
	Stage1Restart string `json:"stage1_restart,omitempty"`
	// The validation extended MAP of each network (the early-stopping
	// criterion) and the term widths' fit (ce.Info; widths zero without one).
	ValidMAPCE           float64       `json:"valid_map_ce"`
	ValidMAPSiamese      float64       `json:"valid_map_siamese_ce"`
	WidthCE              float64       `json:"width_ce,omitempty"`
	WidthSiamese         float64       `json:"width_siamese_ce,omitempty"`
	ValidMAPWidthCE      float64       `json:"valid_map_width_ce,omitempty"`
	ValidMAPWidthSiamese float64       `json:"valid_map_width_siamese_ce,omitempty"`
	Log                  []ce.LogEntry `json:"log"`
}

// runTrain is `taglens train`: the command's own flags, one flag per
// documented training parameter, then ce.Config.Validate and app.Train.
func runTrain(ctx context.Context, args []string, stdout, stderr io.Writer) (err error) {
	fs := newFlagSet("train", trainSynopsis, stderr)
	corpusPath := fs.String("corpus", "", "corpus file (any accepted format, gzip-compressed or not)")
	format := fs.String("format", "", "corpus format (tsv, lines, csv, jsonl, matrix, arff); empty detects it")
	splitPath := fs.String("split", "", "split.tsv (doc_id<TAB>train|valid|test|oov); default: a random 2:1 split drawn with --split-seed")
	splitSeed := fs.Uint64("split-seed", corpus.DefaultSplitSeed, "seed of the random split when there is no --split (kept apart from --seed so that models of several seeds share one split)")
	oovPath := fs.String("oov", "", "file of reserved OOV tags, one per line: documents holding one are left out of training")
	out := fs.String("out", "", "model file to write")
	seed := fs.Uint64("seed", 1, "random seed")
	jsonOut := fs.String("json", "", `write a JSON summary to this file ("-" = stdout)`)
	// One flag per documented training parameter (ce.Params), set by
	// ce.Config.Set: the flags, the web form and the API cannot drift.
	var cfg ce.Config
	for _, p := range ce.Params {
		fs.Func(p.Flag, p.Usage(), func(v string) error {
			err := cfg.Set(p.Name, v)
			var pe *ce.ParamError
			if errors.As(err, &pe) {
				return errors.New(pe.Reason) // the flag package names the flag
			}
			return err
		})
	}
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the training to this file (go tool pprof)")
	if err := parseFlags(fs, args, "corpus", "out"); err != nil {
		return err
	}
	// The outputs are checked before anything is read or trained.
	if err := checkOutputs(output{flag: "out", path: *out}, output{flag: "json", path: *jsonOut},
		output{flag: "cpuprofile", path: *cpuProfile}); err != nil {
		return fmt.Errorf("train: %w", err)
	}
	if *cpuProfile != "" {
		stop, err := startCPUProfile(*cpuProfile)
		if err != nil {
			return err
		}
		defer closeWith(stop, &err)
	}
	cfg.Seed, cfg.SplitSeed, cfg.SplitFromFile = *seed, *splitSeed, *splitPath != ""
	if *splitPath != "" {
		cfg.SplitSeed = 0
	}
	if err := checkConfig(cfg); err != nil {
		return err
	}
	start := time.Now()
	t, err := loadTrainData(*corpusPath, *format, *splitPath, *oovPath)
	if err != nil {
		return err
	}
	warnAbsentOOV(stderr, *oovPath, t.Corpus, t.Reserved)
	t.Config, t.Progress = cfg, trainProgress(stderr, start)
	c, split := t.Corpus, t.Split()
	fmt.Fprintln(stderr, corpusLine(c, split))
	m, err := app.Train(ctx, t)
	if err != nil {
		return err
	}
	if err := m.WriteFile(*out); err != nil {
		return err
	}
	return reportTraining(stdout, stderr, m, c, *out, *jsonOut, start)
}

// checkConfig checks the configuration with ce.Config.Validate, the one
// check of training parameters shared with the web app's form and API; its
// parameter names are the flags' with '_'.
func checkConfig(cfg ce.Config) error {
	if err := cfg.Validate(); err != nil {
		var pe *ce.ParamError
		if errors.As(err, &pe) {
			return &usageError{msg: fmt.Sprintf("--%s %s", ce.FlagName(pe.Param), pe.Reason)}
		}
		return &usageError{msg: err.Error()}
	}
	return nil
}

// loadTrainData reads the corpus, the reserved OOV tags and the split file
// of a training (app.Training.Split leaves the documents holding a reserved tag
// out of train and valid, §5.2; without a split file it draws
// corpus.RandomSplit with the configuration's split seed).
func loadTrainData(corpusPath, format, splitPath, oovPath string) (app.Training, error) {
	f, err := corpus.ParseFormat(format)
	if err != nil {
		return app.Training{}, &usageError{msg: err.Error()}
	}
	c, err := corpus.ReadFile(corpusPath, corpus.ParseOptions{Format: f})
	if err != nil {
		return app.Training{}, err
	}
	t := app.Training{Corpus: c}
	if oovPath != "" {
		if t.Reserved, err = readFileWith(oovPath, corpus.ReadOOVTags); err != nil {
			return app.Training{}, err
		}
	}
	if splitPath == "" {
		return t, nil
	}
	split, err := readFileWith(splitPath, func(r io.Reader) (corpus.Split, error) { return app.ReadSplit(r, c) })
	if err != nil {
		return app.Training{}, err
	}
	t.OwnSplit = &split
	return t, nil
}

// corpusLine is the training log's line about its corpus: documents, the
// split's sizes, and the documents the parser left out.
func corpusLine(c *corpus.Corpus, split corpus.Split) string {
	line := fmt.Sprintf("corpus %s: %d documents; %d train, %d valid", c.Name, len(c.Docs), len(split.Train), len(split.Valid))
	if c.Dropped > 0 {
		line += fmt.Sprintf("; %d without tags dropped", c.Dropped)
	}
	if len(c.Skipped) > 0 {
		line += "; " + c.SkippedSummary(corpus.MaxSkippedLines)
	}
	if len(c.BidiSkipped) > 0 {
		line += "; " + c.BidiSummary(corpus.MaxSkippedLines)
	}
	return line
}

// trainProgress prints one line per new progress report of a training.
func trainProgress(stderr io.Writer, start time.Time) func(ce.Progress) {
	last := ""
	return func(p ce.Progress) {
		line := fmt.Sprintf("[%5.1fs %3.0f%%] %-7s", time.Since(start).Seconds(), 100*p.Fraction, p.Stage)
		if p.Epochs > 0 {
			line += fmt.Sprintf(" epoch %d/%d loss %.5g", p.Epoch, p.Epochs, p.Loss)
		}
		if p.ValidP2CE > 0 {
			line += fmt.Sprintf(" P@2 CE %.4f", p.ValidP2CE)
		}
		if p.ValidP2Siamese > 0 {
			line += fmt.Sprintf(" Siamese %.4f", p.ValidP2Siamese)
		}
		if p.ETA > 0 {
			line += fmt.Sprintf(" ETA %s", p.ETA)
		}
		if p.Message != "" {
			line += " — " + p.Message
		}
		if line != last {
			fmt.Fprintln(stderr, line)
			last = line
		}
	}
}

// reportTraining prints the summary line of a written model and, with
// jsonOut, its JSON summary.
func reportTraining(stdout, stderr io.Writer, m *ce.Model, c *corpus.Corpus, out, jsonOut string, start time.Time) error {
	in := m.Info()
	from := ""
	if in.Stage2From != in.BestEpoch1 {
		from = fmt.Sprintf(" from stage-1 epoch %d", in.Stage2From)
	}
	fmt.Fprintf(stderr, "wrote %s in %.1fs: %d terms, %d topics, α=%g λ=%g; validation P@2: CE %.4f (epoch %d/%d, %s), Siamese-CE %.4f (epoch %d/%d%s, %s), random %.4f\n",
		out, time.Since(start).Seconds(), m.Vocabulary().Len(), in.Topics, in.Alpha, in.Lambda,
		in.ValidP2CE, in.BestEpoch1, in.Epochs1, in.StopReason1, in.ValidP2Siamese, in.BestEpoch2, in.Epochs2, from, in.StopReason2, in.ValidP2Random)
	fmt.Fprintln(stderr, in.ValidationNote())
	if jsonOut != "" {
		s := trainSummary{Model: out, Log: in.Log, Stage2From: in.Stage2From, Stage1Restart: in.Stage1Restart,
			ValidMAPCE: in.ValidMAPCE, ValidMAPSiamese: in.ValidMAPSiamese, WidthCE: in.WidthCE, WidthSiamese: in.WidthSiamese,
			ValidMAPWidthCE: in.ValidMAPWidthCE, ValidMAPWidthSiamese: in.ValidMAPWidthSiamese, Training: report.Training{Corpus: c.Name, TrainDocs: in.TrainDocs,
				ValidDocs: in.ValidDocs, Vocabulary: m.Vocabulary().Len(), Topics: in.Topics, Alpha: in.Alpha, Lambda: in.Lambda,
				Epochs1: in.Epochs1, Epochs2: in.Epochs2, ValidP2CE: in.ValidP2CE, ValidP2Siamese: in.ValidP2Siamese,
				ValidP2Random: in.ValidP2Random, Seconds: time.Since(start).Seconds()}}
		return writeJSONTo(jsonOut, stdout, s)
	}
	return nil
}

// writeJSONTo writes v as indented JSON to stdout ("-") or the named file.
func writeJSONTo(dst string, stdout io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	if dst == "-" || dst == "" {
		_, err = stdout.Write(b)
		return err
	}
	return atomicfile.WriteBytes(dst, 0o644, b)
}

// readFileWith opens path and parses it with parse, naming the file in errors.
// warnAbsentOOVShown is how many of the absent OOV tags warnAbsentOOV names.
const warnAbsentOOVShown = 5

// warnAbsentOOV prints a warning line naming how many of the reserved OOV tags
// tags (read from the file path) no document of c holds, and the first
// warnAbsentOOVShown of them: they reserve nothing, and are most likely a typo
// or the tags of another corpus.
func warnAbsentOOV(w io.Writer, path string, c *corpus.Corpus, tags []string) {
	absent := c.AbsentTags(tags)
	if len(absent) == 0 {
		return
	}
	shown := make([]string, 0, warnAbsentOOVShown)
	for _, t := range absent[:min(len(absent), warnAbsentOOVShown)] {
		shown = append(shown, corpus.Excerpt(t))
	}
	more := ""
	if n := len(absent) - len(shown); n > 0 {
		more = fmt.Sprintf(" and %d more", n)
	}
	fmt.Fprintf(w, "warning: %s: %d of the %d reserved OOV tags are in no document of the corpus (they reserve nothing): %s%s\n",
		path, len(absent), len(tags), strings.Join(shown, ", "), more)
}

func readFileWith[T any](path string, parse func(io.Reader) (T, error)) (T, error) {
	var zero T
	f, err := os.Open(path)
	if err != nil {
		return zero, err
	}
	defer f.Close()
	v, err := parse(f)
	if err != nil {
		return zero, fmt.Errorf("%s: %w", path, err)
	}
	return v, nil
}
