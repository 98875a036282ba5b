package cli

import (
	"errors"
	"strings"
	"testing"
)

// A filter pointed at a server (--db URL, LINKLEDGER_DB=URL, or
// LINKLEDGER_URL with no local file named) says it works on a local file
// only (usage, exit 2); a local file named alongside LINKLEDGER_URL is
// used.
func TestLocateDBRefusesURL(t *testing.T) {
	cases := []struct {
		name, flag string
		vars       map[string]string
		want       string // "" : no error
	}{
		{"db flag", "https://ledger.example/", nil, "--db https://ledger.example/: a URL"},
		{"db env", "http://127.0.0.1:8080/", map[string]string{"LINKLEDGER_DB": "http://127.0.0.1:8080/"}, "LINKLEDGER_DB http://127.0.0.1:8080/: a URL"},
		{"server url, no file", "", map[string]string{"LINKLEDGER_URL": "https://ledger.example/", "HOME": "/home/u"}, "LINKLEDGER_URL is set, and this command works on a local ledger file only"},
		{"server url, local file", "/x/ll.db", map[string]string{"LINKLEDGER_URL": "https://ledger.example/"}, ""},
		{"a path with ://", "./a://b.db", nil, ""},
	}
	for _, c := range cases {
		_, err := LocateDB(c.flag, envWith(c.vars, "/"))
		if c.want == "" {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			continue
		}
		var ee *ExitError
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.As(err, &ee) || ee.Code != ExitUsage {
			t.Errorf("%s: got %v; want a usage error with %q", c.name, err, c.want)
		}
		var h Hinter
		if err != nil && (!errors.As(err, &h) || !strings.Contains(h.Hint(), "local ledger file only")) {
			t.Errorf("%s: the hint does not say local file only: %v", c.name, err)
		}
	}
}
