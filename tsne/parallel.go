package tsne

import (
	"sync"
	"sync/atomic"
)

// blockSize is the fixed number of points per work block. Partial sums are
// kept per block and reduced in block order, so results do not depend on the
// number of workers or on scheduling.
const blockSize = 256

func numBlocks(n int) int { return (n + blockSize - 1) / blockSize }

// forBlocks calls fn(b, lo, hi) for every block b of [0, n), on up to workers
// goroutines. fn must only write state owned by block b or by points lo..hi-1.
func forBlocks(n, workers int, fn func(b, lo, hi int)) {
	forBlocksW(n, workers, func(_, b, lo, hi int) { fn(b, lo, hi) })
}

// forBlocksW is forBlocks that also passes the worker number w ∈ [0,
// workers) running the block, for per-worker scratch space. fn's results must
// not depend on w.
func forBlocksW(n, workers int, fn func(w, b, lo, hi int)) {
	nb := numBlocks(n)
	if workers > nb {
		workers = nb
	}
	if workers <= 1 {
		for b := 0; b < nb; b++ {
			fn(0, b, b*blockSize, min(n, (b+1)*blockSize))
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				b := int(next.Add(1) - 1)
				if b >= nb {
					return
				}
				fn(w, b, b*blockSize, min(n, (b+1)*blockSize))
			}
		}()
	}
	wg.Wait()
}

// forRange calls fn(w, lo, hi) on a fixed partition of [0, n) into at most
// workers contiguous ranges, one goroutine each. fn must write only state
// owned by its range (or by worker w); w is in [0, workers).
func forRange(n, workers int, fn func(w, lo, hi int)) {
	if workers > n {
		workers = n
	}
	if workers <= 1 {
		if n > 0 {
			fn(0, 0, n)
		}
		return
	}
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		lo, hi := w*n/workers, (w+1)*n/workers
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(w, lo, hi)
		}()
	}
	wg.Wait()
}

// sumOrdered returns the sum of xs in index order.
func sumOrdered(xs []float64) float64 {
	s := 0.0
	for _, v := range xs {
		s += v
	}
	return s
}
