package canon

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
)

// defaultRulesJSON is the documented table; the build uses the same rules
// as Go values (defaultRulesFile, checked against this by a test).
//
//go:embed rules.json
var defaultRulesJSON []byte

// Rules is the data table of the canonicalizer: tracking parameters to drop
// (globally, by prefix and per host) and host aliases. DefaultRules builds it
// from the embedded rules.json; MergeFile extends it with a user file of the
// same shape. A Rules is safe for concurrent Canonicalize calls once built.
type Rules struct {
	params     map[string]bool            // lower-case parameter names dropped everywhere
	prefixes   []string                   // lower-case parameter name prefixes dropped everywhere
	hostParams map[string]map[string]bool // host (and its subdomains) → lower-case names dropped there
	aliases    map[string]string          // host → canonical host
}

// rulesFile is the JSON shape of rules.json and of user rule files.
type rulesFile struct {
	Comment       string              `json:"comment,omitempty"`
	Params        []string            `json:"params,omitempty"`
	ParamPrefixes []string            `json:"param_prefixes,omitempty"`
	HostParams    map[string][]string `json:"host_params,omitempty"`
	HostAliases   map[string]string   `json:"host_aliases,omitempty"`
}

var (
	defaultOnce  sync.Once
	defaultRules *Rules
	defaultErr   error
)

// sharedDefault returns one parsed copy of the embedded rules, used by the
// package-level Canonicalize. It is never handed out, so nobody can mutate it.
func sharedDefault() *Rules {
	defaultOnce.Do(func() {
		defaultRules = newRules()
		defaultErr = defaultRules.apply(defaultRulesFile)
	})
	if defaultErr != nil {
		// The embedded file is part of the build; a broken one is a bug
		// that TestDefaultRules catches.
		panic("canon: embedded rules.json: " + defaultErr.Error())
	}
	return defaultRules
}

// DefaultRules returns a fresh copy of the built-in table (embedded
// rules.json). The caller may extend it with MergeFile without affecting
// other callers.
func DefaultRules() *Rules {
	return sharedDefault().clone()
}

func newRules() *Rules {
	return &Rules{
		params:     map[string]bool{},
		hostParams: map[string]map[string]bool{},
		aliases:    map[string]string{},
	}
}

func (r *Rules) clone() *Rules {
	c := newRules()
	for k := range r.params {
		c.params[k] = true
	}
	c.prefixes = append([]string(nil), r.prefixes...)
	for h, ps := range r.hostParams {
		m := make(map[string]bool, len(ps))
		for k := range ps {
			m[k] = true
		}
		c.hostParams[h] = m
	}
	for k, v := range r.aliases {
		c.aliases[k] = v
	}
	return c
}

// MergeFile extends r with the rules in the JSON file at path (same shape as
// the embedded rules.json, every key optional). Parameters, prefixes and
// per-host parameters are added; a host alias replaces an existing alias for
// the same host. Unknown keys are an error, so a typo does not silently do
// nothing. On error r is left unchanged.
func (r *Rules) MergeFile(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("canon: rules file: %w", err)
	}
	c := r.clone()
	if err := c.merge(data); err != nil {
		return fmt.Errorf("canon: rules file %s: %w", path, err)
	}
	*r = *c
	return nil
}

func (r *Rules) merge(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var f rulesFile
	if err := dec.Decode(&f); err != nil {
		return err
	}
	return r.apply(f)
}

// apply adds the rules of f to r (see MergeFile).
func (r *Rules) apply(f rulesFile) error {
	for _, p := range f.Params {
		p = strings.ToLower(strings.TrimSpace(p))
		if p == "" {
			return fmt.Errorf("params: empty name")
		}
		r.params[p] = true
	}
	for _, p := range f.ParamPrefixes {
		p = strings.ToLower(strings.TrimSpace(p))
		if p == "" {
			return fmt.Errorf("param_prefixes: empty prefix")
		}
		if !contains(r.prefixes, p) {
			r.prefixes = append(r.prefixes, p)
		}
	}
	for h, ps := range f.HostParams {
		h = strings.ToLower(strings.TrimSpace(h))
		if !validHost(h) {
			return fmt.Errorf("host_params: bad host %q", h)
		}
		m := r.hostParams[h]
		if m == nil {
			m = map[string]bool{}
			r.hostParams[h] = m
		}
		for _, p := range ps {
			p = strings.ToLower(strings.TrimSpace(p))
			if p == "" {
				return fmt.Errorf("host_params %s: empty name", h)
			}
			m[p] = true
		}
	}
	for from, to := range f.HostAliases {
		from = strings.ToLower(strings.TrimSpace(from))
		to = strings.ToLower(strings.TrimSpace(to))
		if !validHost(from) || !validHost(to) {
			return fmt.Errorf("host_aliases: bad alias %q → %q", from, to)
		}
		r.aliases[from] = to
	}
	return nil
}

// Params lists the globally dropped parameter names, sorted (for docs and
// diagnostics).
func (r *Rules) Params() []string {
	out := make([]string, 0, len(r.params))
	for k := range r.params {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// isTracking reports whether the query parameter name (decoded) is dropped on
// host.
func (r *Rules) isTracking(host, name string) bool {
	name = strings.ToLower(name)
	if r.params[name] {
		return true
	}
	for _, p := range r.prefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	for h := host; h != ""; {
		if r.hostParams[h][name] {
			return true
		}
		i := strings.IndexByte(h, '.')
		if i < 0 {
			break
		}
		h = h[i+1:]
	}
	return false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
