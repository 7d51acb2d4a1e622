package testkit

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"sync"
	"sync/atomic"
	"testing"
)

// countingDriver wraps the "sqlite" driver and counts the statements its
// connections run (queries, executions and preparations).
type countingDriver struct {
	base driver.Driver
	n    atomic.Int64
}

var (
	countingOnce sync.Once
	counting     = &countingDriver{}
)

// CountingDriver registers, once, a database/sql driver that wraps the
// "sqlite" driver (registered by the store's import of modernc.org/sqlite) and
// counts the statements its connections run: queries, executions and
// preparations. It returns the driver's name and the count so far.
func CountingDriver(t testing.TB) (string, *atomic.Int64) {
	countingOnce.Do(func() {
		db, err := sql.Open("sqlite", "")
		if err != nil {
			t.Fatal(err)
		}
		counting.base = db.Driver()
		db.Close()
		sql.Register("sqlite-counting", counting)
	})
	return "sqlite-counting", &counting.n
}

func (d *countingDriver) Open(name string) (driver.Conn, error) {
	c, err := d.base.Open(name)
	if err != nil {
		return nil, err
	}
	return &countingConn{Conn: c, n: &d.n}, nil
}

type countingConn struct {
	driver.Conn
	n *atomic.Int64
}

func (c *countingConn) Prepare(q string) (driver.Stmt, error) {
	c.n.Add(1)
	st, err := c.Conn.Prepare(q)
	return &countingStmt{Stmt: st, n: c.n}, err
}

func (c *countingConn) PrepareContext(ctx context.Context, q string) (driver.Stmt, error) {
	c.n.Add(1)
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
	return &countingStmt{Stmt: st, n: c.n}, nil
}

// countingStmt counts the runs of a prepared statement (the store prepares
// the lists' queries once: store.Store.prepared).
type countingStmt struct {
	driver.Stmt
	n *atomic.Int64
}

func (s *countingStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	s.n.Add(1)
	return s.Stmt.(driver.StmtExecContext).ExecContext(ctx, args)
}

func (s *countingStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	s.n.Add(1)
	return s.Stmt.(driver.StmtQueryContext).QueryContext(ctx, args)
}

func (c *countingConn) ExecContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Result, error) {
	e, ok := c.Conn.(driver.ExecerContext)
	if !ok {
		return nil, driver.ErrSkip
	}
	c.n.Add(1)
	return e.ExecContext(ctx, q, args)
}

func (c *countingConn) QueryContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Rows, error) {
	qc, ok := c.Conn.(driver.QueryerContext)
	if !ok {
		return nil, driver.ErrSkip
	}
	c.n.Add(1)
	return qc.QueryContext(ctx, q, args)
}

func (c *countingConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	if b, ok := c.Conn.(driver.ConnBeginTx); ok {
		return b.BeginTx(ctx, opts)
	}
	return c.Conn.Begin() //nolint:staticcheck // the fallback of a driver without BeginTx
}
