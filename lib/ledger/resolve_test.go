package ledger

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/linkledger/linkledger/lib/ledger/internal/store"
	"github.com/linkledger/linkledger/lib/ledger/spec"
	"github.com/linkledger/linkledger/lib/record"
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
	}, spec.SaveOptions{})
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
		got, err := wrap(st).ResolveItem(ctx, tc.arg, ResolveOptions{Cwd: dir})
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

func TestIsItemID(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{"ll_0123456789abcdef", true},
		{"ll_ffffffffffffffff", true},
		{"ll_0123456789ABCDEF", false}, // lower-case hex only
		{"ll_0123456789abcdeg", false},
		{"ll_0123456789abcde", false},   // 15 digits
		{"ll_0123456789abcdef0", false}, // 17 digits
		{"LL_0123456789abcdef", false},
		{"xl_0123456789abcdef", false},
		{"ll-0123456789abcdef", false},
		{" ll_0123456789abcdef", false},
		{"ll_0123456789abcd\u00e9", false}, // a multi-byte rune, 19 bytes
		{"", false},
		{"https://example.com/", false},
	} {
		if got := IsItemID(tc.in); got != tc.want {
			t.Errorf("IsItemID(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}
