package ledger

import (
	"errors"
	"testing"

	"github.com/linkledger/linkledger/lib/canon"
	"github.com/linkledger/linkledger/lib/record"
)

// TestRemoteURL: the remote faces' rule takes web links, a host with a
// path included, and refuses every local file form without looking.
func TestRemoteURL(t *testing.T) {
	for _, tc := range []struct{ in, want, code string }{
		{"https://example.com/a", "https://example.com/a", ""},
		{"  http://example.com  ", "http://example.com", ""},
		{"example.com/page", "https://example.com/page", ""},
		{"file:///etc/passwd", "", record.CodeFileNotAllowed},
		{"/etc/passwd", "", record.CodeFileNotAllowed},
		{"~/notes.txt", "", record.CodeFileNotAllowed},
		{"./x", "", record.CodeFileNotAllowed},
		{"notes.txt", "", record.CodeFileNotAllowed},
		{"javascript:alert(1)", "", record.CodeUnsupported},
		{"ftp://x/y", "", record.CodeUnsupported},
		{"two words", "", record.CodeBadInput},
		{"", "", record.CodeBadURL},
	} {
		got, err := RemoteURL(tc.in)
		if tc.code == "" {
			if err != nil || got != tc.want {
				t.Errorf("RemoteURL(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
			}
			continue
		}
		var ie *InputError
		if !errors.As(err, &ie) || ie.Code != tc.code || got != "" {
			t.Errorf("RemoteURL(%q) = %q, %v; want an InputError %s", tc.in, got, err, tc.code)
		}
		if tc.code == record.CodeFileNotAllowed && !errors.Is(err, canon.ErrLocalFile) {
			t.Errorf("RemoteURL(%q): %v does not wrap canon.ErrLocalFile", tc.in, err)
		}
	}
}
