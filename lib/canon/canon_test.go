package canon

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/linkledger/linkledger/lib/record"
)

const vid = "dQw4w9WgXcQ"

// art, pdf, txt build expected results of the given type.
func art(u string) Result { return Result{URL: u, SourceType: record.SourceArticle} }
func pdf(u string) Result { return Result{URL: u, SourceType: record.SourcePDF} }
func txt(u string) Result { return Result{URL: u, SourceType: record.SourceText} }

func yt(start int) Result {
	return Result{URL: "https://www.youtube.com/watch?v=" + vid, SourceType: record.SourceYouTube, YouTubeID: vid, StartS: start}
}

func xs(user, id string) Result {
	u := "https://x.com/" + user + "/status/" + id
	if user == "i" {
		u = "https://x.com/i/status/" + id
	}
	return Result{URL: u, SourceType: record.SourceX, XUser: user, XStatusID: id}
}

func TestCanonicalize(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want Result
	}{
		// Scheme, host, port.
		{"lower scheme and host", "HTTPS://Example.COM/Path", art("https://example.com/Path")},
		{"empty path", "https://example.com", art("https://example.com/")},
		{"empty path with query", "https://example.com?b=2&a=1", art("https://example.com/?a=1&b=2")},
		{"default http port", "http://example.com:80/a", art("http://example.com/a")},
		{"default https port", "https://example.com:443/a", art("https://example.com/a")},
		{"443 on http kept", "http://example.com:443/a", art("http://example.com:443/a")},
		{"80 on https kept", "https://example.com:80/a", art("https://example.com:80/a")},
		{"custom port kept", "https://example.com:8443/a", art("https://example.com:8443/a")},
		{"empty port", "https://example.com:/a", art("https://example.com/a")},
		{"leading zero port", "http://example.com:0080/", art("http://example.com/")},
		{"trailing dot host", "https://example.com./a", art("https://example.com/a")},
		{"ipv6 host", "http://[2001:DB8::1]:8080/x", art("http://[2001:db8::1]:8080/x")},
		{"ipv4 host", "http://127.0.0.1:8080/x", art("http://127.0.0.1:8080/x")},
		{"www kept", "https://www.example.com/", art("https://www.example.com/")},
		{"idn host", "https://Bücher.example/a", art("https://xn--bcher-kva.example/a")},
		{"idn already punycode", "https://XN--BCHER-KVA.example/a", art("https://xn--bcher-kva.example/a")},
		{"idn fullwidth dot", "https://例え.テスト/", art("https://xn--r8jz45g.xn--zckzah/")},

		// Path.
		{"path case kept", "https://example.com/Docs/README", art("https://example.com/Docs/README")},
		{"dot segments", "https://example.com/a/./b/../c", art("https://example.com/a/c")},
		{"dot segments above root", "https://example.com/../../a", art("https://example.com/a")},
		{"trailing dot-dot", "https://example.com/a/b/..", art("https://example.com/a/")},
		{"encoded dot segment", "https://example.com/a/%2E%2E/b", art("https://example.com/b")},
		{"trailing slash kept", "https://example.com/a/", art("https://example.com/a/")},
		{"double slash kept", "https://example.com/a//b", art("https://example.com/a//b")},
		{"unreserved decoded", "https://example.com/%7Euser/%41%62c-%5F", art("https://example.com/~user/Abc-_")},
		{"escape hex upper-cased", "https://example.com/a%2fb%e2%82%ac", art("https://example.com/a%2Fb%E2%82%AC")},
		{"reserved escape kept", "https://example.com/a%3Ab", art("https://example.com/a%3Ab")},
		{"non-ascii path encoded", "https://example.com/café", art("https://example.com/caf%C3%A9")},
		{"space encoded", "https://example.com/a b", art("https://example.com/a%20b")},
		{"lone percent", "https://example.com/50%-off", art("https://example.com/50%25-off")},

		// Query.
		{"query sorted", "https://example.com/?b=2&a=1&c=3", art("https://example.com/?a=1&b=2&c=3")},
		{"repeated keys keep order", "https://example.com/?t=2&a=1&t=1", art("https://example.com/?a=1&t=2&t=1")},
		{"empty query removed", "https://example.com/a?", art("https://example.com/a")},
		{"empty pairs removed", "https://example.com/a?&&x=1&", art("https://example.com/a?x=1")},
		{"key without value kept", "https://example.com/a?flag&x=", art("https://example.com/a?flag&x=")},
		{"query escapes normalised", "https://example.com/?q=%7e%2fa%20b+c", art("https://example.com/?q=~%2Fa%20b+c")},
		{"query non-ascii encoded", "https://example.com/?q=naïve", art("https://example.com/?q=na%C3%AFve")},
		{"query ampersand escape kept", "https://example.com/?q=a%26b", art("https://example.com/?q=a%26b")},

		// Tracking parameters.
		{"utm family", "https://example.com/a?utm_source=x&utm_medium=y&utm_campaign=z&utm_term=t&utm_content=c&utm_id=1&id=7", art("https://example.com/a?id=7")},
		{"utm upper case", "https://example.com/a?UTM_Source=x&id=7", art("https://example.com/a?id=7")},
		{"google ads", "https://example.com/a?gclid=1&gclsrc=2&dclid=3&gbraid=4&wbraid=5&gad_source=6&_ga=7&_gl=8&srsltid=9", art("https://example.com/a")},
		{"social click ids", "https://example.com/a?fbclid=1&msclkid=2&twclid=3&ttclid=4&li_fat_id=5&igshid=6&igsh=7&yclid=8&epik=9", art("https://example.com/a")},
		{"mailchimp", "https://example.com/a?mc_cid=1&mc_eid=2&p=1", art("https://example.com/a?p=1")},
		{"hubspot", "https://example.com/a?_hsenc=1&_hsmi=2&__hssc=3&__hstc=4&__hsfp=5&hsCtaTracking=6&hsa_acc=7", art("https://example.com/a")},
		{"marketo olytics vero", "https://example.com/a?mkt_tok=1&oly_anon_id=2&oly_enc_id=3&vero_id=4&vero_conv=5", art("https://example.com/a")},
		{"misc trackers", "https://example.com/a?wickedid=1&s_cid=2&_openstat=3&rb_clickid=4&spm=5&ref_src=6&ref_url=7&mtm_campaign=8", art("https://example.com/a")},
		{"encoded tracking name", "https://example.com/a?utm%5Fsource=x&k=v", art("https://example.com/a?k=v")},
		{"si kept on other hosts", "https://example.com/a?si=1", art("https://example.com/a?si=1")},
		{"si dropped on spotify", "https://open.spotify.com/track/abc?si=123", art("https://open.spotify.com/track/abc")},
		{"feature dropped on youtube channel", "https://www.youtube.com/@chan/videos?feature=shared&si=x&view=0", art("https://www.youtube.com/@chan/videos?view=0")},
		{"feature kept elsewhere", "https://example.com/?feature=x", art("https://example.com/?feature=x")},
		{"ref kept", "https://example.com/?ref=hn", art("https://example.com/?ref=hn")},

		// Fragments.
		{"fragment dropped", "https://example.com/a#section-2", art("https://example.com/a")},
		{"fragment after query dropped", "https://example.com/a?b=1#c", art("https://example.com/a?b=1")},

		// YouTube.
		{"yt watch", "https://www.youtube.com/watch?v=" + vid, yt(0)},
		{"yt watch no www", "https://youtube.com/watch?v=" + vid, yt(0)},
		{"yt watch http", "http://www.youtube.com/watch?v=" + vid, yt(0)},
		{"yt watch params any order", "https://www.youtube.com/watch?list=PL123&index=2&v=" + vid + "&feature=share&si=abc&pp=xyz", yt(0)},
		{"yt watch t seconds", "https://www.youtube.com/watch?v=" + vid + "&t=90", yt(90)},
		{"yt watch t units", "https://www.youtube.com/watch?t=1m30s&v=" + vid, yt(90)},
		{"yt watch t hours", "https://www.youtube.com/watch?v=" + vid + "&t=1h2m3s", yt(3723)},
		{"yt watch start", "https://www.youtube.com/watch?v=" + vid + "&start=90", yt(90)},
		{"yt fragment t", "https://www.youtube.com/watch?v=" + vid + "#t=90", yt(90)},
		{"yt fragment t units", "https://www.youtube.com/watch?v=" + vid + "#t=2m", yt(120)},
		{"yt bad t", "https://www.youtube.com/watch?v=" + vid + "&t=soon", yt(0)},
		{"youtu.be", "https://youtu.be/" + vid, yt(0)},
		{"youtu.be with t and si", "https://youtu.be/" + vid + "?si=abcdef&t=42", yt(42)},
		{"yt shorts", "https://www.youtube.com/shorts/" + vid + "?feature=share", yt(0)},
		{"yt embed", "https://www.youtube.com/embed/" + vid + "?start=30", yt(30)},
		{"yt live", "https://www.youtube.com/live/" + vid + "?si=x", yt(0)},
		{"yt e", "https://www.youtube.com/e/" + vid, yt(0)},
		{"yt v", "https://www.youtube.com/v/" + vid, yt(0)},
		{"yt mobile", "https://m.youtube.com/watch?v=" + vid + "&t=5s", yt(5)},
		{"yt music", "https://music.youtube.com/watch?v=" + vid + "&list=RDAMVM", yt(0)},
		{"yt nocookie", "https://www.youtube-nocookie.com/embed/" + vid, yt(0)},
		{"yt upper-case host", "https://WWW.YouTube.com/watch?v=" + vid, yt(0)},
		{"yt short id is article", "https://www.youtube.com/watch?v=abc", art("https://www.youtube.com/watch?v=abc")},
		{"yt long id is article", "https://youtu.be/" + vid + "X", art("https://youtu.be/" + vid + "X")},
		{"yt channel is article", "https://www.youtube.com/@SomeChannel", art("https://www.youtube.com/@SomeChannel")},
		{"yt playlist is article", "https://www.youtube.com/playlist?list=PL123&si=x", art("https://www.youtube.com/playlist?list=PL123")},

		// X / Twitter.
		{"x status", "https://x.com/jack/status/20", xs("jack", "20")},
		{"x status case kept", "https://x.com/Jack/status/20", xs("Jack", "20")},
		{"twitter status", "https://twitter.com/jack/status/20", xs("jack", "20")},
		{"www twitter", "http://www.twitter.com/jack/status/20", xs("jack", "20")},
		{"mobile twitter", "https://mobile.twitter.com/jack/status/20?s=20&t=abc", xs("jack", "20")},
		{"mobile x", "https://mobile.x.com/jack/status/20", xs("jack", "20")},
		{"www x", "https://www.x.com/jack/status/20", xs("jack", "20")},
		{"x statuses", "https://twitter.com/jack/statuses/20", xs("jack", "20")},
		{"x query dropped", "https://x.com/jack/status/20?s=46&t=AbC&ref_src=twsrc%5Etfw&lang=en", xs("jack", "20")},
		{"x photo", "https://x.com/jack/status/20/photo/1", xs("jack", "20")},
		{"x video", "https://x.com/jack/status/20/video/1", xs("jack", "20")},
		{"x trailing slash", "https://x.com/jack/status/20/", xs("jack", "20")},
		{"x i web status", "https://twitter.com/i/web/status/1234567890123456789", xs("i", "1234567890123456789")},
		{"x i status", "https://x.com/i/status/1234567890123456789", xs("i", "1234567890123456789")},
		{"x hashbang", "http://twitter.com/#!/jack/status/20", xs("jack", "20")},
		{"x profile is article", "https://twitter.com/jack?lang=en&utm_source=x", art("https://x.com/jack?lang=en")},
		{"x non-numeric status is article", "https://x.com/jack/status/abc", art("https://x.com/jack/status/abc")},
		{"x status likes is article", "https://x.com/jack/status/20/likes", art("https://x.com/jack/status/20/likes")},
		{"x lookalike host is article", "https://notx.com/jack/status/20", art("https://notx.com/jack/status/20")},

		// Source types by extension.
		{"pdf", "https://example.com/paper.pdf", pdf("https://example.com/paper.pdf")},
		{"pdf upper", "https://example.com/Paper.PDF?download=1", pdf("https://example.com/Paper.PDF?download=1")},
		{"txt", "https://example.com/rfc.txt", txt("https://example.com/rfc.txt")},
		{"md", "https://example.com/README.md", txt("https://example.com/README.md")},
		{"markdown", "https://example.com/a.markdown", txt("https://example.com/a.markdown")},
		{"text", "https://example.com/a.text", txt("https://example.com/a.text")},
		{"pdf in query is article", "https://example.com/get?file=a.pdf", art("https://example.com/get?file=a.pdf")},
		{"html", "https://example.com/a.html", art("https://example.com/a.html")},

		// file:// URLs.
		{"file pdf", "file:///home/u/papers/a.pdf", pdf("file:///home/u/papers/a.pdf")},
		{"file localhost", "file://localhost/home/u/a.md", txt("file:///home/u/a.md")},
		{"file cleaned", "file:///home/u/./x/../a//b.txt", txt("file:///home/u/a/b.txt")},
		{"file html", "file:///home/u/page.html", art("file:///home/u/page.html")},
		{"file escaped", "file:///home/u/my%20notes.md", txt("file:///home/u/my%20notes.md")},
		{"file fragment dropped", "file:///home/u/a.pdf#page=2", pdf("file:///home/u/a.pdf")},
		{"file single slash", "file:/tmp/a.txt", txt("file:///tmp/a.txt")},
		{"file upper scheme", "FILE:///tmp/a.txt", txt("file:///tmp/a.txt")},
	}
	seen := map[string]bool{}
	for _, tt := range tests {
		if seen[tt.name] {
			t.Fatalf("duplicate case name %q", tt.name)
		}
		seen[tt.name] = true
		t.Run(tt.name, func(t *testing.T) {
			got, err := Canonicalize(tt.in)
			if err != nil {
				t.Fatalf("Canonicalize(%q): %v", tt.in, err)
			}
			tt.want.Original = tt.in
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Canonicalize(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
			// Canonicalization is idempotent.
			again, err := Canonicalize(got.URL)
			if err != nil {
				t.Fatalf("Canonicalize(%q) again: %v", got.URL, err)
			}
			if again.URL != got.URL {
				t.Errorf("not idempotent: %q → %q → %q", tt.in, got.URL, again.URL)
			}
		})
	}
	if len(tests) < 60 {
		t.Errorf("only %d cases", len(tests))
	}
}

// TestDistinct checks URLs that must NOT be merged into one item.
func TestDistinct(t *testing.T) {
	pairs := [][2]string{
		{"https://example.com/?id=1", "https://example.com/?id=2"},
		{"https://example.com/Path", "https://example.com/path"},
		{"http://example.com/", "https://example.com/"},
		{"https://www.example.com/", "https://example.com/"},
		{"https://example.com/a", "https://example.com/a/"},
		{"https://example.com/a/b", "https://example.com/a%2Fb"},
		{"https://example.com/?a=1&a=2", "https://example.com/?a=2&a=1"},
		{"https://example.com/?q=a+b", "https://example.com/?q=a%2Bb"},
		{"https://example.com:8080/", "https://example.com/"},
		{"https://example.com/?flag", "https://example.com/?flag="},
		{"https://www.youtube.com/watch?v=" + vid, "https://www.youtube.com/watch?v=aaaaaaaaaaa"},
		{"https://x.com/jack/status/20", "https://x.com/jack/status/21"},
		{"https://open.spotify.com/track/abc?si=1&context=a", "https://open.spotify.com/track/abc?context=b"},
	}
	for _, p := range pairs {
		a, err := Canonicalize(p[0])
		if err != nil {
			t.Fatal(err)
		}
		b, err := Canonicalize(p[1])
		if err != nil {
			t.Fatal(err)
		}
		if a.URL == b.URL {
			t.Errorf("%q and %q both canonicalize to %q", p[0], p[1], a.URL)
		}
	}
}

func TestCanonicalizeErrors(t *testing.T) {
	tests := []struct {
		in   string
		want error
	}{
		{"", ErrBadURL},
		{"   ", ErrBadURL},
		{"example.com/a", ErrBadURL}, // no scheme: FromInput's job
		{"/tmp/a.pdf", ErrBadURL},
		{"http://", ErrBadURL},
		{"https:///path", ErrBadURL},
		{"http:/example.com", ErrBadURL},
		{"http:example.com", ErrBadURL},
		{"http://exa mple.com/", ErrBadURL},
		{"http://example.com\t/", ErrBadURL},
		{"http://exa<mple.com/", ErrBadURL},
		{"http://a..b/", ErrBadURL},
		{"http://example.com:99999999999/", ErrBadURL},
		{"http://example.com:0/", ErrBadURL},
		{"http://example.com:abc/", ErrBadURL},
		{"http://[::1/", ErrBadURL},
		{"file://server/share/a.pdf", ErrBadURL},
		{"file:relative.pdf", ErrBadURL},
		{"ftp://example.com/a", ErrUnsupportedScheme},
		{"javascript:alert(1)", ErrUnsupportedScheme},
		{"mailto:a@example.com", ErrUnsupportedScheme},
		{"data:text/plain,hi", ErrUnsupportedScheme},
	}
	for _, tt := range tests {
		got, err := Canonicalize(tt.in)
		if !errors.Is(err, tt.want) {
			t.Errorf("Canonicalize(%q) = %+v, %v; want error %v", tt.in, got, err, tt.want)
		}
	}
}

func TestFromInput(t *testing.T) {
	cwd := t.TempDir()
	home := "/home/u"
	for _, f := range []string{"notes.md", "example.org", "my file.txt"} {
		if err := os.WriteFile(filepath.Join(cwd, f), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cwdURL := "file://" + filepath.ToSlash(cwd)
	tests := []struct {
		in, want string
	}{
		{"https://example.com/a?b#c", "https://example.com/a?b#c"},
		{"  HTTP://Example.com  ", "HTTP://Example.com"},
		{"file:///tmp/a.pdf", "file:///tmp/a.pdf"},
		{"/tmp/a.pdf", "file:///tmp/a.pdf"},
		{"/tmp/x/../a b#1?.pdf", "file:///tmp/a%20b%231%3F.pdf"},
		{"~/docs/a.md", "file:///home/u/docs/a.md"},
		{"~", "file:///home/u"},
		{"./a.pdf", cwdURL + "/a.pdf"},
		{"../a.pdf", "file://" + filepath.ToSlash(filepath.Dir(cwd)) + "/a.pdf"},
		{"notes.md", cwdURL + "/notes.md"},
		{"example.org", cwdURL + "/example.org"}, // exists on disk: a file wins
		{"my file.txt", cwdURL + "/my%20file.txt"},
		{"docs/missing.md", cwdURL + "/docs/missing.md"},
		{"example.com/x", "https://example.com/x"},
		{"example.com", "https://example.com"},
		{"www.example.co.uk/a?b=1", "https://www.example.co.uk/a?b=1"},
		{"localhost:8080/x", "https://localhost:8080/x"},
		{"127.0.0.1/x", "https://127.0.0.1/x"},
		{"bücher.example/a", "https://bücher.example/a"},
	}
	for _, tt := range tests {
		got, err := FromInput(tt.in, cwd, home)
		if err != nil {
			t.Errorf("FromInput(%q): %v", tt.in, err)
			continue
		}
		if got != tt.want {
			t.Errorf("FromInput(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}

	errs := []struct {
		in   string
		want error
	}{
		{"", ErrBadURL},
		{" \t ", ErrBadURL},
		{"nosuchword", ErrBadURL},
		{"ftp://example.com/a", ErrUnsupportedScheme},
		{"javascript:alert(1)", ErrUnsupportedScheme},
		{"mailto:a@example.com", ErrUnsupportedScheme},
	}
	for _, tt := range errs {
		got, err := FromInput(tt.in, cwd, home)
		if !errors.Is(err, tt.want) {
			t.Errorf("FromInput(%q) = %q, %v; want error %v", tt.in, got, err, tt.want)
		}
	}
	if _, err := FromInput("~/a", cwd, ""); !errors.Is(err, ErrBadURL) {
		t.Errorf("~ without home: %v, want ErrBadURL", err)
	}
	if _, err := FromInput("./a", "", home); !errors.Is(err, ErrBadURL) {
		t.Errorf("relative path without cwd: %v, want ErrBadURL", err)
	}
}

// TestFromInputThenCanonicalize checks that every local path FromInput
// produces is accepted by Canonicalize with the right type.
func TestFromInputThenCanonicalize(t *testing.T) {
	u, err := FromInput("/tmp/dir/../My Paper.PDF", "/", "/home/u")
	if err != nil {
		t.Fatal(err)
	}
	got, err := Canonicalize(u)
	if err != nil {
		t.Fatal(err)
	}
	want := Result{URL: "file:///tmp/My%20Paper.PDF", Original: u, SourceType: record.SourcePDF}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
}

func TestMergeFile(t *testing.T) {
	dir := t.TempDir()
	rules := filepath.Join(dir, "rules.json")
	err := os.WriteFile(rules, []byte(`{
  "params": ["sessionid"],
  "param_prefixes": ["trk_"],
  "host_params": {"example.org": ["from"]},
  "host_aliases": {"old.example.net": "www.example.net"}
}`), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	r := DefaultRules()
	if err := r.MergeFile(rules); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ in, want string }{
		{"https://example.com/a?sessionid=1&x=2", "https://example.com/a?x=2"},
		{"https://example.com/a?trk_a=1&trk_b=2&x=2", "https://example.com/a?x=2"},
		{"https://sub.example.org/a?from=feed&x=2", "https://sub.example.org/a?x=2"},
		{"https://example.com/a?from=feed", "https://example.com/a?from=feed"},
		{"https://old.example.net/p", "https://www.example.net/p"},
		{"https://example.com/a?utm_source=z", "https://example.com/a"}, // defaults still apply
	}
	for _, tt := range tests {
		got, err := r.Canonicalize(tt.in)
		if err != nil {
			t.Fatal(err)
		}
		if got.URL != tt.want {
			t.Errorf("merged Canonicalize(%q) = %q, want %q", tt.in, got.URL, tt.want)
		}
	}
	// The merge must not leak into the defaults.
	if got, _ := Canonicalize("https://example.com/a?sessionid=1"); got.URL != "https://example.com/a?sessionid=1" {
		t.Errorf("defaults changed by MergeFile: %q", got.URL)
	}
	if got, _ := DefaultRules().Canonicalize("https://old.example.net/p"); got.URL != "https://old.example.net/p" {
		t.Errorf("DefaultRules changed by MergeFile: %q", got.URL)
	}
}

func TestMergeFileErrors(t *testing.T) {
	dir := t.TempDir()
	bad := map[string]string{
		"unknown key": `{"parms": ["x"]}`,
		"not json":    `params: x`,
		"empty param": `{"params": [""]}`,
		"bad alias":   `{"host_aliases": {"a.com": "b c"}}`,
		"bad host":    `{"host_params": {"": ["x"]}}`,
	}
	for name, body := range bad {
		p := filepath.Join(dir, name+".json")
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		r := DefaultRules()
		before := r.Params()
		if err := r.MergeFile(p); err == nil {
			t.Errorf("%s: MergeFile accepted %s", name, body)
		}
		if diff := cmp.Diff(before, r.Params(), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s: failed merge changed rules:\n%s", name, diff)
		}
	}
	if err := DefaultRules().MergeFile(filepath.Join(dir, "missing.json")); err == nil {
		t.Error("MergeFile of a missing file succeeded")
	}
}

// TestDefaultRules checks the embedded table parses and holds the spec's
// parameter list.
func TestDefaultRules(t *testing.T) {
	r := DefaultRules()
	for _, p := range []string{"gclid", "gclsrc", "dclid", "gbraid", "wbraid", "fbclid", "msclkid",
		"mc_cid", "mc_eid", "igshid", "igsh", "ref_src", "ref_url", "yclid", "_hsenc", "_hsmi",
		"__hssc", "__hstc", "__hsfp", "hsctatracking", "mkt_tok", "oly_anon_id", "oly_enc_id",
		"vero_id", "vero_conv", "wickedid", "twclid", "ttclid", "li_fat_id", "s_cid", "_openstat",
		"rb_clickid", "spm"} {
		if !r.isTracking("example.com", p) {
			t.Errorf("%s is not a tracking parameter", p)
		}
	}
	for _, host := range []string{"www.youtube.com", "youtu.be", "open.spotify.com"} {
		if !r.isTracking(host, "si") {
			t.Errorf("si not dropped on %s", host)
		}
	}
}

func TestParseTimestamp(t *testing.T) {
	tests := map[string]int{
		"90": 90, "90s": 90, "1m30s": 90, "1m30": 90, "1h": 3600, "1h2m3s": 3723,
		"1:30": 90, "1:02:03": 3723, "": 0, "abc": 0, "1x": 0, "-5": 0, "m": 0,
	}
	for in, want := range tests {
		if got := parseTimestamp(in); got != want {
			t.Errorf("parseTimestamp(%q) = %d, want %d", in, got, want)
		}
	}
}

func BenchmarkCanonicalize(b *testing.B) {
	inputs := []string{
		"https://Example.com/a/./b/../c?utm_source=x&b=2&a=1#frag",
		"https://www.youtube.com/watch?list=PL1&v=" + vid + "&t=1m30s",
		"https://twitter.com/jack/status/20?s=20",
		"file:///home/u/papers/a.pdf",
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := Canonicalize(inputs[i%len(inputs)]); err != nil {
			b.Fatal(err)
		}
	}
}

// TestSaveInput checks what ll-save accepts: URLs, host names with a path,
// and local paths that exist; a missing path and anything else (lines of
// a bookmarks HTML or CSV file, prose) are errors, never items.
func TestSaveInput(t *testing.T) {
	cwd := t.TempDir()
	home := t.TempDir()
	for _, f := range []string{"notes.md", "my file.txt", "docs/a.md", "example.org"} {
		p := filepath.Join(cwd, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(home, "h.md"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	cwdURL := "file://" + filepath.ToSlash(cwd)
	ok := []struct{ in, want string }{
		{"https://example.com/a,b?c#d", "https://example.com/a,b?c#d"},
		{"  HTTP://Example.com  ", "HTTP://Example.com"},
		{"file:///no/such/file.pdf", "file:///no/such/file.pdf"}, // an explicit URL is taken as given
		{"notes.md", cwdURL + "/notes.md"},
		{"my file.txt", cwdURL + "/my%20file.txt"},
		{"./my file.txt", cwdURL + "/my%20file.txt"},
		{cwd + "/docs/a.md", cwdURL + "/docs/a.md"},
		{"docs/a.md", cwdURL + "/docs/a.md"},
		{"~/h.md", "file://" + filepath.ToSlash(home) + "/h.md"},
		{"example.org", cwdURL + "/example.org"}, // exists on disk: a file wins
		{"example.com/page", "https://example.com/page"},
		{"example.com", "https://example.com"},
		{"localhost:8080/x", "https://localhost:8080/x"},
		{"127.0.0.1/x", "https://127.0.0.1/x"},
		{"example.com/paper.pdf", "https://example.com/paper.pdf"},
	}
	for _, tt := range ok {
		got, err := SaveInput(tt.in, cwd, home)
		if err != nil || got != tt.want {
			t.Errorf("SaveInput(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	errs := []struct {
		in   string
		want error
	}{
		{"", ErrBadURL},
		{"./typo.pdf", ErrNoSuchFile},
		{"typo.pdf", ErrNoSuchFile},
		{"docs/missing.md", ErrNoSuchFile},
		{"/no/such/file", ErrNoSuchFile},
		{"~/missing.md", ErrNoSuchFile},
		{"my missing file.txt", ErrNoSuchFile},
		{`<!DOCTYPE NETSCAPE-Bookmark-file-1>`, ErrNotInput},
		{`<DT><A HREF="https://a.example/" ADD_DATE="1">A</A>`, ErrNotInput},
		{`</DL><p>`, ErrNotInput},
		{`"Title",https://x.example/,tag`, ErrNotInput},
		{`Title,https://x.example/,tag`, ErrNotInput},
		{"Title,URL,Tags", ErrNotInput},
		{"not a url at all", ErrNotInput},
		{"nosuchword", ErrNotInput},
		{"example.com/a page", ErrNotInput},
		{"https://a.example/ Some title", ErrNotInput},
		{"Note: some text", ErrNotInput},
		{"[t](https://x.example/)", ErrNotInput},
		{"a/b\x01c", ErrNotInput},
		{"ftp://example.com/a", ErrUnsupportedScheme},
		{"javascript:alert(1)", ErrUnsupportedScheme},
	}
	for _, tt := range errs {
		got, err := SaveInput(tt.in, cwd, home)
		if !errors.Is(err, tt.want) {
			t.Errorf("SaveInput(%q) = %q, %v; want error %v", tt.in, got, err, tt.want)
		}
	}
	if _, err := SaveInput("./typo.pdf", cwd, home); err == nil || !strings.Contains(err.Error(), filepath.Join(cwd, "typo.pdf")) {
		t.Errorf("missing file error %v: want its absolute path", err)
	}
	if _, err := SaveInput("./a\x1b[2Jb", cwd, home); err == nil || !strings.Contains(err.Error(), `a\x1b[2Jb"`) {
		t.Errorf("missing file error %v: want control characters escaped", err)
	}
}

// TestUserInfoDropped: credentials never reach the canonical URL (shown by
// find and brief) nor the original URL (stored), and two URLs that differ
// only by them are one item.
func TestUserInfoDropped(t *testing.T) {
	for _, tt := range []struct{ in, url, original string }{
		{"https://user@example.com/", "https://example.com/", "https://example.com/"},
		{"https://user:s3cret@Example.com:443/a?b=2&a=1", "https://example.com/a?a=1&b=2", "https://Example.com:443/a?b=2&a=1"},
		{"http://a%40b:p%3Aw@example.com/x@y", "http://example.com/x@y", "http://example.com/x@y"},
		{"https://u:p@x.com/jack/status/20", "https://x.com/jack/status/20", "https://x.com/jack/status/20"},
	} {
		res, err := Canonicalize(tt.in)
		if err != nil {
			t.Fatalf("%s: %v", tt.in, err)
		}
		if res.URL != tt.url || res.Original != tt.original {
			t.Errorf("Canonicalize(%q) = url %q original %q, want %q %q", tt.in, res.URL, res.Original, tt.url, tt.original)
		}
	}
}

// TestDefaultRulesFile: the rules built into the binary as Go values are
// rules.json's, and build the same table.
func TestDefaultRulesFile(t *testing.T) {
	dec := json.NewDecoder(bytes.NewReader(defaultRulesJSON))
	dec.DisallowUnknownFields()
	var f rulesFile
	if err := dec.Decode(&f); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(f, defaultRulesFile); diff != "" {
		t.Fatalf("rules_default.go differs from rules.json (-json +go); regenerate it with go test ./lib/canon -run TestRulesSource -update:\n%s", diff)
	}
	fromJSON := newRules()
	if err := fromJSON.merge(defaultRulesJSON); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(fromJSON, sharedDefault(), cmp.AllowUnexported(Rules{})); diff != "" {
		t.Errorf("tables differ (-json +go):\n%s", diff)
	}
}

// TestWebInput: web links are taken, every form of a local file is
// refused the same way, and nothing depends on the file system (the
// working directory here holds files of the names tried).
func TestWebInput(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"secret.txt", "notes", "example.com"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	for _, tc := range []struct {
		in, want string
		err      error
	}{
		{"https://example.com/a?b", "https://example.com/a?b", nil},
		{" http://localhost:8080/x ", "http://localhost:8080/x", nil},
		{"example.com/page", "https://example.com/page", nil},
		{"example.com", "https://example.com", nil},
		{"~/.ssh/id_rsa", "", ErrLocalFile},
		{"~", "", ErrLocalFile},
		{"/etc/passwd", "", ErrLocalFile},
		{"./secret.txt", "", ErrLocalFile},
		{"../x", "", ErrLocalFile},
		{"file:///etc/passwd", "", ErrLocalFile},
		{"FILE:/etc/passwd", "", ErrLocalFile},
		{"secret.txt", "", ErrLocalFile},
		{"notes/today", "", ErrLocalFile},
		{"notes", "", ErrNotInput},
		{"a page title", "", ErrNotInput},
		{"https://a.example/ Title", "", ErrNotInput},
		{"ftp://x.example/", "", ErrUnsupportedScheme},
		{"", "", ErrBadURL},
	} {
		got, err := WebInput(tc.in)
		if got != tc.want || !errors.Is(err, tc.err) || (tc.err == nil) != (err == nil) {
			t.Errorf("WebInput(%q) = %q, %v; want %q, %v", tc.in, got, err, tc.want, tc.err)
		}
	}
}
