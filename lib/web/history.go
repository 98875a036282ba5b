package web

import (
	"bytes"
	"encoding/json"

	"sort"
	"strings"

	"github.com/linkledger/linkledger/lib/record"
)

// historyRow is one event of the History page, in words: what happened
// to which tag, annotation or artifact, and the detail as labelled
// values rather than raw JSON.
type historyRow struct {
	At, What, Actor string
	Detail          []historyField
}

// historyField is one labelled value of an event's detail.
type historyField struct{ Key, Value string }

// historyRows turns the events of item id into rows.
func historyRows(id string, evs []*record.Record) []historyRow {
	rows := make([]historyRow, 0, len(evs))
	for _, r := range evs {
		e := r.Event
		if e == nil {
			continue
		}
		rows = append(rows, historyRow{At: e.At, What: eventWhat(id, e), Actor: e.Actor, Detail: eventDetail(e.Detail)})
	}
	return rows
}

// eventWhat says an event in words: "tag “ai” added", "annotation 12
// created", "ingest state parsed", "item archived".
func eventWhat(id string, e *record.HistoryEvent) string {
	action := e.Action
	if to, ok := strings.CutPrefix(action, "state:"); ok {
		action = "state " + to
	}
	action = strings.ReplaceAll(action, "_", " ")
	eid := ""
	if e.EntityID != nil {
		eid = *e.EntityID
	}
	switch {
	case eid == "" || (e.Entity == "item" && eid == id):
		return e.Entity + " " + action
	case e.Entity == "tag":
		return "tag “" + eid + "” " + action
	default:
		return e.Entity + " " + eid + " " + action
	}
}

// eventDetail is an event's detail as labelled values, keys in order;
// none for an empty object or null. A detail that is not an object is one
// value.
func eventDetail(raw json.RawMessage) []historyField {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" || string(raw) == "{}" {
		return nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return []historyField{{Value: detailValue(raw)}}
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]historyField, 0, len(keys))
	for _, k := range keys {
		if v := detailValue(m[k]); v != "" {
			out = append(out, historyField{Key: strings.ReplaceAll(k, "_", " "), Value: v})
		}
	}
	return out
}

// detailValue is a JSON value as text: a string as itself, a list of
// strings joined with commas, anything else compact JSON.
func detailValue(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var list []string
	if json.Unmarshal(raw, &list) == nil {
		return strings.Join(list, ", ")
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	if v := b.String(); v != "null" && v != "{}" && v != "[]" {
		return v
	}
	return ""
}
