package record

import (
	"fmt"
	"strconv"
	"strings"
)

// The rules of an annotation's type, actor and confidence, written once: the
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

// ActorHuman is the actor of what a person does; an agent is
// "agent:<name>" (ValidActor).
const ActorHuman = "human"

// ActorAgentPrefix starts the actor of an agent.
const ActorAgentPrefix = "agent:"

// ValidActor reports whether a is "human" or "agent:<name>", where the name
// is 1 to 64 of A-Z a-z 0-9 . _ - and starts with a letter or digit.
func ValidActor(a string) bool {
	if a == ActorHuman {
		return true
	}
	name, ok := strings.CutPrefix(a, ActorAgentPrefix)
	if !ok || len(name) == 0 || len(name) > 64 {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if !alnum && (i == 0 || c != '.' && c != '_' && c != '-') {
			return false
		}
	}
	return true
}

// CheckActor checks an actor (ValidActor).
func CheckActor(a string) error {
	if ValidActor(a) {
		return nil
	}
	return fmt.Errorf("actor %s: want human or agent:<name>", Quote(a))
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
