package xpost

import (
	"encoding/json"
	"fmt"
	"html"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/linkledger/linkledger/lib/parse"
	"github.com/linkledger/linkledger/lib/record"
)

// AdapterName is recorded as parse.adapter.
const AdapterName = "x"

// Post is a post reduced to what linkledger keeps.
type Post struct {
	ID             string
	Name           string // display name
	Handle         string // screen name, without @
	CreatedAt      string // RFC 3339 UTC
	Lang           string
	Text           string   // t.co links expanded, media links removed
	AltTexts       []string // media descriptions
	PollOptions    []string
	Quote          *Post
	ConversationID string
	ReplyToID      string
	ReplyToHandle  string
}

// Adapter returns the ll-parse adapter for X bundles.
func Adapter() parse.Adapter { return parse.BundleAdapter(AdapterName, ContentType, ParseBundle) }

// ParseBundle turns a bundle into the post text: the author's earlier and
// later posts of the same conversation (self-thread) in order, the post, its
// media descriptions and poll options, then the quoted post.
func ParseBundle(b *Bundle) (*parse.Result, error) {
	var thread []Post
	var warnings []string
	var err error
	switch b.Source {
	case SourceSyndication:
		thread, err = fromSyndication(b.Data)
	case SourceFxTwitter:
		thread, err = fromFx(b.Data)
	case SourceOEmbed:
		thread, err = fromOEmbed(b.Data, b.StatusID)
		warnings = append(warnings, "oembed gives no link expansion, media descriptions or quotes; t.co links were removed")
	case SourceGraphQL:
		thread, err = fromGraphQL(b.Data, b.StatusID)
	default:
		err = fmt.Errorf("unknown source %q", b.Source)
	}
	if err != nil {
		return nil, &record.Error{Stage: record.StageParse, Code: record.CodeExtractFailed, Message: "x bundle: " + err.Error()}
	}
	main := -1
	for i, p := range thread {
		if p.ID == b.StatusID {
			main = i
		}
	}
	if main < 0 {
		return nil, &record.Error{Stage: record.StageParse, Code: record.CodeExtractFailed, Message: "x bundle: post " + b.StatusID + " not in the answer"}
	}
	m := thread[main]
	for _, f := range b.FallbackFrom {
		warnings = append(warnings, "fell back from "+f)
	}
	res := &parse.Result{
		Title:       title(m),
		Author:      author(m),
		PublishedAt: m.CreatedAt,
		SiteName:    "X",
		Lang:        m.Lang,
		Excerpt:     excerpt(m.Text, 280),
		SourceType:  record.SourceX,
		Source:      b.Source,
		Warnings:    warnings,
	}
	if len(thread) > 1 {
		res.Warnings = append(res.Warnings, fmt.Sprintf("self-thread: %d posts by @%s", len(thread), m.Handle))
	}
	for _, p := range thread {
		res.Segments = append(res.Segments, postSegments(p)...)
	}
	if len(res.Segments) == 0 {
		return nil, &record.Error{Stage: record.StageParse, Code: record.CodeExtractFailed, Message: "x bundle: the post has no text"}
	}
	return res, nil
}

func postSegments(p Post) []parse.Segment {
	var segs []parse.Segment
	add := func(s string) {
		if s = strings.TrimSpace(s); s != "" {
			segs = append(segs, parse.Segment{Text: s})
		}
	}
	add(p.Text)
	for _, a := range p.AltTexts {
		add("Image description: " + a)
	}
	if len(p.PollOptions) > 0 {
		add("Poll: " + strings.Join(p.PollOptions, " / "))
	}
	if q := p.Quote; q != nil {
		var parts []string
		for _, s := range postSegments(*q) {
			parts = append(parts, s.Text)
		}
		if len(parts) > 0 {
			add("Quoting @" + q.Handle + ": " + strings.Join(parts, "\n"))
		}
	}
	return segs
}

func author(p Post) string {
	switch {
	case p.Name != "" && p.Handle != "":
		return p.Name + " (@" + p.Handle + ")"
	case p.Handle != "":
		return "@" + p.Handle
	}
	return p.Name
}

// title is "Name on X: “first words”", the way X titles its pages.
func title(p Post) string {
	who := p.Name
	if who == "" {
		who = "@" + p.Handle
	}
	t := excerpt(strings.Join(strings.Fields(p.Text), " "), 100)
	if t == "" {
		return who + " on X"
	}
	return who + " on X: “" + t + "”"
}

func excerpt(s string, n int) string {
	r := []rune(strings.TrimSpace(s))
	if len(r) <= n {
		return string(r)
	}
	cut := string(r[:n])
	if i := strings.LastIndexByte(cut, ' '); i > n/2 {
		cut = cut[:i]
	}
	return strings.TrimSpace(cut) + "…"
}

// sortThread keeps the main post and the self-thread around it: the same
// author's posts of the same conversation that start it or answer the
// author (not the author's answers to other people), ordered by id (ids
// grow with time). Replies by others are never kept.
func sortThread(posts []Post, mainID string) []Post {
	var main *Post
	for i := range posts {
		if posts[i].ID == mainID {
			main = &posts[i]
		}
	}
	if main == nil {
		return posts
	}
	seen := map[string]bool{}
	var out []Post
	for _, p := range posts {
		if seen[p.ID] {
			continue
		}
		same := p.ID == mainID || (strings.EqualFold(p.Handle, main.Handle) &&
			(main.ConversationID == "" || p.ConversationID == main.ConversationID) &&
			(p.ReplyToHandle == "" || strings.EqualFold(p.ReplyToHandle, main.Handle)))
		if same {
			seen[p.ID] = true
			out = append(out, p)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return idLess(out[i].ID, out[j].ID) })
	return out
}

func idLess(a, b string) bool {
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	return a < b
}

// Link handling.

type entityURL struct {
	URL         string `json:"url"`
	ExpandedURL string `json:"expanded_url"`
}

var tcoRE = regexp.MustCompile(`https?://t\.co/[A-Za-z0-9]+`)

// expand replaces t.co links with their expansions, removes media links
// (the media are kept as descriptions) and any t.co link left over, and
// decodes the entities X escapes in post text (&amp; &lt; &gt;).
func expand(text string, urls []entityURL, media []entityURL) string {
	for _, u := range urls {
		if u.URL != "" && u.ExpandedURL != "" {
			text = strings.ReplaceAll(text, u.URL, u.ExpandedURL)
		}
	}
	for _, m := range media {
		if m.URL != "" {
			text = strings.ReplaceAll(text, m.URL, "")
		}
	}
	text = tcoRE.ReplaceAllString(text, "")
	return tidy(html.UnescapeString(text))
}

// tidy folds runs of spaces inside lines (left where links were removed),
// trims lines and keeps at most one blank line between paragraphs.
func tidy(s string) string {
	var out []string
	blank := false
	for _, line := range strings.Split(s, "\n") {
		line = strings.Join(strings.Fields(line), " ")
		if line == "" {
			blank = len(out) > 0
			continue
		}
		if blank {
			out = append(out, "")
			blank = false
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

// Times.

func parseTime(s string) string {
	for _, layout := range []string{time.RFC3339Nano, time.RubyDate, "January 2, 2006"} {
		if t, err := time.Parse(layout, s); err == nil {
			return record.FormatTime(t)
		}
	}
	return ""
}

// Syndication (cdn.syndication.twimg.com/tweet-result).

type synTweet struct {
	Typename  string `json:"__typename"`
	IDStr     string `json:"id_str"`
	Text      string `json:"text"`
	Lang      string `json:"lang"`
	CreatedAt string `json:"created_at"`
	User      struct {
		Name       string `json:"name"`
		ScreenName string `json:"screen_name"`
	} `json:"user"`
	Entities struct {
		URLs  []entityURL `json:"urls"`
		Media []entityURL `json:"media"`
	} `json:"entities"`
	MediaDetails []struct {
		URL        string `json:"url"`
		ExtAltText string `json:"ext_alt_text"`
	} `json:"mediaDetails"`
	Photos []struct {
		AccessibilityLabel string `json:"accessibilityLabel"`
	} `json:"photos"`
	Card                 *card     `json:"card"`
	NoteTweet            *noteWrap `json:"note_tweet"`
	QuotedTweet          *synTweet `json:"quoted_tweet"`
	Parent               *synTweet `json:"parent"`
	ConversationIDStr    string    `json:"conversation_id_str"`
	InReplyToStatusIDStr string    `json:"in_reply_to_status_id_str"`
	InReplyToScreenName  string    `json:"in_reply_to_screen_name"`
}

// noteWrap is a long post: {"note_tweet_results": {"result": {"text"}}} in
// GraphQL, sometimes flattened to {"text"}.
type noteWrap struct {
	Text    string `json:"text"`
	Results struct {
		Result struct {
			Text      string `json:"text"`
			EntitySet struct {
				URLs []entityURL `json:"urls"`
			} `json:"entity_set"`
		} `json:"result"`
	} `json:"note_tweet_results"`
}

func (n *noteWrap) text() (string, []entityURL) {
	if n == nil {
		return "", nil
	}
	if n.Results.Result.Text != "" {
		return n.Results.Result.Text, n.Results.Result.EntitySet.URLs
	}
	return n.Text, nil
}

// card holds poll choices. Syndication gives binding_values as an object,
// GraphQL (under "legacy") as a list of {key, value}.
type card struct {
	Name          string          `json:"name"`
	BindingValues json.RawMessage `json:"binding_values"`
	Legacy        *card           `json:"legacy"`
}

func (c *card) pollOptions() []string {
	if c == nil {
		return nil
	}
	if c.Legacy != nil {
		return c.Legacy.pollOptions()
	}
	if !strings.HasPrefix(c.Name, "poll") {
		return nil
	}
	type value struct {
		StringValue string `json:"string_value"`
	}
	vals := map[string]value{}
	if err := json.Unmarshal(c.BindingValues, &vals); err != nil {
		var list []struct {
			Key   string `json:"key"`
			Value value  `json:"value"`
		}
		if json.Unmarshal(c.BindingValues, &list) != nil {
			return nil
		}
		for _, kv := range list {
			vals[kv.Key] = kv.Value
		}
	}
	var out []string
	for i := 1; i <= 4; i++ {
		if v := vals["choice"+strconv.Itoa(i)+"_label"].StringValue; v != "" {
			out = append(out, v)
		}
	}
	return out
}

func (t *synTweet) post() Post {
	text, urls := t.Text, t.Entities.URLs
	if nt, nurls := t.NoteTweet.text(); nt != "" {
		text, urls = nt, append(nurls, urls...)
	}
	p := Post{
		ID: t.IDStr, Name: t.User.Name, Handle: t.User.ScreenName,
		CreatedAt: parseTime(t.CreatedAt), Lang: t.Lang,
		Text:           expand(text, urls, t.Entities.Media),
		PollOptions:    t.Card.pollOptions(),
		ConversationID: t.ConversationIDStr, ReplyToID: t.InReplyToStatusIDStr, ReplyToHandle: t.InReplyToScreenName,
	}
	for _, m := range t.MediaDetails {
		if m.ExtAltText != "" {
			p.AltTexts = append(p.AltTexts, m.ExtAltText)
		}
	}
	if len(p.AltTexts) == 0 {
		for _, ph := range t.Photos {
			if ph.AccessibilityLabel != "" {
				p.AltTexts = append(p.AltTexts, ph.AccessibilityLabel)
			}
		}
	}
	if t.QuotedTweet != nil && t.QuotedTweet.Typename != "TweetTombstone" {
		q := t.QuotedTweet.post()
		p.Quote = &q
	}
	return p
}

func fromSyndication(data []byte) ([]Post, error) {
	var t synTweet
	if err := json.Unmarshal(data, &t); err != nil {
		return nil, err
	}
	main := t.post()
	posts := []Post{main}
	// The parent is kept only when it is the same author's (a self-thread);
	// a reply to someone else keeps just the reply.
	for par := t.Parent; par != nil; par = par.Parent {
		if !strings.EqualFold(par.User.ScreenName, main.Handle) {
			break
		}
		pp := par.post()
		pp.ConversationID = main.ConversationID
		posts = append(posts, pp)
	}
	return sortThread(posts, main.ID), nil
}

// FxTwitter-style API ({fx_base}/{user}/status/{id}).

type fxResponse struct {
	Code    int      `json:"code"`
	Message string   `json:"message"`
	Tweet   *fxTweet `json:"tweet"`
}

type fxTweet struct {
	ID        string `json:"id"`
	Text      string `json:"text"`
	Lang      string `json:"lang"`
	CreatedAt string `json:"created_at"`
	RawText   *struct {
		Text   string `json:"text"`
		Facets []struct {
			Type        string `json:"type"`
			Original    string `json:"original"`
			Replacement string `json:"replacement"`
		} `json:"facets"`
	} `json:"raw_text"`
	Author struct {
		Name       string `json:"name"`
		ScreenName string `json:"screen_name"`
	} `json:"author"`
	Media *struct {
		All []struct {
			AltText string `json:"altText"`
		} `json:"all"`
	} `json:"media"`
	Poll *struct {
		Choices []struct {
			Label string `json:"label"`
		} `json:"choices"`
	} `json:"poll"`
	Quote            *fxTweet `json:"quote"`
	ReplyingTo       string   `json:"replying_to"`
	ReplyingToStatus string   `json:"replying_to_status"`
}

func (t *fxTweet) post() Post {
	var urls []entityURL
	if t.RawText != nil {
		for _, f := range t.RawText.Facets {
			if f.Type == "url" && f.Original != "" {
				orig := f.Original
				if !strings.Contains(orig, "://") {
					orig = "https://t.co/" + orig
				}
				urls = append(urls, entityURL{URL: orig, ExpandedURL: f.Replacement})
			}
		}
	}
	p := Post{
		ID: t.ID, Name: t.Author.Name, Handle: t.Author.ScreenName,
		CreatedAt: parseTime(t.CreatedAt), Lang: t.Lang,
		Text:      expand(t.Text, urls, nil),
		ReplyToID: t.ReplyingToStatus, ReplyToHandle: t.ReplyingTo,
	}
	if t.Media != nil {
		for _, m := range t.Media.All {
			if m.AltText != "" {
				p.AltTexts = append(p.AltTexts, m.AltText)
			}
		}
	}
	if t.Poll != nil {
		for _, c := range t.Poll.Choices {
			p.PollOptions = append(p.PollOptions, c.Label)
		}
	}
	if t.Quote != nil {
		q := t.Quote.post()
		p.Quote = &q
	}
	return p
}

func fromFx(data []byte) ([]Post, error) {
	var r fxResponse
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, err
	}
	if r.Tweet == nil {
		return nil, fmt.Errorf("no tweet (code %d)", r.Code)
	}
	return []Post{r.Tweet.post()}, nil
}

// oEmbed (publish.twitter.com/oembed).

type oembedResponse struct {
	URL        string `json:"url"`
	AuthorName string `json:"author_name"`
	AuthorURL  string `json:"author_url"`
	HTML       string `json:"html"`
}

var (
	oembedParaRE   = regexp.MustCompile(`(?s)<p[^>]*>(.*?)</p>`)
	oembedLangRE   = regexp.MustCompile(`<p[^>]*\blang="([^"]+)"`)
	oembedDateRE   = regexp.MustCompile(`(?s)<a[^>]*>([^<]*)</a>\s*</blockquote>`)
	anchorRE       = regexp.MustCompile(`(?s)<a[^>]*>(.*?)</a>`)
	breakRE        = regexp.MustCompile(`(?i)<br\s*/?>`)
	anyTagRE       = regexp.MustCompile(`<[^>]+>`)
	picLinkRE      = regexp.MustCompile(`\bpic\.(twitter|x)\.com/[A-Za-z0-9]+`)
	oembedStatusRE = regexp.MustCompile(`/status(?:es)?/(\d+)`)
)

func fromOEmbed(data []byte, statusID string) ([]Post, error) {
	var r oembedResponse
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, err
	}
	m := oembedParaRE.FindStringSubmatch(r.HTML)
	if m == nil {
		return nil, fmt.Errorf("no <p> in the oembed html")
	}
	body := breakRE.ReplaceAllString(m[1], "\n")
	body = anchorRE.ReplaceAllStringFunc(body, func(a string) string {
		inner := anchorRE.FindStringSubmatch(a)[1]
		if tcoRE.MatchString(inner) {
			return "" // a t.co link we cannot expand without the entities
		}
		return inner
	})
	body = anyTagRE.ReplaceAllString(body, "")
	body = html.UnescapeString(body)
	body = picLinkRE.ReplaceAllString(body, "")
	p := Post{ID: statusID, Name: r.AuthorName, Text: tidy(tcoRE.ReplaceAllString(body, ""))}
	if s := oembedStatusRE.FindStringSubmatch(r.URL); s != nil {
		p.ID = s[1]
	}
	if i := strings.LastIndexByte(strings.TrimRight(r.AuthorURL, "/"), '/'); i >= 0 {
		p.Handle = strings.TrimRight(r.AuthorURL, "/")[i+1:]
	}
	if l := oembedLangRE.FindStringSubmatch(r.HTML); l != nil && l[1] != "zxx" {
		p.Lang = l[1]
	}
	if d := oembedDateRE.FindStringSubmatch(r.HTML); d != nil {
		p.CreatedAt = parseTime(strings.TrimSpace(d[1]))
	}
	return []Post{p}, nil
}

// GraphQL (TweetResultByRestId, TweetDetail).

type gqlResult struct {
	Typename string          `json:"__typename"`
	RestID   string          `json:"rest_id"`
	Tweet    *gqlResult      `json:"tweet"` // TweetWithVisibilityResults
	Core     *gqlCore        `json:"core"`
	Legacy   *gqlLegacy      `json:"legacy"`
	Card     *card           `json:"card"`
	Note     *noteWrap       `json:"note_tweet"`
	Quoted   *gqlResultEnvlp `json:"quoted_status_result"`
}

type gqlResultEnvlp struct {
	Result *gqlResult `json:"result"`
}

type gqlCore struct {
	UserResults struct {
		Result struct {
			Core *struct {
				Name       string `json:"name"`
				ScreenName string `json:"screen_name"`
			} `json:"core"`
			Legacy *struct {
				Name       string `json:"name"`
				ScreenName string `json:"screen_name"`
			} `json:"legacy"`
		} `json:"result"`
	} `json:"user_results"`
}

type gqlLegacy struct {
	FullText             string `json:"full_text"`
	CreatedAt            string `json:"created_at"`
	Lang                 string `json:"lang"`
	ConversationIDStr    string `json:"conversation_id_str"`
	InReplyToStatusIDStr string `json:"in_reply_to_status_id_str"`
	InReplyToScreenName  string `json:"in_reply_to_screen_name"`
	Entities             struct {
		URLs  []entityURL `json:"urls"`
		Media []entityURL `json:"media"`
	} `json:"entities"`
	ExtendedEntities struct {
		Media []struct {
			URL        string `json:"url"`
			ExtAltText string `json:"ext_alt_text"`
		} `json:"media"`
	} `json:"extended_entities"`
}

func (g *gqlResult) unwrap() *gqlResult {
	if g != nil && g.Tweet != nil {
		return g.Tweet
	}
	return g
}

func (g *gqlResult) post() (Post, bool) {
	g = g.unwrap()
	if g == nil || g.Legacy == nil {
		return Post{}, false
	}
	l := g.Legacy
	text, urls := l.FullText, l.Entities.URLs
	if nt, nurls := g.Note.text(); nt != "" {
		text, urls = nt, append(nurls, urls...)
	}
	media := append([]entityURL(nil), l.Entities.Media...)
	for _, m := range l.ExtendedEntities.Media {
		media = append(media, entityURL{URL: m.URL})
	}
	p := Post{
		ID: g.RestID, CreatedAt: parseTime(l.CreatedAt), Lang: l.Lang,
		Text:           expand(text, urls, media),
		PollOptions:    g.Card.pollOptions(),
		ConversationID: l.ConversationIDStr, ReplyToID: l.InReplyToStatusIDStr, ReplyToHandle: l.InReplyToScreenName,
	}
	if p.Lang == "zxx" || p.Lang == "und" {
		p.Lang = ""
	}
	if g.Core != nil {
		u := g.Core.UserResults.Result
		if u.Core != nil {
			p.Name, p.Handle = u.Core.Name, u.Core.ScreenName
		}
		if u.Legacy != nil {
			if p.Name == "" {
				p.Name = u.Legacy.Name
			}
			if p.Handle == "" {
				p.Handle = u.Legacy.ScreenName
			}
		}
	}
	for _, m := range l.ExtendedEntities.Media {
		if m.ExtAltText != "" {
			p.AltTexts = append(p.AltTexts, m.ExtAltText)
		}
	}
	if g.Quoted != nil {
		if q, ok := g.Quoted.Result.post(); ok {
			p.Quote = &q
		}
	}
	return p, true
}

type gqlItemContent struct {
	TweetResults *gqlResultEnvlp `json:"tweet_results"`
}

func fromGraphQL(data []byte, statusID string) ([]Post, error) {
	var doc struct {
		Data struct {
			TweetResult *gqlResultEnvlp `json:"tweetResult"`
			Conv        *struct {
				Instructions []struct {
					Entries []struct {
						Content struct {
							ItemContent *gqlItemContent `json:"itemContent"`
							Items       []struct {
								Item struct {
									ItemContent *gqlItemContent `json:"itemContent"`
								} `json:"item"`
							} `json:"items"`
						} `json:"content"`
					} `json:"entries"`
				} `json:"instructions"`
			} `json:"threaded_conversation_with_injections_v2"`
		} `json:"data"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	var posts []Post
	addResult := func(e *gqlResultEnvlp) {
		if e == nil {
			return
		}
		if p, ok := e.Result.post(); ok {
			posts = append(posts, p)
		}
	}
	addResult(doc.Data.TweetResult)
	if c := doc.Data.Conv; c != nil {
		for _, ins := range c.Instructions {
			for _, e := range ins.Entries {
				if ic := e.Content.ItemContent; ic != nil {
					addResult(ic.TweetResults)
				}
				for _, it := range e.Content.Items {
					if ic := it.Item.ItemContent; ic != nil {
						addResult(ic.TweetResults)
					}
				}
			}
		}
	}
	if len(posts) == 0 {
		return nil, fmt.Errorf("no post in the graphql answer")
	}
	return sortThread(posts, statusID), nil
}
