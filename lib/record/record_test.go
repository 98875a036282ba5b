package record

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestUnknownFieldsPassThrough(t *testing.T) {
	in := `{"url":"https://a.example/","zeta":[1,2],"alpha":{"x":"<b>"},"tags":["t"],"fetch":{"status":200}}`
	var r Record
	if err := json.Unmarshal([]byte(in), &r); err != nil {
		t.Fatal(err)
	}
	if r.URL != "https://a.example/" || r.Fetch.Status != 200 || len(r.Tags) != 1 {
		t.Fatalf("known fields not decoded: %+v", r)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // as lib/ndjson writes
	if err := enc.Encode(r); err != nil {
		t.Fatal(err)
	}
	out := bytes.TrimSpace(buf.Bytes())
	want := `{"url":"https://a.example/","tags":["t"],"fetch":{"status":200},"alpha":{"x":"<b>"},"zeta":[1,2]}`
	if diff := cmp.Diff(want, string(out)); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}

func TestEmptyRecordAndExtraOnly(t *testing.T) {
	r := Record{Extra: map[string]json.RawMessage{"k": json.RawMessage(`"v"`)}}
	out, _ := json.Marshal(r)
	if string(out) != `{"k":"v"}` {
		t.Errorf("got %s", out)
	}
	out, _ = json.Marshal(Record{})
	if string(out) != `{}` {
		t.Errorf("got %s", out)
	}
}

func TestItemIDStable(t *testing.T) {
	a, b := ItemID("https://example.com/a"), ItemID("https://example.com/a")
	if a != b || len(a) != 19 || a[:3] != "ll_" {
		t.Fatalf("ids %q %q", a, b)
	}
	if ItemID("https://example.com/b") == a {
		t.Fatal("different urls share an id")
	}
	// the ID is part of the contract: it must never change between versions
	if a != "ll_2dce0a4c50441bfc" {
		t.Errorf("ItemID changed: %s", a)
	}
}

func TestCopiesKey(t *testing.T) {
	in := `{"id":"ll_a","hit":{"rank":1,"score":0},"copies":[{"id":"ll_b","url":"https://a.example/?q=2"}]}`
	var r Record
	if err := json.Unmarshal([]byte(in), &r); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]Copy{{ID: "ll_b", URL: "https://a.example/?q=2"}}, r.Copies); diff != "" {
		t.Errorf("decoded (-want +got):\n%s", diff)
	}
	if len(r.Extra) != 0 {
		t.Errorf("copies kept as an unknown key: %v", r.Extra)
	}
	out, _ := json.Marshal(r)
	if string(out) != in {
		t.Errorf("round trip: %s", out)
	}
	r.Copies = nil
	if out, _ := json.Marshal(r); string(out) != `{"id":"ll_a","hit":{"rank":1,"score":0}}` {
		t.Errorf("no copies: %s", out)
	}
}
