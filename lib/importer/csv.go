package importer

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
)

// csvRow is one data row of a CSV export, read by header name.
type csvRow struct {
	cols   map[string]int
	fields []string
	Line   int
}

// Get returns the field of column name ("" when the column or the field is
// missing).
func (r csvRow) Get(name string) string {
	i, ok := r.cols[name]
	if !ok || i >= len(r.fields) {
		return ""
	}
	return r.fields[i]
}

// eachCSV reads a CSV file with a header row and calls fn for every data
// row. need are the columns without which the file is not usable. A row
// the CSV reader cannot read (a quote left open by a truncated file) is
// reported bad and reading goes on.
func eachCSV(data []byte, s *Sink, need []string, fn func(r csvRow) error) error {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	cr := csv.NewReader(bytes.NewReader(data))
	cr.FieldsPerRecord = -1
	cr.LazyQuotes = false
	header, err := cr.Read()
	if err != nil {
		return fmt.Errorf("no header row: %v", err)
	}
	cols := map[string]int{}
	for i, h := range header {
		if _, dup := cols[normCol(h)]; !dup {
			cols[normCol(h)] = i
		}
	}
	for _, n := range need {
		if _, ok := cols[n]; !ok {
			return fmt.Errorf("no %q column in the header row", n)
		}
	}
	for {
		fields, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			if err := s.Bad(pe.StartLine, "unreadable CSV row: "+pe.Err.Error()); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return err
		}
		line, _ := cr.FieldPos(0)
		if len(fields) == 1 && fields[0] == "" {
			continue
		}
		if err := fn(csvRow{cols: cols, fields: fields, Line: line}); err != nil {
			return err
		}
	}
}
