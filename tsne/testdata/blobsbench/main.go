// Command blobsbench embeds Gaussian blobs with taglens's tsne package and
// reports time, KL divergence and 10-nearest-neighbour preservation, one JSON
// line per run. It is the Go side of the table in docs/tsne.md; run it under
// /usr/bin/time -v for the peak RSS (tsne/testdata/table.sh does).
//
// Input: like scikit-learn's make_blobs — centres drawn uniformly from
// [−10, 10]^d, isotropic Gaussian noise of standard deviation -std, equal
// cluster sizes (point i belongs to cluster i mod centres) — generated from
// -seed with Go's PCG, so runs are reproducible without Python.
//
// 10-NN preservation: for each query point, the fraction of its 10 exact
// nearest neighbours in the input space that are also among its 10 nearest
// neighbours in the embedding, averaged over the queries. Every point is a
// query when n ≤ -queries, otherwise -queries points drawn without
// replacement (seeded); neighbours are always searched among all n points by
// brute force.
//
//	go run ./tsne/testdata/blobsbench -n 5000
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/pprof"
	"sort"
	"sync"
	"syscall"
	"time"

	"github.com/taglens/taglens/tsne"
	"github.com/taglens/taglens/tsne/internal/blobs"
)

func main() {
	n := flag.Int("n", 5000, "number of points")
	d := flag.Int("d", 50, "dimensions")
	centres := flag.Int("centres", 12, "number of clusters")
	std := flag.Float64("std", 2.5, "cluster standard deviation")
	seed := flag.Uint64("seed", 1, "seed of the data and of t-SNE")
	iters := flag.Int("iters", 1000, "iterations")
	perp := flag.Float64("perplexity", 30, "perplexity")
	method := flag.String("method", "auto", "auto, exact, bh or fft")
	knn := flag.String("knn", "auto", "neighbour search: auto, exact or approx")
	queries := flag.Int("queries", 20000, "query points of the preservation measure (all points if n is not larger; 0: no measure)")
	k := flag.Int("k", 10, "neighbours of the preservation measure")
	out := flag.String("out", "", "write the embedding as x<TAB>y lines to this file")
	cpuprof := flag.String("cpuprofile", "", "write a CPU profile of the embedding to this file")
	progress := flag.Bool("progress", false, "print iteration, KL, wall and CPU seconds to stderr after iteration 1 and every 50")
	flag.Parse()

	x, _ := blobs.Make(*n, *d, *centres, *std, *seed)
	if *cpuprof != "" {
		f, err := os.Create(*cpuprof)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	start := time.Now()
	opt := tsne.Options{
		Perplexity: *perp, Iterations: *iters, Method: tsne.Method(*method),
		Seed: *seed, Neighbours: tsne.NeighbourSearch(*knn),
	}
	if *progress {
		opt.Progress = func(it int, kl float64, _ []float64) bool {
			if it == 1 || it%50 == 0 {
				var ru syscall.Rusage
				syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
				cpu := float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
				fmt.Fprintf(os.Stderr, "%s iter %d kl %.4f wall %.1f s cpu %.1f s\n", time.Now().UTC().Format("15:04:05"), it, kl, time.Since(start).Seconds(), cpu)
			}
			return true
		}
	}
	e, err := tsne.Embed(context.Background(), x, opt)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	secs := time.Since(start).Seconds()
	pprof.StopCPUProfile()
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		for _, p := range e.Y {
			fmt.Fprintf(f, "%.17g\t%.17g\n", p[0], p[1])
		}
		if err := f.Close(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	rep := map[string]any{
		"n": *n, "method": e.Method, "neighbours": e.Neighbours, "seconds": round(secs, 2),
		"kl": round(e.KL, 4), "gomaxprocs": runtime.GOMAXPROCS(0),
	}
	if *queries > 0 {
		mstart := time.Now()
		q := queryPoints(*n, *queries, *seed)
		rep["nn_preservation"] = round(preservation(x, e.Y, q, *k), 4)
		rep["k"], rep["queries"] = *k, len(q)
		rep["measure_seconds"] = round(time.Since(mstart).Seconds(), 1)
	}
	b, _ := json.Marshal(rep)
	fmt.Println(string(b))
}

func round(v float64, digits int) float64 {
	p := 1.0
	for i := 0; i < digits; i++ {
		p *= 10
	}
	return float64(int64(v*p+0.5)) / p
}

// queryPoints returns all of 0..n−1 when n ≤ m, else m of them drawn without
// replacement.
func queryPoints(n, m int, seed uint64) []int {
	if n <= m {
		q := make([]int, n)
		for i := range q {
			q[i] = i
		}
		return q
	}
	rng := rand.New(rand.NewPCG(seed, 2))
	return rng.Perm(n)[:m]
}

// knn returns the indices of the k nearest rows of pts to row i (excluding
// i), ties broken by index, by brute force.
func knn(pts [][]float64, i, k int, buf []nb) []int {
	buf = buf[:0]
	pi := pts[i]
	for j, pj := range pts {
		if j == i {
			continue
		}
		s := 0.0
		for t, v := range pi {
			dv := v - pj[t]
			s += dv * dv
		}
		if len(buf) < k {
			buf = append(buf, nb{s, j})
			if len(buf) == k {
				sort.Slice(buf, func(a, b int) bool { return buf[a].less(buf[b]) })
			}
			continue
		}
		c := nb{s, j}
		if !c.less(buf[k-1]) {
			continue
		}
		// Insert c into the sorted buf, dropping the last.
		p := k - 1
		for p > 0 && c.less(buf[p-1]) {
			buf[p] = buf[p-1]
			p--
		}
		buf[p] = c
	}
	out := make([]int, len(buf))
	for t, v := range buf {
		out[t] = v.j
	}
	return out
}

type nb struct {
	d float64
	j int
}

func (a nb) less(b nb) bool { return a.d < b.d || (a.d == b.d && a.j < b.j) }

// preservation returns the mean over the queries of |kNN_x(i) ∩ kNN_y(i)| / k.
func preservation(x, y [][]float64, q []int, k int) float64 {
	w := runtime.GOMAXPROCS(0)
	part := make([]float64, w)
	var wg sync.WaitGroup
	for t := 0; t < w; t++ {
		wg.Add(1)
		go func(t int) {
			defer wg.Done()
			buf := make([]nb, 0, k)
			for qi := t; qi < len(q); qi += w {
				i := q[qi]
				a := knn(x, i, k, buf)
				b := knn(y, i, k, buf)
				in := map[int]bool{}
				for _, j := range a {
					in[j] = true
				}
				c := 0
				for _, j := range b {
					if in[j] {
						c++
					}
				}
				part[t] += float64(c) / float64(k)
			}
		}(t)
	}
	wg.Wait()
	s := 0.0
	for _, v := range part {
		s += v
	}
	return s / float64(len(q))
}
