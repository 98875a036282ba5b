package remote

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
)

// A verb's flags that may cross the wire. A flag not listed here is
// refused by the server, whatever it does locally: --db (the server
// chooses its ledger), every flag naming a file (--rules, --queries), --jq
// (a jq program runs in the server's memory: pipe the records to jq
// instead), --claim (a write of the ingest loop), --busy-timeout and
// --batch (the server's business). Short aliases are listed too.
var (
	common = map[string]bool{ // name: takes a value
		"format": true, "json": false, "quiet": false, "q": false,
		"verbose": false, "v": false, "help": false, "h": false,
	}
	searchFlags = map[string]bool{
		"tags": true, "tag": true, "t": true, "type": true, "since": true, "until": true,
		"actor": true, "status": true, "archived": false, "only-archived": false,
		"w-title": true, "w-body": true, "w-annotations": true, "pinned-boost": true,
		"low-confidence-penalty": true, "low-confidence-below": true, "w-chunk-sum": true,
		"scan-rows": true, "w-doc": true, "snippets": true, "expand-chunks": false,
		"decay-below": true, "decay-after": true, "no-decay": false, "stale-after": true,
		"cut": true, "all-matches": false, "all-copies": false, "mode": true,
		"semantic-weight": true, "exit-status": false, "e": false,
	}
	verbFlags = map[string]map[string]bool{
		"find": merge(searchFlags, map[string]bool{
			"limit": true, "n": true, "offset": true, "related": true,
			"pending": false, "failed": false, "stale": false, "older-than": true,
			"max-attempts": true, "id": true, "with-chunks": false, "max-chunk-bytes": true,
		}),
		"brief": merge(searchFlags, map[string]bool{
			"query": true, "max-tokens": true, "max-items": true, "max-pointers": true, "pointer-words": true,
		}),
		"show":   merge(map[string]bool{"text": false, "markdown": false}),
		"status": merge(map[string]bool{}),
		"save": merge(map[string]bool{
			"note": true, "tags": true, "tag": true, "t": true, "untag": true, "actor": true,
			"highlight": true, "lowlight": true, "annotate-note": true, "confidence": true,
			"pinned": false, "chunk": true, "pin": true, "unpin": true,
		}),
		"related": merge(map[string]bool{"max-items": true, "limit": true, "n": true}),
		"tag":     merge(map[string]bool{"add": true, "remove": true, "actor": true}),
		"annotate": merge(map[string]bool{
			"highlight": true, "lowlight": true, "note": true, "confidence": true,
			"actor": true, "pinned": false, "chunk": true,
		}),
	}
	// verbs that write need a token of scope write
	writeVerbs = map[string]bool{"save": true, "annotate": true, "tag": true}
	// aliases typed by a person, as the front command knows them
	verbAliases = map[string]string{"search": "find"}
)

func merge(m map[string]bool, more ...map[string]bool) map[string]bool {
	out := map[string]bool{}
	for k, v := range common {
		out[k] = v
	}
	for k, v := range m {
		out[k] = v
	}
	for _, x := range more {
		for k, v := range x {
			out[k] = v
		}
	}
	return out
}

// Verbs are the verbs the front command runs on a server, in the order
// of the docs.
var Verbs = []string{"save", "find", "brief", "show", "annotate", "status", "tag", "related"}

// Verb is the verb name typed (search is find) and whether it runs
// remotely.
func Verb(typed string) (string, bool) {
	if v, ok := verbAliases[typed]; ok {
		typed = v
	}
	_, ok := verbFlags[typed]
	return typed, ok
}

// Writes reports whether verb writes to the ledger (needs scope write).
func Writes(verb string) bool { return writeVerbs[verb] }

// UsageError is an argument the server does not take; the front command
// reports it as a usage error (exit 2), as it would a bad flag locally.
type UsageError struct{ Msg, Hint string }

func (e *UsageError) Error() string { return e.Msg }

func usagef(hint, format string, args ...any) error {
	return &UsageError{Msg: fmt.Sprintf(format, args...), Hint: hint}
}

// splitFlag reads arg as a flag: its name without dashes, its value
// after "=", and whether it had one. ok is false for a positional
// argument ("x", "-", or anything after "--").
func splitFlag(arg string) (name, value string, hasValue, ok bool) {
	if len(arg) < 2 || arg[0] != '-' {
		return "", "", false, false
	}
	name = strings.TrimPrefix(strings.TrimPrefix(arg, "-"), "-")
	name, value, hasValue = strings.Cut(name, "=")
	return name, value, hasValue, true
}

// refusal says why flag is not taken by a remote verb.
func refusal(verb, flag string) error {
	switch flag {
	case "db":
		return usagef("unset LINKLEDGER_URL to use a local ledger file with --db", "--db: LINKLEDGER_URL is set: the server chooses its ledger, a remote %s takes no --db", verb)
	case "jq", "raw-output", "r":
		return usagef(fmt.Sprintf("pipe the records to jq instead: linkledger %s ... | jq ...", verb), "--%s: a remote %s runs no jq program on the server", flag, verb)
	case "rules", "queries", "allow-files", "allow-files-from":
		return usagef("run it on the server, where the file is", "--%s: names a file; a remote %s reads no file on the server", flag, verb)
	}
	return usagef(fmt.Sprintf("run 'linkledger %s --help' for usage; docs/cli.md lists what a remote %s takes", verb, verb), "--%s: not taken by a remote %s (LINKLEDGER_URL is set)", flag, verb)
}

// Normalize is the client's side: it checks args of verb against the
// flags a remote verb takes and writes every flag that takes a value as
// --name=VALUE, so the server reads each argument one way only (a value
// that starts with "-" is never read as a flag).
func Normalize(verb string, args []string) ([]string, error) {
	flags, ok := verbFlags[verb]
	if !ok {
		return nil, usagef("", "%s does not run on a server", verb)
	}
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...), nil
		}
		name, value, hasValue, isFlag := splitFlag(a)
		if !isFlag {
			out = append(out, a)
			continue
		}
		takes, known := flags[name]
		if !known {
			return nil, refusal(verb, name)
		}
		if takes && !hasValue {
			if i+1 >= len(args) {
				return nil, usagef(fmt.Sprintf("run 'linkledger %s --help' for usage", verb), "%s: needs a value", a)
			}
			i++
			value, hasValue = args[i], true
		}
		if hasValue {
			out = append(out, "--"+name+"="+value)
		} else {
			out = append(out, "--"+name)
		}
	}
	return out, nil
}

var itemID = regexp.MustCompile(`^ll_[0-9a-f]{16}$`)

// webLink reports whether s is an http or https link with a host.
func webLink(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && u.User == nil
}

// Check is the server's side: args of verb as Normalize writes them, and
// nothing else. It returns the flags' names given (for the actor rule).
func Check(verb string, args []string) (Given, error) {
	flags, ok := verbFlags[verb]
	if !ok {
		return nil, usagef("the remote verbs are "+strings.Join(Verbs, ", "), "%q does not run on a server", verb)
	}
	given := Given{}
	var pos []string
	for i, a := range args {
		if a == "--" {
			pos = append(pos, args[i+1:]...)
			break
		}
		name, value, hasValue, isFlag := splitFlag(a)
		if !isFlag {
			pos = append(pos, a)
			continue
		}
		takes, known := flags[name]
		switch {
		case !known:
			return nil, refusal(verb, name)
		case takes && !hasValue:
			return nil, usagef("", "%s: the server takes a flag's value as --%s=VALUE", a, name)
		case !takes && hasValue && value != "true" && value != "false":
			return nil, usagef("", "%s: want --%s, --%s=true or --%s=false", a, name, name, name)
		}
		given[name] = append(given[name], value)
	}
	for _, p := range pos {
		switch verb {
		case "save":
			if !webLink(p) && !itemID.MatchString(p) {
				return nil, usagef("a remote save takes web links (http or https, written in full) and item ids; save a local file on the machine that has it",
					"%q: not a web link: a remote save reads no file and no path on the server", p)
			}
		case "show", "status", "annotate", "tag", "related":
			if !webLink(p) && !itemID.MatchString(p) {
				return nil, usagef("name the item by its id (ll_ and 16 hex digits) or its full http(s) link", "%q: a remote %s names an item by id or web link", p, verb)
			}
		}
	}
	if verb == "brief" && len(pos) == 0 && !given.Has("query", "help", "h") {
		return nil, usagef("linkledger brief TOPIC ..., or --query TEXT", "a remote brief takes its topic as arguments, not ll-find records on stdin")
	}
	if verb == "save" && len(pos) == 0 && !given.Has("help", "h") {
		return nil, usagef("linkledger save https://example.com/post", "a remote save takes its links as arguments, not records on stdin")
	}
	return given, nil
}

// Given are the flags of a checked request, by name, with their values.
type Given map[string][]string

// Has reports whether any of names was given.
func (g Given) Has(names ...string) bool {
	for _, n := range names {
		if _, ok := g[n]; ok {
			return true
		}
	}
	return false
}
