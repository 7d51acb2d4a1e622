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
)

func init() {
	register(command{name: "serve", summary: "run the web app (default http://127.0.0.1:8080)", run: runServe})
}

// serveConfig is what the serve flags say.
type serveConfig struct {
	addr      string
	dataDir   string
	maxUpload int64
	noDemo    bool
	verbose   bool
}

func parseServeFlags(args []string, stderr io.Writer) (*serveConfig, error) {
	fs := newFlagSet("serve", "[--addr 127.0.0.1:8080] [--data DIR] [--max-upload 64MiB]", stderr)
	cfg := &serveConfig{}
	fs.StringVar(&cfg.addr, "addr", "127.0.0.1:8080", "listen address (a non-loopback address exposes the app to the network)")
	fs.StringVar(&cfg.dataDir, "data", "", "data directory for the database and model files (default: "+defaultDataDir()+")")
	maxUpload := fs.String("max-upload", "64MiB", "largest accepted corpus upload (bytes, or with a KiB/MiB/GiB suffix)")
	fs.BoolVar(&cfg.noDemo, "no-demo", false, "do not load the demo corpus and train the demo model on first start")
	fs.BoolVar(&cfg.verbose, "v", false, "log every request")
	if err := parseFlags(fs, args); err != nil {
		return nil, err
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
	return cfg, nil
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
		log.Warn("listening on a non-loopback address: anyone who can reach it can upload data and run jobs", "addr", cfg.addr)
	}
	store, err := server.OpenStore(ctx, cfg.dataDir)
	if err != nil {
		return err
	}
	defer store.Close()
	srv, err := server.New(server.Config{Addr: cfg.addr, MaxUpload: cfg.maxUpload, Demo: !cfg.noDemo}, server.Deps{Store: store}, log)
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
