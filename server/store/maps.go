package store

import (
	"context"
	"database/sql"
	"errors"
	"strings"
)

// PutMap caches a computed map's JSON under (model, key).
func (s *Store) PutMap(ctx context.Context, modelID, key string, points []byte) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO maps (model_id, key, points_json, created_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (model_id, key) DO UPDATE SET points_json = excluded.points_json, created_at = excluded.created_at`,
		modelID, key, string(points), now())
	return err
}

// Map returns a cached map's JSON.
func (s *Store) Map(ctx context.Context, modelID, key string) ([]byte, error) {
	var p string
	err := s.db.QueryRowContext(ctx, `SELECT points_json FROM maps WHERE model_id = ? AND key = ?`, modelID, key).Scan(&p)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	return []byte(p), err
}

// likeEscape escapes s for a LIKE pattern with ESCAPE '\'.
func likeEscape(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return r.Replace(s)
}
