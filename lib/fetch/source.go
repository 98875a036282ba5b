package fetch

import (
	"context"
	"net/http"

	"github.com/linkledger/linkledger/lib/record"
)

// SourceFunc fetches a record of one source type (youtube, x) through that
// source's own endpoints instead of a plain GET of its URL. It returns the
// body to carry in the record (for example a JSON bundle of the player
// response and transcript), its content type, and which upstream source
// answered. A typed failure is returned as *record.Error.
type SourceFunc func(ctx context.Context, hc *http.Client, rec *record.Record) (body []byte, contentType, source string, err error)
