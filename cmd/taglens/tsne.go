package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/taglens/taglens/internal/atomicfile"
	"github.com/taglens/taglens/ml/corpus"
	"github.com/taglens/taglens/tsne"
)

func init() {
	register(command{name: "tsne", summary: "embed vectors in 2-D with t-SNE", run: runTSNE})
}

// maxTSNEIters bounds --iters: a hundred times the default of 1000 (and 20
// times the web app's largest map).
const maxTSNEIters = 100_000

// runTSNE reads one tab-separated vector per line, embeds them with t-SNE and
// writes "x\ty" per line in input order.
// Kept in one function: flag parsing, reading, embedding and writing are one
// straight sequence of short steps.
func runTSNE(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("tsne", "--in VECTORS.tsv --out POINTS.tsv [flags]", stderr)
	in := fs.String("in", "", "input vectors, one tab-separated vector per line")
	out := fs.String("out", "", "output points, x<TAB>y per line in input order")
	perp := fs.Float64("perplexity", 30, "perplexity, > 0 (3·perplexity must be below the number of vectors)")
	iters := new(int)
	*iters = 1000
	fs.Func("iters", fmt.Sprintf("gradient-descent iterations (early exaggeration included), 1..%d (default 1000)", maxTSNEIters), func(v string) error {
		// An integer, also written as a float ("1e5"); the range is
		// checked below, with the value in the message.
		v = strings.TrimSpace(v)
		n, err := strconv.Atoi(v)
		if err != nil {
			f, ferr := strconv.ParseFloat(v, 64)
			if ferr != nil || f != math.Trunc(f) || math.Abs(f) > 1e18 {
				return errors.New("not an integer")
			}
			n = int(f)
		}
		*iters = n
		return nil
	})
	seed := fs.Uint64("seed", 1, "random seed")
	method := fs.String("method", "auto", "gradient method: auto, exact, bh or fft")
	asJSON := fs.Bool("json", false, `print {"n","dims","method","iterations","seconds","kl"} to stdout`)
	if err := parseFlags(fs, args, "in", "out"); err != nil {
		return err
	}
	if err := checkOutput(output{flag: "out", path: *out}); err != nil {
		return fmt.Errorf("tsne: %w", err)
	}
	switch tsne.Method(*method) {
	case tsne.Auto, tsne.Exact, tsne.BarnesHut, tsne.FFT:
	default:
		return &usageError{msg: fmt.Sprintf("-method %q: want auto, exact, bh or fft", *method)}
	}
	if *iters < 1 || *iters > maxTSNEIters {
		return &usageError{msg: fmt.Sprintf("--iters %d: must be a positive integer in 1..%d", *iters, maxTSNEIters)}
	}
	if !(*perp > 0) || math.IsInf(*perp, 0) {
		return &usageError{msg: fmt.Sprintf("--perplexity %v: must be a finite number > 0", *perp)}
	}
	x, err := readTSNEInput(*in, *perp)
	if err != nil {
		return err
	}

	start := time.Now()
	lastReport := start
	opt := tsne.Options{
		Perplexity: *perp, Iterations: *iters, Method: tsne.Method(*method), Seed: *seed,
		Progress: func(it int, kl float64, _ []float64) bool {
			if now := time.Now(); it == *iters || now.Sub(lastReport) >= time.Second {
				lastReport = now
				fmt.Fprintf(stderr, "tsne: iteration %d/%d, KL %.4f, %.1fs\n", it, *iters, kl, now.Sub(start).Seconds())
			}
			return true
		},
	}
	e, err := tsne.Embed(ctx, x, opt)
	if err != nil {
		var ie *tsne.InputError
		if errors.As(err, &ie) && ie.Col >= 0 {
			// Rows are the non-empty lines, in order; report them 1-based.
			return fmt.Errorf("tsne: %s: vector %d field %d: %s", *in, ie.Row+1, ie.Col+1, ie.Msg)
		}
		return err
	}
	secs := time.Since(start).Seconds()
	if err := writePoints(*out, e.Y); err != nil {
		return fmt.Errorf("tsne: %w", err)
	}
	fmt.Fprintf(stderr, "tsne: %d points, method %s, %d iterations, KL %.4f, %.2fs\n", len(x), e.Method, e.Iterations, e.KL, secs)
	if *asJSON {
		rep := tsneReport{len(x), len(x[0]), string(e.Method), e.Iterations, secs, e.KL}
		enc := json.NewEncoder(stdout)
		return enc.Encode(rep)
	}
	return nil
}

// readTSNEInput reads the vectors of path and checks there are enough of them
// for the perplexity (at least 4, and 3·perplexity below their number).
func readTSNEInput(path string, perp float64) ([][]float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("tsne: %w", err)
	}
	x, err := readVectors(f)
	f.Close()
	if err != nil {
		return nil, fmt.Errorf("tsne: %s: %w", path, err)
	}
	if len(x) < 4 {
		return nil, fmt.Errorf("tsne: %s: need at least 4 vectors, got %d", path, len(x))
	}
	if 3*perp >= float64(len(x)) {
		return nil, &usageError{msg: fmt.Sprintf("--perplexity %v: must be below %.4g (a third of the %d vectors: 3·perplexity < number of vectors)", perp, float64(len(x))/3, len(x))}
	}
	return x, nil
}

// readVectors parses one tab-separated vector per non-empty line. Errors name
// the 1-based line.
func readVectors(r io.Reader) ([][]float64, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	var x [][]float64
	dims := -1
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(text) == "" {
			continue
		}
		fields := strings.Split(text, "\t")
		if dims >= 0 && len(fields) != dims {
			return nil, fmt.Errorf("line %d: %d values, want %d like the first line", line, len(fields), dims)
		}
		dims = len(fields)
		v := make([]float64, len(fields))
		for j, s := range fields {
			f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
			if err != nil {
				return nil, fmt.Errorf("line %d field %d: %s is not a number", line, j+1, corpus.Excerpt(s))
			}
			if math.IsNaN(f) || math.IsInf(f, 0) {
				return nil, fmt.Errorf("line %d field %d: %s is not finite", line, j+1, corpus.Excerpt(s))
			}
			v[j] = f
		}
		x = append(x, v)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return x, nil
}

// writePoints writes x<TAB>y per line, with the shortest exact float format.
func writePoints(path string, y [][]float64) error {
	_, err := atomicfile.Write(path, 0o644, func(f io.Writer) error {
		w := bufio.NewWriter(f)
		buf := make([]byte, 0, 64)
		for _, p := range y {
			buf = strconv.AppendFloat(buf[:0], p[0], 'g', -1, 64)
			buf = append(buf, '\t')
			buf = strconv.AppendFloat(buf, p[1], 'g', -1, 64)
			buf = append(buf, '\n')
			w.Write(buf)
		}
		return w.Flush()
	})
	return err
}

// tsneReport is the --json output of taglens tsne.
type tsneReport struct {
	N          int     `json:"n"`
	Dims       int     `json:"dims"`
	Method     string  `json:"method"`
	Iterations int     `json:"iterations"`
	Seconds    float64 `json:"seconds"`
	KL         float64 `json:"kl"`
}
