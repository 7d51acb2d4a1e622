package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/taglens/taglens/internal/projector"
	"github.com/taglens/taglens/ml/ce"
	"github.com/taglens/taglens/ml/corpus"
)

func init() {
	register(command{name: "export", summary: "export CE instances for the TensorFlow Projector", run: runExport})
}

func runExport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("export", "--model MODEL --corpus PATH --out DIR [--variant siamese-ce|ce]", stderr)
	modelPath := fs.String("model", "", "model file written by taglens train")
	corpusPath := fs.String("corpus", "", "corpus whose documents are embedded")
	format := fs.String("format", "", "corpus format (tsv, lines, csv, jsonl, matrix, arff); empty detects it")
	outDir := fs.String("out", "", "output directory for tensors.tsv and metadata.tsv")
	variantFlag := fs.String("variant", string(ce.DefaultVariant), "network: siamese-ce or ce")
	if err := parseFlags(fs, args, "model", "corpus", "out"); err != nil {
		return err
	}
	variant, err := ce.ParseVariant(*variantFlag)
	if err != nil {
		return &usageError{msg: err.Error()}
	}
	if err := checkOutput(output{flag: "out", path: *outDir, folder: true}); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	m, err := ce.ReadFile(*modelPath)
	if err != nil {
		return err
	}
	f, err := corpus.ParseFormat(*format)
	if err != nil {
		return &usageError{msg: err.Error()}
	}
	c, err := corpus.ReadFile(*corpusPath, corpus.ParseOptions{Format: f})
	if err != nil {
		return err
	}
	if err := os.MkdirAll(*outDir, 0o755); err != nil {
		return err
	}
	n, skipped, err := exportProjector(ctx, m, variant, c, *outDir)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "wrote %d CE instances to %s (tensors.tsv, metadata.tsv); %d documents without an in-vocabulary tag skipped\n", n, *outDir, skipped)
	return nil
}

// exportProjector writes tensors.tsv and metadata.tsv of the documents of c
// into dir (internal/projector).
func exportProjector(ctx context.Context, m *ce.Model, variant ce.Variant, c *corpus.Corpus, dir string) (rows, skipped int, err error) {
	tf, err := os.Create(filepath.Join(dir, "tensors.tsv"))
	if err != nil {
		return 0, 0, err
	}
	defer tf.Close()
	mf, err := os.Create(filepath.Join(dir, "metadata.tsv"))
	if err != nil {
		return 0, 0, err
	}
	defer mf.Close()
	if rows, skipped, err = projector.Write(ctx, m, variant, c.Docs, tf, mf); err != nil {
		return rows, skipped, err
	}
	if err := tf.Close(); err != nil {
		return rows, skipped, err
	}
	return rows, skipped, mf.Close()
}
