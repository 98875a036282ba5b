package main

import (
	"bytes"
	"os"
	"testing"
)

// TestEmbeddedTableIsCurrent fails when lib/tokens/cl100k_base.bin is not
// what the generator writes now (say after a tiktoken-go upgrade or a change
// to ranktable): run go generate ./lib/tokens.
func TestEmbeddedTableIsCurrent(t *testing.T) {
	want, err := build()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../../cl100k_base.bin")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("cl100k_base.bin (%d bytes) differs from a fresh build (%d bytes): run go generate ./lib/tokens", len(got), len(want))
	}
}
