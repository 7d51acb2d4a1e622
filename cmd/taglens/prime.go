package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/taglens/taglens/internal/app"
	"github.com/taglens/taglens/ml/ce"
)

func init() {
	register(command{name: "prime", summary: "prime related terms for a tag set with a trained model", run: runPrime})
}

func runPrime(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("prime", `--model MODEL --tags "a,b,c" [--k N] [--variant siamese-ce|ce] [--json]`, stderr)
	modelPath := fs.String("model", "", "model file written by taglens train")
	tags := fs.String("tags", "", "comma-separated tag set (the document / context)")
	k := fs.Int("k", 10, fmt.Sprintf("number of primed terms per list (1..%d)", app.MaxPrimeK))
	variantFlag := fs.String("variant", string(ce.DefaultVariant), "network: siamese-ce or ce")
	asJSON := fs.Bool("json", false, "print the result as JSON on stdout")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *k < 1 || *k > app.MaxPrimeK {
		return &usageError{msg: fmt.Sprintf("--k %d: must be in 1..%d", *k, app.MaxPrimeK)}
	}
	if err := requireFlags(fs, "model", "tags"); err != nil {
		return err
	}
	variant, err := ce.ParseVariant(*variantFlag)
	if err != nil {
		return &usageError{msg: err.Error()}
	}
	m, err := ce.ReadFile(*modelPath)
	if err != nil {
		return err
	}
	res, err := app.Prime(m, app.Priming{Variant: variant, Tags: strings.Split(*tags, ","), K: *k})
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSONTo("-", stdout, res)
	}
	if len(res.OOV) > 0 {
		fmt.Fprintf(stdout, "out of vocabulary (placed by the concept-based method): %s\n\n", strings.Join(res.OOV, ", "))
	}
	fmt.Fprintln(stdout, "extended priming (Eq. 9):")
	for i, p := range res.Extended {
		mark := " "
		if p.InDoc {
			mark = "*"
		}
		fmt.Fprintf(stdout, "%3d %s %-30s %.4f\n", i+1, mark, p.Term, p.Distance)
	}
	for _, t := range strings.Split(*tags, ",") {
		t = strings.TrimSpace(t)
		list, ok := res.PerTerm[t]
		if !ok {
			continue
		}
		fmt.Fprintf(stdout, "\n%s (Eq. 8):\n", t)
		for i, p := range list {
			fmt.Fprintf(stdout, "%3d   %-30s %.4f\n", i+1, p.Term, p.Distance)
		}
	}
	return nil
}
