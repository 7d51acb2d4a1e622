package store

import (
	"context"
	"database/sql/driver"
	"sync"
	"sync/atomic"
)

// The lists every page shows (the job history, the models, the counts) are
// read from memory while the store has committed no write since they were
// read: a page costs the same whether the store holds ten jobs or ten
// thousand, and whatever SQLite's cost of a row. Every write of the store
// goes through its connections (one process per data folder: lockDir), which
// count the writes they commit (Store.gen) after the commit: a read that
// began at generation g holds every write committed before it, and is
// served again only while the generation is still g. A write's caller gets
// its answer after that count, so whoever saw a write done reads it.

// genConnector opens the store's SQLite connections through drv, each
// counting its committed writes into gen.
type genConnector struct {
	drv driver.Driver
	dsn string
	gen *atomic.Uint64
}

func (c *genConnector) Connect(context.Context) (driver.Conn, error) {
	conn, err := c.drv.Open(c.dsn)
	if err != nil {
		return nil, err
	}
	return &genConn{Conn: conn, gen: c.gen}, nil
}

func (c *genConnector) Driver() driver.Driver { return c.drv }

// genConn is a connection that counts its writes: every statement run by
// ExecContext (a write outside a transaction commits when it returns) and
// every committed transaction. Reads pass through.
type genConn struct {
	driver.Conn
	gen *atomic.Uint64
}

func (c *genConn) ExecContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Result, error) {
	e, ok := c.Conn.(driver.ExecerContext)
	if !ok {
		return nil, driver.ErrSkip
	}
	defer c.gen.Add(1)
	return e.ExecContext(ctx, q, args)
}

func (c *genConn) QueryContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Rows, error) {
	qc, ok := c.Conn.(driver.QueryerContext)
	if !ok {
		return nil, driver.ErrSkip
	}
	return qc.QueryContext(ctx, q, args)
}

func (c *genConn) PrepareContext(ctx context.Context, q string) (driver.Stmt, error) {
	var st driver.Stmt
	var err error
	if p, ok := c.Conn.(driver.ConnPrepareContext); ok {
		st, err = p.PrepareContext(ctx, q)
	} else {
		st, err = c.Conn.Prepare(q)
	}
	if err != nil {
		return nil, err
	}
	return &genStmt{Stmt: st, gen: c.gen}, nil
}

func (c *genConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	var tx driver.Tx
	var err error
	if b, ok := c.Conn.(driver.ConnBeginTx); ok {
		tx, err = b.BeginTx(ctx, opts)
	} else {
		tx, err = c.Conn.Begin() //nolint:staticcheck // the fallback of a driver without BeginTx
	}
	if err != nil {
		return nil, err
	}
	return &genTx{Tx: tx, gen: c.gen}, nil
}

func (c *genConn) ResetSession(ctx context.Context) error {
	if r, ok := c.Conn.(driver.SessionResetter); ok {
		return r.ResetSession(ctx)
	}
	return nil
}

func (c *genConn) IsValid() bool {
	if v, ok := c.Conn.(driver.Validator); ok {
		return v.IsValid()
	}
	return true
}

// genStmt is a prepared statement whose runs by ExecContext count as writes.
type genStmt struct {
	driver.Stmt
	gen *atomic.Uint64
}

func (s *genStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	defer s.gen.Add(1)
	if e, ok := s.Stmt.(driver.StmtExecContext); ok {
		return e.ExecContext(ctx, args)
	}
	vals := make([]driver.Value, len(args))
	for i, a := range args {
		vals[i] = a.Value
	}
	return s.Stmt.Exec(vals) //nolint:staticcheck // the fallback of a driver without StmtExecContext
}

func (s *genStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	if q, ok := s.Stmt.(driver.StmtQueryContext); ok {
		return q.QueryContext(ctx, args)
	}
	vals := make([]driver.Value, len(args))
	for i, a := range args {
		vals[i] = a.Value
	}
	return s.Stmt.Query(vals) //nolint:staticcheck // the fallback of a driver without StmtQueryContext
}

// genTx is a transaction whose commit counts as a write.
type genTx struct {
	driver.Tx
	gen *atomic.Uint64
}

func (t *genTx) Commit() error {
	defer t.gen.Add(1)
	return t.Tx.Commit()
}

// readCache holds the lists read at a generation of the store.
type readCache struct {
	mu sync.Mutex
	m  map[string]cacheEntry
}

type cacheEntry struct {
	gen uint64
	v   any
}

// maxCached bounds the lists kept (a list's key holds its query's
// parameters: a kind of job, a page).
const maxCached = 64

// CachedRead returns what read returns, from memory while the store has
// committed no write since an earlier read under key. The value is shared:
// callers must not change it.
func CachedRead[T any](s *Store, key string, read func() (T, error)) (T, error) {
	g := s.gen.Load()
	c := &s.cache
	c.mu.Lock()
	e, ok := c.m[key]
	c.mu.Unlock()
	if ok && e.gen == g {
		return e.v.(T), nil
	}
	v, err := read()
	if err != nil {
		return v, err
	}
	c.mu.Lock()
	if c.m == nil || len(c.m) >= maxCached {
		c.m = map[string]cacheEntry{}
	}
	if old, ok := c.m[key]; !ok || old.gen <= g {
		c.m[key] = cacheEntry{gen: g, v: v}
	}
	c.mu.Unlock()
	return v, nil
}
