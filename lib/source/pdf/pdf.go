// Package pdf is the ll-parse adapter for PDF documents. It extracts the
// text layer with poppler's pdftotext (default reading order, one form feed
// per page break) and the document metadata with pdfinfo, both run as
// external tools on a temporary copy of the fetched bytes.
//
// Decisions (docs/sources.md): pdftotext's default mode, not -layout or
// -raw, because it is the mode whose output matches the reference dumps of
// the sample set; typographic ligatures are folded to ASCII letters; an
// encrypted file without the right password is a typed "encrypted" error; a
// file whose pages carry no text is indexed with its metadata and the
// no_text_layer reason instead of silently as an empty item.
package pdf

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/linkledger/linkledger/lib/parse"
	"github.com/linkledger/linkledger/lib/record"
)

// AdapterName is recorded as parse.adapter.
const AdapterName = "pdf"

// NoTextLayer is the no_text_reason of a PDF whose pages carry no text
// (scanned images, vector drawings).
const NoTextLayer = "no_text_layer"

// MissingToolMessage is the message of the missing_tool error.
const MissingToolMessage = "pdftotext not found: install poppler-utils (apt-get install poppler-utils, or make setup)"

// Options configures the PDF adapter.
type Options struct {
	// Password is the user password of encrypted PDFs (pdftotext -upw).
	Password string
	// Pdftotext and Pdfinfo are the tool names or paths; "" means
	// "pdftotext" and "pdfinfo" found on PATH.
	Pdftotext string
	Pdfinfo   string
	// Timeout bounds each tool run; 0 means two minutes.
	Timeout time.Duration
	// MaxTextBytes caps what is read of pdftotext's output; past it the
	// tool is stopped and the result marked truncated (0: the default,
	// parse.DefaultMaxTextBytes). A small PDF can expand to hundreds of
	// megabytes of text.
	MaxTextBytes int
}

// Adapter returns the PDF parse adapter.
func Adapter(opts Options) parse.Adapter {
	if opts.Pdftotext == "" {
		opts.Pdftotext = "pdftotext"
	}
	if opts.Pdfinfo == "" {
		opts.Pdfinfo = "pdfinfo"
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 2 * time.Minute
	}
	if opts.MaxTextBytes <= 0 {
		opts.MaxTextBytes = parse.DefaultMaxTextBytes
	}
	return &adapter{opts: opts}
}

type adapter struct{ opts Options }

func (a *adapter) Name() string { return AdapterName }

// Match accepts records whose binary body is a PDF, by content type or by
// the %PDF- magic bytes (servers often send application/octet-stream).
func (a *adapter) Match(rec *record.Record) bool {
	if rec.BodyBase64 == nil || *rec.BodyBase64 == "" {
		return false
	}
	if rec.Fetch != nil {
		ct := strings.ToLower(rec.Fetch.ContentType)
		if strings.HasPrefix(ct, "application/pdf") || strings.HasPrefix(ct, "application/x-pdf") {
			return true
		}
	}
	s := *rec.BodyBase64
	if len(s) > 64 {
		s = s[:64]
	}
	head, _ := base64.StdEncoding.DecodeString(s[:len(s)/4*4])
	return bytes.HasPrefix(head, []byte("%PDF-"))
}

// Parse extracts the text and metadata of the PDF in rec.BodyBase64.
func (a *adapter) Parse(rec *record.Record) (*parse.Result, error) {
	if rec.BodyBase64 == nil {
		return nil, &record.Error{Stage: record.StageParse, Code: record.CodeNoBody, Message: "no pdf body"}
	}
	data, err := base64.StdEncoding.DecodeString(*rec.BodyBase64)
	if err != nil {
		return nil, &record.Error{Stage: record.StageParse, Code: record.CodeCorrupt, Message: "body_base64 is not valid base64"}
	}
	return a.Extract(data)
}

// Extract returns the text of the PDF bytes data, one group of segments per
// page, and its metadata.
func (a *adapter) Extract(data []byte) (*parse.Result, error) {
	tool, err := exec.LookPath(a.opts.Pdftotext)
	if err != nil {
		return nil, &record.Error{Stage: record.StageParse, Code: record.CodeMissingTool, Message: MissingToolMessage}
	}
	f, err := os.CreateTemp("", "linkledger-*.pdf")
	if err != nil {
		return nil, fmt.Errorf("temporary file: %w", err)
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(data); err != nil {
		f.Close()
		return nil, fmt.Errorf("temporary file: %w", err)
	}
	if err := f.Close(); err != nil {
		return nil, fmt.Errorf("temporary file: %w", err)
	}

	res := &parse.Result{SourceType: record.SourcePDF}
	info, infoErr := a.info(f.Name())
	if infoErr != nil {
		var re *record.Error
		if errors.As(infoErr, &re) && re.Code == record.CodeEncrypted {
			return nil, re
		}
		// pdfinfo may fail on a damaged file that pdftotext still reads.
		res.Warnings = append(res.Warnings, "pdfinfo: "+infoErr.Error())
	}
	res.Title = info.title
	res.Author = info.author
	res.PublishedAt = info.created

	out, stderr, truncated, runErr := a.runLimited(tool, a.opts.MaxTextBytes, a.args(f.Name(), "-enc", "UTF-8")...)
	if truncated {
		// Stopped on purpose: what was read is the text.
		runErr = nil
		res.Truncated = true
		res.Warnings = append(res.Warnings, fmt.Sprintf("pdftotext output stopped at %d bytes (max text bytes)", a.opts.MaxTextBytes))
	}
	if runErr != nil {
		if isPasswordError(stderr) {
			return nil, encryptedError(a.opts.Password != "")
		}
		if strings.TrimSpace(string(out)) == "" {
			return nil, &record.Error{Stage: record.StageParse, Code: record.CodeCorrupt,
				Message: "pdftotext could not read the file: " + firstLine(stderr, runErr)}
		}
		res.Warnings = append(res.Warnings, "pdftotext recovered text from a damaged file: "+firstLine(stderr, runErr))
	} else if msg := firstLine(stderr, nil); msg != "" && strings.Contains(strings.ToLower(msg), "error") {
		res.Warnings = append(res.Warnings, "pdftotext: "+msg)
	}

	res.Segments = Segments(string(out))
	if len(res.Segments) == 0 {
		if info.pages == 0 && infoErr != nil {
			return nil, &record.Error{Stage: record.StageParse, Code: record.CodeCorrupt,
				Message: "no pages could be read: " + infoErr.Error()}
		}
		res.NoTextReason = NoTextLayer
		res.Warnings = append(res.Warnings, "pdf has no text layer (scanned or drawn pages); indexed metadata only")
	}
	if res.Title == "" {
		res.Title = titleFromText(res.Segments)
	}
	return res, nil
}

// args builds a tool's arguments: options, password, file, "-" (stdout).
func (a *adapter) args(file string, opts ...string) []string {
	args := append([]string(nil), opts...)
	if a.opts.Password != "" {
		args = append(args, "-upw", a.opts.Password)
	}
	return append(args, file, "-")
}

func (a *adapter) run(tool string, args ...string) (stdout, stderr []byte, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), a.opts.Timeout)
	defer cancel()
	var o, e bytes.Buffer
	cmd := exec.CommandContext(ctx, tool, args...)
	cmd.Stdout, cmd.Stderr = &o, &e
	err = cmd.Run()
	if ctx.Err() != nil {
		err = fmt.Errorf("%s timed out after %s", tool, a.opts.Timeout)
	}
	return o.Bytes(), e.Bytes(), err
}

// runLimited runs tool like run but reads at most limit bytes of its
// stdout: past that it stops the tool and reports truncated, so a PDF that
// expands to gigabytes of text costs limit bytes of memory.
func (a *adapter) runLimited(tool string, limit int, args ...string) (stdout, stderr []byte, truncated bool, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), a.opts.Timeout)
	defer cancel()
	var e bytes.Buffer
	cmd := exec.CommandContext(ctx, tool, args...)
	cmd.Stderr = &e
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, false, err
	}
	if err := cmd.Start(); err != nil {
		return nil, nil, false, err
	}
	out, readErr := io.ReadAll(io.LimitReader(pipe, int64(limit)+1))
	if len(out) > limit {
		out, truncated = out[:limit], true
		_ = cmd.Process.Kill() // stop it producing more; the wait below reaps it
	}
	err = cmd.Wait()
	if truncated {
		return out, e.Bytes(), true, nil
	}
	if ctx.Err() != nil {
		err = fmt.Errorf("%s timed out after %s", tool, a.opts.Timeout)
	} else if err == nil && readErr != nil {
		err = readErr
	}
	return out, e.Bytes(), false, err
}

type docInfo struct {
	title, author, created string
	pages                  int
}

// info reads the Info dictionary through pdfinfo. A missing pdfinfo is not
// an error: the text is what matters.
func (a *adapter) info(file string) (docInfo, error) {
	var d docInfo
	tool, err := exec.LookPath(a.opts.Pdfinfo)
	if err != nil {
		return d, errors.New("pdfinfo not found, no metadata")
	}
	args := []string{"-isodates", "-enc", "UTF-8"}
	if a.opts.Password != "" {
		args = append(args, "-upw", a.opts.Password)
	}
	out, stderr, err := a.run(tool, append(args, file)...)
	if err != nil {
		if isPasswordError(stderr) {
			return d, encryptedError(a.opts.Password != "")
		}
		return d, errors.New(firstLine(stderr, err))
	}
	for _, line := range strings.Split(string(out), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		switch k {
		case "Title":
			d.title = v
		case "Author":
			d.author = v
		case "CreationDate":
			d.created = isoDate(v)
		case "Pages":
			d.pages, _ = strconv.Atoi(v)
		}
	}
	return d, nil
}

// isoDate turns pdfinfo -isodates output into RFC 3339 UTC, "" when it
// cannot be read.
func isoDate(v string) string {
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04:05Z07", "2006-01-02T15:04:05", "2006-01-02"} {
		if t, err := time.Parse(layout, v); err == nil {
			return record.FormatTime(t)
		}
	}
	return ""
}

func isPasswordError(stderr []byte) bool {
	return bytes.Contains(bytes.ToLower(stderr), []byte("incorrect password"))
}

func encryptedError(gotPassword bool) *record.Error {
	msg := "pdf is encrypted: pass its user password with --pdf-password"
	if gotPassword {
		msg = "pdf is encrypted and the password given with --pdf-password is wrong"
	}
	return &record.Error{Stage: record.StageParse, Code: record.CodeEncrypted, Message: msg}
}

// firstLine is the first non-empty stderr line, or err's text.
func firstLine(stderr []byte, err error) string {
	for _, l := range strings.Split(string(stderr), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return strings.ToLower(l[:1]) + l[1:]
		}
	}
	if err != nil {
		return err.Error()
	}
	return ""
}

// ligatures maps the Unicode ligature presentation forms to letters.
var ligatures = strings.NewReplacer(
	"\uFB00", "ff", "\uFB01", "fi", "\uFB02", "fl", "\uFB03", "ffi",
	"\uFB04", "ffl", "\uFB05", "st", "\uFB06", "st",
)

// Segments splits pdftotext output into segments: pages at form feeds
// (1-based Page), paragraphs at blank lines inside a page. Ligatures are
// folded, trailing spaces and empty paragraphs dropped.
func Segments(text string) []parse.Segment {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	pages := strings.Split(text, "\f")
	var segs []parse.Segment
	for i, page := range pages {
		page = ligatures.Replace(page)
		var para []string
		flush := func() {
			if len(para) > 0 {
				segs = append(segs, parse.Segment{Text: strings.Join(para, "\n"), Page: i + 1})
				para = para[:0]
			}
		}
		for _, line := range strings.Split(page, "\n") {
			line = strings.TrimRight(line, " \t\u00a0")
			if strings.TrimSpace(line) == "" {
				flush()
				continue
			}
			para = append(para, line)
		}
		flush()
	}
	return segs
}

// titleFromText is the first line of the text when it is short enough to be
// a title; PDFs without an Info title often start with theirs.
func titleFromText(segs []parse.Segment) string {
	if len(segs) == 0 {
		return ""
	}
	line, _, _ := strings.Cut(segs[0].Text, "\n")
	line = strings.TrimSpace(line)
	if len([]rune(line)) > 200 {
		return ""
	}
	return line
}
