package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/taglens/taglens/server"
	"github.com/taglens/taglens/server/store"
)

func init() {
	register(command{name: "serve", summary: "run the web app (default http://127.0.0.1:8080)", run: runServe})
}

// serveConfig is what the serve flags say.
type serveConfig struct {
	addr       string
	dataDir    string
	maxUpload  int64
	noDemo     bool
	verbose    bool
	allowHosts hostList
	token      string // --token, else $TAGLENS_TOKEN; "" = none given
	maxQueued  int    // --max-queued: queued jobs of a kind; -1 = no bound
	keepJobs   int    // --keep-jobs: finished jobs of a kind kept; -1 = all
}

// hostList is a repeatable flag of comma-separated host names.
type hostList []string

func (h *hostList) String() string { return strings.Join(*h, ",") }

func (h *hostList) Set(v string) error {
	n := 0
	for _, name := range strings.Split(v, ",") {
		if name = strings.TrimSpace(name); name != "" {
			*h = append(*h, name)
			n++
		}
	}
	if n == 0 {
		return fmt.Errorf("no host name in %q", v)
	}
	return nil
}

const serveSynopsis = "[--addr 127.0.0.1:8080] [--data DIR] [--max-upload 64MiB] [--no-demo] [--allow-host NAME,...] [--token TOKEN] [--max-queued 32] [--keep-jobs 200]" + `

The server answers only requests whose Host is localhost, 127.0.0.1, ::1, the
--addr host or an --allow-host name, and refuses state-changing requests from
other sites, including the GET requests that start a map. Only one server
may use a data folder at a time. On a non-loopback --addr every request needs an access token:
a random one is made at start and printed once, as a URL with ?token=, on
stderr; --token or $TAGLENS_TOKEN sets it (and requires it on loopback too).
See docs/security.md.`

func parseServeFlags(args []string, stderr io.Writer) (*serveConfig, error) {
	fs := newFlagSet("serve", serveSynopsis, stderr)
	cfg := &serveConfig{}
	fs.StringVar(&cfg.addr, "addr", "127.0.0.1:8080", "listen address (a non-loopback address exposes the app to the network and requires the access token)")
	fs.StringVar(&cfg.dataDir, "data", "", "data directory for the database and model files (default: "+defaultDataDir()+")")
	maxUpload := fs.String("max-upload", "64MiB", "largest accepted corpus upload (bytes, or with a KiB/MiB/GiB suffix)")
	fs.BoolVar(&cfg.noDemo, "no-demo", false, "do not load the demo corpus and train the demo model on first start")
	fs.BoolVar(&cfg.verbose, "v", false, "log every request")
	fs.Var(&cfg.allowHosts, "allow-host", "accept requests for this host `name` too (e.g. the machine's DNS name or a reverse proxy's); repeatable or comma-separated")
	fs.StringVar(&cfg.token, "token", "", "access `token` every request must carry (at least 16 characters; default $TAGLENS_TOKEN, else a random one on a non-loopback --addr and none on loopback); visible to other local users in the process list, so prefer the variable")
	fs.IntVar(&cfg.maxQueued, "max-queued", server.DefaultMaxQueued, "most jobs of one kind (training, evaluation, map) waiting for a free CPU slot; one more is answered 429 (-1: no limit)")
	fs.IntVar(&cfg.keepJobs, "keep-jobs", server.DefaultKeepJobs, "finished jobs of each kind kept in the job history, besides those a model or comparison names (-1: keep all)")
	if err := parseFlags(fs, args); err != nil {
		return nil, err
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"max-queued", cfg.maxQueued}, {"keep-jobs", cfg.keepJobs}} {
		if f.v == 0 || f.v < -1 {
			fmt.Fprintf(stderr, "invalid -%s: %d: give a positive number, or -1 for no limit\n", f.name, f.v)
			return nil, &usageError{msg: "invalid -" + f.name}
		}
	}
	n, err := parseSize(*maxUpload)
	if err != nil {
		fmt.Fprintf(stderr, "invalid -max-upload: %v\n", err)
		return nil, &usageError{msg: "invalid -max-upload"}
	}
	cfg.maxUpload = n
	if cfg.dataDir == "" {
		cfg.dataDir = defaultDataDir()
	}
	if _, _, err := net.SplitHostPort(cfg.addr); err != nil {
		fmt.Fprintf(stderr, "invalid -addr: %v\n", err)
		return nil, &usageError{msg: "invalid -addr"}
	}
	if cfg.token == "" {
		cfg.token = os.Getenv("TAGLENS_TOKEN")
	}
	if cfg.token != "" {
		if err := server.CheckToken(cfg.token); err != nil {
			fmt.Fprintf(stderr, "invalid -token (or TAGLENS_TOKEN): %v\n", err)
			return nil, &usageError{msg: "invalid -token"}
		}
	}
	return cfg, nil
}

// displayAddr is the host:port to show in the access URL: the listen address,
// or, on an all-addresses bind, the first --allow-host name, else the first
// non-loopback address of the machine (which the server accepts as Host),
// else 127.0.0.1.
func displayAddr(a net.Addr, allow []string) string {
	host, port, err := net.SplitHostPort(a.String())
	if err != nil {
		return a.String()
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsUnspecified() {
		return a.String()
	}
	if len(allow) > 0 {
		h := allow[0]
		if hh, _, err := net.SplitHostPort(h); err == nil {
			h = hh
		}
		return net.JoinHostPort(strings.Trim(h, "[]"), port)
	}
	if addrs, err := net.InterfaceAddrs(); err == nil {
		for _, ad := range addrs {
			if n, ok := ad.(*net.IPNet); ok && !n.IP.IsLoopback() && !n.IP.IsLinkLocalUnicast() && n.IP.To4() != nil {
				return net.JoinHostPort(n.IP.String(), port)
			}
		}
	}
	return net.JoinHostPort("127.0.0.1", port)
}

// parseSize reads "64MiB", "10MB", "1048576" (bytes).
func parseSize(s string) (int64, error) {
	s = strings.TrimSpace(s)
	units := []struct {
		suffix string
		mul    int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3}, {"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}, {"B", 1}}
	mul := int64(1)
	for _, u := range units {
		if strings.HasSuffix(s, u.suffix) {
			s, mul = strings.TrimSpace(strings.TrimSuffix(s, u.suffix)), u.mul
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 || n > (1<<62)/mul {
		return 0, fmt.Errorf("%q is not a positive size", s)
	}
	return n * mul, nil
}

// defaultDataDir is $XDG_DATA_HOME/taglens, else the user config dir's taglens
// folder, else ./taglens-data.
func defaultDataDir() string {
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "taglens")
	}
	if d, err := os.UserConfigDir(); err == nil {
		return filepath.Join(d, "taglens")
	}
	return "taglens-data"
}

func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg, err := parseServeFlags(args, stderr)
	if err != nil {
		return err
	}
	level := slog.LevelInfo
	if cfg.verbose {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	if !server.IsLoopback(cfg.addr) {
		log.Warn("listening on a non-loopback address: anyone who can reach it and has the access token can upload data and run jobs, over unencrypted HTTP (put a TLS reverse proxy in front; see docs/security.md)", "addr", cfg.addr)
	}
	st, err := store.Open(ctx, cfg.dataDir)
	if err != nil {
		return err
	}
	defer func() {
		if err := st.Close(); err != nil {
			log.Error("closing the database", "err", err)
		}
	}()
	srv, err := server.New(server.Config{Addr: cfg.addr, MaxUpload: cfg.maxUpload, Demo: !cfg.noDemo,
		AllowHosts: cfg.allowHosts, Token: cfg.token, MaxQueued: cfg.maxQueued, KeepJobs: cfg.keepJobs}, server.Deps{Store: st}, log)
	if err != nil {
		return err
	}
	l, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	if err := srv.SeedDemo(ctx); err != nil {
		log.Error("demo setup failed", "err", err)
	}
	log.Info("taglens is ready", "url", "http://"+l.Addr().String(), "data", cfg.dataDir)
	switch {
	case srv.Token() != "" && cfg.token == "":
		// Printed once, outside the log: the only place the generated token appears.
		fmt.Fprintf(stderr, "\nOpen taglens with its access token (made for this run):\n\n    http://%s/?token=%s\n\n",
			displayAddr(l.Addr(), cfg.allowHosts), srv.Token())
	case srv.Token() != "":
		log.Info("requests need the access token given with --token or TAGLENS_TOKEN: open the URL with ?token=TOKEN once, or send Authorization: Bearer TOKEN")
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(l) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down")
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	if err := <-errc; err != nil {
		return err
	}
	return nil
}
