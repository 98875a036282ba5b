package store

import (
	"bytes"
	"context"
	"database/sql"
	"slices"
	"strings"

	"github.com/jmoiron/sqlx"

	"github.com/linkledger/linkledger/lib/record"
)

// OverviewLimits bound what OverviewData reads, whatever the ledger's size.
type OverviewLimits struct {
	Groups     int // most used tags, and most saved sites, read
	Sample     int // items of each group whose text is read: the first by id, a hash (a uniform, deterministic sample)
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

// GroupSample is a tag or site, its item count and a sample of its items' text.
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

// OverviewData reads what lib/ledger's overview shows, bounded by lim,
// in one read transaction.
func (s *Store) OverviewData(ctx context.Context, lim OverviewLimits) (*OverviewData, error) {
	tx, err := s.db.BeginTxx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	d := &OverviewData{ByType: map[string]int{}, ByState: map[string]int{}}
	// each count on its own covering index, not a scan of the table
	for _, c := range []struct {
		q string
		m map[string]int
	}{
		{`SELECT source_type AS k, count(*) AS n FROM items GROUP BY source_type`, d.ByType},
		{`SELECT ingest_status AS k, count(*) AS n FROM items GROUP BY ingest_status`, d.ByState},
	} {
		var rows []struct {
			K string `db:"k"`
			N int    `db:"n"`
		}
		if err := tx.SelectContext(ctx, &rows, c.q); err != nil {
			return nil, err
		}
		for _, r := range rows {
			c.m[r.K] = r.N
		}
	}
	for _, n := range d.ByType {
		d.Items += n
	}
	if d.Items == 0 {
		return d, nil
	}
	if err := tx.GetContext(ctx, &d.Archived, `SELECT count(*) FROM items WHERE archived_at IS NOT NULL`); err != nil {
		return nil, err
	}
	var span struct {
		Oldest string `db:"oldest"`
		Newest string `db:"newest"`
	}
	if err := tx.GetContext(ctx, &span, `SELECT (SELECT min(saved_at) FROM items) AS oldest, (SELECT max(saved_at) FROM items) AS newest`); err != nil {
		return nil, err
	}
	d.Oldest, d.Newest = span.Oldest, span.Newest
	if err := tx.GetContext(ctx, &d.Pending, `SELECT count(*) FROM items WHERE `+pendingCond, DefaultMaxAttempts, record.FormatTime(s.Now())); err != nil {
		return nil, err
	}
	// texts reads the text of the items that sample (a query of seqs)
	// selects: picked first, so that a sort to pick them never reads the
	// text of the items it leaves out
	texts := func(dst *[]ItemText, sample string, args ...any) error {
		return tx.SelectContext(ctx, dst, `SELECT i.seq, i.title,
			coalesce((SELECT group_concat(text, ' ') FROM (SELECT text FROM annotations a WHERE a.item_id = i.id AND a.type = 'highlight' ORDER BY a.id LIMIT 5)), '') AS highlights,
			coalesce((SELECT substr(text, 1, ?) FROM content_chunks c WHERE c.item_id = i.id AND c.chunk_index = 0), '') AS body
			FROM items i WHERE i.seq IN (`+sample+`) ORDER BY i.id`, append([]any{lim.BodyBytes}, args...)...)
	}
	// tags: the most used, each with a sample of its items
	var groups []groupCount
	if err := tx.SelectContext(ctx, &groups, `SELECT tag AS name, count(*) AS n FROM tags GROUP BY tag ORDER BY n DESC, tag LIMIT ?`, lim.Groups); err != nil {
		return nil, err
	}
	for _, g := range groups {
		gs := GroupSample{Name: g.Name, Items: g.N}
		if err := texts(&gs.Texts, `SELECT i.seq FROM tags t JOIN items i ON i.id = t.item_id
			WHERE t.tag = ? ORDER BY t.item_id LIMIT ?`, g.Name, lim.Sample); err != nil {
			return nil, err
		}
		d.Tags = append(d.Tags, gs)
	}
	// sites: the hosts with most items, counted in a map over the
	// canonical_url index (a GROUP BY on the host would sort them all)
	if groups, err = topSites(ctx, tx, lim.Groups); err != nil {
		return nil, err
	}
	for _, g := range groups {
		gs := GroupSample{Name: g.Name, Items: g.N}
		// a range of the canonical_url index per scheme, not a scan
		if err := texts(&gs.Texts, `SELECT seq FROM items
			WHERE (canonical_url >= ? AND canonical_url < ?) OR (canonical_url >= ? AND canonical_url < ?)
			ORDER BY id LIMIT ?`,
			"https://"+g.Name+"/", "https://"+g.Name+"0", "http://"+g.Name+"/", "http://"+g.Name+"0", lim.Sample); err != nil {
			return nil, err
		}
		d.Sites = append(d.Sites, gs)
	}
	if err := texts(&d.Recent, `SELECT seq FROM items ORDER BY seq DESC LIMIT ?`, lim.Background); err != nil {
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

// topSites counts the items of each site (siteOf their canonical URL)
// and returns the n with most, ties by name.
func topSites(ctx context.Context, tx *sqlx.Tx, n int) ([]groupCount, error) {
	rows, err := tx.QueryContext(ctx, `SELECT canonical_url FROM items ORDER BY canonical_url`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	counts := map[string]int{}
	var u []byte // sql.RawBytes would be reused; the map keeps only hosts
	for rows.Next() {
		if err := rows.Scan(&u); err != nil {
			return nil, err
		}
		if site := siteOf(u); len(site) > 0 {
			counts[string(site)]++
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := make([]groupCount, 0, len(counts))
	for name, c := range counts {
		out = append(out, groupCount{Name: name, N: c})
	}
	slices.SortFunc(out, func(a, b groupCount) int {
		if a.N != b.N {
			return b.N - a.N
		}
		return strings.Compare(a.Name, b.Name)
	})
	return out[:min(n, len(out))], nil
}

// siteOf is the host (and port) of a canonical URL: what is between
// "://" and the next "/"; nil for a URL without one.
func siteOf(u []byte) []byte {
	i := bytes.Index(u, []byte("://"))
	if i < 0 {
		return nil
	}
	rest := u[i+3:]
	if j := bytes.IndexByte(rest, '/'); j >= 0 {
		rest = rest[:j]
	}
	return rest
}

// groupCount is a tag or site and its number of items.
type groupCount struct {
	Name string `db:"name"`
	N    int    `db:"n"`
}

func itemRefs(ctx context.Context, tx *sqlx.Tx, q string, args ...any) ([]ItemRef, error) {
	var out []ItemRef
	err := tx.SelectContext(ctx, &out, q, args...)
	for i := range out {
		out[i].Title = strings.Join(strings.Fields(out[i].Title), " ")
	}
	return out, err
}
