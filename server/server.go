package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
	"golang.org/x/net/netutil"

	"github.com/taglens/taglens/internal/flight"
	"github.com/taglens/taglens/ml/corpus"
	"github.com/taglens/taglens/server/jobs"
	"github.com/taglens/taglens/server/store"
)

// Config is the server's configuration; cmd fills it from flags.
type Config struct {
	// Addr is the listen address. Default "127.0.0.1:8080".
	Addr string
	// MaxUpload is the corpus upload limit in bytes. Default 64 MiB.
	MaxUpload int64
	// MaxCorpus bounds the size of an uploaded corpus after gzip decompression
	// (corpus.ParseOptions.MaxBytes). Default 16 × MaxUpload, at most
	// corpus.DefaultMaxBytes (1 GiB), never below MaxUpload.
	MaxCorpus int64
	// TrainSlots is how many trainings run at once, and, in a lane of their
	// own that never waits for trainings, how many maps and evaluations
	// (jobs.Runner). Default runtime.NumCPU().
	TrainSlots int
	// Demo, when true, loads the built-in demo corpus and trains a demo model on
	// first start (an empty store).
	Demo bool
	// AllowHosts are host names (or addresses) accepted in the Host header
	// besides the loopback names and Addr's host (docs/security.md).
	AllowHosts []string
	// Token is the access token every request must carry. Empty: none on a
	// loopback Addr, a random one (see Server.Token) on any other address.
	Token string
	// MaxQueued bounds the jobs of one kind (training, evaluation, map,
	// space map) waiting for a slot: a request that would queue one more is
	// answered 429 and stores nothing. Default DefaultMaxQueued; negative: no
	// bound.
	MaxQueued int
	// KeepJobs is how many finished jobs of each kind the job history keeps
	// (besides those a model or evaluation still names); older ones are
	// deleted when a job ends. Default DefaultKeepJobs; negative: keep all.
	KeepJobs int

	// The time limits of a request, by phase (docs/security.md, "Slow
	// clients"): ReadHeaderTimeout bounds the request line and headers; a body
	// must then arrive at MinBodyRate bytes per second on average, counted
	// over the time the server waits for it, after a grace of BodyGrace (a
	// body that falls behind is cut with 408), so a slow upload that keeps
	// moving is never cut however long it takes; WriteTimeout bounds writing
	// the answer, from the handler's first write (event streams have none);
	// IdleTimeout bounds a kept-alive connection's wait for its next request.
	// Zero: the default… value below (10 s, 10 s, 1 KiB/s, 2 min, 2 min).
	ReadHeaderTimeout time.Duration
	BodyGrace         time.Duration
	MinBodyRate       int64
	WriteTimeout      time.Duration
	IdleTimeout       time.Duration
	// MaxConns caps the connections open at once: one more waits in the
	// kernel's accept queue until one closes. Default 256 (defaultMaxConns);
	// negative: no cap.
	MaxConns int
}

// Defaults of Config.MaxQueued and Config.KeepJobs.
const (
	DefaultMaxQueued = 32
	DefaultKeepJobs  = 200
)

// Defaults of the time limits and the connection cap of Config.
const (
	defaultReadHeaderTimeout = 10 * time.Second
	defaultBodyGrace         = 10 * time.Second
	defaultMinBodyRate       = 1 << 10 // bytes per second
	defaultWriteTimeout      = 2 * time.Minute
	defaultIdleTimeout       = 2 * time.Minute
	defaultMaxConns          = 256
)

func (c Config) withDefaults() Config {
	if c.Addr == "" {
		c.Addr = "127.0.0.1:8080"
	}
	if c.MaxUpload <= 0 {
		c.MaxUpload = 64 << 20
	}
	if c.MaxCorpus <= 0 {
		c.MaxCorpus = max(c.MaxUpload, min(16*c.MaxUpload, corpus.DefaultMaxBytes))
	}
	if c.TrainSlots <= 0 {
		c.TrainSlots = runtime.NumCPU()
	}
	switch {
	case c.MaxQueued == 0:
		c.MaxQueued = DefaultMaxQueued
	case c.MaxQueued < 0:
		c.MaxQueued = 0 // jobs.Runner: no bound
	}
	switch {
	case c.KeepJobs == 0:
		c.KeepJobs = DefaultKeepJobs
	case c.KeepJobs < 0:
		c.KeepJobs = 0 // jobs.Runner: keep all
	}
	for _, d := range []struct {
		v   *time.Duration
		def time.Duration
	}{{&c.ReadHeaderTimeout, defaultReadHeaderTimeout}, {&c.BodyGrace, defaultBodyGrace},
		{&c.WriteTimeout, defaultWriteTimeout}, {&c.IdleTimeout, defaultIdleTimeout}} {
		if *d.v <= 0 {
			*d.v = d.def
		}
	}
	if c.MinBodyRate <= 0 {
		c.MinBodyRate = defaultMinBodyRate
	}
	switch {
	case c.MaxConns == 0:
		c.MaxConns = defaultMaxConns
	case c.MaxConns < 0:
		c.MaxConns = 0 // Serve: no cap
	}
	return c
}

// Deps are what the server is built on.
type Deps struct {
	Store *store.Store
}

// Server is the taglens web app.
type Server struct {
	cfg   Config
	store *store.Store
	jobs  *jobs.Runner
	log   *slog.Logger
	echo  *echo.Echo
	root  context.Context
	stop  context.CancelFunc

	closing   chan struct{} // closed when Shutdown starts: ends SSE streams
	closeOnce sync.Once

	guard *guard   // Host, Origin, CSRF and access-token checks (security.go)
	forms formOnce // the answers of submitted training and comparison forms, by form id

	models *modelCache
	// verdicts caches the home page's verdict per evaluation id (reports
	// never change once written).
	verdicts sync.Map
	maps     *mapCache
	// centroids caches the term centroids of the whole-space maps.
	centroids centroidCache
	// computing runs each quick map computation (an overlay, a context
	// map) and centroiding each model's centroids once at a time per key.
	computing   flight.Group[string, *mapEntry]
	centroiding flight.Group[string, *centroidSet]

	mu      sync.Mutex
	httpSrv *http.Server      // set by Serve
	mapJobs map[string]string // model|map key → job id of the computing job
	mapLoad sync.Mutex        // serialises loading maps from the store into memory
	// parsing holds a slot while an upload's corpus is parsed: one at a
	// time, so that several large uploads at once cannot add their parse
	// budgets (corpus.ParseOptions.MaxMemory each) up past the server's.
	parsing chan struct{}
	uploads uploads  // the uploads under way, with their progress (uploadprogress.go)
	ctxDocs sync.Map // model id → []views.ContextDoc offered for the context map
	// trainDocs keeps the training documents of the models whose instance
	// maps' documents were last listed (instanceDocs).
	trainDocs trainDocsCache
}

// New returns a server on the given store. Jobs left running by an earlier process
// are marked interrupted. Call Start (or use Handler) and then Shutdown.
func New(cfg Config, deps Deps, log *slog.Logger) (*Server, error) {
	if deps.Store == nil {
		return nil, errors.New("server: no store")
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	cfg = cfg.withDefaults()
	g, err := newGuard(cfg)
	if err != nil {
		return nil, err
	}
	root, stop := context.WithCancel(context.Background())
	s := &Server{cfg: cfg, store: deps.Store, log: log, root: root, stop: stop, closing: make(chan struct{}),
		guard: g, models: newModelCache(4), maps: newMapCache(64), parsing: make(chan struct{}, 1)}
	n, err := s.store.MarkInterrupted(root)
	if err != nil {
		stop()
		return nil, fmt.Errorf("server: %w", err)
	}
	if n > 0 {
		log.Warn("jobs interrupted by the previous shutdown", "count", n)
	}
	if n := s.store.RemovedTemp; n > 0 {
		log.Warn("removed temporary files left by the previous process", "count", n)
	}
	if err := s.store.InterruptOrphanModels(root); err != nil {
		stop()
		return nil, fmt.Errorf("server: %w", err)
	}
	s.jobs = jobs.New(root, s.store, cfg.TrainSlots, log)
	s.jobs.MaxQueued, s.jobs.Keep = cfg.MaxQueued, cfg.KeepJobs
	if cfg.KeepJobs > 0 {
		if n, err := s.store.PruneAllJobs(root, cfg.KeepJobs); err != nil {
			stop()
			return nil, fmt.Errorf("server: pruning the job history: %w", err)
		} else if n > 0 {
			log.Info("pruned the job history", "deleted", n, "kept per kind", cfg.KeepJobs)
		}
	}
	s.echo = s.routes()
	return s, nil
}

// handler returns the HTTP handler (for tests with httptest).
func (s *Server) handler() http.Handler { return s.echo }

// Token is the access token requests must carry, "" when none is required
// (a loopback address without Config.Token). When Config.Token was empty on a
// non-loopback address it is random, and the caller shows it to the user.
func (s *Server) Token() string { return s.guard.token }

// Serve accepts connections on l until Shutdown, at most Config.MaxConns at
// once. The server has no whole-request read or write timeout: the body's
// and the answer's deadlines are set per request (deadlines, in http.go),
// so that a slow upload that keeps moving is read to its end and answered.
func (s *Server) Serve(l net.Listener) error {
	if s.cfg.MaxConns > 0 {
		l = netutil.LimitListener(l, s.cfg.MaxConns)
	}
	s.mu.Lock()
	srv := &http.Server{
		Handler:           s.echo,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
		ReadHeaderTimeout: s.cfg.ReadHeaderTimeout,
		IdleTimeout:       s.cfg.IdleTimeout,
	}
	s.httpSrv = srv
	s.mu.Unlock()
	err := srv.Serve(l)
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// Shutdown stops accepting requests, waits for in-flight ones (bounded by ctx),
// then cancels every job (marked interrupted) and waits for them.
func (s *Server) Shutdown(ctx context.Context) error {
	s.closeOnce.Do(func() { close(s.closing) })
	s.mu.Lock()
	srv := s.httpSrv
	s.mu.Unlock()
	var err error
	if srv != nil {
		err = srv.Shutdown(ctx)
	}
	if jerr := s.jobs.Shutdown(ctx); err == nil {
		err = jerr
	}
	s.stop()
	return err
}

// IsLoopback reports whether addr's host is a loopback address or "localhost".
func IsLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
