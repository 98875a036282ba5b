package embed

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/linkledger/linkledger/lib/record"
)

// Task prefixes (docs/retrieval.md, "Task prefixes"): many retrieval
// models are trained with a fixed text before every document and another
// before every query, and rank worse without them. The client puts them
// before the text it sends, and only there: the texts given to it (the
// chunks stored and quoted, the query typed) never hold them.

// MaxPrefixBytes bounds a task prefix (the longest known, bge's query
// instruction, has 57 bytes).
const MaxPrefixBytes = 256

// CheckPrefix says whether p can be a task prefix: valid UTF-8 of at most
// MaxPrefixBytes, no control characters but newline and tab (some
// instructions span two lines).
func CheckPrefix(p string) error {
	if len(p) > MaxPrefixBytes || !utf8.ValidString(p) ||
		strings.ContainsFunc(p, func(r rune) bool { return unicode.IsControl(r) && r != '\n' && r != '\t' }) {
		return fmt.Errorf("want text of at most %d bytes without control characters", MaxPrefixBytes)
	}
	return nil
}

// knownPrefixes are the task prefixes of well-known retrieval models,
// used when none is configured. A rule applies to a model whose base
// name (lower case, without an organisation before "/", an Ollama tag
// after ":" or LM Studio's "text-embedding-") starts with name and holds
// none of except. Each pair is from the model's own card.
var knownPrefixes = []struct {
	name       string
	except     []string
	doc, query string
}{
	// nomic-embed-text v1, v1.5, v2-moe
	{name: "nomic-embed-text", doc: "search_document: ", query: "search_query: "},
	// e5 v1/v2 and multilingual-e5; the -instruct and -mistral models
	// take an instruction instead
	{name: "e5-", except: []string{"instruct", "mistral"}, doc: "passage: ", query: "query: "},
	{name: "multilingual-e5-", except: []string{"instruct"}, doc: "passage: ", query: "query: "},
	// English bge v1 and v1.5: an instruction before queries only
	// (bge-m3 and the Chinese models take none or another)
	{name: "bge-small-en", query: bgeQuery},
	{name: "bge-base-en", query: bgeQuery},
	{name: "bge-large-en", query: bgeQuery},
	{name: "mxbai-embed-large", query: bgeQuery},
}

const bgeQuery = "Represent this sentence for searching relevant passages: "

// DefaultPrefixes are the document and query prefixes of model when none
// is configured: those of knownPrefixes, else none.
func DefaultPrefixes(model string) (doc, query string) {
	base := strings.ToLower(model)
	if i := strings.LastIndexByte(base, '/'); i >= 0 {
		base = base[i+1:]
	}
	base, _, _ = strings.Cut(base, ":")
	base = strings.TrimPrefix(base, "text-embedding-")
	for _, k := range knownPrefixes {
		if !strings.HasPrefix(base, k.name) {
			continue
		}
		skip := false
		for _, x := range k.except {
			skip = skip || strings.Contains(base, x)
		}
		if !skip {
			return k.doc, k.query
		}
	}
	return "", ""
}

// Identity is the model a vector made by model with document prefix doc
// is stored and searched under: the model's name when doc is empty, else
// the name and the quoted prefix (nomic-embed-text+"search_document: ").
// Vectors of one model made with two prefixes are so never compared, and
// a changed prefix is re-embedded as a changed model is.
func Identity(model, doc string) string {
	if doc == "" {
		return model
	}
	return model + "+" + strconv.Quote(doc)
}

// Identity is the model c's document vectors are stored under.
func (c *Client) Identity() string { return Identity(c.Model, c.DocPrefix) }

// EmbedDocuments embeds document texts (chunks), each sent after
// DocPrefix.
func (c *Client) EmbedDocuments(ctx context.Context, texts []string) ([][]float32, *record.Error) {
	return c.Embed(ctx, prefixed(c.DocPrefix, texts))
}

// EmbedQuery embeds a search query, sent after QueryPrefix.
func (c *Client) EmbedQuery(ctx context.Context, q string) ([]float32, *record.Error) {
	vs, err := c.Embed(ctx, prefixed(c.QueryPrefix, []string{q}))
	if err != nil {
		return nil, err
	}
	if len(vs) != 1 {
		return nil, embedErr(record.CodeBadContent, "embeddings answer: no vector for the query", false)
	}
	return vs[0], nil
}

func prefixed(p string, texts []string) []string {
	if p == "" {
		return texts
	}
	out := make([]string, len(texts))
	for i, t := range texts {
		out[i] = p + t
	}
	return out
}
