package web

import (
	"io/fs"
	"regexp"
	"strings"
	"testing"
)

// vClassProblem returns what breaks the v-flag (unicodeSets) rules that
// browsers compile a pattern attribute with, in the character classes of
// re: "(", ")", "[", "]", "{", "}", "/", "-", "|" unescaped inside a class
// (a "-" only between two range ends), and doubled punctuators such as
// "&&" or "..". "" if none.
func vClassProblem(re string) string {
	in := false
	for i := 0; i < len(re); i++ {
		c := re[i]
		if c == '\\' {
			i++
			continue
		}
		if !in {
			if c == '[' {
				in = true
				if i+1 < len(re) && re[i+1] == '^' {
					i++
				}
			}
			continue
		}
		switch {
		case c == ']':
			in = false
		case c == '-':
			prev, next := byte(0), byte(0)
			if i > 0 {
				prev = re[i-1]
			}
			if i+1 < len(re) {
				next = re[i+1]
			}
			if prev == 0 || prev == '[' || prev == '^' || next == ']' || next == 0 || (i >= 2 && re[i-2] == '-') {
				return "unescaped - in a class at " + re[i:]
			}
		case strings.IndexByte("()[{}/|", c) >= 0:
			return "unescaped " + string(c) + " in a class"
		case i+1 < len(re) && re[i+1] == c && strings.IndexByte("&!#$%*+,.:;<=>?@^`~", c) >= 0:
			return "doubled " + string(c) + string(c) + " in a class"
		}
	}
	return ""
}

func TestVClassProblem(t *testing.T) {
	for re, bad := range map[string]bool{
		`[A-Za-z0-9._-]+`: true, `[-a]`: true, `[a/b]`: true, `[a..b]`: true, `[a|b]`: true,
		`[A-Za-z0-9._\-]+`: false, `[a-z]`: false, `[^a-z]+`: false, `a-b`: false, `[\/]`: false,
	} {
		if got := vClassProblem(re) != ""; got != bad {
			t.Errorf("vClassProblem(%q) = %q, want bad %v", re, vClassProblem(re), bad)
		}
	}
}

// TestPatternsCompileWithV: every pattern attribute of our pages keeps the
// v-flag rules (Chromium ignored the pack name's "[A-Za-z0-9._-]+", with an
// error in the console, so any name passed the form) and means what the
// server accepts: letters, digits, ".", "_", "-".
func TestPatternsCompileWithV(t *testing.T) {
	attr := regexp.MustCompile(`pattern="([^"]*)"`)
	names, _ := fs.Glob(templateFS, "templates/*.html")
	seen := 0
	for _, n := range names {
		b, _ := templateFS.ReadFile(n)
		for _, m := range attr.FindAllStringSubmatch(string(b), -1) {
			seen++
			if p := vClassProblem(m[1]); p != "" {
				t.Errorf("%s: pattern %q: %s", n, m[1], p)
			}
			re, err := regexp.Compile(`^(?:` + m[1] + `)$`)
			if err != nil {
				t.Errorf("%s: pattern %q: %v", n, m[1], err)
				continue
			}
			if !re.MatchString("my-topic_2.0") || re.MatchString("bad name") || re.MatchString("a/b") {
				t.Errorf("%s: pattern %q does not mean a pack name", n, m[1])
			}
		}
	}
	if seen == 0 {
		t.Fatal("no pattern attributes found")
	}
}
