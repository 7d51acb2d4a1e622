package store

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/taglens/taglens/internal/app"
)

// storeWithModels opens a store in dir holding the small corpus and n
// models on it (ready), and returns it with the models' ids.
func storeWithModels(t *testing.T, dir string, n int) (*Store, []string) {
	t.Helper()
	ctx := context.Background()
	st, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	// A store of an older schema (TestStoreGroupsMigration) has neither the
	// table of the corpora's tags nor their split sizes (migration 9), which
	// InsertCorpus writes: it gets them for the insertion, dropped before
	// the migration adds them.
	if v, _ := st.schemaVersion(ctx); v < 9 {
		if _, err := st.db.ExecContext(ctx, `CREATE TABLE corpus_tags (corpus_id TEXT PRIMARY KEY, data BLOB NOT NULL) WITHOUT ROWID;
			ALTER TABLE corpora ADD COLUMN split_sizes TEXT NOT NULL DEFAULT '{}'`); err != nil {
			t.Fatal(err)
		}
	}
	c, err := app.ImportCorpus(bytesReader(smallTSV()), "songs", "", 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	row, err := st.InsertCorpus(ctx, c, StatsOf(c), mustSplit(c), false)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for k := range n {
		m := &ModelRow{CorpusID: row.ID, Name: "m", Seed: uint64(k + 1)}
		if err := st.InsertModel(ctx, m); err != nil {
			t.Fatal(err)
		}
		if err := st.SetModelState(ctx, m.ID, ModelReady); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, m.ID)
	}
	return st, ids
}

// storeGroup stores a group of the models ids (in that order) as
// createGroup does, in one transaction.
func storeGroup(t *testing.T, st *Store, name string, ids ...string) *GroupRow {
	t.Helper()
	ctx := context.Background()
	m, err := st.Model(ctx, ids[0])
	if err != nil {
		t.Fatal(err)
	}
	g := &GroupRow{Name: name, CorpusID: m.CorpusID, Params: []byte(`{"topics":8}`)}
	tx, err := st.db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if err := insertGroup(ctx, tx, g); err != nil {
		t.Fatal(err)
	}
	for k, id := range ids {
		if err := addGroupMember(ctx, tx, g.ID, id, k); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	return g
}

// groupIDs returns the ids of group id's members, nil when the group is gone.
func groupIDs(t *testing.T, st *Store, id string) []string {
	t.Helper()
	g, err := st.Group(context.Background(), id)
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return g.ModelIDs()
}

// TestStoreGroups: a group lists its members in seed order with their
// states; deleting a model removes it from its group, and the group goes
// with its last member; deleting a group keeps its models, in no group; a
// model belongs to one group at most.
func TestStoreGroups(t *testing.T) {
	ctx := context.Background()
	st, ids := storeWithModels(t, t.TempDir(), 5)
	defer st.Close()
	a := storeGroup(t, st, "songs · topics 8 · seeds 1–3", ids[2], ids[0], ids[1])
	b := storeGroup(t, st, "b", ids[3], ids[4])

	g, err := st.Group(ctx, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if g.Name != a.Name || g.CorpusID != a.CorpusID || string(g.Params) != `{"topics":8}` || !g.CreatedAt.Equal(a.CreatedAt) {
		t.Errorf("group read back: %+v, want %+v", g, a)
	}
	if got, want := g.ModelIDs(), []string{ids[2], ids[0], ids[1]}; !slices.Equal(got, want) {
		t.Errorf("members %v, want %v (in seed order)", got, want)
	}
	for _, m := range g.Members {
		if m.State != ModelReady || m.Name != "m" || m.CorpusID != a.CorpusID {
			t.Errorf("member %+v: want a ready model named m", m)
		}
	}
	all, err := st.Groups(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 2 || len(all[0].Members)+len(all[1].Members) != 5 {
		t.Fatalf("Groups: %d groups with %d+%d members, want 2 with 5", len(all), len(all[0].Members), len(all[1].Members))
	}
	if newest, err := st.Groups(ctx, 1); err != nil || len(newest) != 1 {
		t.Fatalf("Groups(1): %d groups, %v", len(newest), err)
	}
	if n, err := st.countGroups(ctx); err != nil || n != 2 {
		t.Errorf("countGroups: %d, %v; want 2", n, err)
	}
	if gid, err := st.ModelGroup(ctx, ids[0]); err != nil || gid != a.ID {
		t.Errorf("ModelGroup: %q, %v; want %q", gid, err, a.ID)
	}

	// One group per model.
	tx, err := st.db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := addGroupMember(ctx, tx, b.ID, ids[0], 2); err == nil {
		t.Error("a model joined a second group")
	}
	tx.Rollback()

	// Deleting a model removes it from its group.
	if err := st.DeleteModel(ctx, ids[0]); err != nil {
		t.Fatal(err)
	}
	if got, want := groupIDs(t, st, a.ID), []string{ids[2], ids[1]}; !slices.Equal(got, want) {
		t.Errorf("after deleting a member: %v, want %v", got, want)
	}
	if gid, err := st.ModelGroup(ctx, ids[0]); err != nil || gid != "" {
		t.Errorf("deleted model's group: %q, %v", gid, err)
	}

	// Deleting a group keeps its models.
	if err := st.DeleteGroup(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	if groupIDs(t, st, a.ID) != nil {
		t.Error("deleted group still there")
	}
	for _, id := range []string{ids[1], ids[2]} {
		if _, err := st.Model(ctx, id); err != nil {
			t.Errorf("model %s of the deleted group: %v", id, err)
		}
		if gid, err := st.ModelGroup(ctx, id); err != nil || gid != "" {
			t.Errorf("model %s still in group %q (%v)", id, gid, err)
		}
	}
	if err := st.DeleteGroup(ctx, a.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("deleting it again: %v, want ErrNotFound", err)
	}

	// The group goes with its last member.
	for _, id := range []string{ids[3], ids[4]} {
		if err := st.DeleteModel(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	if groupIDs(t, st, b.ID) != nil {
		t.Error("a group without members is still there")
	}
	if all, err := st.Groups(ctx, 0); err != nil || len(all) != 0 {
		t.Errorf("Groups after deleting them: %d, %v", len(all), err)
	}
}

// TestStoreGroupsMigration opens a data folder written before groups
// existed: the migration keeps its models (in no group) and groups work.
func TestStoreGroupsMigration(t *testing.T) {
	ctx := context.Background()
	at := slices.Index(migrations, groupsMigration)
	if at < 0 {
		t.Fatal("groupsMigration is not a migration")
	}
	all := migrations
	migrations = migrations[:at]
	defer func() { migrations = all }()
	dir := t.TempDir()
	st, ids := storeWithModels(t, dir, 2)
	if _, err := st.db.ExecContext(ctx, `DROP TABLE corpus_tags; ALTER TABLE corpora DROP COLUMN split_sizes`); err != nil {
		t.Fatal(err)
	}
	migrations = all
	st.Close()

	st, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if v, err := st.schemaVersion(ctx); err != nil || v != len(migrations) {
		t.Fatalf("schema version %d (%v), want %d", v, err, len(migrations))
	}
	for _, id := range ids {
		m, err := st.Model(ctx, id)
		if err != nil || m.State != ModelReady {
			t.Fatalf("model %s after the migration: %+v, %v", id, m, err)
		}
		if gid, err := st.ModelGroup(ctx, id); err != nil || gid != "" {
			t.Errorf("model %s in group %q (%v), want none", id, gid, err)
		}
	}
	if gs, err := st.Groups(ctx, 0); err != nil || len(gs) != 0 {
		t.Fatalf("groups of an old folder: %d, %v", len(gs), err)
	}
	g := storeGroup(t, st, "g", ids...)
	if got := groupIDs(t, st, g.ID); !slices.Equal(got, ids) {
		t.Errorf("members %v, want %v", got, ids)
	}
}
