package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/linkledger/linkledger/lib/record"
)

// TestTagLimits: tags are bounded in number and length, and the error
// message for a bad one is short and escaped whatever the tag holds.
func TestTagLimits(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	ctx := context.Background()
	many := make([]string, 20000)
	for i := range many {
		many[i] = fmt.Sprintf("tag-%d", i)
	}
	atCap := append([]string(nil), many[:MaxTags]...)
	for range 200 { // duplicates do not count against the cap
		atCap = append(atCap, "TAG-1", " tag-2 ")
	}
	tests := []struct {
		name    string
		tags    []string
		wantErr string // substring of the message; "" for success
	}{
		{"20,000 distinct tags refused", many, fmt.Sprintf("more than %d tags", MaxTags)},
		{"at the cap with duplicates", atCap, ""},
		{"1 MB tag", []string{strings.Repeat("a", 1<<20)}, `tag "aaaa`},
		{"escape sequence", []string{"x\x1b[2J\x1b]0;pwned\x07"}, `tag "x\x1b[2J\x1b]0;pwned\a"`},
		{"tab", []string{"a\tb"}, `tag "a\tb"`},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := item(fmt.Sprintf("https://tags.example/%d", i))
			rec.Tags = tt.tags
			out, err := s.Save(ctx, rec, SaveOptions{})
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				if n := len(out.Save.TagsAdded); n != MaxTags {
					t.Errorf("%d tags added, want %d", n, MaxTags)
				}
				return
			}
			var re *record.Error
			if !errors.As(err, &re) || re.Code != record.CodeBadInput {
				t.Fatalf("error %v, want bad_input", err)
			}
			if !strings.Contains(re.Message, tt.wantErr) {
				t.Errorf("message %.200q does not contain %q", re.Message, tt.wantErr)
			}
			if len(re.Message) > 200 || strings.ContainsAny(re.Message, "\x1b\x07\t") {
				t.Errorf("message of %d bytes %.200q: want short and escaped", len(re.Message), re.Message)
			}
		})
	}
}

// BenchmarkCleanTags times cleaning a record of 250,000 tags (256 distinct).
func BenchmarkCleanTags(b *testing.B) {
	tags := make([]string, 250000)
	for i := range tags {
		tags[i] = fmt.Sprintf("Tag-%d", i%MaxTags)
	}
	for b.Loop() {
		if _, err := cleanTags(tags); err != nil {
			b.Fatal(err)
		}
	}
}
