package ledger

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/linkledger/linkledger/lib/record"
	"github.com/linkledger/linkledger/lib/store"
)

func openTest(t *testing.T) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "ll.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// save stores url as ll-save would and returns its id.
func save(t *testing.T, st *store.Store, url string) string {
	t.Helper()
	res, err := st.Save(context.Background(), &record.Record{
		URL: url, CanonicalURL: url, OriginalURL: url, ID: record.ItemID(url), SourceType: record.SourceArticle,
	}, store.SaveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return res.ID
}

func TestResolveItem(t *testing.T) {
	ctx := context.Background()
	st := openTest(t)
	id := save(t, st, "https://example.com/post")
	dir := t.TempDir()
	file := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	fileID := save(t, st, "file://"+file)

	for _, tc := range []struct {
		arg  string
		want string // "" means NoItemError
	}{
		{id, id},
		{"  " + id + " ", id},
		{"https://example.com/post", id},
		{"https://EXAMPLE.com/post?utm_source=x#frag", id},
		{"example.com/post", id},
		{"./notes.txt", fileID},
		{file, fileID},
		{"ll_0000000000000000", ""},
		{"https://example.com/other", ""},
		{"LL_0000000000000000", ""},
		{"not-an-item", ""},
		{"ftp://example.com/x", ""},
		{"", ""},
	} {
		got, err := ResolveItem(ctx, st, tc.arg, ResolveOptions{Cwd: dir})
		if tc.want == "" {
			var ne *NoItemError
			if !errors.As(err, &ne) {
				t.Errorf("ResolveItem(%q) = %q, %v; want a NoItemError", tc.arg, got, err)
				continue
			}
			want := `no item "` + tc.arg + `" in ` + st.Path()
			if ne.Error() != want {
				t.Errorf("ResolveItem(%q) error %q, want %q", tc.arg, ne.Error(), want)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ResolveItem(%q) = %q, %v; want %q", tc.arg, got, err, tc.want)
		}
	}
}

func TestVerbsNameUnknownItems(t *testing.T) {
	ctx := context.Background()
	st := openTest(t)
	id := save(t, st, "https://example.com/post")
	arg := "https://example.com/missing"
	for name, fn := range map[string]func() error{
		"show":       func() error { _, err := Show(ctx, st, arg, ShowOptions{}); return err },
		"archive":    func() error { _, err := Archive(ctx, st, arg, true, WriteOptions{}); return err },
		"unarchive":  func() error { _, err := Archive(ctx, st, arg, false, WriteOptions{}); return err },
		"delete":     func() error { _, err := Delete(ctx, st, arg, WriteOptions{}); return err },
		"unannotate": func() error { _, err := Unannotate(ctx, st, arg, []int64{1}, WriteOptions{}); return err },
	} {
		err := fn()
		var ne *NoItemError
		if !errors.As(err, &ne) || ne.Arg != arg {
			t.Errorf("%s: %v, want NoItemError for %q", name, err, arg)
		}
	}
	// the verbs act on the item a URL names
	rec, err := Archive(ctx, st, "example.com/post", true, WriteOptions{})
	if err != nil || rec.ID != id || rec.ArchivedAt == "" || !rec.Change.Changed {
		t.Fatalf("archive by URL: %+v %v", rec, err)
	}
	rec, err = Archive(ctx, st, id, false, WriteOptions{})
	if err != nil || rec.ArchivedAt != "" || !rec.Change.Changed {
		t.Fatalf("unarchive: %+v %v", rec, err)
	}
	_, err = Unannotate(ctx, st, id, []int64{7}, WriteOptions{})
	var nae *NoAnnotationError
	if !errors.As(err, &nae) || !errors.Is(err, store.ErrNoAnnotation) || nae.Hint() != "list the item's annotations with: linkledger show "+id {
		t.Errorf("unannotate unknown annotation: %v", err)
	}
	if _, err := Delete(ctx, st, id, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := Show(ctx, st, id, ShowOptions{}); !errors.As(err, new(*NoItemError)) {
		t.Errorf("show after delete: %v", err)
	}
}
