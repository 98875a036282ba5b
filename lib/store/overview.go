package store

import (
	"context"
	"database/sql"
	"strings"

	"github.com/jmoiron/sqlx"

	"github.com/linkledger/linkledger/lib/record"
)

// OverviewLimits bound what OverviewData reads, whatever the ledger's size.
type OverviewLimits struct {
	Groups     int // most used tags, and most saved sites, read
	Sample     int // newest items of each group whose text is read
	Background int // newest items of the whole ledger read as well (the words common to everything)
	BodyBytes  int // bytes of an item's first chunk read
	List       int // pinned, most cited and failed items read
}

// OverviewData is what the ledger holds, read in one snapshot: counts, the
// largest groups (tags, sites) with a sample of their items' text, and
// the items worth naming. lib/ledger makes the overview of it.
type OverviewData struct {
	Items    int
	Archived int
	Pending  int
	ByType   map[string]int
	ByState  map[string]int
	Tags     []GroupSample
	Sites    []GroupSample
	// Recent is the sample of the whole ledger (newest items).
	Recent []ItemText
	Pinned []ItemRef
	Cited  []ItemRef
	Failed []ItemRef
	Oldest string // saved_at of the oldest item
	Newest string // saved_at of the newest item
}

// GroupSample is a tag or site, its item count and its newest items' text.
type GroupSample struct {
	Name  string
	Items int
	Texts []ItemText
}

// ItemText is the text of one item that describes it best and cheaply:
// title, highlights, and the start of its first chunk.
type ItemText struct {
	Seq        int64  `db:"seq"`
	Title      string `db:"title"`
	Highlights string `db:"highlights"`
	Body       string `db:"body"`
}

// ItemRef names an item, with why it is listed (pinned highlights, tasks
// that cited it, the error code of a failure).
type ItemRef struct {
	ID     string `db:"id" json:"id"`
	URL    string `db:"canonical_url" json:"url"`
	Title  string `db:"title" json:"title,omitempty"`
	Status string `db:"ingest_status" json:"-"`
	Count  int    `db:"n" json:"count,omitempty"`
	Detail string `db:"detail" json:"detail,omitempty"`
}

// siteExpr is an item's site: the host (and port) of its canonical URL.
const siteExpr = `CASE WHEN instr(rest, '/') > 0 THEN substr(rest, 1, instr(rest, '/') - 1) ELSE rest END`

// OverviewData reads what lib/ledger's overview shows, bounded by lim,
// in one read transaction.
func (s *Store) OverviewData(ctx context.Context, lim OverviewLimits) (*OverviewData, error) {
	tx, err := s.db.BeginTxx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	d := &OverviewData{ByType: map[string]int{}, ByState: map[string]int{}}
	var counts []struct {
		Type     string `db:"source_type"`
		State    string `db:"ingest_status"`
		N        int    `db:"n"`
		Archived int    `db:"archived"`
	}
	if err := tx.SelectContext(ctx, &counts, `SELECT source_type, ingest_status, count(*) AS n, count(archived_at) AS archived FROM items GROUP BY 1, 2`); err != nil {
		return nil, err
	}
	for _, c := range counts {
		d.Items += c.N
		d.Archived += c.Archived
		d.ByType[c.Type] += c.N
		d.ByState[c.State] += c.N
	}
	if d.Items == 0 {
		return d, nil
	}
	var span struct {
		Oldest string `db:"oldest"`
		Newest string `db:"newest"`
	}
	if err := tx.GetContext(ctx, &span, `SELECT min(saved_at) AS oldest, max(saved_at) AS newest FROM items`); err != nil {
		return nil, err
	}
	d.Oldest, d.Newest = span.Oldest, span.Newest
	if err := tx.GetContext(ctx, &d.Pending, `SELECT count(*) FROM items WHERE `+pendingCond, DefaultMaxAttempts, record.FormatTime(s.Now())); err != nil {
		return nil, err
	}
	textCols := func(alias string) string {
		return alias + `.seq, ` + alias + `.title,
			coalesce((SELECT group_concat(text, ' ') FROM (SELECT text FROM annotations a WHERE a.item_id = ` + alias + `.id AND a.type = 'highlight' ORDER BY a.id LIMIT 5)), '') AS highlights,
			coalesce((SELECT substr(text, 1, ?) FROM content_chunks c WHERE c.item_id = ` + alias + `.id AND c.chunk_index = 0), '') AS body`
	}
	// tags: the most used, each with its newest items
	var groups []struct {
		Name string `db:"name"`
		N    int    `db:"n"`
	}
	if err := tx.SelectContext(ctx, &groups, `SELECT tag AS name, count(*) AS n FROM tags GROUP BY tag ORDER BY n DESC, tag LIMIT ?`, lim.Groups); err != nil {
		return nil, err
	}
	for _, g := range groups {
		gs := GroupSample{Name: g.Name, Items: g.N}
		if err := tx.SelectContext(ctx, &gs.Texts, `SELECT `+textCols("i")+` FROM tags t JOIN items i ON i.id = t.item_id
			WHERE t.tag = ? ORDER BY i.seq DESC LIMIT ?`, lim.BodyBytes, g.Name, lim.Sample); err != nil {
			return nil, err
		}
		d.Tags = append(d.Tags, gs)
	}
	// sites: the hosts with most items
	groups = nil
	if err := tx.SelectContext(ctx, &groups, `SELECT `+siteExpr+` AS name, count(*) AS n
		FROM (SELECT substr(canonical_url, instr(canonical_url, '://') + 3) AS rest FROM items WHERE instr(canonical_url, '://') > 0)
		GROUP BY name HAVING name != '' ORDER BY n DESC, name LIMIT ?`, lim.Groups); err != nil {
		return nil, err
	}
	for _, g := range groups {
		gs := GroupSample{Name: g.Name, Items: g.N}
		// a range of the canonical_url index per scheme, not a scan
		if err := tx.SelectContext(ctx, &gs.Texts, `SELECT `+textCols("i")+` FROM items i
			WHERE (i.canonical_url >= ? AND i.canonical_url < ?) OR (i.canonical_url >= ? AND i.canonical_url < ?)
			ORDER BY i.seq DESC LIMIT ?`, lim.BodyBytes,
			"https://"+g.Name+"/", "https://"+g.Name+"0", "http://"+g.Name+"/", "http://"+g.Name+"0", lim.Sample); err != nil {
			return nil, err
		}
		d.Sites = append(d.Sites, gs)
	}
	if err := tx.SelectContext(ctx, &d.Recent, `SELECT `+textCols("i")+` FROM items i ORDER BY i.seq DESC LIMIT ?`, lim.BodyBytes, lim.Background); err != nil {
		return nil, err
	}
	if d.Pinned, err = itemRefs(ctx, tx, `SELECT i.id, i.canonical_url, i.title, i.ingest_status, p.n, '' AS detail
		FROM (SELECT item_id, count(*) AS n, max(id) AS last FROM annotations WHERE pinned = 1 GROUP BY item_id) p
		JOIN items i ON i.id = p.item_id ORDER BY p.last DESC LIMIT ?`, lim.List); err != nil {
		return nil, err
	}
	if d.Cited, err = itemRefs(ctx, tx, `SELECT i.id, i.canonical_url, i.title, i.ingest_status, c.n, '' AS detail
		FROM (SELECT item_id, count(DISTINCT task) AS n, max(id) AS last FROM citations GROUP BY item_id) c
		JOIN items i ON i.id = c.item_id ORDER BY c.n DESC, c.last DESC LIMIT ?`, lim.List); err != nil {
		return nil, err
	}
	if d.Failed, err = itemRefs(ctx, tx, `SELECT id, canonical_url, title, ingest_status, attempts AS n,
		CASE WHEN json_valid(error_json) THEN coalesce(json_extract(error_json, '$.code'), '') ELSE '' END AS detail
		FROM items WHERE ingest_status = 'failed' ORDER BY updated_at DESC, seq DESC LIMIT ?`, lim.List); err != nil {
		return nil, err
	}
	return d, nil
}

func itemRefs(ctx context.Context, tx *sqlx.Tx, q string, args ...any) ([]ItemRef, error) {
	var out []ItemRef
	err := tx.SelectContext(ctx, &out, q, args...)
	for i := range out {
		out[i].Title = strings.Join(strings.Fields(out[i].Title), " ")
	}
	return out, err
}
