package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// groupsMigration stores seed groups: a group row and its members, the
// models of one training started with several seeds, in seed order. A model
// belongs to at most one group; deleting a model removes it from its group
// (ON DELETE CASCADE), and a group whose last member is deleted goes with it
// (the trigger). It only adds tables, so an existing data folder keeps every
// model, none of them in a group.
const groupsMigration = `CREATE TABLE model_groups (
		id TEXT PRIMARY KEY,
		name TEXT NOT NULL,
		corpus_id TEXT NOT NULL,
		params_json TEXT NOT NULL,
		created_at INTEGER NOT NULL
	);
	CREATE TABLE group_members (
		group_id TEXT NOT NULL REFERENCES model_groups(id) ON DELETE CASCADE,
		model_id TEXT NOT NULL REFERENCES models(id) ON DELETE CASCADE,
		position INTEGER NOT NULL,
		PRIMARY KEY (group_id, position)
	);
	CREATE UNIQUE INDEX group_members_model ON group_members (model_id);
	CREATE INDEX model_groups_created ON model_groups (created_at DESC, id);
	CREATE TRIGGER group_members_last AFTER DELETE ON group_members
	WHEN NOT EXISTS (SELECT 1 FROM group_members WHERE group_id = OLD.group_id)
	BEGIN
		DELETE FROM model_groups WHERE id = OLD.group_id;
	END;`

// GroupRow is a stored seed group: the models of one training started with
// several seeds, in seed order (Members, read with the group).
type GroupRow struct {
	ID        string
	Name      string
	CorpusID  string
	Params    json.RawMessage // the members' shared training parameters
	CreatedAt time.Time
	// Members are the group's models without their parameters, training
	// curve and training record.
	Members []*ModelRow
}

// ModelIDs returns the ids of the group's members in seed order.
func (g *GroupRow) ModelIDs() []string {
	ids := make([]string, len(g.Members))
	for i, m := range g.Members {
		ids[i] = m.ID
	}
	return ids
}

// insertGroup stores a new group row without members (in the transaction
// that stores its first member, so that a group never exists without one).
func insertGroup(ctx context.Context, db execer, g *GroupRow) error {
	newRow(&g.ID, &g.CreatedAt, &g.Params)
	_, err := db.ExecContext(ctx, `INSERT INTO model_groups (id, name, corpus_id, params_json, created_at) VALUES (?, ?, ?, ?, ?)`,
		g.ID, g.Name, g.CorpusID, string(g.Params), g.CreatedAt.UnixMilli())
	return err
}

// addGroupMember makes model modelID the member of group groupID at
// position pos (from 0).
func addGroupMember(ctx context.Context, db execer, groupID, modelID string, pos int) error {
	_, err := db.ExecContext(ctx, `INSERT INTO group_members (group_id, model_id, position) VALUES (?, ?, ?)`, groupID, modelID, pos)
	return err
}

// groupCols are the columns of a group row, members aside.
const groupCols = `id, name, corpus_id, params_json, created_at`

// Group returns the group with the given id and its members.
func (s *Store) Group(ctx context.Context, id string) (*GroupRow, error) {
	gs, err := s.groups(ctx, `SELECT `+groupCols+` FROM model_groups WHERE id = ?`, id)
	if err != nil {
		return nil, err
	}
	if len(gs) == 0 {
		return nil, ErrNotFound
	}
	return gs[0], nil
}

// Groups lists the newest groups, at most limit of them (0: all), with
// their members.
func (s *Store) Groups(ctx context.Context, limit int) ([]*GroupRow, error) {
	q := `SELECT ` + groupCols + ` FROM model_groups ORDER BY created_at DESC, id`
	if limit > 0 {
		q += fmt.Sprintf(" LIMIT %d", limit)
	}
	return s.groups(ctx, q)
}

// countGroups returns how many groups the store holds.
func (s *Store) countGroups(ctx context.Context) (int, error) {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM model_groups`).Scan(&n)
	return n, err
}

// ModelGroup returns the id of the group model modelID belongs to, "" when
// none.
func (s *Store) ModelGroup(ctx context.Context, modelID string) (string, error) {
	var id string
	err := s.db.QueryRowContext(ctx, `SELECT group_id FROM group_members WHERE model_id = ?`, modelID).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return id, err
}

// groups runs a query of group rows and reads their members.
func (s *Store) groups(ctx context.Context, query string, args ...any) ([]*GroupRow, error) {
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("store: groups: %w", err)
	}
	var out []*GroupRow
	byID := map[string]*GroupRow{}
	for rows.Next() {
		var g GroupRow
		var params string
		var created int64
		if err := rows.Scan(&g.ID, &g.Name, &g.CorpusID, &params, &created); err != nil {
			rows.Close()
			return nil, fmt.Errorf("store: groups: %w", err)
		}
		g.Params, g.CreatedAt = json.RawMessage(params), time.UnixMilli(created)
		out = append(out, &g)
		byID[g.ID] = &g
	}
	if err := rows.Close(); err != nil {
		return nil, fmt.Errorf("store: groups: %w", err)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: groups: %w", err)
	}
	if len(out) == 0 {
		return nil, nil
	}
	// The members of these groups in one query.
	q := `SELECT gm.group_id, m.id, m.corpus_id, m.name, m.seed, m.state, m.size, m.job_id, m.error, m.created_at
		FROM group_members gm JOIN models m ON m.id = gm.model_id`
	margs := make([]any, len(out))
	for i, g := range out {
		margs[i] = g.ID
	}
	q += ` WHERE gm.group_id IN (?` + strings.Repeat(", ?", len(out)-1) + `)`
	mrows, err := s.db.QueryContext(ctx, q+` ORDER BY gm.group_id, gm.position`, margs...)
	if err != nil {
		return nil, fmt.Errorf("store: group members: %w", err)
	}
	defer mrows.Close()
	for mrows.Next() {
		var gid string
		var m ModelRow
		var seed, created int64
		if err := mrows.Scan(&gid, &m.ID, &m.CorpusID, &m.Name, &seed, &m.State, &m.Size, &m.JobID, &m.Error, &created); err != nil {
			return nil, fmt.Errorf("store: group members: %w", err)
		}
		m.Seed, m.CreatedAt = uint64(seed), time.UnixMilli(created)
		if g := byID[gid]; g != nil {
			g.Members = append(g.Members, &m)
		}
	}
	return out, mrows.Err()
}

// DeleteGroup deletes a group, keeping its models (no longer in a group).
func (s *Store) DeleteGroup(ctx context.Context, id string) error {
	res, err := s.db.ExecContext(ctx, `DELETE FROM model_groups WHERE id = ?`, id)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 0 {
		return ErrNotFound
	}
	return nil
}
