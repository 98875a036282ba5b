package canon

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/format"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/linkledger/linkledger/lib/internal/golden"
)

// rulesSource is rules_default.go as rules.json makes it: the one way that
// file is written (go test ./lib/canon -run TestRulesSource -update).
func rulesSource(f rulesFile) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`// Code generated from rules.json by TestRulesSource (go test ./lib/canon -run TestRulesSource -update); DO NOT EDIT.

package canon

// defaultRulesFile is rules.json as Go values, so a process that
// canonicalizes a URL does not decode JSON first (encoding/json built its
// decoder and parsed the file on every ll-save run: ~0.2-0.3 ms).
// rules.json stays the documented table; TestDefaultRulesFile fails when
// the two differ.
`)
	list := func(xs []string) string {
		q := make([]string, len(xs))
		for i, x := range xs {
			q[i] = strconv.Quote(x)
		}
		return strings.Join(q, ", ")
	}
	keys := func(n int, key func(i int) string) []string {
		ks := make([]string, n)
		for i := range ks {
			ks[i] = key(i)
		}
		sort.Strings(ks)
		return ks
	}
	fmt.Fprintf(&b, "var defaultRulesFile = rulesFile{\n\tComment: %s,\n", strconv.Quote(f.Comment))
	fmt.Fprintf(&b, "\tParams: []string{\n%s,\n},\n", list(f.Params))
	fmt.Fprintf(&b, "\tParamPrefixes: []string{\n%s,\n},\n", list(f.ParamPrefixes))
	b.WriteString("\tHostParams: map[string][]string{\n")
	hosts := make([]string, 0, len(f.HostParams))
	for h := range f.HostParams {
		hosts = append(hosts, h)
	}
	sort.Strings(hosts)
	for _, h := range hosts {
		fmt.Fprintf(&b, "\t\t%s: {%s},\n", strconv.Quote(h), list(f.HostParams[h]))
	}
	b.WriteString("\t},\n\tHostAliases: map[string]string{\n")
	aliases := make([]string, 0, len(f.HostAliases))
	for a := range f.HostAliases {
		aliases = append(aliases, a)
	}
	for _, a := range keys(len(aliases), func(i int) string { return aliases[i] }) {
		fmt.Fprintf(&b, "\t\t%s: %s,\n", strconv.Quote(a), strconv.Quote(f.HostAliases[a]))
	}
	b.WriteString("\t},\n}\n")
	return format.Source(b.Bytes())
}

// TestRulesSource: rules_default.go is exactly what rules.json generates;
// with -update it is rewritten.
func TestRulesSource(t *testing.T) {
	dec := json.NewDecoder(bytes.NewReader(defaultRulesJSON))
	dec.DisallowUnknownFields()
	var f rulesFile
	if err := dec.Decode(&f); err != nil {
		t.Fatal(err)
	}
	src, err := rulesSource(f)
	if err != nil {
		t.Fatal(err)
	}
	if golden.Update() {
		if err := os.WriteFile("rules_default.go", src, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	have, err := os.ReadFile("rules_default.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(have, src) {
		t.Fatalf("rules_default.go is not what rules.json generates; run: go test ./lib/canon -run TestRulesSource -update")
	}
}
