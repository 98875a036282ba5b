package store

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/linkledger/linkledger/lib/record"
)

// TestItemImages stores an item's images with its content and reads
// them back: listed in order with their copies' types and sizes, the
// bytes by position; an image whose new fetch failed keeps the copy
// stored before; an image no longer listed goes; an image the Markdown
// does not name is not stored.
func TestItemImages(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	url := "https://example.com/pictures"
	if _, err := s.Save(ctx, item(url), SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	a, b, c := "https://img.example/a.png", "https://img.example/b.jpg", "https://img.example/c.gif"
	index := func(md string, imgs ...record.Image) {
		t.Helper()
		text := "Some text about pictures."
		rec := item(url)
		rec.Text, rec.Checksum, rec.Markdown, rec.Images = &text, "sha256:1", md, imgs
		rec.Chunks = []record.Chunk{{Index: 0, Text: text, Tokens: 5}}
		if _, err := s.Index(ctx, rec, IndexOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	list := func() []record.Image {
		t.Helper()
		rec, err := s.Show(ctx, record.ItemID(url), ShowOptions{Markdown: true})
		if err != nil {
			t.Fatal(err)
		}
		return rec.Images
	}
	md := "Text\n\n![A](" + a + ")\n\n![B](" + b + ")\n"
	index(md,
		record.Image{URL: a, Alt: "A", Caption: "Figure 1", ContentType: "image/png", Data: []byte("png-bytes")},
		record.Image{URL: b, Alt: "B", Error: "too_large"},
		record.Image{URL: c, Alt: "not in the markdown", ContentType: "image/gif", Data: []byte("gif")},
	)
	want := []record.Image{
		{URL: a, Alt: "A", Caption: "Figure 1", ContentType: "image/png", Bytes: 9},
		{URL: b, Alt: "B", Error: "too_large"},
	}
	if diff := cmp.Diff(want, list()); diff != "" {
		t.Fatalf("images (-want +got):\n%s", diff)
	}
	if mt, data, err := s.Image(ctx, record.ItemID(url), 1); err != nil || mt != "image/png" || string(data) != "png-bytes" {
		t.Fatalf("image 1: %q %q %v", mt, data, err)
	}
	if _, _, err := s.Image(ctx, record.ItemID(url), 2); !errors.Is(err, ErrNoImage) {
		t.Fatalf("image 2 has no copy: err %v", err)
	}

	// a new parse: b first now and fetched, a's fetch failed (offline)
	md = "Text\n\n![B](" + b + ")\n\n![A](" + a + ")\n"
	index(md, record.Image{URL: b, Alt: "B", ContentType: "image/jpeg", Data: []byte("jpeg")}, record.Image{URL: a, Alt: "A", Error: "timeout"})
	want = []record.Image{
		{URL: b, Alt: "B", ContentType: "image/jpeg", Bytes: 4},
		{URL: a, Alt: "A", ContentType: "image/png", Bytes: 9},
	}
	if diff := cmp.Diff(want, list()); diff != "" {
		t.Fatalf("after a refetch (-want +got):\n%s", diff)
	}
	if mt, data, err := s.Image(ctx, record.ItemID(url), 2); err != nil || mt != "image/png" || string(data) != "png-bytes" {
		t.Fatalf("image 2 kept its copy: %q %q %v", mt, data, err)
	}

	// content without images: the rows go
	index("Text only\n")
	if got := list(); len(got) != 0 {
		t.Fatalf("images after a parse without them: %+v", got)
	}
	var n int
	s.DB().Get(&n, "SELECT count(*) FROM item_images")
	if n != 0 {
		t.Fatalf("%d rows left", n)
	}
}
