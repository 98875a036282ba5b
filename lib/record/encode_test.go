package record

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestAppendRecord compares the direct encoder with encoding/json on
// random records: every field of every type a Record holds is set now
// and then, with strings and floats chosen to hit each escaping and
// number form. Where appendRecord covers the record the bytes must be
// the same; where it does not, the record must hold a field it leaves to
// encoding/json (or a float JSON cannot hold).
func TestAppendRecord(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 2026))
	direct := 0
	const n = 20000
	for i := 0; i < n; i++ {
		var r Record
		fillValue(rng, reflect.ValueOf(&r).Elem(), 0)
		want, werr := marshalAlias(&r)
		got, ok := appendRecord(nil, &r)
		if !ok {
			if directFields(&r) && werr == nil {
				t.Fatalf("record %d: direct encoder declined a record it covers:\n%s", i, want)
			}
			continue
		}
		direct++
		if werr != nil {
			t.Fatalf("record %d: direct encoder wrote %s, encoding/json failed: %v", i, got, werr)
		}
		if diff := cmp.Diff(string(want), string(got)); diff != "" {
			t.Fatalf("record %d: direct encoder differs (-encoding/json +direct):\n%s", i, diff)
		}
	}
	if direct < n/4 {
		t.Errorf("only %d of %d records took the direct encoder", direct, n)
	}
	// and through MarshalJSON with pass-through keys, for a record of
	// each kind
	for _, r := range []Record{
		{ID: "a", Hit: &Hit{Rank: 1, Score: 1.5}, Extra: map[string]json.RawMessage{"zz": json.RawMessage(`1`), "a<b": json.RawMessage(`"x"`)}},
		{ID: "a", Error: &Error{Stage: "fetch", Code: "timeout", Message: "m"}, Extra: map[string]json.RawMessage{"zz": json.RawMessage(`[1]`)}},
	} {
		got, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		want, err := marshalAlias(&r)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want[:len(want)-1], `,"a\u003cb":"x","zz":`...)
		want = append(want, r.Extra["zz"]...)
		want = append(want, '}')
		if r.Error != nil {
			want, _ = marshalAlias(&r)
			want = append(want[:len(want)-1], `,"zz":[1]}`...)
		}
		if string(got) != string(want) {
			t.Errorf("MarshalJSON:\n got %s\nwant %s", got, want)
		}
	}
}

var testStrings = []string{
	"", "plain", `quote " and \ backslash`, "tab\tnew\nline\rcr\bbs\fff", "ctl \x00\x01\x1f\x7f end",
	"<html> & 'amp'", "caf\u00e9 \u65e5\u672c", "sep \u2028 and \u2029", "bad \xff\xfe utf8 \xe2\x82", "emoji \U0001F600",
	"https://example.com/a?b=1&c=<2>",
}

var testFloats = []float64{
	0, 1, -1, 0.5, 1.0 / 3, 2.5e-7, 1e-6, 9.99999e-7, 1e21, 9.99e20, -1e21, 123456789.125, 1e-320,
	math.MaxFloat64, -0.000001234, 42, 0.1 + 0.2,
}

// fillValue sets v (settable) to a random value of its type; a field is
// left zero half the time, and the fields appendRecord leaves to
// encoding/json are set rarely, so most records take the direct path.
func fillValue(rng *rand.Rand, v reflect.Value, depth int) {
	switch v.Kind() {
	case reflect.String:
		if rng.IntN(3) == 0 {
			b := make([]byte, rng.IntN(12))
			for i := range b {
				b[i] = byte(rng.IntN(256))
			}
			v.SetString(string(b))
			return
		}
		v.SetString(testStrings[rng.IntN(len(testStrings))])
	case reflect.Bool:
		v.SetBool(rng.IntN(2) == 0)
	case reflect.Int, reflect.Int64, reflect.Int32:
		v.SetInt([]int64{0, 1, -1, 7, 1 << 40, math.MinInt32, rng.Int64N(1000)}[rng.IntN(7)])
	case reflect.Float64:
		if rng.IntN(400) == 0 {
			v.SetFloat([]float64{math.NaN(), math.Inf(1), math.Inf(-1)}[rng.IntN(3)])
			return
		}
		if rng.IntN(4) == 0 {
			v.SetFloat(rng.NormFloat64() * math.Pow(10, float64(rng.IntN(40)-20)))
			return
		}
		v.SetFloat(testFloats[rng.IntN(len(testFloats))])
	case reflect.Pointer:
		if depth > 4 {
			return
		}
		p := reflect.New(v.Type().Elem())
		fillValue(rng, p.Elem(), depth+1)
		v.Set(p)
	case reflect.Slice:
		if v.Type() == reflect.TypeOf(json.RawMessage(nil)) {
			v.SetBytes([]byte(`{"k":[1,"x"]}`))
			return
		}
		if depth > 4 {
			return
		}
		n := rng.IntN(4) // 0: an empty, non-nil slice
		s := reflect.MakeSlice(v.Type(), n, n)
		for i := 0; i < n; i++ {
			fillValue(rng, s.Index(i), depth+1)
		}
		v.Set(s)
	case reflect.Map:
		if v.Type().Elem() == reflect.TypeOf(json.RawMessage(nil)) {
			return // Extra: MarshalJSON's part, tested above
		}
		m := reflect.MakeMap(v.Type())
		for i := rng.IntN(3); i > 0; i-- {
			k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
			fillValue(rng, k, depth+1)
			fillValue(rng, e, depth+1)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	case reflect.Struct:
		rare := v.Type() == reflect.TypeOf(Record{}) || v.Type() == reflect.TypeOf(Hit{}) || v.Type() == reflect.TypeOf(SaveResult{})
		for i := 0; i < v.NumField(); i++ {
			f := v.Type().Field(i)
			if !f.IsExported() || f.Tag.Get("json") == "-" {
				continue
			}
			p := 2
			if rare && leftToJSON[f.Name] {
				p = 40
			}
			if rng.IntN(p) == 0 {
				fillValue(rng, v.Field(i), depth)
			}
		}
	default:
		panic("fillValue: no case for " + v.Type().String())
	}
}

// leftToJSON are the fields of Record, Hit and SaveResult that send a
// record to encoding/json (see directFields).
var leftToJSON = map[string]bool{
	"Review": true, "Enrich": true, "Fetch": true, "Body": true, "BodyBase64": true, "Parse": true, "Index": true,
	"Tagged": true, "Artifacts": true, "TagCount": true, "Change": true, "Event": true, "Setting": true, "Error": true,
	"Meta": true, "Reviewed": true,
}
