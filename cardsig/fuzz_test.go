package cardsig_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/a2amock/a2amock/cardsig"
)

// FuzzJCS checks JCS on any input: it never panics, and what it accepts it
// turns into valid JSON with the same value that JCS leaves unchanged.
func FuzzJCS(f *testing.F) {
	for _, s := range []string{`{"b":1,"a":[true,null,"x"]}`, `[1e30,-0,0.000001,1e-7]`, `"\u20ac\n"`, `{"a":{"b":{}}}`, `{"a":1,"a":2}`, `1e400`, "\"\xff\""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		out, err := cardsig.JCS(in)
		if err != nil {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("JCS(%q) = %q, not JSON", in, out)
		}
		again, err := cardsig.JCS(out)
		if err != nil || string(again) != string(out) {
			t.Fatalf("JCS is not idempotent on %q: %q, %v", out, again, err)
		}
		var a, b any
		if json.Unmarshal(in, &a) != nil || json.Unmarshal(out, &b) != nil {
			t.Fatalf("JCS accepted %q, which encoding/json does not", in)
		}
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("JCS changed the value: %q → %q", in, out)
		}
	})
}
