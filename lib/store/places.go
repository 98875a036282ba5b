package store

import (
	"context"
	"fmt"
	"net/url"

	"github.com/jmoiron/sqlx"
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

// ReadPlaces reads the bookmarks of a Firefox places.sqlite at path. path
// must be a private copy (with its -wal beside it, when the browser had
// one): the browser holds a lock on its own file and may be writing it.
// The copy is only read, but opening it may fold its -wal in.
func ReadPlaces(ctx context.Context, path string) ([]PlacesBookmark, error) {
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() + "?_query_only=1"
	db, err := sqlx.Open("sqlite3", dsn)
	if err != nil {
		return nil, err
	}
	defer db.Close()
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
		FROM moz_bookmarks b LEFT JOIN moz_places p ON p.id = b.fk ORDER BY b.parent, b.position, b.id`)
	if err != nil {
		return nil, fmt.Errorf("not a Firefox places database: %w", err)
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
