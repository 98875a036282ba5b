package ledger

import (
	"context"
	"errors"
	"testing"

	"github.com/linkledger/linkledger/lib/ledger/spec"
)

func TestVerbsNameUnknownItems(t *testing.T) {
	ctx := context.Background()
	st := openTest(t)
	id := save(t, st, "https://example.com/post")
	arg := "https://example.com/missing"
	for name, fn := range map[string]func() error{
		"show":       func() error { _, err := wrap(st).Show(ctx, arg, ShowOptions{}); return err },
		"archive":    func() error { _, err := wrap(st).Archive(ctx, arg, true, WriteOptions{}); return err },
		"unarchive":  func() error { _, err := wrap(st).Archive(ctx, arg, false, WriteOptions{}); return err },
		"delete":     func() error { _, err := wrap(st).Delete(ctx, arg, WriteOptions{}); return err },
		"unannotate": func() error { _, err := wrap(st).Unannotate(ctx, arg, []int64{1}, WriteOptions{}); return err },
	} {
		err := fn()
		var ne *NoItemError
		if !errors.As(err, &ne) || ne.Arg != arg {
			t.Errorf("%s: %v, want NoItemError for %q", name, err, arg)
		}
	}
	// the verbs act on the item a URL names
	rec, err := wrap(st).Archive(ctx, "example.com/post", true, WriteOptions{})
	if err != nil || rec.ID != id || rec.ArchivedAt == "" || !rec.Change.Changed {
		t.Fatalf("archive by URL: %+v %v", rec, err)
	}
	rec, err = wrap(st).Archive(ctx, id, false, WriteOptions{})
	if err != nil || rec.ArchivedAt != "" || !rec.Change.Changed {
		t.Fatalf("unarchive: %+v %v", rec, err)
	}
	_, err = wrap(st).Unannotate(ctx, id, []int64{7}, WriteOptions{})
	var nae *NoAnnotationError
	if !errors.As(err, &nae) || !errors.Is(err, spec.ErrNoAnnotation) || nae.Hint() != "list the item's annotations with: linkledger show "+id {
		t.Errorf("unannotate unknown annotation: %v", err)
	}
	if _, err := wrap(st).Delete(ctx, id, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := wrap(st).Show(ctx, id, ShowOptions{}); !errors.As(err, new(*NoItemError)) {
		t.Errorf("show after delete: %v", err)
	}
}
