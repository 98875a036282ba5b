package fetch

import (
	"bufio"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/andybalholm/brotli"

	"github.com/linkledger/linkledger/lib/record"
)

// maxEncodings bounds how many Content-Encoding layers are undone: one is
// usual, two happen (gzip of a br body), more is an attack on our time.
const maxEncodings = 3

// errEncoding marks a Content-Encoding we cannot undo (unknown, or too many
// layers): the body is refused rather than carried as sent.
var errEncoding = errors.New("content encoding")

// contentEncodings lists the codings of Content-Encoding header values in
// the order they were applied, lower-cased, identity dropped.
func contentEncodings(values []string) []string {
	var encs []string
	for _, v := range values {
		for _, e := range strings.Split(v, ",") {
			e = strings.ToLower(strings.TrimSpace(e))
			if e == "" || e == "identity" {
				continue
			}
			encs = append(encs, e)
		}
	}
	return encs
}

// decoding undoes the codings encs (in the order they were applied) over
// r, whether or not we asked for them: gzip (x-gzip), br, and deflate
// (zlib-wrapped as the standard says, or raw as some servers send it).
// Any other coding fails with errEncoding. An empty body is empty under
// any label.
func decoding(r io.Reader, encs []string) (io.Reader, error) {
	if len(encs) > maxEncodings {
		return nil, fmt.Errorf("%w: %d layers (%s), at most %d are decoded", errEncoding, len(encs), strings.Join(encs, ", "), maxEncodings)
	}
	if len(encs) == 0 {
		return r, nil
	}
	in := bufio.NewReader(r)
	if _, err := in.Peek(1); errors.Is(err, io.EOF) {
		return in, nil // an empty body has nothing to decode, whatever its label
	}
	r = in
	for i := len(encs) - 1; i >= 0; i-- {
		switch encs[i] {
		case "gzip", "x-gzip":
			zr, err := gzip.NewReader(r)
			if err != nil {
				return nil, fmt.Errorf("gzip: %w", err)
			}
			r = zr
		case "br":
			r = brotli.NewReader(r)
		case "deflate":
			br := bufio.NewReader(r)
			head, _ := br.Peek(2)
			if len(head) == 2 && head[0]&0x0f == 8 && (uint16(head[0])<<8|uint16(head[1]))%31 == 0 {
				zr, err := zlib.NewReader(br)
				if err != nil {
					return nil, fmt.Errorf("deflate: %w", err)
				}
				r = zr
			} else {
				r = flate.NewReader(br)
			}
		default:
			return nil, fmt.Errorf("%w %q is not supported (gzip, br and deflate are)", errEncoding, encs[i])
		}
	}
	return r, nil
}

// wireReader passes reads through and keeps the first error other than
// io.EOF that the connection itself returned.
type wireReader struct {
	r   io.Reader
	err error
}

func (w *wireReader) Read(p []byte) (int, error) {
	n, err := w.r.Read(p)
	if err != nil && err != io.EOF && w.err == nil {
		w.err = err
	}
	return n, err
}

// decodeError classifies a failure while reading a body through its
// decoders: over the cap is too_large; a failure of the connection (or the
// deadline) is classified as before (connection, timeout); anything else
// came from a decoder given bytes that are not what Content-Encoding says,
// or from a coding we do not know, and is bad_encoding, not retried: the
// server sent the whole body and will send the same bytes again.
func decodeError(ctx context.Context, err error, wire *wireReader, encs []string, o Options) *record.Error {
	switch {
	case errors.Is(err, ErrTooLarge):
		return fail(record.CodeTooLarge, false, "%v", err)
	case wire.err != nil:
		return readError(ctx, wire.err, o)
	case ctx.Err() != nil:
		return readError(ctx, err, o)
	case errors.Is(err, errEncoding):
		return fail(record.CodeBadEncoding, false, "%v", err)
	}
	return fail(record.CodeBadEncoding, false, "body does not decode as Content-Encoding %s: %v", strings.Join(encs, ", "), err)
}
