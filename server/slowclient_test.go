package server

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// Tests of the per-request time limits and the connection cap (deadlines.go,
// Server.Serve; docs/security.md, "Slow clients"), on a real listener with
// limits of a second so that each runs in seconds.

// fastLimits are the time limits of these tests: the old server's two
// minutes of write timeout become one second.
func fastLimits(cfg Config) Config {
	cfg.ReadHeaderTimeout = time.Second
	cfg.BodyGrace = time.Second
	cfg.MinBodyRate = 1 << 10
	cfg.WriteTimeout = time.Second
	cfg.IdleTimeout = 5 * time.Second
	return cfg
}

// countingListener counts the connections it accepted that are still open,
// and the most open at once.
type countingListener struct {
	net.Listener
	mu        sync.Mutex
	open, max int
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	l.open++
	l.max = max(l.max, l.open)
	l.mu.Unlock()
	return &countedConn{Conn: c, l: l}, nil
}

func (l *countingListener) most() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.max
}

type countedConn struct {
	net.Conn
	l    *countingListener
	once sync.Once
}

func (c *countedConn) Close() error {
	c.once.Do(func() {
		c.l.mu.Lock()
		c.l.open--
		c.l.mu.Unlock()
	})
	return c.Conn.Close()
}

// serveReal serves a test server with cfg on a loopback listener and returns
// it, its address and the listener's counts.
func serveReal(t *testing.T, cfg Config) (*testServer, string, *countingListener) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Addr = l.Addr().String()
	ts := newTestServer(t, cfg)
	cl := &countingListener{Listener: l}
	go ts.Serve(cl)
	return ts, cfg.Addr, cl
}

// trickle sends head, then body in chunks of chunk bytes every period, on a
// new connection, and reads the answer. It returns the answer (nil and the
// error when there was none), and how long after the last byte sent the
// answer came.
func trickle(t *testing.T, addr, head string, body []byte, chunk int, period time.Duration) (*http.Response, []byte, error) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, head); err != nil {
		return nil, nil, err
	}
	for len(body) > 0 {
		n := min(chunk, len(body))
		if _, err := conn.Write(body[:n]); err != nil {
			break // the server may have answered and closed: read its answer
		}
		body = body[n:]
		time.Sleep(period)
	}
	_ = conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		return nil, nil, err
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, b, err
}

// bigTSV is a corpus of about n bytes.
func bigTSV(n int) []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "doc%05d\ttag%d\ttag%d\ttag%d\n", i, i%37, i%11, i%5)
	}
	return b.Bytes()
}

// TestSlowUploadAnswered: an upload that arrives at 4 KiB/s for about 3 s,
// three times the write limit and the body's grace, is read to its end,
// stored once and answered 201; so is a prime body sent as slowly. Before,
// the server's write timeout ran from the request's start: the corpus was
// stored and the client got no answer at all (the issue's "Empty reply from
// server" after 203 s with the 2-minute limit).
func TestSlowUploadAnswered(t *testing.T) {
	ts, addr, _ := serveReal(t, fastLimits(Config{}))
	body, ct := multipartBody(t, [][2]string{{"name", "slow"}}, "slow.tsv", bigTSV(12<<10))
	head := fmt.Sprintf("POST /api/corpora HTTP/1.1\r\nHost: %s\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n", addr, ct, body.Len())
	start := time.Now()
	resp, b, err := trickle(t, addr, head, body.Bytes(), 400, 100*time.Millisecond)
	took := time.Since(start)
	if err != nil {
		t.Fatalf("slow upload (%.1fs): no answer: %v", took.Seconds(), err)
	}
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("slow upload: %d %s", resp.StatusCode, b)
	}
	if took < 2*time.Second {
		t.Errorf("the upload took %v: not past the limits of 1 s", took)
	}
	if n := ts.count("/api/corpora"); n != 1 {
		t.Errorf("%d corpora stored, want 1", n)
	}
	t.Logf("a %d-byte upload at 4 KiB/s: answered %d after %.1fs (write limit 1 s)", body.Len(), resp.StatusCode, took.Seconds())

	// A prime body as slow (the model does not exist: the answer is a 404,
	// after the whole body was read).
	tags := `{"tags":["` + strings.Repeat("rock", 1500) + `"]}`
	head = fmt.Sprintf("POST /api/models/nosuch/prime HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", addr, len(tags))
	start = time.Now()
	resp, b, err = trickle(t, addr, head, []byte(tags), 300, 100*time.Millisecond)
	if err != nil {
		t.Fatalf("slow prime body (%.1fs): no answer: %v", time.Since(start).Seconds(), err)
	}
	if resp.StatusCode != http.StatusNotFound || !strings.Contains(string(b), `model \"nosuch\" not found`) {
		t.Errorf("slow prime body: %d %s", resp.StatusCode, b)
	}
}

// TestStalledBodyCut: a body that stops after 8 of its declared 100,000
// bytes is cut about a second (the grace) later with 408, naming the rate,
// and its connection is closed; nothing is stored.
func TestStalledBodyCut(t *testing.T) {
	ts, addr, _ := serveReal(t, fastLimits(Config{}))
	head := fmt.Sprintf("POST /api/models HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{\"corpus", addr)
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	start := time.Now()
	if _, err := io.WriteString(conn, head); err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("no answer after %v: %v", time.Since(start), err)
	}
	b, _ := io.ReadAll(resp.Body)
	took := time.Since(start)
	if resp.StatusCode != http.StatusRequestTimeout || !strings.Contains(string(b), "1024 bytes a second") {
		t.Errorf("stalled body: %d %s", resp.StatusCode, b)
	}
	if took > 3*time.Second {
		t.Errorf("the stalled body was cut after %v, want about 1 s", took)
	}
	if _, err := br.ReadByte(); err != io.EOF {
		t.Errorf("the connection is still open after the 408 (%v)", err)
	}
	if n := ts.count("/api/models"); n != 0 {
		t.Errorf("%d models stored", n)
	}
	t.Logf("a body stalled after 8 bytes: %d after %.2fs, connection closed", resp.StatusCode, took.Seconds())
}

// TestRefusedClosedAtOnce: requests refused for their Host, a cross-site
// Origin or a form without a CSRF cookie, each declaring a body of 100,000
// bytes and sending 8, are answered at once and their connection is closed
// within half a second, without the server waiting for the body. Before,
// the server read on for the body (up to 256 KiB) after its answer, and the
// connection stayed open until the client gave up (30 s in the issue) or
// the read timeout.
func TestRefusedClosedAtOnce(t *testing.T) {
	// Long limits here: what closes the connection must be the refusal.
	cfg := fastLimits(Config{})
	cfg.BodyGrace, cfg.ReadHeaderTimeout = time.Minute, time.Minute
	ts, addr, _ := serveReal(t, cfg)
	cases := []struct {
		name, head string
		status     int
		want       string
	}{
		{"foreign Host", "POST /api/corpora HTTP/1.1\r\nHost: evil.example\r\nContent-Type: multipart/form-data; boundary=x\r\n", 403, "is not allowed"},
		{"cross-site Origin", "POST /api/models HTTP/1.1\r\nHost: " + addr + "\r\nOrigin: http://evil.example\r\nContent-Type: application/json\r\n", 403, "cross-site request refused"},
		{"form without CSRF cookie", "POST /train HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/x-www-form-urlencoded\r\n", 403, "CSRF token"},
		{"JSON route, not JSON", "POST /api/models HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: text/plain\r\n", 415, "Content-Type: application/json"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			start := time.Now()
			if _, err := io.WriteString(conn, tc.head+"Content-Length: 100000\r\n\r\nabcdefgh"); err != nil {
				t.Fatal(err)
			}
			_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
			br := bufio.NewReader(conn)
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				t.Fatalf("no answer: %v", err)
			}
			b, _ := io.ReadAll(resp.Body)
			answered := time.Since(start)
			if resp.StatusCode != tc.status || !strings.Contains(string(b), tc.want) {
				t.Errorf("%d %s, want %d with %q", resp.StatusCode, b, tc.status, tc.want)
			}
			if !resp.Close {
				t.Errorf("the answer does not say Connection: close")
			}
			// The client sends nothing more and waits: the server must close.
			_, err = br.ReadByte()
			closed := time.Since(start)
			if err != io.EOF {
				t.Errorf("after the answer: %v, want the connection closed (EOF)", err)
			}
			if answered > time.Second || closed > 2*time.Second {
				t.Errorf("answered after %v, closed after %v: want at once, and closed within %v", answered, closed, refusedLinger)
			}
			t.Logf("answered %d after %v, closed after %v", resp.StatusCode, answered.Round(time.Millisecond), closed.Round(time.Millisecond))
		})
	}
	if n := ts.count("/api/corpora") + ts.count("/api/models"); n != 0 {
		t.Errorf("%d corpora and models stored by refused requests", n)
	}
}

// TestConnectionCap: with a cap of 4 connections, 5 clients that send half
// a request header and wait never hold more than 4 connections of the
// server; a new request waits in the accept queue until the header limit (1
// s here, 10 s by default) frees slots, and is then answered. Before, there
// was no cap: every slow connection held a descriptor and its buffers (the
// issue's 20,000 connections, 643 MB).
func TestConnectionCap(t *testing.T) {
	_, addr, cl := serveReal(t, fastLimits(Config{MaxConns: 4}))
	var slow []net.Conn
	for range 5 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if _, err := io.WriteString(c, "GET / HTTP/1.1\r\nHost: "+addr+"\r\n"); err != nil {
			t.Fatal(err)
		}
		slow = append(slow, c)
	}
	time.Sleep(200 * time.Millisecond) // the server accepts what it may
	start := time.Now()
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Get("http://" + addr + "/api/jobs")
	if err != nil {
		t.Fatalf("a request behind 5 slow connections: %v", err)
	}
	resp.Body.Close()
	took := time.Since(start)
	if resp.StatusCode != http.StatusOK {
		t.Errorf("status %d", resp.StatusCode)
	}
	if took > 4*time.Second {
		t.Errorf("answered after %v: want about the header limit (1 s)", took)
	}
	if m := cl.most(); m > 4 {
		t.Errorf("%d connections open at once, the cap is 4", m)
	}
	t.Logf("cap 4, 5 slow headers: a new request answered after %.2fs, at most %d connections open", took.Seconds(), cl.most())
	for _, c := range slow {
		c.Close()
	}
}
