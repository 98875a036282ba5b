// Package dateparser stands in for github.com/markusmobius/go-dateparser
// in linkledger's builds (a replace directive in the top-level go.mod).
//
// linkledger reaches that module only through go-trafilatura →
// go-htmldate, which calls it for htmldate's "extensive" date search. We
// run trafilatura in its fast date mode (lib/parse/article.go:
// HtmlDateMode Fast, so htmldate's SkipExtensiveSearch is set), where the
// parser is never called. Yet linking the real module costs every ll-fetch,
// ll-parse and ll-index process about 240 ms and 80 MB at start: its
// package init builds the date vocabulary of some 200 locales.
//
// This package declares only the names go-htmldate compiles against.
// Parse finds no date, which is what htmldate already copes with when the
// real parser finds none. docs/parse.md explains the trade.
package dateparser

import (
	"errors"
	"time"
)

// ParserType names one of the real module's parsing strategies.
type ParserType uint8

// The strategies go-htmldate names (the values are unused here).
const (
	Timestamp ParserType = iota
	RelativeTime
	CustomFormat
	AbsoluteTime
	NoSpacesTime
)

// PreferredDateSource says how the real module fills a partial date.
type PreferredDateSource uint8

// Values of PreferredDateSource.
const (
	CurrentPeriod PreferredDateSource = iota
	Past
	Future
)

// PreferredDayOfMonth says which day the real module picks for a date
// with a month but no day.
type PreferredDayOfMonth uint8

// Values of PreferredDayOfMonth.
const (
	Current PreferredDayOfMonth = iota
	First
	Last
)

// Configuration carries the settings go-htmldate sets.
type Configuration struct {
	Languages           []string
	Locales             []string
	CurrentTime         time.Time
	PreferredDateSource PreferredDateSource
	PreferredDayOfMonth PreferredDayOfMonth
	StrictParsing       bool
}

// Date is a parse result.
type Date struct {
	Time time.Time
}

// Parser is the entry point go-htmldate holds.
type Parser struct {
	ParserTypes []ParserType
}

// ErrDisabled is what Parse returns: free-text date search is not built in.
var ErrDisabled = errors.New("dateparser: free-text date search is not built into linkledger")

// Parse finds no date.
func (p *Parser) Parse(cfg *Configuration, s string, formats ...string) (Date, error) {
	return Date{}, ErrDisabled
}
