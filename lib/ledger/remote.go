package ledger

import (
	"errors"
	"fmt"

	"github.com/linkledger/linkledger/lib/canon"
	"github.com/linkledger/linkledger/lib/record"
)

// RemoteURL is the one rule for what a remote face may save: the MCP
// server's save tool and the web app's forms (save, capture), whose
// requests come from an agent or a browser, not from the person at this
// machine's shell. It takes web links only, as canon.WebInput reads them:
// an http or https URL, or a host with an optional path ("example.com/page",
// made https://example.com/page, as linkledger save takes it). It never
// looks at the file system, so its answer says nothing about which files
// exist. A local file form (a path, file:, a name with a file extension)
// is a file_not_allowed *InputError, another scheme unsupported_scheme, a
// spaced or empty text bad_input, the rest bad_url; each wraps the canon
// error (errors.Is with canon.ErrLocalFile and the others). Local faces
// (linkledger save, ll-save) resolve with Canonicalize, which also takes
// local files the person names.
func RemoteURL(raw string) (string, error) {
	u, err := canon.WebInput(raw)
	switch {
	case err == nil:
		return u, nil
	case errors.Is(err, canon.ErrLocalFile):
		return "", &InputError{Code: record.CodeFileNotAllowed, Err: err,
			Message: "local files are not allowed here (nothing was looked at): save takes an http or https URL"}
	case errors.Is(err, canon.ErrUnsupportedScheme):
		return "", &InputError{Code: record.CodeUnsupported, Err: err, Message: fmt.Sprintf("%v: save takes an http or https URL", err)}
	case errors.Is(err, canon.ErrNotInput):
		return "", &InputError{Code: record.CodeBadInput, Err: err, Message: "not a URL: save takes an http or https URL, e.g. https://example.com/post"}
	}
	return "", &InputError{Code: record.CodeBadURL, Err: err, Message: "not an http or https URL, e.g. https://example.com/post"}
}
