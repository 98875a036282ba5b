package linkledger

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestArgMapping(t *testing.T) {
	cases := []struct {
		name string
		fn   func([]string) []string
		in   []string
		want []string
	}{
		{"annotate", annotateArgs, []string{"ll_x", "--highlight", "h", "--note", "n", "--confidence", "0.8"}, []string{"ll_x", "--highlight", "h", "--annotate-note", "n", "--confidence", "0.8"}},
		{"tag", tagArgs, []string{"ll_x", "--add", "a,b", "--remove=c"}, []string{"ll_x", "--tags", "a,b", "--untag=c"}},
		{"related", relatedArgs, []string{"ll_x", "--max-items", "3"}, []string{"--related", "ll_x", "--limit", "3"}},
		{"brief", briefArgs, []string{"agent", "memory", "--max-items", "8", "--json"}, []string{"--query", "agent memory", "--max-items", "8", "--json"}},
		{"brief tail", briefArgs, []string{"agent", "--max-pointers", "3", "--pointer-words", "12", "memory"}, []string{"--query", "agent memory", "--max-pointers", "3", "--pointer-words", "12"}},
		{"brief stdin", briefArgs, []string{"--format", "md"}, []string{"--format", "md"}},
	}
	for _, c := range cases {
		if diff := cmp.Diff(c.want, c.fn(c.in)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
	}
}
