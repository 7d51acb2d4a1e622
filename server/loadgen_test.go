package server

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sort"
	"sync"
	"time"
)

// LoadResult summarises a load run.
type LoadResult struct {
	Requests, Errors int
	Bytes            int64
	Duration         time.Duration
	P50, P95, P99    time.Duration
	Max              time.Duration
	RPS              float64
}

func (r LoadResult) String() string {
	return fmt.Sprintf("%d requests in %v (%.0f req/s), %d errors, %.1f MB read; latency p50 %v, p95 %v, p99 %v, max %v",
		r.Requests, r.Duration.Round(time.Millisecond), r.RPS, r.Errors, float64(r.Bytes)/1e6,
		r.P50.Round(time.Microsecond), r.P95.Round(time.Microsecond), r.P99.Round(time.Microsecond), r.Max.Round(time.Microsecond))
}

// loadTest sends GET target from conns concurrent keep-alive connections until dur
// has passed or maxRequests requests were sent, reading every body in full, and
// reports latencies. It refuses any target that is not a loopback address: it is
// a tool for measuring this server on this machine, never a traffic generator
// for other hosts. A non-200 status counts as an error. Headers are sent with
// every request (e.g. Accept-Encoding: gzip, which then arrives undecoded and is
// not decompressed: the figure is the server's, not a client's gunzip).
// Kept in one function: the workers, their shared counters and the summary of
// the run belong to one measurement.
func loadTest(ctx context.Context, target string, conns int, dur time.Duration, maxRequests int, headers map[string]string) (LoadResult, error) {
	u, err := url.Parse(target)
	if err != nil {
		return LoadResult{}, err
	}
	if u.Scheme != "http" || !IsLoopback(u.Host) {
		return LoadResult{}, fmt.Errorf("loadtest: %q is not an http URL on a loopback address", target)
	}
	if conns < 1 || conns > 1000 || dur <= 0 || dur > 10*time.Minute || maxRequests < 1 {
		return LoadResult{}, fmt.Errorf("loadtest: want 1..1000 connections, a duration up to 10 min and a positive request bound")
	}
	tr := &http.Transport{
		MaxIdleConns: conns, MaxIdleConnsPerHost: conns, MaxConnsPerHost: conns,
		DialContext: (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
		// Bodies arrive as the server sends them (no transparent gunzip: a
		// browser's decompression is not the server's latency), read in large
		// blocks so the generator spends few system calls per response.
		DisableCompression: true,
		ReadBufferSize:     64 << 10,
	}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 30 * time.Second}
	ctx, cancel := context.WithTimeout(ctx, dur)
	defer cancel()

	var mu sync.Mutex
	var lat []time.Duration
	var res LoadResult
	var sent int
	take := func() bool {
		mu.Lock()
		defer mu.Unlock()
		if sent >= maxRequests {
			return false
		}
		sent++
		return true
	}
	start := time.Now()
	var wg sync.WaitGroup
	for w := 0; w < conns; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []time.Duration
			buf := make([]byte, 256<<10)
			var errs int
			var n int64
			for ctx.Err() == nil && take() {
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
				for k, v := range headers {
					req.Header.Set(k, v)
				}
				t0 := time.Now()
				resp, err := client.Do(req)
				if err != nil {
					if ctx.Err() == nil {
						errs++
					}
					continue
				}
				m, err := drain(resp.Body, buf)
				resp.Body.Close()
				if ctx.Err() != nil && err != nil {
					break // the run ended mid-body: not an error of the server
				}
				mine = append(mine, time.Since(t0))
				n += m
				if err != nil || resp.StatusCode != http.StatusOK {
					errs++
				}
			}
			mu.Lock()
			lat = append(lat, mine...)
			res.Errors += errs
			res.Bytes += n
			mu.Unlock()
		}()
	}
	wg.Wait()
	res.Duration = time.Since(start)
	res.Requests = len(lat)
	if len(lat) > 0 {
		sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
		q := func(p float64) time.Duration { return lat[min(len(lat)-1, int(p*float64(len(lat))))] }
		res.P50, res.P95, res.P99, res.Max = q(0.50), q(0.95), q(0.99), lat[len(lat)-1]
		res.RPS = float64(len(lat)) / res.Duration.Seconds()
	}
	return res, nil
}

// drain reads r to its end into buf (discarded) and returns the byte count.
func drain(r io.Reader, buf []byte) (int64, error) {
	var n int64
	for {
		m, err := r.Read(buf)
		n += int64(m)
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}
