package dateparser

import (
	"errors"
	"testing"
)

func TestParseFindsNoDate(t *testing.T) {
	p := &Parser{ParserTypes: []ParserType{CustomFormat, AbsoluteTime}}
	d, err := p.Parse(&Configuration{PreferredDateSource: Past, StrictParsing: true}, "3 March 2021")
	if !errors.Is(err, ErrDisabled) || !d.Time.IsZero() {
		t.Fatalf("Parse = %v, %v; want zero date and ErrDisabled", d.Time, err)
	}
}
