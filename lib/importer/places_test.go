package importer

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"testing"
	"time"
)

func placesFile(t *testing.T, n int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "places.sqlite")
	db, err := sql.Open("sqlite3", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TABLE moz_places (id INTEGER PRIMARY KEY, url TEXT, title TEXT);
		CREATE TABLE moz_bookmarks (id INTEGER PRIMARY KEY, type INTEGER, fk INTEGER, parent INTEGER, position INTEGER, title TEXT, dateAdded INTEGER, lastModified INTEGER, guid TEXT);
		INSERT INTO moz_bookmarks VALUES (1, 2, NULL, 0, 0, '', 0, 0, 'root________')`); err != nil {
		t.Fatal(err)
	}
	for i := 2; i < n+2; i++ {
		if _, err := db.Exec(`INSERT INTO moz_places VALUES (?, 'https://example.org/' || ?, 'T'); INSERT INTO moz_bookmarks VALUES (?, 1, ?, 1, ?, 'T', 0, 0, 'g' || ?)`, i, i, i, i, i, i); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

// TestReadPlacesLimits: a places.sqlite over the row limit is refused
// whole, and a read past its deadline is refused, both saying which limit.
func TestReadPlacesLimits(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := placesFile(t, 3)
	got, err := ReadPlaces(ctx, path, PlacesLimits{MaxRows: 4})
	if err != nil || len(got) != 3 {
		t.Fatalf("ReadPlaces under the limits = %d bookmarks, %v; want 3, nil", len(got), err)
	}
	_, err = ReadPlaces(ctx, path, PlacesLimits{MaxRows: 3})
	if !errors.Is(err, ErrPlacesLimit) || err.Error() != "more than 3 bookmarks in moz_bookmarks: refused (places.sqlite over a limit)" {
		t.Errorf("ReadPlaces over the row limit: %v", err)
	}
	_, err = ReadPlaces(ctx, path, PlacesLimits{Timeout: time.Nanosecond})
	if !errors.Is(err, ErrPlacesLimit) || err.Error() != "reading it took over 1ns: refused (places.sqlite over a limit)" {
		t.Errorf("ReadPlaces past its deadline: %v", err)
	}
}
