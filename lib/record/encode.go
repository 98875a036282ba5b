package record

// A direct encoder for the records ll-find, ll-brief and ll-save write
// most: identity, intent, parse metadata, chunks, hits and save results.
// encoding/json builds an encoder for every type a Record can hold on a
// process's first record (~0.4-0.5 ms of a one-word ll-find, whose whole
// run is ~13 ms); this writes the same bytes without reflection. A record
// holding anything else (fetch, parse or index results, errors, review
// decisions, housekeeping fields, a hit's meta map, a float that JSON
// cannot hold) goes through encoding/json as before: appendRecord then
// reports false. TestAppendRecord compares both on random records.

import (
	"math"
	"strconv"
	"unicode/utf8"
)

// appendRecord appends r's known fields as encoding/json writes
// recordAlias(r) (declaration order, omitempty, no HTML escaping), and
// reports false, with b unchanged, when r holds a field it does not
// cover.
func appendRecord(b []byte, r *Record) ([]byte, bool) {
	if !directFields(r) {
		return b, false
	}
	start := len(b)
	e := objWriter{b: append(b, '{')}
	e.str("id", r.ID, true)
	e.str("url", r.URL, true)
	e.str("canonical_url", r.CanonicalURL, true)
	e.str("original_url", r.OriginalURL, true)
	e.str("source_type", r.SourceType, true)
	e.str("note", r.Note, true)
	e.strs("tags", r.Tags, true)
	e.strs("tags_remove", r.TagsRemove, true)
	e.str("actor", r.Actor, true)
	if len(r.Annotations) > 0 {
		e.annotations("annotations", r.Annotations)
	}
	e.ints("pin", r.Pin, true)
	e.ints("unpin", r.Unpin, true)
	if r.Artifact != nil {
		e.artifact(r.Artifact)
	}
	if s := r.Save; s != nil {
		e.object("save", func(o *objWriter) {
			o.boolean("existing", s.Existing, false)
			o.strs("tags_added", s.TagsAdded, true)
			o.strs("tags_removed", s.TagsRemoved, true)
			o.ints("annotation_ids", s.AnnotationIDs, true)
			o.ints("displaced", s.Displaced, true)
			o.ints("merged", s.Merged, true)
			o.boolean("note_added", s.NoteAdded, true)
			o.ints("pinned", s.Pinned, true)
			o.ints("unpinned", s.Unpinned, true)
		})
	}
	e.str("status", r.Status, true)
	if r.New != nil {
		e.key("new")
		e.b = strconv.AppendBool(e.b, *r.New)
	}
	if v := r.Revalidate; v != nil {
		e.object("revalidate", func(o *objWriter) {
			o.boolean("due", v.Due, false)
			o.str("fetched_at", v.FetchedAt, true)
		})
	}
	e.str("saved_at", r.SavedAt, true)
	e.str("via", r.Via, true)
	e.str("title", r.Title, true)
	e.str("author", r.Author, true)
	e.str("published_at", r.PublishedAt, true)
	e.str("site_name", r.SiteName, true)
	e.str("lang", r.Lang, true)
	e.str("excerpt", r.Excerpt, true)
	e.str("description", r.Description, true)
	e.float("duration_s", r.DurationS, true)
	if r.Text != nil {
		e.key("text")
		e.b = appendString(e.b, *r.Text)
	}
	e.str("checksum", r.Checksum, true)
	if len(r.Chunks) > 0 {
		e.chunks("chunks", r.Chunks)
	}
	e.str("markdown", r.Markdown, true)
	if len(r.Images) > 0 {
		objects(&e, "images", r.Images, func(o *objWriter, im *Image) {
			o.str("url", im.URL, false)
			o.str("alt", im.Alt, true)
			o.str("caption", im.Caption, true)
			o.str("content_type", im.ContentType, true)
			o.int("bytes", im.Bytes, true)
			o.str("error", im.Error, true)
		})
	}
	if h := r.Hit; h != nil {
		e.hit(h)
	}
	if len(r.Copies) > 0 {
		objects(&e, "copies", r.Copies, func(o *objWriter, c *Copy) {
			o.str("id", c.ID, false)
			o.str("url", c.URL, false)
		})
	}
	if s := r.Stored; s != nil {
		e.object("stored", func(o *objWriter) {
			o.str("checksum", s.Checksum, true)
			o.int("chunks", int64(s.Chunks), false)
			o.int("chunks_omitted", int64(s.ChunksOmitted), true)
		})
	}
	e.str("archived_at", r.ArchivedAt, true)
	if v := r.Reading; v != nil {
		e.object("reading", func(o *objWriter) {
			o.str("starred_at", v.StarredAt, true)
			o.str("read_at", v.ReadAt, true)
			o.float("progress", v.Progress, true)
			o.int("part", int64(v.Part), true)
			o.int("minutes", int64(v.Minutes), true)
		})
	}
	if e.bad {
		return b[:start], false
	}
	return append(e.b, '}'), true
}

// directFields reports whether appendRecord covers every field r holds.
func directFields(r *Record) bool {
	if len(r.Review) > 0 || r.Enrich != nil || r.Fetch != nil || r.Body != nil || r.BodyBase64 != nil ||
		r.Parse != nil || r.Embed != nil || r.Index != nil || len(r.Tagged) > 0 || len(r.Artifacts) > 0 || r.TagCount != nil ||
		r.Change != nil || r.Event != nil || r.Setting != nil || r.Error != nil {
		return false
	}
	if r.Save != nil && len(r.Save.Reviewed) > 0 {
		return false
	}
	if r.Hit != nil && len(r.Hit.Meta) > 0 {
		return false
	}
	return true
}

// objWriter appends the members of one JSON object.
type objWriter struct {
	b    []byte
	more bool // a member was written: the next needs a comma
	bad  bool // a float JSON cannot hold (NaN, ±Inf)
}

func (e *objWriter) key(k string) {
	if e.more {
		e.b = append(e.b, ',')
	}
	e.more = true
	e.b = append(e.b, '"')
	e.b = append(e.b, k...) // keys are plain ASCII
	e.b = append(e.b, '"', ':')
}

func (e *objWriter) str(k, v string, omitEmpty bool) {
	if omitEmpty && v == "" {
		return
	}
	e.key(k)
	e.b = appendString(e.b, v)
}

func (e *objWriter) strs(k string, v []string, omitEmpty bool) {
	writeList(e, k, v, omitEmpty, appendString)
}

func (e *objWriter) ints(k string, v []int64, omitEmpty bool) {
	writeList(e, k, v, omitEmpty, func(b []byte, n int64) []byte { return strconv.AppendInt(b, n, 10) })
}

// writeList writes a JSON array of v under k as encoding/json does: null
// for a nil slice, nothing when omitEmpty and empty.
func writeList[T any](e *objWriter, k string, v []T, omitEmpty bool, one func([]byte, T) []byte) {
	if omitEmpty && len(v) == 0 {
		return
	}
	e.key(k)
	if v == nil {
		e.b = append(e.b, "null"...)
		return
	}
	e.b = append(e.b, '[')
	for i, x := range v {
		if i > 0 {
			e.b = append(e.b, ',')
		}
		e.b = one(e.b, x)
	}
	e.b = append(e.b, ']')
}

func (e *objWriter) int(k string, v int64, omitEmpty bool) {
	if omitEmpty && v == 0 {
		return
	}
	e.key(k)
	e.b = strconv.AppendInt(e.b, v, 10)
}

func (e *objWriter) boolean(k string, v, omitEmpty bool) {
	if omitEmpty && !v {
		return
	}
	e.key(k)
	e.b = strconv.AppendBool(e.b, v)
}

func (e *objWriter) float(k string, v float64, omitEmpty bool) {
	if omitEmpty && v == 0 {
		return
	}
	e.key(k)
	e.b, e.bad = appendFloat(e.b, v, e.bad)
}

// appendFloat writes f as encoding/json does (shortest form; exponent
// form below 1e-6 and from 1e21, with e-7 rather than e-07), and sets
// bad for NaN and infinities, which JSON cannot hold.
func appendFloat(b []byte, f float64, bad bool) ([]byte, bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return b, true
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, bad
}

func (e *objWriter) annotations(k string, as []Annotation) {
	objects(e, k, as, func(o *objWriter, a *Annotation) {
		o.int("id", a.ID, true)
		o.str("type", a.Type, false)
		o.str("text", a.Text, false)
		o.str("actor", a.Actor, true)
		if a.Confidence != nil {
			o.float("confidence", *a.Confidence, false)
		}
		o.boolean("pinned", a.Pinned, true)
		if a.ChunkID != nil {
			o.int("chunk_id", *a.ChunkID, false)
		}
		if a.ChunkIndex != nil {
			o.int("chunk_index", int64(*a.ChunkIndex), false)
		}
		o.str("created_at", a.CreatedAt, true)
		o.ints("displaced", a.Displaced, true)
		o.str("review", a.Review, true)
		o.boolean("decayed", a.Decayed, true)
		o.str("orphaned_at", a.OrphanedAt, true)
		o.str("anchor", a.Anchor, true)
		o.str("version", a.Version, true)
	})
}

// artifact writes member "artifact".
func (e *objWriter) artifact(a *Artifact) {
	e.object("artifact", func(o *objWriter) {
		o.str("summary", a.Summary, true)
		o.strs("key_claims", a.KeyClaims, true)
		o.str("created_by", a.CreatedBy, true)
		o.str("created_at", a.CreatedAt, true)
		if len(a.Claims) > 0 {
			objects(o, "claims", a.Claims, func(co *objWriter, c *Claim) {
				co.str("text", c.Text, false)
				co.int("chunk_index", int64(c.ChunkIndex), false)
				co.float("confidence", c.Confidence, false)
				co.boolean("unsupported", c.Unsupported, true)
			})
		}
		o.str("method", a.Method, true)
		o.str("model", a.Model, true)
		o.str("endpoint_host", a.EndpointHost, true)
		if t := a.Tokens; t != nil {
			o.object("tokens", func(to *objWriter) {
				to.int("prompt", int64(t.Prompt), false)
				to.int("completion", int64(t.Completion), false)
			})
		}
		o.str("summary_by", a.SummaryBy, true)
		o.strs("tags", a.Tags, true)
	})
}

func (e *objWriter) chunks(k string, cs []Chunk) {
	objects(e, k, cs, func(o *objWriter, c *Chunk) {
		o.int("id", c.ID, true)
		o.int("index", int64(c.Index), false)
		o.str("text", c.Text, false)
		o.int("tokens", int64(c.Tokens), false)
		if c.StartS != nil {
			o.float("start_s", *c.StartS, false)
		}
		o.int("page", int64(c.Page), true)
		o.str("kind", c.Kind, true)
		o.str("embedding", c.Embedding, true)
	})
}

// hit writes member "hit".
func (e *objWriter) hit(h *Hit) {
	e.object("hit", func(o *objWriter) {
		o.int("rank", int64(h.Rank), false)
		o.float("score", h.Score, false)
		if w := h.WhyRanked; w != nil {
			o.object("why_ranked", func(wo *objWriter) {
				wo.float("bm25", w.BM25, false)
				wo.float("pinned_boost", w.PinnedBoost, false)
				wo.float("low_confidence_penalty", w.LowConfidencePenalty, false)
				wo.float("ranking_score", w.RankingScore, false)
				wo.strs("matched_fields", w.MatchedFields, true)
				wo.strs("matched_terms", w.MatchedTerms, true)
				if f := w.Fusion; f != nil {
					wo.object("fusion", func(fo *objWriter) {
						fo.str("mode", f.Mode, false)
						fo.int("lexical_rank", int64(f.LexicalRank), true)
						if f.LexicalScore != nil {
							fo.float("lexical_score", *f.LexicalScore, false)
						}
						fo.int("semantic_rank", int64(f.SemanticRank), true)
						if f.SemanticSimilarity != nil {
							fo.float("semantic_similarity", *f.SemanticSimilarity, false)
						}
						fo.float("fused_score", f.FusedScore, false)
					})
				}
			})
		}
		if len(h.Highlights) > 0 {
			o.annotations("highlights", h.Highlights)
		}
		if len(h.Lowlights) > 0 {
			o.annotations("lowlights", h.Lowlights)
		}
		if len(h.Notes) > 0 {
			o.annotations("notes", h.Notes)
		}
		if len(h.Snippets) > 0 {
			objects(o, "snippets", h.Snippets, func(so *objWriter, s *Snippet) {
				so.int("chunk_index", int64(s.ChunkIndex), false)
				so.str("text", s.Text, false)
				if s.StartS != nil {
					so.float("start_s", *s.StartS, false)
				}
				so.int("page", int64(s.Page), true)
				so.str("url", s.URL, true)
			})
		}
		if len(h.Chunks) > 0 {
			o.chunks("chunks", h.Chunks)
		}
		if h.Artifact != nil {
			o.artifact(h.Artifact)
		}
		o.str("fetched_at", h.FetchedAt, true)
		o.str("saved_at", h.SavedAt, true)
		o.str("ingest_status", h.IngestState, true)
		if rw := h.Related; rw != nil {
			o.object("related", func(ro *objWriter) {
				ro.str("to", rw.To, false)
				ro.strs("shared_tags", rw.SharedTags, true)
				ro.strs("terms", rw.Terms, true)
			})
		}
	})
}

// object writes member k as a JSON object whose members fill writes.
func (e *objWriter) object(k string, fill func(o *objWriter)) {
	e.key(k)
	o := objWriter{b: append(e.b, '{'), bad: e.bad}
	fill(&o)
	e.b, e.bad = append(o.b, '}'), o.bad
}

// objects writes member k as a JSON array of one object per element of
// xs, whose members fill writes.
func objects[T any](e *objWriter, k string, xs []T, fill func(o *objWriter, x *T)) {
	e.key(k)
	e.b = append(e.b, '[')
	for i := range xs {
		if i > 0 {
			e.b = append(e.b, ',')
		}
		o := objWriter{b: append(e.b, '{'), bad: e.bad}
		fill(&o, &xs[i])
		e.b, e.bad = append(o.b, '}'), o.bad
	}
	e.b = append(e.b, ']')
}

const hexDigits = "0123456789abcdef"

// appendString writes s as a JSON string as encoding/json does without
// HTML escaping: \" \\ \b \f \n \r \t, other control characters as
// \u00XX, invalid UTF-8 as \ufffd, and U+2028 and U+2029 escaped (some
// JavaScript parsers end a line there).
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
