package store

// Memory packs and citations (migration 0008): a pack is a brief saved
// under a name with every version it was built as; a citation says an item
// was used in a task. lib/ledger builds the briefs and compares versions;
// this file only stores and reads them.

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/linkledger/linkledger/lib/record"
)

// ErrNoPack says no pack has the name.
var ErrNoPack = errors.New("no such pack")

// ErrPackExists says a pack already has the name.
var ErrPackExists = errors.New("pack exists")

// PackVersion is one version of a pack to store: the brief exactly as
// written and what entered and left since the version before.
type PackVersion struct {
	Brief   string
	Entered []record.PackMember
	Left    []record.PackMember
}

type packRow struct {
	Name      string `db:"name"`
	Query     string `db:"query"`
	Options   string `db:"options_json"`
	CreatedAt string `db:"created_at"`
	CreatedBy string `db:"created_by"`
	Version   int    `db:"version"`
	Brief     string `db:"pack_json"`
	BuiltAt   string `db:"built_at"`
	BuiltBy   string `db:"built_by"`
	Entered   string `db:"entered_json"`
	Left      string `db:"left_json"`
}

func (r packRow) info(withBrief bool) (*record.PackInfo, error) {
	p := &record.PackInfo{Name: r.Name, Query: r.Query, CreatedAt: r.CreatedAt, CreatedBy: r.CreatedBy,
		Version: r.Version, BuiltAt: r.BuiltAt, BuiltBy: r.BuiltBy, Options: &record.PackOptions{}}
	if err := json.Unmarshal([]byte(r.Options), p.Options); err != nil {
		return nil, fmt.Errorf("pack %s: options: %w", r.Name, err)
	}
	if err := json.Unmarshal([]byte(r.Entered), &p.Entered); err != nil {
		return nil, fmt.Errorf("pack %s: entered: %w", r.Name, err)
	}
	if err := json.Unmarshal([]byte(r.Left), &p.Left); err != nil {
		return nil, fmt.Errorf("pack %s: left: %w", r.Name, err)
	}
	if withBrief {
		p.Brief = json.RawMessage(r.Brief)
	}
	return p, nil
}

const packSelect = `SELECT p.name, p.query, p.options_json, p.created_at, p.created_by,
	v.version, v.pack_json, v.built_at, v.built_by, v.entered_json, v.left_json
	FROM packs p JOIN pack_versions v ON v.pack_name = p.name`

// SavePack stores a pack under name with its first version. When the name
// is taken it fails with ErrPackExists, unless replace: then the query and
// options are replaced and v is added as the next version.
func (s *Store) SavePack(ctx context.Context, name, query string, opts record.PackOptions, v PackVersion, actor string, replace bool) (*record.PackInfo, error) {
	if err := record.CheckActor(actor); err != nil {
		return nil, err
	}
	ob, err := json.Marshal(opts)
	if err != nil {
		return nil, err
	}
	err = s.tx(ctx, func(tx *sqlx.Tx) error {
		var one int
		err := tx.GetContext(ctx, &one, `SELECT 1 FROM packs WHERE name = ?`, name)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			if _, err := tx.ExecContext(ctx, `INSERT INTO packs (name, query, options_json, created_at, created_by) VALUES (?, ?, ?, ?, ?)`,
				name, query, string(ob), s.nowString(), actor); err != nil {
				return err
			}
		case err != nil:
			return err
		case !replace:
			return ErrPackExists
		default:
			if _, err := tx.ExecContext(ctx, `UPDATE packs SET query = ?, options_json = ? WHERE name = ?`, query, string(ob), name); err != nil {
				return err
			}
		}
		return s.addPackVersion(ctx, tx, name, v, actor)
	})
	if err != nil {
		return nil, err
	}
	return s.Pack(ctx, name, 0)
}

// AddPackVersion stores v as the next version of the pack name (a refresh).
func (s *Store) AddPackVersion(ctx context.Context, name string, v PackVersion, actor string) (*record.PackInfo, error) {
	if err := record.CheckActor(actor); err != nil {
		return nil, err
	}
	err := s.tx(ctx, func(tx *sqlx.Tx) error {
		var one int
		err := tx.GetContext(ctx, &one, `SELECT 1 FROM packs WHERE name = ?`, name)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNoPack
		}
		if err != nil {
			return err
		}
		return s.addPackVersion(ctx, tx, name, v, actor)
	})
	if err != nil {
		return nil, err
	}
	return s.Pack(ctx, name, 0)
}

func (s *Store) addPackVersion(ctx context.Context, tx *sqlx.Tx, name string, v PackVersion, actor string) error {
	entered, err := json.Marshal(nonNil(v.Entered))
	if err != nil {
		return err
	}
	left, err := json.Marshal(nonNil(v.Left))
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO pack_versions (pack_name, version, pack_json, built_at, built_by, entered_json, left_json)
		VALUES (?, (SELECT coalesce(max(version), 0) + 1 FROM pack_versions WHERE pack_name = ?), ?, ?, ?, ?, ?)`,
		name, name, v.Brief, s.nowString(), actor, string(entered), string(left))
	return err
}

func nonNil(ms []record.PackMember) []record.PackMember {
	if ms == nil {
		return []record.PackMember{}
	}
	return ms
}

// Pack returns the pack name as its version was built (0: the latest),
// brief included. It returns ErrNoPack for an unknown name or version.
func (s *Store) Pack(ctx context.Context, name string, version int) (*record.PackInfo, error) {
	var r packRow
	var err error
	if version > 0 {
		err = s.db.GetContext(ctx, &r, packSelect+` WHERE p.name = ? AND v.version = ?`, name, version)
	} else {
		err = s.db.GetContext(ctx, &r, packSelect+` WHERE p.name = ? ORDER BY v.version DESC LIMIT 1`, name)
	}
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNoPack
	}
	if err != nil {
		return nil, err
	}
	return r.info(true)
}

// Packs lists every pack at its latest version, by name, without briefs.
func (s *Store) Packs(ctx context.Context) ([]record.PackInfo, error) {
	var rows []packRow
	err := s.db.SelectContext(ctx, &rows, packSelect+`
		WHERE v.version = (SELECT max(version) FROM pack_versions WHERE pack_name = p.name) ORDER BY p.name`)
	if err != nil {
		return nil, err
	}
	out := make([]record.PackInfo, 0, len(rows))
	for _, r := range rows {
		p, err := r.info(false)
		if err != nil {
			return nil, err
		}
		out = append(out, *p)
	}
	return out, nil
}

// AddCitation records that the item itemID was used in task by actor. It
// returns ErrNotFound for an unknown item.
func (s *Store) AddCitation(ctx context.Context, itemID, task, actor string) (*record.Citation, error) {
	if err := record.CheckActor(actor); err != nil {
		return nil, err
	}
	c := &record.Citation{ItemID: itemID, Task: task, Actor: actor}
	err := s.tx(ctx, func(tx *sqlx.Tx) error {
		var it struct {
			URL   string         `db:"canonical_url"`
			Title sql.NullString `db:"title"`
		}
		err := tx.GetContext(ctx, &it, `SELECT canonical_url, title FROM items WHERE id = ?`, itemID)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		c.URL, c.Title, c.At = it.URL, it.Title.String, s.nowString()
		res, err := tx.ExecContext(ctx, `INSERT INTO citations (item_id, item_url, task, actor, at) VALUES (?, ?, ?, ?, ?)`,
			itemID, c.URL, task, actor, c.At)
		if err != nil {
			return err
		}
		c.ID, err = res.LastInsertId()
		return err
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// ReuseAfter is how long before a task began an item must have been
// saved for its citation in the task to count as reuse: a stored source
// reused in later work, not one saved in the same sitting and cited
// minutes later (docs/retrieval.md "What counts as reuse").
const ReuseAfter = time.Hour

// savedBefore says the time saved (RFC 3339) is at least gap before
// start; a time that does not parse is compared as text, with no gap.
func savedBefore(saved, start string, gap time.Duration) bool {
	a, errA := time.Parse(time.RFC3339Nano, saved)
	b, errB := time.Parse(time.RFC3339Nano, start)
	if errA != nil || errB != nil {
		return saved < start
	}
	return !a.Add(gap).After(b)
}

// Usage measures evidence reuse between since (zero: from the start) and
// until: the tasks active in the period and how many reused a stored
// source, the items saved in it and how many were never cited, and the
// limit sources cited by the most tasks (record.UsageStats says how each
// is counted).
func (s *Store) Usage(ctx context.Context, since, until time.Time, limit int) (*record.UsageStats, error) {
	from, to := "", record.FormatTime(until)
	if !since.IsZero() {
		from = record.FormatTime(since)
	}
	u := &record.UsageStats{Since: from, Until: to, ReuseGoal: 0.3, MostReused: []record.UsageSource{}}
	// Every citation of the period, with when its item was saved and when
	// its task began (its first citation or its pack, whichever is first).
	var cites []struct {
		ItemID    string         `db:"item_id"`
		URL       string         `db:"item_url"`
		Title     sql.NullString `db:"title"`
		Task      string         `db:"task"`
		SavedAt   sql.NullString `db:"saved_at"`
		TaskStart string         `db:"task_start"`
	}
	err := s.db.SelectContext(ctx, &cites, `
		SELECT c.item_id, c.item_url, i.title, c.task, i.saved_at,
		       min((SELECT min(at) FROM citations WHERE task = c.task),
		           coalesce((SELECT created_at FROM packs WHERE name = c.task), '9999')) AS task_start
		FROM citations c LEFT JOIN items i ON i.id = c.item_id
		WHERE c.at >= ? AND c.at <= ?
		ORDER BY c.id`, from, to)
	if err != nil {
		return nil, err
	}
	var packTasks []string
	if err := s.db.SelectContext(ctx, &packTasks, `SELECT DISTINCT pack_name FROM pack_versions WHERE built_at >= ? AND built_at <= ?`, from, to); err != nil {
		return nil, err
	}
	tasks := map[string]bool{}
	for _, t := range packTasks {
		tasks[t] = false
	}
	type src struct {
		record.UsageSource
		tasks map[string]bool
	}
	srcs := map[string]*src{}
	for _, c := range cites {
		u.Citations++
		// Saved at least ReuseAfter before the task began: the item was
		// in memory already, kept from earlier work (an item saved for
		// the task, or in the same sitting, is not reuse).
		reused := c.SavedAt.Valid && savedBefore(c.SavedAt.String, c.TaskStart, ReuseAfter)
		tasks[c.Task] = tasks[c.Task] || reused
		sr := srcs[c.ItemID]
		if sr == nil {
			sr = &src{UsageSource: record.UsageSource{ItemID: c.ItemID, URL: c.URL, Title: c.Title.String}, tasks: map[string]bool{}}
			srcs[c.ItemID] = sr
		}
		sr.Citations++
		sr.tasks[c.Task] = true
	}
	u.Tasks = len(tasks)
	cited := map[string]bool{}
	for _, c := range cites {
		cited[c.Task] = true
	}
	for t, r := range tasks {
		if r {
			u.TasksReusing++
		}
		if !cited[t] {
			u.TasksUncited++
		}
	}
	if u.Tasks > 0 {
		u.ReuseShare = float64(u.TasksReusing) / float64(u.Tasks)
	}
	list := make([]record.UsageSource, 0, len(srcs))
	for _, sr := range srcs {
		sr.Tasks = len(sr.tasks)
		list = append(list, sr.UsageSource)
	}
	sort.Slice(list, func(i, j int) bool {
		a, b := list[i], list[j]
		if a.Tasks != b.Tasks {
			return a.Tasks > b.Tasks
		}
		if a.Citations != b.Citations {
			return a.Citations > b.Citations
		}
		return a.ItemID < b.ItemID
	})
	if limit >= 0 && len(list) > limit {
		list = list[:limit]
	}
	u.MostReused = list
	err = s.db.GetContext(ctx, &u.ItemsSaved, `SELECT count(*) FROM items WHERE saved_at >= ? AND saved_at <= ?`, from, to)
	if err != nil {
		return nil, err
	}
	err = s.db.GetContext(ctx, &u.ItemsNeverUsed, `SELECT count(*) FROM items i WHERE saved_at >= ? AND saved_at <= ?
		AND NOT EXISTS (SELECT 1 FROM citations c WHERE c.item_id = i.id)`, from, to)
	if err != nil {
		return nil, err
	}
	return u, nil
}
