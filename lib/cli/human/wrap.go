package human

import (
	"strings"
	"unicode/utf8"
)

// textWidth is the columns of a block's wrapped lines: the terminal's
// width (DefaultWidth when unknown), at most MaxWidth, less the block's
// indent of four; never under 20.
func (r *Renderer) textWidth() int {
	width := r.width
	if width <= 0 {
		width = DefaultWidth
	}
	return max(min(width, MaxWidth)-4, 20)
}

// wrapIndented writes s, one line of words separated by spaces, as lines
// of at most width columns, each indented four spaces and ended with a
// newline. Lines break between words only (a word longer than width
// stands alone on its line, for the terminal to fold); the escape
// sequences of colour take no column.
func wrapIndented(b *strings.Builder, s string, width int) {
	col := 0
	for _, w := range strings.Fields(s) {
		n := visibleWidth(w)
		switch {
		case col == 0:
			b.WriteString("    ")
		case col+1+n > width:
			b.WriteString("\n    ")
			col = 0
		default:
			b.WriteString(" ")
			col++
		}
		b.WriteString(w)
		col += n
	}
	b.WriteString("\n")
}

// visibleWidth is the columns s takes: its runes, less the escape
// sequences (ESC [ … letter) of colour.
func visibleWidth(s string) int {
	n := 0
	for i := 0; i < len(s); {
		if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '[' {
			j := i + 2
			for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) {
				j++
			}
			i = j + 1
			continue
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		n++
	}
	return n
}
