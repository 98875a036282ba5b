package importer

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
	_ "github.com/mattn/go-sqlite3" // the "sqlite3" driver
)

// PlacesBookmark is one bookmark of a Firefox profile's places.sqlite.
type PlacesBookmark struct {
	URL     string
	Title   string
	Folders []string // folder titles from the top down, the browser's own root folders left out
	Tags    []string // Firefox tags
	Added   int64    // dateAdded, microseconds since the Unix epoch
}

// Firefox's own root folders, by guid: not the user's folders.
var placesRoots = map[string]bool{
	"root________": true, "menu________": true, "toolbar_____": true,
	"unfiled_____": true, "mobile______": true, "tags________": true,
}

// PlacesLimits bound the read of a places.sqlite, which may be hostile
// (a recursive view named moz_bookmarks hung the import and wrote 13.9 GB
// of temp in 30 s).
type PlacesLimits struct {
	// Timeout ends the read (the query is interrupted); 0 is 60 s.
	Timeout time.Duration
	// MaxRows caps the rows of moz_bookmarks read; 0 is 2,000,000. A
	// database with more is refused, not read in part.
	MaxRows int
}

// ErrPlacesLimit is wrapped by the error of a read that hit a limit.
var ErrPlacesLimit = errors.New("places.sqlite over a limit")

// ReadPlaces reads the bookmarks of a Firefox places.sqlite at path. path
// must be a private copy (with its -wal beside it, when the browser had
// one): the browser holds a lock on its own file and may be writing it.
// The copy is opened read-only; moz_bookmarks and moz_places must be
// tables (a view, a virtual table or anything else is refused), and the
// read is bounded by lim.
func ReadPlaces(ctx context.Context, path string, lim PlacesLimits) ([]PlacesBookmark, error) {
	if lim.Timeout <= 0 {
		lim.Timeout = 60 * time.Second
	}
	if lim.MaxRows <= 0 {
		lim.MaxRows = 2_000_000
	}
	ctx, cancel := context.WithTimeout(ctx, lim.Timeout)
	defer cancel()
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() + "?mode=ro&_query_only=1"
	db, err := sqlx.Open("sqlite3", dsn)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, t := range []string{"moz_bookmarks", "moz_places"} {
		var kind []struct {
			Type string         `db:"type"`
			SQL  sql.NullString `db:"sql"`
		}
		if err := db.SelectContext(ctx, &kind, `SELECT type, sql FROM sqlite_master WHERE name = ? COLLATE NOCASE`, t); err != nil {
			return nil, placesErr(ctx, lim, err)
		}
		switch {
		case len(kind) == 0:
			return nil, fmt.Errorf("not a Firefox places database: no table %s", t)
		case kind[0].Type != "table" || strings.HasPrefix(strings.ToUpper(strings.TrimSpace(kind[0].SQL.String)), "CREATE VIRTUAL"):
			what := "a " + kind[0].Type
			if kind[0].Type == "table" {
				what = "a virtual table"
			}
			return nil, fmt.Errorf("not a Firefox places database: %s is %s, not a table (refused: a view can run any query)", t, what)
		}
	}
	type row struct {
		ID     int64   `db:"id"`
		Parent int64   `db:"parent"`
		Type   int     `db:"type"`
		Title  *string `db:"title"`
		Added  *int64  `db:"added"`
		GUID   string  `db:"guid"`
		Place  *int64  `db:"fk"`
		URL    *string `db:"url"`
	}
	var rows []row
	err = db.SelectContext(ctx, &rows, `SELECT b.id, b.parent, b.type, b.title, b.dateAdded AS added, b.guid, b.fk, p.url
		FROM moz_bookmarks b LEFT JOIN moz_places p ON p.id = b.fk ORDER BY b.parent, b.position, b.id LIMIT ?`, lim.MaxRows+1)
	if err != nil {
		if e := placesErr(ctx, lim, err); e != err {
			return nil, e
		}
		return nil, fmt.Errorf("not a Firefox places database: %w", err)
	}
	if len(rows) > lim.MaxRows {
		return nil, fmt.Errorf("more than %d bookmarks in moz_bookmarks: refused (%w)", lim.MaxRows, ErrPlacesLimit)
	}
	byID := map[int64]row{}
	tagsRoot := int64(-1)
	for _, r := range rows {
		byID[r.ID] = r
		if r.GUID == "tags________" {
			tagsRoot = r.ID
		}
	}
	str := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	tags := map[int64][]string{} // place id -> tags
	var out []PlacesBookmark
	for _, r := range rows {
		if r.Type != 1 || r.Place == nil {
			continue
		}
		parent, ok := byID[r.Parent]
		if ok && parent.Parent == tagsRoot && tagsRoot >= 0 {
			tags[*r.Place] = append(tags[*r.Place], str(parent.Title))
		}
	}
	for _, r := range rows {
		if r.Type != 1 || r.Place == nil {
			continue
		}
		var folders []string
		under := false
		for p, seen := r.Parent, 0; seen < 64; seen++ {
			f, ok := byID[p]
			if !ok {
				break
			}
			if f.ID == tagsRoot {
				under = true
				break
			}
			if !placesRoots[f.GUID] {
				folders = append([]string{str(f.Title)}, folders...)
			}
			p = f.Parent
			if f.Parent == f.ID {
				break
			}
		}
		if under {
			continue // a tag entry, not a bookmark
		}
		b := PlacesBookmark{URL: str(r.URL), Title: str(r.Title), Folders: folders, Tags: tags[*r.Place]}
		if r.Added != nil {
			b.Added = *r.Added
		}
		out = append(out, b)
	}
	return out, nil
}

// placesErr says that a read ran out of time, in the user's terms, or
// returns err as it is.
func placesErr(ctx context.Context, lim PlacesLimits, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("reading it took over %s: refused (%w)", lim.Timeout, ErrPlacesLimit)
	}
	return err
}
