package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/taglens/taglens/internal/atomicfile"
	"github.com/taglens/taglens/ml/corpus"
)

func init() {
	register(command{name: "stats", summary: "describe a corpus: tag use, document cardinality (paper Figs. 3-4)", run: runStats})
}

// statsJSONFlag is --json: alone it means "JSON on stdout", --json=FILE writes FILE.
type statsJSONFlag struct{ dest string }

func (f *statsJSONFlag) String() string   { return f.dest }
func (f *statsJSONFlag) IsBoolFlag() bool { return true }
func (f *statsJSONFlag) Set(s string) error {
	switch s {
	case "true", "-":
		f.dest = "-"
	case "false", "":
		f.dest = ""
	default:
		f.dest = s
	}
	return nil
}

func runStats(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("stats", "--corpus PATH [--format F] [--tag-sep S] [--labels A,B] [--top N] [--json[=FILE]]", stderr)
	path := fs.String("corpus", "", "corpus file (formats: tsv, lines, csv, jsonl, matrix, arff; gzip-compressed or not)")
	format := fs.String("format", "", "corpus format; empty detects it")
	top := fs.Int("top", 20, "number of most used tags to list")
	tagSep := fs.String("tag-sep", "", `csv format: separator of the tags inside the tags field (default: the first of ";", "|", "," in the field)`)
	labels := fs.String("labels", "", "arff format: label attributes, comma-separated or a mulan labels .xml file (default: every {0,1} nominal attribute)")
	var js statsJSONFlag
	fs.Var(&js, "json", "print the statistics as JSON on stdout, or with =FILE write them to FILE")
	if err := parseFlags(fs, args, "corpus"); err != nil {
		return err
	}
	if err := checkOutput(output{flag: "json", path: js.dest}); err != nil {
		return fmt.Errorf("stats: %w", err)
	}
	f, err := corpus.ParseFormat(*format)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return &usageError{msg: err.Error(), shown: true}
	}
	opt := corpus.ParseOptions{Format: f, TagSep: *tagSep}
	if strings.HasSuffix(strings.ToLower(*labels), ".xml") {
		lf, err := os.Open(*labels)
		if err != nil {
			return fmt.Errorf("stats: %w", err)
		}
		opt.Labels, err = corpus.ReadMulanLabels(lf)
		lf.Close()
		if err != nil {
			return fmt.Errorf("stats: %s: %w", *labels, err)
		}
	} else if *labels != "" {
		for _, l := range strings.Split(*labels, ",") {
			if l = strings.TrimSpace(l); l != "" {
				opt.Labels = append(opt.Labels, l)
			}
		}
	}
	c, err := corpus.ReadFile(*path, opt)
	if err != nil {
		return err
	}
	s := corpus.ComputeStats(c)
	switch js.dest {
	case "":
		return printStats(stdout, c, &s, *top)
	case "-":
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(s)
	default:
		b, err := json.MarshalIndent(s, "", "  ")
		if err != nil {
			return err
		}
		if err := atomicfile.WriteBytes(js.dest, 0o644, append(b, '\n')); err != nil {
			return fmt.Errorf("stats: %w", err)
		}
		fmt.Fprintf(stderr, "wrote %s\n", js.dest)
		return nil
	}
}

// printStats writes the human-readable summary.
func printStats(w io.Writer, c *corpus.Corpus, s *corpus.Stats, top int) error {
	var b strings.Builder
	fmt.Fprintf(&b, "corpus      %s (%s)\n", s.Name, s.Format)
	if s.Detected != "" {
		fmt.Fprintf(&b, "detected    %s\n", s.Detected)
	}
	fmt.Fprintf(&b, "documents   %s", thousands(s.Docs))
	if s.Dropped > 0 {
		fmt.Fprintf(&b, " (%s without tags dropped)", thousands(s.Dropped))
	}
	if s.Skipped > 0 {
		fmt.Fprintf(&b, "\n            %s", s.SkippedSummary())
	}
	if s.BidiSkipped > 0 {
		fmt.Fprintf(&b, "\n            %s", s.BidiSummary())
	}
	fmt.Fprintf(&b, "\ntags        %s (%s used by one document only)\n", thousands(s.Tags), thousands(s.SingletonTags))
	fmt.Fprintf(&b, "tag uses    %s\n", thousands(s.Uses))
	fmt.Fprintf(&b, "tags/doc    mean %.2f, median %g, min %d, max %d\n",
		s.MeanTagsPerDoc, s.MedianTagsPerDoc, s.MinTagsPerDoc, s.MaxTagsPerDoc)
	for i, warn := range c.Warnings {
		if i == 5 {
			fmt.Fprintf(&b, "  … %d more dropped\n", s.Dropped-5)
			break
		}
		fmt.Fprintf(&b, "  %s\n", warn.Error())
	}

	tops := s.Top(top)
	if len(tops) > 0 {
		fmt.Fprintf(&b, "\ntop %d tags (documents using each)\n", len(tops))
		width := 0
		for _, t := range tops {
			width = max(width, len([]rune(t.Tag)))
		}
		width = min(width, 32)
		for i, t := range tops {
			fmt.Fprintf(&b, "%4d  %-*s %8s  %s\n", i+1, width, truncate(t.Tag, 32), thousands(t.Count),
				bar(t.Count, tops[0].Count, 30))
		}
	}

	fmt.Fprintf(&b, "\ndocument cardinality (tags per document: documents)\n")
	hist := s.Cardinality
	peak := 0
	for _, n := range hist {
		peak = max(peak, n)
	}
	const rows = 30
	for k := 1; k < len(hist) && k <= rows; k++ {
		if hist[k] > 0 {
			fmt.Fprintf(&b, "%6d  %8s  %s\n", k, thousands(hist[k]), bar(hist[k], peak, 40))
		}
	}
	if len(hist) > rows+1 {
		rest := 0
		for _, n := range hist[rows+1:] {
			rest += n
		}
		fmt.Fprintf(&b, "%6s  %8s\n", fmt.Sprintf("%d-%d", rows+1, len(hist)-1), thousands(rest))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func bar(n, peak, width int) string {
	if peak == 0 {
		return ""
	}
	k := (n*width + peak - 1) / peak
	return strings.Repeat("█", k)
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// thousands formats n with comma separators: 12523 → "12,523".
func thousands(n int) string {
	s := strconv.Itoa(n)
	if n < 0 {
		return "-" + thousands(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
