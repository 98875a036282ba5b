// Package xpost captures posts on X (Twitter) without API keys: the ll-fetch
// source function asks the public syndication endpoint, then an
// FxTwitter-style API, then oEmbed, and stores the first answer in a JSON
// bundle; the ll-parse adapter is a pure function of that bundle and also
// reads X's own GraphQL shapes (TweetResultByRestId, TweetDetail). Shapes,
// fallback order and what is kept: docs/sources.md.
package xpost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/linkledger/linkledger/lib/canon"
	"github.com/linkledger/linkledger/lib/fetch"
	"github.com/linkledger/linkledger/lib/record"
)

// ContentType is the content type of the bundle ll-fetch stores.
const ContentType = "application/vnd.linkledger.x+json"

// BundleVersion is the bundle format version.
const BundleVersion = 1

// Upstream sources, recorded as fetch.source and parse.source.
const (
	SourceSyndication = "x-syndication"
	SourceFxTwitter   = "x-fxtwitter"
	SourceOEmbed      = "x-oembed"
	SourceGraphQL     = "x-graphql" // parsed, never fetched (needs a session)
)

// Default upstream base URLs.
const (
	DefaultSyndicationBase = "https://cdn.syndication.twimg.com"
	DefaultFxBase          = "https://api.fxtwitter.com"
	DefaultOEmbedBase      = "https://publish.twitter.com"
)

// Options configures the X source function.
type Options struct {
	SyndicationBase string // tweet-result endpoint host
	FxBase          string // FxTwitter-style API host
	OEmbedBase      string // oEmbed host
	MaxBytes        int64  // per response; 0 means 8 MiB
}

func (o Options) withDefaults() Options {
	if o.SyndicationBase == "" {
		o.SyndicationBase = DefaultSyndicationBase
	}
	if o.FxBase == "" {
		o.FxBase = DefaultFxBase
	}
	if o.OEmbedBase == "" {
		o.OEmbedBase = DefaultOEmbedBase
	}
	o.SyndicationBase = strings.TrimRight(o.SyndicationBase, "/")
	o.FxBase = strings.TrimRight(o.FxBase, "/")
	o.OEmbedBase = strings.TrimRight(o.OEmbedBase, "/")
	if o.MaxBytes <= 0 {
		o.MaxBytes = 8 << 20
	}
	return o
}

// Bundle is the body ll-fetch stores for an X record: the first upstream
// answer as served, and which sources failed before it.
type Bundle struct {
	Kind         string          `json:"kind"` // "x"
	Version      int             `json:"version"`
	StatusID     string          `json:"status_id"`
	User         string          `json:"user,omitempty"` // screen name from the URL; "i" for i/status links
	URL          string          `json:"url"`
	Source       string          `json:"source"` // x-syndication, x-fxtwitter, x-oembed or x-graphql
	FallbackFrom []string        `json:"fallback_from,omitempty"`
	Data         json.RawMessage `json:"data"`
}

// Fetcher returns the ll-fetch source function for X records.
func Fetcher(opts Options) fetch.SourceFunc {
	opts = opts.withDefaults()
	return func(ctx context.Context, hc *http.Client, rec *record.Record) ([]byte, string, string, error) {
		b, err := fetchBundle(ctx, hc, opts, rec)
		if err != nil {
			return nil, "", "", err
		}
		body, err := json.Marshal(b)
		if err != nil {
			return nil, "", "", err
		}
		return body, ContentType, b.Source, nil
	}
}

// attemptError is one failed source.
type attemptError struct {
	msg       string
	retryable bool
}

func fetchBundle(ctx context.Context, hc *http.Client, opts Options, rec *record.Record) (*Bundle, error) {
	ref := rec.CanonicalURL
	if ref == "" {
		ref = rec.URL
	}
	res, err := canon.Canonicalize(ref)
	if err != nil || res.XStatusID == "" {
		return nil, &record.Error{Stage: record.StageFetch, Code: record.CodeBadURL, Message: "x: no status id in " + ref}
	}
	b := &Bundle{Kind: "x", Version: BundleVersion, StatusID: res.XStatusID, User: res.XUser, URL: res.URL}
	get := func(u string) ([]byte, *attemptError) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if err != nil {
			return nil, &attemptError{msg: err.Error()}
		}
		req.Header.Set("Accept", "application/json")
		resp, err := hc.Do(req)
		if err != nil {
			return nil, &attemptError{msg: err.Error(), retryable: true}
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(io.LimitReader(resp.Body, opts.MaxBytes))
		if err != nil {
			return nil, &attemptError{msg: err.Error(), retryable: !errors.Is(err, fetch.ErrTooLarge)}
		}
		if resp.StatusCode != http.StatusOK {
			return nil, &attemptError{msg: fmt.Sprintf("http %d", resp.StatusCode),
				retryable: resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500}
		}
		return body, nil
	}
	user := res.XUser
	if user == "" {
		user = "i"
	}
	attempts := []struct {
		source string
		url    string
		check  func([]byte) error
	}{
		{SourceSyndication, opts.SyndicationBase + "/tweet-result?id=" + res.XStatusID + "&token=" + SyndicationToken(res.XStatusID) + "&lang=en", func(body []byte) error { return checkSyndication(body, res.XStatusID) }},
		{SourceFxTwitter, opts.FxBase + "/" + url.PathEscape(user) + "/status/" + res.XStatusID, checkFx},
		{SourceOEmbed, opts.OEmbedBase + "/oembed?url=" + url.QueryEscape("https://twitter.com/"+user+"/status/"+res.XStatusID) + "&omit_script=true&dnt=true", checkOEmbed},
	}
	retryable := false
	for _, a := range attempts {
		body, aerr := get(a.url)
		if aerr == nil {
			if err := a.check(body); err != nil {
				aerr = &attemptError{msg: err.Error()}
			}
		}
		if aerr != nil {
			b.FallbackFrom = append(b.FallbackFrom, a.source+": "+aerr.msg)
			retryable = retryable || aerr.retryable
			continue
		}
		b.Source, b.Data = a.source, body
		return b, nil
	}
	return nil, &record.Error{Stage: record.StageFetch, Code: record.CodeUpstream, Retryable: retryable,
		Message: "x: no source answered: " + strings.Join(b.FallbackFrom, "; ")}
}

// The check functions accept a body only when it carries a post.

func checkSyndication(body []byte, id string) error {
	var t synTweet
	if err := json.Unmarshal(body, &t); err != nil {
		return errors.New("not json")
	}
	if t.Typename == "TweetTombstone" {
		return errors.New("tombstone (deleted, protected or age-restricted post)")
	}
	if t.IDStr == "" || (t.Text == "" && t.User.ScreenName == "") {
		return errors.New("no post in the answer")
	}
	if t.IDStr != id {
		return fmt.Errorf("answer is for post %s", t.IDStr)
	}
	return nil
}

func checkFx(body []byte) error {
	var r fxResponse
	if err := json.Unmarshal(body, &r); err != nil {
		return errors.New("not json")
	}
	if r.Tweet == nil {
		return fmt.Errorf("code %d %s", r.Code, strings.ToLower(r.Message))
	}
	return nil
}

func checkOEmbed(body []byte) error {
	var r oembedResponse
	if err := json.Unmarshal(body, &r); err != nil {
		return errors.New("not json")
	}
	if !strings.Contains(r.HTML, "<blockquote") {
		return errors.New("no blockquote in the answer")
	}
	return nil
}
