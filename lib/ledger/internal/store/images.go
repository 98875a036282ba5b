package store

// The images of an item's structured document (migration 0018,
// docs/fetch.md "Images"): what ll-index fetched for the images its
// record lists, kept in the ledger so the reader and the vault export
// show them offline and never ask a third party for them.

import (
	"context"
	"database/sql"
	"errors"
	"strings"

	"github.com/jmoiron/sqlx"

	"github.com/linkledger/linkledger/lib/record"
)

// maxImageURL bounds an image address kept in the ledger.
const maxImageURL = 4096

// storeImages replaces the item's image rows with imgs, the images of
// the content being stored, at positions 1, 2, ... An image that came
// without a copy (its fetch failed, or images were not fetched) keeps the
// copy stored before under the same address; rows of addresses no longer
// listed go.
func storeImages(ctx context.Context, tx dbtx, itemID, md string, imgs []record.Image) error {
	var keep []record.Image
	seen := map[string]bool{}
	for _, im := range imgs {
		if len(keep) == record.MaxListedImages {
			break
		}
		// a record made by hand lists only images of its own Markdown
		if im.URL == "" || len(im.URL) > maxImageURL || seen[im.URL] || !strings.Contains(md, "("+im.URL) {
			continue
		}
		seen[im.URL] = true
		keep = append(keep, im)
	}
	var had []string
	if err := tx.SelectContext(ctx, &had, `SELECT url FROM item_images WHERE item_id = ?`, itemID); err != nil {
		return err
	}
	for _, u := range had {
		if !seen[u] {
			if _, err := tx.ExecContext(ctx, `DELETE FROM item_images WHERE item_id = ? AND url = ?`, itemID, u); err != nil {
				return err
			}
		}
	}
	for i, im := range keep {
		var err error
		if im.Data != nil && im.ContentType != "" {
			_, err = tx.ExecContext(ctx, `INSERT INTO item_images(item_id, url, n, alt, caption, content_type, data, error)
				VALUES (?, ?, ?, ?, ?, ?, ?, NULL)
				ON CONFLICT(item_id, url) DO UPDATE SET n = excluded.n, alt = excluded.alt, caption = excluded.caption,
				content_type = excluded.content_type, data = excluded.data, error = NULL`,
				itemID, im.URL, i+1, im.Alt, im.Caption, im.ContentType, im.Data)
		} else {
			// no new copy: an old one stays, else the reason is kept
			_, err = tx.ExecContext(ctx, `INSERT INTO item_images(item_id, url, n, alt, caption, content_type, data, error)
				VALUES (?, ?, ?, ?, ?, NULL, NULL, ?)
				ON CONFLICT(item_id, url) DO UPDATE SET n = excluded.n, alt = excluded.alt, caption = excluded.caption,
				error = CASE WHEN item_images.data IS NULL THEN excluded.error ELSE NULL END`,
				itemID, im.URL, i+1, im.Alt, im.Caption, nullIfEmpty(im.Error))
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// imageRow is one row of item_images without its bytes.
type imageRow struct {
	URL         string         `db:"url"`
	N           int            `db:"n"`
	Alt         string         `db:"alt"`
	Caption     string         `db:"caption"`
	ContentType sql.NullString `db:"content_type"`
	Bytes       sql.NullInt64  `db:"bytes"`
	Error       sql.NullString `db:"error"`
}

// itemImages lists the item's images in order, without their bytes: a
// stored one has ContentType and Bytes, another its Error.
func (s *Store) itemImages(ctx context.Context, id string) ([]record.Image, error) {
	var rows []imageRow
	if err := s.db.SelectContext(ctx, &rows, `SELECT url, n, alt, caption, content_type, length(data) AS bytes, error
		FROM item_images WHERE item_id = ? ORDER BY n`, id); err != nil {
		return nil, err
	}
	out := make([]record.Image, 0, len(rows))
	for _, r := range rows {
		im := record.Image{URL: r.URL, Alt: r.Alt, Caption: r.Caption, Error: r.Error.String}
		if r.ContentType.Valid && r.Bytes.Valid {
			im.ContentType, im.Bytes = r.ContentType.String, r.Bytes.Int64
		}
		out = append(out, im)
	}
	return out, nil
}

// Image returns the stored copy of the item's image at position n (1, 2,
// ...): its media type and bytes.
func (s *Store) Image(ctx context.Context, id string, n int) (contentType string, data []byte, err error) {
	var row struct {
		ContentType sql.NullString `db:"content_type"`
		Data        []byte         `db:"data"`
	}
	err = s.db.GetContext(ctx, &row, `SELECT content_type, data FROM item_images WHERE item_id = ? AND n = ? AND data IS NOT NULL`, id, n)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && !row.ContentType.Valid) {
		return "", nil, ErrNoImage
	}
	if err != nil {
		return "", nil, err
	}
	return row.ContentType.String, row.Data, nil
}

// ImagesToFetch lists the item's images that have no stored copy, in
// order, and what its stored copies already hold: their count and bytes
// (the caps of an item count them).
func (s *Store) ImagesToFetch(ctx context.Context, id string) (missing []record.Image, stored int, bytes int64, err error) {
	imgs, err := s.itemImages(ctx, id)
	if err != nil {
		return nil, 0, 0, err
	}
	for _, im := range imgs {
		if im.ContentType != "" {
			stored++
			bytes += im.Bytes
			continue
		}
		missing = append(missing, im)
	}
	return missing, stored, bytes, nil
}

// PutImages stores what was fetched for the item's images: a copy
// (ContentType and Data) or the reason there is none (Error), for each
// image still listed under its address and still without a copy. An
// item re-indexed in between keeps what its new rows say.
func (s *Store) PutImages(ctx context.Context, id string, imgs []record.Image) error {
	return s.tx(ctx, func(tx *sqlx.Tx) error {
		for _, im := range imgs {
			var err error
			if im.Data != nil && im.ContentType != "" {
				_, err = tx.ExecContext(ctx, `UPDATE item_images SET content_type = ?, data = ?, error = NULL
					WHERE item_id = ? AND url = ? AND data IS NULL`, im.ContentType, im.Data, id, im.URL)
			} else {
				_, err = tx.ExecContext(ctx, `UPDATE item_images SET error = ? WHERE item_id = ? AND url = ? AND data IS NULL`,
					nullIfEmpty(im.Error), id, im.URL)
			}
			if err != nil {
				return err
			}
		}
		return nil
	})
}
