package termsafe

import "testing"

func TestLine(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain title", "plain title"},
		{"", ""},
		{"  two\n\tlines  ", "two lines"},
		{"red \x1b[31mALERT\x1b[0m", "red [31mALERT [0m"},
		{"\x1b]0;owned\x07title", "]0;owned title"},
		{"clear\x1b[2J\x1b[Hscreen", "clear [2J [Hscreen"},
		{"c1 \u009b31m csi", "c1 31m csi"},
		{"back\bspace\rreturn\x7f", "back space return"},
		{"abc\u202Efed", "abc fed"},
		{"isolate\u2066x\u2069", "isolate x"},
		{"bad \xff\xfe utf8", "bad utf8"},
		{"雪 évité ☃", "雪 évité ☃"},
	} {
		if got := Line(tc.in); got != tc.want {
			t.Errorf("Line(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
