package app

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/taglens/taglens/ml/ce"
	"github.com/taglens/taglens/ml/cluster"
	"github.com/taglens/taglens/ml/corpus"
	"github.com/taglens/taglens/tsne"
)

// MapPoint is one point of an explorer map: a term of a document, placed in
// 2-D.
type MapPoint struct {
	X       float64  `json:"x"`
	Y       float64  `json:"y"`
	Term    string   `json:"term"`
	DocID   string   `json:"doc_id"`
	Kind    string   `json:"kind"` // instance | accompany | oov | negative
	Corpus  string   `json:"corpus"`
	Cluster int      `json:"cluster"`
	Topic   int      `json:"topic"` // the document's LDA topic (DocumentTopic); -1: none
	Tags    []string `json:"-"`     // the document's tags
}

// Progress receives the progress of a long use case: the fraction done, the
// stage and a message.
type Progress func(fraction float64, stage, msg string)

// InstanceMap is the map of every instance of one or more terms: each term's
// CE in each document of the corpora that holds it (paper §6.1's maps, Figure
// 5; with several terms, their instances in one map), coloured by sense
// (ml/cluster, each term's instances clustered on their own) and placed by
// t-SNE.
type InstanceMap struct {
	Model   *ce.Model
	Variant ce.Variant       // ce.VariantCE or ce.VariantSiamese
	Terms   []string         // terms of the model's vocabulary, at least one
	Corpora []*corpus.Corpus // the documents, named by their corpus's Name
	// MaxPoints bounds the map: a corpus stops adding documents once the map
	// holds that many points.
	MaxPoints int
	Progress  Progress // nil: none
}

// MinMapPoints is the fewest instances a map is drawn of.
const MinMapPoints = 4

// Compute returns the points of the map, rounded to four decimals, and the
// t-SNE embedding they came from (for placing more points with Transform).
// A point's Cluster is its sense cluster among its own term's instances. It
// stops with ctx's error when ctx is cancelled.
func (im *InstanceMap) Compute(ctx context.Context) ([]MapPoint, *tsne.Embedding, error) {
	progress := im.Progress
	if progress == nil {
		progress = func(float64, string, string) {}
	}
	names := strings.Join(im.Terms, ", ")
	progress(0.02, "embedding", "computing CE of every instance of "+names)
	var pts []MapPoint
	var x [][]float64
	for _, c := range im.Corpora {
		for _, d := range c.Docs {
			if !slices.ContainsFunc(d.Tags, func(t string) bool { return slices.Contains(im.Terms, t) }) {
				continue
			}
			ids, _, vecs, _, err := im.Model.EmbedDocument(im.Variant, d.Tags)
			if err != nil {
				continue // no in-vocabulary tag: cannot be placed
			}
			topic := DocumentTopic(im.Model, d.Tags)
			for i, id := range ids {
				if t := im.Model.Vocabulary().Term(id); slices.Contains(im.Terms, t) {
					pts = append(pts, MapPoint{Term: t, DocID: d.ID, Kind: "instance", Corpus: c.Name, Topic: topic, Tags: d.Tags})
					x = append(x, vecs[i])
				}
			}
			if len(pts) >= im.MaxPoints {
				break
			}
		}
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
	}
	if len(pts) < MinMapPoints {
		what := fmt.Sprintf("term %q has", names)
		if len(im.Terms) > 1 {
			what = fmt.Sprintf("terms %s have", names)
		}
		return nil, nil, fmt.Errorf("%s %d instances in these corpora; a map needs at least %d", what, len(pts), MinMapPoints)
	}
	for _, term := range im.Terms {
		var at []int
		var xt [][]float64
		for i, p := range pts {
			if p.Term == term {
				at, xt = append(at, i), append(xt, x[i])
			}
		}
		for j, c := range cluster.SenseClusters(xt, 1) {
			pts[at[j]].Cluster = c
		}
	}
	emb, err := MapTSNE(ctx, x, "points", 0, 1000, 1, progress)
	if err != nil {
		return nil, nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	for i := range pts {
		pts[i].X, pts[i].Y = Round4(emb.Y[i][0]), Round4(emb.Y[i][1])
	}
	return pts, emb, nil
}

// MapTSNE embeds the rows of x (what they are, for the progress) in 2-D for a
// map, reporting progress (nil: none); a perplexity of 0 means 30, and any is capped at
// (n−1)/3, t-SNE's bound.
func MapTSNE(ctx context.Context, x [][]float64, what string, perp float64, iters int, seed uint64, progress Progress) (*tsne.Embedding, error) {
	if progress == nil {
		progress = func(float64, string, string) {}
	}
	if perp == 0 {
		perp = 30
	}
	perp = math.Min(perp, float64(len(x)-1)/3-0.01)
	progress(0.1, "tsne", fmt.Sprintf("t-SNE of %d %s (perplexity %.3g, %d iterations, seed %d)", len(x), what, perp, iters, seed))
	return tsne.Embed(ctx, x, tsne.Options{Perplexity: perp, Iterations: iters, Seed: seed, Progress: func(it int, kl float64, _ []float64) bool {
		if it%50 == 0 {
			progress(0.1+0.85*float64(it)/float64(iters), "tsne", fmt.Sprintf("iteration %d/%d, KL %.3f", it, iters, kl))
		}
		return ctx.Err() == nil
	}})
}

// PlaceTSNE places new points x into the map emb without moving its points
// (tsne's Transform with its defaults and seed), at perplexity 5, or on a
// map of fewer than 16 points at (n−1)/3 (Transform needs 3·perplexity
// below the n points of the map).
func PlaceTSNE(ctx context.Context, emb *tsne.Embedding, x [][]float64, seed uint64) ([][]float64, error) {
	perp := math.Min(5, float64(len(emb.Y)-1)/3)
	return emb.Transform(ctx, x, tsne.Options{Perplexity: perp, Seed: seed})
}

// Round4 rounds a map coordinate to four decimals (the maps' JSON).
func Round4(v float64) float64 { return math.Round(v*1e4) / 1e4 }
