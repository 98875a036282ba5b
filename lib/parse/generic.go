package parse

import (
	"errors"

	"github.com/linkledger/linkledger/lib/record"
)

// Article returns the adapter for HTML articles: main-text extraction plus
// page metadata (OpenGraph, JSON-LD, meta tags).
func Article() Adapter { return articleAdapter{} }

// Markdown returns the adapter for text/markdown bodies.
func Markdown() Adapter { return markdownAdapter{} }

// PlainText returns the adapter for text/plain bodies.
func PlainText() Adapter { return plainAdapter{} }

// VisibleText returns the last-resort HTML adapter: all visible text of the
// page with scripts, styles and navigation removed.
func VisibleText() Adapter { return visibleAdapter{} }

var errTODO = errors.New("not implemented")

type articleAdapter struct{}

func (articleAdapter) Name() string                              { return "article" }
func (articleAdapter) Match(rec *record.Record) bool             { return false }
func (articleAdapter) Parse(rec *record.Record) (*Result, error) { return nil, errTODO }

type markdownAdapter struct{}

func (markdownAdapter) Name() string                              { return "markdown" }
func (markdownAdapter) Match(rec *record.Record) bool             { return false }
func (markdownAdapter) Parse(rec *record.Record) (*Result, error) { return nil, errTODO }

type plainAdapter struct{}

func (plainAdapter) Name() string                              { return "plain-text" }
func (plainAdapter) Match(rec *record.Record) bool             { return false }
func (plainAdapter) Parse(rec *record.Record) (*Result, error) { return nil, errTODO }

type visibleAdapter struct{}

func (visibleAdapter) Name() string                              { return "visible-text" }
func (visibleAdapter) Match(rec *record.Record) bool             { return false }
func (visibleAdapter) Parse(rec *record.Record) (*Result, error) { return nil, errTODO }
