package importer

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/linkledger/linkledger/lib/ndjson"
	"github.com/linkledger/linkledger/lib/record"
)

// linkledger's own NDJSON export (linkledger export): each record is passed
// on whole, for ll-save to restore the item as it was (ids, annotations,
// history). A line that is not an export record is a bad row.
var linkledgerExport = register(&Format{
	Name: "linkledger", Tool: "linkledger",
	Doc: "linkledger's own export (linkledger export): items restored as they were",
	Read: func(data []byte, s *Sink) error {
		rd := ndjson.NewReader(bytes.NewReader(data))
		for {
			rec, line, err := rd.Next()
			if errors.Is(err, io.EOF) {
				return nil
			}
			var le *ndjson.LineError
			if errors.As(err, &le) {
				if err := s.Bad(le.Line, le.Err.Error()); err != nil {
					return err
				}
				continue
			}
			if err != nil {
				return err
			}
			if !rec.IsExport() || rec.ID == "" {
				if err := s.Bad(line, fmt.Sprintf("not a linkledger export record (no id or %s)", record.ExportItemKey)); err != nil {
					return err
				}
				continue
			}
			if err := s.Record(rec); err != nil {
				return err
			}
		}
	},
})
