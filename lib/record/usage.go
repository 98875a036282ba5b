package record

import "encoding/json"

// The documents of memory packs, citations and usage statistics
// (linkledger pack, cite, stats; docs/retrieval.md). They are written as
// {"pack": …}, {"citation": …} and {"stats": …}, one per line.

// PackInfo is a memory pack: a brief saved under a name, as its latest
// (or a given) version was built.
type PackInfo struct {
	Name      string       `json:"name"`
	Query     string       `json:"query"`
	Options   *PackOptions `json:"options,omitempty"`
	CreatedAt string       `json:"created_at,omitempty"`
	CreatedBy string       `json:"created_by,omitempty"`
	Version   int          `json:"version"`
	BuiltAt   string       `json:"built_at,omitempty"`
	BuiltBy   string       `json:"built_by,omitempty"`
	// Entered and Left are the sources that came into and went out of the
	// pack since the version before (on the first version, all entered).
	Entered []PackMember `json:"entered"`
	Left    []PackMember `json:"left"`
	// Mode and Warnings say how the version just built (by a save or a
	// refresh) was ranked, as ll-find's meta does: set when the ranking
	// was semantic or hybrid, or when it fell back to lexical (Warnings
	// say why). Not stored: pack show and list have neither.
	Mode     string   `json:"mode,omitempty"`
	Warnings []string `json:"warnings,omitempty"`
	// Brief is the pack exactly as ll-brief writes it (left out of the
	// pack list).
	Brief json.RawMessage `json:"brief,omitempty"`
}

// PackOptions are the brief settings a pack is built (and refreshed) with.
type PackOptions struct {
	MaxTokens   int `json:"max_tokens"`
	MaxItems    int `json:"max_items"`
	MaxPointers int `json:"max_pointers"`
	// PointerWords gives each pointer its best sentence, at most this
	// many words (0: none).
	PointerWords int      `json:"pointer_words,omitempty"`
	Tags         []string `json:"tags,omitempty"`
	Type         string   `json:"type,omitempty"`
	// Mode is the ranking asked for when the pack was saved (lexical,
	// semantic or hybrid), kept for every refresh; empty: the default,
	// decided at each build (docs/retrieval.md, "Packs and the ranking").
	Mode string `json:"mode,omitempty"`
	// SemanticWeight is hybrid ranking's semantic share asked for when
	// the pack was saved (nil: the default).
	SemanticWeight *float64 `json:"semantic_weight,omitempty"`
}

// PackMember is one source of a pack: a full item or a pointer.
type PackMember struct {
	Rank  int    `json:"rank"`
	URL   string `json:"url"`
	Title string `json:"title,omitempty"`
	// As is "item" (a full entry) or "pointer" (a line of the tail).
	As string `json:"as"`
}

// Citation records that an item was used in a piece of work.
type Citation struct {
	ID     int64  `json:"id"`
	ItemID string `json:"item_id"`
	URL    string `json:"url"`
	Title  string `json:"title,omitempty"`
	Task   string `json:"task"`
	Actor  string `json:"actor"`
	At     string `json:"at"`
}

// UsageStats measure evidence reuse over a period (linkledger stats).
type UsageStats struct {
	Since string `json:"since,omitempty"`
	Until string `json:"until"`
	// Tasks are the tasks active in the period: named by a citation or by
	// a pack built in it. TasksReusing cited at least one item saved
	// at least an hour before the task began (its first citation or its
	// pack, whichever came first): a source kept from earlier work, not
	// one saved for the task or in the same sitting.
	Tasks        int     `json:"tasks"`
	TasksReusing int     `json:"tasks_reusing"`
	ReuseShare   float64 `json:"reuse_share"`
	// ReuseGoal is the design's bar for ReuseShare (0.3).
	ReuseGoal float64 `json:"reuse_goal"`
	Citations int     `json:"citations"`
	// TasksUncited are the tasks of the period named only by a pack
	// built in it, with no citation in it: a pack records no citation,
	// so such a task counts in Tasks as one that reused nothing (only
	// when there are some).
	TasksUncited int `json:"tasks_uncited,omitempty"`
	// ItemsSaved are the items saved in the period; ItemsNeverUsed those of
	// them never cited (at any time).
	ItemsSaved     int `json:"items_saved"`
	ItemsNeverUsed int `json:"items_never_used"`
	// MostReused are the sources cited by the most tasks in the period.
	MostReused []UsageSource `json:"most_reused"`
}

// UsageSource is one source of the most reused list.
type UsageSource struct {
	ItemID    string `json:"item_id"`
	URL       string `json:"url"`
	Title     string `json:"title,omitempty"`
	Tasks     int    `json:"tasks"`
	Citations int    `json:"citations"`
}

// HistoryEvent is one event of an item's history: what changed (entity,
// action, the entity's id), who did it, when, and the event's detail as
// stored. linkledger history writes one per record, under "event"; an
// export carries them all under "history".
type HistoryEvent struct {
	Entity   string          `json:"entity"`
	EntityID *string         `json:"entity_id,omitempty"`
	Action   string          `json:"action"`
	Actor    string          `json:"actor"`
	At       string          `json:"at"`
	Detail   json.RawMessage `json:"detail"`
}
