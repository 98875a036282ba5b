package record

import (
	"fmt"
	"strconv"
	"strings"
)

// The rules of an annotation's type and confidence, written once: the
// store checks every annotation of a record with them, and each face (the
// commands' flags, the MCP tools, the web app's forms) checks what it was
// given with them before it asks, so every face says the same words.

// CheckAnnotationType checks an annotation type: highlight, lowlight or
// note.
func CheckAnnotationType(t string) error {
	switch t {
	case AnnHighlight, AnnLowlight, AnnNote:
		return nil
	}
	return fmt.Errorf("type %s: want highlight, lowlight or note", Quote(t))
}

// CheckConfidence checks a confidence: a number from 0 to 1 (not NaN).
func CheckConfidence(c float64) error {
	if c >= 0 && c <= 1 {
		return nil
	}
	return fmt.Errorf("confidence %v: want a number from 0 to 1", c)
}

// ParseConfidence reads a confidence given as text (a form field, the X
// of a flag's ID=X) and checks it.
func ParseConfidence(s string) (float64, error) {
	c, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return 0, fmt.Errorf("confidence %s: want a number from 0 to 1", Quote(s))
	}
	return c, CheckConfidence(c)
}
